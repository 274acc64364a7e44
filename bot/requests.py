"""Requests: what a person asked for, as a front end understood it (platform-neutral)."""

from dataclasses import dataclass

from bot.commands import Kind


@dataclass(frozen=True, slots=True)
class User:
    """A person as the platform names them; `id` is prefixed by the platform (`tg:42`)."""

    id: str
    name: str
    admin: bool = False
    """Whether the platform says this user administers the chat (may cancel any game)."""


@dataclass(frozen=True, slots=True)
class Request:
    """A command and its argument as typed (`Kind.BUTTON`: a pressed button's payload)."""

    kind: Kind
    arg: str = ""
