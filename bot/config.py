"""The bot's configuration: a TOML file, the environment, and checks with one-line errors.

Where it comes from, later sources winning:

1. the defaults of `Config` (enough to run with the embedded Redis and no chat front end);
2. a TOML file: the `path` argument, else the file named by `WIZARD_CONFIG`, else `./wizard.toml`
   if there is one (a missing default file is not an error; a file named but missing is, and
   a directory at either);
3. the environment: every key has a variable, `WIZARD_<KEY>` or `WIZARD_<SECTION>_<KEY>`
   (`WIZARD_TURN_TIMEOUT`, `WIZARD_TELEGRAM_WEBHOOK_SECRET`). An empty variable counts as unset.

`KEYS` is the one table of keys: each key's name, its rule (its check and how its variable's
text is read, `bot.config_rules`) and what it sets; `bot.config_docs` writes the list of
variables in `config.example.toml` and the table in docs/operations.md from it. Every value is
checked the same way from either source, and unknown keys are errors (so is a variable whose
name is a slip of a key's, `_check_variables`): `load_config` raises
`ConfigError`, whose message is one line naming the file or variable, the key and the problem
(a TOML syntax error: the line, and the key set there). `config.example.toml` documents every key.
"""

import difflib
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bot.config_rules import (
    FONT_FILES,
    LISTEN,
    NAMES,
    PATH,
    REDIS_URL,
    SECRET,
    SWITCH,
    WEBHOOK_SECRET,
    Check,
    Invalid,
    Rule,
    choice,
    seconds,
    seconds_between,
    show,
    url,
)
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
AI_GRACE_RANGE = (1, 600)
FINISHED_TTL_RANGE = (60, 365 * 24 * 3600)
LINK_TTL_RANGE = (60, 30 * 24 * 3600)
INIT_DATA_TTL_RANGE = (10, 24 * 3600)

ENV_CONFIG = "WIZARD_CONFIG"
ENV_PREFIX = "WIZARD_"


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
class WebConfig:
    """The web table (`adapters.web`): on when `listen` is set."""

    listen: str | None = None
    """host:port to serve the page and its API on; None: no web table."""
    public_url: str | None = None
    """The address people open the table at (what links and Mini App buttons point to)."""
    secret: str | None = field(default=None, repr=False)
    """The key link tokens are signed with; None: one derived from the bot token(s)."""
    link_ttl: int = 24 * 3600
    """How long a signed link to the table stays valid."""
    init_data_ttl: int = 3600
    """How old a Telegram Mini App's `initData` (its `auth_date`) may be."""


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
    """An idle lobby closes after this long, and a paused game (nobody playing) is abandoned."""
    finished_ttl: int = 7 * 24 * 3600
    """How long a finished or abandoned game's state stays in Redis."""
    ai_level: str = "normal"
    stand_in: str = "hard"
    """How well the AI plays for a player who ran out of time, until they are back."""
    ai_grace: int = 5
    """An AI move is made at once by the worker that saved what it follows; should that
    worker die first, any worker makes it after this long."""
    ai_names: tuple[str, ...] = ("Merlin", "Morgana", "Nimue", "Taliesin", "Vivienne")
    picture_fonts: tuple[str, ...] = ()
    """Font files the score sheet's picture draws what its own fonts lack with (CJK, emoji),
    before the well-known ones of the system (`bot.show.system_fonts`)."""
    telegram: TelegramConfig = field(default_factory=TelegramConfig)
    discord: DiscordConfig = field(default_factory=DiscordConfig)
    metrics: MetricsConfig = field(default_factory=MetricsConfig)
    web: WebConfig = field(default_factory=WebConfig)
    log_level: str = "INFO"
    log_format: str = "text"
    """"text" (one readable line per record) or "json" (one JSON object per line)."""


@dataclass(frozen=True)
class Key:
    """One configuration key: its name in the file ("turn_timeout", "telegram.token"), its rule,
    and what it sets, in one line."""

    name: str
    rule: Rule
    about: str

    @property
    def section(self) -> str:
        """The key's [section], "" for a top-level key."""
        return self.name.rpartition(".")[0]

    @property
    def field(self) -> str:
        """The key's name within its section."""
        return self.name.rpartition(".")[2]

    @property
    def variable(self) -> str:
        """The environment variable that sets it: WIZARD_ and the name, upper-cased, dots as _."""
        return ENV_PREFIX + self.name.replace(".", "_").upper()

    def value_in(self, config: Config) -> object:
        """The key's value in `config`."""
        holder = getattr(config, self.section) if self.section else config
        return getattr(holder, self.field)


KEYS: tuple[Key, ...] = (
    Key("redis_url", REDIS_URL, "The Redis that holds the games; unset: the bot starts its own"),
    Key(
        "redis_fsync",
        choice(FSYNC),
        "When the embedded Redis syncs its append-only file: before each answer, or each second",
    ),
    Key(
        "redis_timeout",
        seconds_between(*REDIS_TIMEOUT_RANGE),
        "How long a Redis connection or command may take before it counts as unreachable",
    ),
    Key("redis_cluster", SWITCH, "Whether redis_url names a node of a Redis Cluster"),
    Key("data_dir", PATH, "Where the bot keeps its files (the embedded Redis's among them)"),
    Key("language", choice(tuple(LANGUAGES)), "The language of new chats"),
    Key("theme", choice(THEMES), "How the four suits are named by default"),
    Key(
        "turn_timeout",
        seconds(*TURN_TIMEOUT_RANGE),
        "How long a player has for a bid or a play before the bot acts for them",
    ),
    Key(
        "lobby_timeout",
        seconds(*LOBBY_TIMEOUT_RANGE),
        "How long a lobby, or a game nobody plays any more, may sit idle before it closes",
    ),
    Key(
        "finished_ttl",
        seconds(*FINISHED_TTL_RANGE),
        "How long a finished or abandoned game's state stays in Redis",
    ),
    Key("ai_level", choice(AI_LEVELS), "How well the AI players play"),
    Key("stand_in", choice(AI_LEVELS), "How well the AI plays for a player who ran out of time"),
    Key(
        "ai_grace",
        seconds(*AI_GRACE_RANGE),
        "How long an AI move may wait for its worker before another makes it (one died)",
    ),
    Key("ai_names", NAMES, "Names for the AI seats, used in order"),
    Key(
        "picture_fonts",
        FONT_FILES,
        "Font files for the score sheet picture's CJK and emoji, tried before the system's",
    ),
    Key("log_level", choice(LOG_LEVELS, upper=True), "The least severe log records written"),
    Key("log_format", choice(LOG_FORMATS), "Log lines as readable text or one JSON object each"),
    Key("telegram.token", SECRET, "The Telegram bot's token; the Telegram front end runs if set"),
    Key("telegram.base_url", url("https", "http"), "The Telegram Bot API server"),
    Key(
        "telegram.webhook_url",
        url("https"),
        "Receive updates by webhook at this public URL; unset: long polling",
    ),
    Key(
        "telegram.webhook_secret",
        WEBHOOK_SECRET,
        "The secret Telegram sends with each webhook (needed with webhook_url)",
    ),
    Key("telegram.listen", LISTEN, "Where the webhook server listens (only with webhook_url)"),
    Key("discord.token", SECRET, "The Discord bot's token; the Discord front end runs if set"),
    Key("discord.shards", SWITCH, "Whether to run with several Discord gateway shards"),
    Key("discord.base_url", url("https", "http"), "Discord's REST API (another: a test's)"),
    Key("metrics.listen", LISTEN, "Where /healthz, /readyz and /metrics are served; unset: off"),
    Key("web.listen", LISTEN, "Where the web table and its API are served; unset: off"),
    Key(
        "web.public_url",
        url("https", "http"),
        "The address people open the web table at; set: hands get an Open the table button",
    ),
    Key("web.secret", SECRET, "The key web links are signed with; unset: from the bot tokens"),
    Key("web.link_ttl", seconds(*LINK_TTL_RANGE), "How long a signed link to the table is valid"),
    Key(
        "web.init_data_ttl",
        seconds(*INIT_DATA_TTL_RANGE),
        "How old a Telegram Mini App's initData (its auth_date) may be",
    ),
)
"""Every configuration key, in the order the docs list them."""

ENV_OVERRIDES: Mapping[str, Key] = {key.variable: key for key in KEYS}
"""Each environment variable that sets a key, and its key."""

_TOP: Mapping[str, Check] = {key.name: key.rule.check for key in KEYS if not key.section}
_SECTIONS: Mapping[str, Mapping[str, Check]] = {
    section: {key.field: key.rule.check for key in KEYS if key.section == section}
    for section in dict.fromkeys(key.section for key in KEYS if key.section)
}


def _unknown(key: str, known: list[str], prefix: str = "") -> Invalid:
    close = difflib.get_close_matches(key, known, n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return Invalid(f"unknown key {prefix}{key}{hint}")


SLIP = 0.85
"""How alike (difflib's ratio, the names after WIZARD_) a variable that sets no key must be
to one that does to be taken for a slip of it: TURN_TIMOUT, LOGLEVEL and DATADIR are; the
project's other variables (WIZARD_PURE_PYTHON, compose's WIZARD_DOMAIN) and HOME are not."""


def _check_variables(env: Mapping[str, str]) -> None:
    """ConfigError for a variable (set, not empty) that sets no key but is a slip of the name
    of one that does: its value would be left unused, and the key at its default, unsaid."""
    known = {name.removeprefix(ENV_PREFIX): name for name in (*ENV_OVERRIDES, ENV_CONFIG)}
    for name, text in env.items():
        if not text or not name.startswith(ENV_PREFIX) or name.removeprefix(ENV_PREFIX) in known:
            continue
        close = difflib.get_close_matches(name.removeprefix(ENV_PREFIX), known, 1, SLIP)
        if close:
            raise ConfigError(
                f"{name}: no such variable (did you mean {known[close[0]]}?): correct its name, "
                "or unset it"
            )


def _check_table(table: Mapping[str, object]) -> dict[str, Any]:
    """The file's values, checked, as keyword arguments of Config (sections as dicts)."""
    values: dict[str, Any] = {}
    known = [*_TOP, *_SECTIONS]
    for key, value in table.items():
        if key in _SECTIONS:
            if not isinstance(value, dict):
                raise Invalid(f"{key} must be a table ([{key}]), not {show(value)}")
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
        raise ConfigError(f"{named_by}no such config file {show(name)}") from None
    except IsADirectoryError:
        raise ConfigError(
            f"{named_by}cannot read config file {show(name)}: it is a directory (a bind mount "
            "of a file that was not there?)"
        ) from None
    except OSError as error:
        raise ConfigError(
            f"{named_by}cannot read config file {show(name)}: {error.strerror}"
        ) from None
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")  # a byte order mark some editors add
    except UnicodeDecodeError as error:
        raise ConfigError(f"{name}: not UTF-8 text (byte {error.start + 1})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{name}: invalid TOML {_toml_problem(text, error)}") from None
    except ValueError as error:  # an integer of more digits than Python reads (4300)
        raise ConfigError(f"{name}: invalid TOML: {str(error).partition(';')[0]}") from None
    except RecursionError:
        raise ConfigError(f"{name}: invalid TOML: arrays or tables nested too deep") from None


def _source(sources: Mapping[str, str], name: str) -> str:
    """What set the key `name` (a variable, or the file: a section's keys are under the
    section there), else the key's name."""
    return sources.get(name) or sources.get(name.partition(".")[0]) or name


def _check_data_dir(data_dir: Path, source: str | None, embedded: bool) -> None:
    """ConfigError unless `data_dir` is a directory or can be made one; with `embedded` (no
    redis_url: the embedded Redis writes there), unless this user can write in it. `source` is
    what set it (None: the default)."""
    try:
        problem = _data_dir_problem(data_dir, embedded)
    except OSError as error:  # a name too long, a folder on the way that cannot be read
        problem = f"cannot be used: {error.strerror or error}"
    if not problem:
        return
    said = f"data_dir {show(str(data_dir))} {problem}"
    if source is None:  # the default: say how to choose another
        raise ConfigError(f"{said} (set data_dir, or WIZARD_DATA_DIR)")
    raise ConfigError(f"{source}: {said}")


def _data_dir_problem(data_dir: Path, embedded: bool) -> str:
    """What stops `data_dir` from being used, or ""."""
    user = f"this user (uid {os.getuid()})" if hasattr(os, "getuid") else "this user"
    if data_dir.exists():
        if not data_dir.is_dir():
            return "is not a directory"
        if embedded and not os.access(data_dir, os.W_OK | os.X_OK):
            return f"cannot be written by {user}: give it to that user, or choose another"
        return ""
    for parent in data_dir.parents:  # the nearest that exists is where it would be made
        if not parent.exists():
            continue
        if not parent.is_dir():
            return f"cannot be made: {show(str(parent))} is not a directory"
        if embedded and not os.access(parent, os.W_OK | os.X_OK):
            return f"cannot be made: {user} cannot write in {show(str(parent))}"
        return ""
    return ""


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
    _check_variables(env)
    file: Path | None = None
    named_by = ""
    if path is not None:
        file = Path(path)
    elif env.get(ENV_CONFIG):
        file, named_by = Path(env[ENV_CONFIG]), f"{ENV_CONFIG}: "
    elif Path(DEFAULT_FILE).exists():  # a directory too: said, not taken for no file
        file = Path(DEFAULT_FILE)

    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    """Where each key's value came from, for a message about it."""
    if file is not None:
        table = _read_file(file, named_by)
        try:
            values = _check_table(table)
        except Invalid as problem:
            raise ConfigError(f"{file}: {problem}") from None
        sources = dict.fromkeys(values, str(file))

    for key in KEYS:
        text = env.get(key.variable)
        if not text:
            continue
        try:
            value = key.rule.check(key.name, key.rule.read(text))
        except Invalid as problem:
            raise ConfigError(f"{key.variable}: {problem}") from None
        if key.section:
            values.setdefault(key.section, {})[key.field] = value
        else:
            values[key.name] = value
        sources[key.name] = key.variable

    telegram = TelegramConfig(**values.pop("telegram", {}))
    discord = DiscordConfig(**values.pop("discord", {}))
    metrics = MetricsConfig(**values.pop("metrics", {}))
    web = WebConfig(**values.pop("web", {}))
    config = Config(**values, telegram=telegram, discord=discord, metrics=metrics, web=web)
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
                f"and has database 0 only, like redis://host:7000, not {show(url)}"
            )
    _check_data_dir(config.data_dir, sources.get("data_dir"), config.redis_url is None)
    if telegram.webhook_url and not telegram.webhook_secret:
        raise ConfigError(
            f"{_source(sources, 'telegram.webhook_url')}: the webhook needs "
            "telegram.webhook_secret (WIZARD_TELEGRAM_WEBHOOK_SECRET), or anyone who finds its "
            "address can post updates as any player: set one (1 to 256 of A-Z a-z 0-9 _ -)"
        )
    if web.listen and not (web.secret or telegram.token or discord.token):
        raise ConfigError(
            f"{_source(sources, 'web.listen')}: the web table signs its links with "
            "web.secret, or a key derived from a bot token: set one (or WIZARD_WEB_SECRET)"
        )
    return config
