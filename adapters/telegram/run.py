"""`serve(config, redis_url, stop)`: the bot on Telegram until `stop` is set (`adapters.serve`
starts it, beside the other front ends configured).

Any number of workers may run against one Redis: the game service, its timers and the slot map
all live there.
"""

import asyncio
import logging
import sys

from telegram.error import InvalidToken, TelegramError

from adapters.relay import relaying
from adapters.running import (
    EXIT_FAILED,
    EXIT_OK,
    Shows,
    cannot_listen,
    reach_redis,
    say_picture_fonts,
)
from adapters.telegram.app import TelegramFrontEnd
from adapters.telegram.ids import SCOPE
from bot import Config, GameService
from bot.metrics import Metrics

log = logging.getLogger(__name__)


async def serve(
    config: Config,
    redis_url: str,
    stop: asyncio.Event,
    metrics: Metrics | None = None,
    shows: Shows | None = None,
) -> int:
    """Serve Telegram until `stop` is set, counting into `metrics` (else metrics of its own);
    while it runs, it shows its chats' outcomes for `shows` (the web table's moves in this
    process) and applies and shows the moves relayed from web-only workers."""
    client = await reach_redis(redis_url, config.redis_timeout, config.redis_cluster)
    if client is None:
        return EXIT_FAILED
    try:
        service = GameService.on_redis(client, config, metrics=metrics)
        front = TelegramFrontEnd(config, service, client)
        try:
            await front.start()
        except InvalidToken:
            print(
                "wizard-bot run: Telegram refused the token (telegram.token, "
                "WIZARD_TELEGRAM_TOKEN): copy it again from @BotFather (/token)",
                file=sys.stderr,
            )
            await front.stop()
            return EXIT_FAILED
        except TelegramError as error:
            print(
                f"wizard-bot run: cannot reach Telegram at {config.telegram.base_url} "
                f"(telegram.base_url): {error}; check this machine's network (DNS, proxy, "
                "firewall), then start again",
                file=sys.stderr,
            )
            await front.stop()
            return EXIT_FAILED
        except OSError as error:  # the webhook's server cannot listen there
            await front.stop()
            listen = config.telegram.listen
            return cannot_listen("take Telegram's webhook", listen, "telegram.listen", error)
        settings = config.telegram
        if settings.webhook_url:
            how = f"by webhook at {settings.webhook_url}, listening on {settings.listen}"
        else:
            how = "by long polling"
        log.info("Telegram front end running as @%s, taking updates %s", front.bot.username, how)
        say_picture_fonts()
        if settings.webhook_secret and not settings.webhook_url:
            log.warning(
                "telegram.webhook_secret is set but telegram.webhook_url is not: this worker "
                "takes updates by long polling, and only one worker per bot token may; set "
                "telegram.webhook_url (WIZARD_TELEGRAM_WEBHOOK_URL) for a webhook"
            )
        if shows is not None:
            shows.add(SCOPE, front.show_async)
        try:
            # the moves web-only workers hand over for its chats (`adapters.relay`)
            async with relaying(service, front.show_async, SCOPE, client, config.redis_timeout):
                await stop.wait()
        finally:
            if shows is not None:
                shows.remove(SCOPE)
            await front.stop()
        return EXIT_OK
    finally:
        await client.aclose()
