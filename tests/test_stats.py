"""Stats, leaderboards and ratings: the fold of game summaries (tallies, places and ties, AI
levels, summaries of the older format, the ratings), and /stats, /top and /forgetme through the
service on a real Redis after whole games: a group sees its own data only, cross-chat stats go
to their owner privately, /forgetme forgets everywhere and keeps the others' stats, a crash
between a game's end and its fold loses nothing, and bad input changes nothing."""

import json
from dataclasses import replace
from typing import Any

import pytest
import redis.asyncio as aioredis
from conftest import modules_loaded
from service_helpers import ANN, BOB, CID, DOT, EVE, NAMES, Clock, Driver, service, table_of

from bot.commands import BY_KIND, Kind, help_text
from bot.messages import Outcome
from bot.packing import unpack
from bot.requests import Request, User
from bot.service import GameService
from bot.show.formatters import text_width
from bot.show.i18n import LANGUAGES, texts
from bot.show.look import Look
from bot.show.screens import ROOM, game_over
from bot.show.seating import seating
from bot.show.stats import (
    BOARD_HEADS,
    board_text,
    confirms,
    own_rating,
    ratings_lines,
    seat_ratings,
    stats_text,
)
from bot.show.themes import Theme
from bot.stats import (
    MODEL,
    PROVISIONAL,
    RATING_BASE,
    WINDOW,
    Fold,
    Noted,
    Rerated,
    Standing,
    anonymised,
    board,
    find,
    fold,
    fold_noting,
    namesakes,
    read_game,
    read_games,
    recent,
    unfolded,
)
from bot.store import keys
from bot.store.stats import StatsStore
from engine import table_view
from engine.records import check_record

NOW = 1_700_000_000.0
DAY = 24 * 3600.0
GROUP = "tg:-100"
OTHER = "tg:-200"
T = texts("en")
LOOK = Look(T, Theme.COLOURS)


def summary(
    players: list[str],
    totals: list[int],
    *,
    finished: float = NOW,
    game: str = "",
    ai: dict[str, str] | None = None,
    made: list[int] | None = None,
    rounds: int = 5,
    names: list[str] | None = None,
    old: bool = False,
) -> dict[str, Any]:
    """A game summary as `bot.chat.game_summary` writes it (`old`: as it was written before
    places, bids met and AI levels were kept)."""
    entry: dict[str, Any] = {
        "players": players,
        "names": names or [p.split(":")[-1] for p in players],
        "totals": totals,
        "options": {},
        "finished": finished,
    }
    if old:
        return entry
    entry |= {
        "game": game or f"g{int(finished) % 100_000}",
        "ai": ai or {},
        "places": [1 + sum(o > t for o in totals) for t in totals],
        "made": made if made is not None else [0] * len(players),
        "rounds": rounds,
    }
    return entry


def folded(*entries: dict[str, Any]) -> Fold:
    """The fold of `entries`, oldest first."""
    return fold(read_games(entries))


# --- the fold ------------------------------------------------------------------------------------


def test_the_fold_counts_games_wins_points_bids_met_and_the_best_game() -> None:
    done = folded(
        summary(["tg:1", "tg:2", "tg:3"], [120, 80, -20], made=[4, 3, 1], finished=NOW),
        summary(["tg:1", "tg:2", "tg:3"], [60, 150, 30], made=[2, 5, 2], finished=NOW + 1),
    )
    ann = done.players["tg:1"]
    assert (ann.games, ann.wins, ann.points, ann.best) == (2, 1, 180, 120)
    assert ann.average == 90
    assert ann.met == pytest.approx(60.0)  # 6 bids met of 10 rounds
    cid = done.players["tg:3"]
    assert (cid.wins, cid.points, cid.best, cid.average) == (0, 10, 30, 5)
    assert done.games == 2


def test_the_cursor_names_the_newest_game() -> None:
    first = summary(["tg:1", "tg:2", "tg:3"], [1, 2, 3], finished=NOW, game="aaa")
    second = summary(["tg:1", "tg:2", "tg:3"], [3, 2, 1], finished=NOW + 5, game="bbb")
    done = folded(first, second)
    game = read_game(second)
    assert game is not None
    assert done.cursor == game.key == f"{NOW + 5!r}/bbb"


def test_ties_share_a_place_and_a_shared_first_is_a_win_for_each() -> None:
    done = folded(summary(["tg:1", "tg:2", "tg:3"], [100, 100, 40]))
    assert done.players["tg:1"].wins == done.players["tg:2"].wins == 1
    assert done.players["tg:3"].wins == 0
    tied = done.players["tg:1"]
    assert tied.mu == pytest.approx(done.players["tg:2"].mu)
    assert tied.mu > MODEL.mu > done.players["tg:3"].mu


def test_a_tie_is_rated_between_the_places_it_spans() -> None:
    """Five newcomers end 1st, 2nd and 2nd (equal totals), 4th, 5th. OpenSkill's Plackett-Luce
    with ranks [1, 2, 2, 4, 5] rates the two tied players below the one they beat (conservative
    ratings 1112, 1018, 1018, 1026, 893: a known fault of its tie handling). A tie is rated as
    the mean of both ways of breaking it, 2nd/3rd and 3rd/2nd: each tied player between what
    2nd and 3rd alone would get (1084 and 1047, from ranks 1 to 5), above 4th (989)."""
    done = folded(summary(["tg:1", "tg:2", "tg:3", "tg:4", "tg:5"], [150, 90, 90, 40, -30]))
    shown = {p: s.rating for p, s in done.players.items()}
    assert shown["tg:2"] == shown["tg:3"]
    assert shown["tg:1"] > shown["tg:2"] > shown["tg:4"] > shown["tg:5"]
    ranked = folded(summary(["tg:1", "tg:2", "tg:3", "tg:4", "tg:5"], [150, 90, 80, 40, -30]))
    alone = {p: s.rating for p, s in ranked.players.items()}
    assert alone["tg:3"] < shown["tg:2"] < alone["tg:2"]
    assert shown["tg:4"] == alone["tg:4"]
    # a three-way tie for first: equal, and above the one they beat
    three = folded(summary(["tg:1", "tg:2", "tg:3", "tg:4"], [70, 70, 70, 10]))
    firsts = {three.players[p].rating for p in ("tg:1", "tg:2", "tg:3")}
    assert len(firsts) == 1
    assert firsts.pop() > three.players["tg:4"].rating


def test_each_ai_level_is_one_rating_of_its_own() -> None:
    entry = summary(
        ["tg:1", "ai:1", "ai:2", "ai:3"],
        [50, 90, 10, 30],
        ai={"ai:1": "hard", "ai:2": "easy", "ai:3": "hard"},
        names=["Ann", "Merlin", "Morgana", "Nimue"],
    )
    done = folded(entry)
    assert set(done.players) == {"tg:1", "ai:hard", "ai:easy"}
    hard = done.players["ai:hard"]
    assert hard.name == "hard"  # the level's name, not a seat's
    assert (hard.games, hard.wins, hard.points) == (2, 1, 120)  # its two seats
    assert done.players["ai:easy"].games == 1
    # two seats of one level move it by the mean of their updates: between the two seats'
    alone = MODEL.rate(
        [[MODEL.rating()] for _ in range(4)], ranks=[2.0, 1.0, 4.0, 3.0]
    )  # the seats rated apart
    assert alone[2][0].mu < hard.mu < alone[1][0].mu
    assert hard.mu == pytest.approx((alone[1][0].mu + alone[3][0].mu) / 2)
    assert find(done.players, "HARD") == ["ai:hard"]


def test_a_six_seat_game_with_a_tie_and_a_stand_in_is_rated_by_places() -> None:
    """Six seats, the most a table holds: Ann first; Bob and Cid tied second; Dot, whose moves
    the AI made while she was away (`stand_in`: her seat, her result, her id in the summary);
    and two `hard` AI seats. OpenSkill takes `ranks` lower-is-better (1 = first) and `scores`
    higher-is-better: the places are passed as ranks, so without a tie the fold is exactly
    OpenSkill's update from the totals as scores, and a tie is the mean of both ways of
    breaking it."""
    players = ["tg:1", "tg:2", "tg:3", "tg:4", "ai:1", "ai:2"]
    levels = {"ai:1": "hard", "ai:2": "hard"}
    totals = [150, 90, 90, -20, 40, -60]
    done = folded(summary(players, totals, ai=levels, names=[*NAMES[:4], "Merlin", "Nimue"]))
    assert set(done.players) == {"tg:1", "tg:2", "tg:3", "tg:4", "ai:hard"}
    dot = done.players["tg:4"]
    assert (dot.name, dot.games, dot.wins, dot.points) == ("Dot", 1, 0, -20)
    assert done.players["ai:hard"].games == 2
    rating = {p: s.rating for p, s in done.players.items()}
    assert rating["tg:2"] == rating["tg:3"]  # a tie is a tie
    assert rating["tg:1"] > rating["tg:2"] > rating["tg:4"]
    # the tie as the mean of its two orders, each given to OpenSkill as ranks (1 = first)
    orders = ([1.0, 2.0, 3.0, 5.0, 4.0, 6.0], [1.0, 3.0, 2.0, 5.0, 4.0, 6.0])
    fresh = [[MODEL.rating()] for _ in players]
    mus = [[team[0].mu for team in MODEL.rate(fresh, ranks=list(r))] for r in orders]
    for seat in range(4):
        assert done.players[players[seat]].mu == pytest.approx((mus[0][seat] + mus[1][seat]) / 2)
    assert done.players["ai:hard"].mu == pytest.approx(sum(m[4] + m[5] for m in mus) / 4)
    # without the tie: the same as OpenSkill's update from the totals as scores
    untied = [150, 90, 80, -20, 40, -60]
    scored = MODEL.rate(fresh, scores=[float(t) for t in untied])
    people = [*players[:4], "tg:5", "tg:6"]
    apart = folded(summary(people, untied))
    for seat, player in enumerate(people):
        assert apart.players[player].mu == pytest.approx(scored[seat][0].mu)
        assert apart.players[player].sigma == pytest.approx(scored[seat][0].sigma)


def test_old_summaries_are_read_tolerantly() -> None:
    old = summary(["tg:1", "ai:1", "tg:2"], [30, 70, 30], old=True)
    game = read_game(old)
    assert game is not None
    assert [seat.place for seat in game.seats] == [2, 1, 2]  # from the totals
    assert game.seats[1].player == "ai:?"  # an AI of a level not kept
    assert all(seat.made is None for seat in game.seats)
    done = fold([game])
    assert done.players["tg:1"].met is None  # bids met unknown: no percentage
    newer = summary(["tg:1", "tg:2", "tg:3"], [10, 20, 30], made=[3, 0, 0], finished=NOW + 1)
    done = fold(read_games([newer]), done)
    assert done.players["tg:1"].met == pytest.approx(60.0)  # of the game that kept it only
    assert done.players["tg:1"].games == 2
    broken: list[object] = [None, [], "{", {"players": "x"}, {"players": ["a"], "totals": [1]}]
    for entry in broken:
        assert read_game(entry) is None
    assert read_game({"players": ["a", "b"], "totals": [1, 2], "names": 3}) is not None


def test_ratings_rise_for_the_winner_fall_for_the_loser_and_grow_surer() -> None:
    players = ["tg:1", "tg:2", "tg:3", "tg:4"]
    done = folded(summary(players, [200, 100, 50, 0]))
    win, lose = done.players["tg:1"], done.players["tg:4"]
    new = Standing("new")
    assert win.mu > new.mu > lose.mu
    assert win.rating > new.rating > lose.rating
    assert win.sigma < new.sigma
    assert lose.sigma < new.sigma
    sigmas = [win.sigma]
    for number in range(1, 10):
        fold(read_games([summary(players, [200, 100, 50, 0], finished=NOW + number)]), done)
        sigmas.append(done.players["tg:1"].sigma)
    assert sigmas == sorted(sigmas, reverse=True)  # each game makes the rating surer
    assert done.players["tg:1"].rating > done.players["tg:2"].rating > done.players["tg:4"].rating


def test_a_fold_carried_forward_is_the_fold_of_everything() -> None:
    entries = [
        summary(["tg:1", "tg:2", "tg:3"], [n, 2 * n % 7, 50 - n], finished=NOW + n, game=f"g{n}")
        for n in range(12)
    ]
    whole = folded(*entries)
    part = folded(*entries[:5])
    kept = read_games(reversed(entries))  # as the store keeps them: newest first
    newer, found = unfolded(kept, part.cursor)
    assert found
    assert len(newer) == 7
    fold(newer, part)
    assert Fold.from_json(part.to_json()) == Fold.from_json(whole.to_json())
    assert unfolded(kept, whole.cursor) == ([], True)
    assert unfolded(kept, "") == (kept[::-1], False)


def test_a_fold_notes_how_the_game_just_ended_moved_each_seats_rating() -> None:
    """A first game of three, worked out from the model: every rating starts at 1000 (mu 25,
    sigma 25/3: 25 - 3 x 25/3 = 0). The winner ends at mu 27.869, sigma 8.205: 1000 + 40 x
    (27.869 - 24.616) = 1130.1, so 1130 (+130). The second ends at mu 25.717, sigma 8.058:
    1000 + 40 x (25.717 - 24.175) = 1061.7, so 1062 (+62): second place gains too, for sigma
    shrank more than mu fell. The third: mu 21.414, sigma 8.058: 889.6, so 890 (-110)."""
    players = ["tg:1", "tg:2", "tg:3"]
    first = summary(players, [120, 80, 40], finished=NOW, game="g1")
    done, noted = fold_noting(read_games([first]), None)
    assert noted.game == "g1"
    assert Noted.from_json(noted.to_json()) == noted  # as kept with the fold
    assert Noted.from_json(None) == Noted.from_json(b'{"g": 1}') == Noted("", ())
    assert noted.of("g1") == noted.ratings
    assert noted.of("g2") == noted.of("") == ()
    moved = noted.ratings
    assert [(r.player, r.rating, r.change, r.provisional) for r in moved] == [
        ("tg:1", 1130, 130, True),
        ("tg:2", 1062, 62, True),
        ("tg:3", 890, -110, True),
    ]
    assert [done.players[p].rating for p in players] == [1130, 1062, 890]
    # a game after others: the change is the rating shown after it minus the one before
    entries = [
        summary([*players, "tg:4"], [n * 7 % 50, 30, n * 13 % 40, 20], finished=NOW + n)
        for n in range(1, 5)
    ]
    before = folded(first, *entries[:-1])
    assert fold_noting([], folded(first)) == (folded(first), Noted("", ()))  # nothing noted
    after, noted = fold_noting(read_games(entries[-2:]), folded(first, *entries[:-2]))
    moved = noted.ratings  # of the newest game folded
    assert after.to_json() == folded(first, *entries).to_json()
    for seat in moved:
        rating = after.players[seat.player].rating
        old = before.players[seat.player].rating if seat.player in before.players else RATING_BASE
        assert (seat.rating, seat.change) == (rating, rating - old)
        assert seat.provisional == (after.players[seat.player].games < PROVISIONAL)
    assert [seat.provisional for seat in moved] == [False, False, False, True]  # 5, 5, 5, 4 games
    # two seats of one AI level both show the level's one rating
    robots = summary(
        ["tg:1", "ai:1", "ai:2"], [10, 90, 30], ai={"ai:1": "hard", "ai:2": "hard"}, game="r"
    )
    _, noted = fold_noting(read_games([robots]), None)
    moved = noted.ratings
    assert [r.player for r in moved] == ["tg:1", "ai:hard", "ai:hard"]
    assert moved[1] == moved[2]
    assert moved[0].change < 0 < moved[1].change


def test_the_window_is_the_last_30_days() -> None:
    games = read_games(
        [
            summary(["tg:1", "tg:2", "tg:3"], [1, 2, 3], finished=NOW - WINDOW - 1, game="old"),
            summary(["tg:1", "tg:2", "tg:3"], [3, 2, 1], finished=NOW - WINDOW, game="edge"),
            summary(["tg:1", "tg:2", "tg:4"], [3, 2, 1], finished=NOW - DAY, game="new"),
        ]
    )
    assert [g.key.split("/")[1] for g in recent(games, NOW)] == ["edge", "new"]
    month = fold(recent(games, NOW))
    assert month.players["tg:1"].games == 2
    assert "tg:4" in month.players


def test_the_board_orders_by_the_conservative_rating() -> None:
    players = {
        "tg:1": Standing("Ann", games=20, mu=30.0, sigma=2.0),  # 24
        "tg:2": Standing("Bob", games=2, mu=33.0, sigma=6.0),  # 15: provisional
        "tg:3": Standing("Cid", games=20, mu=27.0, sigma=1.0),  # 24, more sure, same games
        "x:ab": Standing("", games=20, mu=40.0, sigma=1.0),  # forgotten: never shown
        "tg:4": Standing("Dot"),  # no game
    }
    # Ann and Cid are level (the same games too): by name
    assert [p for p, _ in board(players)] == ["tg:1", "tg:3", "tg:2"]
    assert players["tg:2"].provisional
    assert not players["tg:1"].provisional
    assert board(players, limit=1) == board(players)[:1]
    text = board_text(T, board(players), [], namesakes(players))
    assert "Nobody played in the last 30 days." in text
    assert text.split("\n\n")[-1] == (
        f"New players start at {RATING_BASE}.\n? provisional: fewer than {PROVISIONAL} games"
    )
    sure = {"tg:1": players["tg:1"], "tg:3": players["tg:3"]}  # no rating marked `?`
    assert board_text(T, board(sure), [], namesakes(sure)).split("\n\n")[-1] == (
        f"New players start at {RATING_BASE}."
    )


def test_a_30_day_board_like_the_first_is_not_shown_twice() -> None:
    """Where every game is of the last 30 days, both boards are the same: /top shows it once,
    and says so, rather than one board twice to scroll through. One that differs is shown."""
    players = {
        "tg:1": Standing("Ann", games=6, wins=3, mu=30.0, sigma=2.0),
        "tg:2": Standing("Bob", games=2, wins=0, mu=24.0, sigma=6.0),
    }
    text = board_text(T, board(players), board(players), namesakes(players))
    assert text.count("\u2068Ann\u2069") == 1
    assert text.split("\n\n")[1] == "Last 30 days: the same as above."
    assert "Last 30 days\n" not in text
    month = {"tg:2": Standing("Bob", games=1, wins=1, mu=27.0, sigma=7.0)}
    other = board_text(T, board(players), board(month), namesakes(players))
    assert other.split("\n\n")[1].splitlines()[0] == "Last 30 days"
    assert other.count("\u2068Bob\u2069") == 2
    assert "the same as above" not in other


def test_find_is_case_insensitive_and_prefers_the_name_as_written() -> None:
    players = {
        "tg:1": Standing("Ann", games=1, last=NOW),
        "tg:9": Standing("ann", games=1, last=NOW + 5),
        "tg:2": Standing("Ｂｏｂ", games=1),  # fullwidth letters: NFKC makes them Bob
        "x:cd": Standing("", games=1),
    }
    assert find(players, " ann ") == ["tg:9"]
    assert find(players, "Ann") == ["tg:1"]
    assert find(players, "ANN") == ["tg:1", "tg:9"]  # either: both are meant
    assert find(players, "bob") == ["tg:2"]
    for nobody in ("", "   ", "Cid", "\u202eAnn", "Ann\x00", "A" * 500, "x:cd", "Ann (2)"):
        assert find(players, nobody) == []
    # a level's name is the level's, even where a person who played later is called so
    players["ai:normal"] = Standing("normal", games=1, last=NOW)
    players["tg:44"] = Standing("Normal", games=1, last=NOW + 9)
    assert find(players, "normal") == ["ai:normal"]


def test_people_called_alike_are_numbered_by_their_first_game_here() -> None:
    """Two people seated as Ann: the one who played here first is Ann (also `Ann (1)`), the
    other Ann (2), whoever plays or wins later and wherever they sit; the numbers survive the
    fold's storing, and a name both go by finds both (to pick one)."""
    done = folded(
        summary(["tg:7", "tg:2"], [10, 20], names=["Ann", "Bob"], finished=NOW),
        summary(["tg:2", "tg:3"], [30, 10], names=["Bob", "Ann"], finished=NOW + 1),
    )
    later = [
        summary(["tg:3", "tg:7", "ai:x"], [90, 10, 5], names=["Ann", "Ann", "AI"], finished=NOW + t)
        for t in range(2, 6)
    ]
    done = fold(read_games(later[::-1]), Fold.from_json(done.to_json()))
    assert namesakes(done.players) == {"tg:7": 1, "tg:2": 1, "tg:3": 2}
    assert namesakes(Fold.from_json(done.to_json()).players) == namesakes(done.players)
    assert find(done.players, "ann") == ["tg:7", "tg:3"]
    assert find(done.players, "Ann (2)") == ["tg:3"]
    assert find(done.players, "ann (1)") == ["tg:7"]
    assert find(done.players, "Bob (1)") == ["tg:2"]
    assert find(done.players, "Ann (3)") == []
    # the newer Ann leads the board, and is Ann (2) on it all the same
    rows = board(done.players)
    assert rows[0][0] == "tg:3"
    lines = board_text(T, rows, rows, namesakes(done.players)).splitlines()
    assert lines[2].startswith("1 \u2068Ann\u2069 (2) ")
    assert any(line.startswith(("2 \u2068Ann\u2069 ", "3 \u2068Ann\u2069 ")) for line in lines)
    # a long name is cut before its number, which stays
    long = {"tg:1": Standing("Maximiliane", games=1), "tg:2": Standing("Maximiliane", games=1)}
    cells = board_text(T, board(long), [], namesakes(long)).splitlines()[2:4]
    assert cells[0].startswith("1 \u2068Maximiliane\u2069  ")
    assert cells[1].startswith("2 \u2068Maximil…\u2069 (2) ")  # 12 columns, as the other
    # a name cut just after a space ends without it: "Maximi…", not "Maximi …"
    spaced = {
        "tg:1": Standing("Maximilian von W", games=1),
        "tg:2": Standing("Maximi Xyz", games=1),
        "tg:3": Standing("Maximi Xyz", games=1),
    }
    cells = board_text(T, board(spaced), [], namesakes(spaced)).splitlines()[2:5]
    assert "\u2068Maximilian…\u2069 " in "".join(cells)
    assert "\u2068Maximi…\u2069 (2) " in "".join(cells)


def test_someone_called_like_a_numbered_namesake_is_told_apart() -> None:
    """A person who plays as `Ann (2)` next to two people called Ann: the second Ann is numbered
    past that name (`Ann (3)`), and `/stats Ann (2)` means the person called so, alone."""
    done = folded(
        summary(["tg:1", "tg:2", "tg:3"], [10, 20, 30], names=["Ann", "Ann (2)", "Ann"]),
    )
    assert namesakes(done.players) == {"tg:1": 1, "tg:2": 1, "tg:3": 3}
    assert find(done.players, "Ann (2)") == ["tg:2"]
    assert find(done.players, "ann (3)") == ["tg:3"]


def test_anonymised_keeps_the_others() -> None:
    entry = summary(["tg:1", "tg:2", "tg:3"], [10, 20, 30], names=["Ann", "Bob", "Cid"])
    changed = anonymised(entry, "tg:1", "x:12")
    assert changed is not None
    assert changed["players"] == ["x:12", "tg:2", "tg:3"]
    assert changed["names"] == ["", "Bob", "Cid"]
    assert changed["totals"] == entry["totals"]
    assert changed["finished"] == entry["finished"]
    now, then = read_game(changed), read_game(entry)
    assert now is not None
    assert then is not None
    assert now.key == then.key
    assert anonymised(entry, "tg:7", "x:12") is None


def test_the_texts() -> None:
    ann = Standing("Ann", games=12, wins=4, points=1240, best=210, made=37, rounds=60)
    text = stats_text(T, "Ann", ann)
    assert text.splitlines()[0] == "📊 Ann"
    assert "4 (33%)" in text
    assert "1240 (103 a game)" in text
    assert "62%" in text
    assert "210" in text
    assert len(text.splitlines()) <= 8
    assert all(len(line) <= 34 for line in text.splitlines())
    assert "Bids met" not in stats_text(T, "Ann", Standing("Ann", games=1))  # unknown
    assert confirms("yes")
    assert confirms(" JA ")
    assert confirms("sí")
    assert not confirms("")
    assert not confirms("no")


def test_a_share_reads_as_none_or_all_only_when_it_is() -> None:
    """One win in 1,000 games is not 0%, nor 999 of them 100%: a share rounded to either end
    that is not reads `<1%`, `>99%`; halves round up (1 of 8: 13%), wins and bids met alike."""

    def rows(standing: Standing) -> dict[str, str]:
        lines = stats_text(T, "Ann", standing).splitlines()[1:]
        return {label: value for label, _, value in (line.partition("  ") for line in lines)}

    few = rows(Standing("Ann", games=1000, wins=1, made=1, rounds=1000))
    assert (few["Wins"].strip(), few["Bids met"].strip()) == ("1 (<1%)", "<1%")
    most = rows(Standing("Ann", games=1000, wins=999, made=999, rounds=1000))
    assert (most["Wins"].strip(), most["Bids met"].strip()) == ("999 (>99%)", ">99%")
    every = rows(Standing("Ann", games=3, wins=3, made=15, rounds=15))
    assert (every["Wins"].strip(), every["Bids met"].strip()) == ("3 (100%)", "100%")
    none = rows(Standing("Ann", games=3, wins=0, made=0, rounds=15))
    assert (none["Wins"].strip(), none["Bids met"].strip()) == ("0 (0%)", "0%")
    half = rows(Standing("Ann", games=8, wins=1, made=5, rounds=8))
    assert (half["Wins"].strip(), half["Bids met"].strip()) == ("1 (13%)", "63%")


def test_a_rating_below_zero_has_the_minus_sign() -> None:
    """A level that keeps losing goes below 0 (the AI's easiest, last in about 100 games of
    three in a row): its rating is written with the minus sign (U+2212), as points are,
    wherever it shows: /stats, /top, a game's end, one's own result."""
    low = Standing("Ann", games=120, mu=-23.4, sigma=1.0)
    assert low.rating == -56
    assert "Rating  \u221256" in stats_text(T, "Ann", low)
    assert row_of(board_text(T, [("tg:1", low)], [], {}), "Ann")[2] == "\u221256"
    moved = Rerated("tg:1", -56, -12, False)
    assert seat_ratings(T, [1], [moved]) == ["\u221256 (\u221212)"]
    assert own_rating(T, moved) == "Your rating here: \u221256 (\u221212)"
    assert "-" not in stats_text(T, "Ann", low, [("Wizards", low)], chats=1)


def test_a_right_to_left_name_keeps_the_board_columns() -> None:
    """A name in Arabic or Hebrew would turn a line around in a chat (the bidirectional
    algorithm, the numbers moved to its other side): each name is isolated, so the columns
    stay under their heads, and the isolates take no column."""
    rows = [
        ("tg:1", Standing("محمد", games=7, wins=3, mu=40.0, sigma=1.0)),
        ("tg:2", Standing("Ann", games=5, wins=1, mu=30.0, sigma=1.0)),
    ]
    lines = board_text(T, rows, rows, {}).splitlines()
    assert lines[2].startswith("1 \u2068محمد\u2069 ")
    assert lines[3].startswith("2 \u2068Ann\u2069 ")
    assert text_width(lines[2]) == text_width(lines[3])  # the numbers line up


@pytest.mark.parametrize(
    ("text", "columns"),
    [
        ("👍🏽", 2),  # a skin tone: one emoji
        ("👨\u200d👩\u200d👧", 2),  # a family, joined: one emoji
        ("🏳\ufe0f\u200d🌈", 2),  # a flag joined to a rainbow
        ("🏴\u200d☠\ufe0f", 2),
        ("1\ufe0f\u20e3", 2),  # a keycap
        ("☺\ufe0f", 2),  # a symbol in emoji presentation
        ("❤\ufe0e", 1),  # in text presentation
        ("🇩🇪", 2),
        ("王", 2),
        ("e\u0301", 1),
        ("Ann", 3),
    ],
)
def test_an_emoji_takes_the_columns_it_shows_in(text: str, columns: int) -> None:
    """A monospace block (`Message.pre`) draws an emoji two columns wide however many code
    points make it (a skin tone, a joined sequence, a keycap), a symbol asked for as emoji
    (U+FE0F) two too: the boards' columns are laid out by these widths."""
    assert text_width(text) == columns


def test_names_of_joined_emoji_keep_the_board_columns() -> None:
    """Names with a skin tone or a joined family, each emoji two columns: the ratings line up."""
    rows = [
        ("tg:1", Standing("👍🏽👍🏽 Bo", games=7, wins=3, mu=40.0, sigma=1.0)),
        ("tg:2", Standing("👨\u200d👩\u200d👧 Fam", games=6, wins=2, mu=35.0, sigma=1.0)),
        ("tg:3", Standing("Ann", games=5, wins=1, mu=30.0, sigma=1.0)),
    ]
    lines = board_text(T, rows, rows, {}).splitlines()
    assert lines[2].startswith("1 \u2068👍🏽👍🏽 Bo\u2069  2480 ")  # 7 columns
    assert lines[3].startswith("2 \u2068👨\u200d👩\u200d👧 Fam\u2069   2280 ")  # 6
    assert lines[4].startswith("3 \u2068Ann\u2069      2080 ")


@pytest.mark.parametrize("language", ["en", "de", "es"])
def test_the_board_headers_stay_short(language: str) -> None:
    t = texts(language)
    assert all(len(t(head)) <= 6 for head in BOARD_HEADS)
    players = {f"tg:{n}": Standing("W" * 30, games=100, mu=50.0, sigma=0.8) for n in range(8)}
    rows = board(players)  # all called alike: numbered up to (8)
    lines = board_text(t, rows, rows, namesakes(players)).splitlines()
    assert all(text_width(line) <= 34 for line in lines if line[:1] in " 12345678")  # rows
    assert all(text_width(line) <= 40 for line in lines)


@pytest.mark.parametrize("language", LANGUAGES)
def test_top_with_the_longest_names_fits_a_message_on_both_platforms(language: str) -> None:
    """/top at its longest: both boards full (8 rows), every name as long as a platform's name
    may be (32 code points, here emoji of 8 code points and 4 UTF-16 units each: the most text
    for the columns), numbered among people called alike, huge tallies. It stays under Discord's
    2,000 characters and Telegram's 4,096 UTF-16 units (the unit both count in at most), in a
    code block."""
    family = "👨🏽\\u200d👩🏽\\u200d👧🏽"
    name = (family * 4)[:32]
    players = {
        f"tg:{n}": Standing(name, games=10**6, wins=10**6, mu=50.0, sigma=1.0) for n in range(40)
    }
    rows = board(players)
    text = board_text(texts(language), rows, rows[::-1], namesakes(players))
    units = len(f"```\\n{text}\\n```".encode("utf-16-le")) // 2
    assert units < 2000


def test_the_fold_does_no_io() -> None:
    """`bot.stats` loads nothing of storage, the service, an event loop or a platform."""
    loaded = modules_loaded(
        "from bot.stats import fold, read_games\n"
        "fold(read_games([{'players': ['a', 'b', 'c'], 'totals': [3, 2, 1]}]))"
    )
    forbidden = {"asyncio", "socket", "redis", "telegram", "discord", "adapters"}
    assert not {name.split(".")[0] for name in loaded} & forbidden
    ours = {name for name in loaded if name.startswith("bot")}
    assert ours == {"bot", "bot.namesakes", "bot.stats", "bot.upgrades"}


# --- through the service, on a real Redis --------------------------------------------------------


async def ask(svc: GameService, chat: str, user: User, kind: Kind, arg: str = "") -> Outcome:
    return await svc.handle(chat, user, Request(kind, arg, private=chat == user.id))


def text_of(outcome: Outcome) -> str:
    assert len(outcome.messages) == 1, outcome
    return outcome.messages[0].text


class Players(Driver):
    """People pressing the buttons they are shown, without checking what every screen shows
    (tests/test_service.py does that): these tests are about what a game leaves behind."""

    async def send(
        self, user: User, request: Request, update_id: str | None = None, check: bool = True
    ) -> Outcome:
        return await super().send(user, request, update_id, check=False)


async def play(svc: GameService, chat: str, people: list[User], seed: int, ai: int = 0) -> None:
    """A whole short game of `people` (and `ai` AI seats) in `chat`."""
    driver = Players(svc, people, chat=chat, seed=seed)
    await driver.lobby(["rounds=short"], ai=ai)
    await driver.play_to_end()


async def summaries(client: aioredis.Redis, chat: str) -> list[dict[str, Any]]:
    return [json.loads(raw) for raw in await client.lrange(keys.results(chat), 0, -1)]


async def everything(client: aioredis.Redis) -> dict[Any, Any]:
    """Every key and its value (to see that nothing changed)."""
    found: dict[Any, Any] = {}
    for key in await client.keys("*"):
        kind = await client.type(key)
        kind = kind.decode() if isinstance(kind, bytes) else kind
        if kind == "string":
            found[key] = await client.get(key)
        elif kind == "list":
            found[key] = await client.lrange(key, 0, -1)
        elif kind == "hash":
            found[key] = await client.hgetall(key)
        elif kind == "set":
            found[key] = await client.smembers(key)
        elif kind == "zset":
            found[key] = await client.zrange(key, 0, -1, withscores=True)
    return found


def row_of(text: str, name: str) -> list[str]:
    """The cells of `name`'s row of a board (each name is isolated, bidirectionally)."""
    rows = [line.split() for line in text.splitlines() if f" \u2068{name}\u2069 " in line]
    assert rows, text
    return [cell.strip("\u2068\u2069") for cell in rows[0]]


async def test_stats_and_top_after_whole_games(redis_client: aioredis.Redis) -> None:
    clock = Clock(NOW)
    svc = service(redis_client, seed=3, clock=clock)
    await play(svc, GROUP, [ANN, BOB, CID], seed=1, ai=1)
    clock.advance(3600)
    await play(svc, GROUP, [ANN, BOB, CID], seed=2, ai=1)
    kept = await summaries(redis_client, GROUP)
    assert len(kept) == 2
    mine = [e["totals"][e["players"].index(ANN.id)] for e in kept]
    wins = sum(e["places"][e["players"].index(ANN.id)] == 1 for e in kept)
    made = sum(e["made"][e["players"].index(ANN.id)] for e in kept)
    # the fold was carried forward at each game's end
    stored = Fold.from_json(await redis_client.hget(keys.stats(GROUP), "s"))
    assert stored.games == 2
    assert stored.players[ANN.id].games == 2
    assert await StatsStore(redis_client).chats(ANN.id) == [GROUP]

    outcome = await ask(svc, GROUP, ANN, Kind.STATS)
    assert not outcome.alert
    assert outcome.messages[0].pre
    assert outcome.messages[0].to is None
    text = text_of(outcome)
    assert text.splitlines()[0] == "📊 Ann"
    lines = dict(line.split(maxsplit=1) for line in text.splitlines()[1:] if " " in line)
    assert lines["Games"].strip() == "2"
    assert lines["Wins"].startswith(str(wins))
    assert lines["Points"].startswith(f"{sum(mine)} ")
    assert f"{round(100 * made / 10)}%" in text  # two games of five rounds
    assert str(max(mine)) in text
    assert "(provisional)" in text

    named = text_of(await ask(svc, GROUP, CID, Kind.STATS, "bob"))
    assert named.splitlines()[0] == "📊 Bob"
    level = next(iter(kept[0]["ai"].values()))
    robot = text_of(await ask(svc, GROUP, CID, Kind.STATS, level))
    assert robot.splitlines()[0] == f"📊 AI ({level})"

    board_outcome = await ask(svc, GROUP, BOB, Kind.TOP)
    assert not board_outcome.alert
    assert board_outcome.messages[0].pre
    top = text_of(board_outcome)
    assert top.splitlines()[0] == "🏆 Best players here, by rating"
    assert "Last 30 days" in top
    for person in (ANN, BOB, CID):
        rating = stored.players[person.id].rating
        cells = row_of(top, person.name)
        assert cells[2] == f"{rating}?"
        assert cells[3:] == [
            "2",
            str(stored.players[person.id].wins),
        ]
    board_lines = top.split("\n\n")[0].splitlines()[2:]
    order = [line.split()[1].strip("\u2068\u2069") for line in board_lines if line[:2].strip()]
    expected = [s.name for _, s in board(stored.players)]
    assert [name for name in order if not name.startswith("AI")] == [
        name for name in expected if name in ("Ann", "Bob", "Cid")
    ]

    # the recent board's fold is kept: asking again folds nothing
    month = await redis_client.hget(keys.stats(GROUP), "m")
    assert month is not None
    assert text_of(await ask(svc, GROUP, CID, Kind.TOP)) == top
    assert await redis_client.hget(keys.stats(GROUP), "m") == month

    # 31 days on, the recent board is empty; all time stays
    clock.advance(31 * DAY)
    later = text_of(await ask(svc, GROUP, BOB, Kind.TOP))
    assert "Nobody played in the last 30 days." in later
    assert row_of(later, "Ann")[2] == row_of(top, "Ann")[2]


async def test_stats_say_where_one_stands_on_the_groups_board(
    redis_client: aioredis.Redis,
) -> None:
    """A player's /stats in a group says their place on its board by rating, as /top orders
    it, of how many: the rating alone does not tell a player how they stand. Privately, over
    several chats (each with its own board), there is no rank."""
    svc = service(redis_client, seed=3, clock=Clock(NOW))
    await play(svc, GROUP, [ANN, BOB, CID], seed=1, ai=1)
    await play(svc, GROUP, [BOB, CID, DOT], seed=2)
    top = text_of(await ask(svc, GROUP, ANN, Kind.TOP)).split("\n\n")[0].splitlines()[2:]
    rows = [line.split("\u2068")[1].split("\u2069")[0] for line in top]
    assert len(rows) == 5  # Ann, Bob, Cid, Dot and the AI's level
    for place, who in enumerate(rows, start=1):
        asker = next((u for u in (ANN, BOB, CID, DOT) if u.name == who), ANN)
        named = "" if who == asker.name else who.split("(")[1].rstrip(")")  # AI (level)
        text = text_of(await ask(svc, GROUP, asker, Kind.STATS, named))
        assert text.splitlines()[-1].split() == ["Rank", str(place), "of", "5"], text
        assert len(text.splitlines()) <= 8
    private = text_of(await ask(svc, ANN.id, ANN, Kind.STATS))
    assert "Rank" not in private


async def test_the_rank_line_does_not_count_an_ai_level_as_a_person(
    redis_client: aioredis.Redis,
) -> None:
    """The board a rank is counted on holds AI levels beside people. Korean said "5명 중
    3위", 명 being the counter for people, of a board where one of the five is an AI level:
    the line now counts entries, whoever they are."""
    svc = service(redis_client, seed=3, clock=Clock(NOW))
    await play(svc, GROUP, [ANN, BOB, CID], seed=1, ai=1)
    await play(svc, GROUP, [BOB, CID, DOT], seed=2)
    await svc.handle(GROUP, ANN, Request(Kind.LANGUAGE, "ko"))
    level = next(iter((await summaries(redis_client, GROUP))[-1]["ai"].values()))
    for asker, named in ((ANN, ""), (ANN, level)):
        text = text_of(await ask(svc, GROUP, asker, Kind.STATS, named))
        label, value = text.splitlines()[-1].split(maxsplit=1)
        assert label == "순위", text
        assert "명" not in value, text
        rank = int(value.split("위")[0])
        assert value == f"{rank}위 (전체 5)", text


async def test_ones_own_place_at_a_games_end_does_not_count_an_ai_seat_as_a_person(
    redis_client: aioredis.Redis,
) -> None:
    """A player's own end of the game says their place among the table's seats, AI seats
    among them. Korean said "4명 중 2위", 명 being the counter for people, at a table of three
    people and an AI: the line now counts the seats, whoever sits in them, as the rank does."""
    svc = service(redis_client, seed=3, clock=Clock(NOW))
    await svc.handle(GROUP, ANN, Request(Kind.LANGUAGE, "ko"))
    driver = Players(svc, [ANN, BOB, CID], chat=GROUP, seed=1)
    await driver.lobby(["rounds=short"], ai=1)
    await driver.play_to_end()
    for person in (ANN, BOB, CID):
        mine = driver.screens.hand(person)
        assert mine is not None
        head = mine.text.splitlines()[0]
        _medal, label, value = head.split(maxsplit=2)
        assert label == "내", head
        assert "명" not in value, head
        place = int(value.removeprefix("순위: ").split("위")[0])
        assert value == f"순위: {place}위 (전체 4)", head


async def test_a_name_that_matches_nobody_suggests_whom_it_may_mean(
    redis_client: aioredis.Redis,
) -> None:
    """Telegram names people by first and last name: `/stats bob` for Bob Brown found nobody,
    and said only that. A name that matches nobody now lists, for the asker alone, the
    players here with a word of their name starting with it, as /stats takes them; one that
    starts nobody's name, and an @username, get no list."""
    svc = service(redis_client, seed=3, clock=Clock(NOW))
    brown, bobby = User("tg:21", "Bob Brown"), User("tg:22", "Robert Bobby")
    await play(svc, GROUP, [ANN, brown, bobby], seed=1, ai=1)
    await play(svc, OTHER, [ANN, BOB, CID], seed=2)  # another group's Bob: not suggested here
    level = next(iter((await summaries(redis_client, GROUP))[0]["ai"].values()))
    stored = await everything(redis_client)
    outcome = await ask(svc, GROUP, ANN, Kind.STATS, "bob")
    assert outcome.messages == ()
    assert outcome.answer == (
        "Nobody called bob has played here.\nDid you mean:\n/stats Bob Brown\n/stats Robert Bobby"
    )
    outcome = await ask(svc, GROUP, ANN, Kind.STATS, level[:3].upper())
    assert (
        outcome.answer
        == f"Nobody called {level[:3].upper()} has played here.\nDid you mean:\n/stats {level}"
    )
    assert (await ask(svc, GROUP, ANN, Kind.STATS, "Zed")).answer == (
        "Nobody called Zed has played here."
    )
    assert (await ask(svc, GROUP, ANN, Kind.STATS, "rown")).answer == (
        "Nobody called rown has played here."
    )
    assert "Did you mean" not in (await ask(svc, GROUP, ANN, Kind.STATS, "@bob")).answer
    assert await everything(redis_client) == stored
    picked = text_of(await ask(svc, GROUP, ANN, Kind.STATS, "Bob Brown"))
    assert picked.splitlines()[0] == "📊 Bob Brown"


async def test_cross_chat_stats_are_shown_to_their_owner_only_privately(
    redis_client: aioredis.Redis,
) -> None:
    svc = service(redis_client, seed=5, clock=Clock(NOW))
    await play(svc, GROUP, [ANN, BOB, CID], seed=3)
    await play(svc, OTHER, [ANN, DOT, EVE], seed=4)
    stats = StatsStore(redis_client)
    assert await stats.chats(ANN.id) == [GROUP, OTHER]
    assert await stats.chats(DOT.id) == [OTHER]

    here = text_of(await ask(svc, GROUP, ANN, Kind.STATS))
    assert "Games  " in here
    assert here.splitlines()[1].split()[-1] == "1"
    # another chat's player is nobody here; and the group is never told another chat's numbers
    refused = await ask(svc, GROUP, ANN, Kind.STATS, "Dot")
    assert refused.alert
    assert refused.messages == ()
    assert refused.answer == "Nobody called Dot has played here."
    assert "Dot" not in text_of(await ask(svc, GROUP, ANN, Kind.TOP))

    private = await ask(svc, ANN.id, ANN, Kind.STATS)
    assert private.messages[0].pre
    assert not private.alert
    text = text_of(private)
    assert text.splitlines()[0] == "📊 Ann, in 2 chats"
    assert text.splitlines()[1].split()[-1] == "2"
    assert text.count("(1 game)") == 2  # a rating per chat
    # privately, nobody else's
    other = await ask(svc, ANN.id, ANN, Kind.STATS, "Bob")
    assert text_of(other) == "Here, /stats shows your own stats only."
    assert "Bob" not in text_of(other)
    # someone who never played
    nothing = await ask(svc, "tg:77", User("tg:77", "Zed"), Kind.STATS)
    assert text_of(nothing) == "No game of yours has finished yet."
    # a group's /stats never goes across chats, even for the asker
    assert "in 2 chats" not in text_of(await ask(svc, OTHER, ANN, Kind.STATS))


async def test_a_private_stats_names_the_chat_of_each_rating(
    redis_client: aioredis.Redis,
) -> None:
    """A rating is a chat's own, and a player's private /stats lists one a chat: it listed
    "1062 (1 game)" and "991 (3 games)" with no word of which group each was. Each is now under
    its chat's name as the platform last showed it (cut to 12 columns, isolated
    bidirectionally; a dash for a chat whose name was never told), most games first."""
    svc = service(redis_client, seed=5, clock=Clock(NOW))
    third = "tg:-300"
    for chat, title in ((GROUP, "Wizards"), (OTHER, "Friday Wizard at Ann's place")):
        await svc.handle(chat, ANN, Request(Kind.LANGUAGE, "en", place=title))
    await play(svc, GROUP, [ANN, BOB, CID], seed=3)
    await play(svc, GROUP, [ANN, BOB, CID], seed=5)
    await play(svc, OTHER, [ANN, DOT, EVE], seed=4)
    await play(svc, third, [ANN, DOT, EVE], seed=6)
    fold = Fold.from_json(await redis_client.hget(keys.stats(GROUP), "s"))
    text = text_of(await ask(svc, ANN.id, ANN, Kind.STATS))
    lines = text.splitlines()
    assert lines[0] == "📊 Ann, in 3 chats"
    assert lines[-4] == "Rating"
    rating = fold.players[ANN.id].rating
    assert lines[-3].split() == ["\u2068Wizards\u2069", str(rating), "(2", "games)"]
    assert lines[-2].startswith(" \u2068Friday Wiza…\u2069 ")
    assert lines[-2].endswith(" (1 game)")
    assert lines[-1].startswith(" – ")
    # the ratings stand in the column of the other numbers
    column = {text_width(line[: line.index(line.split()[-1])]) for line in lines[1:2]}
    for line in lines[-3:]:
        column.add(text_width(line[: line.index(line.split()[-3])]))
    assert len(column) == 1, text
    assert max(text_width(line) for line in lines) <= 34
    # a group's /stats names no other chat
    here = text_of(await ask(svc, GROUP, ANN, Kind.STATS))
    assert "Friday" not in here
    assert "Wizards" not in here


async def test_forgetme_asks_then_forgets_everywhere_and_keeps_the_others(
    redis_client: aioredis.Redis,
) -> None:
    svc = service(redis_client, seed=7, clock=Clock(NOW))
    await play(svc, GROUP, [ANN, BOB, CID], seed=5)
    await play(svc, OTHER, [ANN, DOT, EVE], seed=6)
    await play(svc, OTHER, [DOT, EVE, ANN], seed=7)
    assert "Ann" in text_of(await ask(svc, OTHER, DOT, Kind.TOP))
    before = {
        chat: Fold.from_json(await redis_client.hget(keys.stats(chat), "s"))
        for chat in (GROUP, OTHER)
    }
    for chat in (GROUP, OTHER):  # how the newest game moved the ratings, hers among them
        assert ANN.id.encode() in await redis_client.hget(keys.stats(chat), "e")
    # the Telegram groups where she was asked to open a private chat (`keys.opening`)
    await redis_client.sadd(keys.opening(ANN.id), "-100123")
    stored = await everything(redis_client)

    asked = await ask(svc, GROUP, ANN, Kind.FORGET)
    assert not asked.alert
    assert asked.messages == ()
    assert "/forgetme yes" in (asked.answer or "")
    assert await ask(svc, GROUP, ANN, Kind.FORGET, "maybe") == asked
    assert await everything(redis_client) == stored  # nothing changed yet

    done = await ask(svc, GROUP, ANN, Kind.FORGET, "yes")
    assert done.answer == "Done: your stats are deleted in 2 chats."
    for chat in (GROUP, OTHER):
        after = Fold.from_json(await redis_client.hget(keys.stats(chat), "s"))
        assert ANN.id not in after.players
        assert after.players == {p: s for p, s in before[chat].players.items() if p != ANN.id}
        assert after.games == before[chat].games
        assert not await redis_client.hexists(keys.stats(chat), "e")  # it named her
        for entry in await summaries(redis_client, chat):
            assert ANN.id not in entry["players"]
            assert "Ann" not in entry["names"]
            assert sum(p.startswith("x:") for p in entry["players"]) == 1
        # the others' stats add up as before when folded again from the summaries
        again = fold(read_games(reversed(await summaries(redis_client, chat))))
        people = {p: s for p, s in again.players.items() if not p.startswith("x:")}
        assert Fold(people).to_json() == Fold(after.players).to_json()
    assert not await redis_client.exists(keys.played(ANN.id))
    assert not await redis_client.exists(keys.opening(ANN.id))
    assert not await redis_client.hexists(keys.stats(OTHER), "m")  # made again without her
    assert await StatsStore(redis_client).chats(DOT.id) == [OTHER]

    assert (await ask(svc, GROUP, BOB, Kind.STATS, "Ann")).alert
    assert "Ann" not in text_of(await ask(svc, OTHER, DOT, Kind.TOP))
    assert text_of(await ask(svc, ANN.id, ANN, Kind.STATS)) == "No game of yours has finished yet."
    twice = await ask(svc, ANN.id, ANN, Kind.FORGET, "yes")  # privately: a message
    assert text_of(twice) == "There were no stats of yours to delete."


ZED = User("tg:7770001", "Zelda")
"""Someone whose id and name occur nowhere else, so a scan for them finds only what names her."""


async def naming(client: aioredis.Redis, *marks: str) -> dict[str, list[str]]:
    """Every key of the store (SCAN) whose name or content holds one of `marks`, with what
    holds it: strings, lists, hashes (fields and values), sets and sorted sets read by their
    type, packed tables unpacked."""

    def readable(value: bytes) -> str:
        try:
            return json.dumps(unpack(value), ensure_ascii=False)
        except Exception:  # not packed: as stored
            return value.decode("utf-8", "replace")

    found: dict[str, list[str]] = {}
    async for key in client.scan_iter("*"):
        kind = (await client.type(key)).decode()
        if kind == "string":
            values = [await client.get(key)]
        elif kind == "list":
            values = await client.lrange(key, 0, -1)
        elif kind == "hash":
            values = [item for pair in (await client.hgetall(key)).items() for item in pair]
        elif kind in ("set", "zset"):
            values = list(
                await client.zrange(key, 0, -1) if kind == "zset" else await client.smembers(key)
            )
        else:
            values = [kind.encode()]
        held = [
            text for text in [key.decode(), *map(readable, values)] if any(m in text for m in marks)
        ]
        if held:
            found[key.decode()] = held
    return found


async def test_after_forgetme_nothing_names_the_person_but_the_finished_tables(
    redis_client: aioredis.Redis,
) -> None:
    """/forgetme, then a scan of every key for her id and her name: they remain only in the
    finished games' tables (`keys.game`: the game itself, shown again from it, gone
    `finished_ttl` after its end; docs/stats.md, "Privacy"). The record of each chat's last
    game (`/record`, kept 90 days) calls her seat `Player 1`, and is still a record."""
    svc = service(redis_client, seed=7, clock=Clock(NOW))
    await play(svc, GROUP, [ZED, BOB, CID], seed=5)
    await play(svc, OTHER, [BOB, ZED], seed=6, ai=1)
    await ask(svc, ZED.id, ZED, Kind.STATS)
    await ask(svc, GROUP, BOB, Kind.TOP)
    await redis_client.sadd(keys.opening(ZED.id), GROUP)
    marks = (ZED.id.partition(":")[2], ZED.name)
    assert {keys.record(GROUP), keys.results(OTHER)} <= set(await naming(redis_client, *marks))
    expiry = await redis_client.ttl(keys.record(GROUP))

    done = await ask(svc, GROUP, ZED, Kind.FORGET, "yes")
    assert done.answer == "Done: your stats are deleted in 2 chats."
    assert set(await naming(redis_client, *marks)) == {keys.game(GROUP), keys.game(OTHER)}
    for chat, seat in ((GROUP, 1), (OTHER, 2)):
        record = json.loads(await redis_client.get(keys.record(chat)))
        assert record["players"][seat - 1] == f"Player {seat}"
        assert check_record(record).totals == record["totals"]  # still a record
    assert 0 < await redis_client.ttl(keys.record(GROUP)) <= expiry  # its expiry kept


async def test_forgetme_leaves_a_game_in_play_and_says_so(redis_client: aioredis.Redis) -> None:
    """/forgetme forgets stats, not the games Ann sits at now: the question says a game in play
    is not changed (its result will name her: forget again after it), and her index of live
    seats stays, so the marks of who sits in two chats stay true as she rises."""
    svc = service(redis_client, seed=7, clock=Clock(NOW))
    await play(svc, GROUP, [ANN, BOB, CID], seed=5)
    here, there = Driver(svc, [ANN, BOB, CID], chat=GROUP), Driver(svc, [ANN, DOT], chat=OTHER)
    await here.lobby(["rounds=short"])
    await there.lobby(start=False)
    asked = await ask(svc, GROUP, ANN, Kind.FORGET)
    assert "A game you are playing now is not changed" in (asked.answer or "")
    assert "send /forgetme again once it has ended" in (asked.answer or "")
    done = await ask(svc, GROUP, ANN, Kind.FORGET, "yes")
    assert done.answer == "Done: your stats are deleted in 1 chat."
    seats = {chat.decode() for chat in await redis_client.smembers(keys.seats(ANN.id))}
    assert seats == {GROUP, OTHER}
    assert ANN.id in (await svc.store.load(GROUP)).elsewhere
    await there.ok(ANN, Kind.LEAVE)
    assert ANN.id not in (await svc.store.load(GROUP)).elsewhere  # one seat left: no mark


async def test_a_crash_between_a_games_end_and_its_fold_loses_nothing(
    redis_client: aioredis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    svc = service(redis_client, seed=9, clock=Clock(NOW))
    await play(svc, GROUP, [ANN, BOB, CID], seed=8)

    async def died(chat: str, game: str) -> tuple[Rerated, ...]:
        """The worker dies right after writing the game's end, before folding its stats."""
        return ()

    monkeypatch.setattr(svc, "_fold", died)
    await play(svc, GROUP, [ANN, BOB, DOT], seed=9)
    behind = Fold.from_json(await redis_client.hget(keys.stats(GROUP), "s"))
    assert behind.games == 1
    assert DOT.id not in behind.players
    assert len(await summaries(redis_client, GROUP)) == 2
    # the index was written before the game's end: Dot's private stats find the chat
    assert await StatsStore(redis_client).chats(DOT.id) == [GROUP]

    fresh = service(redis_client, seed=10, clock=Clock(NOW))  # another worker, after the crash
    text = text_of(await ask(fresh, DOT.id, DOT, Kind.STATS))
    assert text.splitlines()[1].split()[-1] == "1"
    caught = Fold.from_json(await redis_client.hget(keys.stats(GROUP), "s"))
    assert caught.games == 2
    assert caught.players[ANN.id].games == 2
    whole = fold(read_games(reversed(await summaries(redis_client, GROUP))))
    assert caught.to_json() == whole.to_json()
    # reading again folds nothing twice
    await ask(fresh, GROUP, ANN, Kind.TOP)
    assert Fold.from_json(await redis_client.hget(keys.stats(GROUP), "s")).games == 2


async def test_the_fold_after_a_game_keeps_how_it_moved_the_ratings_for_any_worker(
    redis_client: aioredis.Redis,
) -> None:
    """The fold that folds a game notes how it moved each seat's rating, kept with the fold:
    the game's end says it whichever worker folded it (another's /top first, say), as often
    as it is shown, until a newer game is folded; the fold is made once."""
    stats = StatsStore(redis_client)
    players = ["tg:1", "tg:2", "tg:3"]
    first = summary(players, [120, 80, 40], finished=NOW, game="g1")
    await redis_client.lpush(keys.results(GROUP), json.dumps(first))
    moved = await stats.fold_game(GROUP, "g1")
    assert [(r.rating, r.change) for r in moved] == [(1130, 130), (1062, 62), (890, -110)]
    version = await redis_client.hget(keys.stats(GROUP), "v")
    assert await stats.fold_game(GROUP, "g1") == moved  # kept: shown again, the same
    assert await redis_client.hget(keys.stats(GROUP), "v") == version  # and not folded again
    second = summary(players, [10, 80, 40], finished=NOW + 60, game="g2")
    await redis_client.lpush(keys.results(GROUP), json.dumps(second))
    await stats.fold(GROUP)  # another worker got there first
    noted = fold_noting(read_games([second]), folded(first))[1]
    assert await stats.fold_game(GROUP, "g2") == noted.ratings != ()
    assert await stats.fold_game(GROUP, "g1") == ()  # no longer the newest game folded
    third = summary(players, [10, 20, 40], finished=NOW + 120, game="g3")
    await redis_client.lpush(keys.results(GROUP), json.dumps(third))
    before = await stats.fold(GROUP)
    before = Fold.from_json(before.to_json())
    await redis_client.lpush(
        keys.results(GROUP), json.dumps(summary(players, [1, 2, 3], finished=NOW + 180))
    )
    fourth = summary(players, [50, 20, 40], finished=NOW + 240, game="g4")
    await redis_client.lpush(keys.results(GROUP), json.dumps(fourth))
    # two games unfolded (a fold failed after the one before): the last one's change is its own
    moved = await stats.fold_game(GROUP, "g4")
    stored = Fold.from_json(await redis_client.hget(keys.stats(GROUP), "s"))
    assert stored.games == 5
    middle = fold(read_games([summary(players, [1, 2, 3], finished=NOW + 180)]), before)
    assert len(moved) == 3
    for seat in moved:
        rating = stored.players[seat.player].rating
        assert (seat.rating, seat.change) == (rating, rating - middle.players[seat.player].rating)
    # forgetting someone forgets the note too (it names them)
    assert await stats.forget("tg:2") == 1
    assert await stats.fold_game(GROUP, "g4") == ()
    assert await redis_client.hget(keys.stats(GROUP), "e") is None


def rating_in(text: str) -> tuple[int, bool]:
    """The rating of a /stats block, and whether it is provisional."""
    line = next(line for line in text.splitlines() if line.startswith("Rating"))
    return int(line.split()[1]), line.endswith("(provisional)")


def signed(change: int) -> str:
    return f"+{change}" if change > 0 else f"\u2212{-change}" if change < 0 else "\u00b10"


async def test_a_games_end_says_how_it_moved_each_rating_as_stats_then_shows(
    redis_client: aioredis.Redis,
) -> None:
    """The group's end of a game gains each seat's rating after it and its change, by place;
    each person's own result their own. The numbers are /stats's: after the game, and after
    minus before (1000 before a first game, the rating of a new player)."""
    svc = service(redis_client, seed=3, clock=Clock(NOW))
    people = [ANN, BOB, CID]
    rated: dict[str, tuple[int, bool]] = {}
    for game, seed in enumerate((1, 2)):
        driver = Players(svc, people, chat=GROUP, seed=seed)
        await driver.lobby(["rounds=short"], ai=1)
        await driver.play_to_end()
        entry = (await summaries(redis_client, GROUP))[0]
        level = next(iter(entry["ai"].values()))
        names = {p.id: p.name for p in people} | {f"ai:{level}": f"AI ({level})"}
        before = dict(rated) or dict.fromkeys(names, (RATING_BASE, True))
        for player, name in names.items():
            asked = level if player.startswith("ai:") else name
            rated[player] = rating_in(text_of(await ask(svc, GROUP, CID, Kind.STATS, asked)))
        order = sorted(range(4), key=lambda seat: (entry["places"][seat], seat))
        ids = [entry["players"][seat] for seat in order]
        ids = [f"ai:{entry['ai'][pid]}" if pid in entry["ai"] else pid for pid in ids]
        shown = [
            f"{names[pid]} {rated[pid][0]}{'?' if rated[pid][1] else ''} "
            f"({signed(rated[pid][0] - before[pid][0])})"
            for pid in ids
        ]
        over = driver.screens.group("over")
        assert over is not None
        assert over.text.splitlines()[-3:] == [
            "",
            "Ratings here: " + " · ".join(shown),
            "? provisional: fewer than 5 games",
        ], over.text
        if game == 0:  # a first game: from 1000 each, to the fold of that one game
            first = folded(entry).players
            assert [rated[pid][0] for pid in ids] == [first[pid].rating for pid in ids]
        for person in people:
            mine = driver.screens.hand(person)
            assert mine is not None
            rating = rated[person.id][0]
            change = signed(rating - before[person.id][0])
            assert mine.text.splitlines()[-1] == (
                f"Your rating here: {rating} ({change}), provisional"
            ), mine.text


async def test_a_game_folded_by_another_worker_ends_with_ratings_one_not_folded_without(
    redis_client: aioredis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game's end says how it moved the ratings as the fold that folded it noted them: if
    another worker folded it first (its /top, say), the end says it all the same; if the fold
    failed, the end is shown without the line. Nothing is lost, nothing folded twice."""
    svc = service(redis_client, seed=3, clock=Clock(NOW))
    other = service(redis_client, seed=4, clock=Clock(NOW))
    fold_game = svc.stats.fold_game

    async def beaten(chat: str, game: str) -> tuple[Rerated, ...]:
        await other.stats.fold(chat)  # another worker gets there first
        return await fold_game(chat, game)

    async def broken(chat: str, game: str) -> tuple[Rerated, ...]:
        raise ConnectionError("Redis went away")

    for stand_in, seed, rated in [(beaten, 1, True), (broken, 2, False)]:
        monkeypatch.setattr(svc.stats, "fold_game", stand_in)
        driver = Players(svc, [ANN, BOB, CID], chat=GROUP, seed=seed)
        await driver.lobby(["rounds=short"])
        await driver.play_to_end()
        over = driver.screens.group("over")
        assert over is not None
        lines = over.text.splitlines()
        assert lines[-1].endswith(("wins!", "share first place!")) != rated, over.text
        assert ("Ratings here: " in over.text) == rated
        for person in (ANN, BOB, CID):
            mine = driver.screens.hand(person)
            assert mine is not None
            assert mine.text.splitlines()[0].startswith(("🥇", "🥈", "🥉"))
            assert ("Your rating here: " in mine.text) == rated, mine.text
        stored = Fold.from_json(await redis_client.hget(keys.stats(GROUP), "s"))
        assert stored.games == 1  # folded once (the second game: not yet)
    await ask(svc, GROUP, ANN, Kind.TOP)  # the next read folds what is missing
    assert Fold.from_json(await redis_client.hget(keys.stats(GROUP), "s")).games == 2


async def test_a_games_end_is_shown_when_its_fold_fails_and_rated_once_a_fold_succeeds(
    redis_client: aioredis.Redis,
) -> None:
    """The fold at a game's end fails for a real cause (the chat's stats key holds a string):
    the end is shown all the same, in the group and to each person, with no ratings line and
    nothing said of ratings, and the web page's end reads no note rather than failing. Once
    the cause is gone, the next read folds the game (/top here) and notes how it moved the
    ratings: the end shown again (after an outage), and the web page's, then say it, with the
    numbers /top shows."""
    svc = service(redis_client, seed=3, clock=Clock(NOW))
    await redis_client.set(keys.stats(GROUP), "not a hash")
    driver = Players(svc, [ANN, BOB, CID], chat=GROUP, seed=1)
    await driver.lobby(["rounds=short"])
    await driver.play_to_end()
    over = driver.screens.group("over")
    assert over is not None
    assert over.text.splitlines()[-1].endswith(("wins!", "share first place!")), over.text
    assert "rating" not in over.text.casefold(), over.text
    assert "?" not in over.text, over.text
    for person in (ANN, BOB, CID):
        mine = driver.screens.hand(person)
        assert mine is not None
        assert mine.text.splitlines()[0].startswith(("🥇", "🥈", "🥉")), mine.text
        assert "rating" not in mine.text.casefold(), mine.text
    table = await table_of(redis_client, GROUP)
    assert table is not None
    assert await svc.stats.noted(GROUP, table.game_id) == ()  # the web page's end: no line

    await redis_client.delete(keys.stats(GROUP))  # the cause is gone (the summaries stay)
    top = text_of(await ask(svc, GROUP, ANN, Kind.TOP))
    noted = await svc.stats.noted(GROUP, table.game_id)
    assert len(noted) == 3
    again = await svc.current(GROUP)
    assert again.again
    shown = {(m.to, m.slot): m.text for m in again.messages}
    rated = shown[(None, "over")].splitlines()
    assert rated[-2].startswith("Ratings here: "), rated
    for person in (ANN, BOB, CID):
        rating = next(r for r in noted if r.player == person.id)
        assert row_of(top, person.name)[2].rstrip("?") == str(rating.rating)
        line = shown[(person.id, "hand")].splitlines()[-1]
        assert line.startswith(f"Your rating here: {rating.rating} ("), line
    assert Fold.from_json(await redis_client.hget(keys.stats(GROUP), "s")).games == 1


def test_two_ai_seats_of_one_level_show_its_one_rating_once_saying_so() -> None:
    """Two seats of one AI level share its rating: the line shows the level once, at its
    better seat's place, counted (`2`, a times sign, `AI (hard)`), so that no seat seems left
    out; one seat of a level is named plainly. So are the web page's standings, each seat's
    rating on its row (`seat_ratings`): a person's with no name, their name is the row's."""
    hard = Rerated("ai:hard", 1050, 20, True)
    ratings = [
        Rerated("tg:1", 1130, 130, True),
        hard,
        Rerated("ai:easy", 960, -40, True),
        Rerated("tg:2", 890, -110, True),
        hard,
    ]
    names = ["Ann", "🤖 Merlin", "🤖 Puck", "Bob", "🤖 Oz"]
    lines = ratings_lines(T, names, [1] * 5, [1, 2, 4, 5, 3], ratings)
    assert lines[0] == (
        "Ratings here: Ann 1130? (+130) · 2× AI (hard) 1050? (+20) · AI (easy) 960? (\u221240)"
        " · Bob 890? (\u2212110)"
    )
    # the web page's standings, a row a seat: the level's rating once, at its better seat
    assert seat_ratings(T, [1, 2, 4, 5, 3], ratings) == [
        "1130? (+130)",
        "2× AI (hard) 1050? (+20)",
        "AI (easy) 960? (\u221240)",
        "890? (\u2212110)",
        "",
    ]


async def test_ratings_show_at_the_end_only_if_they_fit_a_caption(
    redis_client: aioredis.Redis,
) -> None:
    """The line names people cut to 12 columns (a number that tells people called alike apart
    stays), and is left out of an end that would not fit a Telegram photo's caption with it."""
    svc = service(redis_client, seed=3, clock=Clock(NOW))
    await play(svc, GROUP, [ANN, BOB, CID], seed=1)
    table = await table_of(redis_client, GROUP)
    assert table is not None
    view, seats = table_view(table.game), seating(table)
    ratings = tuple(
        Rerated(seat.player, 1000 + 10 * number, 10 * number, number > 1)
        for number, seat in enumerate(view.seats)
    )
    order = sorted(range(3), key=lambda seat: (view.places[seat], seat))
    long = replace(
        seats,
        names=("Maximilian von Wizardhausen", "Ann", "Ann (2)"),
        numbers=(1, 1, 2),
    )
    text = game_over(LOOK, view, long, ratings).text
    assert text.splitlines()[-2] == "Ratings here: " + " · ".join(
        [
            ["Maximilian…", "Ann", "Ann (2)"][seat]
            + " "
            + ["1000 (±0)", "1010 (+10)", "1020? (+20)"][seat]
            for seat in order
        ]
    )
    assert text.splitlines()[-1] == "? provisional: fewer than 5 games"
    assert len(text) <= ROOM
    # names so long that the standings just fit (as six seats of Telegram's longest names do)
    huge = replace(seats, names=tuple(f"{'x' * 229}{seat}" for seat in range(3)))
    plain = game_over(LOOK, view, huge).text
    assert len(plain) <= ROOM < len(plain) + 100  # standings that fit, but not with the line
    assert game_over(LOOK, view, huge, ratings).text == plain


async def test_all_time_goes_on_past_the_games_kept(redis_client: aioredis.Redis) -> None:
    """The results keep the last 1,000 games; the fold, carried forward, counts every game."""
    stats = StatsStore(redis_client)
    players = ["tg:1", "tg:2", "tg:3"]
    for number in range(1010):
        entry = summary(players, [number % 3, 1, 2], finished=NOW + number, game=f"{number:x}")
        await redis_client.lpush(keys.results(GROUP), json.dumps(entry))
        await redis_client.ltrim(keys.results(GROUP), 0, 999)
        if number in (0, 400, 1009):
            await stats.fold(GROUP)
    assert await redis_client.llen(keys.results(GROUP)) == 1000
    done = await stats.fold(GROUP)
    assert done.games == 1010
    assert done.players["tg:1"].games == 1010
    assert done.players["tg:1"].wins == sum(n % 3 == 2 for n in range(1010))


async def test_the_recent_board_is_carried_forward_and_folded_anew_once_a_game_ages_out(
    redis_client: aioredis.Redis,
) -> None:
    stats = StatsStore(redis_client)
    people = ["tg:1", "tg:2", "tg:3", "tg:4"]
    entries = []
    for number in range(40):
        seated = people[number % 2 : number % 2 + 3]
        entry = summary(seated, [number % 5, 3, 1], finished=NOW + number * DAY, game=f"{number}")
        entries.append(entry)
        await redis_client.lpush(keys.results(GROUP), json.dumps(entry))
        now = NOW + number * DAY + 600
        got = await stats.recent_fold(GROUP, now)
        hour = now // 3600 * 3600
        expected = fold(recent(read_games(entries), hour, WINDOW))
        assert got.to_json() == expected.to_json(), number
        assert (await stats.recent_fold(GROUP, now)).to_json() == expected.to_json()


async def test_a_quiet_month_reads_one_page_not_every_result(
    redis_client: aioredis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chat whose last game ended over 30 days ago keeps an empty board of the month: the
    next /top looks only as far back as the window, not through all 1,000 results kept."""
    stats = StatsStore(redis_client)
    for number in range(1000):
        entry = summary(["tg:1", "tg:2", "tg:3"], [number % 3, 1, 2], finished=NOW + number)
        await redis_client.lpush(keys.results(GROUP), json.dumps(entry))
    later = NOW + 40 * DAY
    await stats.fold(GROUP)
    assert (await stats.recent_fold(GROUP, later)).players == {}
    read: list[tuple[int, int]] = []
    lrange = redis_client.lrange

    async def counted(key: str, start: int, stop: int) -> Any:
        read.append((start, stop))
        return await lrange(key, start, stop)

    monkeypatch.setattr(redis_client, "lrange", counted)
    for _ in range(3):
        assert (await stats.recent_fold(GROUP, later)).players == {}
    assert read
    assert all(stop != -1 for _, stop in read), read


async def test_bad_input_gets_a_clear_answer_and_changes_nothing(
    redis_client: aioredis.Redis,
) -> None:
    svc = service(redis_client, seed=11, clock=Clock(NOW))
    await play(svc, GROUP, [ANN, BOB, CID], seed=10)
    stored = await everything(redis_client)
    for name in ("Zed", "\u202eAnn\u202c", "{name}", "A" * 200, "💥" * 50, "\ud800", "x:00"):
        outcome = await ask(svc, GROUP, BOB, Kind.STATS, name)
        assert outcome.alert
        assert outcome.messages == ()
        assert (outcome.answer or "").startswith("Nobody called ")
        assert len(outcome.answer or "") < 80
    never = await ask(svc, GROUP, DOT, Kind.STATS)
    assert never.alert
    assert never.answer == "No game of yours has finished here yet."
    empty = await ask(svc, "tg:-300", ANN, Kind.TOP)
    assert empty.alert
    assert empty.answer == "No game has finished in this chat yet."
    for word in ("", "no", "YES!", "\u200byes"):
        assert "/forgetme yes" in ((await ask(svc, GROUP, ANN, Kind.FORGET, word)).answer or "")
    assert await everything(redis_client) == stored
    # ids the service does not take are refused before anything is read
    odd = await svc.handle("tg:{x}", ANN, Request(Kind.STATS))
    assert odd.alert


async def test_a_person_picked_by_the_platform_is_looked_up_by_id(
    redis_client: aioredis.Redis,
) -> None:
    """A person a front end picked (`Request.whom`: a reply, a mention, a user option) is shown
    by their id, whatever name is typed; one who has not played here is named in the refusal;
    privately only oneself may be picked; an @username is no name the bot knows, and says so."""
    svc = service(redis_client, seed=17, clock=Clock(NOW))
    await play(svc, GROUP, [ANN, BOB, CID], seed=16)

    async def pick(asker: User, whom: User, arg: str = "", chat: str = GROUP) -> Outcome:
        request = Request(Kind.STATS, arg, private=chat == asker.id, whom=whom)
        return await svc.handle(chat, asker, request)

    assert text_of(await pick(CID, BOB)).splitlines()[0] == "📊 Bob"
    # renamed since: the picked person is still theirs, under the name they played under
    assert text_of(await pick(CID, User(BOB.id, "Robert"))).splitlines()[0] == "📊 Bob"
    assert text_of(await pick(CID, BOB, "Ann")).splitlines()[0] == "📊 Bob"  # the pick wins
    assert text_of(await pick(CID, CID)).splitlines()[0] == "📊 Cid"
    stored = await everything(redis_client)
    never = await pick(ANN, DOT)
    assert never.alert
    assert never.messages == ()
    assert never.answer == "Dot has not finished a game here yet."
    assert (await pick(DOT, DOT)).answer == "No game of yours has finished here yet."
    mention = await ask(svc, GROUP, ANN, Kind.STATS, "@bob")
    assert mention.alert
    assert mention.answer == (
        "Nobody called @bob has played here. "
        "Players are known by the name they play under, not by @username."
    )
    assert await everything(redis_client) == stored
    # privately, only oneself
    assert text_of(await pick(ANN, BOB, chat=ANN.id)) == "Here, /stats shows your own stats only."
    assert text_of(await pick(ANN, ANN, chat=ANN.id)).splitlines()[0] == "📊 Ann, in 1 chat"


async def test_a_moved_chat_keeps_its_stats(redis_client: aioredis.Redis) -> None:
    svc = service(redis_client, seed=13, clock=Clock(NOW))
    await play(svc, GROUP, [ANN, BOB, CID], seed=12)
    assert await svc.move_chat(GROUP, OTHER) is not None
    assert not await redis_client.exists(keys.stats(GROUP))
    assert await StatsStore(redis_client).chats(ANN.id) == [OTHER]
    assert text_of(await ask(svc, OTHER, ANN, Kind.STATS)).splitlines()[1].split()[-1] == "1"


def test_the_commands_are_declared() -> None:
    for kind, name in ((Kind.STATS, "stats"), (Kind.TOP, "top"), (Kind.FORGET, "forgetme")):
        spec = BY_KIND[kind]
        assert spec.name == name
        assert spec.query
        assert spec.about
    assert BY_KIND[Kind.STATS].anywhere
    # /help says how to point at a player, under /stats
    lines = help_text(T).splitlines()
    stats = lines.index("/stats – your stats, or a player's: /stats Ann")
    assert lines[stats + 1] == (
        "    or point at them: a reply to their message (Telegram), the player option (Discord)"
    )
    assert BY_KIND[Kind.FORGET].anywhere
    assert not BY_KIND[Kind.TOP].anywhere


async def test_an_ai_level_is_named_in_the_chats_language_and_looked_up_so_too(
    redis_client: aioredis.Redis,
) -> None:
    """The boards name an AI level in the reader's language (`ИИ (средний)`; they said
    `ИИ (normal)`), and /stats takes the level's word as shown as well as the English one."""
    svc = service(redis_client, seed=11, clock=Clock(NOW))
    await play(svc, GROUP, [ANN, BOB], seed=10, ai=1)
    await ask(svc, GROUP, ANN, Kind.LANGUAGE, "ru")
    top = text_of(await ask(svc, GROUP, ANN, Kind.TOP))
    assert "ИИ (средний)" in top
    assert "normal" not in top
    for word in ("средний", "СРЕДНИЙ", "normal"):
        head = text_of(await ask(svc, GROUP, BOB, Kind.STATS, word)).splitlines()[0]
        assert head == "📊 ИИ (средний)", word
    # a beginning of its English word suggests it as shown, which /stats takes
    assert (await ask(svc, GROUP, BOB, Kind.STATS, "norm")).answer == (
        "Здесь не играл никто по имени norm.\nМожет быть, имеется в виду:\n/stats средний"
    )


async def test_an_ai_levels_word_is_taken_with_or_without_its_yo(
    redis_client: aioredis.Redis,
) -> None:
    """Russian writes the easy level `лёгкий`, and many type it `легкий` (without the dots,
    as most keyboards lead them to): /stats takes either, in either case, as it takes the
    word shown. `легкий` found nobody."""
    svc = service(redis_client, seed=11, clock=Clock(NOW))
    driver = Players(svc, [ANN, BOB], chat=GROUP, seed=10)
    await driver.lobby(["rounds=short"], start=False)
    await driver.ok(ANN, Kind.ADD_AI, "easy")
    await driver.ok(ANN, Kind.START)
    await driver.play_to_end()
    await ask(svc, GROUP, ANN, Kind.LANGUAGE, "ru")
    assert "ИИ (лёгкий)" in text_of(await ask(svc, GROUP, ANN, Kind.TOP))
    for word in ("лёгкий", "легкий", "ЛЕГКИЙ", "Лёгкий", "easy"):
        head = text_of(await ask(svc, GROUP, BOB, Kind.STATS, word)).splitlines()[0]
        assert head == "📊 ИИ (лёгкий)", word
