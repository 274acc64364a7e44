"""`run_telegram(config)`: the bot on Telegram until SIGINT or SIGTERM.

Redis is the configured `redis_url`, else the embedded server in `data_dir` (stopped on the
way out). Any number of workers may run against one Redis: the game service, its timers and the
slot map all live there.
"""

import asyncio
import contextlib
import logging
import signal
import sys

import redis.asyncio as aioredis
from telegram.error import InvalidToken, TelegramError

from adapters.telegram.app import TelegramFrontEnd
from bot.config import Config
from bot.redis_server import RedisServerError, configured_redis
from bot.service import GameService
from bot.store import Store, StoreErrors
from bot.table import Settings

log = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_FAILED = 1


def run_telegram(config: Config) -> int:
    """Run the Telegram front end until stopped; the exit status."""
    if not logging.getLogger().handlers:
        logging.basicConfig(
            level=config.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
        )
        logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request otherwise
    with contextlib.ExitStack() as stack:
        try:
            url = stack.enter_context(configured_redis(config.redis_url, config.data_dir))
        except (RedisServerError, OSError) as error:
            print(f"wizard-bot run: cannot start Redis: {error}", file=sys.stderr)
            return EXIT_FAILED
        return asyncio.run(serve(config, url))


async def serve(config: Config, redis_url: str, stop: asyncio.Event | None = None) -> int:
    """Serve until `stop` is set (by default: on SIGINT or SIGTERM)."""
    client = aioredis.Redis.from_url(redis_url)
    try:
        try:
            await client.ping()
        except StoreErrors as error:
            print(f"wizard-bot run: cannot reach Redis: {error}", file=sys.stderr)
            return EXIT_FAILED
        store = Store(client, Settings.defaults(config))
        front = TelegramFrontEnd(config, GameService(store, config), client)
        if stop is None:
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.add_signal_handler(sig, stop.set)
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
