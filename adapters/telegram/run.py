"""`run_telegram(config)`: the bot on Telegram until SIGINT or SIGTERM.

Redis is the configured `redis_url`, else the embedded server in `data_dir` (stopped on the
way out). Any number of workers may run against one Redis: the game service, its timers and the
slot map all live there.
"""

import asyncio
import functools
import logging
import sys

from telegram.error import InvalidToken, TelegramError

from adapters.running import EXIT_FAILED, EXIT_OK, reach_redis, run_with_redis, stop_on_signals
from adapters.telegram.app import TelegramFrontEnd
from bot.config import Config
from bot.service import GameService
from bot.store import Store
from bot.table import Settings

log = logging.getLogger(__name__)


def run_telegram(config: Config) -> int:
    """Run the Telegram front end until stopped; the exit status."""
    return run_with_redis(config, functools.partial(serve, config))


async def serve(config: Config, redis_url: str, stop: asyncio.Event | None = None) -> int:
    """Serve until `stop` is set (by default: on SIGINT or SIGTERM)."""
    client = await reach_redis(redis_url)
    if client is None:
        return EXIT_FAILED
    try:
        store = Store(client, Settings.defaults(config))
        front = TelegramFrontEnd(config, GameService(store, config), client)
        if stop is None:
            stop = stop_on_signals()
        try:
            await front.start()
        except InvalidToken:
            print("wizard-bot run: Telegram refused the token (telegram.token)", file=sys.stderr)
            await front.stop()
            return EXIT_FAILED
        except TelegramError as error:
            print(f"wizard-bot run: cannot reach Telegram: {error}", file=sys.stderr)
            await front.stop()
            return EXIT_FAILED
        log.info("Telegram front end running as @%s", front.bot.username)
        try:
            await stop.wait()
        finally:
            await front.stop()
        return EXIT_OK
    finally:
        await client.aclose()
