"""The checks (engine.verify, engine.can and the per-move ones) say exactly what step does, and
the move lists (legal_bids, legal_plays, forbidden_bid) are the moves the checks allow."""

import random
from collections.abc import Callable, Iterator

import pytest
from conftest import examples, options_with
from hypothesis import given
from hypothesis import strategies as st

import engine
from engine import (
    DECK,
    WIZARD,
    Bid,
    BidMode,
    Card,
    ChooseTrump,
    Deal,
    ErrorCode,
    GameState,
    Join,
    Leave,
    MarkWings,
    Options,
    Phase,
    Play,
    RoundsPlan,
    RuleError,
    SetOptions,
    Start,
    Suit,
    can,
    forbidden_bid,
    legal_bids,
    legal_plays,
    player_view,
    step,
    table_view,
    verify,
)
from engine.randomplay import new_game, random_command

SHORT_GAMES = 100
LONG_GAMES = 6
LOBBIES = 200
TRIES = 25
"""Commands besides the random player's tried in each state of a game, drawn from a few hundred."""
WINGS = 0.1

ALL_CARDS = sorted(set(DECK))
Outcome = tuple[ErrorCode, str] | None
"""What a command meets: None when accepted, else the error's code and message."""


def outcome(run: Callable[[], object]) -> Outcome:
    try:
        run()
    except RuleError as error:
        return error.code, error.message
    return None


class Trial:
    """Runs commands through `step` on a copy of a state, making a new copy once one is
    accepted (a refused command leaves its copy as it was)."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.copy = state.copy()

    def step(self, command: object) -> Outcome:
        result = outcome(lambda: step(self.copy, command))  # type: ignore[arg-type]
        if result is None:
            self.copy = self.state.copy()
        return result


def check_commands(state: GameState, commands: list[object]) -> None:
    """For each command: verify raises what step raises, can says whether step accepts it,
    and neither changes the state."""
    before = state.copy()
    trial = Trial(state)
    for command in commands:
        stepped = trial.step(command)
        verified = outcome(lambda command=command: verify(state, command))  # type: ignore[misc]
        assert verified == stepped, command
        assert can(state, command) is (stepped is None), command  # type: ignore[arg-type]
        if isinstance(command, tuple) and command.__class__ in PER_MOVE:
            assert PER_MOVE[command.__class__](state, *command) is (stepped is None), command
    assert state == before


PER_MOVE: dict[type, Callable[..., bool]] = {
    Join: engine.can_join,
    Leave: engine.can_leave,
    SetOptions: engine.can_set_options,
    Start: engine.can_start,
    ChooseTrump: engine.can_trump,
    Bid: engine.can_bid,
    Play: engine.can_play,
    MarkWings: engine.can_mark,
}


# --- in a game: every command random play makes, and many it does not -----------------------


def round_commands(state: GameState, rng: random.Random) -> Iterator[object]:
    """A range of commands, legal and not, for a state in a round or after the game."""
    ids = [player.id for player in state.players]
    rnd = state.round
    cards = rnd.cards if rnd is not None else 3
    yield from (Join("late", "Late"), Leave(ids[0]), Start(seed=1), SetOptions(Options()))
    yield "not a command"
    yield Bid("stranger", 0)
    yield Play("stranger", WIZARD)
    yield ChooseTrump("stranger", Suit.RED)
    yield MarkWings("stranger", None)
    for seat, player in enumerate(ids):
        for bid in range(-1, cards + 2):
            yield Bid(player, bid)
        yield Bid(player, True)  # a bool is no bid
        yield ChooseTrump(player, rng.choice(list(Suit)))
        yield ChooseTrump(player, "X")  # type: ignore[arg-type]
        hand = rnd.hands[seat] if rnd is not None else []
        if rnd is not None and seat == rnd.turn and state.phase is Phase.PLAYING:
            tried = ALL_CARDS  # every card for the player to act
        else:
            tried = [*set(hand), rng.choice(ALL_CARDS)]
        for card in tried:
            yield Play(player, Card(card))
        yield Play(player, None)
        yield Play(player, Card("X9"))
        yield MarkWings(player, None)
        yield MarkWings(player, Card("X9"))
        yield MarkWings(player, Card(rng.choice(ALL_CARDS)))
        for card in set(hand):
            yield MarkWings(player, card)


def check_move_lists(state: GameState) -> None:
    """legal_bids, forbidden_bid and legal_plays are the moves `can` allows."""
    rnd = state.round
    cards = rnd.cards if rnd is not None else 3
    for seat, player in enumerate(state.players):
        bids = legal_bids(state, seat)
        assert bids == [bid for bid in range(cards + 1) if can(state, Bid(player.id, bid))]
        left_out = [bid for bid in range(cards + 1) if bid not in bids]
        if bids and left_out:
            assert left_out == [forbidden_bid(state, seat)]
        else:
            assert forbidden_bid(state, seat) is None
        plays = legal_plays(state, seat)
        assert len(plays) == len(set(plays))
        hand = rnd.hands[seat] if rnd is not None else []
        allowed = {card for card in set(hand) if can(state, Play(player.id, card))}
        assert set(plays) == allowed
        if rnd is not None and rnd.rules.foresight:
            assert can(state, Play(player.id, None)) is bool(plays)


def check_views(state: GameState) -> None:
    """The views' forbidden bids are the bids legal_bids leaves out, and the open bids those of
    the player to act in open bidding."""
    rnd = state.round
    cards = rnd.cards if rnd is not None else 0
    table = table_view(state)
    public = None  # the bid the dealer may not make, once the bids are public
    if rnd is not None and rnd.revealed and rnd.turn == rnd.dealer:
        dealers = legal_bids(state, rnd.dealer)
        missing = set(range(cards + 1)) - set(dealers)
        if dealers and missing:
            public = missing.pop()
    assert table.forbidden_bid == public
    if state.phase is Phase.BIDDING and rnd is not None and rnd.rules.bids is BidMode.OPEN:
        assert table.open_bids == tuple(legal_bids(state, rnd.turn))
        assert table.open_bids
    else:
        assert table.open_bids == ()
    for seat in range(len(state.players)):
        view = player_view(state, seat, table)
        missing = [bid for bid in range(cards + 1) if bid not in view.legal_bids]
        if view.legal_bids and missing:
            assert [view.forbidden_bid] == missing
        else:
            assert view.forbidden_bid is None


def check_game(players: int, options: Options, seed: int) -> None:
    state = new_game(players, options, seed)
    rng = random.Random(seed)
    others = random.Random(-seed)
    while state.phase is not Phase.FINISHED:
        command = random_command(state, rng, WINGS)
        tried = list(round_commands(state, others))
        check_commands(state, [command, *others.sample(tried, min(TRIES, len(tried)))])
        check_move_lists(state)
        check_views(state)
        assert can(state, command)
        step(state, command)
    check_commands(state, list(round_commands(state, others)))
    check_move_lists(state)
    check_views(state)


SEEDS = st.integers(0, 2**63 - 1)


@examples(SHORT_GAMES)
@given(players=st.integers(3, 6), options=options_with(RoundsPlan.SHORT), seed=SEEDS)
def test_checks_agree_with_step_in_short_games(players: int, options: Options, seed: int) -> None:
    check_game(players, options, seed)


@examples(LONG_GAMES)
@given(players=st.integers(3, 5), options=options_with(RoundsPlan.TOURNAMENT), seed=SEEDS)
def test_checks_agree_with_step_in_tournament_games(
    players: int, options: Options, seed: int
) -> None:
    check_game(players, options, seed)


# --- in the lobby ----------------------------------------------------------------------------


def lobby_commands(state: GameState, rng: random.Random) -> list[object]:
    ids = [player.id for player in state.players]
    plan = (1, 2, 3, 4, 5)
    out: list[object] = [
        Join(f"p{rng.randrange(8)}", rng.choice(["Ann", " Bob ", "", "   ", "x" * 80])),
        Join("", "Nobody"),
        Join(7, "Seven"),  # type: ignore[arg-type]
        Join("q", 7),  # type: ignore[arg-type]
        Leave(rng.choice([*ids, "stranger"])),
        SetOptions(Options(rounds=RoundsPlan.SHORT)),
        SetOptions(Options(rounds=RoundsPlan.TOURNAMENT, bids=BidMode.HIDDEN)),
        SetOptions(Options(notequal="off")),  # type: ignore[arg-type]
        SetOptions(Options(notequal="maybe")),  # type: ignore[arg-type]
        SetOptions("short"),  # type: ignore[arg-type]
        Start(seed=rng.randrange(100)),
        Start(seed="1"),  # type: ignore[arg-type]
        Start(seed=1, first_dealer=rng.choice([-1, 0, 2, 5, 6, None])),
        Start(seed=1, first_dealer=True),
        Bid(rng.choice([*ids, "stranger"]), 0),
        Play(rng.choice([*ids, "stranger"]), WIZARD),
        ChooseTrump(rng.choice([*ids, "stranger"]), Suit.RED),
        MarkWings(rng.choice([*ids, "stranger"]), None),
    ]
    players = len(ids)
    if state.options.rounds is RoundsPlan.SHORT and players >= 3:
        deck = list(DECK)
        rng.shuffle(deck)
        deals = []
        for cards in plan:
            hands = tuple(tuple(deck[seat * cards : (seat + 1) * cards]) for seat in range(players))
            deals.append(Deal(hands, deck[-1]))
        out.append(Start(seed=1, first_dealer=0, deals=tuple(deals)))
        out.append(Start(seed=1, deals=tuple(deals[:-1])))
        broken = Deal(deals[0].hands, None)
        out.append(Start(seed=1, deals=(broken, *deals[1:])))
        twice = Deal(((deals[0].hands[1][0],), *deals[0].hands[1:]), deck[-1])
        out.append(Start(seed=1, deals=(twice, *deals[1:])))
    return out


@examples(LOBBIES)
@given(
    seed=SEEDS,
    players=st.integers(0, 6),
    options=st.sampled_from(list(RoundsPlan)).flatmap(options_with),
    moves=st.integers(1, 4),
)
def test_checks_agree_with_step_in_the_lobby(
    seed: int, players: int, options: Options, moves: int
) -> None:
    rng = random.Random(seed)
    state = GameState()
    for seat in range(players):
        step(state, Join(f"p{seat}", f"P{seat}"))
    step(state, SetOptions(options))
    for _ in range(moves):
        commands = lobby_commands(state, rng)
        check_commands(state, commands)
        check_move_lists(state)
        accepted = [command for command in commands if can(state, command)]  # type: ignore[arg-type]
        if not accepted:
            break
        step(state, rng.choice(accepted))  # type: ignore[arg-type]


# --- a few by hand ---------------------------------------------------------------------------


def test_verify_raises_what_step_raises_and_changes_nothing() -> None:
    state = new_game(3, Options(rounds=RoundsPlan.SHORT), seed=1)
    assert state.round is not None
    before = state.copy()
    with pytest.raises(RuleError) as error:
        verify(state, Play("p0", WIZARD))
    assert error.value.code is ErrorCode.WRONG_PHASE
    with pytest.raises(RuleError) as error:
        verify(state, "nonsense")  # type: ignore[arg-type]
    assert error.value.code is ErrorCode.BAD_COMMAND
    assert not can(state, "nonsense")  # type: ignore[arg-type]
    assert state == before


def test_the_per_move_checks_return_what_the_move_needs() -> None:
    state = GameState()
    assert engine.verify_join(state, "p0", "  Ann  ") == "Ann"
    for seat in range(3):
        step(state, Join(f"p{seat}", f"P{seat}"))
    assert engine.verify_leave(state, "p2") == 2
    assert engine.verify_options(state, Options(notequal="on")) == Options(notequal=True)  # type: ignore[arg-type]
    assert engine.verify_start(state, 5, first_dealer=1) == 1
    step(state, SetOptions(Options(rounds=RoundsPlan.SHORT, foresight=True)))
    step(state, Start(seed=5, first_dealer=2))
    rnd = state.round
    assert rnd is not None
    if state.phase is Phase.TRUMP:
        step(state, ChooseTrump("p2", Suit.RED))
    bidder = rnd.turn
    assert engine.verify_bid(state, f"p{bidder}", 0) == bidder
    while state.phase is Phase.BIDDING:
        step(state, Bid(f"p{rnd.turn}", 0))
    # foresight, one card each: Play(None) plays the card one cannot see
    assert engine.verify_play(state, f"p{rnd.turn}", None) == rnd.hands[rnd.turn][0]
    assert engine.can_play(state, f"p{rnd.turn}", None)
    assert not engine.can_bid(state, f"p{rnd.turn}", 0)
