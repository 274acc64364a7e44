"""The bot's configuration: a TOML file, environment overrides, and checks with one-line errors.

Where it comes from, later sources winning:

1. the defaults of `Config` (enough to run with the embedded Redis and no chat front end);
2. a TOML file: the `path` argument, else the file named by `WIZARD_CONFIG`, else `./wizard.toml`
   if there is one (a missing default file is not an error; a file named but missing is);
3. the environment: the variables of `ENV_OVERRIDES` (`WIZARD_REDIS_URL`, `WIZARD_DATA_DIR`,
   `WIZARD_TELEGRAM_TOKEN`, ...). An empty variable counts as unset.

Every key is checked, and unknown keys are errors: `load_config` raises `ConfigError`, whose
message is one line naming the file or variable, the key and the problem (a TOML syntax error:
the line, and the key set there). `config.example.toml` documents every key.
"""

import difflib
import json
import math
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from bot.show.i18n import LANGUAGES

THEMES = ("colours", "races", "french")
"""The names the four suits can be shown by."""

AI_LEVELS = ("easy", "normal", "hard")
"""How well the AI players play."""

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")

LOG_FORMATS = ("text", "json")
"""How log lines are written: plain text, or one JSON object per line."""

DEFAULT_FILE = "wizard.toml"
"""The file read from the current directory when neither `path` nor WIZARD_CONFIG names one."""

FSYNC = ("always", "everysec")
REDIS_TIMEOUT_RANGE = (0.05, 30.0)
TURN_TIMEOUT_RANGE = (10, 3600)
LOBBY_TIMEOUT_RANGE = (60, 7 * 24 * 3600)
FINISHED_TTL_RANGE = (60, 365 * 24 * 3600)
MAX_AI_NAME = 32
MAX_AI_NAMES = 20

ENV_CONFIG = "WIZARD_CONFIG"
ENV_OVERRIDES: Mapping[str, str] = {
    "WIZARD_REDIS_URL": "redis_url",
    "WIZARD_REDIS_FSYNC": "redis_fsync",
    "WIZARD_REDIS_TIMEOUT": "redis_timeout",
    "WIZARD_REDIS_CLUSTER": "redis_cluster",
    "WIZARD_DATA_DIR": "data_dir",
    "WIZARD_LANGUAGE": "language",
    "WIZARD_TELEGRAM_TOKEN": "telegram.token",
    "WIZARD_TELEGRAM_BASE_URL": "telegram.base_url",
    "WIZARD_DISCORD_TOKEN": "discord.token",
    "WIZARD_DISCORD_BASE_URL": "discord.base_url",
}
"""Environment variables and the keys they override."""


class ConfigError(Exception):
    """A configuration that cannot be used; str() is one line naming the source, key and problem."""


@dataclass(frozen=True)
class TelegramConfig:
    """The Telegram front end: on when `token` is set; long polling unless `webhook_url` is."""

    token: str | None = field(default=None, repr=False)
    base_url: str = "https://api.telegram.org"
    webhook_url: str | None = None
    webhook_secret: str | None = field(default=None, repr=False)
    listen: str = "127.0.0.1:8080"


@dataclass(frozen=True)
class DiscordConfig:
    """The Discord front end: on when `token` is set."""

    token: str | None = field(default=None, repr=False)
    shards: bool = False
    base_url: str = "https://discord.com/api/v10"
    """Discord's REST API (another one: a test's)."""


@dataclass(frozen=True)
class MetricsConfig:
    """The health and metrics HTTP server (/healthz, /readyz, /metrics): on when `listen` is set."""

    listen: str | None = None
    """host:port to serve on; None: no server."""


@dataclass(frozen=True)
class Config:
    """Everything the bot is configured by. Times are whole seconds."""

    redis_url: str | None = None
    """A Redis to use (redis://, rediss:// or unix://); None starts the embedded one in data_dir."""
    redis_fsync: str = "always"
    """How the embedded Redis syncs its append-only file: "always" (before it answers a write:
    nothing acknowledged is lost, even in a power failure) or "everysec" (faster; a machine
    crash may lose the last second)."""
    redis_timeout: float = 1.0
    """Seconds a Redis connection or call may take before it counts as unreachable."""
    redis_cluster: bool = False
    """`redis_url` names a node of a Redis Cluster (the client finds the others): redis-py's
    `RedisCluster`, as its `RedisCluster.from_url` reads the URL."""
    data_dir: Path = Path("data")
    """Where the bot keeps its files (the embedded Redis among them); relative to the current
    directory unless absolute."""
    language: str = "en"
    theme: str = "colours"
    turn_timeout: int = 90
    lobby_timeout: int = 1800
    """An idle lobby closes after this long."""
    finished_ttl: int = 7 * 24 * 3600
    """How long a finished or abandoned game's state stays in Redis."""
    ai_level: str = "normal"
    ai_names: tuple[str, ...] = ("Merlin", "Morgana", "Nimue", "Taliesin", "Vivienne")
    telegram: TelegramConfig = field(default_factory=TelegramConfig)
    discord: DiscordConfig = field(default_factory=DiscordConfig)
    metrics: MetricsConfig = field(default_factory=MetricsConfig)
    log_level: str = "INFO"
    log_format: str = "text"
    """"text" (one readable line per record) or "json" (one JSON object per line)."""


class _Invalid(Exception):
    """A value's problem, as the end of a ConfigError message (after "source: ")."""


Check = Callable[[str, object], object]


def _show(value: object) -> str:
    """A value as it would be written in TOML, short and on one line."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        return text if len(text) <= 60 else text[:56] + '..."'
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__}"


def _seconds(low: int, high: int) -> Check:
    def check(key: str, value: object) -> int:
        number: int | None = None
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif isinstance(value, float) and math.isfinite(value) and value.is_integer():
            number = int(value)
        if number is None or not low <= number <= high:
            raise _Invalid(
                f"{key} must be a whole number of seconds from {low} to {high}, not {_show(value)}"
            )
        return number

    return check


def _string(key: str, value: object) -> str:
    if not isinstance(value, str):
        raise _Invalid(f"{key} must be a string, not {_show(value)}")
    return value


def _choice(choices: tuple[str, ...], *, upper: bool = False) -> Check:
    def check(key: str, value: object) -> str:
        text = _string(key, value)
        if upper:
            text = text.upper()
        if text not in choices:
            raise _Invalid(f"unknown {key} {_show(value)} (known: {', '.join(choices)})")
        return text

    return check


def _secret(key: str, value: object) -> str:
    """A token or secret: never echoed back in a message."""
    if not isinstance(value, str):
        raise _Invalid(f"{key} must be a string")
    if not value or any(char.isspace() for char in value):
        raise _Invalid(f"{key} must be non-empty and have no spaces (check for a stray newline)")
    return value


def _url(schemes: tuple[str, ...]) -> Check:
    def check(key: str, value: object) -> str:
        text = _string(key, value)
        if not _url_ok(text, schemes):
            wanted = " or ".join(f"{scheme}://" for scheme in schemes)
            # A URL with user info may hold a password: it is not repeated.
            shown = "a URL with user info" if "@" in text else _show(value)
            raise _Invalid(f"{key} must be a URL starting with {wanted}, not {shown}")
        return text

    return check


def _redis_url(key: str, value: object) -> str:
    """A Redis URL whose database, if named, is a number (redis-py would silently use 0)."""
    text = _url(("redis", "rediss", "unix"))(key, value)
    assert isinstance(text, str)
    parts = urlsplit(text)
    databases = [value for name, value in parse_qsl(parts.query) if name == "db"]
    if parts.scheme != "unix":
        databases.append(parts.path.lstrip("/"))
    for database in databases:
        if database and not (database.isascii() and database.isdigit()):
            example = "unix:///path.sock?db=0" if parts.scheme == "unix" else "redis://host:6379/0"
            shown = "a URL with user info" if "@" in text else _show(value)
            raise _Invalid(f"{key} must name its database by number, like {example}, not {shown}")
    return text


def _seconds_between(low: float, high: float) -> Check:
    def check(key: str, value: object) -> float:
        number: float | None = None
        if isinstance(value, int | float) and not isinstance(value, bool):
            number = float(value)
        if number is None or not math.isfinite(number) or not low <= number <= high:
            raise _Invalid(
                f"{key} must be a number of seconds from {low} to {high}, not {_show(value)}"
            )
        return number

    return check


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


def _path(key: str, value: object) -> Path:
    text = _string(key, value)
    if not text.strip() or "\0" in text:
        raise _Invalid(f"{key} must be a directory path, not {_show(value)}")
    return Path(text)


_WEBHOOK_SECRET = re.compile(r"[A-Za-z0-9_-]{1,256}")


def _webhook_secret(key: str, value: object) -> str:
    text = _secret(key, value)
    if not _WEBHOOK_SECRET.fullmatch(text):
        raise _Invalid(f"{key} must be 1 to 256 characters of A-Z, a-z, 0-9, _ and -")
    return text


def _listen(key: str, value: object) -> str:
    text = _string(key, value)
    host, colon, port = text.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not (colon and host and port.isdigit() and 1 <= int(port) <= 65535):
        raise _Invalid(f'{key} must be host:port (like "127.0.0.1:8080"), not {_show(value)}')
    return text


def _bool(key: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise _Invalid(f"{key} must be true or false, not {_show(value)}")
    return value


def _ai_names(key: str, value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or len(value) > MAX_AI_NAMES:
        raise _Invalid(f"{key} must be a list of 1 to {MAX_AI_NAMES} names, not {_show(value)}")
    names: list[str] = []
    for item in value:
        if (
            not isinstance(item, str)
            or not item.strip()
            or item != item.strip()
            or len(item) > MAX_AI_NAME
            or not item.isprintable()
        ):
            raise _Invalid(
                f"{key} must hold names of 1 to {MAX_AI_NAME} printable characters without "
                f"leading or trailing spaces, not {_show(item)}"
            )
        if item.casefold() in (name.casefold() for name in names):
            raise _Invalid(f"{key} has {_show(item)} twice")
        names.append(item)
    return tuple(names)


_TOP: Mapping[str, Check] = {
    "redis_url": _redis_url,
    "redis_fsync": _choice(FSYNC),
    "redis_timeout": _seconds_between(*REDIS_TIMEOUT_RANGE),
    "redis_cluster": _bool,
    "data_dir": _path,
    "language": _choice(tuple(LANGUAGES)),
    "theme": _choice(THEMES),
    "turn_timeout": _seconds(*TURN_TIMEOUT_RANGE),
    "lobby_timeout": _seconds(*LOBBY_TIMEOUT_RANGE),
    "finished_ttl": _seconds(*FINISHED_TTL_RANGE),
    "ai_level": _choice(AI_LEVELS),
    "ai_names": _ai_names,
    "log_level": _choice(LOG_LEVELS, upper=True),
    "log_format": _choice(LOG_FORMATS),
}
_SECTIONS: Mapping[str, Mapping[str, Check]] = {
    "telegram": {
        "token": _secret,
        "base_url": _url(("https", "http")),
        "webhook_url": _url(("https",)),
        "webhook_secret": _webhook_secret,
        "listen": _listen,
    },
    "discord": {
        "token": _secret,
        "shards": _bool,
        "base_url": _url(("https", "http")),
    },
    "metrics": {
        "listen": _listen,
    },
}


def _unknown(key: str, known: list[str], prefix: str = "") -> _Invalid:
    close = difflib.get_close_matches(key, known, n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return _Invalid(f"unknown key {prefix}{key}{hint}")


def _check_table(table: Mapping[str, object]) -> dict[str, Any]:
    """The file's values, checked, as keyword arguments of Config (sections as dicts)."""
    values: dict[str, Any] = {}
    known = [*_TOP, *_SECTIONS]
    for key, value in table.items():
        if key in _SECTIONS:
            if not isinstance(value, dict):
                raise _Invalid(f"{key} must be a table ([{key}]), not {_show(value)}")
            checks = _SECTIONS[key]
            section: dict[str, object] = {}
            for name, item in value.items():
                if name not in checks:
                    raise _unknown(name, list(checks), prefix=f"{key}.")
                section[name] = checks[name](f"{key}.{name}", item)
            values[key] = section
        elif key in _TOP:
            values[key] = _TOP[key](key, value)
        else:
            raise _unknown(key, known)
    return values


def _read_file(path: Path, named_by: str) -> dict[str, object]:
    """The TOML table in `path`; `named_by` is what named the file, for messages."""
    name = str(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{named_by}no such config file {_show(name)}") from None
    except OSError as error:
        raise ConfigError(
            f"{named_by}cannot read config file {_show(name)}: {error.strerror}"
        ) from None
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ConfigError(f"{name}: not UTF-8 text (byte {error.start + 1})") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{name}: invalid TOML {_toml_problem(data.decode(), error)}") from None


NUMBERS = frozenset({"redis_timeout"})
"""Keys whose value is a number: their environment variable is read as one."""
BOOLEANS = frozenset({"redis_cluster"})
"""Keys whose value is true or false: their environment variable is read as one (true, yes,
on, 1; false, no, off, 0)."""
_TRUE, _FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


def _typed(key: str, text: str) -> object:
    """An environment variable's text as the key's value: a number for a number's key, true or
    false for a switch (the text itself if it is none, for the check to refuse)."""
    if key in BOOLEANS:
        word = text.strip().lower()
        return True if word in _TRUE else False if word in _FALSE else text
    if key not in NUMBERS:
        return text
    try:
        return float(text.strip())
    except ValueError:
        return text


_AT_LINE = re.compile(r"\s*\(at line (\d+), column \d+\)|\s*\(at end of document\)")
_TOML_KEY = re.compile(r"\s*([A-Za-z0-9_\-.\"' ]+?)\s*=")
_TOML_TABLE = re.compile(r"\s*\[+\s*([^\]]+?)\s*\]")


def _toml_problem(text: str, error: tomllib.TOMLDecodeError) -> str:
    """Where a TOML file is wrong and what is wrong there: the key (with its table) when the
    line sets one, else the line."""
    message = " ".join(str(error).split())
    at = _AT_LINE.search(message)
    what = _AT_LINE.sub("", message).rstrip(".")
    if at is None or at.group(1) is None:
        return f"at the end of the file: {what}"
    number = int(at.group(1))
    lines = text.splitlines()
    line = lines[number - 1] if 0 < number <= len(lines) else ""
    if "Cannot overwrite a value" in what:
        what = "it is set twice"
    header = _TOML_TABLE.match(line)
    if header is not None and "twice" in what:
        return f"at line {number}: the table [{header.group(1)}] is declared twice"
    key = _TOML_KEY.match(line)
    if key is None:
        return f"at line {number}: {what}"
    table = next(
        (
            found.group(1)
            for before in reversed(lines[: number - 1])
            if (found := _TOML_TABLE.match(before))
        ),
        "",
    )
    name = key.group(1).strip().strip("\"'")
    return f"at line {number}, key {f'{table}.' if table else ''}{name}: {what}"


def load_config(environ: Mapping[str, str] | None = None, path: str | None = None) -> Config:
    """The configuration from the TOML file and the environment (`os.environ` by default).

    `path` names the file (it must exist); without it, WIZARD_CONFIG does, else `./wizard.toml`
    is read if present. Raises ConfigError with a one-line message on any problem.
    """
    env = os.environ if environ is None else environ
    file: Path | None = None
    named_by = ""
    if path is not None:
        file = Path(path)
    elif env.get(ENV_CONFIG):
        file, named_by = Path(env[ENV_CONFIG]), f"{ENV_CONFIG}: "
    elif Path(DEFAULT_FILE).is_file():
        file = Path(DEFAULT_FILE)

    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    """Where each key's value came from, for a message about it."""
    if file is not None:
        table = _read_file(file, named_by)
        try:
            values = _check_table(table)
        except _Invalid as problem:
            raise ConfigError(f"{file}: {problem}") from None
        sources = dict.fromkeys(values, str(file))

    for variable, key in ENV_OVERRIDES.items():
        text = env.get(variable)
        if not text:
            continue
        section, dot, name = key.rpartition(".")
        checks = _SECTIONS[section] if dot else _TOP
        label = key if dot else name
        try:
            value = checks[name](label, _typed(key, text))
        except _Invalid as problem:
            raise ConfigError(f"{variable}: {problem}") from None
        if dot:
            values.setdefault(section, {})[name] = value
        else:
            values[name] = value
        sources[key] = variable

    telegram = TelegramConfig(**values.pop("telegram", {}))
    discord = DiscordConfig(**values.pop("discord", {}))
    metrics = MetricsConfig(**values.pop("metrics", {}))
    config = Config(**values, telegram=telegram, discord=discord, metrics=metrics)
    if config.redis_cluster:
        where = sources.get("redis_cluster", "redis_cluster")
        url = config.redis_url
        if url is None:
            raise ConfigError(
                f"{where}: redis_cluster needs redis_url, a node of the cluster (set redis_url, "
                "or WIZARD_REDIS_URL): the embedded Redis is a single server"
            )
        parts = urlsplit(url)
        if parts.scheme == "unix" or parts.path.strip("/") not in ("", "0"):
            raise ConfigError(
                f"{sources.get('redis_url', 'redis_url')}: a Redis Cluster is reached over TCP "
                f"and has database 0 only, like redis://host:7000, not {_show(url)}"
            )
    if config.data_dir.exists() and not config.data_dir.is_dir():
        not_a_dir = f"data_dir {_show(str(config.data_dir))} is not a directory"
        if "data_dir" not in sources:  # the default: say how to choose another
            raise ConfigError(f"{not_a_dir} (set data_dir, or WIZARD_DATA_DIR)")
        raise ConfigError(f"{sources['data_dir']}: {not_a_dir}")
    return config
