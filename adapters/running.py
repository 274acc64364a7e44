"""Running chat front ends as a process: logging, Redis (the configured `redis_url`, else the
embedded server in `data_dir`, stopped on the way out), the asyncio loop, the stop signals
(SIGINT, SIGTERM, SIGHUP: `adapters.stops`).

Any number of workers may run against one Redis: the game service, its timers and the slot maps
all live there.
"""

import asyncio
import contextlib
import functools
import logging
import signal
import sys
from collections.abc import Awaitable, Callable, Iterable

from adapters import stops
from bot import Config, Outcome, RedisClient, StoreErrors, logs
from bot.show import system_fonts
from bot.store import reached, redis_client
from bot.store.redis_server import RedisServerError, configured_redis

log = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
"""A command line or configuration that cannot be run as given, as argparse exits."""


@functools.cache
def say_picture_fonts() -> None:
    """Log, once a process (cached), the fonts the score sheet's picture draws CJK and emoji
    with (set by `adapters.serve` before the front ends start), or that it found none: said by
    a chat front end once it runs, not before, so that a start that fails prints only why."""
    found = [face.regular for face in system_fonts.faces()]
    if found:
        log.info("The score sheet picture draws CJK and emoji with %s", ", ".join(found))
    else:
        log.info(
            "The score sheet picture found no CJK or emoji font: such names are drawn as ◌ "
            "(set picture_fonts, or install fonts-droid-fallback fonts-noto-color-emoji)"
        )


Show = Callable[[str, Outcome], Awaitable[None]]
"""How a chat front end shows an outcome in one of its chats (queued for its outbox)."""


class Shows:
    """The chat front ends running in this process, by the scope of their chat ids (`tg`,
    `dc`): a front end that applies a request in another's chat (the web table) has the chat's
    own front end show the outcome there, as if it had applied it. A move for a chat whose
    front end does not run here is handed to a worker where it does (`adapters.relay`)."""

    def __init__(self) -> None:
        self._by_scope: dict[str, Show] = {}

    def add(self, scope: str, show: Show) -> None:
        self._by_scope[scope] = show

    def remove(self, scope: str) -> None:
        self._by_scope.pop(scope, None)

    def scopes(self) -> tuple[str, ...]:
        """The scopes whose front ends run here now."""
        return tuple(self._by_scope)

    def serves(self, scope: str) -> bool:
        """Whether the front end of `scope` runs here (it shows what is given it)."""
        return scope in self._by_scope

    async def __call__(self, chat: str, outcome: Outcome) -> None:
        show = self._by_scope.get(chat.partition(":")[0])
        if show is not None:
            await show(chat, outcome)


class OneLine(logging.Filter):
    """A chat library's own records of an error of `kinds` (the network or the platform away,
    which its retries ride over) as one warning line, not an error with a traceback each try."""

    def __init__(self, *kinds: type[BaseException]) -> None:
        super().__init__()
        self.kinds = kinds

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, self.kinds):
            message = record.getMessage().partition(". ")[0]
            record.msg = f"{message} ({type(error).__name__}: {error})"
            record.args = None
            record.exc_info = None
            record.exc_text = None
            record.levelno = logging.WARNING
            record.levelname = logging.getLevelName(logging.WARNING)
        return True


def fail(message: str, status: int = EXIT_FAILED) -> int:
    """Say why the bot cannot run, in one line; the exit status (`EXIT_USAGE` when what it was
    given cannot be run at all)."""
    print(f"wizard-bot run: {message}", file=sys.stderr)
    return status


def cannot_listen(what: str, listen: str, key: str, error: Exception) -> int:
    """Say that `what` cannot listen at `listen` (a port in use, an address not of this
    machine), naming the key and its variable and what to do: `EXIT_FAILED`."""
    variable = "WIZARD_" + key.upper().replace(".", "_")
    reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
    return fail(
        f"cannot {what} at {listen}: {reason}; set {key} ({variable}) to a free host:port "
        "of this machine, or stop what holds it"
    )


def run_with_redis(
    config: Config, main: Callable[[str], Awaitable[int]], quiet: Iterable[str] = ()
) -> int:
    """Set up logging (the loggers in `quiet` only from warnings on), start or reach Redis, and
    run `main(redis_url)` in a new event loop; its exit status (128 + the signal's number when
    a stop signal came before the loop took them: while the embedded Redis starts, say, which
    is stopped on the way out all the same). From when the loop has closed (asyncio leaves
    SIGTERM's default action, which ends the process at once) until the embedded Redis has
    stopped, a stop signal is ignored, so that a second one never leaves that server running
    with nobody to stop it."""
    logs.setup(config, quiet)
    try:
        with stops.raising(), contextlib.ExitStack() as stack:
            try:
                url = stack.enter_context(
                    configured_redis(config.redis_url, config.data_dir, config.redis_fsync)
                )
            except (RedisServerError, OSError) as error:
                return fail(f"cannot start the embedded Redis: {error}")

            async def run() -> int:
                return await main(url)

            try:
                return asyncio.run(run())
            finally:  # a stop signal now is ignored until the embedded Redis has stopped
                stops.ignore()
    except stops.Interrupted as stop:  # before the event loop took the stop signals
        return 128 + stop.signum


def stop_on_signals() -> asyncio.Event:
    """An event set on SIGINT, SIGTERM or SIGHUP (where the loop can catch them; not one the
    process was started ignoring, as SIGHUP under `nohup`)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in stops.STOPS:
        if signal.getsignal(sig) == signal.SIG_IGN:
            continue
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
    return stop


async def reach_redis(redis_url: str, timeout: float, cluster: bool = False) -> RedisClient | None:
    """A client of the Redis at `redis_url` (every call bounded by `timeout` seconds), or None
    (said on stderr) if it does not answer."""
    client = redis_client(redis_url, timeout, cluster)
    try:
        await reached(client)
    except StoreErrors as error:
        fail(f"cannot reach Redis (WIZARD_REDIS_URL, or redis_url in wizard.toml): {error}")
        await client.aclose()
        return None
    return client
