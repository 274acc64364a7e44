"""Scoring: points for a round, the projected total, and places at the end of a game."""

from collections.abc import Sequence

MADE_BONUS = 20
PER_TRICK = 10


def round_points(bid: int, won: int) -> int:
    """Bid met: 20 + 10 per trick taken; missed: -10 per trick above or below the bid."""
    if bid == won:
        return MADE_BONUS + PER_TRICK * won
    return -PER_TRICK * abs(bid - won)


def places(totals: Sequence[int]) -> list[int]:
    """1-based place of each player; equal totals share a place (1, 1, 3, ...)."""
    return [1 + sum(other > total for other in totals) for total in totals]
