"""Durable buttons: discord.py dynamic items whose whole state is their custom id.

A game button's custom id is `wz:<game channel>:<service payload>` (the payload names the game,
the decision and the move, see `bot.tokens`); the "Your hand" button's is `wzh:<game channel>`.
Nothing is kept in memory per message, so a button works after a restart, on any worker; a
stale or forged payload is refused by the service like any other.
"""

import re
import weakref
from typing import Any, Protocol, Self

import discord

from adapters.discord.render import GAME_PREFIX, HAND_PREFIX, game_id, hand_id
from bot import tokens
from bot.tokens import Action

GAME_TEMPLATE = rf"{GAME_PREFIX}:(?P<channel>[0-9]{{1,20}}):(?P<payload>[!-~]{{1,64}})"
HAND_TEMPLATE = rf"{HAND_PREFIX}:(?P<channel>[0-9]{{1,20}})"


class Presses(Protocol):
    """What handles the presses (the front end)."""

    async def on_button(
        self, interaction: discord.Interaction[Any], channel: int, payload: str
    ) -> None: ...

    async def on_hand(self, interaction: discord.Interaction[Any], channel: int) -> None: ...


_HANDLERS: "weakref.WeakKeyDictionary[discord.Client, Presses]" = weakref.WeakKeyDictionary()


def register(client: discord.Client, handler: Presses) -> None:
    """Route the presses of `client`'s buttons to `handler`."""
    _HANDLERS[client] = handler
    client.add_dynamic_items(GameButton, HandButton)


def ours(custom_id: str) -> bool:
    """Whether a custom id is one of our buttons' (well-formed, whatever its payload says)."""
    return any(re.fullmatch(t, custom_id) for t in (GAME_TEMPLATE, HAND_TEMPLATE))


class GameButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=GAME_TEMPLATE):
    """A button of the game: a lobby action, a bid, a card, a trump suit..."""

    def __init__(self, channel: int, payload: str, label: str | None = None) -> None:
        super().__init__(
            discord.ui.Button(
                label=label, custom_id=game_id(channel, payload), style=discord.ButtonStyle.primary
            )
        )
        self.channel = channel
        self.payload = payload

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        return cls(int(match["channel"]), match["payload"], getattr(item, "label", None))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        handler = _HANDLERS.get(interaction.client)
        if handler is not None:
            await handler.on_button(interaction, self.channel, self.payload)


class HandButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=HAND_TEMPLATE):
    """ "Your hand": whoever presses it sees their own hand, privately (for closed DMs)."""

    def __init__(self, channel: int, label: str | None = None) -> None:
        super().__init__(
            discord.ui.Button(
                label=label, custom_id=hand_id(channel), style=discord.ButtonStyle.success
            )
        )
        self.channel = channel

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        return cls(int(match["channel"]), getattr(item, "label", None))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        handler = _HANDLERS.get(interaction.client)
        if handler is not None:
            await handler.on_hand(interaction, self.channel)


STYLES: dict[Action, discord.ButtonStyle] = {
    Action.JOIN: discord.ButtonStyle.primary,
    Action.START: discord.ButtonStyle.success,
    Action.AGAIN: discord.ButtonStyle.success,
    Action.CANCEL: discord.ButtonStyle.danger,
}
"""The colour of the buttons that stand out: the lobby's way in (blurple), what starts a game
(green), what ends one (red). Every other game button (bids, cards, options, leave...) is grey;
"Your hand" is green, as the one thing its message asks for."""


def style(custom_id: str) -> discord.ButtonStyle:
    """The colour of the button of `custom_id` (`STYLES`, by the action its payload names)."""
    if custom_id.startswith(HAND_PREFIX + ":"):
        return discord.ButtonStyle.success
    game = re.fullmatch(GAME_TEMPLATE, custom_id)
    try:
        action = tokens.decode(game["payload"]).action if game else None
    except tokens.TokenError:
        action = None
    plain = discord.ButtonStyle.secondary
    return plain if action is None else STYLES.get(action, plain)


def view(keys: tuple[tuple[Any, ...], ...]) -> discord.ui.View | None:
    """A view of rows of `render.Key`s, ready to send. It is stopped at once: presses reach the
    dynamic items by custom id, so discord.py need not keep it (nor any per-message state)."""
    if not keys:
        return None
    built = discord.ui.View(timeout=None)
    for number, row in enumerate(keys):
        for key in row:
            if key.url is not None:  # a link: Discord opens it, and sends no interaction
                link: discord.ui.Button[Any] = discord.ui.Button(
                    label=key.label, url=key.url, style=discord.ButtonStyle.link, row=number
                )
                built.add_item(link)
                continue
            built.add_item(
                discord.ui.Button(
                    label=key.label, custom_id=key.custom_id, style=style(key.custom_id), row=number
                )
            )
    built.stop()
    return built
