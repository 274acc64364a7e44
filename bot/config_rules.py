"""How each kind of configuration value is checked, and read from an environment variable's text.

A `Rule` holds a value's check (the same for the TOML file and the environment), how the text of
an environment variable becomes a value for that check (a number, a switch, a list), and that
form in words for the generated documentation. A check raises `Invalid`, whose text is the end
of a one-line ConfigError message; it never repeats a secret.
"""

import json
import math
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

MAX_AI_NAME = 32
MAX_AI_NAMES = 20
MAX_FONT_FILES = 10
TRUE_WORDS = ("true", "yes", "on", "1")
FALSE_WORDS = ("false", "no", "off", "0")
"""How a switch may be written in an environment variable (any case)."""


class Invalid(Exception):
    """A value's problem, as the end of a ConfigError message (after "source: ")."""


Check = Callable[[str, object], object]
"""A key's check: (the key's name, the value) to the value as Config holds it, or Invalid."""
Read = Callable[[str], object]
"""An environment variable's text as a value for the key's check (which refuses a bad one)."""


def _as_text(text: str) -> object:
    return text


@dataclass(frozen=True)
class Rule:
    """One kind of value: its check, how an environment variable's text is read, and in words."""

    check: Check
    form: str
    """The value as an environment variable writes it, in words, for the generated docs."""
    read: Read = _as_text


def show(value: object) -> str:
    """A value as it would be written in TOML, short and on one line."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        return text if len(text) <= 60 else text[:56] + '..."'
    if isinstance(value, int | float):
        text = repr(value)
        return text if len(text) <= 60 else text[:56] + "..."
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__}"


def _read_number(text: str) -> object:
    """A number as written in the file (90, 0.25, 1_000); other text as is, for the check,
    which then names it as written: digits other than ASCII's (Python's int reads them, TOML
    does not), and what a float cannot hold (1e400, or inf itself, would read as inf)."""
    if not text.isascii():
        return text
    number: int | float
    for kind in (int, float):
        try:
            number = kind(text.strip())
        except ValueError:
            continue
        return number if isinstance(number, int) or math.isfinite(number) else text
    return text


def _read_switch(text: str) -> object:
    word = text.strip().lower()
    return True if word in TRUE_WORDS else False if word in FALSE_WORDS else text


def _read_list(text: str) -> object:
    """Comma-separated items (each stripped), or a TOML array when the text starts with "["."""
    if not text.lstrip().startswith("["):
        return [item.strip() for item in text.split(",")]
    try:
        table = tomllib.loads(f"value = {text}")
    except tomllib.TOMLDecodeError:
        return text
    return table["value"] if list(table) == ["value"] else text


def seconds(low: int, high: int) -> Rule:
    """A whole number of seconds from low to high."""

    def check(key: str, value: object) -> int:
        number: int | None = None
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif isinstance(value, float) and math.isfinite(value) and value.is_integer():
            number = int(value)
        if number is None or not low <= number <= high:
            raise Invalid(
                f"{key} must be a whole number of seconds from {low} to {high}, not {show(value)}"
            )
        return number

    return Rule(check, f"whole seconds, {low} to {high}", _read_number)


def seconds_between(low: float, high: float) -> Rule:
    """A number of seconds (a fraction allowed) from low to high."""

    def check(key: str, value: object) -> float:
        number: float | None = None
        if isinstance(value, int | float) and not isinstance(value, bool):
            number = float(value)
        if number is None or not math.isfinite(number) or not low <= number <= high:
            raise Invalid(
                f"{key} must be a number of seconds from {low} to {high}, not {show(value)}"
            )
        return number

    return Rule(check, f"seconds, {low:g} to {high:g}", _read_number)


def _string(key: str, value: object) -> str:
    if not isinstance(value, str):
        raise Invalid(f"{key} must be a string, not {show(value)}")
    return value


def choice(choices: tuple[str, ...], *, upper: bool = False) -> Rule:
    """One of `choices`; with `upper`, written in any case and kept upper-cased."""

    def check(key: str, value: object) -> str:
        text = _string(key, value)
        if upper:
            text = text.upper()
        if text not in choices:
            raise Invalid(f"unknown {key} {show(value)} (known: {', '.join(choices)})")
        return text

    words = f"{', '.join(choices[:-1])} or {choices[-1]}" if len(choices) > 1 else choices[0]
    return Rule(check, words + (" (any case)" if upper else ""))


def _secret(key: str, value: object) -> str:
    """A token or secret: never echoed back in a message."""
    if not isinstance(value, str):
        raise Invalid(f"{key} must be a string")
    if not value or any(char.isspace() for char in value):
        raise Invalid(f"{key} must be non-empty and have no spaces (check for a stray newline)")
    if _placeholder(value):
        raise Invalid(f"{key} is still the example's placeholder: put the real one in its place")
    return value


def _placeholder(value: str) -> bool:
    """Whether `value` is one of the placeholders of config.example.toml and deploy/*.env.example
    (`replace-me`, `change-me`, a value ending in `...`, or in `…` as README's), left in by
    mistake."""
    lowered = value.lower()
    return "replace-me" in lowered or "change-me" in lowered or value.endswith(("...", "…"))


SECRET = Rule(_secret, "a secret, no spaces")


def _url_ok(text: str, schemes: tuple[str, ...]) -> bool:
    if any(char.isspace() for char in text):
        return False
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        return False
    if parts.scheme not in schemes:
        return False
    return bool(parts.path if parts.scheme == "unix" else parts.hostname)


def _shown_url(text: str) -> str:
    """A URL for a message: one with user info may hold a password, so it is not repeated."""
    return "a URL with user info" if "@" in text else show(text)


def _check_url(key: str, value: object, schemes: tuple[str, ...]) -> str:
    text = _string(key, value)
    if not _url_ok(text, schemes):
        wanted = " or ".join(f"{scheme}://" for scheme in schemes)
        raise Invalid(f"{key} must be a URL starting with {wanted}, not {_shown_url(text)}")
    return text


def url(*schemes: str) -> Rule:
    """A URL with one of `schemes`."""

    def check(key: str, value: object) -> str:
        return _check_url(key, value, schemes)

    return Rule(check, "a URL: " + " or ".join(f"{scheme}://" for scheme in schemes))


_REDIS_SCHEMES = ("redis", "rediss", "unix")


def _redis_url(key: str, value: object) -> str:
    """A Redis URL whose database, if named, is a number (redis-py would silently use 0)."""
    text = _check_url(key, value, _REDIS_SCHEMES)
    parts = urlsplit(text)
    databases = [value for name, value in parse_qsl(parts.query) if name == "db"]
    if parts.scheme != "unix":
        databases.append(parts.path.lstrip("/"))
    for database in databases:
        if database and not (database.isascii() and database.isdigit()):
            example = "unix:///path.sock?db=0" if parts.scheme == "unix" else "redis://host:6379/0"
            raise Invalid(
                f"{key} must name its database by number, like {example}, not {_shown_url(text)}"
            )
    return text


REDIS_URL = Rule(_redis_url, "a URL: redis://host:port/db, rediss:// or unix:///path.sock")


def _path(key: str, value: object) -> Path:
    text = _string(key, value)
    if not text.strip() or "\0" in text:
        raise Invalid(f"{key} must be a directory path, not {show(value)}")
    return Path(text)


PATH = Rule(_path, "a directory path")

_WEBHOOK_SECRET = re.compile(r"[A-Za-z0-9_-]{1,256}")


def _webhook_secret(key: str, value: object) -> str:
    text = _secret(key, value)
    if not _WEBHOOK_SECRET.fullmatch(text):
        raise Invalid(f"{key} must be 1 to 256 characters of A-Z, a-z, 0-9, _ and -")
    return text


WEBHOOK_SECRET = Rule(_webhook_secret, "a secret, 1 to 256 of A-Z a-z 0-9 _ -")


def _host(host: str) -> bool:
    """Whether `host` can be a host name or address: something, printable, with no space."""
    return bool(host) and host.isprintable() and not any(char.isspace() for char in host)


def _port(port: str) -> bool:
    """Whether `port` is 1 to 65535 in ASCII digits (`str.isdigit` alone takes "²", which
    `int` refuses)."""
    return port.isascii() and port.isdigit() and 1 <= int(port) <= 65535


def _listen(key: str, value: object) -> str:
    text = _string(key, value)
    host, colon, port = text.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if colon and _host(host) and port.isascii() and port.isdigit() and not _port(port):
        raise Invalid(
            f'{key} must be host:port with a port from 1 to 65535 (like "127.0.0.1:8080"), '
            f"not {show(value)}: {int(port)} is no port"
        )
    if not (colon and _host(host) and _port(port)):
        raise Invalid(f'{key} must be host:port (like "127.0.0.1:8080"), not {show(value)}')
    return text


LISTEN = Rule(_listen, "host:port (port 1–65535)")


def _switch(key: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise Invalid(f"{key} must be true or false, not {show(value)}")
    return value


_ALSO = ", ".join(f"{yes}/{no}" for yes, no in zip(TRUE_WORDS[1:], FALSE_WORDS[1:], strict=True))
SWITCH = Rule(_switch, f"true or false (also {_ALSO})", _read_switch)


Item = Callable[[str, object, list[str]], str]
"""A list's item's check (`listed`): (the key's name, the item, the items before it) to the
item as Config holds it, or Invalid."""


def listed(most: int, what: str, form: str, item: Item) -> Rule:
    """A list of 1 to `most` items (`what`: them in words, for its refusal; `form`: for the
    docs), each checked by `item`, as an environment variable's comma-separated items or a
    TOML array; held as a tuple."""

    def check(key: str, value: object) -> tuple[str, ...]:
        if not isinstance(value, list) or not value or len(value) > most:
            raise Invalid(f"{key} must be a list of 1 to {most} {what}, not {show(value)}")
        items: list[str] = []
        for each in value:
            items.append(item(key, each, items))
        return tuple(items)

    return Rule(check, f"1 to {most} {form}, comma-separated (or a TOML array)", _read_list)


def _name(key: str, item: object, before: list[str]) -> str:
    if (
        not isinstance(item, str)
        or not item.strip()
        or item != item.strip()
        or len(item) > MAX_AI_NAME
        or not item.isprintable()
    ):
        raise Invalid(
            f"{key} must hold names of 1 to {MAX_AI_NAME} printable characters without "
            f"leading or trailing spaces, not {show(item)}"
        )
    if item.casefold() in (name.casefold() for name in before):
        raise Invalid(f"{key} has {show(item)} twice")
    return item


NAMES = listed(MAX_AI_NAMES, "names", "distinct names", _name)


def _font_file(key: str, item: object, before: list[str]) -> str:
    from bot.show import system_fonts  # Pillow, loaded only when the key is set

    if not isinstance(item, str) or not item.strip() or "\0" in item:
        raise Invalid(f"{key} must hold paths of font files, not {show(item)}")
    if not Path(item).is_file():
        raise Invalid(f"{key}: there is no file {show(item)}")
    if not system_fonts.readable(item):
        raise Invalid(f"{key}: {show(item)} is not a font file (TrueType, OpenType or .ttc)")
    return item


FONT_FILES = listed(MAX_FONT_FILES, "files", "font file paths", _font_file)
