"""An Outcome as Discord posts: which channel or DM each message goes to, its text, its buttons.

Pure: no network. Group messages go to the game's channel, a message `to` a person (`dc:<id>`)
to their DM. A message with a `slot` names what it replaces: the field `<game chat>:<slot>` of
the slot map of the channel where it is shown (see `slots`). Every button's custom id carries the
game channel and the service's payload (`buttons`), so a press in a DM finds its game. With a
web table (`links`), a hand message (in the person's DM, or shown to them alone) gets an "Open
the table" link button: the page, by a link signed for that player and game.
"""

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import regex
from discord.utils import escape_markdown

from adapters.discord.ids import discord_id
from adapters.outbox import newest, slot_version
from bot import Message, Outcome, WebLinks, tokens
from bot.messages import Button, Picture
from bot.show.clusters import head, shortened
from bot.show.screens import even_rows

MAX_CONTENT = 2000
"""Discord's limit for a message's content."""
MAX_LABEL = 80
MAX_URL = 512
"""Discord's limit for a link button's address."""
MAX_ROW = 5
MAX_ROWS = 5
"""Discord allows five action rows of five buttons under a message."""
UNITS = regex.compile(r"<@\d+>|\\\X|\X")
"""What a content is never cut inside: a mention, an escaped character with its backslash, and
what shows as one character (`bot.show.clusters`)."""
GAME_PREFIX = "wz"
HAND_PREFIX = "wzh"


@dataclass(frozen=True, slots=True)
class Key:
    """A button: `custom_id` is what Discord sends back when it is pressed; a link button
    has a `url` instead (a press opens it, and Discord sends nothing)."""

    label: str
    custom_id: str = ""
    url: str | None = None


Rows = tuple[tuple[Key, ...], ...]


@dataclass(frozen=True, slots=True)
class Post:
    """One message to show in one Discord channel, or in one person's DM."""

    game: int
    """The game's channel."""
    text: str
    user: int | None = None
    """The person whose DM it goes to; None for the game's channel."""
    keys: Rows = ()
    slot: str | None = None
    """`<game chat>:<slot>` for a message edited in place; None for a plain new message."""
    notify: bool = False
    """Send a new message even if the slot has one (later edits go to it)."""
    quiet: bool = False
    """A new message goes without a notification (`Message.quiet`: Discord's @silent)."""
    attachment: tuple[str, bytes] | None = None
    version: tuple[str, int] | None = None
    """(game id, version) of the state a slot post shows (`Outcome.version`): a slot never
    goes back to an older one (`adapters.slots`)."""
    again: bool = False
    """Shown again after a crash or an outage: post it only where the slot is behind."""
    mentions: tuple[int, ...] = ()
    """The people the message may ping (the closed-DM notice, the half-time reminder); nobody
    else is ever pinged."""
    strip: int | None = None
    """Not a message: take the buttons off this older message (a slot's, superseded)."""
    behind: str | None = None
    """For a slot message, what it shows once superseded (`Message.behind`, as content); for
    a `strip` post, that text (None: the message keeps its text)."""
    bare: bool = False
    """Not a new text: take the buttons off the slot's message (`Message.strip`)."""
    delete: bool = False
    """Not a new text: delete the slot's message (`Message.delete`)."""
    only_edit: bool = False
    """An edit of the slot's message only where it may still have buttons, never a new
    message (`Message.only_edit`; never with `notify`: see `adapters.outbox.newest`)."""
    picture: Picture | None = None
    """A picture attached to the message (shown in it)."""
    before: tuple[str, ...] = ()
    """Messages of their own that go first, one at a time (a picture's text form too long to
    share the message: `with_text`), no one pinged, no buttons."""
    round: int | None = None
    """The round a hand shows (`Message.round`)."""
    rebid: bool = False
    """A hand asking its player to bid again (`Message.rebid`)."""
    stands_for: int | None = None
    """A "Your hand" notice: the person whose hand, refused by their DMs, it stands for."""
    instead: str | None = None
    """A DM's text where the person's DMs are closed, shown to them in the channel instead (a
    followup: what is true there, not what the DM would say; a DM that names its channel
    first, `Message.unplaced`, without the name of the channel it is shown in)."""
    hand_under: bool = False
    """A plain private message that, followed up to a person whose DMs are closed, has their
    hand as it is now followed up under it (a locked thread's notice: nothing else would
    bring their hand back to the foot of what they see until their turn)."""

    @property
    def here(self) -> str:
        """The text a followup in the game's channel shows (`instead`, else the DM's)."""
        return self.text if self.instead is None else self.instead

    @property
    def asks(self) -> bool:
        """Whether a button of it asks the bot for something (a link alone, the web table's,
        asks nothing)."""
        return any(key.custom_id for row in self.keys for key in row)

    def unbuttoned(self, text: str | None) -> "Post":
        """The post without its buttons, saying `text` instead of its own if given."""
        return replace(self, keys=(), text=self.text if text is None else text, behind=None)

    @property
    def target(self) -> str:
        """The outbox queue: `c<channel>` for the channel, `u<user>` for a DM."""
        return f"c{self.game}" if self.user is None else f"u{self.user}"


def is_channel(target: object) -> bool:
    """Whether an outbox target is a channel (paced as a group) rather than a DM."""
    return isinstance(target, str) and target.startswith("c")


def game_id(channel: int, payload: str) -> str:
    """The custom id of a game button: `wz:<game channel>:<payload>` (≤ 88 characters)."""
    return f"{GAME_PREFIX}:{channel}:{payload}"


def hand_id(channel: int) -> str:
    """The custom id of the "Your hand" button: whoever presses it sees their own hand."""
    return f"{HAND_PREFIX}:{channel}"


def escape(text: str) -> str:
    """`text` shown as it is written: markdown escaped, and every `<` too, so that a name such
    as `<@id>`, `<#id>`, `<t:0:R>` or `</cmd:id>` is not shown as a mention, a channel, a time
    or a command."""
    return escape_markdown(text).replace("<", "\\<")


def packed(lines: list[str], room: int = MAX_CONTENT) -> list[str]:
    """Lines (each at most `room` characters) joined into as few texts of at most `room`
    characters as they take, split between lines."""
    texts: list[list[str]] = [[]]
    size = -1
    for line in lines:
        if texts[-1] and size + 1 + len(line) > room:
            texts.append([])
            size = -1
        texts[-1].append(line)
        size += 1 + len(line)
    return ["\n".join(part) for part in texts]


def pre_blocks(text: str) -> list[str]:
    """A text laid out in columns as code blocks of at most MAX_CONTENT characters each, as
    few as it takes, split between lines (a line too long for one alone is cut)."""
    room = MAX_CONTENT - 8  # the fences: "```\n" and "\n```"
    lines = [head(line, room) for line in text.replace("```", "'''").split("\n")]
    return ["```\n" + block + "\n```" for block in packed(lines, room)]


def content(text: str, pre: bool = False, mentions: Mapping[str, int] | None = None) -> str:
    """A text as Discord shows it: escaped (`escape`), or a code block when laid out in
    columns; cut to MAX_CONTENT characters. The first occurrence of each name in `mentions`
    becomes a mention of that user (`<@id>`): all in one pass, longest name first, so a name
    is never looked for inside a mention already put in."""
    if pre:
        body = head(text.replace("```", "'''"), MAX_CONTENT - 9)
        return f"```\n{body}\n```"
    escaped = escape(text)
    users = {shown: user for name, user in (mentions or {}).items() if (shown := escape(name))}
    if users:
        done: set[str] = set()

        def mention(match: re.Match[str]) -> str:
            name = match.group(0)
            if name in done:
                return name
            done.add(name)
            return f"<@{users[name]}>"

        names = sorted(users, key=len, reverse=True)
        escaped = re.sub("|".join(map(re.escape, names)), mention, escaped)
    return shortened(escaped, MAX_CONTENT, len, UNITS)


def with_text(text: str, picture: Picture) -> list[str]:
    """The messages of a post's text with its picture's text form (sent instead of the
    picture), the post's own last: one, the picture's text in a code block below the post's,
    when both fit in a message; else the picture's text first, in as few code blocks as it
    takes (split between lines), then the post's text on its own, at the foot of the channel,
    where its buttons are (a game's end: the standings and "Play again" are what players look
    at, not below a wall of figures)."""
    sheet = picture.text()
    whole = f"{text}\n{content(sheet, pre=True)}"
    if len(whole) <= MAX_CONTENT and len(sheet) <= MAX_CONTENT - 9:  # `content` cuts there
        return [whole]
    return [*pre_blocks(sheet), text]


def table_key(
    chat: str, message: Message, version: tuple[str, int] | None, links: WebLinks | None
) -> Key | None:
    """The "Open the table" link button of a hand message, if the bot has a web table: the
    page by a link signed for the hand's player and the game `version` names."""
    if links is None or message.open_table is None or message.to is None or version is None:
        return None
    url = links.link(chat, message.to, version[0])
    return Key(head(message.open_table, MAX_LABEL), url=url) if len(url) <= MAX_URL else None


def _kind(row: Sequence[Button]) -> tuple[str, ...]:
    """What a row of buttons does, for laying out its run (`rows`): the action its payloads
    name when they all name one (the bids), else the row alone (its payloads)."""
    actions = set()
    for button in row:
        try:
            actions.add(tokens.decode(button.payload).action.value)
        except tokens.TokenError:
            return tuple(b.payload for b in row)
    return tuple(actions) if len(actions) == 1 else tuple(b.payload for b in row)


def _runs(found: list[list[Key]], kinds: list[tuple[str, ...]]) -> list[list[Key]]:
    """`found` in rows of at most five: a run of rows of one kind with a row longer than five
    (the bids, up to six to a row) is laid as one list in rows of at most five as even as can
    be (`even_rows`), so no button is left alone on a row ([0-4] [5] [6] for the 7 bids of a
    round of 6 cards, [0-4] [5] for the 6 of a round of 5); any other row stays as it is."""
    laid: list[list[Key]] = []
    for _, run in itertools.groupby(range(len(found)), key=lambda n: kinds[n]):
        lines = [found[n] for n in run]
        if any(len(line) > MAX_ROW for line in lines):
            lines = [list(row) for row in even_rows([k for line in lines for k in line], MAX_ROW)]
        laid += lines
    return laid


def rows(channel: int, message: Message, table: Key | None = None) -> Rows:
    """The message's buttons in Discord's grid: rows of at most five, at most five rows
    (longer rows are split, a run of rows of one kind as one, `_runs`; if that makes too many,
    all are packed five to a row), the `table` button last, in a row of its own."""
    shown = [row for row in message.buttons if row]
    found = [
        [Key(head(button.label, MAX_LABEL), game_id(channel, button.payload)) for button in row]
        for row in shown
    ]
    kinds = [_kind(row) for row in shown]
    if table is not None:
        found.append([table])
        kinds.append((table.custom_id or table.url or "",))
    split = _runs(found, kinds)
    if len(split) > MAX_ROWS:
        flat = [key for row in found for key in row][: MAX_ROW * MAX_ROWS]
        split = [flat[i : i + MAX_ROW] for i in range(0, len(flat), MAX_ROW)]
    return tuple(tuple(row) for row in split)


def post(
    chat: str,
    message: Message,
    version: tuple[str, int] | None = None,
    again: bool = False,
    links: WebLinks | None = None,
) -> Post | None:
    """Where and how `message` of the game in `chat` is shown; None if it cannot be (a message
    for someone who is not on Discord). `links`: the web table's, for a hand's "Open the
    table" button."""
    channel = discord_id(chat)
    if channel is None:
        return None
    user = None
    if message.to is not None:
        user = discord_id(message.to)
        if user is None:
            return None
    named = {name: found for key, name in message.mentions if (found := discord_id(key))}
    return Post(
        game=channel,
        text=content(message.text, message.pre, named),
        mentions=tuple(named.values()),
        version=slot_version(message, version),
        again=again,
        user=user,
        keys=rows(channel, message, table_key(chat, message, version, links)),
        slot=None if message.slot is None else f"{chat}:{message.slot}",
        notify=message.notify,
        quiet=message.quiet,
        attachment=message.attachment,
        bare=message.strip,
        delete=message.delete,
        only_edit=message.only_edit,
        picture=message.picture,
        round=message.round,
        rebid=message.rebid,
        behind=None if message.behind is None else content(message.behind, message.pre, named),
        instead=None if message.unplaced is None else content(message.unplaced, message.pre, named),
    )


def posts(chat: str, outcome: Outcome, links: WebLinks | None = None) -> list[Post]:
    """The posts of an outcome's messages, in order."""
    found = (
        post(chat, message, outcome.version, outcome.again, links) for message in outcome.messages
    )
    return [item for item in found if item is not None]


def strip_post(post: Post, message_id: int, behind: str | None = None) -> Post:
    """Taking the buttons off message `message_id`, where `post` is shown (and showing
    `behind` there instead of its text, if given: `Message.behind`)."""
    return Post(game=post.game, text="", user=post.user, strip=message_id, behind=behind)


def coalesce(older: Post, newer: Post) -> Post | None:
    """A newer version of a slot message replaces one still waiting to be sent (see
    `adapters.outbox.newest`)."""
    return newest(older, newer)
