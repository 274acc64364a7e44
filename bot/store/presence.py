"""Heartbeats of the processes that run no timer loop: the web table's workers and the terminal
table. Each beats once a second in a sorted set of its own scope (`keys.beats` of `WEB`,
`CONSOLE`), which no timer loop reads: so `wizard-bot restore` sees them running (it refuses
while any worker beat lately), while no chat worker takes one for a worker of its own scope
(whose journal it would take over when its beat stops, or whose beats would hide an outage of
the chat workers). A web-only worker's journal is still taken over as soon as it writes, as it
never beats in the chat's scope (`bot.store.relay`).
"""

import asyncio
import contextlib
from collections.abc import Callable

from bot.store import keys
from bot.store.store import RedisClient, StoreErrors

WEB = "web"
"""The scope the web table's workers beat in (no chat id starts with it)."""
CONSOLE = "console"
"""The scope the terminal table beats in: its chats' own (`console:…`), which no worker ticks."""
EVERY = 1.0
"""Seconds between beats."""
KEEP = 10.0
"""Seconds a beat is kept: a process killed never takes its own back, so each beat prunes the
older ones of its scope and gives the scope's key this time to live (the last process of a
scope killed, its beat goes with the key). A live process beats every `EVERY` seconds; one whose
beat is late by more is not taken for running by a restore either (`bot.store.backup.RUNNING`)."""
LEAVE = 1.0
"""Seconds a stopping process waits for Redis at most: for its beat under way, then for taking
its beat back. A Redis frozen or slow (`redis_timeout` is up to 30 s) must not hold the stop
up; a beat not taken back goes by itself within `KEEP` seconds."""


async def beat(client: RedisClient, of: str, worker: str, now: float) -> None:
    """Note that `worker` runs, at `now`, in the beats of scope `of`."""
    async with client.pipeline(transaction=False) as pipe:
        pipe.zadd(keys.beats(of), {worker: now})
        pipe.zremrangebyscore(keys.beats(of), "-inf", f"({now - KEEP!r}")
        pipe.pexpire(keys.beats(of), int(KEEP * 1000))
        await pipe.execute()


Told = Callable[[BaseException | None], None]
"""Told how each beat went: None when it went through, else what it failed with."""


async def beating(
    client: RedisClient,
    of: str,
    worker: str,
    clock: Callable[[], float],
    every: float = EVERY,
    told: Told | None = None,
) -> None:
    """Beat every `every` seconds until cancelled, riding over a Redis away (`told` how each
    went: a web table's service, which takes a refused beat for a refused write of its own);
    then take the beat back, so that a restore right after a clean stop is not refused. A
    cancel that comes while a beat is under way lets it end first, for `LEAVE` seconds at most
    (then it is cancelled, and its connection closed); taking the beat back waits as long at
    most."""
    try:
        while True:
            under_way = asyncio.ensure_future(_beat_quietly(client, of, worker, clock(), told))
            try:
                await asyncio.shield(under_way)
            except asyncio.CancelledError:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(under_way, LEAVE)
                raise
            await asyncio.sleep(every)
    finally:
        with contextlib.suppress(*StoreErrors, TimeoutError):
            await asyncio.wait_for(client.zrem(keys.beats(of), worker), LEAVE)


async def _beat_quietly(
    client: RedisClient, of: str, worker: str, now: float, told: Told | None
) -> None:
    """A beat (`beat`), riding over a Redis away; `told` how it went."""
    try:
        await beat(client, of, worker, now)
    except StoreErrors as error:
        if told is not None:
            told(error)
        return
    if told is not None:
        told(None)
