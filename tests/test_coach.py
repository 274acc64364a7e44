"""The coach: hints read the player's view alone, offer only legal choices, best first, and are
reproducible; a review of a played game finds a bad player's costly decisions."""

import random

import pytest
from conftest import advance, deal, pid, start

import engine
from bot.ai.coach import BidHint, CardHint, bid_hints, card_hints
from bot.ai.hard import Budget, HardAI
from bot.ai.normal import NormalAI
from bot.ai.review import (
    GAME_MIN_COST,
    Decision,
    Mistake,
    _costliest,
    decisions,
    record_so_far,
    replay,
    review_game,
    review_round,
)
from bot.show.coach import game_review, hint_message, round_review
from bot.show.look import look_of
from bot.table import Settings
from engine import (
    Bid,
    BidMode,
    Card,
    Command,
    GameState,
    Options,
    Phase,
    Play,
    PlayerView,
    RoundsPlan,
    export_record,
    player_view,
    table_view,
)
from engine.cards import SUIT_OF
from engine.randomplay import new_game

SMALL = Budget(bid_samples=24, bid_plays=3000, play_samples=16, play_plays=3000, min_samples=8)
"""A budget small enough for many hints in a test."""
SHORT = RoundsPlan.SHORT


def hint(view: PlayerView, seed: int) -> list[BidHint] | list[CardHint]:
    """The hints a player gets now: for a bid, or for a card."""
    if view.legal_bids:
        return bid_hints(view, random.Random(seed), SMALL)
    return card_hints(view, random.Random(seed), SMALL)


def unseen_moved(state: GameState, seat: int, rng: random.Random) -> GameState:
    """A copy of `state` in which the other players' cards in hand are moved between them, a
    card of a suit for one of the same suit and a Wizard or Jester for either: `seat` sees no
    difference, and every play so far stays legal."""
    other = state.copy()
    rnd = other.round
    assert rnd is not None
    seats = [each for each in range(len(other.players)) if each != seat]
    kinds: dict[str, list[Card]] = {}
    for each in seats:
        for card in rnd.hands[each]:
            kinds.setdefault(str(SUIT_OF[card] or "*"), []).append(card)
    for cards in kinds.values():
        rng.shuffle(cards)
    for each in seats:
        rnd.hands[each] = [kinds[str(SUIT_OF[card] or "*")].pop() for card in rnd.hands[each]]
    return other


@pytest.mark.parametrize("bids", [BidMode.OPEN, BidMode.HIDDEN, BidMode.SECRET])
def test_hints_depend_only_on_the_own_view(bids: BidMode) -> None:
    rng = random.Random(3)
    normal = NormalAI()
    checked = changed = 0
    for game in range(2):
        state = new_game(4, Options(rounds=SHORT, bids=bids), 40 + game)
        while state.phase is not Phase.FINISHED:
            seat = table_view(state).waiting[0]
            view = player_view(state, seat)
            rnd = state.round
            assert rnd is not None
            if rnd.cards >= 3 and (view.legal_bids or len(view.legal_cards) > 1):
                other = unseen_moved(state, seat, rng)
                assert other.round is not None
                assert player_view(other, seat) == view
                changed += other.round.hands != rnd.hands
                assert hint(player_view(other, seat), checked) == hint(view, checked)
                checked += 1
            engine.step(state, normal.decide(view, rng))
    assert checked > 10
    assert changed > checked // 2


def test_notequal_bid_hints_leave_the_forbidden_bid_out() -> None:
    # round 2 is dealt by seat 1, whose Wizard and top trump take two tricks; the others bid
    # 0 + 0 + 0, so notequal forbids the dealer the bid of 2
    hands = deal("R7 G2", "W Y13", "B3 G8", "R4 B11", trump="Y1")
    state, _ = start(4, {2: hands}, Options(rounds=SHORT, notequal=True))
    advance(state, 2)
    for seat in (2, 3, 0):
        engine.step(state, Bid(pid(seat), 0))
    view = player_view(state, 1)
    assert view.forbidden_bid == 2
    hints = bid_hints(view, random.Random(0), SMALL)
    assert [hint.bid for hint in hints] == [1, 0]  # one trick too many beats two
    assert all(hint.chance < 0.1 for hint in hints)


def test_hints_are_legal_sorted_and_reproducible() -> None:
    rng = random.Random(5)
    hard = HardAI(SMALL)
    bid_views = card_views = 0
    for game in range(2):
        options = Options(rounds=SHORT, notequal=True)
        state = new_game(4, options, 60 + game)
        while state.phase is not Phase.FINISHED:
            seat = table_view(state).waiting[0]
            view = player_view(state, seat)
            if view.legal_bids:
                bids = bid_hints(view, random.Random(game), SMALL)
                assert bids == bid_hints(view, random.Random(game), SMALL)
                assert {hint.bid for hint in bids} <= set(view.legal_bids)
                assert view.forbidden_bid not in {hint.bid for hint in bids}
                if len(view.legal_bids) <= 5:
                    assert len(bids) == len(view.legal_bids)
                else:  # those hard races
                    assert 2 <= len(bids) <= 5
                assert all(0.0 <= hint.chance <= 1.0 for hint in bids)
                assert [hint.points for hint in bids] == sorted(
                    (hint.points for hint in bids), reverse=True
                )
                bid_views += 1
            elif view.legal_cards:
                cards = card_hints(view, random.Random(game), SMALL)
                assert cards == card_hints(view, random.Random(game), SMALL)
                assert 1 <= len(cards) <= min(3, len(view.legal_cards))
                assert len({hint.card for hint in cards}) == len(cards)
                assert all(hint.card in view.legal_cards for hint in cards)
                assert [hint.points for hint in cards] == sorted(
                    (hint.points for hint in cards), reverse=True
                )
                card_views += 1
            engine.step(state, hard.decide(view, rng))
    assert bid_views > 20
    assert card_views > 20


def test_a_player_who_bid_zero_is_told_to_duck() -> None:
    # round 2 is dealt by seat 1: seat 2 leads B9, seat 3 (void) plays R4, seat 0 (bid 0) follows
    state, _ = start(4, {2: deal("B13 B2", "Y3 G5", "B9 G7", "R4 Y8", trump="G1")})
    advance(state, 2)
    for seat, bid in [(2, 1), (3, 0), (0, 0), (1, 0)]:
        engine.step(state, Bid(pid(seat), bid))
    engine.step(state, Play(pid(2), Card("B9")))
    engine.step(state, Play(pid(3), Card("R4")))
    hints = card_hints(player_view(state, 0), random.Random(0), SMALL)
    assert [hint.card for hint in hints] == ["B2", "B13"]
    assert hints[0].points > hints[1].points + 20


def test_a_card_hint_names_the_cards_that_play_alike() -> None:
    # round 3 is dealt by seat 2: seat 3 leads B9, seat 0 (bid 0) follows with B2, B3 or B13;
    # B2 and B3 play alike (no unseen card between them), B13 does not (B4 to B12 lie between)
    deals = {3: deal("B2 B3 B13", "R1 R2 R3", "G1 G2 G3", "B9 Y1 Y2", trump="R5")}
    state, _ = start(4, deals)
    advance(state, 3)
    for seat, bid in [(3, 1), (0, 0), (1, 0), (2, 0)]:
        engine.step(state, Bid(pid(seat), bid))
    engine.step(state, Play(pid(3), Card("B9")))
    view = player_view(state, 0)
    hints = card_hints(view, random.Random(0), SMALL)
    look = look_of(Settings())
    lines = hint_message(look, view, [], hints).text.splitlines()
    two, three, king = (look.card(Card(card)) for card in ("B2", "B3", "B13"))
    assert lines[1].startswith(f"{two} or {three}: "), lines
    assert lines[2].startswith(f"{king}: "), lines
    assert [(hint.card, hint.alike) for hint in hints] == [("B2", ("B3",)), ("B13", ())]
    german = hint_message(look_of(Settings(language="de")), view, [], hints).text
    assert f"{two} oder {three}: " in german, german


TRICK_BETWEEN = {3: deal("B11 B13 J", "G1 G2 G3", "Y1 Y2 Y3", "B12 Y4 Y5", trump="R5")}
"""Round 3, dealt by seat 2: seat 3 leads B12, which nobody else can follow or trump; seat 0
follows with B11 (loses the trick), B13 (takes it) or the Jester. No unseen card lies between B11
and B13, but the trick's B12 does: they do not play alike."""


def trick_between(own_bid: int) -> GameState:
    """`TRICK_BETWEEN` bid (seat 3 bids 1, seat 0 `own_bid`, the others 0), B12 led."""
    state, _ = start(4, TRICK_BETWEEN)
    advance(state, 3)
    for seat, bid in [(3, 1), (0, own_bid), (1, 0), (2, 0)]:
        engine.step(state, Bid(pid(seat), bid))
    engine.step(state, Play(pid(3), Card("B12")))
    return state


def test_cards_with_one_of_the_trick_between_them_do_not_play_alike() -> None:
    view = player_view(trick_between(0), 0)
    hints = card_hints(view, random.Random(0), SMALL)
    assert sorted((hint.card, hint.alike) for hint in hints) == [
        ("B11", ()),
        ("B13", ()),
        ("J", ()),
    ]
    assert hints[-1].card == "B13"  # it takes the trick a bid of 0 must lose
    # hard weighs B13 too: with a bid of 1 it is the one card that takes a trick
    assert HardAI(SMALL).play(player_view(trick_between(1), 0), random.Random(0)) == "B13"


def test_a_review_names_the_cards_that_play_like_the_better_one() -> None:
    # the hint's deal above: seat 0 (bid 0) follows B9 with B13, which wins the trick; B2 and
    # B3 would have lost it, and play alike: the review names them both, as the hint does
    deals = {3: deal("B2 B3 B13", "R1 R2 R3", "G1 G2 G3", "B9 Y1 Y2", trump="R5")}
    state, _ = start(4, deals)
    advance(state, 3)
    for seat, bid in [(3, 1), (0, 0), (1, 0), (2, 0)]:
        engine.step(state, Bid(pid(seat), bid))
    engine.step(state, Play(pid(3), Card("B9")))
    engine.step(state, Play(pid(0), Card("B13")))
    advance(state, 4)
    found = review_round(record_so_far(state), 0, 3, random.Random(1), SMALL)
    lead = [mistake for mistake in found if mistake.trick == 1]
    assert [(m.chosen, m.better, m.alike) for m in lead] == [("B13", "B2", ("B3",))], found
    look = look_of(Settings())
    text = round_review(look, pid(0), 3, found).text
    two, three, king = (look.card(Card(card)) for card in ("B2", "B3", "B13"))
    assert f"you played {king}; {two} or {three} was worth " in text, text
    german = round_review(look_of(Settings(language="de")), pid(0), 3, found).text
    assert f"{two} oder {three}" in german, german


def test_foresight_bid_hints_are_exact_and_card_hints_empty() -> None:
    # round 1 of foresight, dealt by seat 0: seat 1 leads its unseen card against R2, J, B7
    options = Options(rounds=SHORT, foresight=True)
    state, _ = start(4, {1: deal("R2", "W", "J", "B7", trump="R5")}, options)
    view = player_view(state, 1)
    assert view.hand == ()
    hints = bid_hints(view, random.Random(0), SMALL)
    # 56 cards unseen; 4 Wizards and the trumps R3, R4, R6 to R13 take the trick: 14 of them
    assert hints == [
        BidHint(0, 0.75 * 20 - 0.25 * 10, 0.75),
        BidHint(1, 0.25 * 30 - 0.75 * 10, 0.25),
    ]
    assert bid_hints(view, random.Random(9), SMALL) == hints
    for seat, bid in [(1, 0), (2, 0), (3, 0), (0, 0)]:
        engine.step(state, Bid(pid(seat), bid))
    playing = player_view(state, 1)
    assert playing.play_unseen
    assert card_hints(playing, random.Random(0), SMALL) == []


def test_no_hints_for_a_player_who_does_not_act() -> None:
    state, _ = start(4)
    idle = next(seat for seat in range(4) if seat not in table_view(state).waiting)
    view = player_view(state, idle)
    assert bid_hints(view, random.Random(0), SMALL) == []
    assert card_hints(view, random.Random(0), SMALL) == []


# --- reviews ------------------------------------------------------------------------------------

BAD = 0
"""The seat of the bad player: it always bids 0 and always plays its strongest card."""
FIRST_DEALER = 2
"""Round 2 is dealt by seat 3: the bad player leads it."""
LEAD = deal("J B13", "R5 G7", "R9 G2", "G11 R3", trump="Y1")
"""Round 2: the bad player (bid 0) leads B13, which nobody can follow or trump, rather than J."""
WIZARDS = {
    3: deal("W W B2", "R9 G8 B7", "R13 J Y1", "Y9 G2 B1", trump="R5"),
    4: deal("W W Y4 B5", "R9 G8 B7 Y10", "R13 J Y1 G11", "Y9 G2 B1 R3", trump="G5"),
    5: deal("W W R12 B3 G6", "R9 G8 B7 Y10 J", "R13 J Y1 G11 B12", "Y9 G2 B1 R3 Y5", trump="R5"),
}
"""Rounds in which the bad player holds two Wizards."""
DEALS = {2: LEAD} | WIZARDS


def bad_move(view: PlayerView) -> Command:
    """Bid 0 whatever the hand; play the strongest legal card (Wizard, high trump, high card)."""
    if view.legal_bids:
        return Bid(view.player, min(view.legal_bids))
    if view.play_unseen:
        return Play(view.player, None)
    trump = view.table.trump

    def strength(card: Card) -> tuple[bool, bool, str]:
        return card == "W", SUIT_OF[card] == trump and trump is not None, card[1:].zfill(2)

    return Play(view.player, max(view.legal_cards, key=strength))


@pytest.fixture(scope="module")
def bad_game() -> GameState:
    """A short game of the bad player against hard and two normal players."""
    state, _ = start(4, DEALS, Options(rounds=SHORT), FIRST_DEALER)
    hard, normal = HardAI(SMALL), NormalAI()
    rng = random.Random(11)
    while state.phase is not Phase.FINISHED:
        seat = table_view(state).waiting[0]
        view = player_view(state, seat)
        if seat == BAD:
            engine.step(state, bad_move(view))
        else:
            engine.step(state, (hard if seat == 1 else normal).decide(view, rng))
    return state


def check_mistakes(mistakes: list[Mistake], least: float) -> None:
    assert len(mistakes) <= 3
    assert [mistake.cost for mistake in mistakes] == sorted(
        (mistake.cost for mistake in mistakes), reverse=True
    )
    for mistake in mistakes:
        assert mistake.better != mistake.chosen
        assert mistake.cost >= least
        assert mistake.cost > 0.0
        assert mistake.cost > 2 * mistake.error  # clear of the measure's noise
        assert mistake.better_points - mistake.points == pytest.approx(mistake.cost)
        assert (mistake.trick is None) == (mistake.kind == "bid")


def test_a_review_finds_the_bad_players_costly_decisions(bad_game: GameState) -> None:
    record = export_record(bad_game)
    game = review_game(record, BAD, random.Random(1), SMALL)
    check_mistakes(game, 0.0)
    assert len(game) == 3
    assert all(mistake.cost >= 5.0 for mistake in game)
    for number in WIZARDS:  # two Wizards and a bid of 0: hard bids at least one
        found = review_round(record, BAD, number, random.Random(1), SMALL)
        check_mistakes(found, 5.0)
        bid = [mistake for mistake in found if mistake.kind == "bid"]
        assert bid
        assert bid[0].chosen == 0
        assert isinstance(bid[0].better, int)
        assert bid[0].better >= 1
        assert bid[0].cost >= 20.0
    lead = review_round(record, BAD, 2, random.Random(1), SMALL)
    check_mistakes(lead, 5.0)
    assert [(mistake.kind, mistake.trick, mistake.chosen) for mistake in lead] == [
        ("card", 1, "B13")
    ]
    assert lead[0].better == "J"
    for mistake in game:  # the same figures as the review of the round alone
        assert mistake in review_round(record, BAD, mistake.round, random.Random(1), SMALL)
    assert review_game(record, "Player 0", random.Random(1), SMALL) == game


def test_a_review_never_reports_a_choice_hard_shares(bad_game: GameState) -> None:
    record = export_record(bad_game)
    for seat in (1, 2):
        found = decisions(record, seat, random.Random(2), SMALL)
        assert len(found) > 5
        for item in found:
            if item.hard == item.chosen:
                assert item.points is None
                assert item.cost == 0.0
        check_mistakes(review_game(record, seat, random.Random(2), SMALL), 0.0)
        for number in range(1, 6):
            check_mistakes(review_round(record, seat, number, random.Random(2), SMALL), 5.0)


def test_a_game_still_running_is_reviewed_by_its_finished_rounds() -> None:
    state, _ = start(4, DEALS, Options(rounds=SHORT), FIRST_DEALER)
    while state.round is not None and state.round.number < 4:
        engine.step(state, bad_move(player_view(state, table_view(state).waiting[0])))
    record = record_so_far(state)
    assert len(record["rounds"]) == 3
    found = review_round(record, BAD, 3, random.Random(1), SMALL)
    check_mistakes(found, 5.0)
    assert any(mistake.kind == "bid" for mistake in found)
    assert review_round(record, BAD, 4, random.Random(1), SMALL) == []
    with pytest.raises(ValueError, match="not one player"):
        review_game(record, "nobody", random.Random(1), SMALL)


def test_a_foresight_bid_is_reviewed_exactly() -> None:
    # round 1 of foresight (the hints' test above): seat 1 bids 1 with a chance of 1 in 4
    options = Options(rounds=SHORT, foresight=True)
    state, _ = start(4, {1: deal("R2", "W", "J", "B7", trump="R5")}, options)
    while state.phase is not Phase.FINISHED:
        view = player_view(state, table_view(state).waiting[0])
        first = view.table.round == 1 and view.seat == 1 and view.legal_bids
        engine.step(state, Bid(view.player, 1) if first else bad_move(view))
    found = review_round(export_record(state), 1, 1, random.Random(0), SMALL)
    assert found == [Mistake(1, None, "bid", 1, 0, 0.0, 12.5, 12.5, 0.0)]


def test_the_replay_of_a_record_ends_where_the_game_did(bad_game: GameState) -> None:
    record = export_record(bad_game)
    moves = list(replay(record))  # one state, each move made on it in turn
    state = moves[-1][0]
    assert state.phase is Phase.FINISHED
    assert state.totals == bad_game.totals
    assert [result.tricks for result in state.results] == [
        result.tricks for result in bad_game.results
    ]


def test_a_bids_chance_reads_as_stats_percentages_do() -> None:
    """Rounded to a whole per cent, as /stats writes them ("86%"): a chance that is not quite
    none or all reads "<1%" or ">99%", never "0%" for a bid that may be met, nor "100%" for one
    that may be missed."""
    state, _ = start(4)
    view = player_view(state, state.round.turn if state.round else 0)
    bids = [BidHint(1, 29.9, 0.996), BidHint(0, 12.0, 0.86), BidHint(2, -19.6, 0.004)]
    lines = hint_message(look_of(Settings()), view, bids, []).text.splitlines()
    assert lines[1:4] == [
        "Bid 1: +30 points expected, met >99% of the time",
        "Bid 0: +12 points expected, met 86% of the time",
        "Bid 2: −20 points expected, met <1% of the time",
    ]
    exact = [BidHint(0, 20.0, 1.0), BidHint(1, -10.0, 0.0)]
    lines = hint_message(look_of(Settings()), view, exact, []).text.splitlines()
    assert lines[1:3] == [
        "Bid 0: +20 points expected, met 100% of the time",
        "Bid 1: −10 points expected, met 0% of the time",
    ]
    german = hint_message(look_of(Settings(language="de")), view, bids, []).text
    assert "in >99% der Fälle" in german, german


def test_a_games_review_never_says_a_choice_was_worth_0_points_more() -> None:
    """A gain that rounds to 0 points is no lesson, however sure (an exact foresight bid, or a
    card that differs in a few deals alone): the game's review leaves it out."""
    exact = Decision(1, None, "bid", 0, 1, 4.6, 5.0, 0.0)  # foresight: exact, 0.4 better
    sure = Decision(2, 1, "card", "B2", "B9", 1.0, 1.45, 0.1)
    worth = Decision(3, None, "bid", 1, 2, 3.0, 4.5, 0.2)
    found = _costliest([exact, sure, worth], GAME_MIN_COST)
    assert [(m.round, m.cost) for m in found] == [(3, 1.5)]
    text = game_review(look_of(Settings()), pid(0), found).text
    assert "worth 0 points" not in text
    assert "bidding 2 was worth 2 points more" in text, text
