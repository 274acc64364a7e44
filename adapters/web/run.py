"""Running the web table beside the chat front ends (`adapters.serve`): its own Redis client
and service, serving at `web.listen` until `stop` is set."""

import asyncio
import logging

from adapters.running import Shows, cannot_listen
from adapters.web.server import WebTable
from bot import Config, GameService
from bot.metrics import Metrics
from bot.store import redis_client
from bot.store.relay import Relay

log = logging.getLogger(__name__)


async def serve(
    config: Config,
    redis_url: str,
    stop: asyncio.Event,
    metrics: Metrics,
    shows: Shows | None = None,
) -> int:
    """Serve the web table until `stop` is set; the exit status (1 if it cannot start). What a
    move made on a page shows in its chat goes to that chat's front end: through `shows` when
    it runs in this process, else handed to a worker where it runs (`adapters.relay`)."""
    listen = config.web.listen
    assert listen is not None
    client = redis_client(redis_url, config.redis_timeout, config.redis_cluster)
    try:
        service = GameService.on_redis(client, config, metrics=metrics)
        try:
            table = WebTable(service, config, client, deliver=shows, relay=Relay(client))
            await table.start(listen)
        except (ValueError, OSError) as error:
            return cannot_listen("serve the web table", listen, "web.listen", error)
        try:
            await stop.wait()
        finally:
            await table.stop()
        return 0
    finally:
        await client.aclose()
