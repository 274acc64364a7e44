"""Hints for a player about to bid or play: the expected round points of the plausible choices.

The figures come from the hard AI's machinery: deals of the unseen cards consistent with what
the player's view shows (`bot.ai.sampler`), each played out by the fast simulation with the
others modelled on `normal` (`bot.ai.fastsim`), the options compared on the same deals by
`bot.ai.hard.race` within a `Budget` of counts. Unlike `hard`'s own search, a playout scores
the real points alone (`round_points`: no hit bonus, no share for the game's standing), and
every option of a deal shares one random stream (common random numbers), so the differences
between options are measured with less noise. Only the `PlayerView` is read; the same view and
rng seed give the same hints.
"""

import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from bot.ai.fastsim import TO_CARD, TO_INT, lead_strength, seen_masks, winner
from bot.ai.hard import Budget, Deal, HardAI, distinct, draw_deals, in_play, race, tricks_won
from bot.ai.sampler import Knowledge, estimate, read_view
from engine import Card, PlayerView
from engine.scoring import round_points

ALL_BIDS = 5
"""When a player has at most this many legal bids, every one is a candidate; else those that
`hard` races (within 2 tricks of the model's estimate of the hand, at least two)."""
TOP_CARDS = 3
"""How many cards `card_hints` gives."""


@dataclass(frozen=True, slots=True)
class BidHint:
    """A bid and what it may bring: `points`, the expected `round_points` of the round with
    this bid, and `chance`, the share of the playouts (0..1) in which it is met exactly."""

    bid: int
    points: float
    chance: float


@dataclass(frozen=True, slots=True)
class CardHint:
    """A card to play now and the expected round points (for the own bid) after it; `alike`,
    the other cards the player may play that play exactly like it (the hint stands for them
    too: of one suit, with no card between them unseen or in the trick, `in_play`)."""

    card: Card
    points: float
    alike: tuple[Card, ...] = ()


@dataclass(slots=True)
class Tally:
    """The playouts of one option: the round points of each, and whether the bid was met. The
    options of one measurement were played on the same deals, in the same order (the first
    `len(points)` deals: an option a race dropped early has fewer)."""

    points: list[float] = field(default_factory=list)
    hits: list[bool] = field(default_factory=list)

    def mean(self) -> float:
        """The mean round points (0 with no playout)."""
        return statistics.fmean(self.points) if self.points else 0.0

    def chance(self) -> float:
        """The share of the playouts that met the bid (0 with none)."""
        return sum(self.hits) / len(self.hits) if self.hits else 0.0


def bid_hints(view: PlayerView, rng: random.Random, budget: Budget | None = None) -> list[BidHint]:
    """The candidate bids of a player who may bid, best first (expected points, then the
    chance of meeting it), each with its expected round points and chance: every legal bid
    when there are at most `ALL_BIDS`, else those `hard` races. [] when the player may not
    bid. A forbidden notequal bid is not legal and never appears. Under foresight (the own card
    unseen) the figures are exact: every card the player may hold, each as likely."""
    legal = list(view.legal_bids)
    if not legal:
        return []
    know = read_view(view)
    trump_card = _trump_card(view)
    if len(legal) > ALL_BIDS:
        guess = estimate(know.hand, know.trump, know.players, trump_card)
        near = [bid for bid in legal if abs(bid - guess) <= 2.0]
        legal = near if len(near) >= 2 else sorted(legal, key=lambda bid: abs(bid - guess))[:2]
    tallies = measure_bids(view, legal, rng, budget)
    hints = [
        BidHint(bid, tally.mean(), tally.chance())
        for bid, tally in zip(legal, tallies, strict=True)
    ]
    return sorted(hints, key=lambda hint: (-hint.points, -hint.chance, hint.bid))


def card_hints(
    view: PlayerView, rng: random.Random, budget: Budget | None = None
) -> list[CardHint]:
    """The best `TOP_CARDS` legal cards for a player who must play, best first, each with the
    expected round points for the own bid when it is played now. Cards that play alike (of one
    suit with no card between them unseen or in the trick; two Wizards, two Jesters) count
    once, as the lowest, the others named with it (`CardHint.alike`). [] when the player has no
    card to choose (not their turn, or foresight: the own card is unseen)."""
    if view.play_unseen or not view.legal_cards:
        return []
    know = read_view(view)
    legal = list(dict.fromkeys(TO_INT[card] for card in view.legal_cards))
    live = in_play(know)
    cards = distinct(legal, live)
    tallies = measure_cards(view, cards, rng, budget)
    ranked = sorted(
        zip(cards, tallies, strict=True),
        key=lambda item: (-item[1].mean(), lead_strength(item[0], know.trump)),
    )
    return [
        CardHint(TO_CARD[card], tally.mean(), plays_alike(card, legal, live)[1:])
        for card, tally in ranked[:TOP_CARDS]
    ]


def plays_alike(card: int, legal: Sequence[int], unseen: Sequence[int]) -> tuple[Card, ...]:
    """The cards of `legal` that play exactly like `card` (of one suit with no card of `unseen`
    between them, as `distinct` counts them: give it `in_play`), `card` among them, lowest
    first: the lowest is the one `distinct` keeps."""
    return tuple(
        TO_CARD[other]
        for other in sorted(set(legal))
        if len(distinct(sorted({card, other}), unseen)) == 1
    )


def measure_bids(
    view: PlayerView, bids: Sequence[int], rng: random.Random, budget: Budget | None = None
) -> list[Tally]:
    """The playouts of the round for each of `bids` (the player's own, in `view`'s bidding),
    all on the same deals, raced as `hard` races its bids (`Budget.bid_plays`, `bid_samples`,
    `min_samples`). Under foresight every card the player may hold is dealt once instead."""
    budget = budget or Budget()
    know = read_view(view)
    if view.table.foresight:
        return _foresight_bids(view, know, bids)
    sizes = (know.cards * know.players, budget.bid_plays, budget.bid_samples)
    return _measure(view, know, [(bid, -1) for bid in bids], rng, budget, sizes)


def measure_cards(
    view: PlayerView, cards: Sequence[int], rng: random.Random, budget: Budget | None = None
) -> list[Tally]:
    """The playouts of the rest of the round for each of `cards` (fastsim ints, legal for the
    player to act in `view`) played now, all on the same deals, raced as `hard` races its cards
    (`Budget.play_plays`, `play_samples`, `min_samples`); scored for the own bid (0 if none)."""
    budget = budget or Budget()
    know = read_view(view)
    bid = view.bid if view.bid is not None else 0
    sizes = (sum(know.held) or 1, budget.play_plays, budget.play_samples)
    return _measure(view, know, [(bid, card) for card in cards], rng, budget, sizes)


def _measure(
    view: PlayerView,
    know: Knowledge,
    arms: Sequence[tuple[int, int]],
    rng: random.Random,
    budget: Budget,
    sizes: tuple[int, int, int],
) -> list[Tally]:
    """Race the options `arms`, each the own bid and the own card to play now (-1: none), on
    deals drawn for `know`; `sizes` are the cost of a deal per option (simulated cards), the
    cards allowed in all and the most deals an option gets. Each deal has its own seed, so
    every option of it meets the same random draws, and the bids it assumes
    (`HardAI.bids_for`: those seen, else guessed from the hand dealt)."""
    trump_card = _trump_card(view)
    seen: list[int] = []
    if budget.patient:  # as HardAI: the ranks seen played, for the others modelled on normal
        seen = seen_masks([card for cards in know.played for card in cards] + [trump_card])
    tallies = [Tally() for _ in arms]
    current: list[tuple[Deal, int, list[int]]] = []

    def draw(count: int) -> list[Deal]:
        deals = draw_deals(know, count, count * budget.pool, rng, trump_card)
        return [list(deal) for deal in deals]  # one object a deal kept, duplicates apart

    def score(arm: int, deal: Deal) -> float:
        if not current or current[0][0] is not deal:
            current[:] = [(deal, rng.getrandbits(64), HardAI.bids_for(know, deal))]
        _, seed, guessed = current[0]
        bid, first = arms[arm]
        bids = list(guessed)
        bids[know.seat] = bid
        won = tricks_won(know, deal, bids, first, seen, random.Random(seed))[know.seat]
        tallies[arm].points.append(round_points(bid, won))
        tallies[arm].hits.append(won == bid)
        return round_points(bid, won)

    stop = 0.0 if budget.max_ms is None else time.perf_counter() + budget.max_ms / 1000
    cost, plays, most = sizes
    race(len(arms), draw, score, cost, plays, most, budget.min_samples, stop)
    return tallies


def _foresight_bids(view: PlayerView, know: Knowledge, bids: Sequence[int]) -> list[Tally]:
    """Exact tallies for a foresight round (one card each, the own one unseen, the others'
    shown): the trick played with each card the player may hold, each card once."""
    pool = list(know.unseen)
    hands: list[list[int]] = []
    for seat, card in enumerate(view.others):
        hands.append([] if card is None or seat == know.seat else [TO_INT[card]])
        if hands[-1]:
            pool.remove(hands[-1][0])
    tallies = [Tally() for _ in bids]
    players = know.players
    for own in pool:
        hands[know.seat] = [own]
        trick = list(know.trick)
        order = [(know.leader + offset) % players for offset in range(len(trick), players)]
        trick += [card for seat in order for card in hands[seat]]
        taker = (know.leader + winner(trick, know.trump)) % players
        won = know.won[know.seat] + (taker == know.seat)
        for bid, tally in zip(bids, tallies, strict=True):
            tally.points.append(round_points(bid, won))
            tally.hits.append(won == bid)
    return tallies


def _trump_card(view: PlayerView) -> int:
    """The card turned up for trump, as an int (-1: none)."""
    card = view.table.trump_card
    return TO_INT[card] if card is not None else -1
