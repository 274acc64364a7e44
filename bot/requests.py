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
    language: str | None = None
    """The language of their app as the platform says it (`de`, `pt-BR`), if it does: their
    private messages are shown in it when there is a catalog for it."""
    bot: bool = False
    """The platform says this is a bot account (this bot or another): it plays no game, so
    /stats of one has nothing to show."""


@dataclass(frozen=True, slots=True)
class Request:
    """A command and its argument as typed (`Kind.BUTTON`: a pressed button's payload)."""

    kind: Kind
    arg: str = ""
    private: bool = False
    """Given in the person's private chat with the bot (a DM), not where games are played: what
    is theirs alone may be shown (their stats across chats)."""
    aloud: bool = False
    """Typed where everyone in the chat reads it (a command in a Telegram group; Discord's
    slash commands answer the asker alone): a move the table keeps secret is refused whatever
    it names (`bot.chat.refuse_aloud`)."""
    place: str | None = None
    """The name of the chat it was given in, as its platform shows it now, made safe (a
    group's title; None in a private chat, or where the platform does not say): a request
    that writes keeps it in the chat's settings (`Settings.title`)."""
    where: str | None = None
    """Where in the chat it was given, in the front end's own words, opaque to the service (a
    Telegram forum topic; None: the chat itself): a request that opens a table keeps it there
    (`Table.where`), and the outcomes of that game carry it back (`Outcome.where`)."""
    aside: bool = False
    """Given in the person's private chat about the game of another chat, whose request it is
    (a press on a private message of that game; a host's /options there, `CommandSpec.hosted`),
    or on Discord on a message the channel shows to them alone (their hand while their DMs are
    closed): what is for the asker alone is shown to them privately (a hint once a decision),
    and the chat's own messages as always."""
    alone: bool = False
    """Its answer (`Outcome.answer`: a refusal, "Done") is shown to the asker alone wherever
    it was given (Discord's ephemeral replies, Telegram's answer to a press): it is worded in
    their app's language, as their private messages are, and what it shows the chat in the
    chat's."""
    whom: User | None = None
    """The person it points at, as the platform picked them rather than by a name typed (a
    Telegram command sent in reply to their message or mentioning them, Discord's `player`
    option or a user mention typed as its `name`): /stats shows theirs (`bot.queries.stats`),
    and says so of a bot (`User.bot`). None: nobody was picked so."""
