"""`run_discord(config)`: the bot on Discord until SIGINT or SIGTERM; beside it, in the same
process and on the same Redis, the Telegram bot when a Telegram token is configured too.

Redis is the configured `redis_url`, else the embedded server in `data_dir` (stopped on the way
out). Any number of workers may run against one Redis: the game service, its timers and the slot
map all live there.
"""

import asyncio
import functools
import logging
import sys
from collections.abc import Awaitable

import discord

from adapters.discord.app import DiscordFrontEnd
from adapters.running import EXIT_FAILED, EXIT_OK, reach_redis, run_with_redis, stop_on_signals
from bot.config import Config
from bot.service import GameService
from bot.store import Store
from bot.table import Settings

log = logging.getLogger(__name__)


def _no_voice(record: logging.LogRecord) -> bool:
    """Drop discord.py's warnings that voice libraries are missing: the bot uses no voice."""
    return "voice will NOT be supported" not in record.getMessage()


def run_discord(config: Config) -> int:
    """Run the Discord front end (and the Telegram one, if configured) until stopped; the exit
    status."""
    logging.getLogger("discord.client").addFilter(_no_voice)
    return run_with_redis(config, functools.partial(serve_all, config), quiet=("discord",))


async def serve_all(config: Config, redis_url: str, stop: asyncio.Event | None = None) -> int:
    """Discord, and Telegram when its token is set, until `stop` (by default SIGINT or
    SIGTERM); if one front end cannot start, the other stops too."""
    if stop is None:
        stop = stop_on_signals()
    runs = [serve(config, redis_url, stop)]
    if config.telegram.token:
        from adapters.telegram.run import serve as serve_telegram

        runs.append(serve_telegram(config, redis_url, stop))

    async def watched(run: Awaitable[int]) -> int:
        status = await run
        stop.set()  # one front end ended (stopped, or failed to start): end the others
        return int(status)

    statuses = await asyncio.gather(*(watched(run) for run in runs))
    return max(statuses)


async def serve(config: Config, redis_url: str, stop: asyncio.Event) -> int:
    """Serve Discord until `stop` is set."""
    client = await reach_redis(redis_url)
    if client is None:
        return EXIT_FAILED
    try:
        store = Store(client, Settings.defaults(config))
        front = DiscordFrontEnd(config, GameService(store, config), client)
        try:
            await front.start()
        except discord.LoginFailure:
            print("wizard-bot run: Discord refused the token (discord.token)", file=sys.stderr)
            await front.stop()
            return EXIT_FAILED
        except (discord.HTTPException, OSError) as error:
            print(f"wizard-bot run: cannot reach Discord: {error}", file=sys.stderr)
            await front.stop()
            return EXIT_FAILED
        log.info("Discord front end running as %s", front.client.user)
        stopped = asyncio.create_task(stop.wait())
        gateway = asyncio.create_task(front.wait_gateway())
        try:
            await asyncio.wait({stopped, gateway}, return_when=asyncio.FIRST_COMPLETED)
            failure = gateway.exception() if gateway.done() else None
            if failure is not None:
                print(f"wizard-bot run: the Discord gateway failed: {failure}", file=sys.stderr)
                return EXIT_FAILED
        finally:
            stopped.cancel()
            await front.stop()
        return EXIT_OK
    finally:
        await client.aclose()
