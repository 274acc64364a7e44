"""The arena: whole games between AI levels with the seats rotated, summed up as JSON.

A seat is an AI level (`bot.ai.LEVELS`) or an opponent style (`bot.ai.styles.STYLES`), which
only the arena seats.

Deal `d` (seed `S + d`) is played once per rotation of the seat levels, so every level plays
every deal from every seat and no level profits from position. `games` counts games played:
with P players, a deal and its P - 1 rotations make P games.
"""

import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any

from bot.ai import LEVELS, AIPlayer, get_ai
from bot.ai.styles import STYLES
from engine import GameState, Options, Phase, player_view, step
from engine.randomplay import new_game
from engine.views import waiting_seats


@dataclass(frozen=True, slots=True)
class GameResult:
    """One arena game: the levels by seat, and what happened."""

    levels: tuple[str, ...]
    totals: tuple[int, ...]
    hits: tuple[tuple[int, int, bool], ...]
    """(seat, bidding position 1..P, bid met) for every bid of the game."""
    times: tuple[tuple[str, float], ...]
    """(level, milliseconds) for every decision."""


def seat_player(name: str) -> AIPlayer:
    """The player of an arena seat: an opponent style, or an AI level (ValueError: neither)."""
    style = STYLES.get(name)
    if style is not None:
        return style
    try:
        return get_ai(name)
    except ValueError:
        known = f"{', '.join(LEVELS)}; arena styles: {', '.join(STYLES)}"
        raise ValueError(f"unknown AI level {name!r} (known: {known})") from None


def rotated(seats: Sequence[str], game: int) -> tuple[str, ...]:
    """The levels by seat in `game`: `seats` turned by `game` places."""
    shift = game % len(seats)
    return (*seats[-shift:], *seats[:-shift]) if shift else tuple(seats)


def play_game(
    seats: Sequence[str], options: Options, seed: int, game: int, clock: bool = True
) -> GameResult:
    """Game number `game` of an arena run with base `seed`."""
    players = len(seats)
    levels = rotated(seats, game)
    state = new_game(players, options, seed + game // players)
    ais = [seat_player(level) for level in levels]
    rngs = [random.Random(f"{seed}:{game}:{seat}") for seat in range(players)]
    times: list[tuple[str, float]] = []
    while state.phase is not Phase.FINISHED:
        seat = waiting_seats(state)[0]
        view = player_view(state, seat)
        start = time.perf_counter()
        command = ais[seat].decide(view, rngs[seat])
        if clock:
            times.append((levels[seat], (time.perf_counter() - start) * 1000))
        step(state, command)
    return GameResult(levels, tuple(state.totals), _hits(state), tuple(times))


def _hits(state: GameState) -> tuple[tuple[int, int, bool], ...]:
    players = len(state.players)
    hits = []
    for result in state.results:
        for seat in range(players):
            position = (seat - result.dealer - 1) % players + 1
            hits.append((seat, position, result.bids[seat] == result.won[seat]))
    return tuple(hits)


def _play(job: tuple[tuple[str, ...], Options, int, int]) -> GameResult:
    seats, options, seed, game = job
    return play_game(seats, options, seed, game)


def run_arena(
    seats: Sequence[str], options: Options, games: int, seed: int, jobs: int = 1
) -> list[GameResult]:
    """Play `games` games (in `jobs` processes); the results in game order."""
    for level in seats:
        seat_player(level)  # an unknown name fails here, not in a worker
    work = [(tuple(seats), options, seed, game) for game in range(games)]
    if jobs <= 1:
        return [_play(job) for job in work]
    with get_context("fork").Pool(jobs) as pool:
        return pool.map(_play, work, chunksize=1)


def percentile(values: Sequence[float], share: float) -> float:
    """The `share` quantile of `values` (nearest rank), rounded to 0.001."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 3)


def summary(results: Sequence[GameResult], timing: bool = True) -> dict[str, Any]:
    """Per level: mean points a game, win rate (a win shared among the seats tied first),
    bid accuracy overall and by bidding position, decision time p50/p95 in ms."""
    players = len(results[0].levels) if results else 0
    points: dict[str, list[int]] = {}
    wins: dict[str, float] = {}
    hits: dict[str, list[bool]] = {}
    by_position: dict[str, dict[int, list[bool]]] = {}
    times: dict[str, list[float]] = {}
    for result in results:
        best = max(result.totals)
        first = [seat for seat, total in enumerate(result.totals) if total == best]
        for seat, level in enumerate(result.levels):
            points.setdefault(level, []).append(result.totals[seat])
            wins[level] = wins.get(level, 0.0) + (1 / len(first) if seat in first else 0.0)
        for seat, position, hit in result.hits:
            level = result.levels[seat]
            hits.setdefault(level, []).append(hit)
            by_position.setdefault(level, {}).setdefault(position, []).append(hit)
        for level, ms in result.times:
            times.setdefault(level, []).append(ms)
    levels: dict[str, Any] = {}
    for level in sorted(points):
        seats_per_game = len(points[level]) / len(results)
        entry: dict[str, Any] = {
            "seats": round(seats_per_game, 3),
            "mean_points": round(statistics.fmean(points[level]), 1),
            "win_rate": round(wins[level] / len(results), 3),
            "bid_accuracy": round(statistics.fmean(hits[level]), 3),
            "bid_accuracy_by_position": {
                str(position): round(statistics.fmean(by_position[level][position]), 3)
                for position in sorted(by_position[level])
            },
        }
        if timing:
            entry["decision_ms"] = {
                "p50": percentile(times.get(level, []), 0.5),
                "p95": percentile(times.get(level, []), 0.95),
                "max": percentile(times.get(level, []), 1.0),
                "decisions": len(times.get(level, [])),
            }
        levels[level] = entry
    return {"games": len(results), "players": players, "levels": levels}
