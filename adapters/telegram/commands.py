"""Telegram commands: which request each one is, the command menu per language, and the
deep link that lets a person who never wrote to the bot open their private chat and sit down.
"""

import re

from bot.requests import Kind, Request
from bot.show import screens
from bot.show.i18n import LANGUAGES, N_, texts
from bot.show.themes import Theme

GROUP_COMMANDS: dict[str, Kind] = {
    "join": Kind.JOIN,
    "leave": Kind.LEAVE,
    "start": Kind.START,
    "cancel": Kind.CANCEL,
    "addbot": Kind.ADD_AI,
    "options": Kind.OPTION,
    "hand": Kind.HAND,
    "scores": Kind.SCORES,
    "record": Kind.RECORD,
    "rules": Kind.RULES,
    "help": Kind.HELP,
    "language": Kind.LANGUAGE,
    "theme": Kind.THEME,
    "bid": Kind.BID,
    "play": Kind.PLAY,
    "trump": Kind.TRUMP,
    "wings": Kind.WINGS,
    "resume": Kind.RESUME,
}
"""The commands of a group, by name (without the slash)."""

PRIVATE_COMMANDS = ("start", "help")
"""What a private chat understands: /start (with a deep-link payload, to finish a join) and
/help; any other command there is answered with the help."""

MENU_ORDER = (
    "join",
    "leave",
    "addbot",
    "options",
    "start",
    "bid",
    "play",
    "hand",
    "scores",
    "rules",
    "record",
    "language",
    "theme",
    "cancel",
    "help",
)
EXTRA_MENU = (
    N_("/bid – bid a number of tricks, e.g. /bid 2"),
    N_("/play – play a card, e.g. /play R13"),
    N_("/theme – change how the cards look"),
    N_("/help – what the commands do"),
)
"""Menu lines for the commands that the help text does not list."""

JOIN_PREFIX = "join-"
_MENU_LINE = re.compile(r"/([a-z]+)\s+[–-]\s+(.+)")
_JOIN_PAYLOAD = re.compile(r"join-(-?[0-9]{1,20})")


def command_name(text: str | None) -> str:
    """The command of a message text: `/Bid@WizardBot 2` → `bid` ("" if none)."""
    if not text or not text.startswith("/"):
        return ""
    return text.split(maxsplit=1)[0][1:].partition("@")[0].lower()


def group_request(name: str, args: list[str]) -> Request | None:
    """The request a group command stands for, or None for a command that is not ours."""
    kind = GROUP_COMMANDS.get(name)
    if kind is None:
        return None
    return Request(kind, " ".join(args))


def join_payload(chat_id: int) -> str:
    """The /start payload of the deep link that finishes a join in the group `chat_id`."""
    return f"{JOIN_PREFIX}{chat_id}"


def parse_join_payload(payload: str) -> int | None:
    """The group of a `join-<chat id>` payload; None for anything else."""
    match = _JOIN_PAYLOAD.fullmatch(payload.strip())
    return int(match.group(1)) if match else None


def deep_link(username: str, chat_id: int) -> str:
    return f"https://t.me/{username}?start={join_payload(chat_id)}"


def menu(language: str) -> list[tuple[str, str]]:
    """The command menu in `language`: (command, description) pairs, from the help text's
    lines and a few more."""
    t = texts(language)
    look = screens.Look(t, Theme.COLOURS)
    lines = screens.help_text(look).splitlines() + [t(line) for line in EXTRA_MENU]
    found: dict[str, str] = {}
    for line in lines:
        match = _MENU_LINE.fullmatch(line.strip())
        if match and match.group(1) in MENU_ORDER:
            found.setdefault(match.group(1), match.group(2).strip()[:256])
    return [(name, found[name]) for name in MENU_ORDER if name in found]


MENU_LANGUAGES = tuple(LANGUAGES)
