"""The hard AI: its fast simulation agrees with the engine, its deals respect what was seen,
its decisions are legal under every option and reproducible, and its bids are sensible."""

import dataclasses
import math
import random
from collections.abc import Callable

import pytest
from conftest import advance, deal, pid, start

import engine
from bot.ai.fastsim import (
    SUIT,
    TO_CARD,
    _choose,
    _lead,
    _normal_card,
    _patient,
    later_tricks,
    playout,
    seen_masks,
    shown_list,
    to_ints,
    trick_state,
    trump_index,
    winner,
)
from bot.ai.hard import Budget, Deal, HardAI, Standing, distinct, race, standing
from bot.ai.normal import NormalAI
from bot.ai.sampler import (
    LEAN_MOST,
    PRIOR_ROUNDS,
    bid_weight,
    deal_unseen,
    guess_bid,
    read_bids,
    read_view,
    sample_deals,
)
from engine import (
    DECK,
    Bid,
    BidMode,
    ChooseTrump,
    GameState,
    Options,
    Phase,
    Play,
    RoundsPlan,
    Suit,
    player_view,
    table_view,
    waiting_seats,
)
from engine.randomplay import new_game, random_command
from engine.tricks import legal_cards, trick_winner

SMALL = Budget(bid_samples=6, bid_plays=300, play_samples=4, play_plays=200, min_samples=2)
"""A budget small enough for many test games."""
SHORT, TOURNAMENT = RoundsPlan.SHORT, RoundsPlan.TOURNAMENT
HIDDEN, SECRET = BidMode.HIDDEN, BidMode.SECRET


# --- the fast simulation against the engine -----------------------------------------------------


def test_fast_trick_winner_is_the_engines() -> None:
    rng = random.Random(1)
    for _ in range(5000):
        cards = list(DECK)
        rng.shuffle(cards)
        trick = cards[: rng.randint(1, 6)]
        trump = rng.choice([None, *Suit])
        assert winner(to_ints(trick), trump_index(trump)) == trick_winner(trick, trump), trick


Pick = Callable[[GameState, int, list[int], int, int], int]
"""A rollout policy as the engine test drives it: (state, seat, hand, trump, need) -> card."""


def round_played_through_engine(state: GameState, bids: list[int], pick: Pick) -> list[int]:
    """Play the round in progress through `engine.step`, each card chosen by `pick` and checked
    legal; the tricks each seat took."""
    rnd = state.round
    assert rnd is not None
    number, trump = rnd.number, trump_index(rnd.trump)
    while state.round is not None and state.round.number == number:
        now = state.round
        seat = now.turn
        need = bids[seat] - now.won[seat]
        card = TO_CARD[pick(state, seat, to_ints(now.hands[seat]), trump, need)]
        assert card in legal_cards(now.hands[seat], now.trick)
        engine.step(state, Play(pid(seat), card))
    return list(state.results[-1].won)


def at_play(players: int, seed: int, number: int) -> GameState:
    """A game of random players stopped where the play of round `number` begins."""
    state = new_game(players, Options(), seed)
    rng = random.Random(seed)
    while state.round is not None and (
        state.round.number < number or state.phase is not Phase.PLAYING
    ):
        engine.step(state, random_command(state, rng))
    return state


def greedy(state: GameState, seat: int, hand: list[int], trump: int, need: int) -> int:
    """`_choose` on the trick in progress."""
    rnd = state.round
    assert rnd is not None
    trick = to_ints(rnd.trick)
    lead, wizard, _, best = trick_state(trick, trump)
    return _choose(hand, trump, lead, wizard, best, len(trick), len(rnd.hands), need)


def modelled(rand: random.Random) -> Pick:
    """Seat 0 (`me`) greedy, the others as modelled on normal: leads drawn by `_lead`, follows
    by `_patient` while they need tricks and no Wizard lies in the trick, with `gone` the ranks
    seen played and turned up (`rand` drawn from in the order the playout draws)."""

    def pick(state: GameState, seat: int, hand: list[int], trump: int, need: int) -> int:
        rnd = state.round
        assert rnd is not None
        trick = to_ints(rnd.trick)
        lead, wizard, _, best = trick_state(trick, trump)
        if seat == 0 or (trick and (need <= 0 or wizard)):
            return greedy(state, seat, hand, trump, need)
        turned = [rnd.trump_card] if rnd.trump_card is not None else []
        gone = seen_masks(to_ints([*_played(state), *turned]))
        players = len(rnd.hands)
        if not trick:
            return _lead(hand, trump, need, players, gone, rand)
        return _patient(hand, trump, lead, best, len(trick), players, need, gone, rand)

    return pick


def test_fast_playout_plays_legally_and_scores_as_the_engine() -> None:
    for game in range(60):
        state = at_play(3 + game % 4, game, 1 + game % 8)
        bids, fast = playout_from_start(state, "greedy", game)
        assert round_played_through_engine(state, bids, greedy) == fast


def playout_from_start(state: GameState, model: str, seed: int) -> tuple[list[int], list[int]]:
    """The bids of the round whose play begins in `state`, and the tricks a playout from there
    gives them: every seat greedy (`model` "greedy"), or seat 0 greedy and the others modelled
    on `normal`: "fitted" (drawing from `random.Random(seed)`) or "exact" (as it reckons)."""
    rnd = state.round
    assert rnd is not None
    players = len(rnd.hands)
    bids = [bid or 0 for bid in rnd.bids]
    turned = to_ints([rnd.trump_card]) if rnd.trump_card is not None else []
    shown = shown_list([[]] * players, turned[0] if turned else -1, [set()] * players)
    modelled = model != "greedy"
    fast = playout(
        [to_ints(hand) for hand in rnd.hands],
        trump_index(rnd.trump),
        rnd.leader,
        [],
        [0] * players,
        bids,
        -1,
        0 if modelled else -1,
        seen_masks(turned) if modelled else None,
        random.Random(seed) if modelled else None,
        shown if model == "exact" else None,
    )
    return bids, fast


def test_patient_playout_plays_legally_and_scores_as_the_engine() -> None:
    for game in range(40):
        state = at_play(3 + game % 4, 100 + game, 2 + game % 8)
        bids, fast = playout_from_start(state, "fitted", game)
        assert round_played_through_engine(state, bids, modelled(random.Random(game))) == fast


def as_normal(state: GameState, seat: int, hand: list[int], trump: int, need: int) -> int:
    """Seat 0 greedy, the others by `_normal_card`, its inputs read afresh from the engine's
    state (the cards seen, the Wizards and Jesters among them, the voids shown)."""
    rnd = state.round
    assert rnd is not None
    if seat == 0:
        return greedy(state, seat, hand, trump, need)
    know = read_view(player_view(state, seat), read=False)
    turned = to_ints([rnd.trump_card]) if rnd.trump_card is not None else []
    gone = seen_masks(to_ints(_played(state)) + turned)
    shown = shown_list(know.played, turned[0] if turned else -1, know.voids)
    lead, wizard, _, best = trick_state(know.trick, trump)
    bids = [bid or 0 for bid in rnd.bids]
    players = len(rnd.hands)
    return _normal_card(
        hand, trump, lead, wizard, best, len(know.trick), players, seat, bids, know.won, gone, shown
    )


def test_exact_playout_plays_legally_and_scores_as_the_engine() -> None:
    """A playout with `shown` keeps the cards seen and the voids as the game shows them."""
    for game in range(40):
        state = at_play(3 + game % 4, 200 + game, 2 + game % 8)
        bids, fast = playout_from_start(state, "exact", game)
        assert round_played_through_engine(state, bids, as_normal) == fast


def test_normal_card_is_the_card_normal_plays() -> None:
    """`_normal_card` reckons as `NormalAI.play` does, on ints: over whole games of `normal`
    alone it names `normal`'s card but where two cards' expected points tie to the cent one
    way and not the other (the fast model's fill of the deck is rounded to 1/1000)."""
    normal = NormalAI()
    same = total = 0
    for game in range(8):
        players = 3 + game % 4
        state = new_game(players, Options(), 500 + game)
        rng = random.Random(game)
        while state.phase is not Phase.FINISHED:
            seat = waiting_seats(state)[0]
            view = player_view(state, seat)
            command = normal.decide(view, rng)
            if isinstance(command, Play) and len(view.legal_cards) > 1:
                know = read_view(view, read=False)
                turned = to_ints([view.table.trump_card]) if view.table.trump_card else []
                gone = seen_masks([card for cards in know.played for card in cards] + turned)
                shown = shown_list(know.played, turned[0] if turned else -1, know.voids)
                lead, wizard, _, best = trick_state(know.trick, know.trump)
                bids = [bid or 0 for bid in know.bids]
                card = _normal_card(
                    know.hand,
                    know.trump,
                    lead,
                    wizard,
                    best,
                    len(know.trick),
                    players,
                    seat,
                    bids,
                    know.won,
                    gone,
                    shown,
                )
                total += 1
                same += TO_CARD[card] == command.card
            engine.step(state, command)
    assert total > 2500
    assert same >= total - 3


def _played(state: GameState) -> list[str]:
    """The cards played so far in the round in progress."""
    rnd = state.round
    if rnd is None:
        return []
    return [card for trick in rnd.tricks for card in trick.cards] + list(rnd.trick)


def test_later_tricks_counts_only_cards_still_out() -> None:
    hand = to_ints(["B12", "B3", "W", "J"])
    fresh = later_tricks(hand, trump_index(Suit.BLUE), 4, seen_masks([]))
    assert fresh[2] > 0.9
    assert fresh[3] == 0.0
    gone = seen_masks(to_ints(["B13"]))  # the B13 was played: the B12 is the top trump now
    assert later_tricks(hand, trump_index(Suit.BLUE), 4, gone)[0] > fresh[0]


# --- what the AI knows ---------------------------------------------------------------------------


def mid_round(players: int, seed: int, tricks: int) -> GameState:
    """A game of random players stopped in round 8 after `tricks` tricks and a card or two."""
    state = new_game(players, Options(), seed)
    rng = random.Random(seed)
    while True:
        rnd = state.round
        assert rnd is not None
        playing = state.phase is Phase.PLAYING and len(rnd.tricks) == tricks
        if rnd.number == 8 and playing and len(rnd.trick) == seed % players:
            return state
        engine.step(state, random_command(state, rng))


def test_deals_respect_hand_sizes_voids_and_seen_cards() -> None:
    for seed in range(20):
        state = mid_round(4, seed, 4)
        rnd = state.round
        assert rnd is not None
        seat = rnd.turn
        know = read_view(player_view(state, seat))
        assert sorted(know.hand) == sorted(to_ints(rnd.hands[seat]))
        for other in range(4):
            for suit in know.voids[other]:  # a void shown is real
                assert all(SUIT[card] != suit for card in to_ints(rnd.hands[other]))
        rng = random.Random(seed)
        for hands in [*sample_deals(know, 10, 30, rng, -1), deal_unseen(know, rng)]:
            assert hands[seat] == know.hand
            for other in range(4):
                assert len(hands[other]) == len(rnd.hands[other])
                if other != seat:
                    assert all(SUIT[card] not in know.voids[other] for card in hands[other])
            dealt = sorted(
                card for other, hand in enumerate(hands) if other != seat for card in hand
            )
            pool = list(know.unseen)
            for card in dealt:
                pool.remove(card)  # only unseen cards are dealt


# --- legal, reproducible, blind -------------------------------------------------------------------

OPTION_SETS = [
    (Options(rounds=SHORT), 3),
    (Options(rounds=SHORT, bids=HIDDEN, notequal=True), 4),
    (Options(rounds=SHORT, bids=SECRET, notequal=True), 5),
    (Options(rounds=SHORT, bids=SECRET), 6),
    (Options(rounds=SHORT, notequal=True, wings=True), 4),
    (Options(rounds=SHORT, foresight=True, bids=HIDDEN), 3),
    (Options(rounds=TOURNAMENT, foresight=True), 4),
    (Options(rounds=TOURNAMENT, bids=HIDDEN), 5),
    (Options(dmmixed=True), 6),
    (Options(foresight=True, notequal=True), 5),
]


@pytest.mark.parametrize(
    ("options", "players"),
    OPTION_SETS,
    ids=lambda value: value.describe() if isinstance(value, Options) else f"{value}p",
)
def test_hard_plays_legally_under_every_option(options: Options, players: int) -> None:
    ai = HardAI(SMALL)
    for game in range(2):
        state = new_game(players, options, seed=game)
        rng = random.Random(game)
        while state.phase is not Phase.FINISHED:
            seat = rng.choice(table_view(state).waiting)
            if seat == players - 1 and options.wings:  # a random player marking wings
                engine.step(state, random_command(state, rng, wings=0.3))
                continue
            view = player_view(state, seat)
            command = ai.decide(view, rng)
            if state.phase is Phase.TRUMP:
                assert isinstance(command, ChooseTrump)
            elif state.phase is Phase.BIDDING:
                assert isinstance(command, Bid)
                assert command.bid in view.legal_bids
            else:
                assert isinstance(command, Play)
                assert (
                    command.card is None if view.play_unseen else command.card in view.legal_cards
                )
            engine.step(state, command)


def test_same_view_and_seed_same_decision() -> None:
    ai = HardAI(Budget(play_samples=8, bid_samples=16, min_samples=4))
    for seed in range(6):
        state = mid_round(4, seed, 2)
        view = player_view(state, state.round.turn if state.round else 0)
        first = ai.decide(view, random.Random(seed))
        assert all(ai.decide(view, random.Random(seed)) == first for _ in range(2))


def test_nothing_to_decide_is_an_error() -> None:
    state = new_game(3, Options(), 1)
    idle = next(seat for seat in range(3) if seat not in table_view(state).waiting)
    with pytest.raises(ValueError, match="nothing to decide"):
        HardAI(SMALL).decide(player_view(state, idle), random.Random(0))


# --- sensible bids and plays ----------------------------------------------------------------------


def test_hard_draws_the_deals_of_one_sampling_in_chunks() -> None:
    """`HardAI` (and the coach, by `draw_deals`) draw and weigh candidates DRAW_CHUNK at a time
    (a compiled call must not hold the GIL long) and resample them once: the same deals as
    `sample_deals` in one call."""
    hard = HardAI()
    weighed = 0
    for seed in range(12):
        state = mid_round(4, seed, 4)
        rnd = state.round
        assert rnd is not None
        know = read_view(player_view(state, rnd.turn))
        weighed += any(bid is not None for bid in know.bids)
        for count in (1, 40, 300):
            chunked = hard._drawer(know, random.Random(seed), -1)(count)
            whole = sample_deals(know, count, count * hard.budget.pool, random.Random(seed), -1)
            assert chunked == whole
    assert weighed >= 6  # most of the positions have bids to weigh the deals by


def test_notequal_dealer_with_a_top_trump_does_not_bid_zero() -> None:
    # round 3 is dealt by seat 2; the others bid 1 + 1 + 0, so the dealer may not bid 1
    options = Options(rounds=SHORT, notequal=True)
    hands = deal("R2 G4 B5", "R9 G8 B7", "R13 W Y1", "Y9 G2 B1", trump="R5")
    state, _ = start(4, {3: hands}, options)
    advance(state, 3)
    for seat, bid in [(3, 1), (0, 1), (1, 0)]:
        engine.step(state, Bid(pid(seat), bid))
    view = player_view(state, 2)
    assert view.legal_bids == (0, 2, 3)
    assert HardAI().decide(view, random.Random(0)) == Bid(pid(2), 2)


def test_hidden_rebid_with_a_top_trump_does_not_drop_to_zero() -> None:
    # hidden bids add up to 3 = the cards: the dealer (seat 2) must change its bid of 1
    options = Options(rounds=SHORT, notequal=True, bids=HIDDEN)
    hands = deal("R2 G4 B5", "R9 G8 B7", "R13 J Y1", "Y9 G2 B1", trump="R5")
    state, _ = start(4, {3: hands}, options)
    advance(state, 3)
    for seat, bid in [(3, 1), (0, 1), (1, 0), (2, 1)]:
        engine.step(state, Bid(pid(seat), bid))
    view = player_view(state, 2)
    assert view.legal_bids == (0, 2, 3)
    assert HardAI().decide(view, random.Random(0)) != Bid(pid(2), 0)


def test_a_player_who_bid_zero_ducks() -> None:
    # round 2 is dealt by seat 1: seat 2 leads B9, seat 3 (void) plays R4, seat 0 (bid 0) follows
    options = Options(rounds=SHORT)
    state, _ = start(4, {2: deal("B13 B2", "Y3 G5", "B9 G7", "R4 Y8", trump="G1")}, options)
    advance(state, 2)
    for seat, bid in [(2, 1), (3, 0), (0, 0), (1, 0)]:
        engine.step(state, Bid(pid(seat), bid))
    engine.step(state, Play(pid(2), "B9"))
    engine.step(state, Play(pid(3), "R4"))
    view = player_view(state, 0)
    assert view.legal_cards == ("B13", "B2")
    assert HardAI().decide(view, random.Random(0)) == Play(pid(0), "B2")


def test_cards_with_nothing_unseen_between_play_alike() -> None:
    unseen = [card for card in range(52) if card not in to_ints(["B3", "B4", "B5", "B7", "G2"])]
    unseen.remove(to_ints(["B6"])[0])  # played: gone
    cards = to_ints(["B3", "B4", "B5", "B7", "G2", "W", "J"])
    assert [TO_CARD[card] for card in distinct(cards, unseen)] == ["B3", "G2", "W", "J"]
    unseen.append(to_ints(["B6"])[0])
    assert [TO_CARD[card] for card in distinct(cards, unseen)] == ["B3", "B7", "G2", "W", "J"]


def test_a_race_drops_the_clearly_worse_and_spends_the_rest_on_the_others() -> None:
    drawn: list[int] = []
    calls: list[tuple[int, int]] = []

    def draw(count: int) -> list[Deal]:
        start = len(drawn)
        drawn.extend(range(start, start + count))
        return [[[number]] for number in range(start, start + count)]

    def score(arm: int, deal: Deal) -> float:
        calls.append((arm, deal[0][0]))
        noise = deal[0][0] % 3  # the same on a deal for every arm: paired
        return [10.0, 10.0 + (deal[0][0] % 2) - 0.5, 4.0][arm] + noise

    # cost 1, 600 simulated cards, at most 100 deals, at least 10: the first 50 deals for all
    # three (150), then arm 2 (6 points worse on every deal) is dropped and the two others
    # share the other 450 up to 100 deals each
    means = race(3, draw, score, 1, 600, 100, 10, 0.0)
    assert means[2] == float("-inf")
    assert means[0] == pytest.approx(11.0, abs=0.05)
    assert means[1] == pytest.approx(11.0, abs=0.05)
    assert sum(arm == 2 for arm, _ in calls) == 50
    assert sum(arm == 0 for arm, _ in calls) == sum(arm == 1 for arm, _ in calls) == 100
    assert len(drawn) == 100


def test_a_wall_clock_cap_still_gives_a_legal_move() -> None:
    ai = HardAI(Budget(max_ms=0.0001))
    for seed in range(4):
        state = mid_round(5, seed, 1)
        rnd = state.round
        assert rnd is not None
        view = player_view(state, rnd.turn)
        command = ai.decide(view, random.Random(seed))
        assert isinstance(command, Play)
        assert command.card in view.legal_cards


# --- the standing: the chance of winning the game -----------------------------------------------


def test_the_last_round_counts_only_who_finishes_first() -> None:
    # seat 0 bids 1 and takes none: 90, against 90 + 20 (bid 0 met) and 50 - 10
    assert Standing((100, 90, 50), 0.0).win_chance(0, [1, 0, 0], [0, 0, 1]) == 0.0
    level = Standing((100, 70, 50), 0.0)
    assert level.win_chance(0, [1, 0, 0], [0, 0, 1]) == 0.5  # 90, 90 and 40: a shared win
    assert level.win_chance(0, [1, 0, 0], [1, 0, 0]) == 1.0  # 130, 90 and 70


def test_the_chance_grows_with_the_lead_while_rounds_remain() -> None:
    even = Standing(totals=(0, 0, 0, 0), spread=60.0)
    assert even.win_chance(0, [0] * 4, [0] * 4) == pytest.approx(0.5**3)
    chances = [
        Standing(totals=(lead, 0, 0, 0), spread=60.0).win_chance(0, [0] * 4, [0] * 4)
        for lead in (-40, 0, 40, 120)
    ]
    assert chances == sorted(chances)
    assert chances[-1] > 0.8 > chances[1]


def test_the_standing_is_read_from_the_view() -> None:
    state = new_game(4, Options(), 3)
    rng = random.Random(3)
    while state.round is not None and (state.round.number < 14 or state.phase is not Phase.BIDDING):
        engine.step(state, random_command(state, rng))
    view = player_view(state, waiting_seats(state)[0])
    early = standing(view)
    assert early.totals == tuple(state.totals)
    assert early.spread == pytest.approx(6 + 11 * math.sqrt(15))  # one round to come, 15 cards
    while state.round is not None and state.round.number < 15:
        engine.step(state, random_command(state, rng))
    assert standing(player_view(state, 0)).spread == 0.0


# --- reading the others' bids by the game so far ------------------------------------------------


def bidding_view_after(rounds: int, seed: int) -> engine.PlayerView:
    """A 4-player game played at random up to the bids of round `rounds + 1`, once every bid
    before the last one is made: the view of the last bidder."""
    state = new_game(4, Options(), seed)
    rng = random.Random(seed)
    while True:
        rnd = state.round
        assert rnd is not None
        bidding = rnd.number == rounds + 1 and state.phase is Phase.BIDDING
        if bidding and sum(bid is not None for bid in rnd.bids) == 3:
            return player_view(state, waiting_seats(state)[0])
        engine.step(state, random_command(state, rng))


def test_the_read_of_bids_is_the_sheets_bids_against_tricks_shrunk_and_bounded() -> None:
    rows = [
        engine.ScoreRow(
            round=n, cards=n, bids=(1, 1, 0, 3), won=(0, 0, 0, 0), points=(0,) * 4, totals=(0,) * 4
        )
        for n in (1, 2, 3, 4)
    ]
    assert read_bids((), 4, 0) == [0.0] * 4
    leans = read_bids(rows, 4, 0)
    assert leans[0] == 0.0  # never the own seat
    assert leans[1] == pytest.approx(2.0 * 4 / (4 + PRIOR_ROUNDS))  # 1 over in 4 rounds
    assert leans[2] == 0.0  # bids met: taken at their word
    assert leans[3] == LEAN_MOST  # 3 over every round: as far as a read goes
    assert read_bids(rows, 4, 1)[0] == leans[1]


def test_two_views_differing_only_in_an_opponents_past_bids_read_differently() -> None:
    view = bidding_view_after(6, 5)
    seat = view.seat
    other = next(s for s in range(4) if s != seat and view.table.seats[s].bid is not None)
    # the same table, `other` having met every bid, or bid one more than it took each round

    def with_bids(over: int) -> engine.PlayerView:
        sheet = tuple(
            dataclasses.replace(
                row,
                bids=tuple(row.won[s] + over if s == other else b for s, b in enumerate(row.bids)),
            )
            for row in view.table.sheet
        )
        return dataclasses.replace(view, table=dataclasses.replace(view.table, sheet=sheet))

    overbid = with_bids(1)
    plain, read = read_view(with_bids(0)), read_view(overbid)
    assert plain.lean[other] == 0.0
    assert read.lean[other] == pytest.approx(2.0 * 6 / (6 + PRIOR_ROUNDS))
    assert [lean for s, lean in enumerate(read.lean) if s != other] == [
        lean for s, lean in enumerate(plain.lean) if s != other
    ]
    assert read.lean[seat] == 0.0
    # an over-bidder's bid is read as a weaker hand: the deals are weighted otherwise
    deals = [deal_unseen(plain, random.Random(n)) for n in range(20)]
    assert [bid_weight(plain, deal, -1) for deal in deals] != [
        bid_weight(read, deal, -1) for deal in deals
    ]
    # without the read every bid is taken at its word
    assert read_view(overbid, read=False).lean == [0.0] * 4
    hand = deals[0][other] + read.played[other]
    assert guess_bid(hand, read.trump, 4, 1.0) >= guess_bid(hand, read.trump, 4)
    # the read is the score sheet's alone (tests/test_ai.py moves the others' unseen cards
    # between them and checks that hard decides the same)
    assert read_view(view).lean == read_bids(view.table.sheet, 4, seat)
