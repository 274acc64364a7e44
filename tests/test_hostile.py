"""Hostile text: whatever a platform sends (names, titles, arguments, ids, button payloads),
it is made safe at the front end's door, and the service gives nothing but its own refusals,
which change nothing. Also the record checker's one-line verdicts."""

import itertools
import json
import subprocess
import sys
import unicodedata
from dataclasses import replace
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from joined import JOINED
from service_helpers import ANN, BOB, CHAT, CID, Driver, raw, service

from adapters.discord.ids import display_name as discord_name
from adapters.telegram.commands import group_request
from adapters.telegram.ids import display_name as telegram_name
from adapters.text import ARG_LIMIT, MARKS_A_LETTER, NAME_LIMIT, clean, shown
from bot import tokens
from bot.commands import Kind
from bot.namesakes import apart
from bot.requests import Request, User
from bot.show.formatters import fit
from bot.show.seating import seating
from bot.stats import Standing, find
from engine import ErrorCode, GameState, Join, Options, RuleError, export_record, step
from engine.randomplay import play_random_game

ANY_TEXT = st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=300)
"""Any unicode at all, lone surrogates and control characters included."""
NASTY = st.sampled_from(
    ["\ud800", "a\udfffb", "\n", "Ann\nBob", "\x00", "\u202eevil", "{x}", " ", "🃏" * 80, ""]
)
TEXT = st.one_of(ANY_TEXT, NASTY, st.builds("".join, st.lists(NASTY, max_size=5)))

FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def safe(text: str) -> bool:
    """One line of text that UTF-8 encodes and that reads left to right."""
    return not any(
        unicodedata.category(char) in ("Cc", "Cs") or char in "\u202a\u202b\u202c\u202d\u202e"
        for char in text
    )


def one_line(text: str) -> bool:
    """Text that can be stored and kept on one line: no lone surrogate, no control character."""
    return not any(unicodedata.category(char) in ("Cc", "Cs") for char in text)


def most_marks(text: str) -> int:
    """The most combining marks on one letter of `text`."""
    runs = itertools.groupby(unicodedata.category(char) in ("Mn", "Me") for char in text)
    return max((len(list(run)) for mark, run in runs if mark), default=0)


@given(TEXT | st.builds(str.__add__, TEXT, st.just("\u0301" * 9)), st.integers(1, 300))
def test_clean_text_is_one_safe_line_of_bounded_length(text: str, limit: int) -> None:
    out = clean(text, limit)
    assert safe(out)
    assert len(out) <= limit
    assert out == out.strip()
    assert "  " not in out
    assert clean(out, limit) == out  # once is enough
    assert most_marks(out) <= MARKS_A_LETTER


def test_a_name_cut_to_its_length_keeps_whole_emoji() -> None:
    """No dangling joiner and no lone half of a flag at the end of a cut name."""
    family = "👨\u200d👩\u200d👧\u200d👦"  # 7 characters
    assert clean(family * 5, 13) == family  # not 👨‍👩‍👧‍👦👨‍👩‍👧, a family less a child
    assert clean(family * 5, 14) == family * 2
    for joined in JOINED.values():
        assert clean("a" * (NAME_LIMIT - 1) + joined, NAME_LIMIT) == "a" * (NAME_LIMIT - 1)
    assert clean("🇩🇪" * 5, 5) == "🇩🇪🇩🇪"
    assert clean("x" + "🇩🇪" * 5, 5) == "x🇩🇪🇩🇪"
    assert clean("🇩🇪🇫🇷", 4) == "🇩🇪🇫🇷"
    # and in columns (the leaderboard's names): a flag counts one column a half, as a terminal
    assert fit("🇩🇪🇫🇷🇮🇹🇪🇸🇬🇧🇺🇸🇯🇵", 12) == "🇩🇪🇫🇷🇮🇹🇪🇸🇬🇧…"
    # a joined family is one emoji of two columns: kept whole, never cut to 👨‍👩 or 👨
    assert fit(family * 3, 5) == family * 2 + "…"
    assert fit(family * 3, 4) == family + "…"
    assert fit("Bo 👍🏽👍🏽", 6) == "Bo 👍🏽…"  # nor a skin tone from its emoji
    # nor a space before the ellipsis
    assert fit("Bob Brown", 5) == "Bob…"
    assert fit("Bob  🇩🇪🇫🇷", 6) == "Bob…"


TWINS = {
    "joiner": "Ann\u200d",
    "non-joiner inside": "A\u200cnn",
    "tag": "Ann\U000e0041",
    "grapheme joiner": "Ann\u034f",
    "variation selector": "Ann\ufe0e",
    "Hangul filler": "\u3164Ann",
    "blank Braille": "Ann\u2800",
}
"""Names that show as `Ann` does: what they add draws nothing."""


@pytest.mark.parametrize("twin", TWINS.values(), ids=list(TWINS))
async def test_a_name_that_differs_by_nothing_that_shows_is_numbered(
    redis_client: aioredis.Redis, twin: str
) -> None:
    """Someone whose name is another's with a character that draws nothing (a joiner, a tag, a
    variation selector, a filler) looks like them: the table numbered only names written
    alike, and showed two "Ann"s nobody could tell apart. They are numbered as namesakes are,
    on Telegram and Discord alike, and /stats finds the second by her number; an accent written
    apart is the composed letter."""
    for name in (telegram_name(twin, None, 7), discord_name(twin, 7)):
        assert apart(["Ann", name]) == ("Ann", f"{name} (2)")
    assert apart(["Ren\u00e9e", "Rene\u0301e"])[1] == "Rene\u0301e (2)"
    svc = service(redis_client)
    await Driver(svc, [ANN, replace(BOB, name=twin)]).lobby(start=False)
    table = await svc.table(CHAT)
    assert table is not None
    assert seating(table).names == ("Ann", f"{twin} (2)")
    players = {ANN.id: Standing(name="Ann"), BOB.id: Standing(name=twin)}
    assert find(players, "Ann (2)") == [BOB.id]


@pytest.mark.parametrize("blank", ["\u3164", "\u2800\u2800", "\u200d", "\u3164 \u200d", "\u0301"])
def test_a_name_that_shows_nothing_is_named_by_the_id(blank: str) -> None:
    """A name of Hangul fillers, blank Braille, joiners or lone marks draws nothing: the table
    names that person by their id, as if they had no name."""
    assert telegram_name(blank, None, 42) == "#42"
    assert discord_name(blank, 42) == "#42"
    assert telegram_name("\u3164Ann", None, 42) == "\u3164Ann"  # something shows: kept


def test_a_name_too_long_for_the_table_is_cut_with_an_ellipsis() -> None:
    """A Telegram name (first and last, up to 64 letters each) longer than `NAME_LIMIT` was cut
    mid-word with no mark, "Maximilian-Alexander Schwarzenbe", which reads as a surname of its
    own in the lobby, the table, the hands and the score sheet. It ends with "…" instead."""
    name = telegram_name("Maximilian-Alexander", "Schwarzenberger-Hohenlohe", 1)
    assert name == "Maximilian-Alexander Schwarzenb…"
    assert len(name) == NAME_LIMIT
    assert telegram_name("Bob " + "x" * 26, "Brown", 1) == "Bob " + "x" * 26 + "…"  # no " …"
    assert telegram_name("Maximilian", "Schwarzenberger", 1) == "Maximilian Schwarzenberger"


@given(TEXT, TEXT, st.integers(1, 2**40))
def test_names_from_a_platform_are_safe_and_never_empty(first: str, last: str, number: int) -> None:
    for name in (telegram_name(first, last, number), discord_name(first, number)):
        assert safe(name)
        assert 1 <= len(name) <= max(NAME_LIMIT, len(f"#{number}"))


@given(st.lists(TEXT, max_size=5))
def test_command_arguments_from_a_platform_are_safe(args: list[str]) -> None:
    request = group_request("play", args)
    assert request is not None
    assert safe(request.arg)
    assert len(request.arg) <= ARG_LIMIT


@given(TEXT)
def test_shown_text_is_one_printable_line(text: str) -> None:
    out = shown(text)
    assert safe(out)
    assert "\n" not in out


@given(TEXT)
def test_the_engine_seats_no_name_that_is_not_one_line(name: str) -> None:
    state = GameState()
    if not name.strip() or not one_line(name):
        with pytest.raises(RuleError) as refused:
            step(state, Join("p1", name))
        assert refused.value.code is ErrorCode.BAD_PLAYER
        assert state.players == []
        return
    step(state, Join("p1", name))
    assert one_line(state.players[0].name)
    json.dumps(state.to_dict(), ensure_ascii=False).encode("utf-8")  # it can be stored


@given(TEXT)
def test_the_button_decoder_takes_only_its_own_tokens(payload: str) -> None:
    try:
        token = tokens.decode(payload)
    except tokens.TokenError:
        return
    assert token.encode() == payload
    assert payload.isascii()


@pytest.mark.parametrize("payload", [None, 7, b"k3f9a.7-3.pR13", ["k3f9a.7-3.pR13"], {"p": 1}])
def test_the_button_decoder_refuses_what_is_not_text(payload: object) -> None:
    with pytest.raises(tokens.TokenError):  # not a TypeError: a web move's JSON may hold anything
        tokens.decode(payload)  # type: ignore[arg-type]


KINDS = st.sampled_from(list(Kind))
CHATS = st.just(CHAT) | TEXT


USERS = st.sampled_from([ANN, BOB, CID]) | st.builds(User, st.just("tg:7") | TEXT, TEXT)


async def refusal_or_answer(driver: Driver, chat: str, user: User, request: Request) -> None:
    """`request` is answered, or refused with the chat (this test's) as it was."""
    before = await raw(driver.redis)
    outcome = await driver.svc.handle(chat, user, request)
    if outcome.alert:
        assert outcome.messages == ()
        assert outcome.answer
        assert await raw(driver.redis) == before


@FUZZ
@given(chat=CHATS, user=USERS, kind=KINDS, arg=TEXT, update=st.none() | TEXT)
async def test_the_service_gives_only_its_own_refusals(
    redis_client: aioredis.Redis,
    chat: str,
    user: User,
    kind: Kind,
    arg: str,
    update: str | None,
) -> None:
    """Requests with any ids, names and arguments, to an empty chat or another: an answer or a
    refusal, never an exception; a refusal leaves the chat as it was."""
    await redis_client.flushall()
    driver = Driver(service(redis_client), [ANN, BOB, CID])
    before = await raw(redis_client)
    outcome = await driver.svc.handle(chat, user, Request(kind, arg), update)
    if outcome.alert:
        assert outcome.messages == ()
        assert outcome.answer
        assert await raw(redis_client) == before


@pytest.fixture
async def mid_game(redis_client: aioredis.Redis) -> Driver:
    driver = Driver(service(redis_client, seed=71), [ANN, BOB, CID], seed=71)
    await play_into_a_game(driver)
    return driver


async def play_into_a_game(driver: Driver) -> None:
    """A game of the driver's people, a few moves in."""
    await driver.lobby(["rounds=short", "bids=hidden", "wings"])
    for _ in range(6):
        await driver.move()


async def game_of(driver: Driver) -> str:
    """The id of the chat's game, a new one played into first when an earlier press ended the
    last (the examples share the fixture's chat, and the host's Cancel is a press the game
    offers)."""
    stored = await driver.svc.table(CHAT)
    if stored is None:
        await play_into_a_game(driver)
        stored = await driver.svc.table(CHAT)
    assert stored is not None
    return stored.game_id


@FUZZ
@given(data=st.data())
async def test_typed_commands_mid_game_are_answered_or_refused(
    mid_game: Driver, data: st.DataObject
) -> None:
    """Any command with any argument from anyone in the middle of a game."""
    await game_of(mid_game)
    user = data.draw(USERS)
    request = Request(
        data.draw(KINDS.filter(lambda kind: kind is not Kind.BUTTON)), data.draw(TEXT)
    )
    await refusal_or_answer(mid_game, CHAT, user, request)


def near_tokens(game: str) -> st.SearchStrategy[str]:
    """Payloads that look like ours: this game's id, any stamp, any action, any argument."""
    stamps = st.sampled_from(["L", "1b0", "2b0", "2-0", "3-1", "r2", "9t"]) | st.text(max_size=6)
    actions = st.sampled_from(list("jlsaoxbptwhrnkz?")) | st.text(max_size=2)
    return st.builds(
        lambda stamp, action, arg: f"{game}.{stamp}.{action}{arg}", stamps, actions, TEXT
    )


async def test_the_hosts_cancel_ends_the_game_and_the_fuzz_plays_into_another(
    mid_game: Driver,
) -> None:
    """The lobby's Cancel, pressed by the host mid-game, ends the game (as /cancel does): the
    fuzz below may press it, and its later examples then need a game of their own."""
    game_id = await game_of(mid_game)
    cancel = tokens.encode(game_id, tokens.LOBBY_STAMP, tokens.Action.CANCEL, "")
    outcome = await mid_game.svc.handle(CHAT, ANN, Request(Kind.BUTTON, cancel))
    assert not outcome.alert
    assert await mid_game.svc.table(CHAT) is None
    again = await game_of(mid_game)
    assert again != game_id
    stored = await mid_game.svc.table(CHAT)
    assert stored is not None
    assert stored.game.seq > 0
    assert stored.game.round is not None


@FUZZ
@given(data=st.data())
async def test_pressed_payloads_are_refused_and_change_nothing(
    mid_game: Driver, data: st.DataObject
) -> None:
    """Any payload (any text, or one shaped like this game's) pressed by a player or a
    stranger: the press of a button the game offers now, or a refusal that changes nothing."""
    game_id = await game_of(mid_game)
    table = await raw(mid_game.redis)
    payload = data.draw(TEXT | near_tokens(game_id))
    user = data.draw(st.sampled_from([ANN, BOB, CID, User("tg:99", "Eve")]))
    outcome = await mid_game.svc.handle(CHAT, user, Request(Kind.BUTTON, payload))
    if outcome.alert:
        assert outcome.messages == ()
        assert await raw(mid_game.redis) == table
    else:  # a button of this game's: the payload is a token of ours
        assert tokens.decode(payload).game == game_id


@pytest.mark.parametrize(
    "name", ["\ud800", "Ann\nBob", "\u202eAnn", "Ann\x00", "x" * 300, "Zoë 🧙", "{Ann}"]
)
def test_the_record_checker_reports_any_name_on_one_line(tmp_path: Path, name: str) -> None:
    state, _ = play_random_game(3, Options(), 5)
    record = export_record(state)
    record["players"][0] = name
    path = tmp_path / "game\nwith a newline.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "adapters.cli", "replay", "--check", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert len(lines) == 1, done.stdout
    assert done.returncode in (0, 1)
    assert lines[0].startswith(str(path).replace("\n", "\\n") + ": ")


@pytest.mark.parametrize(
    ("name", "kept"),
    [
        ("🤖 Merlin", "Merlin"),
        ("🤖\ufe0f Merlin", "Merlin"),
        ("Bob 👑", "Bob"),
        ("Zed 💤", "Zed"),
        ("👑🤖💤", "#42"),
        ("Bob 🤖 Brown", "Bob 🤖 Brown"),
        ("Bob (dealer)", "Bob"),
        ("Bob (Dealer)", "Bob"),
        ("Bob(dealer)", "Bob"),
        ("Bob (gibt)", "Bob"),
        ("Bob (împarte)", "Bob"),
        ("Bob (딜러)", "Bob"),
        ("Bob (сдаёт)", "Bob"),
        ("Bob (dala kārtis)", "Bob"),
        ("Bob (rozdaje)", "Bob"),
        ("Bob (dealer) 💤", "Bob"),
        ("Bob 💤 (dealer) (dealer)", "Bob"),
        ("(dealer)", "#42"),
        ("Bob (dealer) Brown", "Bob (dealer) Brown"),
        ("Bob (deal)", "Bob (deal)"),
    ],
)
def test_a_name_loses_the_tables_marks_at_its_ends(name: str, kept: str) -> None:
    """A person's name cannot pass for an AI seat (🤖 before it), the host (👑 after it), a
    player away (💤) or the dealer (`(dealer)` after it, in any language of the catalogs), on
    either platform; a mark inside a name is its own."""
    assert telegram_name(name, None, 42) == kept
    assert discord_name(name, 42) == kept
