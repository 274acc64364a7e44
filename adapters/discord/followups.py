"""Each person's newest interaction in a game's channel, kept in Redis while Discord still takes
followups to it, so that any worker of the bot, or one started since, can show them a private
message there, to them alone (a coach's review for a person whose DMs are closed).

An interaction's token lets the application follow it up for 15 minutes from any process: a
followup is a request to the interaction's webhook (`POST /webhooks/<application>/<token>`),
which needs neither the gateway session nor the worker that received the interaction. The
token is kept 14 minutes (`FOLLOW_UP_FOR`), so one read just before it expires is still good
when it is used.
"""

from typing import TYPE_CHECKING, Any

import discord

from adapters.discord.ids import chat_key
from bot import RedisClient
from bot.store import keys

if TYPE_CHECKING:  # discord.types cannot be imported on its own at run time
    from discord.types.webhook import Webhook as WebhookPayload

FOLLOW_UP_FOR = 14 * 60
"""Seconds an interaction is kept to be followed up (Discord takes followups for 15 minutes)."""


class Followups:
    """The newest interaction of each person in each game channel, in the Redis of `client`."""

    def __init__(self, client: RedisClient) -> None:
        self.client = client

    async def remember(
        self, interaction: discord.Interaction[Any], game: int, hand: bool = False
    ) -> None:
        """Keep `interaction`, made in the server channel `game`, as its person's newest there.
        `hand`: its answer (its original message) is their hand with its buttons, shown to
        them alone, which a hand followed up later leaves behind (`hand_answered`)."""
        chat, person = chat_key(game), interaction.user.id
        await self.client.set(keys.follow_up(chat, person), interaction.token, ex=FOLLOW_UP_FOR)
        if hand:
            key = keys.follow_up_hand(chat, person)
            await self.client.set(key, interaction.token, ex=FOLLOW_UP_FOR)

    async def hand_answered(self, game: int, person: int) -> bool:
        """Whether `person`'s newest interaction in the channel `game` was answered with their
        hand with its buttons (`remember`): its original message, which a hand followed up
        under a newer message leaves behind."""
        chat = chat_key(game)
        newest = await self.client.get(keys.follow_up(chat, person))
        return newest is not None and newest == await self.client.get(
            keys.follow_up_hand(chat, person)
        )

    async def webhook(
        self, client: discord.Client, game: int, person: int
    ) -> discord.Webhook | None:
        """The followup webhook of `person`'s newest interaction in the channel `game`, made as
        discord.py makes `Interaction.followup` (so it sends ephemeral messages); None if they
        have not acted there in the last 14 minutes."""
        token = await self.client.get(keys.follow_up(chat_key(game), person))
        if token is None or client.application_id is None:
            return None
        text = token.decode() if isinstance(token, bytes) else str(token)
        payload: WebhookPayload = {"id": client.application_id, "type": 3, "token": text}
        return discord.Webhook.from_state(data=payload, state=client._connection)
