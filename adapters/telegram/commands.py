"""Telegram commands: which request each one is (from the command table), the command menu per
language, and the deep link that lets a person who never wrote to the bot open their private chat
and sit down.
"""

import re

from adapters.text import ARG_LIMIT, clean
from bot import Kind, Request, commands
from bot.show.clusters import head
from bot.show.i18n import LANGUAGES, texts

GROUP_COMMANDS: dict[str, Kind] = {name: spec.kind for name, spec in commands.BY_NAME.items()}
"""The commands of a group, by name (without the slash)."""

MENU_ORDER = tuple(name for name, _ in commands.menu(texts(None)))
"""The commands of the group menu, in order."""

MAX_DESCRIPTION = 256
"""Telegram's limit for a command's description."""

JOIN_PREFIX = "join-"
_JOIN_PAYLOAD = re.compile(r"join-(-[0-9]{1,20})(?:_([0-9]{1,12}))?")
"""A group's id is negative; a person's (their private chat's) positive: no table opens there.
After `_`, the forum topic the join was asked in."""


def _command(text: str | None) -> tuple[str, str]:
    """A message text's command and the bot it names after `@`, lower case ("" for none)."""
    if not text or not text.startswith("/"):
        return "", ""
    name, _, bot = text.split(maxsplit=1)[0][1:].partition("@")
    return name.lower(), bot.lower()


def command_name(text: str | None) -> str:
    """The command of a message text: `/Bid@WizardBot 2` → `bid` ("" if none)."""
    return _command(text)[0]


def addressee(text: str | None) -> str:
    """The bot a command names after `@` (`/jion@WizardBot` → `wizardbot`; "" if none)."""
    return _command(text)[1]


def near_command(name: str) -> str | None:
    """The one group command that `name` is a typo of (a letter wrong, missing, extra, or two
    swapped: `jion`, `strat`, `hepl`), or None: too short to tell, ours already, or no single
    command that close (another bot's, most likely)."""
    if len(name) < 3 or name in GROUP_COMMANDS:
        return None
    near = [known for known in GROUP_COMMANDS if _one_slip(name, known)]
    return near[0] if len(near) == 1 else None


def _one_slip(typed: str, known: str) -> bool:
    """Whether `typed` is `known` with one slip of the finger."""
    if abs(len(typed) - len(known)) > 1:
        return False
    if len(typed) == len(known):
        wrong = [i for i, (a, b) in enumerate(zip(typed, known, strict=True)) if a != b]
        if len(wrong) == 1:
            return True
        if len(wrong) != 2 or wrong[1] != wrong[0] + 1:
            return False
        i, j = wrong
        return typed[i] == known[j] and typed[j] == known[i]
    short, long = sorted((typed, known), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def group_request(name: str, args: list[str]) -> Request | None:
    """The request a group command stands for, or None for a command that is not ours (typed
    where the whole group reads it: `Request.aloud`)."""
    kind = GROUP_COMMANDS.get(name)
    if kind is None:
        return None
    return Request(kind, clean(" ".join(args), ARG_LIMIT), aloud=True)


def private_request(name: str, args: list[str]) -> Request:
    """The request a command in a private chat stands for: the commands that work anywhere (the
    help, the rules, the stats); any other gets the help."""
    spec = commands.BY_NAME.get(name)
    if spec is None or not spec.anywhere:
        return Request(Kind.HELP, private=True)
    return Request(spec.kind, clean(" ".join(args), ARG_LIMIT), private=True)


def join_payload(chat_id: int, topic: int | None = None) -> str:
    """The /start payload of the deep link that finishes a join in the group `chat_id`, asked
    in its forum `topic` (where a table it opens is played)."""
    return f"{JOIN_PREFIX}{chat_id}" + ("" if topic is None else f"_{topic}")


def parse_join_payload(payload: str) -> tuple[int, str | None] | None:
    """The group of a `join-<chat id>[_<topic>]` payload, and the topic as a request says
    it (`Request.where`); None for anything else."""
    match = _JOIN_PAYLOAD.fullmatch(payload.strip())
    return (int(match.group(1)), match.group(2)) if match else None


def deep_link(username: str, chat_id: int, topic: int | None = None) -> str:
    return f"https://t.me/{username}?start={join_payload(chat_id, topic)}"


CARDS_PAYLOAD = "cards"
"""The /start payload of the link that brings a player back to their private chat (a plain
/start there: their hands come back)."""


def cards_link(username: str) -> str:
    return f"https://t.me/{username}?start={CARDS_PAYLOAD}"


def menu(language: str) -> list[tuple[str, str]]:
    """The command menu in `language`: (command, description) pairs."""
    return [(name, head(text, MAX_DESCRIPTION)) for name, text in commands.menu(texts(language))]


MENU_LANGUAGES = tuple(LANGUAGES)

PRIVATE_MENU = frozenset(spec.name for spec in commands.COMMANDS if spec.anywhere)
"""The commands a private chat's menu offers: those that work anywhere."""
