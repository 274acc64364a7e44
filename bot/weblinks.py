"""Where a chat's "Open the table" buttons lead: the web table's address, and signed links.

A link token names a chat, a player and a game, and when it expires; it is signed with
HMAC-SHA256 and a secret (`web.secret`, else a key derived from the bot tokens) and is URL-safe:
`<base64url of the JSON claims>.<base64url of the signature>`. The web table checks it
(`adapters.web.auth.check_link`); the chat front ends make them for the buttons under a
player's private hand message, so both sign with what is here.
"""

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote

from bot.config import Config

LINK_CONTEXT = b"wizard-web-link/1"
"""What a link key derived from the bot tokens is keyed with (so it is no token's own HMAC)."""


def link_secret(config: Config) -> bytes:
    """The key link tokens are signed with: `web.secret`, else one derived from the bot tokens
    (the same on every worker with the same configuration)."""
    if config.web.secret:
        return config.web.secret.encode()
    tokens = "\n".join((config.telegram.token or "", config.discord.token or ""))
    if not tokens.strip():
        raise ValueError("the web table needs web.secret or a bot token to sign its links")
    return hmac.new(LINK_CONTEXT, tokens.encode(), hashlib.sha256).digest()


def b64(data: bytes) -> str:
    """`data` as unpadded base64url."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    """The bytes of unpadded base64url `text` (ValueError if it is none)."""
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def link_signature(secret: bytes, body: str) -> str:
    """The signature of a token's claims, `body` (base64url)."""
    return b64(hmac.new(secret, body.encode(), hashlib.sha256).digest())


def sign_link(secret: bytes, chat: str, player: str, game: str, expires: float) -> str:
    """A URL-safe token for `player` at `game` of `chat`, valid until `expires` (Unix time)."""
    claims = json.dumps(
        {"c": chat, "p": player, "g": game, "e": int(expires)}, separators=(",", ":")
    ).encode()
    body = b64(claims)
    return f"{body}.{link_signature(secret, body)}"


@dataclass(frozen=True, slots=True)
class WebLinks:
    """The addresses a chat front end's "Open the table" buttons open: the page at
    `web.public_url`, for one player by a signed link, or as a Telegram Mini App."""

    public_url: str
    secret: bytes
    ttl: int
    clock: Callable[[], float] = time.time

    @classmethod
    def of(cls, config: Config, clock: Callable[[], float] = time.time) -> "WebLinks | None":
        """The links of `config`'s web table; None without `web.public_url` (no buttons)."""
        if not config.web.public_url:
            return None
        return cls(config.web.public_url, link_secret(config), config.web.link_ttl, clock)

    @property
    def page(self) -> str:
        """The page's address, ending in a slash (its API is relative to it)."""
        return self.public_url.rstrip("/") + "/"

    def link(self, chat: str, player: str, game: str) -> str:
        """The page for `player` at `game` of `chat`, signed for `ttl` seconds from now. The
        token is in the fragment: a browser sends it to no server with the page's request,
        so it stays out of access logs and Referer headers (the page reads it from there)."""
        token = sign_link(self.secret, chat, player, game, self.clock() + self.ttl)
        return f"{self.page}#link={token}"

    def mini_app(self, chat: str) -> str | None:
        """The page as a Telegram Mini App for `chat`'s table (whoever opens it proves who
        they are with the app's initData); None unless the address is https, which Telegram
        requires of a Mini App."""
        if not self.page.lower().startswith("https://"):
            return None
        return f"{self.page}?chat={quote(chat, safe=':')}"
