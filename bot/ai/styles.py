"""Opponent styles for the arena: players to measure the levels against, not levels to offer.

A level that is measured only against `normal` may be tuned to `normal`'s habits (`hard`'s
playouts model the others on it). These play otherwise, each a plain rule a person at a club
table might follow, so the arena can show whether a level's strength holds against them:

- `cautious` bids under what its hand should take (a trick less, about; never under the tricks
  it can hardly lose) and plays as `normal`;
- `aggressive` bids over it and plays as `normal` (to take the tricks it bid);
- `greedy` bids as `normal` and plays to take every trick it can: a beginner's habit.

They are not in `bot.ai.LEVELS`: a table cannot seat them (`wizard-bot arena --seats` can).
"""

import random

from bot.ai.easy import nearest_bid
from bot.ai.normal import NormalAI, expected_tricks, rank_key
from engine import Bid, Card, Command, Play, PlayerView
from engine.tricks import trick_winner

SHADE = 0.8
"""Tricks `cautious` bids under, and `aggressive` over, the tricks its hand should take."""


class _Style(NormalAI):
    """`normal`, with its bid moved by `shade` tricks (none under foresight: one unseen card)."""

    shade = 0.0

    def decide(self, view: PlayerView, rng: random.Random) -> Command:
        if view.legal_bids and not view.choose_trump and not view.table.foresight:
            expected, sure = expected_tricks(view)
            return Bid(view.player, nearest_bid(view.legal_bids, expected + self.shade, sure))
        return super().decide(view, rng)


class CautiousAI(_Style):
    """Bids low and plays as `normal` plays."""

    shade = -SHADE


class AggressiveAI(_Style):
    """Bids high, and plays as `normal` plays (to take the tricks it bid)."""

    shade = SHADE


class GreedyAI(NormalAI):
    """Bids as `normal`; plays to take every trick: the strongest card that wins the trick as it
    stands, else the weakest card."""

    def decide(self, view: PlayerView, rng: random.Random) -> Command:
        if view.legal_cards and not view.choose_trump and not view.legal_bids:
            return Play(view.player, greedy_card(view))
        return super().decide(view, rng)


def greedy_card(view: PlayerView) -> Card:
    """The strongest legal card if it would take the trick as it stands, else the weakest."""
    trick, trump = view.table.trick, view.table.trump
    takes = len(trick)
    winning = [card for card in view.legal_cards if trick_winner((*trick, card), trump) == takes]
    if winning:
        return max(winning, key=lambda card: rank_key(card, trump))
    return min(view.legal_cards, key=lambda card: rank_key(card, trump))


STYLES = {"cautious": CautiousAI(), "aggressive": AggressiveAI(), "greedy": GreedyAI()}
"""The arena's opponent styles by name (stateless, like the levels)."""
