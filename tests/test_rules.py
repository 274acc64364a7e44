"""Whole-engine rule tests: scripted deals driven command by command through engine.step."""

import pytest
from conftest import (
    SHORT,
    advance,
    bid_all,
    deal,
    field_names,
    filler_deals,
    finish,
    lobby,
    next_command,
    of_type,
    pid,
    play,
    refuse,
    start,
    typed,
)

import engine
from engine import (
    DECK,
    Bid,
    BidMode,
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
    SetOptions,
    Start,
    Suit,
    audience,
)
from engine.cards import SUIT_OF
from engine.events import (
    BidChangeRequired,
    BidMade,
    BidsRevealed,
    CardPlayed,
    GameOver,
    GameStarted,
    PlayerJoined,
    PlayerLeft,
    PlayStarted,
    RoundScored,
    RoundStarted,
    TrickWon,
    TrumpChosen,
    TrumpTurned,
    WingsDropped,
    WingsMarked,
)

# --- starting a game -------------------------------------------------------------------------


def test_start_deals_round_one_and_opens_bidding_left_of_the_dealer() -> None:
    state, events = start(3, {1: deal("R5", "R9", "B2", trump="G1")}, first_dealer=1)
    assert typed(events) == typed(
        [
            GameStarted(players=("p0", "p1", "p2"), first_dealer=1, hand_sizes=(1, 2, 3, 4, 5)),
            RoundStarted(
                round=1, cards=1, dealer=1, bids=BidMode.OPEN, notequal=False, foresight=False
            ),
            TrumpTurned(card="G1", trump=Suit.GREEN),
        ]
    )
    assert state.phase is Phase.BIDDING
    assert state.round is not None
    assert state.round.hands == [["R5"], ["R9"], ["B2"]]
    assert state.round.trump is Suit.GREEN
    assert state.round.turn == 2
    assert engine.legal_bids(state, 2) == [0, 1]
    assert engine.legal_bids(state, 0) == []


def test_start_without_deals_is_reproducible_from_the_seed() -> None:
    first, second = lobby(4), lobby(4)
    events_a = engine.step(first, Start(seed=42))
    events_b = engine.step(second, Start(seed=42))
    assert events_a == events_b
    assert first.to_json() == second.to_json()
    assert first.round is not None
    cards = [card for hand in first.round.hands for card in hand]
    assert len(cards) == 4
    if first.round.trump_card is not None:
        cards.append(first.round.trump_card)
    assert all(card in DECK for card in cards)


@pytest.mark.parametrize(
    ("deals", "why"),
    [
        ((), "too few deals"),
        ("short", "a hand of the wrong size"),
        ("dup", "a card twice"),
        ("notrump", "no trump card although cards remain"),
    ],
)
def test_bad_deals_are_refused(deals: object, why: str) -> None:
    state = lobby(3, SHORT)
    good = list(filler_deals((1, 2, 3, 4, 5), 3))
    if deals == "short":
        good[1] = deal("R1", "R2 R3", "R4 R5", trump="R6")
    elif deals == "dup":
        good[0] = deal("R1", "R1", "R4", trump="R6")
    elif deals == "notrump":
        good[0] = deal("R1", "R2", "R4", trump=None)
    else:
        good = []
    refuse(state, Start(seed=0, first_dealer=0, deals=tuple(good)), ErrorCode.BAD_DEAL)


def test_last_round_deal_with_a_trump_card_is_refused() -> None:
    # 3 players, standard: round 20 deals all 60 cards, so no card can be turned up
    state = lobby(3)
    deals = list(filler_deals(range(1, 21), 3))
    deals[-1] = Deal(hands=deals[-1].hands, trump_card="W")
    refuse(state, Start(seed=0, first_dealer=0, deals=tuple(deals)), ErrorCode.BAD_DEAL)


# --- trump -----------------------------------------------------------------------------------


def test_wizard_turned_up_the_dealer_chooses_trump() -> None:
    state, events = start(3, {1: deal("R5", "R9", "B2", trump="W")}, first_dealer=0)
    assert typed(events[-1:]) == typed([TrumpTurned(card="W", trump=None)])
    assert state.phase is Phase.TRUMP
    assert state.round is not None
    assert state.round.trump is None
    refuse(state, Bid("p1", 0), ErrorCode.WRONG_PHASE)
    refuse(state, Play("p1", "R9"), ErrorCode.WRONG_PHASE)
    refuse(state, ChooseTrump("p1", Suit.RED), ErrorCode.NOT_DEALER)
    refuse(state, ChooseTrump("p2", Suit.RED), ErrorCode.NOT_DEALER)
    refuse(state, ChooseTrump("zz", Suit.RED), ErrorCode.UNKNOWN_PLAYER)
    refuse(state, ChooseTrump("p0", None), ErrorCode.BAD_SUIT)  # type: ignore[arg-type]
    refuse(state, ChooseTrump("p0", "R"), ErrorCode.BAD_SUIT)  # type: ignore[arg-type]
    refuse(state, ChooseTrump("p0", "purple"), ErrorCode.BAD_SUIT)  # type: ignore[arg-type]
    refuse(state, ChooseTrump("p0", 3), ErrorCode.BAD_SUIT)  # type: ignore[arg-type]
    events = engine.step(state, ChooseTrump("p0", Suit.BLUE))
    assert typed(events) == typed([TrumpChosen(player="p0", suit=Suit.BLUE)])
    assert state.phase is Phase.BIDDING
    assert state.round.trump is Suit.BLUE
    assert state.round.turn == 1
    refuse(state, ChooseTrump("p0", Suit.RED), ErrorCode.WRONG_PHASE)
    bid_all(state, [0, 0, 0])
    events = play(state, "R9 B2 R5")
    # the chosen trump counts: B2 beats the red lead
    assert of_type(events, TrickWon)[0].player == "p2"
    assert state.results[0].trump_card == "W"
    assert state.results[0].trump is Suit.BLUE


def test_jester_turned_up_means_no_trump() -> None:
    state, events = start(3, {1: deal("G9", "B2", "R13", trump="J")}, first_dealer=0)
    assert typed(events[-1:]) == typed([TrumpTurned(card="J", trump=None)])
    assert state.phase is Phase.BIDDING
    assert state.round is not None
    assert state.round.trump is None
    bid_all(state, [0, 1, 0])
    events = play(state, "B2 R13 G9")
    # no trump: the off-suit R13 and G9 cannot beat the led B2
    assert of_type(events, TrickWon)[0].player == "p1"
    assert state.results[0].trump is None


def test_numbered_card_turned_up_sets_trump() -> None:
    state, _ = start(3, {1: deal("G9", "B2", "R13", trump="R1")}, first_dealer=0)
    assert state.round is not None
    assert state.round.trump is Suit.RED
    bid_all(state, [0, 0, 0])
    events = play(state, "B2 R13 G9")
    assert of_type(events, TrickWon)[0].player == "p2"


def test_no_cards_left_in_the_last_round_means_no_trump() -> None:
    # 6 players, standard: round 10 deals all 60 cards
    last = Deal(
        hands=tuple(tuple(DECK[seat * 10 : seat * 10 + 10]) for seat in range(6)), trump_card=None
    )
    state, _ = start(6, {10: last}, options=Options())
    assert state.plan == tuple(range(1, 11))
    events = advance(state, 10)
    assert state.round is not None
    assert state.round.number == 10
    assert state.round.cards == 10
    assert typed(events[-1:]) == typed([TrumpTurned(card=None, trump=None)])
    assert state.round.trump_card is None
    assert state.round.trump is None
    assert state.phase is Phase.BIDDING
    events = finish(state)
    assert state.results[-1].trump_card is None
    assert state.results[-1].trump is None
    assert of_type(events, GameOver)


def test_random_deals_turn_no_card_in_the_last_round() -> None:
    state = lobby(3)
    engine.step(state, Start(seed=7))
    advance(state, 20)
    assert state.round is not None
    assert state.round.number == 20
    assert state.round.trump_card is None
    assert state.round.trump is None
    assert sorted(card for hand in state.round.hands for card in hand) == sorted(DECK)


# --- playing tricks --------------------------------------------------------------------------


def round_two_follow_suit() -> GameState:
    # first dealer p1: round 2 is dealt by p2, so p0 bids first and leads
    state, _ = start(3, {2: deal("R9 B4", "R3 B5", "W Y7", trump="G1")}, first_dealer=1)
    advance(state, 2)
    assert state.round is not None
    assert state.round.dealer == 2
    return state


def test_must_follow_suit_and_trick_winner_leads_next() -> None:
    state = round_two_follow_suit()
    before_totals = list(state.totals)
    bid_all(state, [1, 0, 1])
    assert state.phase is Phase.PLAYING
    assert state.round is not None
    assert state.round.turn == 0
    play(state, "R9")
    err = refuse(state, Play("p1", "B5"), ErrorCode.MUST_FOLLOW_SUIT)
    assert "B5" in err.message
    assert engine.legal_plays(state, 1) == ["R3"]
    events = play(state, "R3 Y7")  # p2 has no red: an off-suit card is legal and loses
    assert typed(events[-1:]) == typed([TrickWon(player="p0", trick=1, cards=("R9", "R3", "Y7"))])
    assert state.round.turn == 0
    assert state.round.leader == 0
    refuse(state, Play("p1", "B5"), ErrorCode.NOT_YOUR_TURN)
    refuse(state, Play("p2", "W"), ErrorCode.NOT_YOUR_TURN)
    events = play(state, "B4 B5 W")
    assert typed(of_type(events, TrickWon)) == typed(
        [TrickWon(player="p2", trick=2, cards=("B4", "B5", "W"))]
    )
    scored = of_type(events, RoundScored)[0]
    assert scored.round == 2
    assert scored.bids == (1, 0, 1)
    assert scored.won == (1, 0, 1)
    assert scored.points == (30, 20, 30)
    assert scored.totals == tuple(t + p for t, p in zip(before_totals, (30, 20, 30), strict=True))
    assert state.round.number == 3


def test_a_wizard_or_jester_may_be_played_while_holding_the_lead_suit() -> None:
    state, _ = start(3, {2: deal("R9 B4", "R3 J", "W R7", trump="G1")}, first_dealer=1)
    advance(state, 2)
    bid_all(state, [0, 0, 0])
    play(state, "R9")
    assert sorted(engine.legal_plays(state, 1)) == ["J", "R3"]
    play(state, "J")
    assert sorted(engine.legal_plays(state, 2)) == ["R7", "W"]
    events = play(state, "W")
    assert typed(events[-1:]) == typed([TrickWon(player="p2", trick=1, cards=("R9", "J", "W"))])


def test_jester_led_then_wizard_anyone_may_play_anything() -> None:
    state, _ = start(3, {2: deal("J B4", "W R3", "G7 B5", trump="B1")}, first_dealer=1)
    advance(state, 2)
    bid_all(state, [0, 1, 0])
    play(state, "J W")
    # no lead suit: p2 may play the off-suit G7 although holding blue (and blue is trump)
    assert sorted(engine.legal_plays(state, 2)) == ["B5", "G7"]
    events = play(state, "G7")
    assert typed(events[-1:]) == typed([TrickWon(player="p1", trick=1, cards=("J", "W", "G7"))])


def test_jester_led_then_a_suit_that_suit_must_be_followed() -> None:
    state, _ = start(3, {2: deal("J B4", "R3 G2", "R9 B5", trump="Y1")}, first_dealer=1)
    advance(state, 2)
    bid_all(state, [0, 0, 0])
    play(state, "J R3")
    refuse(state, Play("p2", "B5"), ErrorCode.MUST_FOLLOW_SUIT)
    events = play(state, "R9")
    assert typed(events[-1:]) == typed([TrickWon(player="p2", trick=1, cards=("J", "R3", "R9"))])


def test_all_jesters_first_jester_wins() -> None:
    state, _ = start(3, {2: deal("J B4", "J G2", "J R5", trump="Y1")}, first_dealer=1)
    advance(state, 2)
    bid_all(state, [1, 0, 0])
    events = play(state, "J J J")
    assert typed(events[-1:]) == typed([TrickWon(player="p0", trick=1, cards=("J", "J", "J"))])
    assert state.round is not None
    assert state.round.turn == 0


def test_first_of_several_wizards_wins() -> None:
    state, _ = start(3, {2: deal("R2 B4", "W G2", "W R5", trump="R1")}, first_dealer=1)
    advance(state, 2)
    bid_all(state, [0, 1, 0])
    events = play(state, "R2 W W")
    assert typed(events[-1:]) == typed([TrickWon(player="p1", trick=1, cards=("R2", "W", "W"))])


def test_trump_beats_the_lead_suit_and_off_suit_never_wins() -> None:
    state, _ = start(3, {2: deal("R12 B4", "G13 G2", "Y2 R5", trump="Y1")}, first_dealer=1)
    advance(state, 2)
    bid_all(state, [0, 0, 0])
    events = play(state, "B4 G13 R5")
    # off-suit G13 and R5 never beat the blue lead
    assert typed(events[-1:]) == typed([TrickWon(player="p0", trick=1, cards=("B4", "G13", "R5"))])
    events = play(state, "R12 G2 Y2")
    # the lowest trump beats the highest card of the lead suit
    assert typed(of_type(events, TrickWon)[:1]) == typed(
        [TrickWon(player="p2", trick=2, cards=("R12", "G2", "Y2"))]
    )


# --- scoring ---------------------------------------------------------------------------------


def test_scoring_examples_and_game_over() -> None:
    # first dealer p1: round 5 is dealt by p2 and led by p0; yellow is trump
    five = deal("W W Y13 Y12 B2", "J J B3 G2 G3", "R13 R12 R11 B13 Y2", trump="Y1")
    state, _ = start(3, {5: five}, first_dealer=1)
    advance(state, 5)
    before = list(state.totals)
    assert len(state.results) == 4
    bid_all(state, [4, 0, 3])
    events = play(state, "W J R13  W J R12  Y13 B3 Y2  Y12 G2 R11  B2 G3 B13")
    assert [trick.player for trick in of_type(events, TrickWon)] == ["p0"] * 4 + ["p2"]
    scored = of_type(events, RoundScored)
    # bid 4 took 4: +60; bid 0 took 0: +20; bid 3 took 1: -20
    assert typed(scored) == typed(
        [
            RoundScored(
                round=5,
                bids=(4, 0, 3),
                won=(4, 0, 1),
                points=(60, 20, -20),
                totals=(before[0] + 60, before[1] + 20, before[2] - 20),
            )
        ]
    )
    totals = scored[0].totals
    assert typed(events[-1:]) == typed(
        [GameOver(totals=totals, places=tuple(engine.scoring.places(totals)))]
    )
    assert state.phase is Phase.FINISHED
    assert state.round is None
    assert state.totals == list(totals)
    assert [result.number for result in state.results] == [1, 2, 3, 4, 5]
    assert state.results[-1].hands == five.hands
    assert sum(sum(result.points) for result in state.results) == sum(totals)


def test_commands_after_the_game_is_over_are_refused() -> None:
    state, _ = start(3)
    finish(state)
    assert state.phase is Phase.FINISHED
    for command in (
        Join("p9", "Late"),
        Leave("p0"),
        SetOptions(Options()),
        Start(seed=1),
        Bid("p0", 0),
        Play("p0", "R1"),
        ChooseTrump("p0", Suit.RED),
    ):
        refuse(state, command, ErrorCode.GAME_OVER)


def test_mark_wings_after_the_game_is_over_is_game_over() -> None:
    state, _ = start(3, options=Options(rounds=RoundsPlan.SHORT, wings=True))
    finish(state)
    refuse(state, MarkWings("p0", None), ErrorCode.GAME_OVER)


# --- dealer, bidding order and leading ---------------------------------------------------------


@pytest.mark.parametrize(("players", "first_dealer"), [(3, 2), (4, 0), (6, 4)])
def test_dealer_rotates_left_and_left_of_dealer_bids_and_leads_first(
    players: int, first_dealer: int
) -> None:
    state, _ = start(players, first_dealer=first_dealer)
    dealers = []
    while state.phase is not Phase.FINISHED:
        rnd = state.round
        assert rnd is not None
        assert state.phase is Phase.BIDDING
        dealers.append(rnd.dealer)
        first = (rnd.dealer + 1) % players
        assert rnd.turn == first
        assert engine.table_view(state).waiting == (first,)
        bid_events = bid_all(state, [0] * players)
        assert [event.player for event in of_type(bid_events, BidMade)] == [
            pid((first + offset) % players) for offset in range(players)
        ]
        assert typed(of_type(bid_events, PlayStarted)) == typed([PlayStarted(leader=first)])
        assert rnd.turn == first
        assert rnd.leader == first
        number = rnd.number
        while state.round is not None and state.round.number == number:
            engine.step(state, next_command(state))  # type: ignore[arg-type]
        assert state.results[-1].tricks[0].leader == first
    assert dealers == [(first_dealer + number) % players for number in range(5)]


def test_the_trick_winner_leads_the_next_trick_throughout_a_game() -> None:
    state = lobby(4)
    engine.step(state, Start(seed=3))
    events = finish(state)
    checked = 0
    for index, event in enumerate(events[:-1]):
        if isinstance(event, TrickWon):
            following = events[index + 1]
            if isinstance(following, CardPlayed):
                assert following.player == event.player
                checked += 1
    assert checked > 50
    for result in state.results:
        for before, after in zip(result.tricks, result.tricks[1:], strict=False):
            assert after.leader == before.winner
        assert result.tricks[0].leader == (result.dealer + 1) % 4
        assert list(result.won) == [
            sum(trick.winner == seat for trick in result.tricks) for seat in range(4)
        ]


# --- bids ------------------------------------------------------------------------------------


def test_open_bids_out_of_turn_are_refused() -> None:
    state, _ = start(3, first_dealer=0)
    refuse(state, Bid("p2", 0), ErrorCode.NOT_YOUR_TURN)
    refuse(state, Bid("p0", 0), ErrorCode.NOT_YOUR_TURN)
    assert typed(engine.step(state, Bid("p1", 1))) == typed([BidMade(player="p1", bid=1)])
    refuse(state, Bid("p1", 0), ErrorCode.NOT_YOUR_TURN)
    refuse(state, Bid("p0", 0), ErrorCode.NOT_YOUR_TURN)
    assert typed(engine.step(state, Bid("p2", 0))) == typed([BidMade(player="p2", bid=0)])


@pytest.mark.parametrize("bid", [-1, 2, 99, "1", "one", True, False, 1.0, None])
def test_bid_out_of_range_or_not_an_int(bid: object) -> None:
    state, _ = start(3, first_dealer=0)  # round 1: one card each, p1 bids first
    refuse(state, Bid("p1", bid), ErrorCode.BID_OUT_OF_RANGE)  # type: ignore[arg-type]


def test_bid_range_grows_with_the_round() -> None:
    state, _ = start(3, first_dealer=0)
    advance(state, 4)
    assert state.round is not None
    first = (state.round.dealer + 1) % 3
    assert engine.legal_bids(state, first) == [0, 1, 2, 3, 4]
    refuse(state, Bid(pid(first), 5), ErrorCode.BID_OUT_OF_RANGE)
    engine.step(state, Bid(pid(first), 4))
    assert state.round.bids[first] == 4


def test_notequal_open_bids_forbid_only_the_dealers_last_bid() -> None:
    # first dealer p1: round 3 is dealt by p0, p1 bids first
    options = Options(rounds=RoundsPlan.SHORT, notequal=True)
    state, _ = start(3, options=options, first_dealer=1)
    advance(state, 3)
    assert state.round is not None
    assert state.round.dealer == 0
    assert engine.legal_bids(state, 1) == [0, 1, 2, 3]
    engine.step(state, Bid("p1", 1))
    assert engine.legal_bids(state, 2) == [0, 1, 2, 3]
    engine.step(state, Bid("p2", 1))
    assert engine.legal_bids(state, 0) == [0, 2, 3]
    refuse(state, Bid("p0", 1), ErrorCode.BID_FORBIDDEN)
    events = engine.step(state, Bid("p0", 3))
    assert typed(events[:1]) == typed([BidMade(player="p0", bid=3)])
    assert state.phase is Phase.PLAYING
    assert state.round.bids == [3, 1, 1]


def test_notequal_nothing_forbidden_when_others_already_bid_too_much() -> None:
    options = Options(rounds=RoundsPlan.SHORT, notequal=True)
    state, _ = start(3, options=options, first_dealer=1)
    advance(state, 3)
    engine.step(state, Bid("p1", 3))
    engine.step(state, Bid("p2", 2))
    assert engine.legal_bids(state, 0) == [0, 1, 2, 3]


def test_notequal_off_lets_the_dealer_make_the_sum_equal() -> None:
    state, _ = start(3, first_dealer=0)
    engine.step(state, Bid("p1", 0))
    engine.step(state, Bid("p2", 0))
    assert engine.legal_bids(state, 0) == [0, 1]
    engine.step(state, Bid("p0", 1))
    assert state.phase is Phase.PLAYING


def hidden_round_one(notequal: bool) -> GameState:
    options = Options(rounds=RoundsPlan.SHORT, bids=BidMode.HIDDEN, notequal=notequal)
    state, events = start(3, {1: deal("R5", "R9", "B2", trump="G1")}, options, first_dealer=0)
    assert of_type(events, RoundStarted)[0].bids is BidMode.HIDDEN
    return state


def test_hidden_bids_any_order_revealed_together() -> None:
    state = hidden_round_one(notequal=False)
    assert engine.table_view(state).waiting == (0, 1, 2)
    # the dealer may bid first; bids stay private
    assert typed(engine.step(state, Bid("p0", 1))) == typed([BidMade(player="p0", bid=None)])
    refuse(state, Bid("p0", 0), ErrorCode.ALREADY_BID)
    refuse(state, Bid("p0", 1), ErrorCode.ALREADY_BID)
    assert typed(engine.step(state, Bid("p2", 0))) == typed([BidMade(player="p2", bid=None)])
    refuse(state, Bid("p2", 1), ErrorCode.ALREADY_BID)
    assert engine.table_view(state).waiting == (1,)
    events = engine.step(state, Bid("p1", 0))
    # the sum equals the tricks, which is fine without notequal
    assert typed(events) == typed(
        [
            BidMade(player="p1", bid=None),
            BidsRevealed(bids=(1, 0, 0)),
            PlayStarted(leader=1),
        ]
    )
    assert state.phase is Phase.PLAYING


def test_hidden_bids_with_notequal_dealer_must_change() -> None:
    state = hidden_round_one(notequal=True)
    # before the reveal nothing is forbidden, even to the dealer
    assert engine.legal_bids(state, 0) == [0, 1]
    engine.step(state, Bid("p0", 1))
    engine.step(state, Bid("p2", 0))
    events = engine.step(state, Bid("p1", 0))
    assert typed(events) == typed(
        [
            BidMade(player="p1", bid=None),
            BidsRevealed(bids=(1, 0, 0)),
            BidChangeRequired(player="p0", forbidden=1),
        ]
    )
    assert state.phase is Phase.BIDDING
    assert engine.table_view(state).waiting == (0,)
    assert engine.legal_bids(state, 0) == [0]
    assert engine.legal_bids(state, 1) == []
    assert engine.legal_bids(state, 2) == []
    refuse(state, Bid("p1", 1), ErrorCode.NOT_YOUR_TURN)
    refuse(state, Bid("p2", 1), ErrorCode.NOT_YOUR_TURN)
    refuse(state, Bid("p0", 1), ErrorCode.BID_FORBIDDEN)
    events = engine.step(state, Bid("p0", 0))
    assert typed(events) == typed(
        [BidMade(player="p0", bid=0, changed=True), PlayStarted(leader=1)]
    )
    assert state.phase is Phase.PLAYING
    assert state.round is not None
    assert state.round.bids == [0, 0, 0]
    play(state, "R9 B2 R5")
    assert state.results[0].bids == (0, 0, 0)
    assert state.results[0].points == (20, -10, 20)


def test_hidden_bids_with_notequal_no_change_when_the_sum_differs() -> None:
    state = hidden_round_one(notequal=True)
    engine.step(state, Bid("p1", 1))
    engine.step(state, Bid("p0", 1))
    events = engine.step(state, Bid("p2", 0))
    assert typed(events) == typed(
        [
            BidMade(player="p2", bid=None),
            BidsRevealed(bids=(1, 1, 0)),
            PlayStarted(leader=1),
        ]
    )


def secret_round_one(notequal: bool) -> GameState:
    options = Options(rounds=RoundsPlan.SHORT, bids=BidMode.SECRET, notequal=notequal)
    state, _ = start(3, {1: deal("R5", "R9", "B2", trump="G1")}, options, first_dealer=0)
    return state


def test_secret_bids_stay_hidden_until_the_round_ends() -> None:
    state = secret_round_one(notequal=False)
    assert typed(engine.step(state, Bid("p2", 1))) == typed([BidMade(player="p2", bid=None)])
    refuse(state, Bid("p2", 0), ErrorCode.ALREADY_BID)
    assert typed(engine.step(state, Bid("p0", 0))) == typed([BidMade(player="p0", bid=None)])
    # the last bid reveals nothing: play starts
    assert typed(engine.step(state, Bid("p1", 1))) == typed(
        [BidMade(player="p1", bid=None), PlayStarted(1)]
    )
    events = play(state, "R9 B2")
    assert not of_type(events, BidsRevealed)
    events = play(state, "R5")
    revealed = of_type(events, BidsRevealed)
    assert typed(revealed) == typed([BidsRevealed(bids=(0, 1, 1))])
    assert events.index(revealed[0]) < events.index(of_type(events, RoundScored)[0])
    assert of_type(events, RoundScored)[0].points == (20, 30, -10)
    assert engine.table_view(state).sheet[0].bids == (0, 1, 1)
    # the next round is secret again
    assert of_type(events, RoundStarted)[0].bids is BidMode.SECRET


def test_secret_bids_with_notequal_dealer_bids_last() -> None:
    state = secret_round_one(notequal=True)
    assert engine.table_view(state).waiting == (1, 2)
    assert engine.legal_bids(state, 0) == []
    refuse(state, Bid("p0", 0), ErrorCode.NOT_YOUR_TURN)
    engine.step(state, Bid("p2", 0))
    refuse(state, Bid("p0", 0), ErrorCode.NOT_YOUR_TURN)
    refuse(state, Bid("p2", 1), ErrorCode.ALREADY_BID)
    engine.step(state, Bid("p1", 0))
    assert engine.table_view(state).waiting == (0,)
    assert engine.legal_bids(state, 0) == [0]
    refuse(state, Bid("p0", 1), ErrorCode.BID_FORBIDDEN)
    events = engine.step(state, Bid("p0", 0))
    assert typed(events) == typed([BidMade(player="p0", bid=None), PlayStarted(leader=1)])


# --- the lobby -------------------------------------------------------------------------------


def test_join_and_leave() -> None:
    state = GameState()
    assert typed(engine.step(state, Join("a", " Ann "))) == typed(
        [PlayerJoined(player="a", name="Ann", seat=0)]
    )
    assert typed(engine.step(state, Join("b", "Bob"))) == typed(
        [PlayerJoined(player="b", name="Bob", seat=1)]
    )
    refuse(state, Join("a", "Ann again"), ErrorCode.ALREADY_JOINED)
    refuse(state, Join("", "Nobody"), ErrorCode.BAD_PLAYER)
    refuse(state, Join("c", "   "), ErrorCode.BAD_PLAYER)
    refuse(state, Leave("zz"), ErrorCode.UNKNOWN_PLAYER)
    assert typed(engine.step(state, Leave("a"))) == typed([PlayerLeft(player="a")])
    assert state.seat_of("b") == 0
    assert state.seat_of("a") is None


def test_seventh_player_is_refused() -> None:
    state = lobby(6)
    refuse(state, Join("p6", "Seventh"), ErrorCode.GAME_FULL)


@pytest.mark.parametrize("players", [0, 1, 2])
def test_start_needs_three_players(players: int) -> None:
    refuse(lobby(players), Start(seed=0), ErrorCode.TOO_FEW_PLAYERS)


def test_lobby_commands_after_start_are_refused() -> None:
    state, _ = start(3)
    refuse(state, Join("p3", "Late"), ErrorCode.GAME_STARTED)
    refuse(state, Leave("p0"), ErrorCode.GAME_STARTED)
    refuse(state, SetOptions(Options()), ErrorCode.GAME_STARTED)
    refuse(state, Start(seed=0), ErrorCode.GAME_STARTED)


def test_unknown_player_wrong_phase_and_bad_cards() -> None:
    state = lobby(3)
    refuse(state, Bid("p0", 0), ErrorCode.WRONG_PHASE)
    refuse(state, Play("p0", "R1"), ErrorCode.WRONG_PHASE)
    refuse(state, ChooseTrump("p0", Suit.RED), ErrorCode.WRONG_PHASE)
    state, _ = start(3, {1: deal("R5", "R9", "B2", trump="G1")}, first_dealer=0)
    refuse(state, Bid("zz", 0), ErrorCode.UNKNOWN_PLAYER)
    refuse(state, Play("p1", "R9"), ErrorCode.WRONG_PHASE)
    refuse(state, ChooseTrump("p0", Suit.RED), ErrorCode.WRONG_PHASE)
    bid_all(state, [0, 0, 0])
    refuse(state, Bid("p1", 0), ErrorCode.WRONG_PHASE)
    refuse(state, Play("zz", "R9"), ErrorCode.UNKNOWN_PLAYER)
    refuse(state, Play("p2", "B2"), ErrorCode.NOT_YOUR_TURN)
    refuse(state, Play("p1", "R5"), ErrorCode.CARD_NOT_IN_HAND)
    refuse(state, Play("p1", "G13"), ErrorCode.CARD_NOT_IN_HAND)
    refuse(state, Play("p1", "W"), ErrorCode.CARD_NOT_IN_HAND)
    for bad in ("X9", "R14", "R0", "", 9, None):
        refuse(state, Play("p1", bad), ErrorCode.UNKNOWN_CARD)  # type: ignore[arg-type]
    refuse(state, MarkWings("p1", "R9"), ErrorCode.OPTION_OFF)
    assert typed(play(state, "R9")[:1]) == typed([CardPlayed(player="p1", card="R9")])


def test_not_a_command_is_refused() -> None:
    state = lobby(3)
    refuse(state, "start", ErrorCode.BAD_COMMAND)
    refuse(state, Start(seed="x"), ErrorCode.BAD_COMMAND)  # type: ignore[arg-type]
    refuse(state, Start(seed=0, first_dealer=3), ErrorCode.BAD_COMMAND)
    refuse(state, Start(seed=0, first_dealer=-1), ErrorCode.BAD_COMMAND)


# --- purity and atomicity ------------------------------------------------------------------


def test_apply_returns_a_new_state_and_leaves_the_input_alone() -> None:
    state, _ = start(3, {2: deal("R9 B4", "R3 B5", "W Y7", trump="G1")}, first_dealer=1)
    advance(state, 2)
    bid_all(state, [1, 0, 1])
    before = state.to_json()
    new, events = engine.apply(state, Play("p0", "R9"))
    assert new is not state
    assert state.to_json() == before
    assert typed(events) == typed([CardPlayed(player="p0", card="R9")])
    assert new.round is not None
    assert state.round is not None
    assert new.round.trick == ["R9"]
    assert state.round.trick == []
    assert state.round.hands[0] == ["R9", "B4"]
    assert new.seq == state.seq + 1
    # the new state carries on independently
    newer, _ = engine.apply(new, Play("p1", "R3"))
    assert new.round.trick == ["R9"]
    assert newer.round is not None
    assert newer.round.trick == ["R9", "R3"]
    assert state.to_json() == before
    # a refused command via apply raises and changes nothing either
    refuse(new, Play("p1", "B5"), ErrorCode.MUST_FOLLOW_SUIT)
    with pytest.raises(engine.RuleError):
        engine.apply(new, Play("p1", "B5"))


def test_every_refusal_along_a_game_leaves_the_state_unchanged() -> None:
    options = Options(rounds=RoundsPlan.SHORT, wings=True, notequal=True)
    state, _ = start(4, options=options, first_dealer=2)
    wrong = [
        Join("p0", "again"),
        Start(seed=1),
        Bid("zz", 0),
        Bid("p0", -1),
        Play("zz", "R1"),
        Play("p0", "Q3"),
        ChooseTrump("p0", None),
        MarkWings("zz", None),
        MarkWings("p0", "nope"),
    ]
    revokes = forbidden = 0
    while state.phase is not Phase.FINISHED:
        for command in wrong:
            before = state.to_json()
            with pytest.raises(engine.RuleError):
                engine.step(state, command)  # type: ignore[arg-type]
            assert state.to_json() == before
        rnd = state.round
        assert rnd is not None
        if state.phase is Phase.PLAYING:
            seat = rnd.turn
            refuse(state, Play(pid((seat + 1) % 4), "R1"), ErrorCode.NOT_YOUR_TURN)
            legal = engine.legal_plays(state, seat)
            for card in rnd.hands[seat]:
                if card not in legal:
                    refuse(state, Play(pid(seat), card), ErrorCode.MUST_FOLLOW_SUIT)
                    revokes += 1
        if state.phase is Phase.BIDDING:
            for seat in range(4):
                allowed = engine.legal_bids(state, seat)
                for bid in range(rnd.cards + 1):
                    if allowed and bid not in allowed:
                        refuse(state, Bid(pid(seat), bid), ErrorCode.BID_FORBIDDEN)
                        forbidden += 1
        engine.step(state, next_command(state))  # type: ignore[arg-type]
    assert revokes > 0
    assert forbidden == 5  # the dealer of every round, once


# --- privacy of events -----------------------------------------------------------------------

PRIVATE_FIELDS = {"hand", "hands", "dealt", "mark", "marks"}


def numbered_cards_in(event: object) -> set[str]:
    found: set[str] = set()
    for name in field_names(event):
        value = getattr(event, name)
        values = value if isinstance(value, tuple) else (value,)
        found |= {v for v in values if isinstance(v, str) and SUIT_OF.get(v) is not None}
    return found


@pytest.mark.parametrize("bids", [BidMode.OPEN, BidMode.HIDDEN, BidMode.SECRET])
def test_public_events_never_show_hands_marks_or_unrevealed_bids(bids: BidMode) -> None:
    options = Options(rounds=RoundsPlan.SHORT, bids=bids, wings=True, notequal=True)
    state = lobby(4, options)
    log = engine.step(state, Start(seed=11))
    revealed = bids is BidMode.OPEN
    mark = True
    while state.phase is not Phase.FINISHED:
        rnd = state.round
        assert rnd is not None
        command = next_command(state)
        other = (rnd.turn + 2) % 4
        if state.phase is Phase.PLAYING and rnd.hands[other] and mark:
            # somebody else marks a card of their hand (it may turn out illegal later)
            command = MarkWings(pid(other), rnd.hands[other][-1])
        mark = not mark
        events = engine.step(state, command)  # type: ignore[arg-type]
        held = {card for hand in state.round.hands for card in hand} if state.round else set()
        starts = [i for i, event in enumerate(events) if isinstance(event, RoundStarted)]
        for index, event in enumerate(events):
            if isinstance(event, WingsMarked | WingsDropped):
                assert audience(event) == event.to
                continue
            assert audience(event) is None
            names = set(field_names(event))
            assert not names & PRIVATE_FIELDS, event
            # a numbered card named in public is played or turned up: nobody holds it
            # (events before a new round's start belong to the old round, whose hands are empty)
            if not starts or index > starts[-1]:
                assert not numbered_cards_in(event) & held, event
            if isinstance(event, RoundStarted):
                revealed = bids is BidMode.OPEN
            if isinstance(event, BidsRevealed):
                revealed = True
            if isinstance(event, BidMade):
                assert (event.bid is not None) == revealed, event
        log += events
    assert of_type(log, WingsMarked)
    assert of_type(log, CardPlayed)
    assert any(event.auto for event in of_type(log, CardPlayed))
    if bids is BidMode.SECRET:
        assert len(of_type(log, BidsRevealed)) == 5
        assert all(event.bid is None for event in of_type(log, BidMade))
    if bids is BidMode.HIDDEN:
        assert len(of_type(log, BidsRevealed)) == 5
