"""Hostile input through the real Telegram front end (the PTB Application polling the fake Bot
API server of `tests/fake_telegram.py`, as in `tests/test_telegram.py`): forged and repeated
presses, commands full of hostile unicode or addressed elsewhere, commands where the bot takes
none, and names made to break the HTML or pass for an AI player. Each is answered clearly or
left alone, changes nothing it should not, leaks nothing, and logs no unexpected error."""

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from fake_telegram import Event, User
from service_helpers import raw
from telegram import Update
from test_telegram import (
    ANN,
    BOB,
    CID,
    DAN,
    GROUP,
    LOBBY_TOPIC_GONE,
    PLAYERS,
    Bot,
    forum,
    game_ids,
    moves_of,
    seat,
    tg,
    whose_turn,
)

from adapters.telegram.ids import chat_key
from adapters.telegram.render import MAX_CAPTION, post
from adapters.telegram.sender import Delivery
from bot.show.i18n import LANGUAGES, texts
from bot.show.look import Look
from bot.show.screens import game_over
from bot.show.seating import seating
from bot.show.themes import Theme
from bot.stats import Rerated
from engine import Phase, table_view, waiting_seats

__all__ = ["game_ids", "tg"]  # the fixtures these tests use

UNEXPECTED = "error handling a Telegram update"
"""What the front end logs for an exception it did not expect (`on_error`)."""


def unexpected(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The unexpected errors logged."""
    return [r.getMessage() for r in caplog.records if r.getMessage() == UNEXPECTED]


async def a_bid_to_press(bot: Bot) -> tuple[User, int, str]:
    """A game of the three players, started: who bids first, the group's table message and its
    first bid button's payload (open bids are pressed under the group's table)."""
    await seat(bot)
    await bot.command(GROUP, ANN, "/start")
    turn = whose_turn(bot, PLAYERS)
    assert turn is not None
    table = bot.table()
    data = table.keyboard[0][0].callback_data
    assert data is not None
    return turn[0], table.message_id, data


async def test_a_press_too_old_to_answer_still_makes_its_move(
    tg: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    """Telegram refuses the answer to a press the bot got to late ("query is too old"). The
    move was made by then, and the failed answer stopped the handler before it showed it: the
    table said nobody had bid, and an unexpected error was logged. The move is shown."""
    bidder, table, data = await a_bid_to_press(tg)
    tg.fake.press(GROUP, bidder, table, data, expired=True)
    await tg.idle()
    assert "no bid yet" not in next(
        line for line in tg.table().text.splitlines() if bidder.first_name in line
    )
    assert unexpected(caplog) == []
    assert not any("Sorry" in text for text in tg.group_texts())


async def test_a_press_delivered_twice_is_made_once_and_logs_nothing(
    tg: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    """The same press redelivered (the bot restarted before Telegram had its confirmation): it
    applies once, and the second answer, which Telegram refuses, is no error."""
    bidder, table, data = await a_bid_to_press(tg)
    update = tg.fake.press(GROUP, bidder, table, data, enqueue=False)
    for _ in range(2):
        await tg.front.application.process_update(Update.de_json(update, tg.front.bot))
        await tg.front.outbox.flush()
    await tg.idle()
    answers = [e for e in tg.fake.transcript(GROUP) if e.kind == "answer"]
    assert [a.show_alert for a in answers[-1:]] == [False]
    assert unexpected(caplog) == []
    assert not any("Sorry" in text for text in tg.group_texts())


@pytest.mark.parametrize(
    ("first_name", "shown"),
    [
        ("🤖 Merlin", "Merlin"),
        ("🤖\ufe0f", "#2001"),
        ("Ann 👑", "Ann (2)"),
        ("Zed 💤", "Zed"),
        ("\u0301🤖 Merlin", "Merlin"),
    ],
)
async def test_a_person_s_name_cannot_pass_for_an_ai_seat_the_host_or_one_away(
    tg: Bot, first_name: str, shown: str
) -> None:
    """The table marks an AI seat with 🤖 before its name, the host with 👑 after it and a
    player away with 💤: a person called "🤖 Merlin" sat in the lobby as a second AI Merlin,
    and once the AI was taken off, as the only one. A person's name loses those marks at its
    ends (a name of nothing else is their id), and /removebot still takes off the AI seat."""
    await seat(tg, (ANN, BOB), short=False)
    await tg.command(GROUP, ANN, "/addbot")
    sly = User(2001, first_name, "sly")
    tg.fake.add_group(GROUP, members=[sly])
    tg.fake.start_dm(sly)
    await tg.command(GROUP, sly, "/join")
    lobby = tg.lobby().text
    assert f"\n4. {shown}\n" in lobby
    assert lobby.count("🤖") == 1
    assert lobby.count("👑") == 1
    assert "💤" not in lobby
    await tg.command(GROUP, ANN, "/removebot Merlin")
    assert "🤖" not in tg.lobby().text
    assert f"\n3. {shown}\n" in tg.lobby().text
    assert tg.real_errors() == []


ZALGO = "\u0301\u0316\u0354\u0489"  # acute, grave below, arrowhead below, a millions sign (Me)


@pytest.mark.parametrize("deep", [5, 500])
async def test_stacked_marks_are_cut_to_a_few_in_a_name_and_an_argument(tg: Bot, deep: int) -> None:
    """A name or an argument of letters each under hundreds of combining marks drew a smear of
    accents over the lines above and below it: over the group's table, for the whole game. A
    letter keeps at most four marks (as many as a written language stacks), a name its letters."""
    zed = User(2001, "Zed" + ZALGO * deep, "zed")
    tg.fake.add_group(GROUP, members=[zed])
    await seat(tg, (ANN, zed), short=False)
    assert "\n2. Zed\u0301\u0316\u0354\u0489\n" in tg.lobby().text
    await tg.command(GROUP, ANN, "/stats o" + ZALGO * deep + "k")
    assert tg.group_texts()[-1] == "Nobody called o\u0301\u0316\u0354\u0489k has played here."
    assert tg.real_errors() == []


async def test_a_deep_link_naming_a_topic_of_a_group_without_topics_opens_the_table_there(
    tg: Bot,
) -> None:
    """`/start join-<group>_<topic>` is typed as easily as pressed. For a group that has no
    topics, the table opened in the topic named, its first post was refused ("message thread
    not found") and the game ended at once, the person told they had a seat at it. The topic is
    taken only where the group has topics (getChat, which the join makes anyway, says so)."""
    tg.fake.start_dm(ANN)
    await tg.command(ANN.id, ANN, f"/start join-{GROUP}_999")
    assert "1. Ann" in tg.lobby().text
    assert tg.lobby().thread is None
    assert tg.fake.last_message(ANN.id).text.startswith("✅ You have a seat at the table.")
    assert tg.real_errors() == []


@pytest.mark.parametrize("closed", [False, True], ids=["deleted", "closed"])
async def test_a_deep_link_to_a_topic_gone_since_closes_the_table_and_says_so(
    tg: Bot, closed: bool
) -> None:
    """A newcomer's link opens the table in the forum topic their /join was typed in. The
    topic deleted (Telegram tells the bot nothing) or closed before they follow the link, the
    table it opened there is refused its first post and closes at once. They are answered at
    once that they have a seat (the join no longer waits for the group's posts), and then told
    that the table closed, its topic gone, and where to join instead: they do not wait for a
    game that is not there. Nobody sits at a table."""
    topic, _ = forum(tg.fake)
    tg.fake.send_command(GROUP, ANN, "/join", thread=topic)
    await tg.idle()
    if closed:
        tg.fake.close_topic(GROUP, topic, by=BOB)
    else:
        tg.fake.delete_topic(GROUP, topic)
    tg.fake.start_dm(ANN)
    await tg.command(ANN.id, ANN, f"/start join-{GROUP}_{topic}")
    said = [e.text for e in tg.fake.transcript(ANN.id) if e.kind == "message"]
    assert said[-2].startswith("✅ You have a seat at the table.")
    assert said[-1] == LOBBY_TOPIC_GONE
    assert await tg.front.service.table(chat_key(GROUP)) is None
    expected = (  # the private chat closed at /join; the topic's posts and its notice gone
        "can't initiate conversation",
        "message thread not found",
        "TOPIC_CLOSED",
        "message to edit not found",
    )
    assert [e for e in tg.real_errors() if not any(r in e.description for r in expected)] == []


FORGED = {
    "empty": "",
    "cut short": "g1.1b0.b",
    "no action": "g1.1b0",
    "another game's": "g2.1b0.b0",
    "an old version's": "g1.0b0.b0",
    "a bid out of range": "g1.1b0.b99",
    "a trailing override": "g1.1b0.b0\u202e",
    "a trailing NUL": "g1.1b0.b0\x00",
    "not text": "\udcff",
}
"""Callback data no button of the game carries (a client that sends its own, or a press of a
button long gone): at most 64 bytes, as Telegram allows."""
OVERSIZED = {
    "65 bytes": "g1.1b0.b" + "0" * 57,
    "4,096 bytes": "g1.1b0.b" + "0" * 4088,
}
"""Callback data longer than Telegram sends (forged on the way, or a fake server): refused as
any other forged press."""
REFUSALS = {
    "This button is not one of ours.",
    "This button belongs to a game that is over.",
    "This button is out of date.",
    "It's not your turn.",
    "You are not playing at this table.",
    "Your bid must be between 0 and the number of cards in your hand.",
}


def everything_said(bot: Bot) -> list[list[Event]]:
    """What each chat of the tests shows, in order."""
    return [bot.fake.transcript(chat) for chat in (GROUP, *(user.id for user in (*PLAYERS, DAN)))]


@pytest.mark.parametrize("data", [*FORGED.values(), *OVERSIZED.values()], ids=[*FORGED, *OVERSIZED])
async def test_a_forged_press_is_refused_everywhere_and_changes_nothing(
    tg: Bot, caplog: pytest.LogCaptureFixture, data: str
) -> None:
    """A forged payload pressed under the group's table and under a private message, by the
    player whose turn it is, by another player and by someone not playing: each press gets one
    of the game's clear refusals as an alert, and nothing else happens in any chat or in the
    game."""
    bidder, table, _ = await a_bid_to_press(tg)
    tg.fake.start_dm(DAN)
    await tg.idle()
    stored = await raw(tg.client, chat_key(GROUP))
    for user in (bidder, next(u for u in PLAYERS if u != bidder), DAN):
        private = max(tg.fake.current_messages(user.id))
        for chat, message in ((GROUP, table), (user.id, private)):
            said = everything_said(tg)
            answer = await tg.press(chat, user, message, data, stale=True)
            assert answer.show_alert
            assert answer.text in REFUSALS, answer.text
            if data in OVERSIZED.values():
                assert answer.text == "This button is not one of ours."
            grown = [
                [event.kind for event in now[len(before) :]]
                for before, now in zip(said, everything_said(tg), strict=True)
            ]
            assert sorted(grown, key=len)[-1] == ["press", "answer"]
            assert sum(map(len, grown)) == 2
    assert await raw(tg.client, chat_key(GROUP)) == stored
    assert unexpected(caplog) == []
    assert tg.real_errors() == []


HOSTILE = {
    "a right-to-left override": "\u202eevil\u202c",
    "zero-width joiners": "a\u200d\u200d\u200db",
    "control characters": "\x00\x01\x07\x1b[31m",
    "HTML": "<b>x</b> </a> &amp;",
    "Markdown": "*x* `y` _z_ [a](tg://user?id=1)",
    "4,000 characters": "x" * 4000,
    "4,000 emoji": "🃏" * 4000,
}
"""Arguments of commands (Telegram takes up to 4,096 characters a message)."""
COMMANDS = ("/stats", "/removebot", "/options", "/addbot", "/theme", "/bid", "/play")


@pytest.mark.parametrize("arg", list(HOSTILE.values()), ids=list(HOSTILE))
async def test_hostile_arguments_get_a_short_safe_reply_and_change_nothing(
    tg: Bot, caplog: pytest.LogCaptureFixture, arg: str
) -> None:
    """Each command given a hostile argument in a lobby is answered in reply, in one short line
    with no control or direction character in it (the argument as the bot repeats it is made
    safe and cut), Telegram takes the reply (no entity it cannot parse, not too long), and the
    lobby is as it was."""
    await seat(tg, (ANN, BOB), short=False)
    stored = await raw(tg.client, chat_key(GROUP))
    lobby = tg.lobby().text
    for command in COMMANDS:
        tg.fake.send_command(GROUP, ANN, f"{command} {arg}")
        await tg.idle()
        typed, reply = tg.fake.transcript(GROUP)[-2:]
        assert (typed.kind, reply.kind, reply.reply_to) == ("user", "message", typed.message_id)
        assert len(reply.text) <= 400, reply.text
        assert "\n" not in reply.text.strip() or command == "/theme", reply.text
        assert not re.search(r"[\x00-\x1f\u202a-\u202e\u2066-\u2069]", reply.text.strip())
    assert await raw(tg.client, chat_key(GROUP)) == stored
    assert tg.lobby().text == lobby
    assert unexpected(caplog) == []
    assert tg.real_errors() == []


async def test_an_unknown_ai_level_is_answered_with_the_levels(tg: Bot) -> None:
    """/addbot with a level that is none repeated what was typed, all 200 characters of it
    ("Unknown AI level 🃏🃏🃏…"), and did not say which levels there are. It names them, as
    /theme and /language name theirs, and seats nobody."""
    await seat(tg, (ANN, BOB), short=False)
    await tg.command(GROUP, ANN, "/addbot " + "🃏" * 300)
    assert tg.group_texts()[-1] == "AI levels: easy, normal, hard. E.g. /addbot hard"
    assert "🤖" not in tg.lobby().text


NAMES = {
    "HTML": ("</a><b>x</b> &amp;", "</a><b>x</b> &amp;"),
    "Markdown": ("*x* `y` _z_ [a](b)", "*x* `y` _z_ [a](b)"),
    "right to left": ("\u202eאבג\u202c", "אבג"),
    "only zero-width": ("\u200b\u200d\u2060", "#2001"),
    "only combining marks": ("\u0301\u0316\u0354\u0489", "#2001"),
    "a mark before it": ("\u0301\u20ddZed", "Zed"),
    "newlines": ("Ann\nthe\r\n\tGreat", "Ann the Great"),
    "one long word": ("W" * 64, "W" * 31 + "…"),  # cut with a mark (`clean_name`)
    "64 emoji": ("🧙" * 64, "🧙" * 31 + "…"),
}
"""A person's first name as Telegram sends it, and as the table shows it."""


@pytest.mark.parametrize(("first_name", "shown"), list(NAMES.values()), ids=list(NAMES))
async def test_a_hostile_name_is_shown_as_text_in_every_message_of_a_game(
    tg: Bot, first_name: str, shown: str
) -> None:
    """Names that look like markup, turn the text around, show nothing or are long: the lobby,
    the table, the private greeting and the group's notice that names them in a mention
    (blocked mid-game) show the name as text, made safe, and Telegram takes every message (no
    entity it cannot parse: they are sent as HTML)."""
    sly = User(2001, first_name, "sly")
    tg.fake.add_group(GROUP, members=[sly])
    await seat(tg, (ANN, BOB, sly))
    assert f"\n3. {shown}\n" in tg.lobby().text
    greeting = tg.fake.last_message(sly.id).text
    assert greeting == (
        "🔮 You are sitting down at the table in Wizards. Your cards will be shown here."
    )
    await tg.command(GROUP, ANN, "/start")
    assert f" {shown}" in tg.table().text
    tg.fake.block(sly, tell=True)
    await tg.idle()
    notice = tg.fake.last_message(GROUP)
    assert notice.text.startswith(f"{shown}: I cannot write to you privately")
    (mention,) = [e for e in notice.entities if e.get("url") == f"tg://user?id={sly.id}"]
    assert mention["offset"] == 0
    assert tg.real_errors() == []


@pytest.mark.parametrize("blocked", [False, True], ids=["never opened", "blocked"])
async def test_a_join_by_someone_the_bot_cannot_write_to_seats_nobody(
    tg: Bot, blocked: bool
) -> None:
    """A /join from a person whose private chat is closed (never opened, or the bot blocked)
    seats nobody and gets the notice with the link that opens it."""
    await seat(tg, (ANN, BOB))
    if blocked:
        tg.fake.start_dm(CID)
        await tg.idle()
        tg.fake.block(CID, tell=True)
        await tg.idle()
    lobby = tg.lobby().text
    await tg.command(GROUP, CID, "/join")
    assert tg.lobby().text == lobby
    notice = tg.fake.last_message(GROUP)
    assert notice.text.startswith("Cid: To sit down, first open a private chat")
    assert notice.keyboard[0][0].url == f"https://t.me/wizard_test_bot?start=join-{GROUP}"


async def test_presses_racing_a_cancel_leave_no_live_button(
    tg: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    """Every player presses a hidden bid in their private chat as the host sends /cancel in the
    group (the chats are handled at once): each press is answered, the game is over, and no
    hand keeps a button to press."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/options bids=hidden")
    await tg.command(GROUP, ANN, "/start")
    for user in PLAYERS:
        hand = tg.hand(user)
        data = hand.keyboard[0][0].callback_data
        assert data is not None
        tg.fake.press(user.id, user, hand.message_id, data)
    tg.fake.send_command(GROUP, ANN, "/cancel")
    await tg.idle()
    assert tg.fake.unanswered_presses() == []
    assert await tg.front.service.table(chat_key(GROUP)) is None
    assert "Ann cancelled the game." in tg.group_texts()
    for user in PLAYERS:
        shown = tg.fake.current_messages(user.id).values()
        assert [b for m in shown for row in m.keyboard for b in row if b.callback_data] == []
        assert "The game was cancelled." in [m.text for m in shown]
    assert unexpected(caplog) == []
    assert tg.real_errors() == []


def as_edited(message: dict[str, Any]) -> dict[str, Any]:
    return {"edited_message": message | {"edit_date": message["date"] + 1}}


def as_channel_post(message: dict[str, Any]) -> dict[str, Any]:
    channel = {"id": -100999, "type": "channel", "title": "News"}
    return {"channel_post": message | {"chat": channel, "sender_chat": channel}}


def as_caption(message: dict[str, Any]) -> dict[str, Any]:
    photo = [{"file_id": "p", "file_unique_id": "u", "width": 1, "height": 1}]
    captioned = {k: v for k, v in message.items() if k not in ("text", "entities")}
    return {
        "message": captioned
        | {"caption": message["text"], "caption_entities": message["entities"], "photo": photo}
    }


NOT_TAKEN = {"edited": as_edited, "a channel's post": as_channel_post, "a caption": as_caption}
"""/join where the bot takes no command: a message edited into one (Telegram sends the edit,
not a new message), a channel's post, a photo's caption. The bot asks Telegram for none of the
first two (`ALLOWED_UPDATES`), so they are handed to it directly: one could still come, from a
webhook registered with other updates allowed."""


@pytest.mark.parametrize("made", list(NOT_TAKEN.values()), ids=list(NOT_TAKEN))
async def test_a_command_where_the_bot_takes_none_is_left_alone(
    tg: Bot, caplog: pytest.LogCaptureFixture, made: Callable[[dict[str, Any]], dict[str, Any]]
) -> None:
    tg.fake.start_dm(ANN)
    await tg.idle()
    typed = tg.fake.send_command(GROUP, ANN, "/join", enqueue=False)
    update = {"update_id": typed["update_id"], **made(typed["message"])}
    await tg.front.application.process_update(Update.de_json(update, tg.front.bot))
    await tg.idle()
    assert tg.group_texts() == []
    assert await tg.front.service.table(chat_key(GROUP)) is None
    assert unexpected(caplog) == []


async def test_a_command_for_another_bot_is_left_alone_and_one_for_this_bot_works_anywhere(
    tg: Bot,
) -> None:
    """/join@other_bot is another bot's, in the group; /rules@<this bot> in a private chat is
    this bot's /rules (a client adds the bot's name when a command is picked from a list)."""
    tg.fake.start_dm(ANN)
    await tg.command(GROUP, ANN, "/join@other_bot")
    assert tg.group_texts() == []
    assert await tg.front.service.table(chat_key(GROUP)) is None
    await tg.command(ANN.id, ANN, f"/rules@{tg.fake.bot_username}")
    assert tg.fake.last_message(ANN.id).text.startswith("📜 Wizard in short")


async def test_a_channel_s_hostile_title_is_made_safe_in_the_reply_to_its_command(tg: Bot) -> None:
    """A command a channel posts for a person is answered with the channel's title. The title
    went in as Telegram sent it: an override in it turned the rest of the reply around. It is
    made safe and cut to 64 characters, as a group's title is (`adapters.text.clean`)."""
    title = "\u202eNews\nDesk <b>" + "📰" * 100
    typed = tg.fake.send_as_chat(GROUP, "/join", channel=-1009876, title=title)
    await tg.idle()
    answer = tg.fake.last_message(GROUP)
    assert answer.reply_to == typed
    said = "You are writing as News Desk <b>" + "📰" * 51 + ", so I cannot tell who you are."
    assert answer.text.startswith(said)
    assert tg.real_errors() == []


async def test_a_channel_the_bot_is_added_to_is_not_told_how_to_play(tg: Bot) -> None:
    """Added to a channel, the bot posted the group's help there: "everyone sends /join", in a
    chat where nobody can send a command, to every subscriber. It says nothing in a channel."""
    tg.fake.add_group(-100555, "News", chat_type="channel")
    tg.fake.add_bot_to_group(-100555, DAN)
    await tg.idle()
    assert tg.fake.transcript(-100555) == []
    assert tg.real_errors() == []


WIZARDS = "🧙🧛🧜🧝🧞🧟"
"""Emoji outside the Basic Multilingual Plane: one character each as Telegram counts a
message's length (4,096; a caption's 1,024), two UTF-16 units as it counts entity offsets."""


def longest_names(language: str) -> tuple[User, ...]:
    """Six people whose first names are Telegram's longest (64 characters), all emoji of
    `WIZARDS`, with their apps in `language`."""
    return tuple(
        User(3001 + n, emoji * 64, f"w{n}", language_code=language)
        for n, emoji in enumerate(WIZARDS)
    )


async def play_to_the_end(bot: Bot, people: tuple[User, ...]) -> None:
    """The group's game played to its end, whatever its language: the person the game waits
    for presses the first move offered, in their private chat or under the group's table."""
    for _ in range(1000):
        table = await bot.front.service.table(chat_key(GROUP))
        assert table is not None
        if table.game.phase is Phase.FINISHED:
            return
        waited = table.game.players[waiting_seats(table.game)[0]].id
        user = next(person for person in people if f"tg:{person.id}" == waited)
        private = [m for m in bot.fake.current_messages(user.id).values() if moves_of(m)]
        chat = user.id if private else GROUP
        shown = private or [m for m in bot.fake.current_messages(GROUP).values() if moves_of(m)]
        answer = await bot.press(chat, user, shown[-1].message_id, moves_of(shown[-1])[0])
        assert not answer.show_alert, answer.text
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("language", LANGUAGES)
async def test_six_players_with_the_longest_emoji_names_are_shown_every_message(
    tg: Bot, language: str
) -> None:
    """Six players named with 64 emoji (cut to 32 at the table) play a whole game in each
    language, and ask for the score sheet, their stats, the best players, the help and the
    rules, in the group and privately: Telegram takes every message, each within its limits.
    The end of a game all six share (every name twice, and the ratings line) is a caption
    Telegram takes whole: 645 characters in English, under a caption's 1,024 (1,066 UTF-16
    units, which the fake counted, as Telegram does not)."""
    people = longest_names(language)
    tg.fake.add_group(GROUP, members=list(people))
    await tg.command(GROUP, people[0], f"/language {language}")
    await seat(tg, people)
    await tg.command(GROUP, people[0], "/start")
    await play_to_the_end(tg, people)
    for command in ("/scores", "/stats", "/top", "/help", "/rules"):
        await tg.command(GROUP, people[1], command)
        await tg.command(people[1].id, people[1], command)
    assert tg.real_errors() == []
    table = await tg.front.service.table(chat_key(GROUP))
    assert table is not None
    view = table_view(table.game)
    shared = replace(view, places=(1,) * len(people))  # all six share first place
    ratings = tuple(Rerated(seat.player, 1000, 0, True) for seat in view.seats)
    look = Look(texts(language), Theme.COLOURS)
    end = game_over(look, shared, seating(table), ratings)
    ending = post(f"tg:{GROUP}", end)
    assert ending is not None
    assert await tg.front.sender(ending) == Delivery.SENT
    caption = tg.fake.last_message(GROUP).text
    assert caption == end.text  # whole, with its ratings line
    assert len(caption) <= MAX_CAPTION
    assert tg.real_errors() == []
