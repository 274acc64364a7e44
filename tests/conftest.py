"""Helpers for scripted rule tests: lobbies, fixed deals, filler rounds and refusal checks."""

import ctypes.util
import dataclasses
import os
import random
import subprocess
import sys
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

import pytest
import redis
import redis.asyncio as aioredis
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from system_packages import apt_install

import engine
from bot.store.redis_server import RedisServer, free_port
from engine import (
    DECK,
    WIZARD,
    Bid,
    BidMode,
    ChooseTrump,
    Deal,
    ErrorCode,
    Event,
    GameState,
    Join,
    Options,
    Phase,
    Play,
    RoundsPlan,
    RuleError,
    SetOptions,
    Start,
    Suit,
    parse_card,
    parse_cards,
)
from engine.state import NO_SEAT


def examples(count: int) -> settings:
    """Hypothesis settings of the property tests: `count` examples, the same ones every run."""
    return settings(
        max_examples=count,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )


def options_with(rounds: RoundsPlan) -> st.SearchStrategy[Options]:
    """Any options with the rounds plan `rounds` (hypothesis)."""
    return st.builds(
        Options,
        notequal=st.sampled_from([None, True, False]),
        bids=st.sampled_from(list(BidMode)),
        rounds=st.just(rounds),
        dmmixed=st.booleans(),
        foresight=st.booleans(),
        wings=st.booleans(),
    )


SHORT = Options(rounds=RoundsPlan.SHORT)
"""Five rounds of 1 to 5 cards: the default table of these tests."""

E = TypeVar("E")


def pid(seat: int) -> str:
    """The id of the player in `seat` (players join as p0, p1, ...)."""
    return f"p{seat}"


def lobby(players: int, options: Options | None = None) -> GameState:
    """A lobby where p0..p{players-1} joined in seat order, with `options` set if given."""
    state = GameState()
    for seat in range(players):
        engine.step(state, Join(player=pid(seat), name=f"Player {seat}"))
    if options is not None:
        engine.step(state, SetOptions(options))
    return state


def deal(*hands: str, trump: str | None) -> Deal:
    """A fixed deal, one hand per seat in record notation: `deal("R1", "W", "J", trump="G3")`."""
    return Deal(
        hands=tuple(tuple(parse_cards(hand)) for hand in hands),
        trump_card=None if trump is None else parse_card(trump),
    )


def filler_deal(players: int, cards: int, rng: random.Random) -> Deal:
    """A valid deal from a shuffled deck; it never turns up a Wizard, so bidding starts at once."""
    deck = list(DECK)
    rng.shuffle(deck)
    hands = tuple(tuple(deck[seat * cards : (seat + 1) * cards]) for seat in range(players))
    rest = deck[players * cards :]
    trump = next((card for card in rest if card != WIZARD), None)
    return Deal(hands=hands, trump_card=trump)


def filler_deals(
    plan: Sequence[int], players: int, scripted: Mapping[int, Deal] | None = None, seed: int = 0
) -> tuple[Deal, ...]:
    """One deal per round of `plan`: the `scripted` ones (by round number) and fillers elsewhere."""
    rng = random.Random(seed)
    scripted = scripted or {}
    deals = []
    for number, cards in enumerate(plan, start=1):
        filler = filler_deal(players, cards, rng)
        deals.append(scripted.get(number, filler))
    return tuple(deals)


def start(
    players: int = 3,
    rounds: Mapping[int, Deal] | None = None,
    options: Options = SHORT,
    first_dealer: int = 0,
) -> tuple[GameState, list[Event]]:
    """A started game with fixed deals: `rounds` maps round numbers to scripted deals."""
    state = lobby(players, options)
    plan = engine.hand_sizes(state.options, players)
    deals = filler_deals(plan, players, rounds)
    events = engine.step(state, Start(seed=0, first_dealer=first_dealer, deals=deals))
    return state, events


def refuse(state: GameState, command: object, code: ErrorCode) -> RuleError:
    """Assert that `command` is refused with `code` and leaves `state` exactly as it was."""
    before = state.to_json()
    with pytest.raises(RuleError) as info:
        engine.step(state, command)  # type: ignore[arg-type]
    assert info.value.code is code, info.value
    assert state.to_json() == before
    return info.value


def of_type(events: Iterable[object], kind: type[E]) -> list[E]:
    """The events of one kind, in order."""
    return [event for event in events if isinstance(event, kind)]


def bid_all(state: GameState, bids: Sequence[int]) -> list[Event]:
    """Everybody bids (`bids` in seat order), in turn order from the dealer's left."""
    rnd = state.round
    assert rnd is not None
    players = len(state.players)
    events: list[Event] = []
    for offset in range(1, players + 1):
        seat = (rnd.dealer + offset) % players
        events += engine.step(state, Bid(pid(seat), bids[seat]))
    return events


def play(state: GameState, cards: str) -> list[Event]:
    """Play `cards` (record notation), each by the player whose turn it is."""
    events: list[Event] = []
    for card in parse_cards(cards):
        rnd = state.round
        assert rnd is not None
        assert state.phase is Phase.PLAYING
        events += engine.step(state, Play(pid(rnd.turn), card))
    return events


def next_command(state: GameState) -> object:
    """A legal command for whoever acts next (the first legal choice)."""
    rnd = state.round
    assert rnd is not None
    if state.phase is Phase.TRUMP:
        return ChooseTrump(pid(rnd.dealer), Suit.BLUE)
    if state.phase is Phase.BIDDING:
        for seat in range(len(state.players)):
            bids = engine.legal_bids(state, seat)
            if bids:
                return Bid(pid(seat), bids[0])
        raise AssertionError("nobody may bid")
    assert rnd.turn != NO_SEAT
    return Play(pid(rnd.turn), engine.legal_plays(state, rnd.turn)[0])


def advance(state: GameState, to_round: int) -> list[Event]:
    """Play legal moves until round `to_round` has started (or the game is over)."""
    events: list[Event] = []
    while state.round is not None and state.round.number < to_round:
        events += engine.step(state, next_command(state))  # type: ignore[arg-type]
    return events


def finish(state: GameState) -> list[Event]:
    """Play legal moves until the game is over."""
    events: list[Event] = []
    while state.phase is not Phase.FINISHED:
        events += engine.step(state, next_command(state))  # type: ignore[arg-type]
    return events


def typed(events: Iterable[object]) -> list[tuple[str, object]]:
    """Events with their kind, for comparisons that hold whatever the event classes are built on
    (two NamedTuples of different kinds but equal fields would compare equal)."""
    return [(type(event).__name__, event) for event in events]


def modules_loaded(script: str) -> set[str]:
    """The modules a fresh, isolated interpreter (`python -I`) has loaded once it has run
    `script`: what a command or a package costs to start, and what it pulls in."""
    done = subprocess.run(
        [sys.executable, "-I", "-c", f"{script}\nimport sys\nprint(' '.join(sys.modules))"],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[1],
    )
    return set(done.stdout.split())


def fresh_lines(
    script: str, env: Mapping[str, str], cwd: Path | None = None, timeout: float = 120
) -> list[str]:
    """The lines `script` prints when a fresh interpreter runs it in `cwd` (the checkout by
    default), with `env` added to this process's environment."""
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, **env},
        cwd=cwd or Path(__file__).resolve().parents[1],
        check=True,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return done.stdout.splitlines()


def field_names(record: object) -> tuple[str, ...]:
    """The field names of an event (a dataclass or a NamedTuple)."""
    if dataclasses.is_dataclass(record):
        return tuple(field.name for field in dataclasses.fields(record))
    return tuple(getattr(record, "_fields", ()))


# --- A real redis-server for the tests -------------------------------------------------------
# Tests that need Redis take `redis_url`; they never touch the Redis on 127.0.0.1:6379.


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """One real redis-server for the whole test session, started on demand.

    It listens on a free TCP port of 127.0.0.1 (never 6379) with its files in a temporary
    directory, and keeps an append-only file fsynced on every write (appendfsync always), so
    a test may kill() and restart() it without losing anything acknowledged. It is stopped at
    the end of the session. Most tests want `redis_url` instead, which also empties it.
    """
    server = RedisServer(
        tmp_path_factory.mktemp("redis"),
        port=free_port(),
        appendonly=True,
        appendfsync="always",
    )
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """The URL of the session's redis-server (`redis://127.0.0.1:PORT/0`), emptied by
    FLUSHALL before the test; restarted first if an earlier test stopped or killed it.

    A plain (sync) fixture, so sync and async tests alike can take it and open their own client,
    e.g. `redis.asyncio.Redis.from_url(redis_url)`.
    """
    if not redis_server.running:
        redis_server.start()
    with redis.Redis.from_url(redis_server.url, socket_timeout=None) as client:
        client.flushall()  # as long as it takes (see `redis_client`)
    return redis_server.url


@pytest.fixture
def redis_alone(tmp_path: Path) -> Iterator[RedisServer]:
    """A redis-server of the test's own, for a test that kills it while a bot process uses it
    (the session's server is shared): a free port, every write fsynced."""
    server = RedisServer(tmp_path / "redis", port=free_port(), appendfsync="always")
    server.start()
    try:
        yield server
    finally:
        server.stop()


# --- golden files --------------------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite the golden files in tests/golden/ from the current output "
        "(also: UPDATE_GOLDEN=1)",
    )


# --- FriBiDi for the pictures' Raqm layout -------------------------------------------------------

FRIBIDI = "libfribidi0"
"""Debian's FriBiDi, which Pillow's wheel loads (when `PIL._imagingft` is first imported) for
its Raqm layout of right-to-left and shaped names (`bot.show.picture_fonts`)."""
FRIBIDI_MISSING = pytest.StashKey[str]()
"""Why FriBiDi could not be installed, when it is missing."""


def pytest_configure(config: pytest.Config) -> None:
    """FriBiDi installed with apt-get where it is missing and can be, before any test module
    imports Pillow's `_imagingft` (which looks for it once)."""
    if ctypes.util.find_library("fribidi") is None:
        why = apt_install([FRIBIDI])
        if why is None and ctypes.util.find_library("fribidi") is None:
            why = f"apt-get installed {FRIBIDI}, and still no FriBiDi is found"
        if why is not None:
            config.stash[FRIBIDI_MISSING] = why.splitlines()[0]


def need_raqm(config: pytest.Config) -> None:
    """For the tests of right-to-left and shaped names: fails the test, in one line, where
    Pillow has no Raqm layout (no FriBiDi), saying what to install."""
    from PIL import features

    if not features.check_feature("raqm"):
        why = config.stash.get(FRIBIDI_MISSING, "Pillow has no Raqm layout")
        pytest.fail(
            f"right-to-left and shaped names need FriBiDi ({why}): apt-get install {FRIBIDI} "
            "(Debian, Ubuntu) or brew install fribidi (macOS)",
            pytrace=False,
        )


@pytest.fixture
async def redis_client(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    """An asyncio redis-py client of the session's redis-server (flushed), closed afterwards.
    It waits as long as Redis takes to answer (redis-py's default gives up after 5 s): a server
    slowed by a busy disk holds the test up, and a killed one refuses at once."""
    connection = aioredis.from_url(redis_url, socket_timeout=None)
    yield connection
    await connection.aclose()
