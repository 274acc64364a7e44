"""Signals held back: `blocked(signals)` makes them wait in the kernel while inside, for the
embedded Redis's start (`bot.store.redis_server`) and the front ends' stop signals
(`adapters.stops.held`)."""

import contextlib
import signal
from collections.abc import Iterable, Iterator


@contextlib.contextmanager
def blocked(signals: Iterable[int]) -> Iterator[None]:
    """Inside, `signals` wait in the kernel (blocked in the calling thread, where the platform
    can block them: not on Windows); one that came meanwhile is taken as the mask is put back,
    on the way out."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, signals)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
