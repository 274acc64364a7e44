"""Running the chat front ends: every one configured (a Telegram token, a Discord token, or
both) in one process, on one Redis, until SIGINT or SIGTERM, or until one of them stops.

Redis is the configured `redis_url`, else the embedded server in `data_dir` (stopped on the way
out). A front end's package loads only when it is configured; no front end knows another.
"""

import asyncio
import functools
from collections.abc import Awaitable

from adapters.running import run_with_redis, stop_on_signals
from bot import Config


def run(config: Config) -> int:
    """Run every configured front end until stopped; the exit status."""
    quiet: tuple[str, ...] = ()
    if config.discord.token:
        from adapters.discord.run import quiet_voice

        quiet_voice()
        quiet = ("discord",)
    return run_with_redis(config, functools.partial(serve, config), quiet=quiet)


async def serve(config: Config, redis_url: str, stop: asyncio.Event | None = None) -> int:
    """Every configured front end until `stop` is set (by default: on SIGINT or SIGTERM); if
    one cannot start, or ends, the others stop too. The worst exit status."""
    if stop is None:
        stop = stop_on_signals()
    runs: list[Awaitable[int]] = []
    if config.discord.token:
        from adapters.discord.run import serve as discord

        runs.append(discord(config, redis_url, stop))
    if config.telegram.token:
        from adapters.telegram.run import serve as telegram

        runs.append(telegram(config, redis_url, stop))

    async def watched(run: Awaitable[int]) -> int:
        status = await run
        stop.set()  # one front end ended (stopped, or failed to start): end the others
        return int(status)

    statuses = await asyncio.gather(*(watched(run) for run in runs))
    return max(statuses, default=0)
