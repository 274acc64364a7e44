"""Determinism: seeds fix games, records replay them, JSON resumes them, and apply is pure."""

import itertools
import json
import random

import pytest

from engine import (
    Bid,
    BidMode,
    Command,
    Event,
    GameState,
    Options,
    Phase,
    Play,
    RoundsPlan,
    RuleError,
    apply,
    check_record,
    export_record,
    step,
)
from engine.randomplay import new_game, play_random_game, random_command

WINGS = 0.1
PLAYERS = [3, 4, 5, 6]

TABLES = {
    "standard": Options(),
    "short-everything": Options(
        notequal=True,
        bids=BidMode.HIDDEN,
        rounds=RoundsPlan.SHORT,
        dmmixed=True,
        foresight=True,
        wings=True,
    ),
    "short-secret": Options(notequal=True, bids=BidMode.SECRET, rounds=RoundsPlan.SHORT),
    "standard-wings-foresight": Options(notequal=False, foresight=True, wings=True),
    "tournament": Options(rounds=RoundsPlan.TOURNAMENT, bids=BidMode.HIDDEN, wings=True),
}


def tables(players: int) -> list[Options]:
    return [
        options
        for options in TABLES.values()
        if not (players == 6 and options.rounds is RoundsPlan.TOURNAMENT)
    ]


def play_logged(
    players: int, options: Options, seed: int
) -> tuple[GameState, list[Command], list[list[Event]]]:
    """The game `play_random_game(players, options, seed, WINGS)` plays, with every command and
    the events of each."""
    state = new_game(players, options, seed)
    rng = random.Random(seed)
    commands: list[Command] = []
    events: list[list[Event]] = []
    while state.phase is not Phase.FINISHED:
        command = random_command(state, rng, WINGS)
        commands.append(command)
        events.append(step(state, command))
    return state, commands, events


# --- the seed fixes the game -----------------------------------------------------------------


@pytest.mark.parametrize("players", PLAYERS)
def test_same_seed_same_game(players: int) -> None:
    for options, seed in itertools.product(tables(players), (0, 1, 2**40 + 3)):
        first, first_events = play_random_game(players, options, seed, wings=WINGS)
        second, second_events = play_random_game(players, options, seed, wings=WINGS)
        assert first_events == second_events
        assert first == second
        assert first.to_json() == second.to_json()
        assert first.phase is Phase.FINISHED
        assert len(first.results) == len(first.plan)
        # the stepwise log is the same game
        logged, _, events = play_logged(players, options, seed)
        assert logged == first
        assert [event for batch in events for event in batch] == first_events


@pytest.mark.parametrize("players", PLAYERS)
def test_same_seed_same_start(players: int) -> None:
    for options in tables(players):
        starts = [new_game(players, options, seed=12345) for _ in range(3)]
        assert starts[0] == starts[1] == starts[2]
        assert starts[0].round is not None
        assert starts[0].round.dealt == starts[1].round.dealt


@pytest.mark.parametrize("players", PLAYERS)
def test_different_seeds_differ(players: int) -> None:
    seeds = range(40)
    games = [play_random_game(players, Options(rounds=RoundsPlan.SHORT), seed) for seed in seeds]
    # whole games, and the deal of every round, differ from seed to seed
    event_logs = [repr(events) for _, events in games]
    assert len(set(event_logs)) == len(event_logs)
    for number in range(5):
        deals = [
            (state.results[number].hands, state.results[number].trump_card) for state, _ in games
        ]
        assert len(set(deals)) == len(deals)
    # the first dealer is drawn by chance: every seat deals first for some seed
    assert {state.first_dealer for state, _ in games} == set(range(players))
    # and so are the deals of a started game
    starts = [new_game(players, Options(), seed) for seed in seeds]
    dealt = {start.round.dealt for start in starts if start.round is not None}
    assert len(dealt) == len(starts)


# --- a record replays the game ---------------------------------------------------------------


@pytest.mark.parametrize("players", PLAYERS)
def test_record_replays_to_the_same_results(players: int) -> None:
    for options, seed in itertools.product(tables(players), (5, 6)):
        state, _ = play_random_game(players, options, seed, wings=WINGS)
        record = json.loads(json.dumps(export_record(state)))
        replayed = check_record(record)
        assert replayed.phase is Phase.FINISHED
        assert replayed.results == state.results
        assert replayed.totals == state.totals
        assert [p.name for p in replayed.players] == [p.name for p in state.players]
        # the replay exports the same record (its seed aside: the deals came from the record)
        again = export_record(replayed)
        assert {**again, "seed": None} == {**record, "seed": None}
        assert check_record(json.loads(json.dumps(again))).results == state.results


# --- a game saved as JSON mid-round resumes identically --------------------------------------


def resume_at(
    players: int, options: Options, seed: int, cut: int, commands: list[Command]
) -> tuple[GameState, list[Event]]:
    """Play `commands[:cut]`, save the state as JSON, restore it and play the rest."""
    state = new_game(players, options, seed)
    for command in commands[:cut]:
        step(state, command)
    saved = state.to_json()
    restored = GameState.from_json(saved)
    assert restored == state
    assert restored is not state
    events: list[Event] = []
    for command in commands[cut:]:
        events.extend(step(restored, command))
    assert state.to_json() == saved  # the original was not touched by the restored game
    return restored, events


@pytest.mark.parametrize("players", PLAYERS)
def test_json_mid_round_resumes_identically_at_every_step(players: int) -> None:
    options = TABLES["short-everything"]
    final, commands, events = play_logged(players, options, seed=players)
    for cut in range(len(commands) + 1):
        resumed, later = resume_at(players, options, players, cut, commands)
        assert resumed == final, cut
        assert resumed.to_json() == final.to_json()
        assert later == [event for batch in events[cut:] for event in batch], cut


@pytest.mark.parametrize("players", PLAYERS)
def test_json_mid_round_resumes_identically_in_long_games(players: int) -> None:
    for options in tables(players):
        seed = 100 + players
        final, commands, events = play_logged(players, options, seed)
        # cut points mid-round: while bidding, and in the middle of a trick, in several rounds
        state = new_game(players, options, seed)
        cuts = []
        kinds = set()
        for index, command in enumerate(commands):
            rnd = state.round
            assert rnd is not None
            mid_trick = state.phase is Phase.PLAYING and rnd.trick and rnd.tricks
            mid_bids = state.phase is Phase.BIDDING and any(bid is not None for bid in rnd.bids)
            if (mid_trick or mid_bids) and rnd.number % 3 == 1:
                cuts.append(index)
                kinds.add(state.phase)
            step(state, command)
        assert state == final
        assert kinds == {Phase.BIDDING, Phase.PLAYING}
        for cut in cuts[:: max(1, len(cuts) // 12)]:
            resumed, later = resume_at(players, options, seed, cut, commands)
            assert resumed == final
            assert later == [event for batch in events[cut:] for event in batch]


def test_resumed_game_continues_the_same_with_the_same_random_player() -> None:
    """A bot restored from JSON with its random generator's state plays on identically."""
    options = TABLES["standard-wings-foresight"]
    final, _ = play_random_game(4, options, seed=77, wings=WINGS)
    state = new_game(4, options, seed=77)
    rng = random.Random(77)
    for _ in range(150):
        step(state, random_command(state, rng, WINGS))
    assert state.phase in (Phase.TRUMP, Phase.BIDDING, Phase.PLAYING)
    restored = GameState.from_json(state.to_json())
    rng_again = random.Random()
    rng_again.setstate(rng.getstate())
    while restored.phase is not Phase.FINISHED:
        step(restored, random_command(restored, rng_again, WINGS))
    assert restored == final


# --- apply is pure ---------------------------------------------------------------------------


@pytest.mark.parametrize("players", PLAYERS)
def test_apply_is_pure(players: int) -> None:
    options = TABLES["short-everything"]
    final, commands, events = play_logged(players, options, seed=9)
    state = new_game(players, options, seed=9)
    history: list[tuple[GameState, str]] = []
    for command, expected_events in zip(commands, events, strict=True):
        before = state.to_json()
        snapshot = state.copy()
        new, new_events = apply(state, command)
        assert state.to_json() == before
        assert state == snapshot
        assert new is not state
        assert new.seq == state.seq + 1
        assert new_events == expected_events
        # apply is step on a copy
        copied = snapshot.copy()
        assert step(copied, command) == new_events
        assert copied == new
        # an illegal command through apply raises and changes nothing either
        with pytest.raises(RuleError):
            apply(state, Bid("nobody", 0))
        with pytest.raises(RuleError):
            apply(new, Play("nobody", None))
        assert state.to_json() == before
        history.append((state, before))
        state = new
    assert state == final
    # no state shares anything mutable with the states applied after it
    for old, text in history:
        assert old.to_json() == text


def test_apply_leaves_a_finished_game_alone() -> None:
    state, _ = play_random_game(3, Options(rounds=RoundsPlan.SHORT), seed=4)
    before = state.to_json()
    with pytest.raises(RuleError):
        apply(state, Bid("p0", 0))
    assert state.to_json() == before
