"""What the service asks a front end to show: platform-neutral messages with button rows."""

from dataclasses import dataclass
from typing import Protocol

GROUP = None
"""`Message.to` for the group chat (or channel) where the game is played."""

OPTIONS = "options"
"""The slot of a lobby's option toggles shown to its host in their private chat (`/options`
there): the group's own lobby message is the slot "lobby"."""

NO_GAME = ""
"""The game id of `Outcome.version` for a chat with no game whose closing write's note names
none (an older worker's, or none at all): what it shows again after one was cancelled, bare
messages (`Message.strip`), may edit any game's slot messages. A note naming its game gives
that game's id instead, and only its messages are edited to say what the note says."""


@dataclass(frozen=True, slots=True)
class Button:
    """A button: `payload` is a short token (≤ 64 bytes) the service reads back when pressed."""

    label: str
    payload: str


class Picture(Protocol):
    """A picture a message shows (the score sheet), drawn only when a front end sends it."""

    @property
    def name(self) -> str:
        """A file name for it (`scores.png`)."""
        ...

    def png(self) -> bytes:
        """The picture as PNG (blocking: a front end calls it in a worker thread)."""
        ...

    def text(self) -> str:
        """What it shows, as text laid out in columns: sent instead if it cannot be."""
        ...


@dataclass(frozen=True, slots=True)
class Message:
    """One message. `to` is None for the group, else the user id of a private recipient.

    `slot` names a message that is edited in place ("lobby", "table", "hand"): a front end keeps
    the last message it sent for each (chat, to, slot) and edits it rather than sending a new
    one, unless `notify` asks for a fresh message (which notifies the recipient).
    """

    text: str
    to: str | None = GROUP
    buttons: tuple[tuple[Button, ...], ...] = ()
    slot: str | None = None
    notify: bool = False
    quiet: bool = False
    """A group post nobody needs a sound for (the table, a round's end): each player is told of
    their turn privately, with one. A front end that can posts it silently (Telegram's
    `disable_notification`), so the chat's members are not rung twice a round."""
    attachment: tuple[str, bytes] | None = None
    """A file to send with the message: (file name, content)."""
    aside: str | None = None
    """For a group's file asked for by one person (/record), its text as they read it in their
    private chat (in their app's language), where a front end sends the file if the group
    refuses it; None: `text`."""
    pre: bool = False
    """The text is laid out in columns: show it in a monospace block."""
    mentions: tuple[tuple[str, str], ...] = ()
    """(user id, name) of people the text names and the platform should notify: a front end
    turns the first occurrence of each name into a mention."""
    since: int | None = None
    """The stored version this slot message has shown since (when older than the outcome's):
    a slot that shows it already need not be posted again (`Outcome.again`)."""
    picture: Picture | None = None
    """A picture shown with the message, the text its caption (short: at most 1,000
    characters)."""
    strip: bool = False
    """Not a new text: the slot's message loses its buttons (it stays as it is otherwise, or
    shows `behind` if that is given)."""
    behind: str | None = None
    """What this slot message says once a newer message of its slot leaves it behind and it
    loses its buttons: its text without the lines that ask for a press (a hand's wings mark,
    its turn); None: its text as it is. A front end puts it in the edit that takes the
    buttons off (no call of its own)."""
    delete: bool = False
    """Not a new text: the slot's message is deleted, where it has one (the group's turn
    reminder, once the turn it named has passed: `bot.chat.REMINDER`)."""
    only_edit: bool = False
    """Only an edit of the slot's message, where there is one that may still have buttons:
    never a new message (a lobby's change shown in its host's private toggles, which they may
    never have asked for, or have seen closed: `Lobby.only_edit`). A new message asked for as
    well (`notify`) wins."""
    round: int | None = None
    """The round a hand message shows (a front end that cannot deliver it may say so once a
    round, elsewhere)."""
    open_table: str | None = None
    """The label of an "Open the table" button (a hand message of a game in play, in its
    recipient's language): a front end whose bot has a web table (`web.public_url`, see
    `bot.weblinks`) adds a button opening the table's page for the recipient; else nothing."""
    rebid: bool = False
    """A hand message that asks its player to bid again (the dealer under hidden bids and
    notequal, once the others' bids made the bids add up to the tricks): a turn the player,
    who has bid, does not expect. A front end that does not tell each turn anew (Discord's one
    notice a round for a player whose DMs are closed) tells them of this one."""
    unplaced: str | None = None
    """For a private message that names its chat first (`bot.show.places.placed`: `💬 Wizards
    · …`), its text without the name: what a front end shows where it shows the message in
    that chat itself, to its reader alone (Discord's followup in the game's channel for a
    person whose DMs are closed), which the name would only repeat."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of one request: messages to show, and a short answer for the actor alone
    (a callback answer, an ephemeral reply); `alert` marks the answer as a refusal."""

    messages: tuple[Message, ...] = ()
    answer: str | None = None
    alert: bool = False
    ruled: bool = False
    """The rules refused it (an `ErrorCode`). For a move, such an answer may tell of the asker's
    hand ("You must follow suit.") or of bids not yet shown (under `notequal`, the dealer's
    forbidden bid): a front end that cannot answer the asker alone where a move was typed (a
    Telegram group) answers in their private chat (`CommandSpec.move`)."""
    version: tuple[str, int] | None = None
    """(game id, stored version) of the state the messages show (`NO_GAME`'s id for a chat with
    no game, shown again). Several workers may deliver outcomes of one game at once: a front end
    never lets a slot show an older version after a newer one (see adapters/slots.py)."""
    where: str | None = None
    """Where in the chat the game's messages go (`Table.where`, opaque: a Telegram forum
    topic); None: the chat itself, or no game (then where the request was given)."""
    again: bool = False
    """The lasting messages of a game shown again (after a crash or an outage): post each only
    where its slot shows an older version (`Message.since`, else `version`); a bare message
    (`Message.strip`) only where the slot's message may have buttons and shows no later
    version of the chat, of any game."""
    notes: tuple[str, ...] = ()
    """The notes in Redis of the coach's reviews these messages are (`bot.coaching`): once
    every post of the outcome was delivered, the front end tells the service
    (`GameService.posted`), which forgets them; until then a worker that takes over this
    one's journal posts them again."""
