"""Every table option: notequal, bids, rounds, dmmixed, foresight and wings, on scripted deals."""

import pytest
from conftest import (
    SHORT,
    advance,
    bid_all,
    deal,
    finish,
    lobby,
    of_type,
    pid,
    play,
    refuse,
    start,
    typed,
)

import engine
from engine import (
    Bid,
    BidMode,
    ErrorCode,
    GameState,
    MarkWings,
    Options,
    Phase,
    Play,
    RoundsPlan,
    RuleError,
    SetOptions,
    Start,
    audience,
    hand_sizes,
    parse_option,
)
from engine.events import (
    BidMade,
    CardPlayed,
    GameOver,
    GameStarted,
    OptionsChanged,
    PlayStarted,
    RoundStarted,
    TrickWon,
    WingsDropped,
    WingsMarked,
)
from engine.options import round_rules

# --- options as data -------------------------------------------------------------------------


def test_default_options_are_the_standard_game() -> None:
    options = Options()
    assert options.notequal_on is False
    assert options.bids is BidMode.OPEN
    assert options.rounds is RoundsPlan.STANDARD
    assert not options.dmmixed
    assert not options.foresight
    assert not options.wings
    assert options.describe() == "standard"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("notequal", Options(notequal=True)),
        ("notequal=off", Options(notequal=False)),
        ("bids=hidden", Options(bids=BidMode.HIDDEN)),
        ("bids=SECRET", Options(bids=BidMode.SECRET)),
        ("bids=open", Options(bids=BidMode.OPEN)),
        ("rounds=short", Options(rounds=RoundsPlan.SHORT)),
        ("rounds=tournament", Options(rounds=RoundsPlan.TOURNAMENT)),
        ("rounds=standard", Options(rounds=RoundsPlan.STANDARD)),
        ("dmmixed", Options(dmmixed=True)),
        ("foresight=yes", Options(foresight=True)),
        ("wings=on", Options(wings=True)),
        ("wings=0", Options(wings=False)),
    ],
)
def test_parse_option(text: str, expected: Options) -> None:
    assert parse_option(Options(), text) == expected


@pytest.mark.parametrize("text", ["colour=red", "bids=loud", "rounds=long", "wings=maybe", "=on"])
def test_bad_options_are_refused(text: str) -> None:
    with pytest.raises(RuleError) as info:
        parse_option(Options(), text)
    assert info.value.code is ErrorCode.BAD_OPTION


def test_options_round_trip_through_plain_data() -> None:
    options = Options(
        notequal=True,
        bids=BidMode.SECRET,
        rounds=RoundsPlan.TOURNAMENT,
        dmmixed=True,
        foresight=True,
        wings=True,
    )
    data = options.to_dict()
    assert data == {
        "notequal": True,
        "bids": "secret",
        "rounds": "tournament",
        "dmmixed": True,
        "foresight": True,
        "wings": True,
    }
    assert Options.from_dict(data | {"theme": "french"}) == options
    assert Options(rounds=RoundsPlan.TOURNAMENT).to_dict()["notequal"] is True
    with pytest.raises(RuleError) as info:
        Options.from_dict(["notequal"])
    assert info.value.code is ErrorCode.BAD_OPTION


def test_set_options_in_the_lobby() -> None:
    state = lobby(3)
    options = Options(bids=BidMode.HIDDEN, wings=True)
    events = engine.step(state, SetOptions(options))
    assert typed(events) == typed([OptionsChanged(options=options)])
    assert state.options == options
    refuse(state, SetOptions("notequal"), ErrorCode.BAD_OPTION)  # type: ignore[arg-type]
    refuse(state, SetOptions(Options(wings=2)), ErrorCode.BAD_OPTION)  # type: ignore[arg-type]
    engine.step(state, Start(seed=0))
    refuse(state, SetOptions(Options()), ErrorCode.GAME_STARTED)


@pytest.mark.parametrize("name", ["wings", "foresight", "dmmixed", "notequal"])
def test_set_options_never_reads_off_as_on(name: str) -> None:
    # a flag given as the text "off" is either refused or taken as off, never as on
    state = lobby(3)
    options = Options(rounds=RoundsPlan.SHORT, **{name: "off"})  # type: ignore[arg-type]
    refused: ErrorCode | None = None
    try:
        engine.step(state, SetOptions(options))
    except RuleError as error:
        refused = error.code
    if refused is not None:
        assert refused is ErrorCode.BAD_OPTION
        return
    events = engine.step(state, Start(seed=0, first_dealer=0))
    started = of_type(events, RoundStarted)[0]
    assert not started.foresight
    assert not started.notequal
    assert started.bids is BidMode.OPEN
    refuse(state, MarkWings("p1", None), ErrorCode.OPTION_OFF)


# --- rounds ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "rounds"), [(3, 20), (4, 15), (5, 12), (6, 10)])
def test_standard_rounds(players: int, rounds: int) -> None:
    assert hand_sizes(Options(), players) == tuple(range(1, rounds + 1))
    state = lobby(players)
    events = engine.step(state, Start(seed=1))
    assert of_type(events, GameStarted)[0].hand_sizes == tuple(range(1, rounds + 1))
    assert len(state.plan) == rounds


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_short_game_is_five_rounds(players: int) -> None:
    options = Options(rounds=RoundsPlan.SHORT)
    assert hand_sizes(options, players) == (1, 2, 3, 4, 5)
    state = lobby(players, options)
    engine.step(state, Start(seed=players))
    events = finish(state)
    assert [result.cards for result in state.results] == [1, 2, 3, 4, 5]
    assert of_type(events, GameOver)
    assert state.phase is Phase.FINISHED


@pytest.mark.parametrize(
    ("players", "sizes"),
    [
        (3, (2, 4, 6, 8, 10, 12, 14, 16, 18, 20)),
        (4, (1, 3, 5, 7, 9, 11, 12, 13, 14, 15)),
        (5, (2, 4, 5, 6, 7, 8, 9, 10, 11, 12)),
    ],
)
def test_tournament_hand_sizes_with_notequal_on_by_default(
    players: int, sizes: tuple[int, ...]
) -> None:
    options = Options(rounds=RoundsPlan.TOURNAMENT)
    assert hand_sizes(options, players) == sizes
    assert options.notequal_on
    state = lobby(players, options)
    events = engine.step(state, Start(seed=5))
    events += finish(state)
    assert [result.cards for result in state.results] == list(sizes)
    started = of_type(events, RoundStarted)
    assert [event.cards for event in started] == list(sizes)
    assert all(event.notequal for event in started)
    # notequal held in every round: the final bids never add up to the tricks
    assert all(sum(result.bids) != result.cards for result in state.results)


def test_tournament_notequal_can_be_switched_off_and_bids_hidden() -> None:
    options = Options(rounds=RoundsPlan.TOURNAMENT, notequal=False, bids=BidMode.HIDDEN)
    state = lobby(4, options)
    events = engine.step(state, Start(seed=2))
    events += finish(state)
    started = of_type(events, RoundStarted)
    assert len(started) == 10
    assert not any(event.notequal for event in started)
    assert all(event.bids is BidMode.HIDDEN for event in started)


def test_tournament_dealer_bound_by_notequal_in_a_one_card_round() -> None:
    state, _ = start(4, options=Options(rounds=RoundsPlan.TOURNAMENT), first_dealer=0)
    assert state.round is not None
    assert state.round.cards == 1
    for seat in (1, 2, 3):
        engine.step(state, Bid(pid(seat), 0))
    assert engine.legal_bids(state, 0) == [0]
    refuse(state, Bid("p0", 1), ErrorCode.BID_FORBIDDEN)


def test_tournament_is_refused_for_six_players() -> None:
    state = lobby(6, Options(rounds=RoundsPlan.TOURNAMENT))
    refuse(state, Start(seed=0), ErrorCode.OPTION_UNAVAILABLE)
    with pytest.raises(RuleError) as info:
        hand_sizes(Options(rounds=RoundsPlan.TOURNAMENT), 6)
    assert info.value.code is ErrorCode.OPTION_UNAVAILABLE
    assert state.phase is Phase.LOBBY


# --- notequal and bid modes ------------------------------------------------------------------


@pytest.mark.parametrize("bids", [BidMode.OPEN, BidMode.HIDDEN, BidMode.SECRET])
def test_notequal_holds_in_every_round_of_a_game(bids: BidMode) -> None:
    options = Options(rounds=RoundsPlan.SHORT, notequal=True, bids=bids)
    state = lobby(4, options)
    events = engine.step(state, Start(seed=9))
    events += finish(state)
    assert all(event.notequal for event in of_type(events, RoundStarted))
    assert all(event.bids is bids for event in of_type(events, RoundStarted))
    assert all(sum(result.bids) != result.cards for result in state.results)


@pytest.mark.parametrize("bids", [BidMode.OPEN, BidMode.HIDDEN, BidMode.SECRET])
def test_bid_modes_show_bids_when_the_mode_says(bids: BidMode) -> None:
    options = Options(rounds=RoundsPlan.SHORT, bids=bids)
    state, _ = start(3, {1: deal("R5", "R9", "B2", trump="G1")}, options, first_dealer=0)
    events = bid_all(state, [0, 1, 0])
    made = of_type(events, BidMade)
    assert [event.player for event in made] == ["p1", "p2", "p0"]
    if bids is BidMode.OPEN:
        assert [event.bid for event in made] == [1, 0, 0]
    else:
        assert [event.bid for event in made] == [None, None, None]
    assert of_type(events, PlayStarted) == [PlayStarted(leader=1)]


# --- dmmixed ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "rounds"), [(3, 20), (4, 15), (5, 12), (6, 10)])
def test_dmmixed_round_by_round(players: int, rounds: int) -> None:
    options = Options(dmmixed=True)
    for number in range(1, rounds + 1):
        rules = round_rules(options, number, rounds, number)
        if number <= 6 or number == rounds:
            assert rules.bids is BidMode.HIDDEN, number
            assert not rules.notequal, number
        else:
            assert rules.bids is BidMode.OPEN, number
            assert rules.notequal, number


def test_dmmixed_four_players_in_a_game() -> None:
    state = lobby(4, Options(dmmixed=True))
    events = engine.step(state, Start(seed=4))
    events += finish(state)
    started = of_type(events, RoundStarted)
    assert [event.round for event in started] == list(range(1, 16))
    hidden = [event.round for event in started if event.bids is BidMode.HIDDEN]
    notequal = [event.round for event in started if event.notequal]
    assert hidden == [1, 2, 3, 4, 5, 6, 15]
    assert notequal == list(range(7, 15))
    for result in state.results[6:14]:
        assert sum(result.bids) != result.cards


def test_dmmixed_keeps_private_bids_private_and_table_notequal_everywhere() -> None:
    secret = Options(dmmixed=True, bids=BidMode.SECRET)
    assert round_rules(secret, 1, 15, 1).bids is not BidMode.OPEN
    assert round_rules(secret, 15, 15, 15).bids is not BidMode.OPEN
    assert round_rules(secret, 8, 15, 8).notequal
    both = Options(dmmixed=True, notequal=True)
    assert all(round_rules(both, number, 15, number).notequal for number in range(1, 16))


@pytest.mark.parametrize(
    ("players", "options", "hidden", "notequal"),
    [
        # five rounds: all are among rounds 1-6 (the last one too)
        (3, Options(dmmixed=True, rounds=RoundsPlan.SHORT), [1, 2, 3, 4, 5], []),
        # tournament rounds: round 10 is the last; notequal, on by the plan, holds throughout
        (
            4,
            Options(dmmixed=True, rounds=RoundsPlan.TOURNAMENT),
            [1, 2, 3, 4, 5, 6, 10],
            list(range(1, 11)),
        ),
        # tournament rounds with notequal switched off: dmmixed's own notequal, rounds 7-9
        (
            5,
            Options(dmmixed=True, rounds=RoundsPlan.TOURNAMENT, notequal=False),
            [1, 2, 3, 4, 5, 6, 10],
            [7, 8, 9],
        ),
    ],
)
def test_dmmixed_last_round_is_the_plans_last(
    players: int, options: Options, hidden: list[int], notequal: list[int]
) -> None:
    state = lobby(players, options)
    events = engine.step(state, Start(seed=players))
    events += finish(state)
    started = of_type(events, RoundStarted)
    assert [event.round for event in started if event.bids is BidMode.HIDDEN] == hidden
    assert [event.round for event in started if event.bids is BidMode.OPEN] == [
        number for number in range(1, len(started) + 1) if number not in hidden
    ]
    assert [event.round for event in started if event.notequal] == notequal
    for number in notequal:
        result = state.results[number - 1]
        assert sum(result.bids) != result.cards


# --- foresight -------------------------------------------------------------------------------


def test_foresight_only_in_one_card_rounds() -> None:
    options = Options(foresight=True)
    assert round_rules(options, 1, 20, 1).foresight
    assert not round_rules(options, 2, 20, 2).foresight
    assert not round_rules(Options(), 1, 20, 1).foresight
    # 3-player tournament rounds start at 2 cards: foresight never applies
    state = lobby(3, Options(rounds=RoundsPlan.TOURNAMENT, foresight=True))
    events = engine.step(state, Start(seed=0))
    assert not of_type(events, RoundStarted)[0].foresight


def test_foresight_in_the_one_card_round_of_four_player_tournament_rounds() -> None:
    # 4-player tournament hands: 1, 3, 5, ...: only round 1 is played blind
    state = lobby(4, Options(rounds=RoundsPlan.TOURNAMENT, foresight=True))
    events = engine.step(state, Start(seed=1))
    events += finish(state)
    started = of_type(events, RoundStarted)
    assert [event.round for event in started if event.foresight] == [1]


def test_foresight_dealer_chooses_trump_without_seeing_their_card() -> None:
    options = Options(rounds=RoundsPlan.SHORT, foresight=True)
    state, _ = start(3, {1: deal("R5", "R9", "B2", trump="W")}, options, first_dealer=0)
    assert state.phase is Phase.TRUMP
    dealer = engine.player_view(state, 0)
    assert dealer.hand == ()
    assert dealer.others == (None, "R9", "B2")
    engine.step(state, engine.ChooseTrump("p0", engine.Suit.RED))
    assert state.phase is Phase.BIDDING
    assert engine.player_view(state, 0).hand == ()


def foresight_round_one(wings: bool = False) -> GameState:
    options = Options(rounds=RoundsPlan.SHORT, foresight=True, wings=wings)
    state, events = start(3, {1: deal("R5", "R9", "B2", trump="G1")}, options, first_dealer=0)
    assert of_type(events, RoundStarted)[0].foresight
    return state


def test_foresight_play_the_unseen_card() -> None:
    state = foresight_round_one()
    bid_all(state, [1, 1, 0])
    refuse(state, Play("p2", None), ErrorCode.NOT_YOUR_TURN)
    events = engine.step(state, Play("p1", None))
    assert typed(events) == typed([CardPlayed(player="p1", card="R9")])
    events = engine.step(state, Play("p2", None))
    assert typed(events) == typed([CardPlayed(player="p2", card="B2")])
    events = engine.step(state, Play("p0", None))
    assert of_type(events, TrickWon)[0].player == "p1"
    # round 2 has two cards: foresight is off and a card must be named
    started = of_type(events, RoundStarted)
    assert started[0].cards == 2
    assert not started[0].foresight
    rnd = state.round
    assert rnd is not None
    bid_all(state, [0, 0, 0])
    refuse(state, Play(pid(rnd.turn), None), ErrorCode.UNKNOWN_CARD)


def test_foresight_cards_cannot_be_marked() -> None:
    state = foresight_round_one(wings=True)
    refuse(state, MarkWings("p1", "R9"), ErrorCode.CARD_NOT_VISIBLE)
    refuse(state, MarkWings("p2", "B2"), ErrorCode.CARD_NOT_VISIBLE)
    refuse(state, MarkWings("p2", "R9"), ErrorCode.CARD_NOT_VISIBLE)
    assert typed(engine.step(state, MarkWings("p2", None))) == typed(
        [WingsMarked(to="p2", card=None)]
    )


# --- wings -----------------------------------------------------------------------------------

WINGS = Options(rounds=RoundsPlan.SHORT, wings=True)


def wings_round_two(options: Options = WINGS) -> GameState:
    # first dealer p1: round 2 is dealt by p2; p0 bids first and leads
    state, _ = start(3, {2: deal("R9 B4", "R3 B5", "W Y7", trump="G1")}, options, first_dealer=1)
    advance(state, 2)
    assert state.round is not None
    assert state.round.dealer == 2
    return state


def test_wings_needs_the_option() -> None:
    state = wings_round_two(SHORT)
    refuse(state, MarkWings("p1", "B5"), ErrorCode.OPTION_OFF)
    refuse(state, MarkWings("p1", None), ErrorCode.OPTION_OFF)


def test_wings_mark_errors() -> None:
    refuse(lobby(3, WINGS), MarkWings("p0", None), ErrorCode.WRONG_PHASE)
    state = wings_round_two()
    refuse(state, MarkWings("p1", "G13"), ErrorCode.CARD_NOT_IN_HAND)
    refuse(state, MarkWings("p1", "R9"), ErrorCode.CARD_NOT_IN_HAND)
    refuse(state, MarkWings("p1", "X1"), ErrorCode.UNKNOWN_CARD)
    refuse(state, MarkWings("zz", "R3"), ErrorCode.UNKNOWN_PLAYER)


def test_wings_marked_card_plays_itself_and_the_mark_can_change() -> None:
    state = wings_round_two()
    events = engine.step(state, MarkWings("p1", "B5"))
    assert typed(events) == typed([WingsMarked(to="p1", card="B5")])
    assert audience(events[0]) == "p1"
    events = engine.step(state, MarkWings("p1", "R3"))  # changed before the turn
    assert typed(events) == typed([WingsMarked(to="p1", card="R3")])
    engine.step(state, MarkWings("p2", "W"))
    bid_all(state, [1, 0, 1])
    events = play(state, "R9")
    assert typed(events) == typed(
        [
            CardPlayed(player="p0", card="R9"),
            CardPlayed(player="p1", card="R3", auto=True),
            CardPlayed(player="p2", card="W", auto=True),
            TrickWon(player="p2", trick=1, cards=("R9", "R3", "W")),
        ]
    )
    assert state.round is not None
    assert state.round.marks == [None, None, None]
    assert state.round.turn == 2


def test_wings_mark_that_became_illegal_is_dropped_and_the_player_chooses() -> None:
    state = wings_round_two()
    engine.step(state, MarkWings("p1", "B5"))
    bid_all(state, [1, 0, 1])
    events = play(state, "R9")
    assert typed(events) == typed(
        [CardPlayed(player="p0", card="R9"), WingsDropped(to="p1", card="B5")]
    )
    assert audience(events[1]) == "p1"
    assert audience(events[0]) is None
    assert state.round is not None
    assert state.round.turn == 1
    assert state.round.marks[1] is None
    refuse(state, Play("p1", "B5"), ErrorCode.MUST_FOLLOW_SUIT)
    assert typed(play(state, "R3")) == typed([CardPlayed(player="p1", card="R3")])


def test_wings_mark_can_be_cleared() -> None:
    state = wings_round_two()
    engine.step(state, MarkWings("p1", "R3"))
    events = engine.step(state, MarkWings("p1", None))
    assert typed(events) == typed([WingsMarked(to="p1", card=None)])
    bid_all(state, [1, 0, 1])
    events = play(state, "R9")
    assert typed(events) == typed([CardPlayed(player="p0", card="R9")])
    assert state.round is not None
    assert state.round.turn == 1


def test_wings_marking_on_ones_own_turn_plays_the_card() -> None:
    state = wings_round_two()
    bid_all(state, [1, 0, 1])
    play(state, "R9")
    refuse(state, MarkWings("p1", "B5"), ErrorCode.MUST_FOLLOW_SUIT)
    events = engine.step(state, MarkWings("p1", "R3"))
    assert [(event.player, event.card) for event in of_type(events, CardPlayed)] == [("p1", "R3")]
    assert not of_type(events, WingsMarked)
    assert state.round is not None
    assert state.round.turn == 2
    assert state.round.hands[1] == ["B5"]


def test_wings_leader_marked_during_bidding_leads_automatically() -> None:
    state = wings_round_two()
    engine.step(state, MarkWings("p0", "B4"))
    events = bid_all(state, [1, 0, 1])
    assert typed(events[-2:]) == typed(
        [PlayStarted(leader=0), CardPlayed(player="p0", card="B4", auto=True)]
    )
    assert state.round is not None
    assert state.round.turn == 1


def test_wings_trick_winners_mark_leads_the_next_trick_and_the_marks_chain() -> None:
    state = wings_round_two()
    bid_all(state, [1, 0, 1])
    play(state, "R9")
    engine.step(state, MarkWings("p0", "B4"))  # p0 marks their next lead while p1 is to play
    play(state, "R3")
    engine.step(state, MarkWings("p1", "B5"))
    events = play(state, "Y7")
    assert typed(events) == typed(
        [
            CardPlayed(player="p2", card="Y7"),
            TrickWon(player="p0", trick=1, cards=("R9", "R3", "Y7")),
            CardPlayed(player="p0", card="B4", auto=True),
            CardPlayed(player="p1", card="B5", auto=True),
        ]
    )
    assert state.round is not None
    assert state.round.turn == 2


def test_wings_marking_while_trump_is_chosen() -> None:
    state, _ = start(3, {1: deal("R5", "R9", "B2", trump="W")}, WINGS, first_dealer=0)
    assert state.phase is Phase.TRUMP
    events = engine.step(state, MarkWings("p1", "R9"))
    assert typed(events) == typed([WingsMarked(to="p1", card="R9")])
    engine.step(state, engine.ChooseTrump("p0", engine.Suit.RED))
    events = bid_all(state, [0, 0, 0])
    assert typed(events[-1:]) == typed([CardPlayed(player="p1", card="R9", auto=True)])
