"""Each chat's flood budget, kept in Redis: the posts made to a chat in its last flood period,
shared by every worker and kept across restarts, so that neither a second worker nor a
restarted one posts more than the platform allows (Telegram: 20 a minute in a group).

A post takes a place in its chat's window before it goes (one script: drop what is older than
the period, count, take a place if there is one, else say how long to wait) and is stamped
again when the platform has answered it, so that it counts from then. The times are Redis's
own clock, the same for every worker. While Redis cannot be reached the outbox paces by its
own count alone.
"""

import logging
import secrets

import redis.asyncio as aioredis

from bot import StoreErrors
from bot.store import keys

log = logging.getLogger(__name__)

_RESERVE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local period = tonumber(ARGV[2]) + tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - period)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return tostring(tonumber(oldest[2]) + period - now)
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], math.ceil(period * 1000) + 60000)
return '0'
"""
"""Take a place in the window (count ARGV[1] per ARGV[2] s, slack ARGV[3] s) for ticket
ARGV[4]: '0', or the seconds until the oldest place comes free."""

_ANSWERED = """
local t = redis.call('TIME')
redis.call('ZADD', KEYS[1], 'XX', tonumber(t[1]) + tonumber(t[2]) / 1000000, ARGV[1])
return 0
"""
"""The post of ticket ARGV[1] was answered: it counts from now."""


class Windows:
    """The flood windows of every chat, in the Redis of `client`."""

    def __init__(self, client: "aioredis.Redis") -> None:
        self._reserve = client.register_script(_RESERVE)
        self._answered = client.register_script(_ANSWERED)
        self._away = False

    async def reserve(
        self, chat: str, count: int, period: float, slack: float
    ) -> tuple[float, str | None]:
        """Seconds to wait before a post to `chat` may go (0: now, and the ticket of the place
        it took). While Redis is away: 0 and no ticket."""
        ticket = secrets.token_hex(6)
        try:
            wait = await self._reserve(keys=[keys.posts(chat)], args=[count, period, slack, ticket])
        except StoreErrors as error:
            self._say_away(error)
            return 0.0, None
        self._away = False
        seconds = float(wait)
        return (seconds, None) if seconds > 0 else (0.0, ticket)

    async def answered(self, chat: str, ticket: str) -> None:
        """The post holding `ticket` was answered by the platform: it counts from now."""
        try:
            await self._answered(keys=[keys.posts(chat)], args=[ticket])
        except StoreErrors as error:
            self._say_away(error)

    def _say_away(self, error: BaseException) -> None:
        if not self._away:
            log.warning("flood windows unreachable, pacing by this worker's count: %s", error)
        self._away = True
