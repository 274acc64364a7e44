"""The signals that stop a `wizard-bot` command: SIGINT (Ctrl-C), SIGTERM (kill, a supervisor,
`docker stop`) and SIGHUP (its terminal closed). Each stops a command as Ctrl-C does: an
`Interrupted` raised in the main thread, so that what the command started is undone on the way
out (its `--jobs` copies, its embedded Redis, a backup's partial file), and the exit status is
128 + the signal's number. While that is undone, further ones are ignored (`ignore`): a second
signal must not cut the cleanup short.
"""

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType

STOPS = frozenset(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)
"""The stop signals (SIGHUP where the platform has it)."""

Handler = Callable[[int, FrameType | None], object] | int | signal.Handlers


class Interrupted(KeyboardInterrupt):
    """The process was asked to stop by the signal `signum`. A KeyboardInterrupt, as the
    signal's handler raises it wherever the main thread stands, in an event loop's own code
    too: asyncio lets only that and SystemExit out of a callback or a transport's read or write
    (it takes any other exception there for that callback's or connection's failure, logs it
    and runs on), and no `except Exception` takes it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _handlers() -> dict[int, Handler]:
    """What each stop signal does now (the default action where Python does not know); none
    outside the main thread, where no handler can be set."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {
        sig: signal.SIG_DFL if (found := signal.getsignal(sig)) is None else found for sig in STOPS
    }


@contextlib.contextmanager
def raising(
    before: Callable[[], None] = lambda: None, even_ignored: bool = False
) -> Iterator[None]:
    """Inside, each stop signal calls `before` and raises `Interrupted` in the main thread; on
    the way out, the handlers are as they were. One the process was started ignoring (SIGHUP
    under `nohup`, SIGINT in a shell's background job) is left ignored, unless `even_ignored`."""
    previous = {
        sig: handler
        for sig, handler in _handlers().items()
        if even_ignored or handler != signal.SIG_IGN
    }

    def stop(signum: int, _frame: FrameType | None) -> None:
        before()
        raise Interrupted(signum)

    for sig in previous:
        signal.signal(sig, stop)
    try:
        yield
    finally:
        _restore(previous)


def ignore() -> None:
    """Ignore the stop signals from now on (in the main thread; elsewhere none can be set), until
    `raising` puts back the handlers it found: for the cleanup after a stop, which a second
    signal must not cut short (an embedded Redis left running with nobody to stop it)."""
    for sig in _handlers():
        signal.signal(sig, signal.SIG_IGN)


def _restore(handlers: dict[int, Handler]) -> None:
    for sig, handler in handlers.items():
        signal.signal(sig, handler)
