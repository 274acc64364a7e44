"""Log lines: what each says it is about (a chat and its game), its two formats, and the
secrets no line shows.

Where a request for a chat is served (the service's `handle`, the timer loop when it fires a
chat's deadline, a front end's update handler, the outbox when it posts), `about(chat)` names
the chat in a context variable, and `playing(game)` its game once the table is read. Every line
logged meanwhile, in that task and in the threads and tasks it starts, carries both: the
`Where` filter puts them on each record as `chat` and `game` (None when not about a game).
An error that leaves `about` keeps them, so the line that reports it later (a front end's error
handler) names them as well (`after`).

`log_format = "text"` writes `<time> <LEVEL> <logger>: <message> chat=tg:-100123 game=4f2a1c`
and the traceback below (the line itself escapes a line break in what it shows, as
`\\n`); `"json"` writes one JSON object per line: `time` (ISO 8601, UTC),
`level`, `logger`, `message`, `chat`, `game`, and `exception` when there is one. Either way
control characters, line and paragraph separators, bidi controls and lone surrogates are
written as `\\uXXXX` (`ONE_LINE`), so a person's name in a line cannot break or forge one. The
configured tokens, the webhook secret, the web links' signing key and the Redis password are
masked wherever they appear.
"""

import contextlib
import contextvars
import functools
import json
import logging
import sys
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Iterator
from datetime import UTC, datetime
from typing import IO, TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar
from urllib.parse import unquote, urlsplit

if TYPE_CHECKING:
    from bot.config import Config

FIELDS = ("chat", "game")
"""The context fields of every record, in the order the lines show them."""
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
MASK = "***"
MIN_SECRET = 4
"""Characters a secret has at least to be masked (a shorter one would garble every line)."""
QUIET = ("httpx", "httpcore")
"""Loggers kept to warnings and up: a line per request (with the bot's URL), or several."""
PRIVATE = (
    "telegram.Bot",
    "telegram.ext.ExtBot",
    "telegram.ext.Application",
    "telegram.ext.Updater",
    "discord.http",
    "discord.gateway",
    "discord.webhook.async_",
)
"""Loggers kept to INFO and up: at DEBUG they write each update received and each API call's
parameters (message texts, so hands; buttons' payloads, so bids and marked cards)."""
HELD = {**dict.fromkeys(QUIET, logging.WARNING), **dict.fromkeys(PRIVATE, logging.INFO)}
"""The level each of those loggers is kept at, whatever `log_level` says."""
CHAIN = 8
"""Links of an error's cause chain searched for the chat it came from."""

_ESCAPED = {
    code: f"\\u{code:04x}"
    for code in (
        *range(0x20),  # control characters: line breaks, terminal escapes
        *range(0x7F, 0xA0),  # DEL and the C1 controls (NEL, U+0085, breaks a line for many)
        0x061C,  # the Arabic letter mark
        0x200E,  # the left-to-right and right-to-left marks
        0x200F,
        *range(0x2028, 0x202F),  # the line and paragraph separators, the bidi embeddings
        *range(0x2066, 0x206A),  # the bidi isolates
        *range(0xD800, 0xE000),  # lone surrogates: no UTF-8 stream can write them
    )
}
"""Characters no line writes as they are, but as `\\uXXXX` (in JSON, the same character
escaped): a name or a message that carries them cannot break a line, forge one, reorder what a
terminal shows or make the record fail to be written."""
ONE_LINE = str.maketrans({**_ESCAPED, ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"})
"""For a record's line: even a line break is escaped."""
BLOCK = str.maketrans({code: escaped for code, escaped in _ESCAPED.items() if code != ord("\n")})
"""For a traceback below it: its lines stay lines."""

Place = tuple[str | None, str | None]
"""(chat, game) a line is about."""

_chat: contextvars.ContextVar[str | None] = contextvars.ContextVar("log_chat", default=None)
_game: contextvars.ContextVar[str | None] = contextvars.ContextVar("log_game", default=None)
_KEPT = "_log_place"
"""The attribute an error that left `about` keeps its place in."""

S = TypeVar("S")
P = ParamSpec("P")
R = TypeVar("R")


def here() -> Place:
    """The chat and game being served now (None, None outside any)."""
    return _chat.get(), _game.get()


@contextlib.contextmanager
def about(chat: str | None, game: str | None = None) -> Iterator[None]:
    """Lines logged inside are about `chat` (and `game`, or the one `playing` names). Inside an
    `about` of the same chat it changes nothing but the game, if given; an error leaving it
    keeps the place for `after`."""
    if chat is not None and chat == _chat.get():
        if game is not None:
            _game.set(game)
        with _kept():
            yield
        return
    chat_token, game_token = _chat.set(chat), _game.set(game)
    try:
        with _kept():
            yield
    finally:
        # A coroutine suspended inside and closed from another context (collected as a stop
        # unwinds) has no place to put back there: its own context is gone with it.
        with contextlib.suppress(ValueError):
            _game.reset(game_token)
            _chat.reset(chat_token)


@contextlib.contextmanager
def _kept() -> Iterator[None]:
    """An error raised inside keeps the place it was raised in (the innermost one)."""
    try:
        yield
    except BaseException as error:
        if carried(error) == (None, None):
            with contextlib.suppress(AttributeError, TypeError):
                setattr(error, _KEPT, here())
        raise


def serving(
    method: Callable[Concatenate[S, str, P], Awaitable[R]],
) -> Callable[Concatenate[S, str, P], Coroutine[Any, Any, R]]:
    """An async method whose first argument is a chat, run `about` that chat."""

    @functools.wraps(method)
    async def served(self: S, chat: str, /, *args: P.args, **kwargs: P.kwargs) -> R:
        with about(chat):
            return await method(self, chat, *args, **kwargs)

    return served


def playing(game: str | None) -> None:
    """The game of the chat being served, once its table is read (only inside `about`)."""
    if _chat.get() is not None:
        _game.set(game)


def carried(error: BaseException | None) -> Place:
    """The place an error (or one it was raised from) came from, kept as it left `about`."""
    for _ in range(CHAIN):
        if error is None:
            break
        kept = getattr(error, _KEPT, None)
        if kept is not None:
            return kept  # type: ignore[no-any-return]
        error = error.__cause__ or error.__context__
    return None, None


@contextlib.contextmanager
def after(error: BaseException | None) -> Iterator[None]:
    """Lines logged inside are about the chat and game `error` came from, if it kept them."""
    chat, game = carried(error)
    if chat is None:
        yield
        return
    with about(chat, game):
        yield


class Where(logging.Filter):
    """Puts `chat` and `game` on every record: given by the call (`extra=`), else the place
    being served, else the one the record's error came from."""

    def filter(self, record: logging.LogRecord) -> bool:
        chat, game = here()
        if record.exc_info is not None:
            kept = carried(record.exc_info[1])
            if chat is None or (kept[0] == chat and game is None):
                chat, game = kept
        given = getattr(record, "chat", None)
        if given is None:
            record.chat = given = chat
        if getattr(record, "game", None) is None:
            record.game = game if given == chat else None
        return True


class Recurring:
    """A failure tried again (a loop's next round, a library's next try): logged at `level`
    (ERROR) with its traceback the first time, then in one line (its type and message) while
    the same error recurs; another error, or the same after a try that worked (`worked`), has
    its traceback again. So a bug hit every second writes its traceback once, not once a
    second."""

    def __init__(self, level: int = logging.ERROR) -> None:
        self.level = level
        self._last: tuple[type[BaseException], str] | None = None

    def failed(
        self, log: logging.Logger, error: BaseException, message: str, *args: object
    ) -> None:
        """Log `error` as `message % args`: with its traceback, or, the same as the last time,
        with `(the same again: <type>: <message>)` after it."""
        seen = (type(error), str(error))
        if seen == self._last:
            tail = " (the same again: %s: %s)"
            log.log(self.level, message + tail, *args, type(error).__name__, error)
        else:
            log.log(self.level, message, *args, exc_info=error)
        self._last = seen

    def worked(self) -> None:
        """A try worked: the next failure has its traceback whatever it is."""
        self._last = None


def masked(text: str, secrets: Iterable[str]) -> str:
    """`text` with every secret in it replaced by `***`."""
    for secret in secrets:
        if len(secret) >= MIN_SECRET:
            text = text.replace(secret, MASK)
    return text


def fields(record: logging.LogRecord) -> dict[str, Any]:
    """The record's context fields (None where it is not about one)."""
    return {name: getattr(record, name, None) for name in FIELDS}


class TextFormatter(logging.Formatter):
    """A readable line: `<time> <LEVEL> <logger>: <message> chat=… game=…` (the fields it has),
    the traceback on the lines below."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__(TEXT_FORMAT)
        self.secrets = tuple(secrets)

    def formatMessage(self, record: logging.LogRecord) -> str:
        line = super().formatMessage(record)
        named = " ".join(f"{k}={v}" for k, v in fields(record).items() if v is not None)
        return (f"{line} {named}" if named else line).translate(ONE_LINE)

    def format(self, record: logging.LogRecord) -> str:
        return masked(super().format(record), self.secrets).translate(BLOCK)


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (ISO 8601, UTC, milliseconds), level, logger, message,
    chat, game, and exception (the traceback) or stack when the record has one."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self.secrets = tuple(secrets)

    def format(self, record: logging.LogRecord) -> str:
        moment = datetime.fromtimestamp(record.created, UTC)
        entry: dict[str, Any] = {
            "time": moment.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            **fields(record),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        for key, value in entry.items():
            if isinstance(value, str):
                entry[key] = masked(value, self.secrets)
        return json.dumps(entry, ensure_ascii=False, default=str).translate(ONE_LINE)


def secrets_of(config: "Config") -> tuple[str, ...]:
    """What no line may show: the platforms' tokens, the webhook secret, the key web links are
    signed with, the Redis password (as its URL writes it, and unescaped as it is sent)."""
    password = urlsplit(config.redis_url).password if config.redis_url else None
    found = (
        config.telegram.token,
        config.telegram.webhook_secret,
        config.discord.token,
        config.web.secret,
        password,
        unquote(password) if password else None,
    )
    return tuple(dict.fromkeys(secret for secret in found if secret))


def formatter(config: "Config") -> logging.Formatter:
    """The configured format (`log_format`), masking the configured secrets."""
    secrets = secrets_of(config)
    return JsonFormatter(secrets) if config.log_format == "json" else TextFormatter(secrets)


def handler(config: "Config", stream: IO[str] | None = None) -> logging.Handler:
    """A handler writing to `stream` (stderr) in the configured format, every record with its
    chat and game."""
    out = logging.StreamHandler(stream or sys.stderr)
    out.setFormatter(formatter(config))
    out.addFilter(Where())
    return out


def hold(quiet: Iterable[str] = (), floor: int = logging.NOTSET) -> None:
    """Keep the loggers of `HELD` at their levels, and those in `quiet` from warnings on, or
    at `floor` (the configured level) where that is higher: a level set on a logger lets its
    records through whatever the root's level, so it must never be below the configured one."""
    for name, level in {**HELD, **dict.fromkeys(quiet, logging.WARNING)}.items():
        logging.getLogger(name).setLevel(max(level, floor))


def setup(config: "Config", quiet: Iterable[str] = ()) -> None:
    """Log to stderr from `log_level` on, in `log_format`; httpx's loggers and those in `quiet`
    only from warnings on, the platform libraries' loggers that show games' contents only from
    INFO on (`hold`). Nothing changes where logging was set up already (by a test or a program
    that runs the bot)."""
    root = logging.getLogger()
    if root.handlers:
        return
    root.addHandler(handler(config))
    root.setLevel(config.log_level)
    hold(quiet, root.level)
