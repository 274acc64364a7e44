"""What each person sees: engine.table_view and engine.player_view on scripted deals."""

import dataclasses
import random

from conftest import advance, bid_all, deal, finish, lobby, play, start

import engine
from engine import (
    Bid,
    BidMode,
    ChooseTrump,
    GameState,
    MarkWings,
    Options,
    Phase,
    Play,
    RoundsPlan,
    SeatView,
    Suit,
    player_view,
    table_view,
)
from engine.randomplay import new_game, play_random_game, random_command
from engine.scoring import places
from engine.state import NO_SEAT


def round_two(options: Options | None = None) -> GameState:
    # first dealer p1: round 2 is dealt by p2; p0 bids first and leads
    state, _ = start(
        3,
        {2: deal("R9 B4", "R3 B5", "Y7 W", trump="G1")},
        options or Options(rounds=RoundsPlan.SHORT),
        first_dealer=1,
    )
    advance(state, 2)
    return state


def quoted(cards: str) -> list[str]:
    return [repr(card) for card in cards.split()]


# --- the standing line -----------------------------------------------------------------------


def test_standing_the_seeds_example() -> None:
    seat = SeatView(
        seat=0,
        player="p0",
        name="Ann",
        total=90,
        has_bid=True,
        bid=1,
        won=0,
        projected=80,
        dealer=False,
        to_act=False,
    )
    assert seat.standing() == "90 (80) 0/1"


def test_standing_is_projected_from_bid_and_tricks() -> None:
    state = round_two()
    state.totals = [90, 0, -20]  # as if earlier rounds had scored so
    bid_all(state, [1, 0, 1])
    seats = table_view(state).seats
    assert seats[0].standing() == "90 (80) 0/1"
    assert seats[0].projected == 80
    assert seats[1].standing() == "0 (20) 0/0"
    assert seats[2].standing() == "-20 (-30) 0/1"
    play(state, "R9 R3 Y7")  # p0 takes a trick
    seats = table_view(state).seats
    assert seats[0].standing() == "90 (120) 1/1"
    assert seats[0].won == 1
    assert seats[2].standing() == "-20 (-30) 0/1"


# --- the table -------------------------------------------------------------------------------


def test_table_view_during_a_round() -> None:
    state = round_two()
    table = table_view(state)
    assert table.phase is Phase.BIDDING
    assert (table.round, table.rounds, table.cards) == (2, 5, 2)
    assert table.dealer == 2
    assert (table.trump_card, table.trump) == ("G1", Suit.GREEN)
    assert table.bid_mode is BidMode.OPEN
    assert not table.notequal
    assert not table.foresight
    assert table.waiting == (0,)
    assert [seat.to_act for seat in table.seats] == [True, False, False]
    assert [seat.dealer for seat in table.seats] == [False, False, True]
    assert [seat.player for seat in table.seats] == ["p0", "p1", "p2"]
    assert len(table.sheet) == 1
    assert table.sheet[0].round == 1
    assert table.places == ()
    bid_all(state, [1, 0, 1])
    play(state, "R9 R3")
    table = table_view(state)
    assert table.phase is Phase.PLAYING
    assert table.trick == ("R9", "R3")
    assert table.trick_leader == 0
    assert table.waiting == (2,)
    play(state, "Y7")
    table = table_view(state)
    assert table.trick == ()
    assert table.trick_leader == 0
    assert table.last_trick is not None
    assert (table.last_trick.leader, table.last_trick.winner) == (0, 0)
    assert tuple(table.last_trick.cards) == ("R9", "R3", "Y7")
    assert table.seats[0].won == 1


def test_table_view_never_shows_a_hand() -> None:
    state = round_two()
    bid_all(state, [1, 0, 1])
    play(state, "R9")
    text = repr(table_view(state)) + repr(table_view(state, viewer=0))
    for card in quoted("B4 R3 B5 Y7"):
        assert card not in text


def test_player_view_own_hand_and_choices() -> None:
    state = round_two()
    view = player_view(state, 2)
    assert view.seat == 2
    assert view.player == "p2"
    assert view.hand == ("W", "Y7")  # display order: Wizards first
    assert view.hand_size == 2
    assert view.others == ()
    assert view.legal_bids == ()  # not p2's turn to bid
    assert view.legal_cards == ()
    assert not view.choose_trump
    assert not view.play_unseen
    assert player_view(state, 0).legal_bids == (0, 1, 2)
    # another player's hand is never in one's view
    text = repr(player_view(state, 2))
    for card in quoted("R9 B4 R3 B5"):
        assert card not in text
    bid_all(state, [1, 0, 1])
    assert player_view(state, 0).legal_cards == ("B4", "R9")
    play(state, "R9")
    assert player_view(state, 1).legal_cards == ("R3",)
    assert player_view(state, 2).legal_cards == ()
    assert player_view(state, 1).bid == 0


def test_player_view_sorts_the_hand_for_display() -> None:
    five = deal("J Y2 R13 B1 W", "Y3 Y4 Y6 Y8 Y9", "G1 G2 G3 G4 G5", trump="Y5")
    state, _ = start(3, {5: five}, first_dealer=0)
    advance(state, 5)
    view = player_view(state, 0)
    assert view.hand == ("W", "B1", "R13", "Y2", "J")
    assert view.hand == tuple(engine.sorted_hand(five.hands[0]))
    assert engine.sorted_hand(engine.parse_cards("J Y2 R13 B1 W G7 B13 R2")) == (
        engine.parse_cards("W B13 B1 G7 R13 R2 Y2 J")
    )


def test_wizard_turned_up_the_dealer_is_asked_to_choose() -> None:
    state, _ = start(3, {1: deal("R5", "R9", "B2", trump="W")}, first_dealer=0)
    table = table_view(state)
    assert table.phase is Phase.TRUMP
    assert table.trump_card == "W"
    assert table.trump is None
    assert table.waiting == (0,)
    assert player_view(state, 0).choose_trump
    assert not player_view(state, 1).choose_trump
    assert player_view(state, 1).legal_bids == ()
    engine.step(state, ChooseTrump("p0", Suit.YELLOW))
    assert table_view(state).trump is Suit.YELLOW
    assert not player_view(state, 0).choose_trump
    assert player_view(state, 1).legal_bids == (0, 1)


# --- bids in view ----------------------------------------------------------------------------


def test_open_bids_are_seen_by_everybody() -> None:
    state = round_two()
    engine.step(state, Bid("p0", 2))
    for viewer in (None, 0, 1, 2):
        seat = table_view(state, viewer).seats[0]
        assert seat.has_bid
        assert seat.bid == 2
    assert not table_view(state).seats[1].has_bid
    assert table_view(state).seats[1].bid is None


def test_hidden_bids_are_seen_only_by_their_maker_until_revealed() -> None:
    state = round_two(Options(rounds=RoundsPlan.SHORT, bids=BidMode.HIDDEN))
    assert table_view(state).waiting == (0, 1, 2)
    engine.step(state, Bid("p1", 2))
    public = table_view(state).seats[1]
    assert public.has_bid
    assert public.bid is None
    assert public.projected is None
    assert table_view(state, viewer=0).seats[1].bid is None
    assert table_view(state, viewer=1).seats[1].bid == 2
    assert player_view(state, 1).bid == 2
    assert player_view(state, 1).table.seats[1].bid == 2
    assert player_view(state, 0).table.seats[1].bid is None
    assert player_view(state, 1).legal_bids == ()
    assert table_view(state).waiting == (0, 2)
    engine.step(state, Bid("p0", 0))
    engine.step(state, Bid("p2", 1))
    assert [seat.bid for seat in table_view(state).seats] == [0, 2, 1]


def test_secret_bids_show_a_question_mark_until_the_round_ends() -> None:
    options = Options(rounds=RoundsPlan.SHORT, bids=BidMode.SECRET)
    state = round_two(options)
    totals = list(state.totals)
    engine.step(state, Bid("p1", 1))
    assert table_view(state).seats[1].standing() == f"{totals[1]} (?) 0/?"
    engine.step(state, Bid("p0", 1))
    engine.step(state, Bid("p2", 0))
    play(state, "R9 R3 Y7")
    # p0 took a trick; others still cannot see any bid, only their own
    for viewer in (None, 0, 1, 2):
        seats = table_view(state, viewer).seats
        for seat in seats:
            assert seat.has_bid
            assert (seat.bid is not None) == (seat.seat == viewer)
    assert table_view(state).seats[0].standing() == f"{totals[0]} (?) 1/?"
    assert player_view(state, 0).table.seats[0].standing() == f"{totals[0]} ({totals[0] + 30}) 1/1"
    assert player_view(state, 0).bid == 1
    play(state, "B4 B5 W")
    # the round is over: the score sheet reveals every bid
    row = table_view(state).sheet[-1]
    assert row.round == 2
    assert row.bids == (1, 1, 0)
    assert row.won == (1, 0, 1)
    assert row.points == (30, -10, -10)


def test_forbidden_bid_is_public_only_when_the_bids_are() -> None:
    state = round_two(Options(rounds=RoundsPlan.SHORT, notequal=True))
    assert table_view(state).forbidden_bid is None
    engine.step(state, Bid("p0", 1))
    assert table_view(state).forbidden_bid is None  # not the dealer's turn yet
    engine.step(state, Bid("p1", 0))
    assert table_view(state).forbidden_bid == 1
    assert player_view(state, 2).legal_bids == (0, 2)

    secret = round_two(Options(rounds=RoundsPlan.SHORT, notequal=True, bids=BidMode.SECRET))
    engine.step(secret, Bid("p0", 1))
    engine.step(secret, Bid("p1", 0))
    assert table_view(secret).waiting == (2,)
    assert player_view(secret, 2).legal_bids == (0, 2)
    assert table_view(secret).forbidden_bid is None

    hidden = round_two(Options(rounds=RoundsPlan.SHORT, notequal=True, bids=BidMode.HIDDEN))
    engine.step(hidden, Bid("p2", 1))
    engine.step(hidden, Bid("p0", 1))
    assert table_view(hidden).forbidden_bid is None
    engine.step(hidden, Bid("p1", 0))  # 1 + 0 + 1 = 2 tricks: the dealer must change
    assert table_view(hidden).waiting == (2,)
    assert table_view(hidden).forbidden_bid == 1
    assert player_view(hidden, 2).legal_bids == (0, 2)


def test_each_player_view_says_which_bid_is_forbidden_to_them() -> None:
    state = round_two(Options(rounds=RoundsPlan.SHORT, notequal=True))
    assert [player_view(state, seat).forbidden_bid for seat in range(3)] == [None] * 3
    engine.step(state, Bid("p0", 1))
    engine.step(state, Bid("p1", 0))
    assert [player_view(state, seat).forbidden_bid for seat in range(3)] == [None, None, 1]
    assert engine.forbidden_bid(state, 2) == 1
    assert engine.forbidden_bid(state, 0) is None  # p0 has bid: nothing is theirs to bid

    # secret bids: the dealer alone knows what they may not bid
    secret = round_two(Options(rounds=RoundsPlan.SHORT, notequal=True, bids=BidMode.SECRET))
    engine.step(secret, Bid("p0", 2))
    engine.step(secret, Bid("p1", 0))
    assert player_view(secret, 2).forbidden_bid == 0
    assert player_view(secret, 2).legal_bids == (1, 2)
    assert table_view(secret).forbidden_bid is None

    # the bids may already pass the hand: nothing is forbidden
    over = round_two(Options(rounds=RoundsPlan.SHORT, notequal=True))
    engine.step(over, Bid("p0", 2))
    engine.step(over, Bid("p1", 1))
    assert player_view(over, 2).forbidden_bid is None
    assert player_view(over, 2).legal_bids == (0, 1, 2)


def test_open_bids_are_offered_on_the_table_to_the_player_to_act() -> None:
    state = round_two(Options(rounds=RoundsPlan.SHORT, notequal=True))
    assert table_view(state).open_bids == (0, 1, 2)  # p0 bids first
    engine.step(state, Bid("p0", 1))
    engine.step(state, Bid("p1", 0))
    assert table_view(state).open_bids == (0, 2)  # the dealer may not bid 1
    engine.step(state, Bid("p2", 0))
    assert table_view(state).phase is Phase.PLAYING
    assert table_view(state).open_bids == ()

    # private bids are no buttons on the table, nor is a hidden rebid
    hidden = round_two(Options(rounds=RoundsPlan.SHORT, notequal=True, bids=BidMode.HIDDEN))
    assert table_view(hidden).open_bids == ()
    engine.step(hidden, Bid("p2", 1))
    engine.step(hidden, Bid("p0", 1))
    engine.step(hidden, Bid("p1", 0))
    assert table_view(hidden).forbidden_bid == 1
    assert table_view(hidden).open_bids == ()
    secret = round_two(Options(rounds=RoundsPlan.SHORT, bids=BidMode.SECRET))
    assert table_view(secret).open_bids == ()


# --- foresight -------------------------------------------------------------------------------


def test_foresight_views_in_the_one_card_round() -> None:
    options = Options(rounds=RoundsPlan.SHORT, foresight=True)
    state, _ = start(3, {1: deal("R5", "R9", "B2", trump="G1")}, options, first_dealer=0)
    assert table_view(state).foresight
    views = [player_view(state, seat) for seat in range(3)]
    assert [view.hand for view in views] == [(), (), ()]
    assert [view.hand_size for view in views] == [1, 1, 1]
    assert views[0].others == (None, "R9", "B2")
    assert views[1].others == ("R5", None, "B2")
    assert views[2].others == ("R5", "R9", None)
    assert "'R9'" not in repr(views[1])
    assert views[1].legal_bids == (0, 1)
    bid_all(state, [0, 1, 0])
    views = [player_view(state, seat) for seat in range(3)]
    assert [view.play_unseen for view in views] == [False, True, False]
    assert [view.legal_cards for view in views] == [(), (), ()]
    engine.step(state, Play("p1", None))
    assert player_view(state, 1).play_unseen is False
    assert player_view(state, 2).play_unseen is True
    assert player_view(state, 2).others == ("R5", None, None)
    assert table_view(state).trick == ("R9",)
    engine.step(state, Play("p2", None))
    engine.step(state, Play("p0", None))
    # round 2 has two cards each: foresight is off
    assert state.round is not None
    assert state.round.number == 2
    assert not table_view(state).foresight
    view = player_view(state, 0)
    assert view.others == ()
    assert len(view.hand) == 2
    assert view.hand_size == 2
    assert not view.play_unseen


# --- wings in view ---------------------------------------------------------------------------


def test_a_wings_mark_is_seen_only_by_its_owner() -> None:
    state = round_two(Options(rounds=RoundsPlan.SHORT, wings=True))
    engine.step(state, MarkWings("p1", "B5"))
    assert player_view(state, 1).mark == "B5"
    assert player_view(state, 0).mark is None
    assert "'B5'" not in repr(player_view(state, 0))
    assert "'B5'" not in repr(table_view(state))


# --- lobby and game over ---------------------------------------------------------------------


def test_views_in_the_lobby() -> None:
    state = lobby(3)
    table = table_view(state)
    assert table.phase is Phase.LOBBY
    assert table.round == 0
    assert table.dealer == NO_SEAT
    assert [seat.total for seat in table.seats] == [0, 0, 0]
    assert table.waiting == ()
    view = player_view(state, 1)
    assert view.hand == ()
    assert view.legal_bids == ()


def test_views_after_the_game_is_over() -> None:
    state, _ = start(4, first_dealer=3)
    finish(state)
    table = table_view(state)
    assert table.phase is Phase.FINISHED
    assert table.round == 5
    assert len(table.sheet) == 5
    assert table.sheet[-1].totals == tuple(state.totals)
    assert table.places == tuple(places(state.totals))
    assert [seat.total for seat in table.seats] == state.totals
    assert table.waiting == ()
    assert table.last_trick is not None
    assert table.last_trick == state.results[-1].tricks[-1]
    assert player_view(state, 0).hand == ()


def test_a_score_row_is_built_from_a_round_result() -> None:
    state, _ = start(4, first_dealer=3)
    finish(state)
    result = state.results[2]
    row = engine.score_row(result)
    assert (row.round, row.cards) == (result.number, result.cards)
    assert (row.bids, row.won, row.points, row.totals) == (
        result.bids,
        result.won,
        result.points,
        result.totals,
    )
    assert row.last_trick == result.tricks[-1]
    assert engine.score_rows(state) == table_view(state).sheet
    assert [row.last_trick for row in table_view(state).sheet] == [
        result.tricks[-1] for result in state.results
    ]
    # a row built by hand, as older callers do, has no last trick
    assert engine.ScoreRow(1, 1, (0,), (0,), (20,), (20,)).last_trick is None
    no_tricks = dataclasses.replace(result, tricks=())
    assert engine.score_row(no_tricks).last_trick is None


def test_the_score_sheet_follows_the_finished_rounds_through_copies_and_new_states() -> None:
    # the sheet is kept with the state (`GameState.sheet_cache`) and made again only when the
    # finished rounds change: after every command, in a copy, and in a state read anew, it is
    # the sheet made from scratch
    state, _ = play_random_game(4, Options(), 7)
    replay = new_game(4, Options(), 7)
    rng = random.Random(7)
    lengths = set()
    while replay.phase is not Phase.FINISHED:
        expected = tuple(engine.score_row(result) for result in replay.results)
        assert table_view(replay).sheet == expected
        copy = replay.copy()
        assert table_view(copy).sheet == expected
        lengths.add(len(expected))
        engine.step(replay, random_command(replay, rng))
        anew = GameState.from_dict(replay.to_dict())
        assert table_view(anew).sheet == table_view(replay).sheet
    assert lengths == set(range(15))
    assert table_view(replay).sheet == table_view(state).sheet
    assert len(table_view(replay).sheet) == 15
    # a state whose finished rounds were replaced (not appended to) gets their sheet
    older = replay.copy()
    older.results = older.results[:3]
    assert table_view(older).sheet == table_view(replay).sheet[:3]
    older.results = [dataclasses.replace(older.results[0], totals=(1, 2, 3, 4)), *older.results[1:]]
    assert table_view(older).sheet[0].totals == (1, 2, 3, 4)
    assert table_view(older).sheet[1:] == table_view(replay).sheet[1:3]
