"""Each chat's flood budget, kept in Redis: the posts made to a chat in its last flood period,
shared by every worker and kept across restarts, so that neither a second worker nor a
restarted one posts more than the platform allows (Telegram: 20 a minute in a group).

A post takes a place in its chat's window before it goes (one script: drop what is older than
the period, count, take a place if there is one, else say how long to wait) and is stamped
again with the time the platform answered it, so that it counts from then. That stamp rides
with the chat's next reservation (one call a post while posts follow each other), and is made
at once after the last post of a run. The times are Redis's own clock, the same for every
worker. While Redis cannot be reached the outbox paces by its own count alone.
"""

import logging
import secrets
import time

from bot import RedisClient, StoreErrors
from bot.store import keys

log = logging.getLogger(__name__)

_RESERVE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
if ARGV[5] ~= '' then redis.call('ZADD', KEYS[1], 'XX', now - tonumber(ARGV[6]), ARGV[5]) end
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
ARGV[4], after stamping the chat's last post, ticket ARGV[5], as answered ARGV[6] s ago: '0',
or the seconds until the oldest place comes free."""

_ANSWERED = """
local t = redis.call('TIME')
redis.call('ZADD', KEYS[1], 'XX', tonumber(t[1]) + tonumber(t[2]) / 1000000, ARGV[1])
return 0
"""
"""The post of ticket ARGV[1] was answered: it counts from now."""


class Windows:
    """The flood windows of every chat, in the Redis of `client`."""

    def __init__(self, client: RedisClient) -> None:
        self._reserve = client.register_script(_RESERVE)
        self._answered = client.register_script(_ANSWERED)
        self._away = False
        self._unstamped: dict[str, tuple[str, float]] = {}
        """Per chat: the ticket of the last post answered and when (monotonic), still to be
        stamped in Redis with the next reservation."""

    async def reserve(
        self, chat: str, count: int, period: float, slack: float
    ) -> tuple[float, str | None]:
        """Seconds to wait before a post to `chat` may go (0: now, and the ticket of the place
        it took). While Redis is away: 0 and no ticket."""
        ticket = secrets.token_hex(6)
        last, answered = self._unstamped.pop(chat, ("", 0.0))
        ago = max(0.0, time.monotonic() - answered) if last else 0.0
        args: list[str | int | float] = [count, period, slack, ticket, last, f"{ago:.6f}"]
        try:
            wait = await self._reserve(keys=[keys.posts(chat)], args=args)
        except StoreErrors as error:
            self._say_away(error)
            return 0.0, None
        self._away = False
        seconds = float(wait)
        return (seconds, None) if seconds > 0 else (0.0, ticket)

    async def answered(self, chat: str, ticket: str, more: bool) -> None:
        """The post holding `ticket` was answered by the platform: it counts from now. With
        `more` posts waiting for the chat, the stamp goes with the next reservation."""
        if more:
            self._unstamped[chat] = (ticket, time.monotonic())
            return
        try:
            await self._answered(keys=[keys.posts(chat)], args=[ticket])
        except StoreErrors as error:
            self._say_away(error)

    def _say_away(self, error: BaseException) -> None:
        if not self._away:
            log.warning("flood windows unreachable, pacing by this worker's count: %s", error)
        self._away = True
