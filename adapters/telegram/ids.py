"""Telegram ids and people as the game service names them.

A chat is `tg:<chat id>` (groups have negative ids, a person's private chat has their user id),
a person `tg:<user id>`; a person's name is their first name and last name. Whether a person
administers a group (which lets them cancel any game there) is asked of Telegram only when it
matters, and kept for a few minutes.
"""

import time
from collections.abc import Awaitable, Callable

from adapters.text import clean_name
from bot import User

SCOPE = "tg"
"""The scope of this platform's chats: their ids' prefix (`bot.store.keys.scope`)."""
PREFIX = f"{SCOPE}:"
ADMIN_STATUSES = frozenset({"creator", "administrator"})
ADMIN_TTL = 300.0
"""Seconds an admin status is kept before Telegram is asked again."""
NOT_ADMIN_TTL = 30.0
"""Seconds a "not an admin" is kept (shorter: someone just made admin is not kept waiting)."""


def chat_key(chat_id: int) -> str:
    """The service's id of a Telegram chat."""
    return f"{PREFIX}{chat_id}"


def user_key(user_id: int) -> str:
    """The service's id of a Telegram user."""
    return f"{PREFIX}{user_id}"


def telegram_id(key: str | None) -> int | None:
    """The Telegram id in a service id (`tg:-100123` → -100123); None for anything else."""
    if key is None or not key.startswith(PREFIX):
        return None
    try:
        return int(key[len(PREFIX) :])
    except ValueError:
        return None


def is_group(chat_id: int) -> bool:
    """Groups, supergroups and channels have negative ids; private chats positive ones."""
    return chat_id < 0


def display_name(first_name: str | None, last_name: str | None, user_id: int) -> str:
    """A person's name at the table: first and last name, made safe, at most NAME_LIMIT
    characters (`#<id>` for a name with nothing left)."""
    name = " ".join(part for part in (first_name, last_name) if part)
    return clean_name(name) or f"#{user_id}"


def make_user(
    user_id: int,
    first_name: str | None,
    last_name: str | None,
    admin: bool,
    language: str | None = None,
) -> User:
    """The person as the service knows them (`language`: their app's `language_code`)."""
    name = display_name(first_name, last_name, user_id)
    return User(user_key(user_id), name, admin=admin, language=language)


class AdminCache:
    """Admin statuses of (chat, user) pairs, asked through `lookup` (getChatMember's status)
    and kept for `ttl` seconds (`not_admin_ttl` for a "no"); a failed lookup counts as not an
    admin and is not kept."""

    def __init__(
        self,
        lookup: Callable[[int, int], Awaitable[str]],
        ttl: float = ADMIN_TTL,
        not_admin_ttl: float = NOT_ADMIN_TTL,
        clock: Callable[[], float] = time.monotonic,
        size: int = 10_000,
    ) -> None:
        self._lookup = lookup
        self._ttl = ttl
        self._not_admin_ttl = not_admin_ttl
        self._clock = clock
        self._size = size
        self._known: dict[tuple[int, int], tuple[float, bool]] = {}

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        now = self._clock()
        known = self._known.get((chat_id, user_id))
        if known is not None and known[0] > now:
            return known[1]
        try:
            status = await self._lookup(chat_id, user_id)
        except Exception:
            return False
        admin = status in ADMIN_STATUSES
        if len(self._known) >= self._size:
            self._known = {key: item for key, item in self._known.items() if item[0] > now}
            if len(self._known) >= self._size:
                self._known.clear()
        ttl = self._ttl if admin else self._not_admin_ttl
        self._known[(chat_id, user_id)] = (now + ttl, admin)
        return admin
