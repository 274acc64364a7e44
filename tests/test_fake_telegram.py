"""The fake Bot API server (tests/fake_telegram.py), driven by python-telegram-bot itself: a real
`telegram.Bot` for each method and error, a real `Application` polling it, and webhook delivery
to a real endpoint."""

import asyncio
import datetime as dtm
import json
import socket
import time
from collections.abc import AsyncIterator

import pytest
import telegram
from aiohttp import web
from fake_telegram import (
    Button,
    FakeTelegram,
    RateLimits,
    User,
    format_text,
    parse_html,
    parse_markdown,
    parse_markdown_v2,
)
from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeChat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputFile,
    ReplyParameters,
    Update,
    WebAppInfo,
)
from telegram.constants import ParseMode
from telegram.error import (
    BadRequest,
    Conflict,
    EndPointNotFound,
    Forbidden,
    InvalidToken,
    RetryAfter,
)
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, ContextTypes

GROUP = -1001234567890
ANN = User(1001, "Ann", "ann")
BOB = User(1002, "Bob", "bob", language_code="de")


def keyboard(*rows: tuple[tuple[str, str], ...]) -> InlineKeyboardMarkup:
    """An inline keyboard from rows of (label, callback data)."""
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(label, callback_data=data) for label, data in row] for row in rows]
    )


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as server:
        yield server


@pytest.fixture
async def bot(fake: FakeTelegram) -> AsyncIterator[telegram.Bot]:
    async with telegram.Bot(
        fake.token, base_url=fake.base_url, base_file_url=fake.base_file_url
    ) as client:
        yield client


# -- a real Bot, method by method ---------------------------------------------------------------


async def test_get_me_describes_the_bot(fake: FakeTelegram, bot: telegram.Bot) -> None:
    me = await bot.get_me()
    assert (me.id, me.username, me.is_bot) == (123456789, "wizard_test_bot", True)
    assert me.can_read_all_group_messages is False  # privacy mode, as for a new bot
    assert bot.username == "wizard_test_bot"  # initialize() called getMe too
    assert fake.calls["getMe"] == 2


async def test_a_wrong_token_is_unauthorized(fake: FakeTelegram) -> None:
    with pytest.raises(InvalidToken):
        async with telegram.Bot("999:wrong", base_url=fake.base_url):
            pass


async def test_an_unknown_method_is_not_found(fake: FakeTelegram, bot: telegram.Bot) -> None:
    with pytest.raises(EndPointNotFound):
        await bot.do_api_request("sendWizardCard", api_kwargs={"chat_id": GROUP})
    assert fake.unknown_methods == ["sendWizardCard"]


async def test_messages_keyboards_and_edits(fake: FakeTelegram, bot: telegram.Bot) -> None:
    fake.add_group(GROUP, "Wizard night", members=[ANN])
    sent = await bot.send_message(
        GROUP,
        "<b>Lobby</b>\nAnn &amp; friends",
        parse_mode=ParseMode.HTML,
        reply_markup=keyboard((("Join", "join"), ("Leave", "leave")), (("Start", "start"),)),
        disable_notification=True,
    )
    assert sent.message_id == 1
    assert sent.chat.type == "supergroup"
    assert sent.chat.title == "Wizard night"
    assert sent.text == "Lobby\nAnn & friends"
    assert [(e.type, e.offset, e.length) for e in sent.entities] == [("bold", 0, 5)]
    assert sent.reply_markup == keyboard(
        (("Join", "join"), ("Leave", "leave")), (("Start", "start"),)
    )
    assert fake.buttons(GROUP, 1) == (
        (Button("Join", "join"), Button("Leave", "leave")),
        (Button("Start", "start"),),
    )

    # The same text and keyboard again: Telegram refuses the edit.
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_text(
            "<b>Lobby</b>\nAnn &amp; friends",
            GROUP,
            1,
            parse_mode=ParseMode.HTML,
            reply_markup=keyboard((("Join", "join"), ("Leave", "leave")), (("Start", "start"),)),
        )
    edited = await bot.edit_message_text(
        "Lobby: Ann, Bob", GROUP, 1, reply_markup=keyboard((("Start", "start"),))
    )
    assert isinstance(edited, telegram.Message)
    assert edited.edit_date is not None
    assert fake.message(GROUP, 1).labels == [["Start"]]

    await bot.edit_message_reply_markup(GROUP, 1, reply_markup=keyboard((("Go", "go"),)))
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_reply_markup(GROUP, 1, reply_markup=keyboard((("Go", "go"),)))
    # Editing the text without reply_markup drops the keyboard, as on Telegram.
    await bot.edit_message_text("Game started", GROUP, 1)
    assert fake.buttons(GROUP, 1) == ()
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_reply_markup(GROUP, 1)

    with pytest.raises(BadRequest, match="Message to edit not found"):
        await bot.edit_message_text("x", GROUP, 99)
    with pytest.raises(BadRequest, match="Message to edit not found"):
        await bot.edit_message_reply_markup(GROUP, 99, reply_markup=keyboard((("Go", "go"),)))

    second = await bot.send_message(GROUP, "Round 1", reply_parameters=ReplyParameters(1))
    assert second.message_id == 2
    assert second.reply_to_message is not None
    assert second.reply_to_message.text == "Game started"
    with pytest.raises(BadRequest, match="Message to be replied not found"):
        await bot.send_message(GROUP, "x", reply_parameters=ReplyParameters(77))
    assert await bot.delete_message(GROUP, 2)
    with pytest.raises(BadRequest, match="Message to delete not found"):
        await bot.delete_message(GROUP, 2)

    assert [(e.kind, e.message_id, e.text) for e in fake.transcript(GROUP)] == [
        ("message", 1, "Lobby\nAnn & friends"),
        ("edit", 1, "Lobby: Ann, Bob"),
        ("edit", 1, "Lobby: Ann, Bob"),
        ("edit", 1, "Game started"),
        ("message", 2, "Round 1"),
        ("delete", 2, ""),
    ]
    assert fake.transcript(GROUP)[0].silent
    assert list(fake.current_messages(GROUP)) == [1]
    assert fake.calls["editMessageText"] == 4
    assert fake.chat_calls[GROUP]["sendMessage"] == 3
    assert [e.description.split(":")[1].strip() for e in fake.errors] == [
        "message is not modified",
        "message is not modified",
        "message is not modified",
        "message to edit not found",
        "message to edit not found",
        "message to be replied not found",
        "message to delete not found",
    ]


async def test_bad_markup_and_bad_buttons_are_refused(
    fake: FakeTelegram, bot: telegram.Bot
) -> None:
    fake.add_group(GROUP)
    # PTB drops "Bad Request: " and capitalize()s the rest: match without case.
    with pytest.raises(BadRequest, match=r'(?i)unsupported start tag "div"'):
        await bot.send_message(GROUP, "<div>x</div>", parse_mode=ParseMode.HTML)
    with pytest.raises(BadRequest, match=r"(?i)character '\.' is reserved"):
        await bot.send_message(GROUP, "Score: 3.5", parse_mode=ParseMode.MARKDOWN_V2)
    with pytest.raises(BadRequest, match="Message text is empty"):
        await bot.send_message(GROUP, "   ")
    with pytest.raises(BadRequest, match="Message is too long"):
        await bot.send_message(GROUP, "x" * 4097)
    with pytest.raises(BadRequest, match="Button_data_invalid"):
        await bot.send_message(GROUP, "x", reply_markup=keyboard((("Too long", "d" * 65),)))
    with pytest.raises(BadRequest, match="Button_data_invalid"):  # 17 emoji: 68 bytes
        await bot.send_message(GROUP, "x", reply_markup=keyboard((("Emoji", "🧙" * 17),)))
    with pytest.raises(BadRequest, match=r"(?i)text must be non-empty"):
        await bot.send_message(GROUP, "x", reply_markup=keyboard((("", "d"),)))
    # Lengths count characters (code points), not UTF-16 units (🧙 is two).
    await bot.send_message(GROUP, "🧙" * 4096)
    with pytest.raises(BadRequest, match="Message is too long"):
        await bot.send_message(GROUP, "🧙" * 4097)
    await bot.send_document(GROUP, b"x", filename="x.txt", caption="🧙" * 1024)
    with pytest.raises(BadRequest, match=r"(?i)caption is too long"):
        await bot.send_document(GROUP, b"x", filename="x.txt", caption="🧙" * 1025)
    with pytest.raises(BadRequest, match="Chat not found"):
        await bot.send_message(-555, "nobody here")
    assert [event.kind for event in fake.transcript(GROUP)] == ["message", "document"]


async def test_a_mini_app_button_is_for_private_chats_and_https_only(
    fake: FakeTelegram, bot: telegram.Bot
) -> None:
    fake.add_group(GROUP)
    fake.start_dm(ANN)
    app = "https://table.example/?chat=tg:-100"

    def opens(url: str) -> InlineKeyboardMarkup:
        return InlineKeyboardMarkup([[InlineKeyboardButton("Open", web_app=WebAppInfo(url))]])

    with pytest.raises(BadRequest, match="Button_type_invalid"):
        await bot.send_message(GROUP, "table", reply_markup=opens(app))
    with pytest.raises(BadRequest, match="Button_url_invalid"):
        await bot.send_message(ANN.id, "hand", reply_markup=opens("http://table.example/"))
    link = InlineKeyboardMarkup([[InlineKeyboardButton("Open", url="http://table.example/")]])
    table = await bot.send_message(GROUP, "table", reply_markup=link)  # a link goes anywhere
    hand = await bot.send_message(ANN.id, "hand", reply_markup=opens(app))
    assert fake.current_messages(ANN.id)[hand.message_id].keyboard == (
        (Button("Open", web_app=app),),
    )
    shown = fake.current_messages(GROUP)[table.message_id].keyboard
    assert shown == ((Button("Open", url="http://table.example/"),),)


async def test_callback_queries_are_answered_once(fake: FakeTelegram, bot: telegram.Bot) -> None:
    fake.send_command(GROUP, ANN, "/play")
    sent = await bot.send_message(GROUP, "Bid?", reply_markup=keyboard((("0", "bid:0"),)))
    msg = sent.message_id
    with pytest.raises(LookupError, match="no button 'bid:9'"):
        fake.press(GROUP, BOB, msg, "bid:9")
    update = fake.press(GROUP, BOB, msg, "bid:0")
    query_id = update["callback_query"]["id"]
    assert fake.unanswered_presses() == [
        {"id": query_id, "chat_id": GROUP, "message_id": msg, "data": "bid:0"}
    ]
    updates = await bot.get_updates(timeout=1)
    query = updates[-1].callback_query
    assert query is not None
    assert query.data == "bid:0"
    assert query.from_user.id == BOB.id
    assert query.message is not None
    assert query.message.message_id == msg
    assert await query.answer("Not your turn", show_alert=True)
    with pytest.raises(BadRequest, match="Query is too old"):
        await query.answer()
    answer = fake.callback_answer(query_id)
    assert answer is not None
    assert (answer.user_id, answer.text, answer.show_alert) == (
        BOB.id,
        "Not your turn",
        True,
    )
    assert fake.unanswered_presses() == []
    assert fake.format_transcript(GROUP).splitlines() == [
        "#1 Ann: /play",
        "#2 bot: Bid?",
        "    [0]",
        "  Bob presses 'bid:0' on #2",
        "  (alert to Bob: Not your turn)",
    ]


async def test_documents_are_uploaded_and_downloadable(
    fake: FakeTelegram, bot: telegram.Bot
) -> None:
    fake.add_group(GROUP)
    content = b"round,ann,bob\n1,20,-10\n"
    sent = await bot.send_document(
        GROUP, InputFile(content, filename="scores.csv"), caption="<i>Final</i> scores",
        parse_mode=ParseMode.HTML,
    )  # fmt: skip
    assert sent.document is not None
    assert sent.document.file_name == "scores.csv"
    assert sent.caption == "Final scores"
    assert sent.document.file_size == len(content)
    event = fake.transcript(GROUP)[-1]
    assert (event.kind, event.file_name, event.data, event.text) == (
        "document",
        "scores.csv",
        content,
        "Final scores",
    )
    assert fake.document(GROUP, sent.message_id).mime_type == "text/csv"
    file = await bot.get_file(sent.document.file_id)
    assert bytes(await file.download_as_bytearray()) == content
    again = await bot.send_document(GROUP, sent.document.file_id)  # re-send by file_id
    assert again.document is not None
    assert again.document.file_name == "scores.csv"


async def test_a_bot_cannot_write_first_to_a_person(fake: FakeTelegram, bot: telegram.Bot) -> None:
    fake.send_command(GROUP, ANN, "/join")  # Ann is known from the group, has not opened the bot
    with pytest.raises(Forbidden, match="bot can't initiate conversation with a user"):
        await bot.send_message(ANN.id, "Your hand: ...")
    with pytest.raises(BadRequest, match="Chat not found"):
        await bot.send_message(4242, "a stranger")
    update = fake.start_dm(ANN)
    assert update["message"]["chat"] == {
        "id": ANN.id, "type": "private", "first_name": "Ann", "username": "ann",
    }  # fmt: skip
    assert update["message"]["entities"] == [{"offset": 0, "length": 6, "type": "bot_command"}]
    dm = await bot.send_message(ANN.id, "Your hand: ...")
    assert dm.chat.type == "private"
    assert dm.message_id == 2
    assert fake.last_message(ANN.id).text == "Your hand: ..."
    fake.block(ANN)
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.send_message(ANN.id, "still there?")


async def test_flood_limits_answer_429_with_retry_after(
    fake: FakeTelegram, bot: telegram.Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without this PTB 22 warns (PTBDeprecationWarning) while building RetryAfter, and the
    # warnings-as-errors setting would turn the 429 into that warning.
    monkeypatch.setenv("PTB_TIMEDELTA", "true")
    fake.add_group(GROUP)
    fake.start_dm(ANN)
    for n in range(25):  # off by default
        await bot.send_message(GROUP, f"free {n}")
    assert fake.throttled == []

    fake.rate_limits = RateLimits()
    fake.reset_stats()
    for n in range(20):
        await bot.send_message(GROUP, f"message {n}")
    with pytest.raises(RetryAfter) as group_flood:
        await bot.edit_message_text("edits count too", GROUP, 26)
    retry_after = group_flood.value.retry_after
    assert isinstance(retry_after, dtm.timedelta)  # with PTB_TIMEDELTA set
    assert dtm.timedelta(seconds=59) <= retry_after <= dtm.timedelta(seconds=60)

    for n in range(3):  # a short burst in a private chat passes, a longer one does not
        await bot.send_message(ANN.id, f"dm {n}")
    with pytest.raises(RetryAfter):
        await bot.send_message(ANN.id, "one too many")

    assert [(t.method, t.chat_id, t.scope) for t in fake.throttled] == [
        ("editMessageText", GROUP, "group"),
        ("sendMessage", ANN.id, "private"),
    ]
    assert fake.total_calls() == 25
    assert fake.total_calls(chat_id=ANN.id) == 4
    assert [e.error_code for e in fake.errors] == [429, 429]


async def test_overall_limit_and_windows_sliding_by_the_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "true")  # see test_flood_limits_answer_429_...
    now = [1000.0]
    async with FakeTelegram(
        rate_limits=RateLimits(overall=(30, 1.0)), clock=lambda: now[0]
    ) as fake:
        users = [User(2000 + i, f"P{i}") for i in range(31)]
        for user in users:
            fake.start_dm(user)
        async with telegram.Bot(fake.token, base_url=fake.base_url) as bot:
            for user in users[:30]:
                await bot.send_message(user.id, "hello")
            with pytest.raises(RetryAfter):
                await bot.send_message(users[30].id, "hello")
            assert fake.throttled[-1].scope == "overall"
            now[0] += 1.0  # a second later the window has room again
            await bot.send_message(users[30].id, "hello")


async def test_long_polling_offsets_and_conflicts(fake: FakeTelegram, bot: telegram.Bot) -> None:
    start = time.monotonic()
    assert await bot.get_updates(timeout=dtm.timedelta(seconds=0.3)) == ()
    assert time.monotonic() - start >= 0.25  # waited for updates

    async def later() -> None:
        await asyncio.sleep(0.1)
        fake.send_command(GROUP, ANN, "/join")

    task = asyncio.create_task(later())
    start = time.monotonic()
    first = await bot.get_updates(timeout=5)
    await task
    assert time.monotonic() - start < 2  # answered as soon as the update came
    assert [u.message.text for u in first if u.message] == ["/join"]
    again = await bot.get_updates(timeout=0)  # not confirmed yet: delivered again
    assert [u.update_id for u in again] == [first[0].update_id]
    fake.send_command(GROUP, BOB, "/join")
    confirmed = await bot.get_updates(offset=first[0].update_id + 1, timeout=0)
    assert [u.effective_user.id for u in confirmed if u.effective_user] == [BOB.id]
    assert fake.pending_updates == 0

    assert await bot.set_webhook("http://127.0.0.1:9/hook")
    with pytest.raises(Conflict, match="webhook is active"):
        await bot.get_updates()
    assert (await bot.get_webhook_info()).url == "http://127.0.0.1:9/hook"
    assert await bot.delete_webhook()
    assert (await bot.get_webhook_info()).url == ""


async def test_held_long_polls_wait_until_released_or_the_fake_stops(
    fake: FakeTelegram, bot: telegram.Bot
) -> None:
    async def held_poll() -> asyncio.Task[tuple[telegram.Update, ...]]:
        polls = fake.calls["getUpdates"]
        task = asyncio.create_task(bot.get_updates(timeout=0))
        while fake.calls["getUpdates"] == polls:  # the fake has read it
            await asyncio.sleep(0.01)
        return task

    fake.send_command(GROUP, ANN, "/join")
    fake.hold_polls = True
    poll = await held_poll()
    await asyncio.sleep(0.1)
    assert not poll.done()  # an update waits and its timeout (0) has passed: no answer
    fake.hold_polls = False
    assert [u.message.text for u in await poll if u.message] == ["/join"]

    fake.hold_polls = True
    poll = await held_poll()
    await fake.stop()  # answers it, as every long poll waiting
    assert [u.message.text for u in await poll if u.message] == ["/join"]  # not confirmed


async def test_commands_are_stored_by_scope_and_language(
    fake: FakeTelegram, bot: telegram.Bot
) -> None:
    await bot.set_my_commands([BotCommand("join", "Join the game")])
    await bot.set_my_commands(
        [BotCommand("join", "Mitspielen"), BotCommand("start", "Spiel starten")],
        scope=BotCommandScopeAllGroupChats(),
        language_code="de",
    )
    await bot.set_my_commands([BotCommand("kick", "Kick")], scope=BotCommandScopeChat(GROUP))
    assert fake.commands == {
        ("default", ""): [{"command": "join", "description": "Join the game"}],
        ("all_group_chats", "de"): [
            {"command": "join", "description": "Mitspielen"},
            {"command": "start", "description": "Spiel starten"},
        ],
        (f"chat:{GROUP}", ""): [{"command": "kick", "description": "Kick"}],
    }
    got = await bot.get_my_commands(scope=BotCommandScopeAllGroupChats(), language_code="de")
    assert [c.command for c in got] == ["join", "start"]
    with pytest.raises(BadRequest, match="Bot_command_invalid"):
        await bot.set_my_commands([BotCommand("Join!", "bad")])


async def test_admins_and_members(fake: FakeTelegram, bot: telegram.Bot) -> None:
    fake.add_group(GROUP, members=[ANN, BOB])
    fake.set_admin(GROUP, ANN, "creator")
    fake.set_admin(GROUP, BOB)
    assert (await bot.get_chat_member(GROUP, ANN.id)).status == "creator"
    bob = await bot.get_chat_member(GROUP, BOB.id)
    assert isinstance(bob, telegram.ChatMemberAdministrator)
    assert bob.can_delete_messages
    fake.set_admin(GROUP, BOB, "member")
    assert (await bot.get_chat_member(GROUP, BOB.id)).status == "member"
    assert (await bot.get_chat_member(GROUP, bot.id)).status == "member"
    fake.set_bot_admin(GROUP)
    admins = await bot.get_chat_administrators(GROUP)
    assert [a.user.id for a in admins] == [ANN.id, bot.id]
    fake.start_dm(ANN)
    with pytest.raises(BadRequest, match="There are no administrators in the private chat"):
        await bot.get_chat_administrators(ANN.id)
    assert await bot.send_chat_action(GROUP, "typing")
    chat = await bot.get_chat(GROUP)
    assert chat.type == "supergroup"


async def test_privacy_mode_hides_chatter_from_the_bot(
    fake: FakeTelegram, bot: telegram.Bot
) -> None:
    fake.send_text(GROUP, ANN, "anyone up for a game?")
    fake.send_command(GROUP, ANN, "/join@other_bot")
    fake.send_command(GROUP, ANN, "/join@wizard_test_bot")
    sent = await bot.send_message(GROUP, "Lobby")
    fake.send_text(GROUP, BOB, "me too", reply_to=sent.message_id)
    texts = [u.message.text for u in await bot.get_updates(timeout=0) if u.message]
    assert texts == ["/join@wizard_test_bot", "me too"]
    assert len(fake.hidden_from_bot) == 2
    assert [e.text for e in fake.transcript(GROUP) if e.kind == "user"] == [
        "anyone up for a game?",
        "/join@other_bot",
        "/join@wizard_test_bot",
        "me too",
    ]


async def test_pins_reply_keyboards_and_bulk_deletes(fake: FakeTelegram, bot: telegram.Bot) -> None:
    fake.add_group(GROUP, members=[ANN])
    user_message = fake.send_command(GROUP, ANN, "/scores")["message"]["message_id"]
    first = await bot.send_message(
        GROUP, "menu", reply_markup=telegram.ReplyKeyboardMarkup([["/join"]])
    )
    assert first.reply_markup is None  # only inline keyboards belong to a message
    with pytest.raises(BadRequest, match=r"(?i)not enough rights"):
        await bot.pin_chat_message(GROUP, first.message_id)
    with pytest.raises(BadRequest, match=r"(?i)message can't be deleted"):
        await bot.delete_message(GROUP, user_message)  # another person's, and not an admin
    fake.set_bot_admin(GROUP)
    assert await bot.pin_chat_message(GROUP, first.message_id)
    second = await bot.send_message(GROUP, "second")
    assert await bot.delete_messages(GROUP, [user_message, first.message_id, 999])
    assert list(fake.current_messages(GROUP, include_users=True)) == [second.message_id]
    assert [e.kind for e in fake.transcript(GROUP)] == [
        "user", "message", "pin", "message", "delete", "delete",
    ]  # fmt: skip


async def test_forum_topics(fake: FakeTelegram, bot: telegram.Bot) -> None:
    fake.add_group(GROUP, chat_type="supergroup", forum=True, members=[ANN])
    topic = fake.add_topic(GROUP, "Wizard", ANN)
    typed = Update.de_json(fake.send_command(GROUP, ANN, "/join", thread=topic), bot)
    assert typed.message is not None
    assert typed.message.is_topic_message
    assert typed.message.message_thread_id == topic
    assert typed.message.chat.is_forum
    general = Update.de_json(fake.send_command(GROUP, ANN, "/join"), bot).message
    assert general is not None
    assert not general.is_topic_message
    sent = await bot.send_message(GROUP, "lobby", message_thread_id=topic)
    assert sent.is_topic_message
    assert sent.message_thread_id == topic
    edited = await bot.edit_message_text("lobby!", chat_id=GROUP, message_id=sent.message_id)
    assert isinstance(edited, telegram.Message)
    assert edited.message_thread_id == topic
    answer = await bot.send_message(GROUP, "hi", reply_parameters=ReplyParameters(typed.message.id))
    assert answer.message_thread_id is None  # a reply without the thread goes to General
    with pytest.raises(BadRequest, match=r"(?i)message thread not found"):
        await bot.send_message(GROUP, "nowhere", message_thread_id=topic + 100)
    fake.close_topic(GROUP, None)
    with pytest.raises(BadRequest, match=r"(?i)topic_closed"):
        await bot.send_message(GROUP, "general")
    fake.close_topic(GROUP, topic)
    with pytest.raises(BadRequest, match=r"(?i)topic_closed"):
        await bot.send_message(GROUP, "closed", message_thread_id=topic)
    fake.close_topic(GROUP, topic, closed=False)
    await bot.send_message(GROUP, "open again", message_thread_id=topic)
    threads = [(e.kind, e.thread) for e in fake.transcript(GROUP)]
    assert threads == [
        ("user", topic), ("user", None), ("message", topic), ("edit", topic),
        ("message", None), ("message", topic),
    ]  # fmt: skip


async def test_wait_idle_reports_a_bot_that_does_not_poll(fake: FakeTelegram) -> None:
    fake.send_command(GROUP, ANN, "/join")
    with pytest.raises(TimeoutError, match="1 update"):
        await fake.wait_idle(timeout=0.2)


def test_formatted_text_is_what_a_person_sees() -> None:
    assert parse_html('<b>Bold <i>both</i></b> <a href="https://x.org">link</a> 2 &lt; 3') == (
        "Bold both link 2 < 3",
        [
            {"type": "bold", "offset": 0, "length": 9},
            {"type": "italic", "offset": 5, "length": 4},
            {"type": "text_link", "offset": 10, "length": 4, "url": "https://x.org"},
        ],
    )
    assert parse_html('<pre><code class="language-python">x = 1</code></pre>') == (
        "x = 1",
        [{"type": "pre", "offset": 0, "length": 5, "language": "python"}],
    )
    with pytest.raises(Exception, match=r'Can\'t find end tag corresponding to start tag "b"'):
        parse_html("<b>open")
    with pytest.raises(Exception, match='expected "</b>", found "</i>"'):
        parse_html("<b>x</i>")
    assert parse_markdown_v2(r"*Ann* bids __2__\. ~no~ ||trump|| `c\`d` [site](https://x.org)")[
        0
    ] == ("Ann bids 2. no trump c`d site")
    with pytest.raises(Exception, match="Can't find end of Bold entity"):
        parse_markdown_v2("*open")
    assert parse_markdown("*bold* _it_ `co_de`") == (
        "bold it co_de",
        [
            {"type": "bold", "offset": 0, "length": 4},
            {"type": "italic", "offset": 5, "length": 2},
            {"type": "code", "offset": 8, "length": 5},
        ],
    )
    # Surrounding whitespace goes, entity offsets follow; offsets count UTF-16 units.
    assert format_text("  <b>🃏 x</b>  ", "HTML", None) == (
        "🃏 x",
        [{"type": "bold", "offset": 0, "length": 4}],
    )


# -- a real Application -------------------------------------------------------------------------


def build_app(fake: FakeTelegram) -> Application:  # type: ignore[type-arg]
    return (
        Application.builder()
        .token(fake.token)
        .base_url(fake.base_url)
        .base_file_url(fake.base_file_url)
        .build()
    )


async def test_an_application_polls_and_handles_commands_and_presses(fake: FakeTelegram) -> None:
    handled: list[str] = []

    async def join(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_user is not None
        assert update.effective_chat is not None
        handled.append(f"join {update.effective_user.first_name}")
        await update.effective_chat.send_message(
            f"Lobby: {update.effective_user.first_name}",
            reply_markup=keyboard((("Start", "start"),)),
        )

    async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query is not None
        assert query.from_user is not None
        handled.append(f"press {query.data} by {query.from_user.first_name}")
        await query.answer("Shuffling…")
        await query.edit_message_text("Game started", reply_markup=keyboard((("Bid 0", "b0"),)))

    app = build_app(fake)
    app.add_handler(CommandHandler("join", join))
    app.add_handler(CallbackQueryHandler(start, pattern="^start$"))
    async with app:
        await app.start()
        assert app.updater is not None
        await app.updater.start_polling(poll_interval=0, timeout=1)
        fake.send_command(GROUP, ANN, "/join")
        await fake.wait_idle()
        lobby = fake.last_message(GROUP)
        assert (lobby.text, lobby.labels) == ("Lobby: Ann", [["Start"]])
        fake.press(GROUP, BOB, lobby.message_id, "start")
        await fake.wait_idle()
        await app.updater.stop()
        await app.stop()

    assert handled == ["join Ann", "press start by Bob"]
    assert fake.format_transcript(GROUP).splitlines() == [
        "#1 Ann: /join",
        "#2 bot: Lobby: Ann",
        "    [Start]",
        "  Bob presses 'start' on #2",
        "  (toast to Bob: Shuffling…)",
        "#2 edited: Game started",
        "    [Bid 0]",
    ]
    assert fake.throttled == []
    assert fake.errors == []
    assert fake.unanswered_presses() == []
    # getMe (initialize), deleteWebhook (PTB's bootstrap), sendMessage, answer, edit
    assert fake.total_calls() == 5
    assert fake.calls["getUpdates"] >= 2
    assert fake.pending_updates == 0


# -- webhooks -----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def test_webhook_delivery_with_secret_token(fake: FakeTelegram) -> None:
    app = build_app(fake)
    got: list[str] = []

    async def join(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_chat is not None
        assert update.effective_user is not None
        got.append(update.effective_user.first_name)
        await update.effective_chat.send_message("joined")

    app.add_handler(CommandHandler("join", join))

    async def endpoint(request: web.Request) -> web.Response:  # what a bot's webhook does
        if request.headers.get("X-Telegram-Bot-Api-Secret-Token") != "s3cret":
            return web.Response(status=403)
        await app.update_queue.put(Update.de_json(await request.json(), app.bot))
        return web.Response()

    server = web.Application()
    server.router.add_post("/hook", endpoint)
    runner = web.AppRunner(server, access_log=None)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    url = f"http://127.0.0.1:{port}/hook"
    try:
        async with app:
            await app.start()
            await app.bot.set_webhook(url, secret_token="s3cret", allowed_updates=["message"])
            assert fake.webhook_url == url
            fake.send_command(GROUP, ANN, "/join")
            await fake.wait_idle()
            assert got == ["Ann"]
            assert fake.last_message(GROUP).text == "joined"
            update = fake.send_command(GROUP, BOB, "/join", enqueue=False)
            assert await fake.post_update_to(url, update, "wrong") == 403
            assert await fake.post_update_to(url, update, "s3cret") == 200
            await fake.wait_idle()
            assert got == ["Ann", "Bob"]
            info = await app.bot.get_webhook_info()
            assert info.url == url
            assert info.pending_update_count == 0
            assert info.last_error_message is None
            await app.stop()
    finally:
        await runner.cleanup()
    assert [status for _, _, status in fake.webhook_deliveries] == [200, 403, 200]
    with pytest.raises(ValueError, match="non-loopback"):
        await fake.post_update_to("http://example.org/hook", update)


async def test_json_bodies_and_form_bodies_are_both_understood(fake: FakeTelegram) -> None:
    """PTB sends forms (JSON-encoded values); other clients send JSON bodies."""
    from aiohttp import ClientSession

    fake.add_group(GROUP)
    markup = {"inline_keyboard": [[{"text": "Join", "callback_data": "join"}]]}
    async with ClientSession() as session:
        url = f"{fake.base_url}{fake.token}/sendMessage"
        async with session.post(
            url, json={"chat_id": GROUP, "text": "json", "reply_markup": markup}
        ) as resp:
            body = await resp.json()
        assert body["ok"]
        assert body["result"]["reply_markup"] == markup
        async with session.post(
            url.replace("sendMessage", "sendmessage"),  # method names ignore case
            data={"chat_id": str(GROUP), "text": "form", "reply_markup": json.dumps(markup)},
        ) as resp:
            assert (await resp.json())["result"]["message_id"] == 2
        async with session.post(url, data={"chat_id": str(GROUP)}) as resp:
            assert resp.status == 400
            assert await resp.json() == {
                "ok": False,
                "error_code": 400,
                "description": "Bad Request: message text is empty",
            }
