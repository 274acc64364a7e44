"""Property tests: invariants of random legal games under every combination of options."""

# Random games played by a full run of this file: TOTAL_GAMES = 2_016, that is
#   SHORT_GAMES (1_350)          rounds=short; every invariant; every state serialized
#   LONG_GAMES (250)             rounds=standard/tournament; every invariant; states serialized:
#                                each round's first, all of one drawn round, the final one
#   LONG_SERIALIZED_GAMES (16)   rounds=standard/tournament; every invariant; every state too
#   ILLEGAL_COMMAND_GAMES (400)  rounds=short; illegal commands tried before every legal one
# (`test_games_played_match_the_stated_total`, the last test, checks these counts.)

import dataclasses
import json
import random
import typing
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

import pytest
from conftest import examples, options_with
from hypothesis import given
from hypothesis import strategies as st

import engine
from engine import (
    DECK,
    JESTER,
    WIZARD,
    Bid,
    BidMode,
    Card,
    ChooseTrump,
    Command,
    ErrorCode,
    GameState,
    Join,
    MarkWings,
    Options,
    Phase,
    Play,
    RoundResult,
    RoundsPlan,
    RuleError,
    SetOptions,
    Start,
    Suit,
    check_record,
    export_record,
    step,
)
from engine.events import (
    BidChangeRequired,
    BidMade,
    BidsRevealed,
    CardPlayed,
    GameOver,
    RoundScored,
    RoundStarted,
    TrickWon,
    TrumpChosen,
    TrumpTurned,
    WingsDropped,
    WingsMarked,
)
from engine.randomplay import new_game, play_random_game, random_command

SHORT_GAMES = 1_350
LONG_GAMES = 250
LONG_SERIALIZED_GAMES = 16
ILLEGAL_COMMAND_GAMES = 400
TOTAL_GAMES = SHORT_GAMES + LONG_GAMES + LONG_SERIALIZED_GAMES + ILLEGAL_COMMAND_GAMES
assert TOTAL_GAMES == 2_016

WINGS = 0.1
"""How often the random players mark a card (wings tables only)."""

GAMES_PLAYED: Counter[str] = Counter()
"""Games each property test played in this run (checked by the last test of the module)."""


# --- the rules, written out independently of the engine --------------------------------------

SUITS = "BGRY"
TOURNAMENT = {
    3: (2, 4, 6, 8, 10, 12, 14, 16, 18, 20),
    4: (1, 3, 5, 7, 9, 11, 12, 13, 14, 15),
    5: (2, 4, 5, 6, 7, 8, 9, 10, 11, 12),
}
DECK_COUNTS = Counter([f"{suit}{rank}" for suit in SUITS for rank in range(1, 14)])
DECK_COUNTS.update({"W": 4, "J": 4})
assert sum(DECK_COUNTS.values()) == 60
assert Counter(DECK) == DECK_COUNTS


def suit(card: str) -> str | None:
    return None if card in ("W", "J") else card[0]


def rank(card: str) -> int:
    return int(card[1:])


def lead(cards: Sequence[str]) -> str | None:
    """The suit of the first numbered card, unless a Wizard came first; Jesters leave it open."""
    for card in cards:
        if card == "W":
            return None
        if card != "J":
            return card[0]
    return None


def may_play(card: str, hand: Sequence[str], before: Sequence[str]) -> bool:
    """Whether `card` from `hand` follows suit after the cards `before` it in the trick."""
    led = lead(before)
    if suit(card) is None or led is None or suit(card) == led:
        return True
    return all(suit(other) != led for other in hand)


def winning_index(cards: Sequence[str], trump: str | None) -> int:
    """First Wizard; else highest trump; else highest of the lead suit; else the first Jester."""
    if "W" in cards:
        return cards.index("W")
    for wanted in (trump, lead(cards)):
        ranked = [
            (rank(card), i) for i, card in enumerate(cards) if wanted and suit(card) == wanted
        ]
        if ranked:
            return max(ranked)[1]
    assert all(card == "J" for card in cards)
    return 0


def points(bid: int, won: int) -> int:
    return 20 + 10 * won if bid == won else -10 * abs(bid - won)


def expected_plan(players: int, options: Options) -> tuple[int, ...]:
    if options.rounds is RoundsPlan.TOURNAMENT:
        return TOURNAMENT[players]
    if options.rounds is RoundsPlan.SHORT:
        return (1, 2, 3, 4, 5)
    return tuple(range(1, {3: 20, 4: 15, 5: 12, 6: 10}[players] + 1))


def expected_rules(
    options: Options, number: int, rounds: int, cards: int
) -> tuple[str, bool, bool]:
    """(bid mode, notequal, foresight) of a round, from RULES.md's option table."""
    bids = options.bids
    notequal = (
        options.rounds is RoundsPlan.TOURNAMENT if options.notequal is None else options.notequal
    )
    if options.dmmixed:
        if number <= 6 or number == rounds:
            if bids is BidMode.OPEN:  # a secret table stays secret: still private bids
                bids = BidMode.HIDDEN
        else:
            notequal = True
    return str(bids), notequal, options.foresight and cards == 1


def sub_multiset(small: Counter[str], big: Counter[str]) -> bool:
    return all(count <= big[card] for card, count in small.items())


def flat(hands: Iterable[Iterable[str]]) -> list[str]:
    return [card for hand in hands for card in hand]


# --- events: nothing private in public -------------------------------------------------------

EVENT_TYPES = typing.get_args(engine.Event)
PRIVATE_FIELDS = {"hand", "hands", "dealt", "deck", "marks"}


def field_names(kind: type) -> tuple[str, ...]:
    """The fields of an event type, be it a NamedTuple or a dataclass."""
    if dataclasses.is_dataclass(kind):
        return tuple(field.name for field in dataclasses.fields(kind))
    names = getattr(kind, "_fields", None)
    assert isinstance(names, tuple), kind
    return names


def test_no_event_type_carries_a_hand() -> None:
    assert len(EVENT_TYPES) >= 15
    for kind in EVENT_TYPES:
        names = set(field_names(kind))
        assert not names & PRIVATE_FIELDS, kind
        if kind in (WingsMarked, WingsDropped):
            assert "to" in names, kind
        else:
            assert "to" not in names, kind


def check_event_shape(event: object) -> None:
    assert isinstance(event, EVENT_TYPES)
    for name in field_names(type(event)):
        value = getattr(event, name)
        assert name not in PRIVATE_FIELDS
        if isinstance(value, tuple | list):
            assert not any(isinstance(item, tuple | list) for item in value), event
    if isinstance(event, WingsMarked | WingsDropped):
        assert engine.audience(event) == event.to
    else:
        assert engine.audience(event) is None, event


# --- one game, checked step by step ----------------------------------------------------------


@dataclasses.dataclass
class RoundLog:
    """What the events and states of one round showed, to compare with its result."""

    number: int
    cards: int
    dealer: int
    rules: tuple[str, bool, bool]
    dealt: tuple[tuple[Card, ...], ...] | None = None
    sorted_dealt: list[list[Card]] = dataclasses.field(default_factory=list)
    trump_card: str | None = None
    trump: str | None = None
    started_event: bool = False
    turned: tuple[str | None, str | None] | None = None
    chosen: str | None = None
    bid_events: list[BidMade] = dataclasses.field(default_factory=list)
    revealed: list[tuple[int, ...]] = dataclasses.field(default_factory=list)
    change_required: list[BidChangeRequired] = dataclasses.field(default_factory=list)
    played: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    tricks_won: list[TrickWon] = dataclasses.field(default_factory=list)
    scored: RoundScored | None = None


class GameChecker:
    """Plays `play_random_game(players, options, seed, wings=0.1)` step by step, checking the
    rules after every command. `serialize` picks the states whose JSON round trip is checked."""

    def __init__(
        self, players: int, options: Options, seed: int, serialize: Callable[[GameState], bool]
    ) -> None:
        self.players = players
        self.options = options
        self.seed = seed
        self.serialize = serialize
        self.plan = expected_plan(players, options)
        self.ids = [f"p{seat}" for seat in range(players)]
        self.logs: dict[int, RoundLog] = {}
        self.event_round = 1
        self.game_over: GameOver | None = None
        self.checked_results = 0
        self.states = 0

    def seat(self, player: str) -> int:
        return self.ids.index(player)

    # the game

    def run(self) -> GameState:
        state = new_game(self.players, self.options, self.seed)
        assert state.plan == self.plan
        assert state.phase in (Phase.TRUMP, Phase.BIDDING)
        assert state.round is not None
        assert state.round.number == 1
        self.check_state(state)
        self.logs[1].started_event = True  # new_game keeps the Start events to itself
        rng = random.Random(self.seed)
        while state.phase is not Phase.FINISHED:
            events = step(state, random_command(state, rng, WINGS))
            self.check_events(state, events)
            self.check_state(state)
        self.check_finished(state)
        return state

    # states

    def check_state(self, state: GameState) -> None:
        self.states += 1
        assert state.copy() == state
        if self.serialize(state):
            assert GameState.from_json(state.to_json()) == state
        assert len(state.totals) == self.players
        while self.checked_results < len(state.results):
            self.checked_results += 1
            self.check_result(state, state.results[self.checked_results - 1])
        rnd = state.round
        if rnd is None:
            assert state.phase is Phase.FINISHED
            return
        assert rnd.number == len(state.results) + 1
        log = self.logs.get(rnd.number)
        if log is None or log.dealt is None:
            log = self.begin_round(state)
        n = self.players
        # the deal stays as it was dealt, and every card of it is somewhere
        assert rnd.dealt == log.dealt
        assert rnd.trump_card == log.trump_card
        played: list[list[str]] = [[] for _ in range(n)]
        for trick in rnd.tricks:
            assert len(trick.cards) == n
            for offset, card in enumerate(trick.cards):
                played[(trick.leader + offset) % n].append(card)
        for offset, card in enumerate(rnd.trick):
            played[(rnd.leader + offset) % n].append(card)
        for seat in range(n):  # so hands + current trick + completed tricks == dealt, too
            assert sorted(rnd.hands[seat] + played[seat]) == log.sorted_dealt[seat]
        # trump
        if state.phase is Phase.TRUMP:
            assert rnd.trump_card == WIZARD
            assert rnd.trump is None
            assert rnd.turn == rnd.dealer
        elif rnd.trump_card == WIZARD:
            assert rnd.trump in set(Suit)
            assert log.trump in (None, rnd.trump)
            log.trump = rnd.trump
        else:
            assert rnd.trump == log.trump
        # bids
        assert len(rnd.bids) == n
        assert all(bid is None or 0 <= bid <= rnd.cards for bid in rnd.bids)
        if state.phase is not Phase.PLAYING:
            assert not rnd.tricks
            assert not rnd.trick
            return
        bids = [bid for bid in rnd.bids if bid is not None]
        assert len(bids) == n
        if log.rules[1]:
            assert sum(bids) != rnd.cards
        # tricks so far
        assert len(rnd.trick) < n
        assert len(rnd.tricks) < rnd.cards
        leader = (rnd.dealer + 1) % n
        won = [0] * n
        for trick in rnd.tricks:
            assert trick.leader == leader
            leader = trick.winner
            won[leader] += 1
        assert rnd.leader == leader
        assert rnd.turn == (rnd.leader + len(rnd.trick)) % n
        assert rnd.won == won

    def begin_round(self, state: GameState) -> RoundLog:
        rnd = state.round
        assert rnd is not None
        n = self.players
        number = rnd.number
        cards = self.plan[number - 1]
        assert rnd.cards == cards
        assert rnd.dealer == (state.first_dealer + number - 1) % n
        rules = expected_rules(self.options, number, len(self.plan), cards)
        assert (str(rnd.rules.bids), rnd.rules.notequal, rnd.rules.foresight) == rules
        log = self.logs.setdefault(number, RoundLog(number, cards, rnd.dealer, rules))
        assert (log.cards, log.dealer, log.rules) == (cards, rnd.dealer, rules)
        # the deal: n hands of `cards` cards; with the trump card, part of one deck
        assert len(rnd.dealt) == n
        assert all(len(hand) == cards for hand in rnd.dealt)
        turned = [] if rnd.trump_card is None else [rnd.trump_card]
        assert sub_multiset(Counter(flat(rnd.dealt) + turned), DECK_COUNTS)
        assert (rnd.trump_card is None) == (n * cards == 60)
        if rnd.trump_card is None or rnd.trump_card == JESTER:
            expected_trump = None
        elif rnd.trump_card == WIZARD:
            expected_trump = rnd.trump  # checked once the dealer has chosen
            assert state.phase is Phase.TRUMP
        else:
            expected_trump = rnd.trump_card[0]
        assert rnd.trump == expected_trump
        assert state.phase is (Phase.TRUMP if rnd.trump_card == WIZARD else Phase.BIDDING)
        log.dealt = rnd.dealt
        log.sorted_dealt = [sorted(hand) for hand in rnd.dealt]
        log.trump_card = rnd.trump_card
        log.trump = expected_trump
        return log

    # events

    def check_events(self, state: GameState, events: list[engine.Event]) -> None:
        assert events
        for event in events:
            check_event_shape(event)
            if isinstance(event, RoundStarted):
                assert event.round == self.event_round + 1
                self.event_round = event.round
                cards = self.plan[event.round - 1]
                dealer = (state.first_dealer + event.round - 1) % self.players
                rules = expected_rules(self.options, event.round, len(self.plan), cards)
                assert (event.cards, event.dealer) == (cards, dealer)
                assert (str(event.bids), event.notequal, event.foresight) == rules
                assert event.round not in self.logs
                log = RoundLog(event.round, cards, dealer, rules, started_event=True)
                self.logs[event.round] = log
                continue
            log = self.logs[self.event_round]
            if isinstance(event, TrumpTurned):
                assert log.turned is None
                log.turned = (event.card, event.trump)
            elif isinstance(event, TrumpChosen):
                assert log.chosen is None
                assert self.seat(event.player) == log.dealer
                log.chosen = event.suit
            elif isinstance(event, BidMade):
                self.check_bid_event(log, event)
            elif isinstance(event, BidsRevealed):
                log.revealed.append(event.bids)
            elif isinstance(event, BidChangeRequired):
                log.change_required.append(event)
            elif isinstance(event, CardPlayed):
                log.played.append((event.player, event.card))
            elif isinstance(event, TrickWon):
                log.tricks_won.append(event)
            elif isinstance(event, RoundScored):
                assert event.round == self.event_round
                log.scored = event
            elif isinstance(event, GameOver):
                self.game_over = event

    def check_bid_event(self, log: RoundLog, event: BidMade) -> None:
        mode = log.rules[0]
        assert log.scored is None
        if mode == BidMode.OPEN:
            assert isinstance(event.bid, int)
            assert not event.changed
        elif mode == BidMode.SECRET:
            assert event.bid is None
        elif not log.revealed:  # hidden, not yet revealed
            assert event.bid is None
            assert not event.changed
        else:  # hidden, after the reveal: the dealer's changed bid is public
            assert event.changed
            assert self.seat(event.player) == log.dealer
            assert isinstance(event.bid, int)
        log.bid_events.append(event)

    # a finished round, against the rules written out above

    def check_result(self, state: GameState, result: RoundResult) -> None:
        n = self.players
        number = result.number
        log = self.logs[number]
        assert log.started_event
        assert log.dealt is not None, "every round is seen while it is played"
        assert (result.cards, result.dealer) == (log.cards, log.dealer)
        assert result.hands == log.dealt
        assert result.trump_card == log.trump_card
        assert result.trump == log.trump
        if number > 1:  # new_game keeps round 1's TrumpTurned to itself
            turned_trump = None if log.trump_card == WIZARD else log.trump
            assert log.turned == (result.trump_card, turned_trump)
        assert log.chosen == (log.trump if log.trump_card == WIZARD else None)
        cards = result.cards
        # bids
        assert len(result.bids) == n
        assert all(0 <= bid <= cards for bid in result.bids)
        if log.rules[1]:
            assert sum(result.bids) != cards, "notequal: the bids may not add up to the tricks"
        self.check_round_bids(log, result)
        # tricks: one card per player, right leader, legal cards, right winner
        hands = [list(hand) for hand in result.hands]
        assert len(result.tricks) == cards
        leader = (result.dealer + 1) % n
        won = [0] * n
        for trick in result.tricks:
            assert trick.leader == leader
            assert len(trick.cards) == n
            for offset, card in enumerate(trick.cards):
                hand = hands[(leader + offset) % n]
                assert card in hand
                assert may_play(card, hand, trick.cards[:offset]), (trick, hand)
                hand.remove(card)
            winner = (leader + winning_index(trick.cards, result.trump)) % n
            assert trick.winner == winner
            won[winner] += 1
            leader = winner
        assert hands == [[] for _ in range(n)]
        assert list(result.won) == won
        assert sum(result.won) == cards
        # the events told the same story
        assert [card for _, card in log.played] == flat(t.cards for t in result.tricks)
        seats = [self.seat(player) for player, _ in log.played]
        assert seats == [(t.leader + i) % n for t in result.tricks for i in range(n)]
        assert [(e.trick, e.cards, self.seat(e.player)) for e in log.tricks_won] == [
            (i, t.cards, t.winner) for i, t in enumerate(result.tricks, start=1)
        ]
        # scores: the formula, and totals as running sums
        assert list(result.points) == [points(b, w) for b, w in zip(result.bids, won, strict=True)]
        before = state.results[number - 2].totals if number > 1 else (0,) * n
        assert list(result.totals) == [t + p for t, p in zip(before, result.points, strict=True)]
        assert log.scored == RoundScored(
            number, result.bids, result.won, result.points, result.totals
        )

    def check_round_bids(self, log: RoundLog, result: RoundResult) -> None:
        n = self.players
        mode = log.rules[0]
        bidders = [self.seat(event.player) for event in log.bid_events if not event.changed]
        assert sorted(bidders) == list(range(n))
        if mode == BidMode.OPEN:
            assert bidders == [(log.dealer + 1 + i) % n for i in range(n)]
            assert [event.bid for event in log.bid_events] == [result.bids[s] for s in bidders]
            assert not log.revealed
            assert not log.change_required
        elif mode == BidMode.SECRET:
            assert log.revealed == [result.bids]
            assert not log.change_required
            if log.rules[1]:
                assert bidders[-1] == log.dealer
        else:
            assert len(log.revealed) == 1
            shown = log.revealed[0]
            changed = [event for event in log.bid_events if event.changed]
            if log.change_required:
                assert log.rules[1]
                assert sum(shown) == result.cards
                (required,) = log.change_required
                assert self.seat(required.player) == log.dealer
                assert required.forbidden == shown[log.dealer]
                assert [event.bid for event in changed] == [result.bids[log.dealer]]
                assert result.bids[log.dealer] != shown[log.dealer]
                others = [seat for seat in range(n) if seat != log.dealer]
                assert [shown[s] for s in others] == [result.bids[s] for s in others]
            else:
                assert not changed
                assert shown == result.bids

    # the end of the game, and its record

    def check_finished(self, state: GameState) -> None:
        n = self.players
        assert state.round is None
        assert len(state.results) == len(self.plan) == self.checked_results
        assert [result.number for result in state.results] == list(range(1, len(self.plan) + 1))
        assert list(state.results[-1].totals) == state.totals
        sums = [sum(r.points[seat] for r in state.results) for seat in range(n)]
        assert state.totals == sums
        assert self.game_over is not None
        assert list(self.game_over.totals) == state.totals
        assert list(self.game_over.places) == [
            1 + sum(other > total for other in state.totals) for total in state.totals
        ]
        assert GameState.from_json(state.to_json()) == state
        check_game_record(state)


def check_game_record(state: GameState) -> None:
    """The exported record has the documented shape, survives JSON and replays to the game."""
    record = export_record(state)
    assert record["format"] == "wizard-record/1"
    assert record["players"] == [player.name for player in state.players]
    assert record["first_dealer"] == state.first_dealer
    assert record["totals"] == state.totals
    options = record["options"]
    for key in ("notequal", "dmmixed", "foresight"):
        assert isinstance(options[key], bool)
    assert options["notequal"] == state.options.notequal_on
    assert options["bids"] == str(state.options.bids)
    assert options["rounds"] == str(state.options.rounds)
    assert len(record["rounds"]) == len(state.results)
    for raw, result in zip(record["rounds"], state.results, strict=True):
        assert raw["number"] == result.number
        assert raw["cards"] == result.cards
        assert raw["dealer"] == result.dealer
        assert raw["hands"] == [list(hand) for hand in result.hands]
        assert raw["trump_card"] == result.trump_card
        assert raw["trump"] == result.trump
        assert raw["bids"] == list(result.bids)
        assert raw["tricks"] == [
            {"leader": t.leader, "cards": list(t.cards), "winner": t.winner} for t in result.tricks
        ]
        assert raw["won"] == list(result.won)
        assert raw["points"] == list(result.points)
    loaded = json.loads(json.dumps(record))
    assert loaded == record
    replayed = check_record(loaded)
    assert replayed.phase is Phase.FINISHED
    assert replayed.results == state.results
    assert replayed.totals == state.totals
    assert [player.name for player in replayed.players] == record["players"]


# --- strategies ------------------------------------------------------------------------------

PLAYERS = st.integers(3, 6)
SEEDS = st.integers(0, 2**63 - 1)


SHORT_TABLES = st.tuples(PLAYERS, options_with(RoundsPlan.SHORT))
LONG_TABLES = st.sampled_from(
    [
        (players, rounds)
        for players in range(3, 7)
        for rounds in (RoundsPlan.STANDARD, RoundsPlan.TOURNAMENT)
        if not (players == 6 and rounds is RoundsPlan.TOURNAMENT)
    ]
).flatmap(lambda table: st.tuples(st.just(table[0]), options_with(table[1])))


def every_state(state: GameState) -> bool:
    return True


@examples(SHORT_GAMES)
@given(table=SHORT_TABLES, seed=SEEDS)
def test_short_games_keep_every_rule(table: tuple[int, Options], seed: int) -> None:
    players, options = table
    GAMES_PLAYED["short"] += 1
    final = GameChecker(players, options, seed, every_state).run()
    assert len(final.results) == 5


@examples(LONG_GAMES)
@given(table=LONG_TABLES, seed=SEEDS, serialized_round=st.integers(1, 20))
def test_long_games_keep_every_rule(
    table: tuple[int, Options], seed: int, serialized_round: int
) -> None:
    players, options = table
    GAMES_PLAYED["long"] += 1
    plan = expected_plan(players, options)
    watched = min(serialized_round, len(plan))

    def serialize(state: GameState) -> bool:
        """Every state of the watched round, and each round's first state and the last."""
        rnd = state.round
        return rnd is None or rnd.number == watched or rnd.bids.count(None) == players

    final = GameChecker(players, options, seed, serialize).run()
    assert len(final.results) == len(plan)


@examples(LONG_SERIALIZED_GAMES)
@given(table=LONG_TABLES, seed=SEEDS)
def test_every_state_of_long_games_serializes(table: tuple[int, Options], seed: int) -> None:
    players, options = table
    GAMES_PLAYED["long_serialized"] += 1
    checker = GameChecker(players, options, seed, every_state)
    final = checker.run()
    assert checker.states > sum(final.plan) * players


@pytest.mark.parametrize("bids", list(BidMode))
@pytest.mark.parametrize("notequal", [None, True, False])
def test_tournament_rounds_are_unavailable_to_six_players(
    bids: BidMode, notequal: bool | None
) -> None:
    options = Options(notequal=notequal, bids=bids, rounds=RoundsPlan.TOURNAMENT)
    with pytest.raises(RuleError) as error:
        engine.hand_sizes(options, 6)
    assert error.value.code is ErrorCode.OPTION_UNAVAILABLE
    with pytest.raises(RuleError) as error:
        new_game(6, options, seed=1)
    assert error.value.code is ErrorCode.OPTION_UNAVAILABLE
    state = GameState()
    for seat in range(6):
        step(state, Join(f"p{seat}", f"P{seat}"))
    step(state, SetOptions(options))
    before = state.to_json()
    with pytest.raises(RuleError) as error:
        step(state, Start(seed=1))
    assert error.value.code is ErrorCode.OPTION_UNAVAILABLE
    assert state.to_json() == before
    assert state.phase is Phase.LOBBY


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_checker_plays_the_same_game_as_play_random_game(players: int) -> None:
    options = Options(bids=BidMode.HIDDEN, notequal=True, rounds=RoundsPlan.SHORT, wings=True)
    final, _ = play_random_game(players, options, seed=7, wings=WINGS)
    assert GameChecker(players, options, 7, every_state).run() == final


# --- illegal commands change nothing ---------------------------------------------------------

ALL_CARDS = sorted(DECK_COUNTS)


def illegal_commands(state: GameState, rng: random.Random) -> list[tuple[Command, set[ErrorCode]]]:
    """Commands that break exactly one rule now, each with the error codes that fit it."""
    rnd = state.round
    assert rnd is not None
    n = len(state.players)
    ids = [player.id for player in state.players]
    anyone = rng.choice(ids)
    out: list[tuple[Command, set[ErrorCode]]] = [
        (Join("late", "Late"), {ErrorCode.GAME_STARTED}),
        (Start(seed=1), {ErrorCode.GAME_STARTED}),
        (Bid("stranger", 0), {ErrorCode.UNKNOWN_PLAYER, ErrorCode.WRONG_PHASE}),
        (Play("stranger", WIZARD), {ErrorCode.UNKNOWN_PLAYER, ErrorCode.WRONG_PHASE}),
    ]
    wrong_phase = {ErrorCode.WRONG_PHASE}
    if not state.options.wings:
        out.append((MarkWings(anyone, WIZARD), {ErrorCode.OPTION_OFF}))
    if state.phase is not Phase.TRUMP:
        out.append((ChooseTrump(ids[rnd.dealer], rng.choice(list(Suit))), wrong_phase))
    if state.phase is Phase.TRUMP:
        others = [seat for seat in range(n) if seat != rnd.dealer]
        out.append((ChooseTrump(ids[rng.choice(others)], Suit.RED), {ErrorCode.NOT_DEALER}))
        out.append((ChooseTrump(ids[rnd.dealer], "X"), {ErrorCode.BAD_SUIT}))  # type: ignore[arg-type]
        out.append((Bid(anyone, 0), wrong_phase))
        out.append((Play(anyone, rnd.hands[ids.index(anyone)][0]), wrong_phase))
    elif state.phase is Phase.BIDDING:
        out.extend(illegal_bids(state, rng))
        out.append((Play(anyone, rnd.hands[ids.index(anyone)][0]), wrong_phase))
    elif state.phase is Phase.PLAYING:
        out.extend(illegal_plays(state, rng))
        out.append((Bid(anyone, 0), wrong_phase))
    return out


def bid_order_seats(state: GameState) -> tuple[list[int], list[int]]:
    """(seats that may bid now, seats that may not), from the rules."""
    rnd = state.round
    assert rnd is not None
    n = len(state.players)
    if rnd.rebid:
        allowed = [rnd.dealer]
    elif rnd.rules.bids is BidMode.OPEN:
        made = sum(bid is not None for bid in rnd.bids)
        allowed = [(rnd.dealer + 1 + made) % n]
    else:
        allowed = [seat for seat in range(n) if rnd.bids[seat] is None]
        if rnd.rules.bids is BidMode.SECRET and rnd.rules.notequal and len(allowed) > 1:
            allowed.remove(rnd.dealer)  # the dealer bids last
    return allowed, [seat for seat in range(n) if seat not in allowed]


def illegal_bids(state: GameState, rng: random.Random) -> list[tuple[Command, set[ErrorCode]]]:
    rnd = state.round
    assert rnd is not None
    ids = [player.id for player in state.players]
    allowed, barred = bid_order_seats(state)
    assert allowed
    for seat in range(len(ids)):
        assert bool(engine.legal_bids(state, seat)) == (seat in allowed)
    seat = rng.choice(allowed)
    out: list[tuple[Command, set[ErrorCode]]] = [
        (
            Bid(ids[seat], rng.choice([-1, rnd.cards + 1, rnd.cards + 7, -50])),
            {ErrorCode.BID_OUT_OF_RANGE},
        ),
    ]
    if barred:
        out.append(
            (
                Bid(ids[rng.choice(barred)], rng.randrange(rnd.cards + 1)),
                {ErrorCode.NOT_YOUR_TURN, ErrorCode.ALREADY_BID},
            )
        )
    legal = engine.legal_bids(state, seat)
    forbidden = [bid for bid in range(rnd.cards + 1) if bid not in legal]
    expected: list[int] = []
    hidden_first_bid = rnd.rules.bids is BidMode.HIDDEN and not rnd.rebid
    if rnd.rules.notequal and seat == rnd.dealer and not hidden_first_bid:
        others = [bid for other, bid in enumerate(rnd.bids) if other != seat]
        # the dealer bids last, so every other bid is in
        assert all(bid is not None for bid in others)
        rest = rnd.cards - sum(bid or 0 for bid in others)
        if rest >= 0:
            expected = [rest]
    assert forbidden == expected
    out.extend((Bid(ids[seat], bid), {ErrorCode.BID_FORBIDDEN}) for bid in forbidden)
    return out


def illegal_plays(state: GameState, rng: random.Random) -> list[tuple[Command, set[ErrorCode]]]:
    rnd = state.round
    assert rnd is not None
    n = len(state.players)
    ids = [player.id for player in state.players]
    turn = rnd.turn
    hand = rnd.hands[turn]
    holding = [seat for seat in range(n) if seat != turn and rnd.hands[seat]]
    absent = [card for card in ALL_CARDS if card not in hand]
    out: list[tuple[Command, set[ErrorCode]]] = [
        (Play(ids[turn], Card(rng.choice(absent))), {ErrorCode.CARD_NOT_IN_HAND}),
        (Play(ids[turn], Card("X9")), {ErrorCode.UNKNOWN_CARD}),
    ]
    for other in holding:
        out.append((Play(ids[other], rng.choice(rnd.hands[other])), {ErrorCode.NOT_YOUR_TURN}))
    revokes = [card for card in hand if not may_play(card, hand, rnd.trick)]
    assert set(engine.legal_plays(state, turn)) == set(hand) - set(revokes)
    if revokes:
        out.append((Play(ids[turn], rng.choice(revokes)), {ErrorCode.MUST_FOLLOW_SUIT}))
    if not rnd.rules.foresight:
        out.append((Play(ids[turn], None), {ErrorCode.UNKNOWN_CARD}))
    if state.options.wings and rnd.rules.foresight:
        # nobody sees their own card: nobody can mark it
        out.append((MarkWings(ids[turn], hand[0]), {ErrorCode.CARD_NOT_VISIBLE}))
        out.extend(
            (MarkWings(ids[other], rnd.hands[other][0]), {ErrorCode.CARD_NOT_VISIBLE})
            for other in holding
        )
    elif state.options.wings:
        absent_card = Card(rng.choice(absent))
        out.append((MarkWings(ids[turn], absent_card), {ErrorCode.CARD_NOT_IN_HAND}))
        if revokes:
            out.append((MarkWings(ids[turn], rng.choice(revokes)), {ErrorCode.MUST_FOLLOW_SUIT}))
    return out


def assert_refused(
    state: GameState, command: Command, codes: set[ErrorCode], before: GameState
) -> None:
    with pytest.raises(RuleError) as error:
        step(state, command)
    assert error.value.code in codes, (command, error.value)
    assert state == before, command


@examples(ILLEGAL_COMMAND_GAMES)
@given(table=SHORT_TABLES, seed=SEEDS, tries=st.integers(1, 3))
def test_illegal_commands_raise_and_change_nothing(
    table: tuple[int, Options], seed: int, tries: int
) -> None:
    players, options = table
    GAMES_PLAYED["illegal"] += 1
    state = new_game(players, options, seed)
    rng = random.Random(seed)
    checked = 0
    while state.phase is not Phase.FINISHED:
        text = state.to_json()
        before = state.copy()
        candidates = illegal_commands(state, rng)
        for command, codes in rng.sample(candidates, min(tries, len(candidates))):
            assert_refused(state, command, codes, before)
            checked += 1
        assert state.to_json() == text
        step(state, random_command(state, rng, WINGS))
    text = state.to_json()
    before = state.copy()
    for command in (Bid("p0", 0), Play("p0", DECK[0]), ChooseTrump("p0", Suit.RED)):
        assert_refused(state, command, {ErrorCode.GAME_OVER}, before)
    assert_refused(state, Join("late", "Late"), {ErrorCode.GAME_OVER}, before)
    assert state.to_json() == text
    assert checked >= len(state.plan) * players  # at least one try before every bid


def test_games_played_match_the_stated_total() -> None:
    """Each property test that ran played exactly its stated number of games."""
    stated = {
        "short": SHORT_GAMES,
        "long": LONG_GAMES,
        "long_serialized": LONG_SERIALIZED_GAMES,
        "illegal": ILLEGAL_COMMAND_GAMES,
    }
    for name, count in GAMES_PLAYED.items():
        assert count == stated[name], name
    if set(GAMES_PLAYED) == set(stated):
        assert sum(GAMES_PLAYED.values()) == TOTAL_GAMES
        print(f"test_properties played {TOTAL_GAMES} random games")
