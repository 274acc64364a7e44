"""Running the chat front ends: every one configured (a Telegram token, a Discord token, or
both, and the web table with `web.listen`) in one process, on one Redis, until SIGINT or
SIGTERM, or until one of them stops.

Redis is the configured `redis_url`, else the embedded server in `data_dir` (stopped on the way
out). A front end's package loads only when it is configured; no front end knows another. With
`metrics.listen` set, the health and metrics server runs beside them.

`python -m adapters.serve web` (or `telegram`, `discord`, several of them) runs only the parts
named, each still only when configured: a web-only worker serves the web table with a bot
token (for Mini Apps' `initData` and the links' key) and hands its pages' moves to the workers
that run the chats' front ends (`adapters.relay`).
"""

import asyncio
import contextlib
import functools
import logging
import sys
from collections.abc import Awaitable, Callable, Collection, Sequence

from adapters.running import (
    EXIT_USAGE,
    Shows,
    cannot_listen,
    fail,
    run_with_redis,
    stop_on_signals,
)
from bot import Config, ConfigError, load_config, memory
from bot.metrics import Metrics
from bot.show import system_fonts
from bot.store import redis_client

log = logging.getLogger(__name__)

PARTS = ("telegram", "discord", "web")
"""The front ends a process may run (each when configured)."""
SETTINGS = {"telegram": "telegram.token", "discord": "discord.token", "web": "web.listen"}
"""The key that configures each part."""


def run(config: Config, parts: Collection[str] = PARTS) -> int:
    """Run every configured front end among `parts` until stopped; the exit status."""
    quiet: tuple[str, ...] = ()
    if config.discord.token and "discord" in parts:
        from adapters.discord.run import quiet_voice

        quiet_voice()
        quiet = ("discord",)
    return run_with_redis(
        config, functools.partial(serve, config, parts=parts, settle=True), quiet=quiet
    )


async def serve(
    config: Config,
    redis_url: str,
    stop: asyncio.Event | None = None,
    metrics: Metrics | None = None,
    parts: Collection[str] = PARTS,
    settle: bool = False,
) -> int:
    """Every configured front end among `parts` until `stop` is set (by default: on SIGINT or
    SIGTERM); if one cannot start, or ends, the others stop too. The worst exit status. With
    `metrics.listen`, the health and metrics server (`adapters.health`) runs from before the
    front ends start until they have stopped; they count into `metrics` (else new ones).
    `settle`: the process is the worker's own, and its collector is set for it once the front
    ends are imported (`bot.memory`)."""
    if stop is None:
        stop = stop_on_signals()
    use_picture_fonts(config)
    metrics = metrics or Metrics()
    shows = Shows()  # the chat front ends show what a move on the web table shows in their chats
    runs: list[Callable[[], Awaitable[int]]] = []
    if config.discord.token and "discord" in parts:
        from adapters.discord.app import PLATFORM as DISCORD
        from adapters.discord.run import serve as discord

        metrics.ready.expect(DISCORD)
        runs.append(functools.partial(discord, config, redis_url, stop, metrics, shows))
    if config.telegram.token and "telegram" in parts:
        from adapters.telegram.app import PLATFORM as TELEGRAM
        from adapters.telegram.run import serve as telegram

        metrics.ready.expect(TELEGRAM)
        runs.append(functools.partial(telegram, config, redis_url, stop, metrics, shows))

    if config.web.listen and "web" in parts:
        from adapters.web.run import serve as web

        runs.append(functools.partial(web, config, redis_url, stop, metrics, shows))

    if settle:  # a worker's process: what it has imported by now lives as long as it
        memory.settle()

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
            listen = config.metrics.listen
            try:
                await health.start(listen)
            except (ValueError, OSError) as error:
                return cannot_listen("serve metrics", listen, "metrics.listen", error)
            stack.push_async_callback(health.stop)
        statuses = await asyncio.gather(*(watched(run) for run in runs))
    return max(statuses, default=0)


def use_picture_fonts(config: Config) -> None:
    """The score sheet's picture falls back to the configured font files, then to the system's
    well-known ones (`bot.show.system_fonts`); the first front end that runs logs which
    (`adapters.running.say_picture_fonts`), so that a start that fails says only why."""
    system_fonts.use(config.picture_fonts)


def main(argv: Sequence[str]) -> int:
    """`python -m adapters.serve [PART ...]`: the configured front ends among the parts named
    (all of them when none is), as `wizard-bot run` runs them."""
    parts = tuple(argv) or PARTS
    unknown = [part for part in parts if part not in PARTS]
    if unknown:
        return fail(f"no such part: {', '.join(unknown)} (parts: {', '.join(PARTS)})", EXIT_USAGE)
    try:
        config = load_config()
    except ConfigError as error:
        return fail(str(error), EXIT_USAGE)
    if not any(_configured(config, part) for part in parts):
        settings = " or ".join(
            f"{key} ({'WIZARD_' + key.upper().replace('.', '_')})"
            for key in dict.fromkeys(SETTINGS[part] for part in parts)
        )
        named = "it is not" if len(parts) == 1 else "none of them is"
        return fail(f"--only {', '.join(parts)}: {named} configured: set {settings}", EXIT_USAGE)
    return run(config, parts)


def _configured(config: Config, part: str) -> bool:
    if part == "web":
        return bool(config.web.listen)
    return bool(config.telegram.token if part == "telegram" else config.discord.token)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]) or 0)
