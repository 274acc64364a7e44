"""The arena: seats rotate, the figures are computed as documented, a seed fixes the outcome,
`wizard-bot arena` prints them as JSON, it seats opponent styles no table can, and hard beats
normal on a fixed set of deals."""

import json
import random

import pytest

from adapters.cli import main
from bot import ai
from bot.ai.arena import GameResult, rotated, run_arena, summary
from bot.ai.hard import Budget, HardAI
from bot.ai.normal import rank_key, sure_tricks
from bot.ai.styles import STYLES, greedy_card
from bot.config import AI_LEVELS
from engine import Bid, Options, Phase, PlayerView, RoundsPlan, player_view, step
from engine.randomplay import new_game, random_command
from engine.tricks import trick_winner
from engine.views import waiting_seats

SHORT = Options(rounds=RoundsPlan.SHORT)


def test_seats_rotate_one_place_a_game() -> None:
    seats = ("hard", "normal", "easy")
    assert [rotated(seats, game) for game in range(4)] == [
        ("hard", "normal", "easy"),
        ("easy", "hard", "normal"),
        ("normal", "easy", "hard"),
        ("hard", "normal", "easy"),
    ]


def test_summary_shares_wins_and_counts_bids_by_position() -> None:
    games = [
        GameResult(
            levels=("hard", "normal", "normal"),
            totals=(100, 100, 40),
            hits=((0, 1, True), (1, 2, False), (2, 3, True), (0, 3, False)),
            times=(("hard", 10.0), ("hard", 30.0), ("normal", 1.0)),
        ),
        GameResult(
            levels=("normal", "hard", "normal"),
            totals=(50, 20, 70),
            hits=((1, 2, True),),
            times=(("hard", 20.0),),
        ),
    ]
    figures = summary(games)
    hard, normal = figures["levels"]["hard"], figures["levels"]["normal"]
    assert figures["games"] == 2
    assert hard["mean_points"] == 60.0
    assert hard["win_rate"] == 0.25  # half of the first game's win
    assert normal["win_rate"] == 0.75
    assert hard["bid_accuracy"] == round(2 / 3, 3)
    assert hard["bid_accuracy_by_position"] == {"1": 1.0, "2": 1.0, "3": 0.0}
    assert normal["bid_accuracy_by_position"] == {"2": 0.0, "3": 1.0}
    assert hard["decision_ms"]["p50"] == 20.0
    assert "decision_ms" not in summary(games, timing=False)["levels"]["hard"]


def test_the_arena_is_deterministic_for_a_seed() -> None:
    seats = ("hard", "normal", "easy")
    first = run_arena(seats, SHORT, games=3, seed=5)
    again = run_arena(seats, SHORT, games=3, seed=5, jobs=2)
    assert [(r.levels, r.totals, r.hits) for r in first] == [
        (r.levels, r.totals, r.hits) for r in again
    ]
    assert summary(first, timing=False) == summary(again, timing=False)
    other = run_arena(seats, SHORT, games=3, seed=6)
    assert [r.totals for r in other] != [r.totals for r in first]


def test_the_arena_command_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["arena", "--games", "3", "--players", "3", "--option", "rounds=short", "--seed", "2"]
    assert main([*args, "--seats", "normal,easy,easy"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["seats"] == ["normal", "easy", "easy"]
    assert report["options"] == "rounds=short"
    assert report["games"] == 3
    assert set(report["levels"]) == {"normal", "easy"}
    assert report["levels"]["easy"]["seats"] == 2.0
    assert set(report["levels"]["normal"]["decision_ms"]) == {"p50", "p95", "max", "decisions"}
    assert main([*args, "--seats", "easy", "--no-times"]) == 0
    alone = json.loads(capsys.readouterr().out)
    assert alone["seats"] == ["easy"] * 3
    assert "decision_ms" not in alone["levels"]["easy"]


def test_the_arena_refuses_a_wrong_number_of_seats(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "--players", "4", "--seats", "hard,normal"]) == 2
    assert "--seats names 2 levels for 4 players" in capsys.readouterr().err
    assert main(["arena", "--seats", "grandmaster"]) == 2
    assert "unknown AI level 'grandmaster'" in capsys.readouterr().err


CI_BUDGET = Budget(
    bid_samples=120, bid_plays=10000, play_samples=48, play_plays=6000, min_samples=16
)
"""About a sixth of hard's play budget and a third of its bid budget: a quick CI check."""


def test_hard_beats_normal_on_a_fixed_set_of_deals(monkeypatch: pytest.MonkeyPatch) -> None:
    # 4 deals of 4-player standard games, each played with hard in every seat against three
    # normal players, hard on the small CI budget, in two processes (the games and their
    # outcome are those of one: test_the_arena_is_deterministic_for_a_seed). Measured: hard
    # 372.5 points a game against normal 271.0, 56.2 % of the wins (25 % is parity), bids met
    # 73.3 % against 59.7 %. A regression check on fixed seeds; the real measurement is
    # `wizard-bot arena` (docs/ai.md). Half the 8 deals this once played: the margins asked
    # are the 8 deals' (20 points, 4 points of bids) times sqrt 2, so a hard no better than
    # normal passes them no more often by the spread of fewer deals than it passed those.
    monkeypatch.setitem(ai.LEVELS, "hard", HardAI(CI_BUDGET))
    seats = ("hard", "normal", "normal", "normal")
    results = run_arena(seats, Options(), games=16, seed=3, jobs=2)
    figures = summary(results, timing=False)["levels"]
    hard, normal = figures["hard"], figures["normal"]
    assert hard["mean_points"] >= normal["mean_points"] + 30, (hard, normal)
    assert hard["bid_accuracy"] >= normal["bid_accuracy"] + 0.06, (hard, normal)
    assert hard["win_rate"] > 0.25, hard


def test_the_arena_seats_opponent_styles_that_no_table_can(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert not set(STYLES) & set(ai.LEVELS)
    assert not set(STYLES) & set(AI_LEVELS)  # /addbot and ai_level offer the levels alone
    args = ["arena", "--games", "4", "--players", "4", "--option", "rounds=short", "--seed", "2"]
    seats = ["normal", "cautious", "aggressive", "greedy"]
    assert main([*args, "--seats", ",".join(seats), "--no-times"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["levels"]) == set(seats)
    assert main([*args, "--seats", ",".join(seats), "--no-times"]) == 0
    assert json.loads(capsys.readouterr().out) == report  # a seed fixes the outcome
    assert main(["arena", "--seats", "reckless"]) == 2
    assert "arena styles: cautious, aggressive, greedy" in capsys.readouterr().err


def bidding_views(games: int) -> list[PlayerView]:
    """The first bidder's view of every round of some random 4-player games."""
    views = []
    for seed in range(games):
        state = new_game(4, Options(), seed)
        rng = random.Random(seed)
        while state.phase is not Phase.FINISHED:
            if state.phase is Phase.BIDDING and all(bid is None for bid in state.round.bids):
                views.append(player_view(state, waiting_seats(state)[0]))
            step(state, random_command(state, rng))
    return views


def test_the_styles_bid_under_and_over_normal_and_greedy_takes_what_it_can() -> None:
    rng = random.Random(1)
    cautious, aggressive = STYLES["cautious"], STYLES["aggressive"]
    normal = ai.LEVELS["normal"]
    under = over = 0
    for view in bidding_views(4):
        bids = [player.decide(view, rng) for player in (cautious, normal, aggressive)]
        low, mid, high = (bid.bid for bid in bids if isinstance(bid, Bid))
        assert low <= mid <= high, view
        assert low >= sure_tricks(view.hand, view.table.trump) or low == min(view.legal_bids)
        under += low < mid
        over += high > mid
    assert under >= 10, under
    assert over >= 10, over
    # greedy: the strongest card that takes the trick as it stands, else the weakest
    state = new_game(4, Options(), 9)
    play = random.Random(9)
    checked = 0
    while state.phase is not Phase.FINISHED and checked < 40:
        seat = waiting_seats(state)[0]
        view = player_view(state, seat)
        if view.legal_cards and state.round is not None and state.round.trick:
            card = greedy_card(view)
            trump = view.table.trump
            trick = list(state.round.trick)
            takes = [c for c in view.legal_cards if trick_winner([*trick, c], trump) == len(trick)]
            strength = {c: rank_key(c, trump) for c in view.legal_cards}
            if takes:
                assert strength[card] == max(strength[c] for c in takes)
            else:
                assert strength[card] == min(strength.values())
            checked += 1
        step(state, random_command(state, play))
    assert checked >= 20
