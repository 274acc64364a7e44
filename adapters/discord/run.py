"""`serve(config, redis_url, stop)`: the bot on Discord until `stop` is set (`adapters.serve`
starts it, beside the other front ends configured).

Any number of workers may run against one Redis: the game service, its timers and the slot map
all live there.
"""

import asyncio
import logging
import sys

import aiohttp
import discord

from adapters.discord.app import DiscordFrontEnd
from adapters.discord.ids import SCOPE
from adapters.relay import relaying
from adapters.running import EXIT_FAILED, EXIT_OK, OneLine, Shows, reach_redis, say_picture_fonts
from bot import Config, GameService
from bot.metrics import Metrics

log = logging.getLogger(__name__)


def _no_voice(record: logging.LogRecord) -> bool:
    """Drop discord.py's warnings that voice libraries are missing: the bot uses no voice."""
    return "voice will NOT be supported" not in record.getMessage()


def quiet_voice() -> None:
    """Keep discord.py from warning that voice libraries are missing (the bot uses no voice)."""
    logging.getLogger("discord.client").addFilter(_no_voice)


_RECONNECTS = OneLine(
    OSError, aiohttp.ClientError, discord.GatewayNotFound, discord.ConnectionClosed
)
"""discord.py's "Attempting a reconnect in N s" while the gateway cannot be reached."""
for _logger in ("discord.client", "discord.shard"):
    logging.getLogger(_logger).addFilter(_RECONNECTS)


async def serve(
    config: Config,
    redis_url: str,
    stop: asyncio.Event,
    metrics: Metrics | None = None,
    shows: Shows | None = None,
) -> int:
    """Serve Discord until `stop` is set, counting into `metrics` (else metrics of its own);
    while it runs, it shows its chats' outcomes for `shows` (the web table's moves in this
    process) and applies and shows the moves relayed from web-only workers."""
    client = await reach_redis(redis_url, config.redis_timeout, config.redis_cluster)
    if client is None:
        return EXIT_FAILED
    try:
        service = GameService.on_redis(client, config, metrics=metrics)
        front = DiscordFrontEnd(config, service, client)
        try:
            await front.start()
        except discord.LoginFailure:
            print(
                "wizard-bot run: Discord refused the token (discord.token, WIZARD_DISCORD_TOKEN): "
                "copy it again from the developer portal (Bot, Reset Token)",
                file=sys.stderr,
            )
            await front.stop()
            return EXIT_FAILED
        except (discord.HTTPException, OSError) as error:
            print(
                f"wizard-bot run: cannot reach Discord at {config.discord.base_url} "
                f"(discord.base_url): {error}; check this machine's network (DNS, proxy, "
                "firewall), then start again",
                file=sys.stderr,
            )
            await front.stop()
            return EXIT_FAILED
        log.info("Discord front end running as %s", front.client.user)
        say_picture_fonts()
        stopped = asyncio.create_task(stop.wait())
        gateway = asyncio.create_task(front.wait_gateway())
        if shows is not None:
            shows.add(SCOPE, front.show)
        try:
            # the moves web-only workers hand over for its chats (`adapters.relay`)
            async with relaying(service, front.show, SCOPE, client, config.redis_timeout):
                await asyncio.wait({stopped, gateway}, return_when=asyncio.FIRST_COMPLETED)
            failure = gateway.exception() if gateway.done() else None
            if failure is not None:
                print(f"wizard-bot run: the Discord gateway failed: {failure}", file=sys.stderr)
                return EXIT_FAILED
        finally:
            if shows is not None:
                shows.remove(SCOPE)
            stopped.cancel()
            await front.stop()
        return EXIT_OK
    finally:
        await client.aclose()
