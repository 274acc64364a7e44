"""Reviews of a player's game: the decisions where the hard AI would have done clearly better.

A game's record (`engine.export_record`, or `record_so_far` for a game still running) is
replayed through the engine; at each bid and each card the player chose, the hard AI decides
on the player's view at that moment (`engine.player_view`: nothing the player could not see),
and when it would choose otherwise both choices are measured on the same deals of the unseen
cards with the same random draws (`bot.ai.coach.measure_bids`, `measure_cards`): the expected
round points of each, and the difference. Forced moves (one legal card, or cards that play
alike) and the dealer's choice of trump are not reviewed. A record keeps the final bids only,
so a dealer's forced hidden rebid is reviewed as a bid made before the others' were shown.
"""

import dataclasses
import math
import random
import statistics
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from bot.ai.coach import Tally, measure_bids, measure_cards, plays_alike
from bot.ai.fastsim import TO_INT
from bot.ai.hard import Budget, HardAI, distinct, in_play
from bot.ai.sampler import read_view
from engine import DECK, Card, GameState, Options, Phase, PlayerView, Suit, hand_sizes, step
from engine.commands import Bid, ChooseTrump, Command, Deal, Join, Play, SetOptions, Start
from engine.records import RecordError, check_record, export_record
from engine.views import player_view

REVIEW_BUDGET = Budget(
    bid_samples=240, bid_plays=12000, play_samples=192, play_plays=12000, min_samples=32
)
"""The budget of a review, for hard's decisions and the measurements alike: less than a live
decision's (a whole game is reviewed at once), enough to tell choices 5 points apart."""
MIN_COST = 5.0
"""The least cost (expected points) of a decision `review_round` reports."""
GAME_MIN_COST = 1.0
"""The least cost (expected points) of a decision `review_game` reports: a review says whole
points, and "worth 0 points more" teaches nothing, however sure the measure."""
MOST = 3
"""How many decisions a review reports at most."""
SURE = 2.0
"""Hard's choice beats the player's when its measured gain is above this many standard errors
(as `bot.ai.hard.DROP_Z` drops an option from a race): a gain within the noise is none."""

Kind = Literal["bid", "card"]


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of the player: what they chose, what hard would choose, and the expected
    round points of both, measured on the same deals (None for both when hard chooses alike:
    nothing is measured then)."""

    round: int
    trick: int | None
    """The trick (1 for the first of the round) a card was played to; None for a bid."""
    kind: Kind
    chosen: int | Card
    """The bid (int) or the card (`Card`) the player chose."""
    hard: int | Card
    """What hard would choose on the same view (the choice itself when it plays alike)."""
    points: float | None
    hard_points: float | None
    error: float = 0.0
    """The standard error of `cost` (paired, deal by deal; 0 when exact or not measured)."""
    alike: tuple[Card, ...] = ()
    """For a card measured: the legal cards that play exactly like hard's, hard's among them,
    lowest first (`bot.ai.coach.plays_alike`)."""

    @property
    def cost(self) -> float:
        """How many expected points hard's choice gains over the player's (0 when alike)."""
        if self.points is None or self.hard_points is None:
            return 0.0
        return self.hard_points - self.points


@dataclass(frozen=True, slots=True)
class Mistake:
    """A decision where hard's choice measured better than the player's."""

    round: int
    trick: int | None
    """The trick (1 for the first of the round) a card was played to; None for a bid."""
    kind: Kind
    chosen: int | Card
    better: int | Card
    """Hard's choice, never the chosen one (nor a card that plays alike); for a card, the
    lowest of those that play exactly like hard's (the one a hint names first)."""
    points: float
    """The expected round points of the choice made."""
    better_points: float
    cost: float
    """`better_points - points`: above 0, and above `SURE` standard errors."""
    error: float
    """The standard error of `cost` (0 when exact: one card each under foresight)."""
    alike: tuple[Card, ...] = ()
    """The other legal cards that play exactly like `better` (a review names them with it, as
    a hint does: "🔷2 or 🔷3")."""


def review_round(
    record: Mapping[str, Any],
    player: int | str,
    round_number: int,
    rng: random.Random,
    budget: Budget | None = None,
) -> list[Mistake]:
    """The player's decisions of round `round_number` where hard would have chosen otherwise
    and gained at least `MIN_COST` expected points, costliest first, at most `MOST`. `player` is
    a seat (0 first, in the record's order of players) or a name of the record (unique). The
    same record, player and rng seed give the same figures as `review_game` for that round.
    A gain counts only when it is above `SURE` standard errors of its measure."""
    found = decisions(record, player, rng, budget, round_number)
    return _costliest(found, MIN_COST)


def review_game(
    record: Mapping[str, Any],
    player: int | str,
    rng: random.Random,
    budget: Budget | None = None,
    skip: Sequence[int] = (),
) -> list[Mistake]:
    """The player's `MOST` costliest decisions of the whole record where hard would have
    chosen otherwise and gained expected points (at least `GAME_MIN_COST`, and above `SURE`
    standard errors), costliest first; none of the rounds `skip` (the AI moved for them
    there)."""
    found = decisions(record, player, rng, budget)
    return _costliest([item for item in found if item.round not in skip], GAME_MIN_COST)


def _costliest(found: Sequence[Decision], least: float) -> list[Mistake]:
    """The `MOST` costliest of the decisions `found` where hard's choice gained over the
    player's, by at least `least`."""
    mistakes = []
    for item in found:
        mine, better, cost = item.points, item.hard_points, item.cost
        if mine is None or better is None or cost <= 0.0 or cost <= SURE * item.error:
            continue  # hard's choice does not measure clearly better
        if cost >= least:
            mistakes.append(
                Mistake(
                    item.round,
                    item.trick,
                    item.kind,
                    item.chosen,
                    item.alike[0] if item.alike else item.hard,
                    mine,
                    better,
                    cost,
                    item.error,
                    item.alike[1:],
                )
            )
    mistakes.sort(key=lambda mistake: (-mistake.cost, mistake.round, mistake.trick or 0))
    return mistakes[:MOST]


def decisions(
    record: Mapping[str, Any],
    player: int | str,
    rng: random.Random,
    budget: Budget | None = None,
    round_number: int | None = None,
) -> list[Decision]:
    """Every bid and card of the player in the record (or in round `round_number` alone) that
    was a choice, in the order made, with hard's choice on the same view and, where the two
    differ, both measured on the same deals. Each decision draws from its own generator,
    seeded from one draw of `rng` and where it stands (round, trick), so a decision's figures
    do not depend on which others are reviewed with it."""
    budget = budget or REVIEW_BUDGET
    seat = _seat(record, player)
    base = rng.getrandbits(64)
    hard = HardAI(budget)
    found = []
    for view, command in _choices(record, seat, round_number):
        number = view.table.round
        if isinstance(command, Bid):
            own = random.Random(f"{base}/{number}/bid")
            found.append(_bid_decision(view, command.bid, hard, own, budget))
        elif command.card is not None:
            trick = len(view.table.tricks) + 1
            own = random.Random(f"{base}/{number}/{trick}")
            found.append(_card_decision(view, command.card, hard, own, budget))
    return found


def _bid_decision(
    view: PlayerView, chosen: int, hard: HardAI, rng: random.Random, budget: Budget
) -> Decision:
    number = view.table.round
    better = hard.bid(view, rng)
    if better == chosen:
        return Decision(number, None, "bid", chosen, chosen, None, None)
    tallies = measure_bids(view, [chosen, better], rng, budget)
    mine, theirs, error = _paired(tallies, exact=view.table.foresight)
    return Decision(number, None, "bid", chosen, better, mine, theirs, error)


def _card_decision(
    view: PlayerView, chosen: Card, hard: HardAI, rng: random.Random, budget: Budget
) -> Decision:
    number = view.table.round
    trick = len(view.table.tricks) + 1
    better = hard.play(view, rng)
    cards = [TO_INT[chosen], TO_INT[better]]
    live = in_play(read_view(view))
    if better == chosen or len(distinct(cards, live)) == 1:
        return Decision(number, trick, "card", chosen, chosen, None, None)
    mine, theirs, error = _paired(measure_cards(view, cards, rng, budget))
    legal = [TO_INT[card] for card in view.legal_cards]
    alike = plays_alike(TO_INT[better], legal, live)
    return Decision(number, trick, "card", chosen, better, mine, theirs, error, alike)


def _paired(tallies: list[Tally], exact: bool = False) -> tuple[float, float, float]:
    """The mean points of two options over the deals both were played on, and the standard
    error of the second's gain over the first (0 when `exact`: every deal played once)."""
    both = min(len(tally.points) for tally in tallies)
    first, second = (tally.points[:both] for tally in tallies)
    if not first:
        return 0.0, 0.0, 0.0
    gains = [theirs - mine for mine, theirs in zip(first, second, strict=True)]
    error = 0.0 if exact else statistics.pstdev(gains) / math.sqrt(len(gains))
    return statistics.fmean(first), statistics.fmean(second), error


def _choices(
    record: Mapping[str, Any], seat: int, round_number: int | None
) -> Iterator[tuple[PlayerView, Bid | Play]]:
    """The player's view before each bid and card of theirs that was a choice, and the move."""
    for state, command in replay(record):
        rnd = state.round
        assert rnd is not None
        if round_number is not None and rnd.number != round_number:
            continue
        if not isinstance(command, Bid | Play) or command.player != _player_id(seat):
            continue
        view = player_view(state, seat)
        choices = len(view.legal_bids) if isinstance(command, Bid) else len(view.legal_cards)
        if choices > 1 and not view.play_unseen:
            yield view, command


def replay(record: Mapping[str, Any]) -> Iterator[tuple[GameState, Command]]:
    """Replay `record` through the engine: the state before each move of its rounds (trump,
    bids, cards) and the move, made once the consumer asks for the next. The record may hold
    fewer rounds than the game (one still running); the rounds it holds must be whole. A
    record that breaks a rule raises the engine's `RuleError`."""
    names = record["players"]
    count = len(names)
    options = Options.from_dict(record.get("options", {}))
    rounds = record["rounds"]
    deals = [
        Deal(
            hands=tuple(tuple(Card(card) for card in hand) for hand in raw["hands"]),
            trump_card=raw["trump_card"],
        )
        for raw in rounds
    ]
    for cards in hand_sizes(options, count)[len(deals) :]:  # never played: any valid deal
        hands = tuple(tuple(DECK[seat * cards : (seat + 1) * cards]) for seat in range(count))
        left = DECK[count * cards :]
        deals.append(Deal(hands=hands, trump_card=left[0] if left else None))
    state = GameState()
    for seat, name in enumerate(names):
        step(state, Join(player=_player_id(seat), name=name))
    step(state, SetOptions(options=options))
    step(state, Start(seed=0, first_dealer=record["first_dealer"], deals=tuple(deals)))
    for raw in rounds:
        for command in _moves(state, raw):
            yield state, command
            step(state, command)


def _moves(state: GameState, raw: Mapping[str, Any]) -> Iterator[Command]:
    """The moves of one recorded round, each made (by `replay`) before the next is read."""
    rnd = state.round
    assert rnd is not None
    count = len(state.players)
    if state.phase is Phase.TRUMP:
        yield ChooseTrump(_player_id(rnd.dealer), Suit(raw["trump"]))
    for offset in range(1, count + 1):
        seat = (rnd.dealer + offset) % count
        yield Bid(_player_id(seat), raw["bids"][seat])
    for trick in raw["tricks"]:
        for card in trick["cards"]:
            yield Play(_player_id(rnd.turn), Card(card))


def reviewable(record: Mapping[str, Any], players: int, totals: Sequence[int]) -> bool:
    """Whether `record` is a whole game's that replays by the rules (`engine.check_record`:
    none cut short) and is of the game of `players` seats and these `totals` (its summary's),
    so that the seat the summary gives is the same person's in it."""
    try:
        state = check_record(dict(record))
    except RecordError:
        return False
    return len(state.players) == players and list(state.totals) == list(totals)


def record_so_far(state: GameState) -> dict[str, Any]:
    """The record of the rounds `state` has finished (`engine.export_record`'s form, a game
    still running included: its round in progress is left out)."""
    return export_record(dataclasses.replace(state, phase=Phase.FINISHED))


def _player_id(seat: int) -> str:
    return f"seat{seat}"


def _seat(record: Mapping[str, Any], player: int | str) -> int:
    """The seat of `player`: a seat number, or a name the record lists once."""
    names = list(record["players"])
    if isinstance(player, int):
        if not 0 <= player < len(names):
            raise ValueError(f"no seat {player} in a game of {len(names)}")
        return player
    if names.count(player) != 1:
        raise ValueError(f"{player!r} is not one player of the record")
    return names.index(player)
