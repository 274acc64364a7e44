"""Who a web page is for, proven: a Telegram Mini App's `initData`, or a signed link token.

`initData` is checked exactly as Telegram specifies ("Validating data received via the Mini
App"): the secret key is HMAC-SHA256 of the bot token keyed with the constant `WebAppData`; the
hash is the hex HMAC-SHA256, under that key, of the data-check-string (every received field
but `hash`, sorted by key, as `key=value` lines joined by a line feed), compared in constant
time; and `auth_date` may be no older than a limit (a replay after it is refused).

A link token names a chat, a player and a game, and when it expires; it is signed with
HMAC-SHA256 and a secret (`web.secret`, else a key derived from the bot tokens) and is URL-safe:
`<base64url of the JSON claims>.<base64url of the signature>`. The chat front ends make them
too (for their "Open the table" buttons), so signing is the service's (`bot.weblinks`); it is
checked here.

Requests are rate-limited per credential with a small in-memory token bucket (one per worker:
several workers each allow the rate).
"""

import hashlib
import hmac
import json
import time
from collections import OrderedDict
from dataclasses import dataclass
from urllib.parse import parse_qsl

from bot import weblinks
from bot.show.i18n import N_

TELEGRAM_PREFIX = "tg"
"""The service's ids of Telegram people and chats begin so (`tg:<id>`)."""

WEB_APP_DATA = b"WebAppData"
MAX_CREDENTIAL = 4096
"""Longer credentials are refused unread."""


class AuthError(Exception):
    """A request that proves nobody (401) or somebody who may not have this (403). `reason`
    is a msgid (English, as the API answers it); `language`, the chat's when it is known, is
    the one the page says it in."""

    def __init__(self, status: int, reason: str, language: str | None = None) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.language = language


def unauthorized(reason: str) -> AuthError:
    return AuthError(401, reason)


def forbidden(reason: str, language: str | None = None) -> AuthError:
    return AuthError(403, reason, language)


@dataclass(frozen=True, slots=True)
class Viewer:
    """Whom a request is proven to come from, and which table it is for."""

    player: str
    """The service's id of the person (`tg:<id>`, `dc:<id>`)."""
    name: str
    chat: str
    """The chat whose table it is."""
    game: str | None
    """The game the credential is for; None: the chat's current game (a Mini App's initData
    proves the person, and the person must be seated)."""
    language: str | None = None
    key: str = ""
    """What the request is rate-limited by (the credential, or the person)."""
    until: float | None = None
    """The latest a link made for this credential may expire (Unix time): a link's own
    expiry (so a link never begets one that outlives it); None: as late as `web.link_ttl`
    from now allows (a Mini App's, `WebTable.viewer` bounds it by its `auth_date`)."""


# --- Telegram Mini App initData -----------------------------------------------------------------


def init_data_hash(fields: dict[str, str], bot_token: str) -> str:
    """The hash Telegram signs `fields` (every field but `hash`) with, as hex."""
    secret_key = hmac.new(WEB_APP_DATA, bot_token.encode(), hashlib.sha256).digest()
    check = "\n".join(f"{key}={fields[key]}" for key in sorted(fields))
    return hmac.new(secret_key, check.encode(), hashlib.sha256).hexdigest()


def check_init_data(init_data: str, bot_token: str, now: float, max_age: int) -> dict[str, str]:
    """The fields of a Mini App's `initData` (URL-decoded, `hash` left out) if Telegram signed
    them with `bot_token` no more than `max_age` seconds before `now`; else AuthError 401."""
    if not init_data or len(init_data) > MAX_CREDENTIAL:
        raise unauthorized(N_("no initData"))
    try:
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise unauthorized(N_("initData is not a query string")) from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise unauthorized(N_("initData repeats a field"))
    given = fields.pop("hash", "")
    expected = init_data_hash(fields, bot_token)
    if not hmac.compare_digest(given.encode(), expected.encode()):
        raise unauthorized(N_("initData is not signed by Telegram for this bot"))
    auth_date = fields.get("auth_date", "")
    if not auth_date.isdigit():
        raise unauthorized(N_("initData has no auth_date"))
    age = now - int(auth_date)
    if age > max_age or age < -60:
        raise unauthorized(N_("initData is too old"))
    return fields


def telegram_viewer(fields: dict[str, str], chat: str | None) -> Viewer:
    """The person of checked `initData` fields, at `chat` (a service chat id): the one the Mini
    App was started for (`start_param`, signed with the rest) unless the request names one."""
    try:
        user = json.loads(fields.get("user", ""))
        user_id = int(user["id"])
    except (ValueError, TypeError, KeyError):
        raise unauthorized(N_("initData names no user")) from None
    start = fields.get("start_param", "")
    where = chat or (f"{TELEGRAM_PREFIX}:{start}" if start else "")
    if not where.startswith(f"{TELEGRAM_PREFIX}:"):
        raise forbidden(N_("a Telegram person sees Telegram chats' tables only"))
    name = " ".join(str(user.get(part, "")) for part in ("first_name", "last_name")).strip()
    language = user.get("language_code")
    player = f"{TELEGRAM_PREFIX}:{user_id}"
    return Viewer(
        player=player,
        name=name or player,
        chat=where,
        game=None,
        language=language if isinstance(language, str) else None,
        key=player,
    )


# --- signed links ----------------------------------------------------------------------------

link_secret = weblinks.link_secret
sign_link = weblinks.sign_link
"""Made where the chat front ends make theirs too (`bot.weblinks`)."""


def check_link(secret: bytes, token: str, now: float) -> Viewer:
    """The viewer a link token names, if it is ours and unexpired; else AuthError 401."""
    if not token or len(token) > MAX_CREDENTIAL or not token.isascii():
        raise unauthorized(N_("no link token"))
    body, dot, signature = token.partition(".")
    if not dot:
        raise unauthorized(N_("not a link token"))
    expected = weblinks.link_signature(secret, body)
    if not hmac.compare_digest(signature.encode(), expected.encode()):
        raise unauthorized(N_("the link token is not signed by this bot"))
    try:
        claims = json.loads(weblinks.unb64(body))
        chat, player, game, expires = claims["c"], claims["p"], claims["g"], claims["e"]
    except (ValueError, TypeError, KeyError):
        raise unauthorized(N_("the link token is malformed")) from None
    if not all(isinstance(part, str) for part in (chat, player, game)):
        raise unauthorized(N_("the link token is malformed"))
    if not isinstance(expires, int) or now >= expires:
        raise unauthorized(N_("the link token has expired"))
    return Viewer(player=player, name=player, chat=chat, game=game, key=token, until=expires)


# --- rate limit ------------------------------------------------------------------------------


class RateLimit:
    """A token bucket per key: `burst` requests at once, refilled at `rate` a second; the
    `keys` least recently used buckets are kept (a forgotten one starts full again)."""

    def __init__(self, rate: float = 5.0, burst: float = 30.0, keys: int = 10_000) -> None:
        self.rate = rate
        self.burst = burst
        self.keys = keys
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def allow(self, key: str, now: float | None = None) -> bool:
        """Take one request from `key`'s bucket; False when it is empty."""
        at = time.monotonic() if now is None else now
        level, then = self._buckets.pop(key, (self.burst, at))
        level = min(self.burst, level + (at - then) * self.rate)
        allowed = level >= 1.0
        self._buckets[key] = (level - 1.0 if allowed else level, at)
        while len(self._buckets) > self.keys:
            self._buckets.popitem(last=False)
        return allowed
