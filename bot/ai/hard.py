"""HardAI: bids by expected score and plays by determinized Monte-Carlo search.

Both decisions deal the unseen cards many times, consistent with what the player has seen
(cards played, suits shown out of) and weighted toward deals that fit the bids made, then play
each deal out with the fast simulation of `bot.ai.fastsim`, the other players modelled on how
`normal` plays. The search is budgeted by counts,
never by the clock, so the same view and rng give the same move.
"""

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from bot.ai.easy import nothing_to_do
from bot.ai.fastsim import SUIT, TO_CARD, TO_INT, WIZ, lead_strength, playout, seen_masks
from bot.ai.normal import NormalAI, sure_tricks
from bot.ai.sampler import Knowledge, estimate, guess_bid, read_view, sample_deals
from engine import Bid, Card, ChooseTrump, Command, Play, PlayerView, Suit
from engine.scoring import round_points

SUITS = tuple(Suit)
UNDER_SURE = 15.0
"""Points a bid below the hand's sure tricks must gain over the others to be chosen."""


@dataclass(frozen=True, slots=True)
class Budget:
    """How much the hard AI simulates per decision (counts, so decisions are reproducible).

    A bid plays each candidate bid out on `bid_samples` deals (fewer in big rounds: at most
    `bid_plays` simulated cards per candidate); a card plays each legal card out on up to
    `play_samples` deals, at most `play_plays` simulated cards in all. `pool` candidate deals
    are drawn per deal kept, to be chosen by how well they fit the bids made.
    """

    bid_samples: int = 160
    bid_plays: int = 6000
    play_samples: int = 192
    play_plays: int = 36000
    min_samples: int = 48
    pool: int = 3
    patient: bool = True
    """Model the other players' play on `normal` (fastsim's `_patient`), else the greedy policy."""
    max_ms: float | None = None
    """An optional wall-clock cap per decision for live play: the deals not played out by
    then are skipped (decisions then depend on the machine's speed; off by default)."""


class HardAI:
    """Expected-score bids and Monte-Carlo play: it aims at its bid, taking or ducking tricks
    on purpose, and reads the others' bids and plays (only what its own view shows)."""

    def __init__(self, budget: Budget | None = None) -> None:
        self.budget = budget or Budget()
        self.normal = NormalAI()

    def decide(self, view: PlayerView, rng: random.Random) -> Command:
        if view.choose_trump:
            return ChooseTrump(view.player, self.trump(view, rng))
        if view.legal_bids:
            return Bid(view.player, self.bid(view, rng))
        if view.play_unseen:
            return Play(view.player, None)
        if view.legal_cards:
            return Play(view.player, self.play(view, rng))
        raise nothing_to_do(view)

    # --- trump and bids ---------------------------------------------------------------------

    def trump(self, view: PlayerView, rng: random.Random) -> Suit:
        """The suit whose best bid has the best expected score (foresight: as NormalAI)."""
        if view.table.foresight or not view.hand:
            return self.normal.trump(view)
        know = read_view(view)
        best: tuple[float, int] | None = None
        choice = SUITS[0]
        for index, suit in enumerate(SUITS):
            know.trump = index
            scores = self.bid_scores(know, tuple(range(view.hand_size + 1)), rng, -1, 2)
            value = max(scores.values())
            if best is None or (value, -index) > best:
                best, choice = (value, -index), suit
        return choice

    def bid(self, view: PlayerView, rng: random.Random) -> int:
        """The legal bid with the best expected points (foresight: as NormalAI)."""
        if view.table.foresight:
            return self.normal.bid(view)
        know = read_view(view)
        card = view.table.trump_card
        trump_card = TO_INT[card] if card is not None else -1
        scores = self.bid_scores(know, view.legal_bids, rng, trump_card, 1)
        guess = estimate(know.hand, know.trump, know.players, trump_card)
        sure = sure_tricks(view.hand, view.table.trump)

        def value(bid: int) -> tuple[float, float]:
            # dropping below the sure tricks is what nobody who plays the game does: only
            # when it is clearly better
            return scores[bid] - (UNDER_SURE if bid < sure else 0.0), -abs(bid - guess)

        return max(scores, key=value)

    def bid_scores(
        self,
        know: Knowledge,
        legal: Sequence[int],
        rng: random.Random,
        trump_card: int,
        shrink: int,
    ) -> dict[int, float]:
        """The expected points of the plausible legal bids, by playing the round out."""
        budget = self.budget
        guess = estimate(know.hand, know.trump, know.players, trump_card)
        near = [bid for bid in legal if abs(bid - guess) <= 2.0]
        if len(near) < 2:
            near = sorted(legal, key=lambda bid: abs(bid - guess))[:2]
        plays = know.cards * know.players
        samples = max(budget.min_samples, min(budget.bid_samples, budget.bid_plays // plays))
        samples = max(1, samples // shrink)
        deals = sample_deals(know, samples, samples * budget.pool, rng, trump_card)
        totals = dict.fromkeys(near, 0.0)
        seat = know.seat
        seen = self._seen(know, trump_card)
        stop = self._deadline()
        played = 0
        for deal in deals:
            if played and stop and time.perf_counter() > stop:
                break
            played += 1
            bids = self.bids_for(know, deal)
            for bid in near:
                bids[seat] = bid
                hands = [list(hand) for hand in deal]
                won = playout(
                    hands,
                    know.trump,
                    know.leader,
                    know.trick,
                    list(know.won),
                    bids,
                    -1,
                    seat,
                    list(seen) if seen else None,
                )
                totals[bid] += round_points(bid, won[seat])
        return {bid: total / played for bid, total in totals.items()}

    def _deadline(self) -> float:
        """The perf_counter time to stop sampling at, or 0 for no cap."""
        cap = self.budget.max_ms
        return 0.0 if cap is None else time.perf_counter() + cap / 1000

    def _seen(self, know: Knowledge, trump_card: int) -> list[int]:
        """The ranks seen played (and turned up) by everyone, for the playouts; [] when the
        others are modelled greedily."""
        if not self.budget.patient:
            return []
        return seen_masks([card for cards in know.played for card in cards] + [trump_card])

    @staticmethod
    def bids_for(know: Knowledge, deal: list[list[int]]) -> list[int]:
        """The bids the playout assumes: those seen, else a guess from the dealt hand."""
        bids = []
        for seat, seen in enumerate(know.bids):
            if seen is not None:
                bids.append(seen)
            else:
                bids.append(guess_bid(deal[seat] + know.played[seat], know.trump, know.players))
        return bids

    # --- play -------------------------------------------------------------------------------

    def play(self, view: PlayerView, rng: random.Random) -> Card:
        """The legal card with the best mean points over deals of the unseen cards."""
        legal = view.legal_cards
        if len(legal) == 1:
            return legal[0]
        know = read_view(view)
        cards = distinct([TO_INT[card] for card in legal], know.unseen)
        if len(cards) == 1:
            return TO_CARD[cards[0]]
        budget = self.budget
        rest = sum(know.held) or 1
        samples = budget.play_plays // (rest * len(cards))
        samples = max(budget.min_samples, min(budget.play_samples, samples))
        card = view.table.trump_card
        trump_card = TO_INT[card] if card is not None else -1
        deals = sample_deals(know, samples, samples * budget.pool, rng, trump_card)
        seat = know.seat
        bid = view.bid if view.bid is not None else 0
        totals = [0.0] * len(cards)
        seen = self._seen(know, trump_card)
        stop = self._deadline()
        for count, deal in enumerate(deals):
            if count and stop and time.perf_counter() > stop:
                break
            bids = self.bids_for(know, deal)
            bids[seat] = bid
            for index, first in enumerate(cards):
                hands = [list(hand) for hand in deal]
                won = playout(
                    hands,
                    know.trump,
                    know.leader,
                    know.trick,
                    list(know.won),
                    bids,
                    first,
                    seat,
                    list(seen) if seen else None,
                )
                totals[index] += round_points(bid, won[seat])
        best = max(
            range(len(cards)),
            key=lambda index: (round(totals[index], 6), -lead_strength(cards[index], know.trump)),
        )
        return TO_CARD[cards[best]]


def distinct(cards: list[int], unseen: Sequence[int]) -> list[int]:
    """`cards` without those that play exactly like a lower one: cards of one suit with no
    unseen card between them (every rank between is held or gone) are equivalent."""
    out = set(unseen)
    kept: list[int] = []
    for card in sorted(cards):
        last = kept[-1] if kept else WIZ
        same = card < WIZ and last < WIZ and SUIT[card] == SUIT[last]
        if same and all(between not in out for between in range(last + 1, card)):
            continue  # plays like the lower card kept: nothing anyone else holds lies between
        kept.append(card)
    return kept
