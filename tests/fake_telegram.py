"""A fake Telegram Bot API server for testing a bot end to end, through its real HTTP client.

`FakeTelegram` is an aiohttp server on 127.0.0.1 (a free port) that answers the Bot API methods a
game bot uses the way Telegram does: the same JSON (`{"ok": true, "result": ...}`), the same
errors (`{"ok": false, "error_code": 400, "description": "Bad Request: message is not modified:
..."}`), long polling with offsets, webhooks, flood limits. A test plays the people in the chats:
it injects the updates their clients would cause (a command, a button press, opening the bot in a
private chat) and reads back what each chat shows.

    async with FakeTelegram() as fake:
        app = Application.builder().token(fake.token).base_url(fake.base_url)
        app = app.base_file_url(fake.base_file_url).build()
        ...  # add handlers, `async with app: await app.start()`, start polling
        ann = User(1001, "Ann", "ann")
        fake.send_command(-100, ann, "/join")
        await fake.wait_idle()
        lobby = fake.last_message(-100)
        fake.press(-100, ann, lobby.message_id, "start")
        await fake.wait_idle()
        print(fake.format_transcript(-100))
        assert fake.throttled == [] and fake.errors == []

What it models, as the real service does (the quirks a bot must get right):
- text is parsed by `parse_mode` (HTML, MarkdownV2, Markdown) into plain text and entities; bad
  markup is refused ("can't parse entities: ..."), surrounding whitespace is dropped, the text is
  at most 4096 characters and a caption 1024, counted as code points (the Bot API server's
  TDLib checks `utf8_length`, characters; an emoji such as 🧙 is one), where entity offsets
  and lengths count UTF-16 units (🧙 is two);
- `editMessageText` without `reply_markup` removes the message's inline keyboard; an edit that
  changes nothing is refused with "message is not modified"; callback data is 1-64 bytes; a
  `web_app` button (a Mini App: an https address) is allowed in a private chat only;
- a bot cannot write first to a person ("bot can't initiate conversation with a user"): the
  person must open the bot (`start_dm`); one who blocked the bot gives "bot was blocked by the
  user";
- in groups, privacy mode (on by default, as for a new bot): the bot gets commands, replies to
  its messages and everything once it is an admin, not other chatter;
- every callback query can be answered once, and not once it is too old (`press(expired=True)`),
  its text at most 200 UTF-16 units ("MESSAGE_TOO_LONG"): the Bot API says "0-200 characters"
  and Telegram's own servers check it, in a unit nobody documents, so the fake takes the
  strictest (an emoji such as 🧙 is two);
- a text mention (`send_text(mentions=...)`: a person without a username, picked in a client) is
  a `text_mention` entity carrying their User; a message sent in a chat's name
  (`send_as_chat`: an anonymous admin's, a linked channel's post) comes from a stand-in bot
  (@GroupAnonymousBot, @Channel_Bot) with `sender_chat`, and reaches the bot if it is a
  command for it;
- forum supergroups (`add_group(forum=True)`, `add_topic`): a message in a topic has
  `message_thread_id` and `is_topic_message`, and one that replies to nothing is sent as a reply to
  the topic's first message (its `forum_topic_created` service message); a bot's message goes to the
  topic its `message_thread_id` names, else to General (a reply too: the topic is not taken from the
  message replied to), and an edit stays where its message is; a closed topic (`close_topic`,
  General too) refuses the bot's messages with 400 "Bad Request: TOPIC_CLOSED" (a bot without the
  right to manage topics), a deleted (`delete_topic`) or unknown one with "Bad Request: message
  thread not found"; closing and reopening a topic posts its service message (`forum_topic_closed`,
  `forum_topic_reopened`), deleting it tells the bot nothing;
- Telegram tells the bot when a person blocks it, in a my_chat_member update of their private
  chat (member -> kicked), and when they unblock it (kicked -> member): `block(tell=True)`, and
  `start_dm` of one who blocked it (the Restart button: the update, then "/start");
- a bot muted in a group (`restrict_bot`: a my_chat_member update to "restricted" with
  `can_send_messages` false), or in one whose default permissions mute every member
  (`mute_members`: no update, the bot unless an admin), is refused new messages there with 400
  "Bad Request: not enough rights to send text messages to the chat" ("... to send photos ...",
  "... to send documents ..." for a photo or a document);
- a group that allows text but no files: its default permissions (`forbid_files`: no update,
  the bot unless an admin) or the bot's own (`restrict_bot_files`: a my_chat_member update to
  "restricted" with `can_send_messages` true, `can_send_photos` and `can_send_documents` false)
  refuse a photo with 400 "Bad Request: not enough rights to send photos to the chat" and a
  document with "... to send documents to the chat";
- with `rate_limits` on: about 20 messages a minute per group, about one a second per private
  chat, 30 a second overall (sends and edits count) -> 429 "Too Many Requests: retry after N"
  with `parameters.retry_after`.

Bookkeeping for tests and benchmarks: `calls` (method -> count) and `chat_calls` (chat -> method ->
count), `throttled` (every 429 returned), `errors` (every error returned), per-chat transcripts
(`transcript`, `format_transcript`), the messages a chat shows now (`current_messages`, `buttons`).

The server and its injectors belong to the event loop that started it: call them from that loop.

python-telegram-bot (22.x) against this server:
- `Application.builder().token(fake.token).base_url(fake.base_url)` (PTB appends the token and
  `/method`), `.base_file_url(fake.base_file_url)` for downloads; PTB POSTs forms whose non-string
  values (reply_markup, reply_parameters, entities, scope, commands) are JSON-encoded strings, and
  multipart forms when a file is uploaded (`document` is then a file part); both, and JSON bodies,
  are understood here;
- PTB drops the "Bad Request: " prefix and `capitalize()`s the rest of an error description
  (`BadRequest("Message is not modified: ...")`, `"Can't parse entities: unsupported start tag"`):
  match error texts without case;
- `RetryAfter(...)` reads its own `retry_after` while being built, which warns
  (PTBDeprecationWarning) unless the environment has PTB_TIMEDELTA=true: under
  `filterwarnings = error` a 429 then surfaces as that warning instead of RetryAfter. Set
  PTB_TIMEDELTA (retry_after is then a timedelta) or ignore that warning in such tests;
- `updater.start_polling()` calls deleteWebhook first, and `updater.stop()` calls getUpdates once
  more (timeout 0) to confirm what it fetched; a long poll superseded by a newer one ends with 409
  "terminated by other getUpdates request", as on Telegram; `hold_polls` leaves long polls
  unanswered (PTB times one out after its timeout plus its read timeout, and tries again at
  once, telling its error callback nothing).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import math
import re
import socket
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Literal, Self
from urllib.parse import urlsplit

from aiohttp import ClientError, ClientSession, ClientTimeout, web

JSON = dict[str, Any]
"""A JSON object as the Bot API sends or receives it."""

DEFAULT_TOKEN = "123456789:AAHfakeTokenForWizardBotTests-0123456"
"""A well-formed bot token: the bot's id, a colon, a secret."""

SECRET_TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{1,256}")
COMMAND_RE = re.compile(r"[a-z0-9_]{1,32}")
CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)
UPDATE_TYPES = (
    "message",
    "edited_message",
    "channel_post",
    "edited_channel_post",
    "business_connection",
    "business_message",
    "edited_business_message",
    "deleted_business_messages",
    "message_reaction",
    "message_reaction_count",
    "inline_query",
    "chosen_inline_result",
    "callback_query",
    "shipping_query",
    "pre_checkout_query",
    "purchased_paid_media",
    "poll",
    "poll_answer",
    "my_chat_member",
    "chat_member",
    "chat_join_request",
    "chat_boost",
    "removed_chat_boost",
)
DEFAULT_UPDATE_TYPES = frozenset(UPDATE_TYPES) - {
    "chat_member",
    "message_reaction",
    "message_reaction_count",
}
"""What Telegram sends when `allowed_updates` was never given (or given empty)."""

RESTRICTED_RIGHTS = (
    "can_send_messages", "can_send_audios", "can_send_documents", "can_send_photos",
    "can_send_videos", "can_send_video_notes", "can_send_voice_notes", "can_send_polls",
    "can_send_other_messages", "can_add_web_page_previews", "can_change_info",
    "can_invite_users", "can_pin_messages", "can_manage_topics", "can_edit_tag",
    "can_react_to_messages",
)  # fmt: skip
"""The rights in a restricted member's ChatMember (`restrict_bot`: all off, or all on;
`restrict_bot_files`: photos and documents off)."""
MAX_TEXT = 4096
MAX_CAPTION = 1024
MAX_CALLBACK_ANSWER = 200
BUTTON_ACTIONS = (
    "callback_data",
    "url",
    "web_app",
    "login_url",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "copy_text",
    "callback_game",
    "pay",
)
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


# ---------------------------------------------------------------------------------------------
# What tests read back


@dataclass(frozen=True, slots=True)
class User:
    """A Telegram user (a person): their private chat with the bot has the same id."""

    id: int
    first_name: str
    username: str | None = None
    language_code: str | None = "en"
    last_name: str | None = None

    def to_json(self) -> JSON:
        """The User object as the Bot API sends it."""
        data: JSON = {"id": self.id, "is_bot": False, "first_name": self.first_name}
        if self.last_name:
            data["last_name"] = self.last_name
        if self.username:
            data["username"] = self.username
        if self.language_code:
            data["language_code"] = self.language_code
        return data


ANONYMOUS_ADMIN: JSON = {
    "id": 1087968824,
    "is_bot": True,
    "first_name": "Group",
    "username": "GroupAnonymousBot",
}
"""The stand-in Telegram sends an anonymous admin's messages in a group from."""
CHANNEL_BOT: JSON = {
    "id": 136817688,
    "is_bot": True,
    "first_name": "Channel",
    "username": "Channel_Bot",
}
"""The stand-in Telegram sends a channel's messages in a group from."""


@dataclass(frozen=True, slots=True)
class Button:
    """An inline keyboard button as a person sees it: its label and what pressing it does."""

    text: str
    callback_data: str | None = None
    url: str | None = None
    web_app: str | None = None
    """The address of the Mini App the button opens."""


Keyboard = tuple[tuple[Button, ...], ...]
"""An inline keyboard: rows of buttons (empty when the message has none)."""

EventKind = Literal[
    "user", "press", "message", "document", "photo", "edit", "delete", "answer", "pin"
]


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened in a chat, in the order it happened.

    kind:
    - "user": a person sent `text` (a command or a message) as `message_id`;
    - "press": the person `user_id` pressed the button `callback_data` under `message_id`;
    - "message": the bot sent `text` (with `keyboard`) as `message_id`;
    - "document": the bot sent the file `file_name` (`data`; `text` is the caption);
    - "photo": the bot sent the picture `file_name` (`data`, a PNG; `text` is the caption);
    - "edit": the bot changed `message_id`: `text` and `keyboard` are what it shows now;
    - "delete": `message_id` was deleted;
    - "answer": the bot answered a button press by `user_id` with `text` (a toast, or a modal
      alert when `show_alert`), seen by that person alone; empty `text` shows nothing; with
      `url` (only a link to the bot with a /start parameter), their client opens it;
    - "pin": `message_id` was pinned (or unpinned: `text` is "unpin").
    """

    kind: EventKind
    chat_id: int
    message_id: int | None = None
    text: str = ""
    keyboard: Keyboard = ()
    user_id: int | None = None
    show_alert: bool = False
    silent: bool = False
    reply_to: int | None = None
    callback_data: str | None = None
    file_name: str | None = None
    data: bytes | None = None
    at: float = 0.0
    thread: int | None = None
    """The forum topic it happened in (None: a chat without topics, or General)."""
    url: str | None = None
    """An answer's link, which the person's client opens."""


@dataclass(frozen=True, slots=True)
class MessageView:
    """A message as the chat shows it now."""

    message_id: int
    text: str
    keyboard: Keyboard
    from_bot: bool
    user_id: int | None
    edited: bool
    reply_to: int | None
    file_name: str | None
    entities: tuple[JSON, ...]
    thread: int | None = None
    """The forum topic it is in (None: a chat without topics, or General)."""

    @property
    def labels(self) -> list[list[str]]:
        """The button labels, row by row."""
        return [[b.text for b in row] for row in self.keyboard]


@dataclass(frozen=True, slots=True)
class Throttle:
    """A 429 the fake returned: which call, in which chat, and the `retry_after` it asked for."""

    method: str
    chat_id: int | None
    retry_after: int
    scope: Literal["group", "private", "overall"]
    at: float


@dataclass(frozen=True, slots=True)
class ApiErrorRecord:
    """An error the fake returned to the bot."""

    method: str
    chat_id: int | None
    error_code: int
    description: str


@dataclass(frozen=True, slots=True)
class RateLimits:
    """Telegram's flood limits as sliding windows: at most `count` messages in `seconds`.

    Sends and edits of messages count. The defaults are Telegram's published guidance: 20 a minute
    in a group, about one a second in a private chat (a short burst of 3 passes, as on the real
    service) and 30 a second over all chats."""

    group: tuple[int, float] = (20, 60.0)
    private: tuple[int, float] = (3, 3.0)
    overall: tuple[int, float] = (30, 1.0)


@dataclass(frozen=True, slots=True)
class UploadedFile:
    """A file the bot uploaded (multipart): its name, content and MIME type."""

    file_id: str
    file_unique_id: str
    file_name: str
    data: bytes
    mime_type: str

    def to_json(self) -> JSON:
        return {
            "file_name": self.file_name,
            "mime_type": self.mime_type,
            "file_id": self.file_id,
            "file_unique_id": self.file_unique_id,
            "file_size": len(self.data),
        }


class ApiError(Exception):
    """An error answer of the Bot API."""

    def __init__(self, code: int, description: str, parameters: JSON | None = None) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters

    def to_json(self) -> JSON:
        data: JSON = {"ok": False, "error_code": self.code, "description": self.description}
        if self.parameters:
            data["parameters"] = self.parameters
        return data


def bad_request(what: str) -> ApiError:
    return ApiError(400, f"Bad Request: {what}")


# ---------------------------------------------------------------------------------------------
# Formatted text: what a person sees of `text` sent with a parse_mode


def utf16_len(text: str) -> int:
    """The length of `text` in UTF-16 code units, the unit of Telegram's entity offsets."""
    return len(text.encode("utf-16-le")) // 2


HTML_TAGS = frozenset(
    {
        "b",
        "strong",
        "i",
        "em",
        "u",
        "ins",
        "s",
        "strike",
        "del",
        "span",
        "tg-spoiler",
        "a",
        "code",
        "pre",
        "blockquote",
        "tg-emoji",
    }
)
HTML_ENTITY_TYPES = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "span": "spoiler",
    "tg-spoiler": "spoiler",
    "a": "text_link",
    "code": "code",
    "pre": "pre",
    "blockquote": "blockquote",
    "tg-emoji": "custom_emoji",
}
HTML_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
ATTR_RE = re.compile(r"""\s*([^\s=>/"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?""")
CHARREF_RE = re.compile(r"&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]+);")


class _Builder:
    """Plain text with entities, built piece by piece (offsets in UTF-16 units)."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0
        self.entities: list[JSON] = []

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.length += utf16_len(text)

    def entity(self, kind: str, start: int, extra: Mapping[str, Any] | None = None) -> None:
        if self.length > start:
            self.entities.append(
                {"type": kind, "offset": start, "length": self.length - start, **(extra or {})}
            )

    def result(self) -> tuple[str, list[JSON]]:
        entities = sorted(self.entities, key=lambda e: (e["offset"], -e["length"]))
        return "".join(self.parts), entities


def _byte_offset(text: str, index: int) -> int:
    return len(text[:index].encode())


def _unescape_html(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        ref = match.group(1)
        if ref.startswith(("#x", "#X")):
            return chr(int(ref[2:], 16))
        if ref.startswith("#"):
            return chr(int(ref[1:]))
        return HTML_NAMED.get(ref.lower(), match.group(0))

    return CHARREF_RE.sub(one, text)


def parse_html(text: str) -> tuple[str, list[JSON]]:
    """Telegram's HTML style: the plain text and its entities, or ApiError for bad markup."""
    out = _Builder()
    stack: list[tuple[str, int, str | None]] = []  # tag, entity start, argument
    i = 0
    prefix = "can't parse entities: "
    while i < len(text):
        lt = text.find("<", i)
        if lt < 0:
            out.add(_unescape_html(text[i:]))
            break
        out.add(_unescape_html(text[i:lt]))
        gt = text.find(">", lt)
        if gt < 0:
            raise bad_request(f"{prefix}Unclosed start tag at byte offset {_byte_offset(text, lt)}")
        body = text[lt + 1 : gt]
        if body.startswith("/"):
            name = body[1:].strip().lower()
            if not stack:
                raise bad_request(
                    f"{prefix}Unexpected end tag at byte offset {_byte_offset(text, lt)}"
                )
            tag, start, argument = stack.pop()
            if name and name != tag:
                raise bad_request(
                    f"{prefix}Unmatched end tag at byte offset {_byte_offset(text, lt)}, "
                    f'expected "</{tag}>", found "</{name}>"'
                )
            extra: JSON = {}
            if tag == "a":
                extra["url"] = argument or ""
            elif tag == "pre" and argument:
                extra["language"] = argument
            elif tag == "tg-emoji":
                extra["custom_emoji_id"] = argument or ""
            elif tag == "blockquote" and argument:
                out.entity("expandable_blockquote", start)
                i = gt + 1
                continue
            out.entity(HTML_ENTITY_TYPES[tag], start, extra)
        else:
            match = re.match(r"[^\s>/]*", body)
            name = (match.group(0) if match else "").lower()
            if name not in HTML_TAGS:
                raise bad_request(
                    f'{prefix}Unsupported start tag "{name}" at byte offset '
                    f"{_byte_offset(text, lt)}"
                )
            attrs: dict[str, str] = {}
            for attr in ATTR_RE.finditer(body, len(name)):
                value = next((g for g in attr.groups()[1:] if g is not None), "")
                attrs[attr.group(1).lower()] = _unescape_html(value)
            argument = None
            if name == "a":
                argument = attrs.get("href")
            elif name == "span":
                if attrs.get("class") != "tg-spoiler":
                    raise bad_request(
                        f'{prefix}Tag "span" must have class "tg-spoiler" at byte offset '
                        f"{_byte_offset(text, lt)}"
                    )
            elif name == "code" and attrs.get("class", "").startswith("language-"):
                argument = attrs["class"].removeprefix("language-")
                if stack and stack[-1][0] == "pre":  # <pre><code class="language-x">
                    tag, start, _ = stack[-1]
                    stack[-1] = (tag, start, argument)
            elif name == "tg-emoji":
                argument = attrs.get("emoji-id")
            elif name == "blockquote" and "expandable" in attrs:
                argument = "expandable"
            stack.append((name, out.length, argument))
        i = gt + 1
    if stack:
        raise bad_request(
            f'{prefix}Can\'t find end tag corresponding to start tag "{stack[-1][0]}"'
        )
    plain, entities = out.result()
    # <pre><code>x</code></pre> is one pre entity, not a pre and a code
    entities = [
        e
        for e in entities
        if not (
            e["type"] == "code"
            and any(
                p["type"] == "pre" and p["offset"] == e["offset"] and p["length"] == e["length"]
                for p in entities
            )
        )
    ]
    return plain, entities


MDV2_RESERVED = frozenset("_*[]()~`>#+-=|{}.!\\")
MDV2_NAMES = {
    "bold": "Bold",
    "italic": "Italic",
    "underline": "Underline",
    "strikethrough": "Strikethrough",
    "spoiler": "Spoiler",
    "code": "Code",
    "pre": "Pre",
    "text_link": "TextUrl",
}


def parse_markdown_v2(text: str) -> tuple[str, list[JSON]]:
    """Telegram's MarkdownV2 style, or ApiError: every reserved character must be escaped."""
    out = _Builder()
    stack: list[tuple[str, int, int, str | None]] = []  # type, start, byte offset, language
    prefix = "can't parse entities: "
    i = 0
    n = len(text)
    quote_start: int | None = None
    at_line_start = True
    while i < n:
        c = text[i]
        top = stack[-1][0] if stack else None
        if c == "\\" and i + 1 < n and 0 < ord(text[i + 1]) < 127:
            out.add(text[i + 1])
            i += 2
            at_line_start = False
            continue
        if top == "code":
            if c == "`":
                _, start, _, _ = stack.pop()
                out.entity("code", start)
            else:
                out.add(c)
            i += 1
            continue
        if top == "pre":
            if text.startswith("```", i):
                _, start, _, language = stack.pop()
                out.entity("pre", start, {"language": language} if language else None)
                i += 3
            else:
                out.add(c)
                i += 1
            continue
        if c == "\n":
            if quote_start is not None and not text.startswith(">", i + 1):
                out.entity("blockquote", quote_start)
                quote_start = None
            out.add(c)
            i += 1
            at_line_start = True
            continue
        if c not in MDV2_RESERVED:
            out.add(c)
            i += 1
            at_line_start = False
            continue
        if c == ">" and at_line_start:
            if quote_start is None:
                quote_start = out.length
            i += 1
            at_line_start = False
            continue
        at_line_start = False
        kind: str | None = None
        width = 1
        if text.startswith("```", i):
            end = text.find("\n", i + 3)
            language = text[i + 3 : end].strip() if end >= 0 else ""
            skip = (end + 1 - i) if end >= 0 and re.fullmatch(r"[\w+#-]*", language) else 3
            stack.append(("pre", out.length, _byte_offset(text, i), language or None))
            i += skip
            continue
        if text.startswith("__", i):
            kind, width = "underline", 2
        elif text.startswith("||", i):
            kind, width = "spoiler", 2
        elif c in "*_~`":
            kind = {"*": "bold", "_": "italic", "~": "strikethrough", "`": "code"}[c]
        if kind is not None:
            if top == kind:
                _, start, _, _ = stack.pop()
                out.entity(kind, start)
            else:
                stack.append((kind, out.length, _byte_offset(text, i), None))
            i += width
            continue
        if c == "[":
            stack.append(("text_link", out.length, _byte_offset(text, i), None))
            i += 1
            continue
        if c == "]" and top == "text_link":
            if not text.startswith("(", i + 1):
                raise bad_request(
                    f"{prefix}Can't find end of a URL at byte offset {_byte_offset(text, i)}"
                )
            url_chars: list[str] = []
            j = i + 2
            while j < n and text[j] != ")":
                if text[j] == "\\" and j + 1 < n:
                    j += 1
                url_chars.append(text[j])
                j += 1
            if j >= n:
                raise bad_request(
                    f"{prefix}Can't find end of a URL at byte offset {_byte_offset(text, i)}"
                )
            _, start, _, _ = stack.pop()
            out.entity("text_link", start, {"url": "".join(url_chars)})
            i = j + 1
            continue
        raise bad_request(
            f"{prefix}Character '{c}' is reserved and must be escaped with the preceding '\\'"
        )
    if quote_start is not None:
        out.entity("blockquote", quote_start)
    if stack:
        kind, _, offset, _ = stack[-1]
        raise bad_request(
            f"{prefix}Can't find end of {MDV2_NAMES[kind]} entity at byte offset {offset}"
        )
    return out.result()


def parse_markdown(text: str) -> tuple[str, list[JSON]]:
    """Telegram's legacy Markdown style: *bold*, _italic_, `code`, ```pre```, [text](url)."""
    out = _Builder()
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] in "_*`[":
            out.add(text[i + 1])
            i += 2
            continue
        if c not in "_*`[":
            out.add(c)
            i += 1
            continue
        offset = _byte_offset(text, i)
        error = bad_request(
            f"can't parse entities: Can't find end of the entity starting at byte offset {offset}"
        )
        if c == "[":
            close = text.find("](", i + 1)
            end = text.find(")", close + 2) if close >= 0 else -1
            if end < 0:
                raise error
            start = out.length
            out.add(text[i + 1 : close])
            out.entity("text_link", start, {"url": text[close + 2 : end]})
            i = end + 1
            continue
        marker = "```" if text.startswith("```", i) else c
        end = text.find(marker, i + len(marker))
        if end < 0:
            raise error
        inner = text[i + len(marker) : end]
        kind = {"_": "italic", "*": "bold", "`": "code", "```": "pre"}[marker]
        if kind == "pre" and "\n" in inner:
            first, rest = inner.split("\n", 1)
            if re.fullmatch(r"[\w+#-]+", first):
                inner = rest
        start = out.length
        out.add(inner)
        out.entity(kind, start)
        i = end + len(marker)
    return out.result()


def format_text(
    text: str, parse_mode: str | None, entities: Any, *, caption: bool = False
) -> tuple[str, list[JSON]]:
    """What a person sees of `text`: plain text and entities, stripped like Telegram does."""
    what = "message caption" if caption else "message text"
    mode = (parse_mode or "").lower()
    if mode == "html":
        plain, found = parse_html(text)
    elif mode == "markdownv2":
        plain, found = parse_markdown_v2(text)
    elif mode == "markdown":
        plain, found = parse_markdown(text)
    elif mode:
        raise bad_request(f"unsupported parse_mode {parse_mode!r}")
    else:
        plain = text
        found = []
        for e in entities if isinstance(entities, list) else ():
            if not (
                isinstance(e, dict)
                and isinstance(e.get("type"), str)
                and isinstance(e.get("offset"), int)
                and isinstance(e.get("length"), int)
            ):
                raise bad_request("can't parse entities JSON object")
            found.append(dict(e))
    stripped = plain.strip()
    if stripped != plain and found:
        lead = utf16_len(plain) - utf16_len(plain.lstrip())
        size = utf16_len(stripped)
        moved: list[JSON] = []
        for e in found:
            start = max(0, int(e["offset"]) - lead)
            end = min(size, int(e["offset"]) + int(e["length"]) - lead)
            if end > start:
                moved.append({**e, "offset": start, "length": end - start})
        found = moved
    if not stripped and not caption:
        raise bad_request(f"{what} is empty")
    limit = MAX_CAPTION if caption else MAX_TEXT
    if len(stripped) > limit:  # characters, as TDLib's utf8_length counts (not UTF-16 units)
        raise bad_request(f"{what} is too long" if caption else "message is too long")
    found.sort(key=lambda e: (e["offset"], -e["length"]))
    return stripped, found


# ---------------------------------------------------------------------------------------------
# Internal state


@dataclass
class _Message:
    chat_id: int
    message_id: int
    date: int
    sender: JSON
    from_bot: bool
    text: str | None = None
    entities: list[JSON] = field(default_factory=list)
    caption: str | None = None
    caption_entities: list[JSON] = field(default_factory=list)
    markup: JSON | None = None  # reply_markup exactly as the Bot API returns it
    document: UploadedFile | None = None
    photo: UploadedFile | None = None
    reply_to: int | None = None
    edit_date: int | None = None
    deleted: bool = False
    service: JSON = field(default_factory=dict)  # e.g. {"migrate_to_chat_id": -100...}
    thread: int | None = None  # the forum topic it is in (None: General, or no topics)

    @property
    def keyboard(self) -> Keyboard:
        return keyboard_of(self.markup)

    @property
    def shown_text(self) -> str:
        return (self.text if self.text is not None else self.caption) or ""


@dataclass
class _Chat:
    id: int
    type: str
    title: str | None = None
    username: str | None = None
    user: User | None = None  # the person, for a private chat
    next_message_id: int = 1
    messages: dict[int, _Message] = field(default_factory=dict)
    transcript: list[Event] = field(default_factory=list)
    members: set[int] = field(default_factory=set)
    admins: dict[int, Literal["creator", "administrator"]] = field(default_factory=dict)
    bot_admin: bool = False
    bot_removed: bool = False
    bot_muted: bool = False  # restricted: it may not send messages
    members_muted: bool = False  # default permissions: no member but an admin may send
    bot_no_files: bool = False  # restricted: it may send text, but no photos or documents
    members_no_files: bool = False  # default permissions: no photos or documents (but admins)
    pinned: list[int] = field(default_factory=list)
    migrated_to: int | None = None  # the supergroup this group became
    forum: bool = False  # a supergroup with topics
    topics: set[int] = field(default_factory=set)  # their thread ids (General is not one)
    closed: set[int | None] = field(default_factory=set)  # closed topics (None: General)

    def to_json(self) -> JSON:
        data: JSON = {"id": self.id, "type": self.type}
        if self.type == "private" and self.user is not None:
            data["first_name"] = self.user.first_name
            if self.user.last_name:
                data["last_name"] = self.user.last_name
            if self.user.username:
                data["username"] = self.user.username
        else:
            data["title"] = self.title or f"Group {abs(self.id)}"
            if self.username:
                data["username"] = self.username
            if self.forum:
                data["is_forum"] = True
        return data


@dataclass
class _Query:
    id: str
    chat_id: int
    message_id: int
    user: User
    data: str
    answered: Event | None = None
    expired: bool = False
    """Too old to answer: the bot got to it late (Telegram gives it some seconds)."""


@dataclass
class _Webhook:
    url: str
    secret_token: str | None
    max_connections: int
    allowed_updates: list[str] | None
    ip_address: str | None
    last_error_date: int | None = None
    last_error_message: str | None = None


def keyboard_of(markup: Mapping[str, Any] | None) -> Keyboard:
    """The inline keyboard of a reply_markup object (empty when it has none)."""
    if not markup or "inline_keyboard" not in markup:
        return ()
    return tuple(
        tuple(
            Button(b["text"], b.get("callback_data"), b.get("url"), b.get("web_app", {}).get("url"))
            for b in row
        )
        for row in markup["inline_keyboard"]
    )


def chat_type_of(chat_id: int) -> str:
    """The type Telegram gives a chat with this id: supergroups have ids like -100xxxxxxxxxx."""
    if chat_id > 0:
        return "private"
    return "supergroup" if chat_id <= -1_000_000_000_000 else "group"


class _Params:
    """A method's parameters, from a query string, a form, multipart data or a JSON body."""

    def __init__(self, values: Mapping[str, Any], files: Mapping[str, UploadedFile]) -> None:
        self.values = dict(values)
        self.files = dict(files)

    def has(self, name: str) -> bool:
        return self.values.get(name) not in (None, "")

    def raw(self, name: str) -> Any:
        return self.values.get(name)

    def string(self, name: str, *, required: bool = False, empty: str | None = None) -> str | None:
        value = self.values.get(name)
        if value is None or value == "":
            if required:
                raise bad_request(empty or f"{name} is empty")
            return None
        return value if isinstance(value, str) else json.dumps(value)

    def integer(self, name: str, *, required: bool = False) -> int | None:
        value = self.values.get(name)
        if value is None or value == "":
            if required:
                raise bad_request(f"{name} is empty")
            return None
        if isinstance(value, bool):
            raise bad_request(f"invalid {name} specified")
        try:
            return int(value)
        except (TypeError, ValueError):
            raise bad_request(f"invalid {name} specified") from None

    def number(self, name: str, default: float) -> float:
        value = self.values.get(name)
        if value is None or value == "":
            return default
        try:
            return float(value)
        except (TypeError, ValueError):
            raise bad_request(f"invalid {name} specified") from None

    def flag(self, name: str) -> bool:
        value = self.values.get(name)
        if isinstance(value, str):
            return value.lower() in ("true", "1")
        return bool(value)

    def json(self, name: str, error: str | None = None) -> Any:
        value = self.values.get(name)
        if value is None or value == "":
            return None
        if not isinstance(value, str):
            return value
        try:
            return json.loads(value)
        except ValueError:
            raise bad_request(error or f"can't parse {name} JSON object") from None


# ---------------------------------------------------------------------------------------------
# The server


class FakeTelegram:
    """A fake Bot API server on 127.0.0.1, started and stopped by `async with`.

    Point a bot at `base_url` (and `base_file_url`), then act as the people in its chats with
    `send_command`, `send_text`, `press` and `start_dm`, `await wait_idle()` and read what each
    chat shows with `transcript`, `current_messages`, `buttons` and `last_message`.
    """

    def __init__(
        self,
        *,
        token: str = DEFAULT_TOKEN,
        bot_username: str = "wizard_test_bot",
        bot_name: str = "Wizard",
        rate_limits: RateLimits | None = None,
        privacy_mode: bool = True,
        quiet: float = 0.05,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.token = token
        self.bot_id = int(token.split(":", 1)[0])
        self.bot_username = bot_username
        self.bot_name = bot_name
        self.rate_limits = rate_limits
        """The flood limits in force, or None for none (switch on and off at any time)."""
        self.privacy_mode = privacy_mode
        self.quiet = quiet
        """How long the server must see no request before `wait_idle` says the bot is idle."""
        self.clock = clock
        self.latency: Callable[[str, int | None], float] | None = None
        """Seconds a call (method, chat id) takes before it is applied, as a slow network may
        make it; None: at once. Calls then overtake each other as they do in reality."""
        self._stalls: dict[int, tuple[list[str], bool, frozenset[str] | None]] = {}
        self._unstalled = asyncio.Event()

        self.calls: Counter[str] = Counter()
        """Every Bot API call by method name (getUpdates included)."""
        self.chat_calls: dict[int, Counter[str]] = {}
        """Calls by chat id, then by method."""
        self.throttled: list[Throttle] = []
        """Every 429 the fake returned."""
        self.errors: list[ApiErrorRecord] = []
        """Every error the fake returned (429s included)."""
        self.unknown_methods: list[str] = []
        """Methods the bot called that the fake does not implement (answered 404)."""
        self.hidden_from_bot: list[JSON] = []
        """Group messages the bot was not sent because of its privacy mode."""
        self.webhook_deliveries: list[tuple[str, int, int]] = []
        """(url, update_id, HTTP status) of every update posted to a webhook."""

        self.commands: dict[tuple[str, str], list[JSON]] = {}
        """The bot's command lists by (scope key, language code), as setMyCommands left them."""
        self.profile: dict[str, str] = {}
        """The bot's name, description and short description (by language), as set."""

        self._users: dict[int, User] = {}
        self._started: set[int] = set()
        self._blocked: set[int] = set()
        self._chats: dict[int, _Chat] = {}
        self._queries: dict[str, _Query] = {}
        self._query_ids = itertools.count(1)
        self._files: dict[str, UploadedFile] = {}
        self._file_paths: dict[str, str] = {}
        self._file_ids = itertools.count(1)

        self._updates: deque[JSON] = deque()
        self._next_update_id = 500_000_001
        self._delivered_upto = 0
        self._allowed_updates: frozenset[str] = DEFAULT_UPDATE_TYPES
        self._poll_generation = 0
        self._polls_held = False
        self._wakeup = asyncio.Event()
        self._webhook: _Webhook | None = None
        self._deliveries: set[asyncio.Task[None]] = set()
        self._delivery_lock = asyncio.Lock()
        self._windows: dict[object, deque[float]] = {}

        self._inflight = 0
        self._last_activity = -math.inf
        self._closing = False
        self._runner: web.AppRunner | None = None
        self._session: ClientSession | None = None
        self._port = 0

    # -- lifecycle ------------------------------------------------------------------------

    async def start(self) -> None:
        """Listen on 127.0.0.1, on a free port."""
        app = web.Application(client_max_size=50 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_get("/file/bot{token}/{path:.+}", self._download)
        self._runner = web.AppRunner(
            app, access_log=None, handler_cancellation=True, shutdown_timeout=1.0
        )
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self._port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock).start()
        self._closing = False

    async def stop(self) -> None:
        """Answer pending long polls, cancel webhook deliveries and close the server."""
        self._closing = True
        self._wake()
        for task in list(self._deliveries):
            task.cancel()
        if self._deliveries:
            await asyncio.gather(*self._deliveries, return_exceptions=True)
        if self._session is not None:
            await self._session.close()
            self._session = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    @property
    def port(self) -> int:
        return self._port

    @property
    def base_url(self) -> str:
        """For PTB's `base_url`: the bot's token is appended, then `/method`."""
        return f"http://127.0.0.1:{self._port}/bot"

    @property
    def base_file_url(self) -> str:
        """For PTB's `base_file_url`: where files from getFile are downloaded."""
        return f"http://127.0.0.1:{self._port}/file/bot"

    @property
    def bot_user(self) -> JSON:
        """The bot's User object."""
        return {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": self.bot_name,
            "username": self.bot_username,
        }

    # -- chats and people -------------------------------------------------------------------

    def add_group(
        self,
        chat_id: int,
        title: str | None = None,
        *,
        chat_type: Literal["group", "supergroup", "channel"] | None = None,
        username: str | None = None,
        members: Iterable[User] = (),
        bot_admin: bool | None = None,
        forum: bool | None = None,
    ) -> None:
        """Add the bot to a group (a negative id) or change it; chats a test writes in are added
        anyway. Settings left out (None) keep their value. `forum`: a supergroup with topics;
        `chat_type` "channel": a channel (its admins post; nobody writes commands there)."""
        if chat_id >= 0:
            raise ValueError("group chats have negative ids")
        chat = self._chat(chat_id)
        chat.title = title or chat.title
        chat.type = chat_type or chat.type
        if forum is not None:
            if forum and chat.type != "supergroup":
                raise ValueError("only a supergroup has topics")
            chat.forum = forum
        chat.username = username or chat.username
        if bot_admin is not None:
            chat.bot_admin = bot_admin
        for user in members:
            self._know(user)
            chat.members.add(user.id)

    def add_topic(self, chat_id: int, name: str, by: User) -> int:
        """`by` opens a topic in the forum: its thread id, the id of the service message that
        opened it (as on Telegram)."""
        chat = self._chats[chat_id]
        if not chat.forum:
            raise ValueError(f"chat {chat_id} has no topics")
        self._know(by)
        message = self._new_message(chat, by.to_json(), from_bot=False)
        message.service = {"forum_topic_created": {"name": name, "icon_color": 7322096}}
        message.thread = message.message_id
        chat.topics.add(message.message_id)
        return message.message_id

    def close_topic(
        self, chat_id: int, thread: int | None, closed: bool = True, by: User | None = None
    ) -> None:
        """Close (or reopen) a forum topic; None: General. `by` closing it (or reopening it)
        posts the service message Telegram posts in the topic, which the bot gets."""
        chat = self._chats[chat_id]
        if thread is not None and thread not in chat.topics:
            raise LookupError(f"no topic {thread} in chat {chat_id}")
        (chat.closed.add if closed else chat.closed.discard)(thread)
        if by is not None:
            self._know(by)
            message = self._new_message(chat, by.to_json(), from_bot=False)
            message.service = {"forum_topic_closed" if closed else "forum_topic_reopened": {}}
            message.thread = thread
            self._enqueue(self._update({"message": self._message_json(message)}))

    def delete_topic(self, chat_id: int, thread: int) -> None:
        """An admin deletes a forum topic with all its messages: Telegram tells the bot
        nothing; a new message to it is refused ("message thread not found"), an edit of one
        of its messages too ("message to edit not found")."""
        chat = self._chats[chat_id]
        chat.topics.remove(thread)
        chat.closed.discard(thread)
        for message in chat.messages.values():
            if message.thread == thread:
                message.deleted = True

    def migrate_group(self, chat_id: int, new_id: int, by: User) -> None:
        """`by` upgrades the group to a supergroup, as Telegram does: the supergroup gets a new
        id (-100...), the same title and members, none of the old messages; the old group takes
        no more calls (400 with `migrate_to_chat_id`). The bot gets both service messages: the
        old group's `migrate_to_chat_id` and the new one's `migrate_from_chat_id`."""
        old = self._chat(chat_id)
        new = self._chat(new_id)
        new.type, new.title, new.username = "supergroup", old.title, old.username
        new.members |= old.members
        new.admins.update(old.admins)
        new.bot_admin = old.bot_admin
        for chat, field_, value in ((old, "migrate_to_chat_id", new_id),
                                    (new, "migrate_from_chat_id", chat_id)):  # fmt: skip
            message = self._new_message(chat, by.to_json(), from_bot=False)
            message.service = {field_: value}
            chat.transcript.append(
                Event("user", chat.id, message.message_id, f"({field_} {value})", user_id=by.id)
            )
            self._enqueue(self._update({"message": self._message_json(message)}))
        old.migrated_to = new_id

    def set_admin(
        self,
        chat_id: int,
        user: User,
        status: Literal["creator", "administrator", "member"] = "administrator",
    ) -> None:
        """Make `user` the group's creator, an administrator, or (back to) a plain member."""
        self._know(user)
        chat = self._chat(chat_id)
        chat.members.add(user.id)
        if status == "member":
            chat.admins.pop(user.id, None)
        else:
            chat.admins[user.id] = status

    def set_bot_admin(self, chat_id: int, admin: bool = True) -> None:
        """Make the bot an administrator of the group (it then sees every message)."""
        self._chat(chat_id).bot_admin = admin

    def remove_bot(self, chat_id: int) -> None:
        """Someone removed the bot from the group: it can no longer write there."""
        self._chat(chat_id).bot_removed = True

    def kick_bot(self, chat_id: int, user: User, *, enqueue: bool = True) -> JSON:
        """`user` removes the bot from the group (`remove_bot`), and Telegram tells the bot in
        a my_chat_member update (member -> left in a group, kicked in a supergroup)."""
        chat = self._chat(chat_id)
        was = self._member_json(chat, self.bot_id)
        self.remove_bot(chat_id)
        update = self._update(self._bot_membership(chat, user, was))
        if enqueue:
            self._enqueue(update)
        return update

    def mute_members(self, chat_id: int, muted: bool = True) -> None:
        """The group's default permissions let no member send messages (or do again): the bot,
        unless it is an admin, is refused its new messages there; Telegram tells it nothing
        (its own membership did not change)."""
        self._chat(chat_id).members_muted = muted

    def forbid_files(self, chat_id: int, forbidden: bool = True) -> None:
        """The group's default permissions let no member send photos or documents, text still
        allowed (or they do again): the bot, unless an admin, is refused its photos and
        documents there; Telegram tells it nothing."""
        self._chat(chat_id).members_no_files = forbidden

    def restrict_bot_files(self, chat_id: int, user: User, *, forbidden: bool = True) -> JSON:
        """`user` lets the bot send text but no photos or documents in the group (or lifts it),
        and Telegram tells the bot in a my_chat_member update (member -> restricted with
        `can_send_photos` and `can_send_documents` false; or back)."""
        chat = self._chat(chat_id)
        was = self._member_json(chat, self.bot_id)
        chat.bot_no_files = forbidden
        return self.inject(self._bot_membership(chat, user, was))

    def restrict_bot(self, chat_id: int, user: User, *, muted: bool = True) -> JSON:
        """`user` mutes the bot in the group (or lifts it), and Telegram tells the bot in a
        my_chat_member update (member -> restricted, with `can_send_messages` false; or back)."""
        chat = self._chat(chat_id)
        was = self._member_json(chat, self.bot_id)
        chat.bot_muted = muted
        return self.inject(self._bot_membership(chat, user, was))

    def _bot_membership(
        self, chat: _Chat, user: User, was: JSON, status: str | None = None
    ) -> JSON:
        """The my_chat_member update that tells the bot `user` changed its membership of
        `chat` from `was` to what it is now (or to `status`)."""
        return {
            "my_chat_member": {
                "chat": chat.to_json(),
                "from": user.to_json(),
                "date": int(time.time()),
                "old_chat_member": was,
                "new_chat_member": self._member_json(chat, self.bot_id, status),
            }
        }

    def delete_message(self, chat_id: int, message_id: int) -> None:
        """An admin deletes a message of the bot's in a group: Telegram tells the bot nothing;
        an edit of it is refused after ("message to edit not found")."""
        chat = self._chats[chat_id]
        message = chat.messages[message_id]
        assert not message.deleted, "deleted already"
        message.deleted = True
        chat.transcript.append(Event("delete", chat.id, message_id, at=self.clock()))

    def stall(
        self, chat_id: int, applied: bool = False, methods: Iterable[str] | None = None
    ) -> list[str]:
        """Telegram is slow to answer for chat `chat_id`: each call for it (of `methods`, if
        given: `sendMessage`, the posts of a busy group, but not `getChatMember`) is read and
        then waits, not yet applied, until `unstall`; with `applied`, it is applied at once (its
        answer, or its refusal, decided then) and the answer waits. The methods of the calls
        held, in the order they came (a list the fake adds to), show what the bot has on its
        way."""
        held: list[str] = []
        self._stalls[chat_id] = (held, applied, None if methods is None else frozenset(methods))
        return held

    async def _held(self, chat_id: int | None, method: str, applied: bool) -> None:
        """A call for a chat `stall`ed (before it is applied, or, `applied`, after) waits until
        `unstall` lifts that stall: a `stall` right after it holds the later calls only."""
        stall = None if chat_id is None else self._stalls.get(chat_id)
        if stall is None or stall[1] is not applied or method not in (stall[2] or {method}):
            return
        stall[0].append(method)
        while self._stalls.get(chat_id) is stall:
            await self._unstalled.wait()

    @property
    def hold_polls(self) -> bool:
        """Whether long polls go unanswered, as over a dead connection or through a proxy that
        swallows them: set True, each getUpdates (those waiting already too) is read and then
        waits, its connection open and no answer sent, until it is set False again (each is then
        answered as usual, at once if its timeout has passed) or the fake stops. Set it False
        before the bot stops polling: PTB's last getUpdates would wait too."""
        return self._polls_held

    @hold_polls.setter
    def hold_polls(self, held: bool) -> None:
        self._polls_held = held
        self._wake()

    def unstall(self, chat_id: int) -> None:
        """The calls held for chat `chat_id` (`stall`) are applied, in the order they came
        (as near as the event loop goes), and later ones at once."""
        del self._stalls[chat_id]
        self._unstalled.set()
        self._unstalled = asyncio.Event()

    def block(self, user: User, blocked: bool = True, *, tell: bool = False) -> JSON | None:
        """The person blocks the bot (it can no longer write to them), or unblocks it in their
        settings without pressing Start (it can write to them again). With `tell`, Telegram
        tells the bot, as it does, in a my_chat_member update of their private chat (member ->
        kicked, or back), returned; without, that update has not come yet (a message of the
        bot's to them may fail first)."""
        self._know(user)
        if blocked:
            self._blocked.add(user.id)
        else:
            self._blocked.discard(user.id)
        if not tell:
            return None
        chat = self._chat(user.id, user)
        was, now = ("member", "kicked") if blocked else ("kicked", "member")
        was_json = self._member_json(chat, self.bot_id, was)
        return self.inject(self._bot_membership(chat, user, was_json, now))

    def has_started(self, user: User | int) -> bool:
        """Whether the person opened the bot, so that it may write to them."""
        return (user.id if isinstance(user, User) else user) in self._started

    # -- what people do ---------------------------------------------------------------------

    def send_text(
        self,
        chat_id: int,
        user: User,
        text: str,
        *,
        reply_to: int | None = None,
        enqueue: bool = True,
        thread: int | None = None,
        mentions: Mapping[str, User] | None = None,
    ) -> JSON:
        """`user` sends `text` in the chat (`chat_id` == `user.id` for their private chat), in
        the forum topic `thread` if given (else General). `mentions`: the first occurrence of
        each key in `text` mentions that person by a `text_mention` entity (as a client makes
        for a person picked who has no username: it carries their User).

        Returns the Update; it is queued for the bot (posted to its webhook if one is set) unless
        `enqueue` is false (deliver it yourself with `post_update_to`) or privacy mode keeps a
        group message from the bot (see `hidden_from_bot`)."""
        self._know(user)
        if chat_id > 0 and chat_id != user.id:
            raise ValueError("a private chat's id is the person's user id")
        chat = self._chat(chat_id, user if chat_id > 0 else None)
        if chat.type == "private":
            self._started.add(user.id)  # a person who writes to the bot has opened it
            self._blocked.discard(user.id)
        else:
            chat.members.add(user.id)
        entities: list[JSON] = []
        command = re.match(r"/[A-Za-z0-9_]+(@[A-Za-z0-9_]+)?", text)
        if command:
            entities.append(
                {"offset": 0, "length": utf16_len(command.group(0)), "type": "bot_command"}
            )
        for shown, person in (mentions or {}).items():
            start = text.index(shown)
            self._know(person)
            entities.append(
                {
                    "offset": utf16_len(text[:start]),
                    "length": utf16_len(shown),
                    "type": "text_mention",
                    "user": person.to_json(),
                }
            )
        if reply_to is not None:
            target = chat.messages.get(reply_to)
            if target is None or target.deleted:
                raise LookupError(f"no message {reply_to} in chat {chat_id} to reply to")
        if thread is not None and thread not in chat.topics:
            raise LookupError(f"no topic {thread} in chat {chat_id}")
        message = self._new_message(chat, user.to_json(), from_bot=False)
        message.text = text
        message.thread = thread
        message.entities = entities
        message.reply_to = reply_to
        chat.transcript.append(
            Event(
                "user", chat_id, message.message_id, text, user_id=user.id, reply_to=reply_to,
                at=self.clock(), thread=thread,
            )
        )  # fmt: skip
        update = self._update({"message": self._message_json(message)})
        if enqueue:
            if self._bot_sees(chat, message, command):
                self._enqueue(update)
            else:
                self.hidden_from_bot.append(update)
        return update

    def send_command(
        self,
        chat_id: int,
        user: User,
        command: str,
        *,
        enqueue: bool = True,
        thread: int | None = None,
        reply_to: int | None = None,
        mentions: Mapping[str, User] | None = None,
    ) -> JSON:
        """`user` sends a command ("/join", "/bid 2", "/start@bot_name") in the chat (in the
        forum topic `thread`, if given; in reply to the message `reply_to`; mentioning people,
        see `send_text`)."""
        if not command.startswith("/"):
            raise ValueError("a command starts with '/'")
        return self.send_text(
            chat_id,
            user,
            command,
            enqueue=enqueue,
            thread=thread,
            reply_to=reply_to,
            mentions=mentions,
        )

    def send_as_chat(
        self, chat_id: int, text: str, *, channel: int | None = None, title: str | None = None
    ) -> int:
        """A group's message sent in a chat's name, not a person's: an anonymous admin's (from
        the stand-in bot @GroupAnonymousBot, `sender_chat` the group) or, with `channel`, a post
        of the group's linked channel forwarded into it (from @Channel_Bot, `sender_chat` the
        channel, titled `title` or "Channel <id>", `is_automatic_forward`). The bot is told of
        it only if it is a command for it (privacy mode), as of a person's; its id."""
        chat = self._chat(chat_id)
        if channel is None:
            sender, sender_chat = ANONYMOUS_ADMIN, chat.to_json()
        else:
            sender = CHANNEL_BOT
            named = title or f"Channel {abs(channel)}"
            sender_chat = {"id": channel, "type": "channel", "title": named}
        message = self._new_message(chat, dict(sender), from_bot=False)
        message.text = text
        message.service = {"sender_chat": sender_chat}
        if channel is not None:
            message.service["is_automatic_forward"] = True
        command = re.match(r"/[A-Za-z0-9_]+(@[A-Za-z0-9_]+)?", text)
        if command:
            length = utf16_len(command.group(0))
            message.entities = [{"offset": 0, "length": length, "type": "bot_command"}]
        chat.transcript.append(
            Event("user", chat_id, message.message_id, text, user_id=sender["id"], at=self.clock())
        )
        if command and self._bot_sees(chat, message, command):
            self._enqueue(self._update({"message": self._message_json(message)}))
        return message.message_id

    def start_dm(self, user: User, payload: str | None = None) -> JSON:
        """`user` opens the bot (taps Start): "/start" in their private chat; from now on the
        bot may write to them. `payload` is a deep link's parameter ("/start PAYLOAD"). One who
        blocked the bot taps Restart: Telegram tells the bot of the unblocking first (`block`)."""
        self._know(user)
        self._started.add(user.id)
        if user.id in self._blocked:
            self.block(user, blocked=False, tell=True)
        text = "/start" if payload is None else f"/start {payload}"
        return self.send_text(user.id, user, text)

    def press(
        self,
        chat_id: int,
        user: User,
        message_id: int,
        callback_data: str,
        *,
        stale: bool = False,
        enqueue: bool = True,
        expired: bool = False,
    ) -> JSON:
        """`user` presses the button with `callback_data` under the message: a callback_query.

        The button must be on the message now (LookupError otherwise) unless `stale`: a press on
        a keyboard the person still saw while the bot was already replacing it. `expired`: the
        bot comes to it too late to answer it (Telegram refuses the answer as too old)."""
        self._know(user)
        chat = self._chat(chat_id, user if chat_id > 0 else None)
        message = chat.messages.get(message_id)
        if message is None or message.deleted:
            raise LookupError(f"no message {message_id} in chat {chat_id}")
        offered = [b.callback_data for row in message.keyboard for b in row]
        if not stale and callback_data not in offered:
            raise LookupError(
                f"message {message_id} in chat {chat_id} has no button {callback_data!r}: "
                f"it offers {offered}"
            )
        if chat.type != "private":
            chat.members.add(user.id)
        query_id = f"{self.bot_id % 100_000}{next(self._query_ids):013d}"
        self._queries[query_id] = _Query(
            query_id, chat_id, message_id, user, callback_data, expired=expired
        )
        chat.transcript.append(
            Event(
                "press", chat_id, message_id, user_id=user.id, callback_data=callback_data,
                at=self.clock(), thread=message.thread,
            )
        )  # fmt: skip
        query = {
            "id": query_id,
            "from": user.to_json(),
            "message": self._message_json(message),
            "chat_instance": str((abs(chat_id) * 1_000_003 + self.bot_id) % 10**19),
            "data": callback_data,
        }
        update = self._update({"callback_query": query})
        if enqueue:
            self._enqueue(update)
        return update

    def press_label(self, chat_id: int, user: User, message_id: int, label: str) -> JSON:
        """Press the button labelled `label` under the message."""
        for row in self.buttons(chat_id, message_id):
            for button in row:
                if button.text == label and button.callback_data is not None:
                    return self.press(chat_id, user, message_id, button.callback_data)
        raise LookupError(f"message {message_id} in chat {chat_id} has no button {label!r}")

    def add_bot_to_group(
        self, chat_id: int, user: User, title: str | None = None, *, enqueue: bool = True
    ) -> JSON:
        """`user` adds the bot to a group: a my_chat_member update (left -> member)."""
        self.add_group(chat_id, title)
        chat = self._chat(chat_id)
        chat.members.add(user.id)
        chat.bot_removed = False
        self._know(user)
        status = "administrator" if chat.bot_admin else "member"
        was = {"user": self.bot_user, "status": "left"}
        update = self._update(self._bot_membership(chat, user, was, status))
        if enqueue:
            self._enqueue(update)
        return update

    def inject(self, update: Mapping[str, Any]) -> JSON:
        """Queue any Update object (without `update_id`: it gets the next one)."""
        full = self._update(dict(update))
        self._enqueue(full)
        return full

    # -- what chats show --------------------------------------------------------------------

    def transcript(self, chat_id: int) -> list[Event]:
        """Everything that happened in the chat, in order."""
        chat = self._chats.get(chat_id)
        return list(chat.transcript) if chat else []

    def current_messages(
        self, chat_id: int, *, include_users: bool = False
    ) -> dict[int, MessageView]:
        """The messages the chat shows now (the bot's; the people's too if `include_users`),
        by message id, with their current text and inline keyboard."""
        chat = self._chats.get(chat_id)
        if chat is None:
            return {}
        return {
            m.message_id: self._view(m)
            for m in chat.messages.values()
            if not m.deleted and (m.from_bot or include_users)
        }

    def message(self, chat_id: int, message_id: int) -> MessageView:
        """One message as the chat shows it now (LookupError when absent or deleted)."""
        chat = self._chats.get(chat_id)
        found = chat.messages.get(message_id) if chat else None
        if found is None or found.deleted:
            raise LookupError(f"no message {message_id} in chat {chat_id}")
        return self._view(found)

    def buttons(self, chat_id: int, message_id: int) -> Keyboard:
        """The inline keyboard under the message now."""
        return self.message(chat_id, message_id).keyboard

    def last_message(self, chat_id: int) -> MessageView:
        """The bot's most recent message in the chat that is still there."""
        shown = self.current_messages(chat_id)
        if not shown:
            raise LookupError(f"the bot shows no message in chat {chat_id}")
        return shown[max(shown)]

    def callback_answer(self, query_id: str) -> Event | None:
        """The bot's answer to a button press (None while unanswered)."""
        return self._queries[query_id].answered

    def unanswered_presses(self) -> list[JSON]:
        """Presses the bot never answered (their clients would show a spinner)."""
        return [
            {"id": q.id, "chat_id": q.chat_id, "message_id": q.message_id, "data": q.data}
            for q in self._queries.values()
            if q.answered is None
        ]

    def document(self, chat_id: int, message_id: int) -> UploadedFile:
        """The file the bot sent as this message."""
        chat = self._chats.get(chat_id)
        found = chat.messages.get(message_id) if chat else None
        if found is None or found.document is None:
            raise LookupError(f"no document {message_id} in chat {chat_id}")
        return found.document

    def format_transcript(self, chat_id: int) -> str:
        """The chat's transcript as lines of text, for reading a failed test or a golden file."""
        lines: list[str] = []
        for e in self.transcript(chat_id):
            who = self._name(e.user_id)
            keys = " ".join("[" + " | ".join(b.text for b in row) + "]" for row in e.keyboard)
            body = e.text + (f"\n    {keys}" if keys else "")
            if e.kind == "user":
                lines.append(f"#{e.message_id} {who}: {e.text}")
            elif e.kind == "press":
                lines.append(f"  {who} presses {e.callback_data!r} on #{e.message_id}")
            elif e.kind == "message":
                reply = f" (reply to #{e.reply_to})" if e.reply_to else ""
                silent = " (silent)" if e.silent else ""
                lines.append(f"#{e.message_id} bot{reply}{silent}: {body}")
            elif e.kind == "document":
                size = len(e.data or b"")
                lines.append(f"#{e.message_id} bot sends {e.file_name} ({size} bytes): {body}")
            elif e.kind == "photo":
                width, height = png_size(e.data or b"")
                lines.append(f"#{e.message_id} bot sends picture {width}×{height}: {body}")
            elif e.kind == "edit":
                lines.append(f"#{e.message_id} edited: {body}")
            elif e.kind == "delete":
                lines.append(f"#{e.message_id} deleted")
            elif e.kind == "answer":
                style = "alert" if e.show_alert else "toast"
                lines.append(f"  ({style} to {who}: {e.text})" if e.text else f"  (ack {who})")
                if e.url:
                    lines.append(f"  (opens for {who}: {e.url})")
            else:
                lines.append(f"#{e.message_id} {'unpinned' if e.text == 'unpin' else 'pinned'}")
        return "\n".join(lines)

    def total_calls(self, *, chat_id: int | None = None, polling: bool = False) -> int:
        """Bot API calls made (in one chat if `chat_id`), not counting getUpdates unless
        `polling`."""
        counts = self.calls if chat_id is None else self.chat_calls.get(chat_id, Counter())
        return sum(n for m, n in counts.items() if polling or m != "getUpdates")

    def reset_stats(self) -> None:
        """Forget the call counters, throttles and errors (e.g. between benchmark games)."""
        self.calls.clear()
        self.chat_calls.clear()
        self.throttled.clear()
        self.errors.clear()
        self.unknown_methods.clear()

    # -- waiting ----------------------------------------------------------------------------

    @property
    def pending_updates(self) -> int:
        """Updates queued that the bot has not fetched yet."""
        return sum(1 for u in self._updates if u["update_id"] > self._delivered_upto)

    @property
    def unconfirmed_updates(self) -> int:
        """Updates the bot has not confirmed yet: a long-polling bot confirms those it fetched
        by asking for the next ones, once it has taken them in (PTB: into its update queue)."""
        return len(self._updates)

    @property
    def last_activity(self) -> float:
        """When (time.monotonic) the server last saw a call or handed out an update."""
        return self._last_activity

    async def wait_idle(
        self, timeout: float = 10.0, quiet: float | None = None, *, taken_in: bool = False
    ) -> None:
        """Wait until the bot has fetched every update and the server has seen no request for
        `quiet` seconds (default `self.quiet`); TimeoutError after `timeout` seconds.
        `taken_in`: and every update is confirmed too (`unconfirmed_updates`), so a polling
        bot has queued every one it fetched (PTB asks for the next ones after that)."""
        quiet = self.quiet if quiet is None else quiet
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            now = time.monotonic()
            busy = bool(self.pending_updates or self._inflight or self._deliveries)
            busy = busy or (taken_in and bool(self._updates))
            if not busy and now - self._last_activity >= quiet:
                return
            if loop.time() > deadline:
                raise TimeoutError(
                    f"the bot is not idle after {timeout}s: {self.pending_updates} update(s) "
                    f"not fetched, {len(self._updates)} not confirmed, "
                    f"{self._inflight} request(s) in flight, "
                    f"{len(self._deliveries)} webhook delivery(ies) pending"
                )
            await asyncio.sleep(0.005)

    # -- webhooks ---------------------------------------------------------------------------

    async def post_update_to(
        self, url: str, update: Mapping[str, Any], secret_token: str | None = None
    ) -> int:
        """POST `update` to a bot's webhook endpoint as Telegram does (JSON body, the header
        X-Telegram-Bot-Api-Secret-Token when a secret is given). Returns the HTTP status.

        Only loopback addresses are allowed: tests never send traffic off this machine."""
        host = urlsplit(url).hostname or ""
        if host not in LOOPBACK_HOSTS:
            raise ValueError(f"refusing to post an update to a non-loopback host: {url}")
        if self._session is None:
            self._session = ClientSession(timeout=ClientTimeout(total=30))
        headers = {"Content-Type": "application/json"}
        if secret_token:
            headers["X-Telegram-Bot-Api-Secret-Token"] = secret_token
        self._inflight += 1
        try:
            async with self._session.post(url, data=json.dumps(update), headers=headers) as resp:
                await resp.read()
                status = resp.status
        finally:
            self._inflight -= 1
            self._last_activity = time.monotonic()
        self.webhook_deliveries.append((url, int(update.get("update_id", 0)), status))
        return status

    @property
    def webhook_url(self) -> str | None:
        """The URL the bot set with setWebhook (None while it polls)."""
        return self._webhook.url if self._webhook else None

    # -- internals: state -------------------------------------------------------------------

    def _know(self, user: User) -> None:
        self._users[user.id] = user

    def _name(self, user_id: int | None) -> str:
        if user_id is None:
            return "?"
        user = self._users.get(user_id)
        return user.first_name if user else str(user_id)

    def _chat(self, chat_id: int, user: User | None = None) -> _Chat:
        chat = self._chats.get(chat_id)
        if chat is None:
            chat = _Chat(chat_id, chat_type_of(chat_id), user=user)
            if chat_id < 0:
                chat.title = f"Group {abs(chat_id)}"
            self._chats[chat_id] = chat
        elif user is not None:
            chat.user = user
        return chat

    def _new_message(self, chat: _Chat, sender: JSON, *, from_bot: bool) -> _Message:
        message = _Message(chat.id, chat.next_message_id, int(time.time()), sender, from_bot)
        chat.next_message_id += 1
        chat.messages[message.message_id] = message
        return message

    def _view(self, m: _Message) -> MessageView:
        return MessageView(
            message_id=m.message_id,
            text=m.shown_text,
            keyboard=m.keyboard,
            from_bot=m.from_bot,
            user_id=None if m.from_bot else int(m.sender["id"]),
            edited=m.edit_date is not None,
            reply_to=m.reply_to,
            file_name=(m.document or m.photo).file_name if (m.document or m.photo) else None,
            entities=tuple(m.entities or m.caption_entities),
            thread=m.thread,
        )

    def _message_json(self, m: _Message, *, nested: bool = False) -> JSON:
        chat = self._chats[m.chat_id]
        data: JSON = {
            "message_id": m.message_id,
            "from": m.sender,
            "chat": chat.to_json(),
            "date": m.date,
        }
        if m.edit_date is not None:
            data["edit_date"] = m.edit_date
        if m.thread is not None:
            data["message_thread_id"] = m.thread
            data["is_topic_message"] = True
        replied = m.reply_to
        if replied is None and m.thread is not None and m.thread != m.message_id:
            replied = m.thread  # a topic's message that replies to nothing: to its first one
        if replied is not None and not nested:
            target = chat.messages.get(replied)
            if target is not None and not target.deleted:
                data["reply_to_message"] = self._message_json(target, nested=True)
        if m.text is not None:
            data["text"] = m.text
            if m.entities:
                data["entities"] = m.entities
        if m.document is not None:
            data["document"] = m.document.to_json()
        if m.photo is not None:
            width, height = png_size(m.photo.data)
            data["photo"] = [
                {
                    "file_id": m.photo.file_id,
                    "file_unique_id": m.photo.file_unique_id,
                    "width": width,
                    "height": height,
                    "file_size": len(m.photo.data),
                }
            ]
        if m.caption:
            data["caption"] = m.caption
            if m.caption_entities:
                data["caption_entities"] = m.caption_entities
        if m.markup is not None:
            data["reply_markup"] = m.markup
        data.update(m.service)
        return data

    def _member_json(self, chat: _Chat, user_id: int, status: str | None = None) -> JSON:
        user = self.bot_user if user_id == self.bot_id else self._users[user_id].to_json()
        if status is None:
            if user_id == self.bot_id:
                status = "administrator" if chat.bot_admin else "member"
                if chat.bot_muted or chat.bot_no_files:
                    status = "restricted"
                if chat.bot_removed:
                    status = "kicked" if chat.type == "supergroup" else "left"
            elif chat.type == "private":
                status = "member"
            else:
                status = chat.admins.get(user_id) or (
                    "member" if user_id in chat.members else "left"
                )
        data: JSON = {"status": status, "user": user}
        if status == "creator":
            data["is_anonymous"] = False
        elif status == "administrator":
            data.update(
                can_be_edited=False,
                is_anonymous=False,
                can_manage_chat=True,
                can_delete_messages=True,
                can_manage_video_chats=True,
                can_restrict_members=True,
                can_promote_members=False,
                can_change_info=True,
                can_invite_users=True,
                can_post_stories=False,
                can_edit_stories=False,
                can_delete_stories=False,
                can_pin_messages=True,
                can_manage_topics=False,
            )
        elif status == "restricted":
            allowed = not chat.bot_muted
            data.update(is_member=True, until_date=0)
            data.update(dict.fromkeys(RESTRICTED_RIGHTS, allowed))
            if chat.bot_no_files:
                data.update(can_send_photos=False, can_send_documents=False)
        elif status == "kicked":
            data["until_date"] = 0
        return data

    def _bot_sees(self, chat: _Chat, message: _Message, command: re.Match[str] | None) -> bool:
        if chat.type == "private" or not self.privacy_mode or chat.bot_admin:
            return True
        if command is not None:
            suffix = command.group(1)
            return suffix is None or suffix[1:].lower() == self.bot_username.lower()
        if message.reply_to is not None:
            target = chat.messages.get(message.reply_to)
            return target is not None and target.from_bot
        return False

    # -- internals: updates -----------------------------------------------------------------

    def _update(self, body: JSON) -> JSON:
        update = {"update_id": self._next_update_id, **body}
        self._next_update_id += 1
        return update

    def _enqueue(self, update: JSON) -> None:
        if self._webhook is not None:
            self._updates.append(update)
            task = asyncio.get_running_loop().create_task(self._deliver(update))
            self._deliveries.add(task)
            task.add_done_callback(self._deliveries.discard)
            return
        self._updates.append(update)
        self._wake()

    def _wake(self) -> None:
        self._wakeup.set()
        self._wakeup = asyncio.Event()

    async def _deliver(self, update: JSON) -> None:
        async with self._delivery_lock:  # one at a time, in order, like Telegram per bot
            hook = self._webhook
            if hook is None:  # deleted meanwhile: back to the getUpdates queue
                self._wake()
                return
            kind = next(k for k in update if k != "update_id")
            allowed = frozenset(hook.allowed_updates or ()) or DEFAULT_UPDATE_TYPES
            if kind in allowed:
                try:
                    status = await self.post_update_to(hook.url, update, hook.secret_token)
                except (OSError, ClientError, ValueError, TimeoutError) as exc:
                    status = 0
                    hook.last_error_message = str(exc) or type(exc).__name__
                if not 200 <= status < 300:
                    hook.last_error_date = int(time.time())
                    hook.last_error_message = (
                        hook.last_error_message or f"Wrong response from the webhook: {status}"
                    )
            with contextlib.suppress(ValueError):
                self._updates.remove(update)
            self._delivered_upto = max(self._delivered_upto, update["update_id"])

    def _confirm(self, offset: int | None) -> None:
        if offset is None:
            return
        if offset < 0:
            keep = -offset
            while len(self._updates) > keep:
                self._updates.popleft()
            return
        while self._updates and self._updates[0]["update_id"] < offset:
            self._updates.popleft()

    def _take(self, limit: int) -> list[JSON]:
        batch: list[JSON] = []
        for update in list(self._updates):
            kind = next(k for k in update if k != "update_id")
            if kind not in self._allowed_updates:
                self._updates.remove(update)
                self._delivered_upto = max(self._delivered_upto, update["update_id"])
                continue
            batch.append(update)
            if len(batch) >= limit:
                break
        if batch:
            self._delivered_upto = max(self._delivered_upto, batch[-1]["update_id"])
        return batch

    # -- internals: flood limits ------------------------------------------------------------

    def _spend(self, method: str, chat: _Chat) -> None:
        """Count one message against the flood limits, or refuse it with 429."""
        limits = self.rate_limits
        if limits is None:
            return
        now = self.clock()
        scope: Literal["group", "private"] = "private" if chat.type == "private" else "group"
        checks: list[tuple[object, tuple[int, float], Literal["group", "private", "overall"]]] = [
            (chat.id, limits.private if scope == "private" else limits.group, scope),
            ("overall", limits.overall, "overall"),
        ]
        for key, (count, seconds), name in checks:
            window = self._windows.setdefault(key, deque())
            while window and window[0] <= now - seconds:
                window.popleft()
            if len(window) >= count:
                retry = max(1, math.ceil(window[0] + seconds - now))
                self.throttled.append(Throttle(method, chat.id, retry, name, now))
                raise ApiError(
                    429, f"Too Many Requests: retry after {retry}", {"retry_after": retry}
                )
        for key, _, _ in checks:
            self._windows[key].append(now)

    # -- internals: HTTP --------------------------------------------------------------------

    async def _download(self, request: web.Request) -> web.StreamResponse:
        if request.match_info["token"] != self.token:
            return web.json_response(ApiError(401, "Unauthorized").to_json(), status=401)
        file_id = self._file_paths.get(request.match_info["path"])
        if file_id is None:
            return web.json_response(ApiError(404, "Not Found").to_json(), status=404)
        return web.Response(body=self._files[file_id].data)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        raw_method = request.match_info["method"]
        method = METHOD_NAMES.get(raw_method.lower(), raw_method)
        polling = method == "getUpdates"
        if not polling:
            self._inflight += 1
            self._last_activity = time.monotonic()
        chat_id: int | None = None
        try:
            if request.match_info["token"] != self.token:
                raise ApiError(401, "Unauthorized")
            params = await self._read_params(request)
            chat_id = self._chat_id_of(method, params)
            self.calls[method] += 1
            if chat_id is not None:
                self.chat_calls.setdefault(chat_id, Counter())[method] += 1
            handler = HANDLERS.get(method)
            if handler is None:
                self.unknown_methods.append(raw_method)
                raise ApiError(404, "Not Found")
            if self.latency is not None and not polling:
                await asyncio.sleep(self.latency(method, chat_id))
            if not polling:
                await self._held(chat_id, method, applied=False)
            try:
                outcome = await handler(self, params)
            finally:
                if not polling:
                    await self._held(chat_id, method, applied=True)
            body: JSON = {"ok": True, "result": outcome}
            if isinstance(outcome, _Described):
                body = {"ok": True, "result": outcome.result, "description": outcome.text}
            if polling and outcome:
                self._last_activity = time.monotonic()
            return web.json_response(body)
        except ApiError as error:
            self.errors.append(ApiErrorRecord(method, chat_id, error.code, error.description))
            return web.json_response(error.to_json(), status=error.code)
        except Exception as exc:  # a bug of the fake (or input it never expected): say so
            internal = ApiError(500, f"Internal Server Error: fake_telegram: {exc!r}")
            self.errors.append(ApiErrorRecord(method, chat_id, 500, internal.description))
            return web.json_response(internal.to_json(), status=500)
        finally:
            if not polling:
                self._inflight -= 1
                self._last_activity = time.monotonic()

    async def _read_params(self, request: web.Request) -> _Params:
        values: dict[str, Any] = dict(request.query)
        files: dict[str, UploadedFile] = {}
        if request.method == "POST" and request.can_read_body:
            if request.content_type == "application/json":
                try:
                    body = await request.json()
                except ValueError:
                    raise bad_request("can't parse JSON body") from None
                if not isinstance(body, dict):
                    raise bad_request("the JSON body must be an object")
                values.update(body)
            else:
                form = await request.post()
                for name, value in form.items():
                    if isinstance(value, web.FileField):
                        data = value.file.read()
                        files[name] = self._store_file(
                            value.filename or name, data, value.content_type
                        )
                    else:
                        values[name] = value
        return _Params(values, files)

    def _store_file(self, name: str, data: bytes, mime_type: str | None) -> UploadedFile:
        n = next(self._file_ids)
        return UploadedFile(
            file_id=f"BQACAgIAAxkDAAI{n:06d}{self.bot_id % 1000:03d}",
            file_unique_id=f"AgAD{n:06d}",
            file_name=name,
            data=data,
            mime_type=mime_type or "application/octet-stream",
        )

    def _chat_id_of(self, method: str, params: _Params) -> int | None:
        if method == "answerCallbackQuery":
            query = self._queries.get(params.string("callback_query_id") or "")
            return query.chat_id if query else None
        value = params.raw("chat_id")
        if value is None or value == "":
            return None
        if isinstance(value, str) and value.startswith("@"):
            found = self._by_username(value)
            return found.id if found else None
        try:
            return int(value)
        except (TypeError, ValueError):
            return None

    def _by_username(self, name: str) -> _Chat | None:
        wanted = name.removeprefix("@").lower()
        return next(
            (c for c in self._chats.values() if c.username and c.username.lower() == wanted),
            None,
        )

    def _target_chat(self, params: _Params, *, sending: bool) -> _Chat:
        """The chat named by chat_id, checking that the bot may write there when `sending`."""
        value = params.raw("chat_id")
        if value is None or value == "":
            raise bad_request("chat_id is empty")
        if isinstance(value, str) and value.startswith("@"):
            found = self._by_username(value)
            if found is None:
                raise bad_request("chat not found")
            chat_id = found.id
        else:
            chat_id = params.integer("chat_id", required=True) or 0
        chat = self._chats.get(chat_id)
        if chat_id > 0:
            if chat_id not in self._users:
                raise bad_request("chat not found")
            if sending and chat_id in self._blocked:
                raise ApiError(403, "Forbidden: bot was blocked by the user")
            if sending and chat_id not in self._started:
                raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")
            return self._chat(chat_id, self._users[chat_id])
        if chat is None:
            raise bad_request("chat not found")
        if chat.bot_removed and sending:
            kind = "supergroup" if chat.type == "supergroup" else "group"
            raise ApiError(403, f"Forbidden: bot was kicked from the {kind} chat")
        if chat.migrated_to is not None:
            raise ApiError(
                400,
                "Bad Request: group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": chat.migrated_to},
            )
        return chat

    def _markup(self, params: _Params, chat: _Chat) -> JSON | None:
        markup = params.json("reply_markup", "can't parse reply keyboard markup JSON object")
        if markup is None:
            return None
        if not isinstance(markup, dict):
            raise bad_request("can't parse reply keyboard markup JSON object")
        if "inline_keyboard" not in markup:
            # A reply keyboard, its removal or force_reply: the client shows it, but messages
            # never carry it (only inline keyboards belong to a message).
            if not {"keyboard", "remove_keyboard", "force_reply"} & set(markup):
                raise bad_request("can't parse reply keyboard markup JSON object")
            return None
        rows = markup["inline_keyboard"]
        if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
            raise bad_request(
                'field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays'
            )
        clean: list[list[JSON]] = []
        for row in rows:
            clean_row: list[JSON] = []
            for button in row:
                if (
                    not isinstance(button, dict)
                    or not button.get("text")
                    or not isinstance(button["text"], str)
                ):
                    raise bad_request("can't parse inline keyboard button: Text must be non-empty")
                actions = [a for a in BUTTON_ACTIONS if a in button]
                if not actions:
                    raise bad_request(
                        "can't parse inline keyboard button: "
                        "Text buttons are unallowed in the inline keyboard"
                    )
                data = button.get("callback_data")
                if data is not None and not 1 <= len(str(data).encode()) <= 64:
                    raise bad_request("BUTTON_DATA_INVALID")
                url = button.get("url")
                if url is not None and not re.match(r"(https?|tg)://\S+", str(url)):
                    raise bad_request("BUTTON_URL_INVALID")
                app = button.get("web_app")
                if app is not None:
                    if chat.type != "private":
                        raise bad_request("BUTTON_TYPE_INVALID")
                    if not isinstance(app, dict) or not re.match(
                        r"https://\S+", str(app.get("url"))
                    ):
                        raise bad_request("BUTTON_URL_INVALID")
                clean_row.append({k: v for k, v in button.items() if v is not None})
            if clean_row:
                clean.append(clean_row)
        return {"inline_keyboard": clean} if clean else None  # an empty keyboard is none

    def _reply_target(self, chat: _Chat, params: _Params) -> int | None:
        reply = params.json("reply_parameters")
        allow = params.flag("allow_sending_without_reply")
        message_id = params.integer("reply_to_message_id")
        if isinstance(reply, dict):
            message_id = int(reply["message_id"]) if "message_id" in reply else None
            allow = bool(reply.get("allow_sending_without_reply", allow))
        if message_id is None:
            return None
        target = chat.messages.get(message_id)
        if target is None or target.deleted:
            if allow:
                return None
            raise bad_request("message to be replied not found")
        return message_id

    def _unmuted(self, chat: _Chat, what: str) -> None:
        """A new message of the bot is refused where it is muted (itself, or every member)."""
        if chat.bot_muted or (chat.members_muted and not chat.bot_admin):
            raise bad_request(f"not enough rights to send {what} to the chat")

    def _files_allowed(self, chat: _Chat, what: str) -> None:
        """A photo or document of the bot is refused where files are not allowed (to the bot,
        or to every member), text perhaps still allowed."""
        if chat.bot_no_files or (chat.members_no_files and not chat.bot_admin):
            raise bad_request(f"not enough rights to send {what} to the chat")

    def _thread(self, chat: _Chat, params: _Params) -> int | None:
        """The forum topic a new message of the bot goes to (`message_thread_id`; None:
        General), refused when it is closed or not one of the chat's."""
        thread = params.integer("message_thread_id") or None
        if thread is not None and thread not in chat.topics:
            raise bad_request("message thread not found")
        if chat.forum and thread in chat.closed:
            raise bad_request("TOPIC_CLOSED")
        return thread

    def _editable(self, params: _Params) -> tuple[_Chat, _Message]:
        if params.has("inline_message_id"):
            raise bad_request("inline messages are not supported by the fake")
        chat = self._target_chat(params, sending=True)
        message_id = params.integer("message_id", required=True)
        message = chat.messages.get(message_id or 0)
        if message is None or message.deleted:
            raise bad_request("message to edit not found")
        if not message.from_bot:
            raise bad_request("message can't be edited")
        return chat, message

    def _record(self, chat: _Chat, event: Event) -> None:
        chat.transcript.append(event)


@dataclass(frozen=True, slots=True)
class _Described:
    """A result that Telegram sends with a description ("Webhook was set")."""

    result: Any
    text: str


# ---------------------------------------------------------------------------------------------
# Bot API methods


async def _get_me(fake: FakeTelegram, p: _Params) -> Any:
    return {
        **fake.bot_user,
        "can_join_groups": True,
        "can_read_all_group_messages": not fake.privacy_mode,
        "supports_inline_queries": False,
        "can_connect_to_business": False,
        "has_main_web_app": False,
    }


async def _true(fake: FakeTelegram, p: _Params) -> Any:
    return True


async def _get_updates(fake: FakeTelegram, p: _Params) -> Any:
    if fake._webhook is not None:
        raise ApiError(
            409,
            "Conflict: can't use getUpdates method while webhook is active; "
            "use deleteWebhook to delete the webhook first",
        )
    limit = min(100, max(1, p.integer("limit") or 100))
    timeout = max(0.0, p.number("timeout", 0.0))
    allowed = p.json("allowed_updates")
    if isinstance(allowed, list):
        fake._allowed_updates = frozenset(allowed) or DEFAULT_UPDATE_TYPES
    fake._confirm(p.integer("offset"))
    fake._poll_generation += 1
    generation = fake._poll_generation
    fake._wake()  # an older long poll still waiting is terminated, as on Telegram
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        if generation != fake._poll_generation:
            raise ApiError(
                409,
                "Conflict: terminated by other getUpdates request; "
                "make sure that only one bot instance is running",
            )
        wakeup = fake._wakeup
        if fake.hold_polls and not fake._closing:
            await wakeup.wait()
            continue
        batch = fake._take(limit)
        remaining = deadline - loop.time()
        if batch or remaining <= 0 or fake._closing:
            return batch
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wakeup.wait(), remaining)


async def _set_webhook(fake: FakeTelegram, p: _Params) -> Any:
    url = p.string("url") or ""
    secret = p.string("secret_token")
    if secret is not None and not SECRET_TOKEN_RE.fullmatch(secret):
        raise bad_request("secret token contains unallowed characters")
    if p.flag("drop_pending_updates"):
        fake._updates.clear()
        fake._delivered_upto = fake._next_update_id - 1
    if not url:
        was = fake._webhook is not None
        fake._webhook = None
        fake._wake()
        return _Described(True, "Webhook was deleted" if was else "Webhook is already deleted")
    if not re.match(r"https?://", url):
        raise bad_request("bad webhook: An HTTPS URL must be provided for webhook")
    allowed = p.json("allowed_updates")
    fake._webhook = _Webhook(
        url=url,
        secret_token=secret,
        max_connections=p.integer("max_connections") or 40,
        allowed_updates=allowed if isinstance(allowed, list) else None,
        ip_address=p.string("ip_address"),
    )
    fake._poll_generation += 1  # a waiting long poll ends with 409
    fake._wake()
    for update in list(fake._updates):  # updates nobody fetched go to the webhook now
        if update["update_id"] > fake._delivered_upto:
            fake._updates.remove(update)
            fake._enqueue(update)
    return _Described(True, "Webhook was set")


async def _delete_webhook(fake: FakeTelegram, p: _Params) -> Any:
    if p.flag("drop_pending_updates"):
        fake._updates.clear()
        fake._delivered_upto = fake._next_update_id - 1
    was = fake._webhook is not None
    fake._webhook = None
    return _Described(True, "Webhook was deleted" if was else "Webhook is already deleted")


async def _get_webhook_info(fake: FakeTelegram, p: _Params) -> Any:
    hook = fake._webhook
    info: JSON = {
        "url": hook.url if hook else "",
        "has_custom_certificate": False,
        "pending_update_count": fake.pending_updates,
    }
    if hook is not None:
        info["max_connections"] = hook.max_connections
        if hook.ip_address:
            info["ip_address"] = hook.ip_address
        if hook.allowed_updates:
            info["allowed_updates"] = hook.allowed_updates
        if hook.last_error_date:
            info["last_error_date"] = hook.last_error_date
            info["last_error_message"] = hook.last_error_message
    return info


def _scope_key(p: _Params) -> str:
    scope = p.json("scope")
    if scope is None:
        return "default"
    if not isinstance(scope, dict) or "type" not in scope:
        raise bad_request("can't parse BotCommandScope JSON object")
    kind = str(scope["type"])
    if kind in ("chat", "chat_administrators", "chat_member"):
        if "chat_id" not in scope:
            raise bad_request("chat_id is empty")
        key = f"{kind}:{scope['chat_id']}"
        return f"{key}:{scope['user_id']}" if kind == "chat_member" else key
    if kind not in ("default", "all_private_chats", "all_group_chats", "all_chat_administrators"):
        raise bad_request("wrong bot command scope type specified")
    return kind


async def _set_my_commands(fake: FakeTelegram, p: _Params) -> Any:
    commands = p.json("commands")
    if not isinstance(commands, list):
        raise bad_request("can't parse commands JSON object")
    if len(commands) > 100:
        raise bad_request("too many commands specified")
    for command in commands:
        if not isinstance(command, dict) or not COMMAND_RE.fullmatch(str(command.get("command"))):
            raise bad_request("BOT_COMMAND_INVALID")
        if not 1 <= len(str(command.get("description", ""))) <= 256:
            raise bad_request(
                "command description is empty"
                if not command.get("description")
                else "BOT_COMMAND_DESCRIPTION_INVALID"
            )
    key = (_scope_key(p), p.string("language_code") or "")
    if commands:
        fake.commands[key] = [
            {"command": c["command"], "description": c["description"]} for c in commands
        ]
    else:
        fake.commands.pop(key, None)
    return True


async def _get_my_commands(fake: FakeTelegram, p: _Params) -> Any:
    return fake.commands.get((_scope_key(p), p.string("language_code") or ""), [])


async def _delete_my_commands(fake: FakeTelegram, p: _Params) -> Any:
    fake.commands.pop((_scope_key(p), p.string("language_code") or ""), None)
    return True


def _profile_setter(name: str) -> Callable[[FakeTelegram, _Params], Any]:
    async def handler(fake: FakeTelegram, p: _Params) -> Any:
        fake.profile[f"{name}:{p.string('language_code') or ''}"] = p.string(name) or ""
        return True

    return handler


def _profile_getter(name: str) -> Callable[[FakeTelegram, _Params], Any]:
    async def handler(fake: FakeTelegram, p: _Params) -> Any:
        key = f"{name}:{p.string('language_code') or ''}"
        default = fake.bot_name if name == "name" else ""
        return {name: fake.profile.get(key, default)}

    return handler


async def _send_message(fake: FakeTelegram, p: _Params) -> Any:
    chat = fake._target_chat(p, sending=True)
    text = p.string("text", required=True, empty="message text is empty") or ""
    plain, entities = format_text(text, p.string("parse_mode"), p.json("entities"))
    markup = fake._markup(p, chat)
    reply_to = fake._reply_target(chat, p)
    fake._unmuted(chat, "text messages")
    thread = fake._thread(chat, p)
    fake._spend("sendMessage", chat)
    message = fake._new_message(chat, fake.bot_user, from_bot=True)
    message.text, message.entities, message.markup = plain, entities, markup
    message.reply_to, message.thread = reply_to, thread
    fake._record(
        chat,
        Event(
            "message", chat.id, message.message_id, plain, message.keyboard,
            silent=p.flag("disable_notification"), reply_to=reply_to, at=fake.clock(),
            thread=thread,
        ),
    )  # fmt: skip
    return fake._message_json(message)


def png_size(data: bytes) -> tuple[int, int]:
    """The width and height of a PNG (from its IHDR chunk)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise bad_request("IMAGE_PROCESS_FAILED")
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


async def _send_photo(fake: FakeTelegram, p: _Params) -> Any:
    """sendPhoto with an uploaded PNG, checked as Telegram does: at most 10 MB, width and
    height at most 10,000 together, a ratio of at most 20."""
    upload = p.files.get("photo")
    reference = p.string("photo")
    if upload is None and reference is not None and reference.startswith("attach://"):
        upload = p.files.get(reference.removeprefix("attach://"))
    if upload is None:
        raise bad_request("there is no photo in the request")
    if len(upload.data) > 10 * 1024 * 1024:
        raise bad_request("PHOTO_SAVE_FILE_INVALID")
    width, height = png_size(upload.data)
    if width + height > 10_000 or max(width, height) > 20 * min(width, height):
        raise bad_request("PHOTO_INVALID_DIMENSIONS")
    return await _send_file(fake, p, upload, photo=True)


async def _send_document(fake: FakeTelegram, p: _Params) -> Any:
    upload = p.files.get("document")
    reference = p.string("document")
    if upload is None and reference is not None:
        if reference.startswith("attach://"):
            upload = p.files.get(reference.removeprefix("attach://"))
        else:
            upload = fake._files.get(reference)
            if upload is None:
                raise bad_request("wrong file identifier/HTTP URL specified")
    if upload is None:
        raise bad_request("there is no document in the request")
    if not upload.data:
        raise bad_request("file must be non-empty")
    return await _send_file(fake, p, upload, photo=False)


async def _send_file(fake: FakeTelegram, p: _Params, upload: UploadedFile, photo: bool) -> Any:
    chat = fake._target_chat(p, sending=True)
    caption, caption_entities = format_text(
        p.string("caption") or "", p.string("parse_mode"), p.json("caption_entities"), caption=True
    )
    markup = fake._markup(p, chat)
    reply_to = fake._reply_target(chat, p)
    fake._unmuted(chat, "photos" if photo else "documents")
    fake._files_allowed(chat, "photos" if photo else "documents")
    thread = fake._thread(chat, p)
    fake._spend("sendPhoto" if photo else "sendDocument", chat)
    fake._files[upload.file_id] = upload
    message = fake._new_message(chat, fake.bot_user, from_bot=True)
    if photo:
        message.photo = upload
    else:
        message.document = upload
    message.markup, message.reply_to, message.thread = markup, reply_to, thread
    message.caption, message.caption_entities = caption or None, caption_entities
    fake._record(
        chat,
        Event(
            "photo" if photo else "document", chat.id, message.message_id, caption,
            message.keyboard,
            silent=p.flag("disable_notification"), reply_to=reply_to, file_name=upload.file_name,
            data=upload.data, at=fake.clock(), thread=thread,
        ),
    )  # fmt: skip
    return fake._message_json(message)


def _not_modified() -> ApiError:
    return bad_request(
        "message is not modified: specified new message content and reply markup are exactly "
        "the same as a current content and reply markup of the message"
    )


def _edited(fake: FakeTelegram, chat: _Chat, message: _Message) -> Any:
    message.edit_date = int(time.time())
    fake._record(
        chat,
        Event(
            "edit", chat.id, message.message_id, message.shown_text, message.keyboard,
            at=fake.clock(), thread=message.thread,
        ),
    )  # fmt: skip
    return fake._message_json(message)


async def _edit_message_text(fake: FakeTelegram, p: _Params) -> Any:
    chat, message = fake._editable(p)
    text = p.string("text", required=True, empty="message text is empty") or ""
    plain, entities = format_text(text, p.string("parse_mode"), p.json("entities"))
    markup = fake._markup(p, chat)  # none given: the inline keyboard goes away
    if message.text is None:
        raise bad_request("there is no text in the message to edit")
    if (plain, entities, markup) == (message.text, message.entities, message.markup):
        raise _not_modified()
    fake._spend("editMessageText", chat)
    message.text, message.entities, message.markup = plain, entities, markup
    return _edited(fake, chat, message)


async def _edit_message_caption(fake: FakeTelegram, p: _Params) -> Any:
    chat, message = fake._editable(p)
    caption, entities = format_text(
        p.string("caption") or "", p.string("parse_mode"), p.json("caption_entities"), caption=True
    )
    markup = fake._markup(p, chat)
    if message.text is not None:
        raise bad_request("there is no caption in the message to edit")
    if (caption or None, entities, markup) == (
        message.caption,
        message.caption_entities,
        message.markup,
    ):
        raise _not_modified()
    fake._spend("editMessageCaption", chat)
    message.caption, message.caption_entities, message.markup = caption or None, entities, markup
    return _edited(fake, chat, message)


async def _edit_message_reply_markup(fake: FakeTelegram, p: _Params) -> Any:
    chat, message = fake._editable(p)
    markup = fake._markup(p, chat)
    if markup == message.markup or (not keyboard_of(markup) and not message.keyboard):
        raise _not_modified()
    fake._spend("editMessageReplyMarkup", chat)
    message.markup = markup
    return _edited(fake, chat, message)


def _delete_one(fake: FakeTelegram, chat: _Chat, message_id: int) -> None:
    message = chat.messages.get(message_id)
    if message is None or message.deleted:
        raise bad_request("message to delete not found")
    if not message.from_bot and chat.type != "private" and not chat.bot_admin:
        raise bad_request("message can't be deleted")
    message.deleted = True
    if message_id in chat.pinned:
        chat.pinned.remove(message_id)
    fake._record(chat, Event("delete", chat.id, message_id, at=fake.clock()))


async def _delete_message(fake: FakeTelegram, p: _Params) -> Any:
    chat = fake._target_chat(p, sending=False)
    _delete_one(fake, chat, p.integer("message_id", required=True) or 0)
    return True


async def _delete_messages(fake: FakeTelegram, p: _Params) -> Any:
    chat = fake._target_chat(p, sending=False)
    ids = p.json("message_ids")
    if not isinstance(ids, list) or not 1 <= len(ids) <= 100:
        raise bad_request("message_ids must be a list of 1-100 message identifiers")
    for message_id in ids:
        with contextlib.suppress(ApiError):  # deleteMessages skips what it cannot delete
            _delete_one(fake, chat, int(message_id))
    return True


async def _answer_callback_query(fake: FakeTelegram, p: _Params) -> Any:
    query_id = p.string("callback_query_id", required=True) or ""
    query = fake._queries.get(query_id)
    if query is None or query.answered is not None or query.expired:
        raise bad_request("query is too old and response timeout expired or query ID is invalid")
    text = p.string("text") or ""
    if utf16_len(text) > MAX_CALLBACK_ANSWER:
        raise bad_request("MESSAGE_TOO_LONG")
    url = p.string("url")
    # Without a game, only a link to the bot itself with a /start parameter may be opened.
    if url is not None and not re.fullmatch(
        rf"https://t\.me/{re.escape(fake.bot_username)}\?start=[A-Za-z0-9_-]{{1,64}}", url
    ):
        raise bad_request("URL_INVALID")
    event = Event(
        "answer",
        query.chat_id,
        query.message_id,
        text,
        user_id=query.user.id,
        show_alert=p.flag("show_alert"),
        callback_data=query.data,
        at=fake.clock(),
        url=url,
    )
    query.answered = event
    fake._record(fake._chats[query.chat_id], event)
    return True


async def _get_file(fake: FakeTelegram, p: _Params) -> Any:
    file_id = p.string("file_id", required=True) or ""
    upload = fake._files.get(file_id)
    if upload is None:
        raise bad_request("invalid file_id")
    path = next((k for k, v in fake._file_paths.items() if v == file_id), None)
    if path is None:
        suffix = upload.file_name.rsplit(".", 1)[-1] if "." in upload.file_name else "bin"
        path = f"documents/file_{len(fake._file_paths)}.{suffix}"
        fake._file_paths[path] = file_id
    return {
        "file_id": upload.file_id,
        "file_unique_id": upload.file_unique_id,
        "file_size": len(upload.data),
        "file_path": path,
    }


async def _get_chat(fake: FakeTelegram, p: _Params) -> Any:
    chat = fake._target_chat(p, sending=False)
    return {
        **chat.to_json(),
        "accent_color_id": 0,
        "max_reaction_count": 11,
        "accepted_gift_types": {
            "unlimited_gifts": False,
            "limited_gifts": False,
            "unique_gifts": False,
            "premium_subscription": False,
            "gifts_from_channels": False,
        },
    }


async def _get_chat_member(fake: FakeTelegram, p: _Params) -> Any:
    chat = fake._target_chat(p, sending=False)
    user_id = p.integer("user_id", required=True) or 0
    if user_id != fake.bot_id and user_id not in fake._users:
        raise bad_request("user not found")
    return fake._member_json(chat, user_id)


async def _get_chat_administrators(fake: FakeTelegram, p: _Params) -> Any:
    chat = fake._target_chat(p, sending=False)
    if chat.type == "private":
        raise bad_request("there are no administrators in the private chat")
    admins = [fake._member_json(chat, uid) for uid in chat.admins]
    if chat.bot_admin:
        admins.append(fake._member_json(chat, fake.bot_id))
    return admins


async def _get_chat_member_count(fake: FakeTelegram, p: _Params) -> Any:
    chat = fake._target_chat(p, sending=False)
    return 2 if chat.type == "private" else len(chat.members | set(chat.admins)) + 1


async def _send_chat_action(fake: FakeTelegram, p: _Params) -> Any:
    fake._target_chat(p, sending=True)
    if p.string("action") not in CHAT_ACTIONS:
        raise bad_request("wrong parameter action in request")
    return True


async def _pin_chat_message(fake: FakeTelegram, p: _Params) -> Any:
    chat = fake._target_chat(p, sending=True)
    if chat.type != "private" and not chat.bot_admin:
        raise bad_request("not enough rights to manage pinned messages in the chat")
    message_id = p.integer("message_id", required=True) or 0
    message = chat.messages.get(message_id)
    if message is None or message.deleted:
        raise bad_request("message to pin not found")
    if message_id not in chat.pinned:
        chat.pinned.append(message_id)
    fake._record(chat, Event("pin", chat.id, message_id, "pin", at=fake.clock()))
    return True


async def _unpin_chat_message(fake: FakeTelegram, p: _Params) -> Any:
    chat = fake._target_chat(p, sending=True)
    if chat.type != "private" and not chat.bot_admin:
        raise bad_request("not enough rights to manage pinned messages in the chat")
    message_id = p.integer("message_id") or (chat.pinned[-1] if chat.pinned else None)
    if message_id is None or message_id not in chat.pinned:
        raise bad_request("message to unpin not found")
    chat.pinned.remove(message_id)
    fake._record(chat, Event("pin", chat.id, message_id, "unpin", at=fake.clock()))
    return True


async def _leave_chat(fake: FakeTelegram, p: _Params) -> Any:
    chat = fake._target_chat(p, sending=False)
    if chat.type == "private":
        raise bad_request("chat member status can't be changed in private chats")
    chat.bot_removed = True
    return True


Handler = Callable[[FakeTelegram, _Params], Any]
HANDLERS: dict[str, Handler] = {
    "getMe": _get_me,
    "logOut": _true,
    "close": _true,
    "getUpdates": _get_updates,
    "setWebhook": _set_webhook,
    "deleteWebhook": _delete_webhook,
    "getWebhookInfo": _get_webhook_info,
    "setMyCommands": _set_my_commands,
    "getMyCommands": _get_my_commands,
    "deleteMyCommands": _delete_my_commands,
    "setMyName": _profile_setter("name"),
    "getMyName": _profile_getter("name"),
    "setMyDescription": _profile_setter("description"),
    "getMyDescription": _profile_getter("description"),
    "setMyShortDescription": _profile_setter("short_description"),
    "getMyShortDescription": _profile_getter("short_description"),
    "setChatMenuButton": _true,
    "sendMessage": _send_message,
    "sendDocument": _send_document,
    "sendPhoto": _send_photo,
    "editMessageText": _edit_message_text,
    "editMessageCaption": _edit_message_caption,
    "editMessageReplyMarkup": _edit_message_reply_markup,
    "deleteMessage": _delete_message,
    "deleteMessages": _delete_messages,
    "answerCallbackQuery": _answer_callback_query,
    "getFile": _get_file,
    "getChat": _get_chat,
    "getChatMember": _get_chat_member,
    "getChatAdministrators": _get_chat_administrators,
    "getChatMemberCount": _get_chat_member_count,
    "sendChatAction": _send_chat_action,
    "pinChatMessage": _pin_chat_message,
    "unpinChatMessage": _unpin_chat_message,
    "leaveChat": _leave_chat,
}
METHOD_NAMES = {name.lower(): name for name in HANDLERS}
"""Bot API method names are case-insensitive: the canonical spelling of each."""

__all__ = [
    "DEFAULT_TOKEN",
    "ApiErrorRecord",
    "Button",
    "Event",
    "FakeTelegram",
    "Keyboard",
    "MessageView",
    "RateLimits",
    "Throttle",
    "UploadedFile",
    "User",
    "format_text",
    "keyboard_of",
    "parse_html",
    "parse_markdown",
    "parse_markdown_v2",
]
