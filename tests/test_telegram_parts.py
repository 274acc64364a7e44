"""The Telegram front end's pure parts: ids and names, commands, the menu, rendering."""

import asyncio

import pytest
from joined import JOINED
from telegram import Update
from telegram.error import BadRequest, Forbidden, TelegramError

from adapters.telegram import commands
from adapters.telegram.app import MAX_ANSWER
from adapters.telegram.ids import AdminCache, chat_key, display_name, is_group, telegram_id
from adapters.telegram.order import ChatOrder
from adapters.telegram.render import MAX_TEXT, Key, answer_post, cut, html_text, post, posts
from adapters.telegram.sender import muted, pictures_refused
from bot.commands import Kind
from bot.messages import Button, Message, Outcome
from bot.requests import Request
from bot.show.screens import bid_buttons
from bot.show.seating import Seating


def test_ids_round_trip() -> None:
    assert chat_key(-1001234) == "tg:-1001234"
    assert telegram_id("tg:-1001234") == -1001234
    assert telegram_id("tg:42") == 42
    assert telegram_id("ai:1") is None
    assert telegram_id("tg:x") is None
    assert telegram_id(None) is None
    assert is_group(-5)
    assert not is_group(42)


def test_names() -> None:
    assert display_name("Ann", None, 1) == "Ann"
    assert display_name("Ann", "Lee", 1) == "Ann Lee"
    assert display_name(" Ann\u200b\n", "  van  Dyke ", 1) == "Ann van Dyke"
    assert display_name("", None, 7) == "#7"
    assert len(display_name("A" * 80, None, 1)) == 32


async def test_admin_statuses_are_cached() -> None:
    asked: list[tuple[int, int]] = []
    now = [0.0]

    async def lookup(chat: int, user: int) -> str:
        asked.append((chat, user))
        return "administrator" if user == 1 else "member"

    cache = AdminCache(lookup, ttl=60, not_admin_ttl=10, clock=lambda: now[0])
    assert await cache.is_admin(-5, 1)
    assert not await cache.is_admin(-5, 2)
    assert await cache.is_admin(-5, 1)
    assert not await cache.is_admin(-5, 2)
    assert len(asked) == 2
    now[0] = 11  # a "no" is asked again sooner
    assert not await cache.is_admin(-5, 2)
    assert await cache.is_admin(-5, 1)
    assert len(asked) == 3
    now[0] = 61
    assert await cache.is_admin(-5, 1)
    assert len(asked) == 4


async def test_a_failed_admin_lookup_is_no_admin_and_not_kept() -> None:
    calls = 0

    async def lookup(chat: int, user: int) -> str:
        nonlocal calls
        calls += 1
        raise RuntimeError("no network")

    cache = AdminCache(lookup)
    assert not await cache.is_admin(-5, 1)
    assert not await cache.is_admin(-5, 1)
    assert calls == 2


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("/bid 2", "bid"),
        ("/Bid@WizardBot 2", "bid"),
        ("/addbot@WizardBot", "addbot"),
        ("hello", ""),
        (None, ""),
    ],
)
def test_command_names(text: str | None, name: str) -> None:
    assert commands.command_name(text) == name


def test_group_requests() -> None:
    assert commands.group_request("bid", ["2"]) == Request(Kind.BID, "2", aloud=True)
    assert commands.group_request("play", ["R13"]) == Request(Kind.PLAY, "R13", aloud=True)
    assert commands.group_request("addbot", []) == Request(Kind.ADD_AI, "", aloud=True)
    assert commands.group_request("options", ["bids=hidden"]) == Request(
        Kind.OPTION, "bids=hidden", aloud=True
    )
    assert commands.group_request("start", []) == Request(Kind.START, aloud=True)
    assert commands.group_request("language", ["de"]) == Request(Kind.LANGUAGE, "de", aloud=True)
    assert commands.group_request("frobnicate", []) is None
    for name in ("join", "leave", "cancel", "hand", "scores", "record", "rules", "help", "theme"):
        assert commands.group_request(name, []) is not None


def test_join_deep_link() -> None:
    assert commands.join_payload(-1001234) == "join--1001234"
    assert commands.parse_join_payload("join--1001234") == (-1001234, None)
    assert commands.join_payload(-1001234, 42) == "join--1001234_42"  # asked in a forum topic
    assert commands.parse_join_payload("join--1001234_42") == (-1001234, "42")
    assert commands.parse_join_payload("join--1001234_") is None
    assert commands.parse_join_payload("join-x") is None
    assert commands.parse_join_payload("join-1001") is None  # a person's chat is no group
    assert commands.parse_join_payload("hello") is None
    link = commands.deep_link("WizardBot", -1001234)
    assert link == "https://t.me/WizardBot?start=join--1001234"
    assert len(commands.join_payload(-1009999999999, 2**31)) <= 64  # Telegram's limit


@pytest.mark.parametrize("language", ["en", "de", "es"])
def test_menus(language: str) -> None:
    menu = dict(commands.menu(language))
    assert set(menu) == set(commands.MENU_ORDER)
    assert all(1 <= len(text) <= 256 for text in menu.values())
    if language == "de":
        assert menu["join"] == "Platz nehmen (3 bis 6 Spieler)"


def test_html_escapes_and_pre() -> None:
    assert html_text("a < b & <b>") == "a &lt; b &amp; &lt;b&gt;"
    assert html_text("R1  R2\n<x>", pre=True) == "<pre>R1  R2\n&lt;x&gt;</pre>"
    long = html_text("x" * 5000)
    assert len(long) == MAX_TEXT
    assert long.endswith("…")


def test_a_text_is_cut_in_characters_as_telegram_counts_keeping_a_flag_whole() -> None:
    """Telegram counts a text's length in characters (code points: a flag is two, its halves),
    not in UTF-16 units: a text of 4,096 emoji is taken whole. One cut keeps no lone half of
    a flag at its end (`🇩…`, a letter in a box)."""
    assert html_text("🧙" * MAX_TEXT) == "🧙" * MAX_TEXT
    long = html_text("ab" + "🇩🇪" * 3000)
    assert len(long) <= MAX_TEXT
    assert long == "ab" + "🇩🇪" * 2046 + "…"


@pytest.mark.parametrize("joined", JOINED.values(), ids=list(JOINED))
def test_a_text_cut_to_fit_keeps_each_character_whole(joined: str) -> None:
    """A message, and a press's answer, cut where a character that is written with several
    (a joined emoji, a flag, a skin tone, a keycap, an accented letter) ends, never inside it."""
    fill = "a" * (MAX_TEXT - 2)
    assert html_text(fill + joined * 2) == fill + "…"
    answer = "a" * (MAX_ANSWER - 2)
    assert cut(answer + joined * 2, MAX_ANSWER) == answer + "…"


def test_messages_go_to_the_group_or_a_private_chat() -> None:
    table = Message("table", buttons=((Button("2", "g.1b0.b2"),),), slot="table", notify=True)
    hand = Message("hand <R13>", to="tg:42", slot="hand")
    robot = Message("?", to="ai:1")
    out = posts("tg:-100", Outcome(messages=(table, hand, robot)))
    assert len(out) == 2
    group, private = out
    assert group.target == -100
    assert group.slot == "tg:-100:table"
    assert group.notify
    assert group.keys == ((Key("2", data="g.1b0.b2"),),)
    assert group.game == "tg:-100"
    assert private.target == 42
    assert private.slot == "tg:-100:hand"
    assert private.html == "hand &lt;R13&gt;"
    assert not private.notify


def test_attachments_keep_their_file() -> None:
    message = Message("The record.", attachment=("wizard-game.json", b"{}"))
    rendered = post("tg:-1", message)
    assert rendered is not None
    assert rendered.attachment == ("wizard-game.json", b"{}")


def test_answers_to_typed_commands() -> None:
    refusal = Outcome(answer="It is not your turn.", alert=True)
    reply = answer_post(-1, refusal, reply_to=9)
    assert reply is not None
    assert reply.reply_to == 9
    assert reply.html == "It is not your turn."
    shown = Outcome(messages=(Message("lobby"),), answer="You joined the table.")
    assert answer_post(-1, shown, reply_to=9) is None
    assert answer_post(-1, Outcome(), reply_to=9) is None
    hint = Message("💡 Hint for your bid, round 1:", to="tg:1")
    aside = answer_post(-1, Outcome(messages=(hint,), answer="It comes privately."), reply_to=9)
    assert aside is not None  # nothing shown here: the answer says where it went
    assert aside.html == "It comes privately."


def test_mentioned_names_become_links_to_the_people() -> None:
    mentions = (("tg:1", "Ann"), ("tg:2", "Anna"), ("dc:3", "Zed"), ("tg:4", "Bo <b>"))
    assert html_text("⏳ Anna, Ann, Zed, Bo <b>: go", mentions=mentions) == (
        '⏳ <a href="tg://user?id=2">Anna</a>, <a href="tg://user?id=1">Ann</a>, Zed, '
        '<a href="tg://user?id=4">Bo &lt;b&gt;</a>: go'
    )


def _message_update(update_id: int, chat: int) -> Update:
    """A real Update of a text message in `chat`, as Telegram sends it."""
    data = {
        "update_id": update_id,
        "message": {
            "message_id": update_id,
            "date": 1764460800,
            "chat": {"id": chat, "type": "group", "title": "Wizards"},
            "from": {"id": 1001, "is_bot": False, "first_name": "Ann"},
            "text": "/join",
        },
    }
    update = Update.de_json(data, None)
    assert update is not None
    return update


async def test_chat_order_keeps_a_chats_updates_in_order_and_runs_chats_at_once() -> None:
    processor = ChatOrder()
    done: list[int] = []
    release = asyncio.Event()

    async def handle(number: int, wait: bool) -> None:
        if wait:
            await release.wait()
        await asyncio.sleep(0.001 * (number % 3))
        done.append(number)

    first_chat = [(n, -5) for n in range(5)]
    tasks = [
        asyncio.create_task(
            processor.process_update(_message_update(n, chat), handle(n, wait=n == 0))
        )
        for n, chat in first_chat
    ]
    other = asyncio.create_task(processor.process_update(_message_update(9, -6), handle(9, False)))
    await other  # another chat is not held up by the first chat's update that waits
    assert done == [9]
    release.set()
    await asyncio.gather(*tasks)
    assert done == [9, 0, 1, 2, 3, 4]  # one chat's updates in the order they came


@pytest.mark.parametrize(
    "error",
    [
        BadRequest("Bad Request: not enough rights to send photos to the chat"),
        BadRequest("Bad Request: CHAT_SEND_PHOTOS_FORBIDDEN"),
        Forbidden("Forbidden: CHAT_SEND_MEDIA_FORBIDDEN"),
    ],
)
def test_a_photo_refused_for_what_it_is_is_told_apart(error: TelegramError) -> None:
    """A group whose permissions allow no photos: the picture goes as text (even for a 403,
    which is caught before it could be taken for the bot's removal)."""
    assert pictures_refused(error)
    assert not muted(error, -100123)


@pytest.mark.parametrize(
    "error",
    [
        BadRequest("Bad Request: not enough rights to send text messages to the chat"),
        BadRequest("Bad Request: not enough rights to send documents to the chat"),
        Forbidden("Forbidden: bot was kicked from the group chat"),
        BadRequest("Bad Request: PHOTO_INVALID_DIMENSIONS"),
    ],
)
def test_other_refusals_are_no_photo_refusal(error: TelegramError) -> None:
    """No text at all, the bot removed, a document (no text form), a picture Telegram cannot
    take: handled as before (raised to `Sender.__call__`)."""
    assert not pictures_refused(error)


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("jion", "join"),  # two letters swapped
        ("strat", "start"),
        ("hepl", "help"),
        ("joi", "join"),  # a letter missing
        ("jjoin", "join"),  # one too many
        ("scpres", "scores"),  # one wrong
        ("tops", "top"),
        ("join", None),  # ours already
        ("stat", None),  # start or stats: no guess
        ("stars", None),
        ("ban", None),  # another bot's, most likely
        ("ok", None),  # too short to tell
    ],
)
def test_a_command_one_slip_from_ours_is_taken_for_it(typed: str, meant: str | None) -> None:
    assert commands.near_command(typed) == meant


def test_the_bot_a_command_is_addressed_to() -> None:
    assert commands.addressee("/jion@Wizard_Bot 2") == "wizard_bot"
    assert commands.addressee("/jion 2") == ""
    assert commands.addressee("hello") == ""


def test_bids_are_laid_in_even_rows_with_none_left_alone() -> None:
    """Telegram stretches each row's buttons over the whole width: six bids to a row left the
    7 bids of a round of 6 cards as [0-5] [6], a lone bid as wide as the row above it, as if it
    meant something else (and [1-6] [7] for a dealer under notequal). The bids, at most six to
    a row, are laid in rows as even as can be."""
    seating = Seating("g1", ("Ann", "Bob", "Cid"), 0, frozenset(), "s", "r")
    for count in range(1, 22):
        rows = [len(row) for row in bid_buttons(seating, tuple(range(count)))]
        assert sum(rows) == count
        assert max(rows) <= 6
        assert max(rows) - min(rows) <= 1, (count, rows)
    assert [len(row) for row in bid_buttons(seating, tuple(range(7)))] == [4, 3]
