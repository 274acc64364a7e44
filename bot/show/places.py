"""Which chat a private message is of, for a person seated in two chats at once: each of their
private messages of either game names its chat before its first line (`💬 Friday Wizard · Round
3 of 5 · trump: 🔺 red`). Someone seated in one chat is shown no name (the service decides who,
`GameService._placed`)."""

from dataclasses import replace

from bot.messages import Message
from bot.show.formatters import fit, isolated
from bot.show.look import Look

PLACE_WIDTH = 24
"""Columns of a chat's name at most, in a private message's first line (then cut with `…`)."""


def place_name(title: str) -> str:
    """A chat's title as a private message names it: at most PLACE_WIDTH columns, kept apart
    from the text around it (a right-to-left title does not turn the line around)."""
    return isolated(fit(title, PLACE_WIDTH))


def placed(look: Look, message: Message, title: str) -> Message:
    """`message` (a private one, in its reader's `look`) naming the chat `title` first."""
    chat = place_name(title)

    def named(text: str) -> str:
        # TRANSLATORS: a private message of a player seated in two chats at once names the
        # chat (a group's title) it is of before its first line, `text`.
        return look.t("💬 {chat} · {text}", chat=chat, text=text)

    behind = named(message.behind) if message.behind else message.behind
    if not message.text or message.strip:  # a bare post: only what it shows instead, if any
        return replace(message, behind=behind) if behind != message.behind else message
    return replace(message, text=named(message.text), behind=behind, unplaced=message.text)
