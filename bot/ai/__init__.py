"""AI players for AI seats and absent players: the pluggable interface and the level registry
(`easy`, `normal`, `hard`); `arena` plays the levels against each other."""

import random
from typing import Protocol

from bot import native

native.choose(native.AI)  # before the hard AI imports its playouts: compiled only while current

from bot.ai.easy import EasyAI  # noqa: E402
from bot.ai.hard import HardAI  # noqa: E402
from bot.ai.normal import NormalAI  # noqa: E402
from engine import Command, PlayerView  # noqa: E402


class AIPlayer(Protocol):
    """Anything that picks a legal move from a player's view.

    An AI sees exactly what a person in its seat would see, its own `PlayerView`, and nothing of
    the `GameState` behind it. `decide` returns one legal command for `view.player`:
    `ChooseTrump` when the dealer names trump, `Bid` when it may bid, `Play` when it must play
    (`Play(player, None)` under foresight, where it cannot see its card). All its randomness
    comes from `rng`, so the same view and seed give the same move.
    """

    def decide(self, view: PlayerView, rng: random.Random) -> Command:
        """A legal command for the player of `view`; ValueError if they have nothing to do."""
        ...


LEVELS: dict[str, AIPlayer] = {"easy": EasyAI(), "normal": NormalAI(), "hard": HardAI()}
"""The AI levels by name; the players are stateless and may be shared by any number of seats."""

DEFAULT_LEVEL = "normal"


def get_ai(level: str) -> AIPlayer:
    """The AI player of `level`; ValueError for an unknown level."""
    try:
        return LEVELS[level]
    except KeyError:
        known = ", ".join(LEVELS)
        raise ValueError(f"unknown AI level {level!r} (known: {known})") from None


__all__ = ["DEFAULT_LEVEL", "LEVELS", "AIPlayer", "EasyAI", "HardAI", "NormalAI", "get_ai"]
