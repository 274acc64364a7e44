"""Running the chat front ends: every one configured (a Telegram token, a Discord token, or
both, and the web table with `web.listen`) in one process, on one Redis, until SIGINT or
SIGTERM, or until one of them stops.

Redis is the configured `redis_url`, else the embedded server in `data_dir` (stopped on the way
out). A front end's package loads only when it is configured; no front end knows another. With
`metrics.listen` set, the health and metrics server runs beside them.
"""

import asyncio
import contextlib
import functools
from collections.abc import Awaitable, Callable

from adapters.running import Shows, fail, run_with_redis, stop_on_signals
from bot import Config
from bot.metrics import Metrics
from bot.store import redis_client


def run(config: Config) -> int:
    """Run every configured front end until stopped; the exit status."""
    quiet: tuple[str, ...] = ()
    if config.discord.token:
        from adapters.discord.run import quiet_voice

        quiet_voice()
        quiet = ("discord",)
    return run_with_redis(config, functools.partial(serve, config), quiet=quiet)


async def serve(
    config: Config,
    redis_url: str,
    stop: asyncio.Event | None = None,
    metrics: Metrics | None = None,
) -> int:
    """Every configured front end until `stop` is set (by default: on SIGINT or SIGTERM); if
    one cannot start, or ends, the others stop too. The worst exit status. With
    `metrics.listen`, the health and metrics server (`adapters.health`) runs from before the
    front ends start until they have stopped; they count into `metrics` (else new ones)."""
    if stop is None:
        stop = stop_on_signals()
    metrics = metrics or Metrics()
    shows = Shows()  # the chat front ends show what a move on the web table shows in their chats
    runs: list[Callable[[], Awaitable[int]]] = []
    if config.discord.token:
        from adapters.discord.app import PLATFORM as DISCORD
        from adapters.discord.run import serve as discord

        metrics.ready.expect(DISCORD)
        runs.append(functools.partial(discord, config, redis_url, stop, metrics, shows))
    if config.telegram.token:
        from adapters.telegram.app import PLATFORM as TELEGRAM
        from adapters.telegram.run import serve as telegram

        metrics.ready.expect(TELEGRAM)
        runs.append(functools.partial(telegram, config, redis_url, stop, metrics, shows))

    if config.web.listen:
        from adapters.web.run import serve as web

        runs.append(functools.partial(web, config, redis_url, stop, metrics, shows))

    async def watched(run: Callable[[], Awaitable[int]]) -> int:
        status = await run()
        stop.set()  # one front end ended (stopped, or failed to start): end the others
        return int(status)

    async with contextlib.AsyncExitStack() as stack:
        if config.metrics.listen:
            from adapters.health import HealthServer

            client = redis_client(redis_url, config.redis_timeout, config.redis_cluster)
            stack.push_async_callback(client.aclose)
            health = HealthServer(metrics, client, config.redis_timeout)
            try:
                await health.start(config.metrics.listen)
            except (ValueError, OSError) as error:
                return fail(f"cannot serve metrics at {config.metrics.listen}: {error}")
            stack.push_async_callback(health.stop)
        statuses = await asyncio.gather(*(watched(run) for run in runs))
    return max(statuses, default=0)
