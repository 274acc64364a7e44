"""EasyAI, for beginners: simple bids (Wizards and high trumps) and a random legal card."""

import random
from collections.abc import Sequence

from engine import WIZARD, Bid, Card, ChooseTrump, Command, Play, PlayerView, Suit
from engine.cards import RANK_OF, SUIT_OF

HIGH_TRUMP = 11
"""Trumps of this rank and above count as a trick in an easy bid."""


def nearest_bid(legal: Sequence[int], target: float, floor: int = 0) -> int:
    """The legal bid closest to `target`, none below `floor` if that can be helped; ties go up."""
    allowed = [bid for bid in legal if bid >= floor] or list(legal)
    return min(allowed, key=lambda bid: (abs(bid - target), -bid))


def longest_suit(hand: Sequence[Card]) -> Suit:
    """The suit with the most cards in `hand`, the higher ranks breaking ties (blue if none)."""
    score = dict.fromkeys(Suit, 0)
    for card in hand:
        suit = SUIT_OF[card]
        if suit is not None:
            score[suit] += 20 + RANK_OF[card]
    return max(Suit, key=lambda suit: score[suit])


def nothing_to_do(view: PlayerView) -> ValueError:
    """The error for a view in which its player has no move to make."""
    return ValueError(f"{view.player} has nothing to decide now")


class EasyAI:
    """Legal moves with little thought: a beginner's opponent."""

    def decide(self, view: PlayerView, rng: random.Random) -> Command:
        if view.choose_trump:
            suit = longest_suit(view.hand) if view.hand else rng.choice(list(Suit))
            return ChooseTrump(view.player, suit)
        if view.legal_bids:
            return Bid(view.player, nearest_bid(view.legal_bids, self.estimate(view)))
        if view.play_unseen:
            return Play(view.player, None)
        if view.legal_cards:
            return Play(view.player, rng.choice(view.legal_cards))
        raise nothing_to_do(view)

    @staticmethod
    def estimate(view: PlayerView) -> int:
        """Wizards plus high trumps (nothing under foresight, where the hand is unseen)."""
        trump = view.table.trump
        wizards = sum(card == WIZARD for card in view.hand)
        if trump is None:
            return wizards
        high = [card for card in view.hand if SUIT_OF[card] is trump]
        return wizards + sum(RANK_OF[card] >= HIGH_TRUMP for card in high)
