"""Slash commands, made from the command table: which request each one is, its option, and its
description in every language (Discord shows each person the one of their client's language)."""

import collections
import functools
import re
from dataclasses import dataclass

import discord
from discord import app_commands

from bot import Kind, commands
from bot.show.i18n import DEFAULT_LANGUAGE, N_, texts

MAX_DESCRIPTION = 100
"""Discord's limit for a command's or an option's description."""


@dataclass(frozen=True, slots=True)
class Spec:
    """A slash command: its request, and its one optional text option (name, description)."""

    kind: Kind
    option: tuple[str, str] | None = None
    guild_only: bool = True
    public: bool = False
    """Its answer is usually for everyone (the rules, the scores): a slow one is deferred in
    public, others privately."""


COMMANDS: dict[str, Spec] = {
    spec.name: Spec(
        spec.kind,
        (spec.arg.option, spec.arg.about) if spec.arg.option else None,
        guild_only=not spec.anywhere,
        public=spec.public,
    )
    for spec in commands.COMMANDS
    if spec.typed and spec.about and spec.slash
}
"""The slash commands, by name."""

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

SLASH_NAMES = (
    # TRANSLATORS: the name of a Discord slash command (/join: take a seat). Lowercase, one
    # word of letters, digits, - or _, at most 32 characters, starting with /; keep the
    # English word if your language's players would type that.
    N_("/join"),
    # TRANSLATORS: a Discord slash command's name (/leave: give up your seat); see /join.
    N_("/leave"),
    # TRANSLATORS: a Discord slash command's name (/addbot: add an AI player); see /join.
    N_("/addbot"),
    # TRANSLATORS: a Discord slash command's name (/options: the table's options); see /join.
    N_("/options"),
    # TRANSLATORS: a Discord slash command's name (/start: start the game); see /join.
    N_("/start"),
    # TRANSLATORS: a Discord slash command's name (/hand: show your hand); see /join.
    N_("/hand"),
    # TRANSLATORS: a Discord slash command's name (/scores: the score sheet); see /join.
    N_("/scores"),
    # TRANSLATORS: a Discord slash command's name (/rules: the rules); see /join.
    N_("/rules"),
    # TRANSLATORS: a Discord slash command's name (/record: the last game's record); see /join.
    N_("/record"),
    # TRANSLATORS: a Discord slash command's name (/stats: a player's stats); see /join.
    N_("/stats"),
    # TRANSLATORS: a Discord slash command's name (/top: the leaderboard); see /join.
    N_("/top"),
    # TRANSLATORS: a Discord slash command's name (/forgetme: delete your stats); see /join.
    N_("/forgetme"),
    # TRANSLATORS: a Discord slash command's name (/language: the chat's language); see /join.
    N_("/language"),
    # TRANSLATORS: a Discord slash command's name (/cancel: end the game); see /join.
    N_("/cancel"),
    # TRANSLATORS: a Discord slash command's name (/help: what the commands do); see /join.
    N_("/help"),
    # TRANSLATORS: a Discord slash command's name (/theme: how the cards look); see /join.
    N_("/theme"),
    # TRANSLATORS: a Discord slash command's name (/hint: the coach's hint for your bid or
    # card); see /join.
    N_("/hint"),
    # TRANSLATORS: a Discord slash command's name (/review: the coach's review of your last
    # game); see /join.
    N_("/review"),
)
"""Every slash command's name, as the catalogs translate it (`/join`)."""

_NAME = re.compile(r"[-_\w]{1,32}")


@functools.cache
def names(language: str) -> dict[str, str]:
    """Each slash command's name in `language` where its catalog gives a valid one (lowercase,
    one word, ≤ 32 characters) that no other command of that language has."""
    t = texts(language)
    found: dict[str, str] = {}
    for key in SLASH_NAMES:
        name = t(key).removeprefix("/").strip()
        if name != key[1:] and _NAME.fullmatch(name) and name == name.lower():
            found[key[1:]] = name
    counts = collections.Counter(found.values())
    return {
        english: name
        for english, name in found.items()
        if counts[name] == 1 and name not in set(COMMANDS) - {english}
    }


def descriptions(language: str) -> dict[str, str]:
    """Each command's description in `language` (from the command table)."""
    return {name: text[:MAX_DESCRIPTION] for name, text in commands.menu(texts(language))}


def description(name: str) -> app_commands.locale_str:
    """A command's description: English, marked for the translator."""
    english = descriptions(DEFAULT_LANGUAGE).get(name, name)
    return app_commands.locale_str(english, command=name)


def option_description(text: str) -> app_commands.locale_str:
    return app_commands.locale_str(text, option=True)


class Translator(app_commands.Translator):
    """Gives Discord the commands' names and descriptions in every language with a catalog
    (Discord shows each person the ones of their client's language)."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        language = LOCALES.get(locale)
        if language is None:
            return None
        if context.location is app_commands.TranslationContextLocation.command_name:
            return names(language).get(string.message)
        command = string.extras.get("command")
        if command is not None:
            return descriptions(language).get(command)
        if string.extras.get("option"):
            return texts(language)(string.message)[:MAX_DESCRIPTION]
        return None
