"""The signals that stop a `wizard-bot` command: SIGINT (Ctrl-C), SIGTERM (kill, a supervisor,
`docker stop`) and SIGHUP (its terminal closed). Each stops a command as Ctrl-C does: an
`Interrupted` raised in the main thread, so that what the command started is undone on the way
out (its `--jobs` copies, its embedded Redis, a backup's partial file), and the exit status is
128 + the signal's number. While that is undone, further ones are ignored (`ignore`, and by
`raising` once it raised): a second signal must not cut the cleanup short.

CPython runs a signal's handler in the main thread between two steps of Python code, or when
the signal interrupts a system call that thread waits in. One that comes as the main thread is
about to wait (after the prompt is written, before the read of the line starts) interrupts
nothing, and its handler runs only once the wait ends: a prompt sat on until a line came.
`raising(wake=True)` sends it to the main thread again until its handler has run.
"""

import contextlib
import os
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
    before: Callable[[], None] = lambda: None,
    even_ignored: bool = False,
    wake: bool = False,
    handed: Callable[[int], bool] = lambda _: False,
) -> Iterator[None]:
    """Inside, the first stop signal calls `before` and raises `Interrupted` in the main thread,
    and later ones do nothing; on the way out, the handlers are as they were. One the process
    was started ignoring (SIGHUP under `nohup`, SIGINT in a shell's background job) is left
    ignored, unless `even_ignored`. With `wake`, a stop takes effect even when it came just
    before the main thread began to wait (`_waking`). A stop that `handed(signum)` takes
    (True) is not raised here: whoever took it raises it (an event loop running, which a stop
    raised in its own code can leave with a task that never ends)."""
    previous = {
        sig: handler
        for sig, handler in _handlers().items()
        if even_ignored or handler != signal.SIG_IGN
    }
    taken = threading.Event()

    def stop(signum: int, _frame: FrameType | None) -> None:
        if taken.is_set():
            return  # a second one, or `_waking`'s own once the first was taken
        taken.set()
        before()
        if not handed(signum):
            raise Interrupted(signum)

    for sig in previous:
        signal.signal(sig, stop)
    try:
        with _waking(taken) if wake and previous else contextlib.nullcontext():
            yield
    finally:
        _restore(previous)


@contextlib.contextmanager
def _waking(taken: threading.Event) -> Iterator[None]:
    """Send each stop signal that comes to the main thread again, from a thread of its own,
    until the main thread has taken it (`taken`). CPython writes the number of each signal it
    catches to the wakeup pipe (`signal.set_wakeup_fd`), in the signal handler itself, so none
    goes unseen; each one sent again that interrupts nothing (the main thread not yet waiting)
    is caught and written there in turn, and the next one finds the main thread waiting, cuts
    that wait short, and its handler runs."""
    read, write = os.pipe()
    os.set_blocking(write, False)
    main = threading.get_ident()

    def watch() -> None:
        while caught := os.read(read, 64):  # b"" once the pipe is closed: out
            for sig in caught:
                if sig in STOPS and not taken.is_set():
                    signal.pthread_kill(main, sig)

    thread = deaf_thread(watch, "stop signals")
    earlier = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    try:
        yield
    finally:
        # Deaf while taken down: a stop whose handler raised here would skip the join, and the
        # thread could send its signal again once the handlers are put back (the default
        # action: the process killed, its cleanup cut short). One that comes now waits, and is
        # taken as the mask is put back, by `raising`'s handler still.
        with held():
            signal.set_wakeup_fd(earlier)
            os.close(write)
            thread.join()
            os.close(read)


def deaf_thread(target: Callable[[], None], name: str) -> threading.Thread:
    """A daemon thread running `target`, started with the stop signals blocked (it inherits the
    mask), so that the kernel delivers each of them to the main thread, whose handler stops."""
    thread = threading.Thread(target=target, name=name, daemon=True)
    with held():
        thread.start()
    return thread


def held() -> contextlib.AbstractContextManager[None]:
    """Inside, the stop signals wait in the kernel (`bot.signals.blocked`); one that came
    meanwhile is taken as the mask is put back, on the way out."""
    from bot.signals import blocked  # here: importing the command line loads no part of bot

    return blocked(STOPS)


def ignore() -> None:
    """Ignore the stop signals from now on (in the main thread; elsewhere none can be set), until
    `raising` puts back the handlers it found: for the cleanup after a stop, which a second
    signal must not cut short (an embedded Redis left running with nobody to stop it)."""
    for sig in _handlers():
        signal.signal(sig, signal.SIG_IGN)


def _restore(handlers: dict[int, Handler]) -> None:
    for sig, handler in handlers.items():
        signal.signal(sig, handler)
