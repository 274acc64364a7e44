"""How the Discord front end is watched: Discord's 429 answers counted from discord.py's HTTP
session (discord.py waits them out and retries by itself), and whether the gateway is connected
(the front end's readiness)."""

import types

import aiohttp
import discord
from prometheus_client import Counter

TOO_MANY_REQUESTS = 429


def counting_trace(limited: Counter) -> aiohttp.TraceConfig:
    """An aiohttp trace (discord.py's `http_trace`) that counts each 429 answer in `limited`."""
    trace = aiohttp.TraceConfig()

    async def on_end(
        _session: aiohttp.ClientSession,
        _context: types.SimpleNamespace,
        params: aiohttp.TraceRequestEndParams,
    ) -> None:
        if params.response.status == TOO_MANY_REQUESTS:
            limited.inc()

    trace.on_request_end.append(on_end)
    return trace


def connected(client: discord.Client) -> bool:
    """Whether the gateway is connected and the client ready (every shard, when sharded)."""
    if not client.is_ready() or client.is_closed():
        return False
    if isinstance(client, discord.AutoShardedClient):
        return all(not shard.is_closed() for shard in client.shards.values())
    return client.ws is not None and client.ws.open
