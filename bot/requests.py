"""Requests: what a person asked for, as an adapter understood it (platform-neutral)."""

from dataclasses import dataclass
from enum import StrEnum


class Kind(StrEnum):
    JOIN = "join"
    LEAVE = "leave"
    START = "start"
    CANCEL = "cancel"
    ADD_AI = "addbot"  # arg: level (optional)
    OPTION = "options"  # arg: "" shows the options; "name=value" or "name" (toggle) sets one
    BUTTON = "button"  # arg: the pressed button's payload
    BID = "bid"  # arg: the number
    PLAY = "play"  # arg: the card, in record notation
    TRUMP = "trump"  # arg: the suit letter
    WINGS = "wings"  # arg: the card to mark, or "" to clear
    HAND = "hand"
    SCORES = "scores"
    RULES = "rules"
    HELP = "help"
    LANGUAGE = "language"  # arg: a language code, or "" to list them
    THEME = "theme"  # arg: a deck theme, or "" to list them
    RECORD = "record"
    RESUME = "resume"  # take one's seat back from the autopilot


@dataclass(frozen=True, slots=True)
class User:
    """A person as the platform names them; `id` is prefixed by the platform (`tg:42`)."""

    id: str
    name: str
    admin: bool = False
    """Whether the platform says this user administers the chat (may cancel any game)."""


@dataclass(frozen=True, slots=True)
class Request:
    kind: Kind
    arg: str = ""
