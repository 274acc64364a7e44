"""An Outcome as Telegram posts: which chat each message goes to, its HTML, its keyboard.

Pure: no network. Group messages go to the game's chat, a message `to` a person (`tg:<id>`)
to their private chat. In a forum (a supergroup with topics), a game's group messages go to the
topic it was opened in (`Outcome.where`, the topic's thread id as a string: `thread`), other
group messages to the topic of the command that asked for them (`here`). A message with a
`slot` names what it replaces: the field `<game chat>:<slot>` of the slot map of the chat where
it is shown (see `slots`). With a web table (`links`), a hand message gets an "Open the table"
button below its own: a Mini App (`web_app`) when the table's address is https, else a link
signed for that player and game. Telegram allows a `web_app` button in a private chat only,
and a hand is always in one.
"""

import html
from collections.abc import Callable
from dataclasses import dataclass, replace

from adapters.outbox import newest, slot_version
from adapters.telegram.ids import telegram_id
from bot import Message, Outcome, User, WebLinks
from bot.messages import Picture
from bot.show.clusters import shortened

MAX_TEXT = 4096
"""Telegram's limit for a message text (after entities are parsed), in characters: code points,
as its Bot API server counts them (TDLib's `utf8_length`; an emoji such as 🧙 is one, though
two UTF-16 units, the unit of entity offsets alone)."""
MAX_CAPTION = 1024


@dataclass(frozen=True, slots=True)
class Key:
    """An inline button: `data` is the callback data, or `url` a link (a deep link), or
    `web_app` the address of a Mini App."""

    label: str
    data: str | None = None
    url: str | None = None
    web_app: str | None = None


@dataclass(frozen=True, slots=True)
class Post:
    """One message to show in one Telegram chat."""

    target: int
    """The Telegram chat it is shown in."""
    html: str
    keys: tuple[tuple[Key, ...], ...] = ()
    slot: str | None = None
    """`<game chat>:<slot>` for a message edited in place; None for a plain new message."""
    notify: bool = False
    """Send a new message even if the slot has one (it notifies; later edits go to it)."""
    quiet: bool = False
    """A new message goes without a sound (`Message.quiet`: `disable_notification`)."""
    attachment: tuple[str, bytes] | None = None
    reply_to: int | None = None
    """The message this one answers (a refusal of a command); for a file (`attachment`), the
    command that asked for it, which a word that it went elsewhere answers."""
    asker: int | None = None
    """For a file asked for in a group (/record), who asked: it goes to their private chat if
    the group takes no files from the bot (see `Sender.no_files`). A chat's id (negative) when
    the command was sent in a chat's name (an anonymous admin's, a channel's): no private chat
    to send it to."""
    aside: str | None = None
    """For such a file, its caption there, in the asker's language (`Message.aside`, as HTML);
    None: `html`."""
    version: tuple[str, int] | None = None
    """(game id, version) of the state a slot post shows (`Outcome.version`)."""
    again: bool = False
    """Shown again after a crash or an outage: post it only where the slot is behind."""
    strip: int | None = None
    """Not a message: take the buttons off this older message (a slot's, superseded)."""
    behind: str | None = None
    """For a slot message, what it shows once superseded (`Message.behind`, as HTML); for a
    `strip` post, that text (None: the message keeps its text)."""
    bare: bool = False
    """Not a new text: take the buttons off the slot's message (`Message.strip`)."""
    delete: bool = False
    """Not a new text: delete the slot's message (`Message.delete`)."""
    only_edit: bool = False
    """An edit of the slot's message only where it may still have buttons, never a new
    message (`Message.only_edit`; never with `notify`: see `adapters.outbox.newest`)."""
    picture: Picture | None = None
    """A picture sent with the text as its caption."""
    game_id: str | None = None
    """For a picture, the game whose state it shows (`Outcome.version`'s id): a group that
    refused the bot's pictures gets the next game's tried again (see `Sender.refused_in`)."""
    thread: int | None = None
    """The forum topic a new message goes to (None: the chat itself, or General); an edit
    stays where its message is."""
    opens: User | None = None
    """For a notice asking a person to open a private chat with the bot, that person: if they
    have opened it by the time the notice goes, a newcomer's goes as it reads once they have,
    and a player's who could not be reached (`told`) does not go (see
    `adapters.telegram.notices.Notices.deliver`)."""
    told: str | None = None
    """For the notice that a player cannot be reached privately (`opens`), the mark that the
    group was told (`keys.unreached`): the notice is true while the mark is set."""
    pointing: str | None = None
    """For a reply that links to the forum topic of the group's game (`Table.where`), that
    topic: the reply is true while the group's table is still played there (see
    `adapters.telegram.app.TelegramFrontEnd._deliver`)."""

    def unbuttoned(self, text: str | None) -> "Post":
        """The post without its buttons, saying `text` (HTML) instead of its own if given."""
        return replace(self, keys=(), html=self.html if text is None else text, behind=None)

    @property
    def game(self) -> str | None:
        """The game chat of a slot post."""
        return None if self.slot is None else self.slot.rpartition(":")[0]


def html_text(
    text: str,
    pre: bool = False,
    limit: int = MAX_TEXT,
    mentions: tuple[tuple[str, str], ...] = (),
) -> str:
    """A text as Telegram HTML: escaped, in a <pre> block when laid out in columns, and cut to
    `limit` characters of visible text (`cut`). The first occurrence of each mentioned name
    becomes a mention (a link to the person, which notifies them)."""
    text = cut(text, limit)
    links: dict[int, tuple[int, str]] = {}  # where a mention starts: (its end, its link)
    for user, name in sorted(mentions, key=lambda mention: -len(mention[1])):  # Anna before Ann
        number = telegram_id(user)
        start = text.find(name) if name else -1
        while start >= 0 and any(
            a < start + len(name) and start < end for a, (end, _) in links.items()
        ):
            start = text.find(name, start + 1)
        if number is not None and start >= 0:
            shown = html.escape(name, quote=False)
            links[start] = (start + len(name), f'<a href="tg://user?id={number}">{shown}</a>')
    parts, at = [], 0
    for start in sorted(links):
        end, link = links[start]
        parts += [html.escape(text[at:start], quote=False), link]
        at = end
    parts.append(html.escape(text[at:], quote=False))
    escaped = "".join(parts)
    return f"<pre>{escaped}</pre>" if pre else escaped


def cut(text: str, limit: int, measure: Callable[[str], int] = len) -> str:
    """`text` cut to at most `limit` as `measure` counts (characters, as Telegram counts a
    text's and a caption's length), ending with `…` when cut, no emoji split (a flag's half
    was left alone at the end)."""
    return shortened(text, limit, measure)


def thread(where: str | None) -> int | None:
    """The forum topic's thread id in a `Request.where` / `Outcome.where` of this front end
    (None: not a topic)."""
    return int(where) if where and where.isdigit() else None


def keys(message: Message) -> tuple[tuple[Key, ...], ...]:
    return tuple(
        tuple(Key(button.label, data=button.payload) for button in row)
        for row in message.buttons
        if row
    )


def table_key(
    chat: str, message: Message, version: tuple[str, int] | None, links: WebLinks | None
) -> Key | None:
    """The "Open the table" button of a hand message, if the bot has a web table: the Mini
    App for the game's chat (the page proves who opens it by its initData), or the page by a
    link signed for the hand's player and the game `version` names."""
    if links is None or message.open_table is None or message.to is None or version is None:
        return None
    app = links.mini_app(chat)
    if app is not None:
        return Key(message.open_table, web_app=app)
    return Key(message.open_table, url=links.link(chat, message.to, version[0]))


def post(
    chat: str,
    message: Message,
    version: tuple[str, int] | None = None,
    again: bool = False,
    links: WebLinks | None = None,
    topic: int | None = None,
) -> Post | None:
    """Where and how `message` of the game in `chat` is shown; None if it cannot be (a message
    for someone who is not on Telegram). `links`: the web table's, for a hand's "Open the
    table" button; `topic`: the forum topic of the group's messages."""
    target = telegram_id(chat if message.to is None else message.to)
    if target is None:
        return None
    captioned = message.attachment is not None or message.picture is not None
    limit = MAX_CAPTION if captioned else MAX_TEXT
    rows = keys(message)
    table = table_key(chat, message, version, links)
    if table is not None:
        rows += ((table,),)
    return Post(
        target=target,
        html=html_text(message.text, message.pre, limit, message.mentions),
        keys=rows,
        slot=None if message.slot is None else f"{chat}:{message.slot}",
        notify=message.notify,
        quiet=message.quiet,
        attachment=message.attachment,
        version=slot_version(message, version),
        again=again,
        bare=message.strip,
        delete=message.delete,
        only_edit=message.only_edit,
        picture=message.picture,
        game_id=None if message.picture is None or version is None else version[0],
        thread=topic if message.to is None else None,
        behind=None if message.behind is None else html_text(message.behind, limit=limit),
        aside=None if message.aside is None else html_text(message.aside, limit=limit),
    )


def posts(
    chat: str,
    outcome: Outcome,
    links: WebLinks | None = None,
    here: str | None = None,
    asker: tuple[int, int] | None = None,
) -> list[Post]:
    """The posts of an outcome, in order (its answer is not among them: see `answer_post`):
    a game's group messages in its topic, others in `here` (where the request was given).
    `asker`: (person, their command's message) of a command typed in a group, for the files
    it is answered with (`Post.asker`)."""
    topic = thread(outcome.where if outcome.version is not None else here)
    found = (
        post(chat, message, outcome.version, outcome.again, links, topic)
        for message in outcome.messages
    )
    return [
        replace(item, asker=asker[0], reply_to=asker[1])
        if asker is not None and item.attachment is not None and item.target < 0
        else item
        for item in found
        if item is not None
    ]


def answer_post(
    target: int, outcome: Outcome, reply_to: int | None, topic: int | None = None
) -> Post | None:
    """The answer to a typed command, as a reply where it was typed (in its forum `topic`): a
    refusal always, another answer only when the outcome shows nothing else there (what it
    shows the asker alone, a hint, comes privately: the answer says so); a button press shows
    it as a toast."""
    shown_here = any(message.to is None for message in outcome.messages)
    if not outcome.answer or (shown_here and not outcome.alert):
        return None
    return Post(target=target, html=html_text(outcome.answer), reply_to=reply_to, thread=topic)


def strip_post(target: int, message_id: int, behind: str | None = None) -> Post:
    """Taking the buttons off message `message_id` in chat `target` (and showing `behind`
    there instead of its text, if given: `Message.behind`)."""
    return Post(target=target, html="", strip=message_id, behind=behind)


def coalesce(older: Post, newer: Post) -> Post | None:
    """A newer version of a slot message replaces one still waiting to be sent (see
    `adapters.outbox.newest`). A notice about a person's private chat (`Post.opens`) waiting
    as a new message, and a post that takes its slot's button off, both go, in order: merged,
    the notice became that bare post and never went, and the /join it answered had no answer.
    It decides as it goes (`Notices.deliver`), and the bare post then finds its message."""
    if older.opens is not None and older.notify and newer.bare and not newer.again:
        return None
    return newest(older, newer)
