"""Upgrades of the stored forms (`bot.upgrades`): the tables every earlier version stored keep
loading and playing, an older form is upgraded on read and written in the current form by the
next save, and a form newer than this code knows is refused and left as it is.

The tables of each version are checked-in fixtures (tests/fixtures/tables/v<N>.json, made by
playing real games; see tests/fixtures/README.md). `WRITE_FIXTURES=1 pytest
tests/test_upgrades.py -k played` writes the current version's, if it has none yet.
"""

import base64
import json
import logging
import os
import time
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis
from service_helpers import ANN, BOB, CID, DOT, Clock, Driver, service, table_of

from bot import tokens
from bot.commands import Kind
from bot.config import Config
from bot.packing import ZSTD_MAGIC, pack, unpack
from bot.requests import Request, User
from bot.service import STORE_AWAY, GameService
from bot.show.i18n import texts
from bot.stats import Fold, read_game
from bot.store import Store, keys
from bot.store.stats import StatsStore
from bot.table import FORMAT, Settings, Table
from bot.upgrades import STATS, Form, NewerForm
from engine import Phase, Suit, legal_bids, legal_plays, table_view

FIXTURES = Path(__file__).parent / "fixtures" / "tables"
SCOPE = "tg"
AWAY_TEXT = texts("en")(STORE_AWAY)
NEWCOMER = User("tg:77", "Newcomer")


def fixture_files() -> list[Path]:
    return sorted(FIXTURES.glob("v*.json"), key=lambda path: int(path.stem[1:]))


def fixture_states() -> list[tuple[str, str, dict[str, Any]]]:
    """(version file, state name, state) of every checked-in fixture."""
    found = []
    for path in fixture_files():
        for name, state in json.loads(path.read_text())["states"].items():
            found.append((path.stem, name, state))
    return found


# --- what the store holds of a chat, as the fixtures keep it ------------------------------------


def _text(value: bytes) -> str:
    return value.decode()


async def dump_chat(client: aioredis.Redis, chat: str) -> dict[str, Any]:
    """A chat's stored forms as the store wrote them: the game hash's fields in base64 (its
    `t` and `r` are compressed), the others as their text."""
    game = await client.hgetall(keys.game(chat))
    stored: dict[str, Any] = {
        "game": {_text(k): base64.b64encode(v).decode() for k, v in sorted(game.items())}
    }
    settings = await client.get(keys.settings(chat))
    if settings is not None:
        stored["cfg"] = _text(settings)
    results = await client.lrange(keys.results(chat), 0, -1)
    if results:
        stored["results"] = [_text(item) for item in results]
    stats = await client.hgetall(keys.stats(chat))
    if stats:
        stored["stats"] = {_text(k): _text(v) for k, v in sorted(stats.items())}
    record = await client.get(keys.record(chat))
    if record is not None:
        stored["record"] = _text(record)
    return stored


async def restore_chat(client: aioredis.Redis, chat: str, stored: dict[str, Any]) -> None:
    """Put a chat's stored forms back, byte for byte."""
    game = {k: base64.b64decode(v) for k, v in stored["game"].items()}
    await client.hset(keys.game(chat), mapping=game)  # type: ignore[arg-type]
    if "cfg" in stored:
        await client.set(keys.settings(chat), stored["cfg"])
    if "results" in stored:
        await client.rpush(keys.results(chat), *stored["results"])
    if "stats" in stored:
        await client.hset(keys.stats(chat), mapping=stored["stats"])
    if "record" in stored:
        await client.set(keys.record(chat), stored["record"])


def blobs(stored: dict[str, Any]) -> tuple[bytes, bytes]:
    """The game hash's table and finished rounds, as stored."""
    game = stored["game"]
    return base64.b64decode(game["t"]), base64.b64decode(game.get("r", ""))


def expected(table: Table) -> dict[str, Any]:
    """What a fixture says its table is, checked when it is loaded."""
    state = table.game
    return {
        "phase": str(state.phase),
        "players": [player.id for player in state.players],
        "seq": state.seq,
        "round": None if state.round is None else state.round.number,
        "results": len(state.results),
        "options": state.options.to_dict(),
        "ai": table.ai,
        "away": table.away,
        "after": table.after,
    }


# --- playing the states the fixtures keep ---------------------------------------------------------


async def _lobby(svc: GameService) -> str:
    """A lobby with options that change what is stored: tournament rounds, hidden bids, wings,
    an AI seat, a deck theme."""
    chat = "tg:-1001"
    driver = Driver(svc, [ANN, BOB], chat=chat)
    await driver.lobby(["rounds=tournament", "bids=hidden", "wings"], ai=1, start=False)
    await driver.ok(ANN, Kind.THEME, "french")
    return chat


async def _hidden_bids(svc: GameService) -> str:
    """Round 1 of a tournament of four with foresight, hidden bids: the AI seat's bid and one
    person's are in, unrevealed."""
    for attempt in range(50):
        chat = f"tg:-1002{attempt or ''}"
        driver = Driver(svc, [ANN, BOB, CID], chat=chat, wings_rate=0)
        await driver.lobby(["rounds=tournament", "bids=hidden", "foresight"], ai=1)
        table = await table_of(svc.store.client, chat)
        assert table is not None
        assert table.game.round is not None
        if table.game.phase is not Phase.BIDDING:
            continue  # a Wizard turned up: a person deals, and chooses trump first
        bid = legal_bids(table.game, 0)[0]
        action = tokens.Action.BID
        await driver.press(ANN, tokens.make(table.game_id, table.game, action, str(bid)))
        return chat
    raise AssertionError("a Wizard turned up every time")


async def _trump_choice(svc: GameService) -> str:
    """A Wizard turned up: the dealer (a person) chooses trump (short rounds, dmmixed)."""
    for attempt in range(500):
        chat = f"tg:-1003{attempt}"
        driver = Driver(svc, [ANN, BOB, CID], chat=chat, wings_rate=0)
        await driver.lobby(["rounds=short", "dmmixed"])
        table = await table_of(svc.store.client, chat)
        assert table is not None
        if table.game.phase is Phase.TRUMP:
            return chat
    raise AssertionError("no Wizard turned up")


async def _mid_trick(svc: GameService, clock: Clock) -> str:
    """Round 3 with wings, an AI seat, a person on autopilot since their turn timed
    out, the finished rounds kept apart (`r`), two cards of a trick played."""
    chat = "tg:-1004"
    driver = Driver(svc, [ANN, BOB, CID], chat=chat, seed=4, wings_rate=0.3)
    await driver.lobby(["wings"], ai=1)
    await driver.play_until(lambda state: state.round.number == 2 and state.phase is Phase.PLAYING)
    for _ in range(Config().turn_timeout + 1):  # a tick a second: no outage to credit
        clock.advance(1)
        for where, outcome in await svc.tick(SCOPE):
            assert where == chat
            driver.screens.show(outcome)
    await svc.moved()  # the AI's moves for the player timed out, made aside: a tick shows them
    for where, outcome in await svc.tick(SCOPE):
        assert where == chat
        driver.screens.show(outcome)
    table = await table_of(svc.store.client, chat)
    assert table is not None
    assert table.away
    driver.humans = [user for user in driver.humans if user.id not in table.away]
    await driver.play_until(
        lambda state: state.round.number == 3 and len(state.round.trick) == 2  # type: ignore[union-attr]
    )
    return chat


async def _finished(svc: GameService) -> tuple[str, str]:
    """A short game of secret bids and notequal played to its end (its summary, the chat's stats
    and its record kept), the chat's language then set to German. Also the id of a second chat,
    where the caller makes a Play again lobby: a lobby opened after a game."""
    chat = "tg:-1005"
    driver = Driver(svc, [ANN, BOB, DOT], chat=chat, seed=5, wings_rate=0)
    await driver.lobby(["rounds=short", "bids=secret", "notequal"])
    await driver.play_to_end()
    await driver.ok(ANN, Kind.LANGUAGE, "de")
    await driver.ok(ANN, Kind.STATS)
    return chat, "tg:-1006"


async def play_states(client: aioredis.Redis) -> dict[str, tuple[str, dict[str, Any]]]:
    """Play the states the fixtures keep; each with what it is and the chat's stored forms."""
    clock = Clock()
    svc = service(client, seed=1, clock=clock)
    made = {}
    # each is kept as soon as it is made (the ticks of a later one time out earlier turns)
    chat = await _mid_trick(svc, clock)
    made["mid-trick"] = ("round 3 mid-trick, wings, one away", await dump_chat(client, chat))
    finished, again = await _finished(svc)
    about = "a finished game with its summary, stats and record"
    made["finished"] = (about, await dump_chat(client, finished))
    chat = await _lobby(svc)
    made["lobby"] = ("a lobby with options and an AI seat", await dump_chat(client, chat))
    chat = await _hidden_bids(svc)
    about = "hidden bids of round 1, foresight, tournament"
    made["hidden-bids"] = (about, await dump_chat(client, chat))
    chat = await _trump_choice(svc)
    made["trump-choice"] = ("the dealer chooses trump", await dump_chat(client, chat))
    table = await table_of(client, finished)
    assert table is not None
    await client.copy(keys.game(finished), keys.game(again))
    payload = tokens.lobby(table.game_id, tokens.Action.AGAIN)
    outcome = await svc.handle(again, BOB, Request(Kind.BUTTON, payload))
    assert not outcome.alert, outcome.answer
    made["again"] = ("a lobby opened by Play again", await dump_chat(client, again))
    return made


def check_played(name: str, table: Table) -> None:
    """Each played state is what its name says."""
    state = table.game
    rnd = state.round
    if name in ("lobby", "again"):
        assert state.phase is Phase.LOBBY
        assert (table.after is not None) == (name == "again")
    elif name == "hidden-bids":
        assert rnd is not None
        assert state.phase is Phase.BIDDING
        assert rnd.rules.foresight
        assert not rnd.revealed
        assert 0 < sum(bid is not None for bid in rnd.bids) < 4
    elif name == "trump-choice":
        assert state.phase is Phase.TRUMP
    elif name == "mid-trick":
        assert rnd is not None
        assert state.phase is Phase.PLAYING
        assert len(rnd.trick) == 2
        assert table.away
        assert table.ai
        assert state.results
        assert any(mark is not None for mark in rnd.marks) or state.options.wings
    else:
        assert state.phase is Phase.FINISHED
        assert state.results


async def test_played_states_are_the_fixtures_kinds(redis_client: aioredis.Redis) -> None:
    """The states the fixtures keep are played anew each run (so the games still get there);
    with WRITE_FIXTURES=1 they become the current version's fixture if it has none."""
    made = await play_states(redis_client)
    states = {}
    for name, (about, stored) in made.items():
        table = Table.from_bytes(*blobs(stored))
        check_played(name, table)
        states[name] = {"about": about, "expect": expected(table), "stored": stored}
    path = FIXTURES / f"v{FORMAT}.json"
    if os.environ.get("WRITE_FIXTURES") and not path.exists():
        FIXTURES.mkdir(parents=True, exist_ok=True)
        made_on = time.strftime("%Y-%m-%d")
        document = {"format": FORMAT, "made": made_on, "states": states}
        path.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n")


def test_the_current_version_has_fixtures() -> None:
    """A new stored form comes with the fixture of its tables (tests/fixtures/README.md)."""
    versions = [int(path.stem[1:]) for path in fixture_files()]
    assert FORMAT in versions, f"no tests/fixtures/tables/v{FORMAT}.json: write it (README.md)"
    assert versions == list(range(1, FORMAT + 1)), versions


# --- every stored version keeps loading and playing -----------------------------------------------


def next_move(table: Table) -> tuple[User, Request]:
    """A legal next move at the table, by a person, as a button press (a join in a lobby)."""
    state = table.game
    names = {player.id: player.name for player in state.players}
    if state.phase is Phase.LOBBY:
        return NEWCOMER, Request(Kind.JOIN)
    if state.phase is Phase.FINISHED:
        payload = tokens.lobby(table.game_id, tokens.Action.AGAIN)
        return User(state.players[0].id, state.players[0].name), Request(Kind.BUTTON, payload)
    seat = next(
        seat for seat in table_view(state).waiting if state.players[seat].id not in table.ai
    )
    player = state.players[seat].id
    if state.phase is Phase.TRUMP:
        action, arg = tokens.Action.TRUMP, str(Suit.BLUE)
    elif state.phase is Phase.BIDDING:
        action, arg = tokens.Action.BID, str(legal_bids(state, seat)[-1])
    else:
        action, arg = tokens.Action.PLAY, legal_plays(state, seat)[0]
    payload = tokens.make(table.game_id, state, action, arg)
    return User(player, names[player]), Request(Kind.BUTTON, payload)


@pytest.mark.parametrize(
    ("version", "name", "fixture"),
    fixture_states(),
    ids=[f"{version}-{name}" for version, name, _ in fixture_states()],
)
async def test_a_stored_table_of_any_version_loads_and_plays(
    redis_client: aioredis.Redis, version: str, name: str, fixture: dict[str, Any]
) -> None:
    chat = f"tg:-2{version[1:]}{len(name)}"
    stored = fixture["stored"]
    await restore_chat(redis_client, chat, stored)
    svc = service(redis_client, clock=Clock(1_800_000_000.0))
    table = await svc.table(chat)
    assert table is not None
    assert expected(table) == fixture["expect"]
    settings = await svc.settings(chat)
    assert settings == Settings.from_json(stored.get("cfg"), Settings())
    for summary in stored.get("results", []):
        game = read_game(json.loads(summary))
        assert game is not None
        assert [seat.player for seat in game.seats] == table.humans()
    if "stats" in stored:
        fold = await StatsStore(redis_client).fold(chat)
        assert fold.games == len(stored["results"])
        assert set(fold.players) == set(table.humans())

    user, request = next_move(table)
    outcome = await svc.handle(chat, user, request)
    assert not outcome.alert, outcome.answer
    after = await table_of(redis_client, chat)
    assert after is not None
    written = await redis_client.hget(keys.game(chat), "t")
    assert written[:4] == ZSTD_MAGIC  # in the current bytes, whatever it was stored in
    raw = unpack(written)
    assert raw["f"] == FORMAT
    if table.game.phase is Phase.FINISHED:
        assert after.game.phase is Phase.LOBBY
        assert after.after == table.game_id
    else:
        assert after.game.seq > table.game.seq
        assert [p.id for p in after.game.players][: len(table.game.players)] == [
            p.id for p in table.game.players
        ]
        assert after.game.results[: len(table.game.results)] == table.game.results


# --- the chain of upgrades ----------------------------------------------------------------------


def _rename(old: str, new: str) -> Any:
    def step(data: dict[str, Any]) -> dict[str, Any]:
        data[new] = data.pop(old)
        return data

    return step


def test_a_chain_upgrades_step_by_step_and_refuses_what_it_does_not_know() -> None:
    form = Form("thing", {1: _rename("a", "b"), 2: _rename("b", "c")})
    assert form.current == 3
    assert form.upgrade({"f": 1, "a": 7}) == ({"f": 3, "c": 7}, 1)
    assert form.upgrade({"f": 2, "b": 7}) == ({"f": 3, "c": 7}, 2)
    assert form.upgrade({"f": 3, "c": 7}) == ({"f": 3, "c": 7}, 3)
    assert form.stamp({"c": 7}) == {"f": 3, "c": 7}
    with pytest.raises(NewerForm, match="thing form 4 was written by a newer version"):
        form.upgrade({"f": 4, "d": 7})
    for bad in ({"f": 0}, {"f": "1"}, {"f": True}, {}):
        with pytest.raises(ValueError, match="thing form"):
            form.upgrade(bad)
    with pytest.raises(ValueError, match="skip a version"):
        Form("gap", {1: _rename("a", "b"), 3: _rename("b", "c")})
    assert Form("old", untagged=1).upgrade({"x": 1}) == ({"x": 1}, 1)


def test_the_stats_fold_of_before_its_version_is_version_1() -> None:
    fold = json.loads(Fold().to_json())
    assert fold["f"] == STATS.current
    del fold["f"]
    assert Fold.from_json(json.dumps(fold)) == Fold()
    with pytest.raises(NewerForm):
        Fold.from_json(json.dumps({**fold, "f": STATS.current + 1}))


def _fixture(name: str, version: int = 1) -> dict[str, Any]:
    document = json.loads((FIXTURES / f"v{version}.json").read_text())
    state: dict[str, Any] = document["states"][name]["stored"]
    return state


async def test_an_older_table_is_upgraded_once_and_written_whole_by_the_next_save(
    redis_client: aioredis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A test chain past today's form (v1 → v2 → v3, the last scaling the score sheet by ten,
    which lives in the rounds kept apart): a v1 table loads through both steps in order, its
    next save writes v3 with its rounds again, and what was written is not upgraded twice."""
    ran: list[int] = []

    def rename(old: str, new: str, version: int) -> Any:
        def step(data: dict[str, Any]) -> dict[str, Any]:
            ran.append(version)
            data[new] = data.pop(old)
            return data

        return step

    def scaled(data: dict[str, Any]) -> dict[str, Any]:
        ran.append(2)
        data["lang"] = data.pop("languages")
        for row in data["game"]["results"]:
            row["points"] = [points * 10 for points in row["points"]]
        return data

    chat = "tg:-3001"
    stored = _fixture("mid-trick")
    plain = Table.from_bytes(*blobs(stored))
    chain = Form("table", {1: rename("lang", "languages", 1), 2: scaled})
    monkeypatch.setattr("bot.table.TABLE", chain)
    await restore_chat(redis_client, chat, stored)
    before = Table.from_bytes(*blobs(stored))  # the v1 bytes, read by the code of v3
    assert ran == [1, 2]
    assert before.languages == plain.languages
    assert [row.points for row in before.game.results] == [
        tuple(points * 10 for points in row.points) for row in plain.game.results
    ]
    svc = service(redis_client, clock=Clock(1_800_000_000.0))
    user, request = next_move(before)
    outcome = await svc.handle(chat, user, request)
    assert not outcome.alert, outcome.answer
    t, r = await redis_client.hmget(keys.game(chat), ["t", "r"])
    assert unpack(t)["f"] == 3
    assert r != base64.b64decode(stored["game"]["r"]), "the rounds were not written again"
    ran.clear()
    again = await Store(redis_client, Settings()).load(chat)  # a new worker parses it anew
    assert ran == []
    assert again.table is not None
    assert [row.points for row in again.table.game.results] == [
        row.points for row in before.game.results
    ]


# --- a form newer than this code knows ----------------------------------------------------------


def newer(stored: dict[str, Any]) -> dict[str, Any]:
    """The stored chat with its table in a form one version past this code's."""
    blob, _ = blobs(stored)
    data = unpack(blob)
    data["f"] = FORMAT + 1
    data["something new"] = [1, 2, 3]
    game = dict(stored["game"])
    game["t"] = base64.b64encode(pack(data)).decode()
    return {**stored, "game": game}


async def snapshot(client: aioredis.Redis, chat: str) -> dict[str, Any]:
    return {
        "keys": await dump_chat(client, chat),
        "timers": await client.zrange(keys.timers(chat), 0, -1, withscores=True),
    }


async def test_a_newer_table_is_refused_and_left_as_it_is(
    redis_client: aioredis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    """An old worker meets a table a newer worker wrote (a rolling upgrade): a person's press
    is answered that the game cannot be had right now, its due timer is left for a worker that
    knows the form, nothing is shown again, and nothing of the chat is written."""
    chat = "tg:-4001"
    stored = _fixture("mid-trick")
    table = Table.from_bytes(*blobs(stored))
    await restore_chat(redis_client, chat, newer(stored))
    clock = Clock(1_800_000_000.0)
    svc = service(redis_client, clock=clock)
    await svc.store.set_timer(chat, clock.now - 5)
    was = await snapshot(redis_client, chat)
    with pytest.raises(NewerForm, match=f"table form {FORMAT + 1} was written by a newer"):
        await svc.store.load(chat)

    user, request = next_move(table)
    with caplog.at_level(logging.WARNING, logger="bot.service"):
        outcome = await svc.handle(chat, user, request)
        assert outcome.alert
        assert outcome.answer == AWAY_TEXT
        assert await svc.tick(SCOPE) == []
        clock.advance(1)
        assert await svc.tick(SCOPE) == []
        assert (await svc.current(chat)).messages == ()
        outcome = await svc.handle(chat, NEWCOMER, Request(Kind.JOIN))
        assert outcome.answer == AWAY_TEXT
    assert await snapshot(redis_client, chat) == was
    warnings = [r.getMessage() for r in caplog.records if "newer version" in r.getMessage()]
    assert len(warnings) == 1, warnings
    assert chat in warnings[0], warnings

    # the newer worker comes (here: the fixture as it was): the game goes on where it stood
    await redis_client.hset(keys.game(chat), "t", base64.b64decode(stored["game"]["t"]))
    outcome = await service(redis_client, clock=clock).handle(chat, user, request)
    assert not outcome.alert, outcome.answer


async def test_a_damaged_table_does_not_stop_other_chats_timers(
    redis_client: aioredis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    """A chat whose stored table cannot be read (damaged, not newer): its due timer stays, one
    error is logged with its chat, and another chat's due deadline still fires in the same tick."""
    broken, fine = "tg:-4003", "tg:-4004"
    stored = _fixture("mid-trick")
    await restore_chat(redis_client, broken, stored)
    await restore_chat(redis_client, fine, stored)
    await redis_client.hset(keys.game(broken), "t", b"not a table")
    table = Table.from_bytes(*blobs(stored))
    deadline = table.deadline
    assert deadline is not None
    clock = Clock(deadline + 1)
    svc = service(redis_client, clock=clock)
    await svc.store.set_timer(broken, clock.now - 10)  # due first
    await svc.store.set_timer(fine, deadline)
    with caplog.at_level(logging.ERROR, logger="bot.service"):
        shown = await svc.tick(SCOPE)
        await svc.moved()  # the AI moves after the timeout, made aside
        clock.advance(1)
        shown += await svc.tick(SCOPE)
    assert [chat for chat, _ in shown] == [fine]
    after = await table_of(redis_client, fine)
    assert after is not None
    assert after.game != table.game  # the turn timed out: the AI played for the player
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [f"{broken}: its timer could not be fired; the other chats' timers go on"]
    assert await redis_client.zscore(keys.timers(broken), broken) is not None


async def test_newer_stats_are_refused_and_not_folded_over(redis_client: aioredis.Redis) -> None:
    """A chat's stats fold in a newer form: /stats is answered that they cannot be had now,
    and neither it nor a fold writes over them."""
    chat = "tg:-4002"
    stored = _fixture("finished")
    fold = json.loads(stored["stats"]["s"])
    fold["f"] = STATS.current + 1
    stored = {**stored, "stats": {**stored["stats"], "s": json.dumps(fold)}}
    await restore_chat(redis_client, chat, stored)
    await redis_client.lpush(keys.results(chat), stored["results"][0].replace("tg:1", "tg:9"))
    was = await snapshot(redis_client, chat)
    svc = service(redis_client)
    outcome = await svc.handle(chat, ANN, Request(Kind.STATS))
    assert outcome.alert
    assert outcome.answer == AWAY_TEXT
    with pytest.raises(NewerForm):
        await StatsStore(redis_client).fold(chat)
    assert await snapshot(redis_client, chat) == was
