"""Slash commands, made from the command table: which request each one is, its option, and its
description in every language (Discord shows each person the one of their client's language).
Their names stay English in every language, as the bot's texts name them. A user mention typed
as a command's text (`<@42>`) is read as a pick of that person where the command takes one."""

import re
from collections.abc import Callable
from dataclasses import dataclass

import discord
from discord import app_commands

from bot import Kind, commands
from bot.show.clusters import head
from bot.show.i18n import DEFAULT_LANGUAGE, Texts, texts

MAX_DESCRIPTION = 100
"""Discord's limit for a command's or an option's description."""
MAX_CHOICE = 100
"""Discord's limit for a choice's name (and value)."""
MAX_CHOICES = 25
"""Discord's limit for the choices of an option, and of an autocomplete's answer."""


@dataclass(frozen=True, slots=True)
class Spec:
    """A slash command: its request, its one optional text option (name, description), the
    values that option takes if it is a pick from a list (shown name, value) and how one is
    shown in a language, and its optional user option that picks a person (`Request.whom`;
    name, description)."""

    kind: Kind
    option: tuple[str, str] | None = None
    pick: tuple[str, str] | None = None
    choices: tuple[tuple[str, str], ...] = ()
    shown: Callable[[Texts, str], str] | None = None
    players: bool = False
    """Its text option names a player here: their names are offered as one types."""
    guild_only: bool = True
    public: bool = False
    """Its answer is usually for everyone (the rules, the scores): a slow one is deferred in
    public, others privately."""


COMMANDS: dict[str, Spec] = {
    spec.name: Spec(
        spec.kind,
        (spec.arg.option, spec.arg.about) if spec.arg.option else None,
        (spec.pick.option, spec.pick.about) if spec.pick else None,
        spec.arg.choices,
        spec.arg.shown,
        spec.arg.players,
        guild_only=not spec.anywhere,
        public=spec.public,
    )
    for spec in commands.COMMANDS
    if spec.typed and spec.about and spec.slash
}
"""The slash commands, by name."""

USER_MENTION = re.compile(r"<@!?([0-9]{1,20})>")
"""A user mention as a message's text holds it: `<@42>`, or `<@!42>` (the older form)."""
ANY_MENTION = re.compile(r"<(?:@[!&]?|#)[0-9]{1,20}>")
"""A mention of a user, a role (`<@&42>`) or a channel (`<#42>`)."""


def mentioned(text: str) -> int | None:
    """The user `text` is exactly a mention of, spaces around aside (what a client makes of a
    person picked from its @-autocomplete); None for anything else."""
    found = USER_MENTION.fullmatch(text.strip())
    return int(found[1]) if found else None


def mentions_any(text: str) -> bool:
    """Whether `text` holds a mention of anyone or anything (a user, a role, a channel)."""
    return ANY_MENTION.search(text) is not None


def as_text(value: object) -> str:
    """A text option's value as this version reads it, whatever type the command was synced
    with: another version's sync of it (a sync under way, or a client that kept the old
    definition) sends its own type, which discord.py hands on as it is (a number, a user).
    A number or a yes/no is its text (`7`, `True`), a user, a role or a channel its mention
    (a user's then picks them where the command picks a person); anything else, nothing.
    Taken as text, such a value crashed the command, with "Sorry, something went wrong.
    Please try again.", which could not help."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, int, float)):
        return str(value)
    mention = getattr(value, "mention", None)
    return mention if isinstance(mention, str) else ""


def as_person(value: object) -> discord.User | discord.Member | None:
    """A user option's value as this version reads it (`as_text`): a person, or None for a
    value of another type (read as text instead, by the caller)."""
    return value if isinstance(value, (discord.User, discord.Member)) else None


LOCALES: dict[discord.Locale, str] = {
    discord.Locale.german: "de",
    discord.Locale.spain_spanish: "es",
    discord.Locale.latin_american_spanish: "es",
    discord.Locale.french: "fr",
    discord.Locale.italian: "it",
    discord.Locale.korean: "ko",
    discord.Locale.dutch: "nl",
    discord.Locale.polish: "pl",
    discord.Locale.brazil_portuguese: "pt",
    discord.Locale.romanian: "ro",
    discord.Locale.russian: "ru",
}
"""Discord's locales that have a catalog, and its language (Discord has no Latvian one)."""


def descriptions(language: str) -> dict[str, str]:
    """Each command's description in `language` (from the command table)."""
    return {name: head(text, MAX_DESCRIPTION) for name, text in commands.menu(texts(language))}


def description(name: str) -> app_commands.locale_str:
    """A command's description: English, marked for the translator."""
    english = descriptions(DEFAULT_LANGUAGE).get(name, name)
    return app_commands.locale_str(english, command=name)


def option_description(text: str) -> app_commands.locale_str:
    return app_commands.locale_str(text, option=True)


def choices(name: str, spec: Spec) -> list[app_commands.Choice[str]]:
    """The choices of a command's option: English names, marked for the translator (which
    names them in each language, where the command's `shown` says how)."""
    return [
        app_commands.Choice(
            name=app_commands.locale_str(shown, command=name, value=value), value=value
        )
        for shown, value in spec.choices
    ]


class Translator(app_commands.Translator):
    """Gives Discord the commands' and options' descriptions, and the names of the choices
    (`/options`' settings, `/addbot`'s levels, `/theme`'s decks, each with the word it sends:
    `schwer (hard)`), in every language with a catalog that Discord has a locale for (`LOCALES`):
    Discord shows each person the ones of their client's language. Discord has no Latvian
    locale, so a Latvian client shows them in English. Commands' names are not translated:
    the bot's texts (the help, the lobby, refusals...) name commands in English, as everyone who
    reads a channel does whatever their client's language, so the name a person reads is the
    one their client offers."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        language = LOCALES.get(locale)
        if language is None:
            return None
        command = string.extras.get("command")
        value = string.extras.get("value")
        if command is not None and value is not None:  # a choice's name
            shown = COMMANDS[command].shown
            return None if shown is None else head(shown(texts(language), value), MAX_CHOICE)
        if command is not None:
            return descriptions(language).get(command)
        if string.extras.get("option"):
            return head(texts(language)(string.message), MAX_DESCRIPTION)
        return None
