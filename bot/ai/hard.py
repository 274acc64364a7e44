"""HardAI: bids by expected score and plays by determinized Monte-Carlo search.

Both decisions deal the unseen cards many times, consistent with what the player has seen
(cards played, suits shown out of) and weighted toward deals that fit the bids made (each bid
read by how that player's bids ran against the tricks they took in the game's finished rounds:
`bot.ai.sampler.read_bids`), then play each deal out with the fast simulation of
`bot.ai.fastsim`, the other players modelled on how `normal` plays. A playout scores the
round's points for the own bid, a bonus when it is met, and a share for the chance of winning
the game that the round leaves (`Standing`). The search is budgeted by counts, never by the
clock, so the same view and rng give the same move.
"""

import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.ai.easy import nothing_to_do
from bot.ai.fastsim import (
    SUIT,
    TO_CARD,
    TO_INT,
    WIZ,
    lead_strength,
    playout,
    seen_masks,
    shown_list,
)
from bot.ai.normal import NormalAI, sure_tricks
from bot.ai.sampler import (
    Knowledge,
    candidates,
    deal_weights,
    estimate,
    guess_bid,
    has_bidders,
    read_view,
    resample,
)
from engine import Bid, Card, ChooseTrump, Command, Play, PlayerView, Suit, hand_sizes
from engine.scoring import round_points

SUITS = tuple(Suit)
UNDER_SURE = 20.0
"""Points a bid below the hand's sure tricks must gain over the others to be chosen."""
HIT_BONUS = 10.0
"""Points added to a playout that meets the bid exactly, in bids and play alike: a little more
weight on meeting it than the score gives (an 80-game screen looked better; 400 games of
another seed showed no gain and no harm; 40 met no more bids and scored less: docs/ai.md)."""
WIN_WEIGHT = 150.0
"""Points that winning the game rather than losing it is worth in a playout's score, which
adds this times the chance of winning that the playout leaves (`Standing`): little while many
rounds are to come, it decides the close final rounds."""
Deal = list[list[int]]
"""The hands of a deal of the unseen cards, by seat (the own hand as it is)."""

DRAW_CHUNK = 96
"""Candidate deals drawn (or weighed) by one call of the sampler. Compiled (`bot.native`), a
call holds the GIL throughout, and the service's event loop shares it with the threads where
AI players think: 96 take about 2 ms at most, where a bid's 1,440 at once took up to 40."""


@dataclass(frozen=True, slots=True)
class Budget:
    """How much the hard AI simulates per decision (counts, so decisions are reproducible).

    A decision races its options (the plausible bids, or the legal cards) over deals of the
    unseen cards (`race`): every option is played out on the first deals with half of the
    budget, those clearly worse than the best are dropped, and the rest share the other half.
    `bid_plays` and `play_plays` are the simulated cards a bid and a card may cost in all,
    `bid_samples` and `play_samples` the most deals any option is played on, `min_samples` the
    least in the first half. `pool` candidate deals are drawn per deal kept, to be chosen by how
    well they fit the bids made.
    """

    bid_samples: int = 480
    bid_plays: int = 30000
    play_samples: int = 576
    play_plays: int = 54000
    min_samples: int = 48
    pool: int = 6
    patient: bool = True
    """Model the other players' play on `normal` (fastsim's `_lead` and `_patient`), else the
    greedy policy."""
    exact: bool = False
    """Model the other players' play on `normal` as it plays (fastsim's `_normal_card`), not
    by the models fitted to its choices."""
    read: bool = True
    """Read each other player's bids by the game so far (`sampler.read_bids`: their bids
    against the tricks they took), else take every bid as `normal` would mean it."""
    max_ms: float | None = None
    """An optional wall-clock cap per decision for live play: the deals not played out by
    then are skipped (decisions then depend on the machine's speed; off by default)."""


@dataclass(frozen=True, slots=True)
class Standing:
    """Where the game stands for one seat: everyone's total before this round, and the spread
    (standard deviation) of the gap between two players' totals over the rounds after it."""

    totals: tuple[int, ...]
    spread: float

    def win_chance(self, seat: int, bids: Sequence[int], won: Sequence[int]) -> float:
        """The chance that `seat` wins the game when this round ends with `won` for `bids`:
        the gaps to the others, each closing by chance with `spread` (exact in the last
        round, a tie shared)."""
        ends = [
            total + round_points(bid, took)
            for total, bid, took in zip(self.totals, bids, won, strict=True)
        ]
        mine = ends[seat]
        if self.spread <= 0.0:
            if any(end > mine for end in ends):
                return 0.0
            return 1.0 / sum(end == mine for end in ends)
        chance = 1.0
        scale = self.spread * math.sqrt(2.0)
        for other, end in enumerate(ends):
            if other != seat:
                chance *= 0.5 * math.erfc((end - mine) / scale)
        return chance


def standing(view: PlayerView) -> Standing:
    """The game's standing as `view` shows it. A round of `c` cards among `P` players moves
    the gap between two of them by about 6 + 11 sqrt(4c / P) points (standard deviation, as
    measured in games of `normal`: 18 for one card and 49 for 15 among four)."""
    table = view.table
    players = len(table.seats)
    later = hand_sizes(table.options, players)[table.round :]
    variance = sum((6.0 + 11.0 * math.sqrt(4 * cards / players)) ** 2 for cards in later)
    return Standing(tuple(seat.total for seat in table.seats), math.sqrt(variance))


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
        know = read_view(view, self.budget.read)
        best: tuple[float, int] | None = None
        choice = SUITS[0]
        for index, suit in enumerate(SUITS):
            know.trump = index
            scores = self.bid_scores(
                know, standing(view), tuple(range(view.hand_size + 1)), rng, -1, 2
            )
            value = max(scores.values())
            if best is None or (value, -index) > best:
                best, choice = (value, -index), suit
        return choice

    def bid(self, view: PlayerView, rng: random.Random) -> int:
        """The legal bid with the best expected points (foresight: as NormalAI)."""
        if view.table.foresight:
            return self.normal.bid(view)
        know = read_view(view, self.budget.read)
        card = view.table.trump_card
        trump_card = TO_INT[card] if card is not None else -1
        # dropping below the sure tricks is what nobody who plays the game does: only when it
        # is clearly better
        sure = sure_tricks(view.hand, view.table.trump)
        scores = self.bid_scores(know, standing(view), view.legal_bids, rng, trump_card, 1, sure)
        guess = estimate(know.hand, know.trump, know.players, trump_card)
        return max(scores, key=lambda bid: (scores[bid], -abs(bid - guess)))

    def bid_scores(
        self,
        know: Knowledge,
        stand: Standing,
        legal: Sequence[int],
        rng: random.Random,
        trump_card: int,
        shrink: int,
        sure: int = 0,
    ) -> dict[int, float]:
        """The mean score of the plausible legal bids, by playing the round out: the points,
        the hit bonus, less UNDER_SURE for a bid below `sure` (-inf: clearly worse than the
        best)."""
        budget = self.budget
        guess = estimate(know.hand, know.trump, know.players, trump_card)
        near = [bid for bid in legal if abs(bid - guess) <= 2.0]
        if len(near) < 2:
            near = sorted(legal, key=lambda bid: abs(bid - guess))[:2]
        seat = know.seat
        seen = self._seen(know, trump_card)

        guesses = self._guesses(know)

        def score(arm: int, deal: Deal) -> float:
            bid = near[arm]
            bids = guesses(deal)
            bids[seat] = bid
            points = self._play_out(know, stand, deal, bids, -1, bid, seen, rng)
            return points - (UNDER_SURE if bid < sure else 0.0)

        means = race(
            len(near),
            self._drawer(know, rng, trump_card),
            score,
            know.cards * know.players,
            budget.bid_plays // shrink,
            max(2, budget.bid_samples // shrink),
            max(1, budget.min_samples // shrink),
            self._deadline(),
        )
        return dict(zip(near, means, strict=True))

    def _drawer(
        self, know: Knowledge, rng: random.Random, trump_card: int
    ) -> Callable[[int], list[Deal]]:
        """Draws `count` deals of the unseen cards, weighted toward the bids made."""
        pool = self.budget.pool
        return lambda count: draw_deals(know, count, count * pool, rng, trump_card)

    def _guesses(self, know: Knowledge) -> Callable[[Deal], list[int]]:
        """The bids a playout of a deal assumes (`bids_for`), kept for the last deal, which
        a race plays once per option in a row."""
        last: list[tuple[Deal, list[int]]] = []

        def bids(deal: Deal) -> list[int]:
            if not last or last[0][0] is not deal:
                last[:] = [(deal, self.bids_for(know, deal))]
            return last[0][1]

        return bids

    @staticmethod
    def _play_out(
        know: Knowledge,
        stand: Standing,
        deal: Deal,
        bids: list[int],
        first: int,
        bid: int,
        seen: list[int],
        rng: random.Random,
    ) -> float:
        """The own points for `bid` when `deal` is played out (`first`: the own card now, or
        -1), plus HIT_BONUS when the bid is met and WIN_WEIGHT times the chance of winning
        the game (`bids`: everyone's, the own one `bid`)."""
        seat = know.seat
        won = tricks_won(know, deal, bids, first, seen, rng)
        points = round_points(bid, won[seat]) + (HIT_BONUS if won[seat] == bid else 0.0)
        return points + WIN_WEIGHT * stand.win_chance(seat, bids, won)

    def _deadline(self) -> float:
        """The perf_counter time to stop sampling at, or 0 for no cap."""
        cap = self.budget.max_ms
        return 0.0 if cap is None else time.perf_counter() + cap / 1000

    def _seen(self, know: Knowledge, trump_card: int) -> list[int]:
        """The ranks seen played (and turned up) by everyone, for the playouts (`seen_masks`,
        four ints), followed with `exact` by what `_normal_card` also reads (`shown_list`);
        [] when the others are modelled greedily."""
        if not self.budget.patient:
            return []
        gone = seen_masks([card for cards in know.played for card in cards] + [trump_card])
        if self.budget.exact:
            gone += shown_list(know.played, trump_card, know.voids)
        return gone

    @staticmethod
    def bids_for(know: Knowledge, deal: list[list[int]]) -> list[int]:
        """The bids the playout assumes: those seen, else a guess from the dealt hand."""
        bids = []
        for seat, seen in enumerate(know.bids):
            if seen is not None:
                bids.append(seen)
            else:
                dealt = deal[seat] + know.played[seat]
                bids.append(guess_bid(dealt, know.trump, know.players, know.lean[seat]))
        return bids

    # --- play -------------------------------------------------------------------------------

    def play(self, view: PlayerView, rng: random.Random) -> Card:
        """The legal card with the best mean points over deals of the unseen cards."""
        legal = view.legal_cards
        if len(legal) == 1:
            return legal[0]
        know = read_view(view, self.budget.read)
        cards = distinct([TO_INT[card] for card in legal], in_play(know))
        if len(cards) == 1:
            return TO_CARD[cards[0]]
        budget = self.budget
        card = view.table.trump_card
        trump_card = TO_INT[card] if card is not None else -1
        seat = know.seat
        bid = view.bid if view.bid is not None else 0
        seen = self._seen(know, trump_card)
        stand = standing(view)

        guesses = self._guesses(know)

        def score(arm: int, deal: Deal) -> float:
            bids = guesses(deal)
            bids[seat] = bid
            return self._play_out(know, stand, deal, bids, cards[arm], bid, seen, rng)

        totals = race(
            len(cards),
            self._drawer(know, rng, trump_card),
            score,
            sum(know.held) or 1,
            budget.play_plays,
            budget.play_samples,
            budget.min_samples,
            self._deadline(),
        )
        best = max(
            range(len(cards)),
            key=lambda index: (round(totals[index], 6), -lead_strength(cards[index], know.trump)),
        )
        return TO_CARD[cards[best]]


def draw_deals(
    know: Knowledge, count: int, pool: int, rng: random.Random, trump_card: int
) -> list[Deal]:
    """The deals of `sample_deals` (`pool` candidates, `count` of them chosen by how well they
    fit the bids made), with the candidates drawn and weighed DRAW_CHUNK at a time: a compiled
    call of the sampler holds the GIL, and AI players think in threads beside the service."""
    weighed = has_bidders(know) and pool > count
    total = pool if weighed else count
    drawn: list[Deal] = []
    weights: list[float] = []
    while len(drawn) < total:
        part = candidates(know, min(DRAW_CHUNK, total - len(drawn)), rng)
        drawn += part
        if weighed:
            weights += deal_weights(know, part, trump_card)
    return resample(drawn, weights, count, rng) if weighed else drawn


def tricks_won(
    know: Knowledge,
    deal: Deal,
    bids: list[int],
    first: int,
    seen: list[int],
    rng: random.Random,
) -> list[int]:
    """The tricks each seat ends the round with when `deal` is played out from where `know`
    stands, everyone aiming at `bids` (`first`: the own card now, or -1; `seen`: the ranks seen
    played, `HardAI._seen`, [] for greedy others)."""
    return playout(
        [list(hand) for hand in deal],
        know.trump,
        know.leader,
        know.trick,
        list(know.won),
        bids,
        first,
        know.seat,
        list(seen[:4]) if seen else None,
        rng,
        list(seen[4:]) if len(seen) > 4 else None,
    )


DROP_Z = 2.0
"""An option is dropped from a race when its mean is below the best's by more than this many
standard errors of the paired differences (same deals)."""


def race(
    arms: int,
    draw: Callable[[int], list[Deal]],
    score: Callable[[int, Deal], float],
    cost: int,
    plays: int,
    most: int,
    least: int,
    stop: float,
) -> list[float]:
    """The mean score of each of `arms` options over deals from `draw`, every option on the same
    deals: all of them on the first deals (half of `plays`, the simulated cards allowed, each
    deal costing `cost` per option; at least `least` deals), then only those not clearly worse
    than the best (-inf for the others), on further deals until `plays` is spent or they have
    had `most` deals. `stop` (a perf_counter time, 0 for none) cuts the race short."""
    first = max(least, min(most // 2, plays // (2 * cost * arms)))
    scores: list[list[float]] = [[] for _ in range(arms)]
    alive = list(range(arms))
    used = _run(draw(first), alive, score, scores, stop)
    if len(alive) > 1 and used == first:
        best = max(alive, key=lambda arm: sum(scores[arm]))
        alive = [arm for arm in alive if arm == best or not _worse(scores[best], scores[arm])]
        more = min(most, first + (plays - first * cost * arms) // (cost * len(alive))) - first
        if len(alive) > 1 and more > 0:
            _run(draw(more), alive, score, scores, stop)
    return [
        sum(scores[arm]) / len(scores[arm]) if arm in alive else float("-inf")
        for arm in range(arms)
    ]


def _run(
    deals: list[Deal],
    arms: list[int],
    score: Callable[[int, Deal], float],
    scores: list[list[float]],
    stop: float,
) -> int:
    """Score `arms` on `deals` (until `stop`); the deals played."""
    for count, deal in enumerate(deals):
        if count and stop and time.perf_counter() > stop:
            return count
        for arm in arms:
            scores[arm].append(score(arm, deal))
    return len(deals)


def _worse(best: list[float], other: list[float]) -> bool:
    """Whether `other` scores clearly below `best` on the same deals."""
    diffs = [a - b for a, b in zip(best, other, strict=False)]
    mean = statistics.fmean(diffs)
    if mean <= 0:
        return False
    spread = statistics.pstdev(diffs, mean)
    return mean > DROP_Z * spread / math.sqrt(len(diffs))


def in_play(know: Knowledge) -> list[int]:
    """The cards that may still lie between two of the own in rank and tell them apart: the
    unseen ones, and those of the trick in progress (a card there decides which of two takes
    it). What `distinct` takes as `unseen`."""
    return [*know.unseen, *know.trick]


def distinct(cards: list[int], unseen: Sequence[int]) -> list[int]:
    """`cards` without those that play exactly like a lower one: cards of one suit with no
    card of `unseen` between them (every rank between is held or gone) are equivalent. Give it
    `in_play`: a card of the trick in progress between two tells them apart too."""
    out = set(unseen)
    kept: list[int] = []
    for card in sorted(cards):
        last = kept[-1] if kept else WIZ
        same = card < WIZ and last < WIZ and SUIT[card] == SUIT[last]
        if same and all(between not in out for between in range(last + 1, card)):
            continue  # plays like the lower card kept: nothing anyone else holds lies between
        kept.append(card)
    return kept
