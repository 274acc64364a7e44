"""Each person's newest interaction in a game's channel, kept in Redis while Discord still takes
followups to it, so that any worker of the bot, or one started since, can show them a private
message there, to them alone (a coach's review for a person whose DMs are closed).

An interaction's token lets the application follow it up for 15 minutes from any process: a
followup is a request to the interaction's webhook (`POST /webhooks/<application>/<token>`),
which needs neither the gateway session nor the worker that received the interaction. The
token is kept 14 minutes (`FOLLOW_UP_FOR`), so one read just before it expires is still good
when it is used.
"""

from typing import TYPE_CHECKING, Any, NamedTuple

import discord

from adapters.discord.ids import chat_key
from bot import RedisClient
from bot.store import keys

if TYPE_CHECKING:  # discord.types cannot be imported on its own at run time
    from discord.types.webhook import Webhook as WebhookPayload

FOLLOW_UP_FOR = 14 * 60
"""Seconds an interaction is kept to be followed up (Discord takes followups for 15 minutes)."""


class Kept(NamedTuple):
    """A person's newest message with buttons shown to them alone in a game's channel
    (`Followups.show`)."""

    token: str
    """The token of the interaction it is of."""
    message: int
    """Its id."""
    original: bool
    """Whether it is that interaction's original message (else a followup of it)."""
    version: tuple[str, int] | None
    """The (game id, version) of the state it shows (None: not known, kept before 8 December
    2026, or not a hand's)."""
    lost: bool = False
    """It lost its buttons (pressed, and edited: `Followups.lost`): nothing to leave behind,
    kept only for the state it shows now."""


class Followups:
    """The newest interaction of each person in each game channel, in the Redis of `client`."""

    def __init__(self, client: RedisClient) -> None:
        self.client = client

    async def remember(self, interaction: discord.Interaction[Any], game: int) -> None:
        """Keep `interaction`, made in the server channel `game`, as its person's newest there."""
        key = keys.follow_up(chat_key(game), interaction.user.id)
        await self.client.set(key, interaction.token, ex=FOLLOW_UP_FOR)

    async def show(
        self,
        game: int,
        person: int,
        token: str,
        message: int,
        original: bool = False,
        version: tuple[str, int] | None = None,
    ) -> None:
        """Keep `message`, of the interaction `token` (its `original` message, or a followup),
        as `person`'s newest with buttons shown to them alone in the channel `game` (their
        hand, or their result with Play again), which one shown them later leaves behind;
        `version`: the (game id, version) of the state it shows, if known."""
        value = f"{token} {message}{' original' if original else ''}"
        if version is not None:
            value += f" v={version[0]}:{version[1]}"
        key = keys.follow_up_hand(chat_key(game), person)
        await self.client.set(key, value, ex=FOLLOW_UP_FOR)

    async def lost(
        self, game: int, person: int, message: int, version: tuple[str, int] | None = None
    ) -> None:
        """`person`'s message `message` in the channel `game` lost its buttons (pressed, and
        edited): if it is the one kept (`show`), it is kept no more, but for the state it
        shows now, `version` if known (`Kept.lost`: a hand followed up later that shows an
        older one is behind it)."""
        key = keys.follow_up_hand(chat_key(game), person)
        kept = await self.client.get(key)
        parts = _text(kept).split(" ") if kept is not None else []
        if parts[1:2] != [str(message)]:
            return
        if version is None:
            await self.client.delete(key)
            return
        value = f"{parts[0]} {message} lost v={version[0]}:{version[1]}"
        await self.client.set(key, value, ex=FOLLOW_UP_FOR)

    async def kept(self, game: int, person: int) -> Kept | None:
        """`person`'s newest message with buttons shown to them alone in the channel `game`
        (`show`); None if none is kept."""
        kept = await self.client.get(keys.follow_up_hand(chat_key(game), person))
        parts = _text(kept).split(" ") if kept is not None else []
        if len(parts) < 2 or not parts[1].isdigit():  # none, or a token alone (until 7 Dec 2026)
            return None
        version = None
        for part in parts[2:]:
            game_id, _, number = part.removeprefix("v=").rpartition(":")
            if part.startswith("v=") and game_id and number.isdigit():
                version = (game_id, int(number))
        lost = "lost" in parts[2:]
        return Kept(parts[0], int(parts[1]), "original" in parts[2:], version, lost)

    async def shown(
        self, client: discord.Client, game: int, person: int
    ) -> tuple[discord.Webhook, int | None, int] | None:
        """The webhook and message (None: its original message) of `person`'s newest message
        with buttons shown to them alone in the channel `game` (`show`), and that message's
        id; None if none is kept."""
        kept = await self.kept(game, person)
        if kept is None or kept.lost:
            return None
        webhook = _webhook(client, kept.token)
        if webhook is None:
            return None
        return webhook, None if kept.original else kept.message, kept.message

    def webhook_of(self, client: discord.Client, kept: Kept) -> discord.Webhook | None:
        """The followup webhook of the interaction a message `kept` is of."""
        return _webhook(client, kept.token)

    async def webhook(
        self, client: discord.Client, game: int, person: int
    ) -> discord.Webhook | None:
        """The followup webhook of `person`'s newest interaction in the channel `game`, made as
        discord.py makes `Interaction.followup` (so it sends ephemeral messages); None if they
        have not acted there in the last 14 minutes."""
        token = await self.client.get(keys.follow_up(chat_key(game), person))
        if token is None:
            return None
        return _webhook(client, _text(token))


def _text(value: object) -> str:
    """A value read from Redis, as text."""
    return value.decode() if isinstance(value, bytes) else str(value)


def _webhook(client: discord.Client, token: str) -> discord.Webhook | None:
    """The followup webhook of the interaction `token`, made as discord.py makes
    `Interaction.followup` (so it sends ephemeral messages)."""
    if client.application_id is None:
        return None
    payload: WebhookPayload = {"id": client.application_id, "type": 3, "token": token}
    return discord.Webhook.from_state(data=payload, state=client._connection)
