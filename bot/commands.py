"""The command table: every command a person can give, declared once.

A row names the command, its request `Kind`, its button `Action`, how its argument is read (from
typed text and from a button), its help line, who may use it, whether it seats the presser and
whether its answer is for everyone. The Telegram menus, the Discord slash commands, the help
text and the service's dispatch are all made from this table. Adding a command is a row here
(with its `Kind`) and its handler in `bot.chat.HANDLERS` (a stats command, `query`, is answered
by `bot.queries` instead); a button that gives it needs an `Action` letter in `bot.tokens` too.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Any

from bot import tokens
from bot.ai import LEVELS
from bot.show.i18n import DEFAULT_LANGUAGE, LANGUAGES, N_, Texts, texts
from bot.show.option_words import SETTINGS, setting_label
from bot.show.stats import level_word
from bot.show.themes import Theme, parse_card_text, parse_suit_text, suit_name, theme_name
from bot.tokens import Action
from engine import Card, Suit
from engine.cards import is_card


class Kind(StrEnum):
    """What a request asks for: one per command, and `BUTTON` for a pressed button (its
    payload names the command)."""

    JOIN = "join"
    LEAVE = "leave"
    ADD_AI = "addbot"
    REMOVE_AI = "removebot"
    OPTION = "options"
    START = "start"
    BID = "bid"
    PLAY = "play"
    TRUMP = "trump"
    WINGS = "wings"
    HAND = "hand"
    SCORES = "scores"
    RULES = "rules"
    RECORD = "record"
    STATS = "stats"
    TOP = "top"
    FORGET = "forgetme"
    LANGUAGE = "language"
    THEME = "theme"
    CANCEL = "cancel"
    HELP = "help"
    RESUME = "resume"
    AGAIN = "again"
    HINT = "hint"
    REVIEW = "review"
    BUTTON = "button"


class Who(Enum):
    """Who may give a command."""

    ANYONE = "anyone"
    SEATED = "seated"
    """A player at this chat's table."""
    HOST = "host"
    """The table's host, or an admin of the chat."""


class BadArgument(ValueError):
    """A typed argument that means nothing: `text` (a catalog key) says what was expected."""

    def __init__(self, text: str, **fields: object) -> None:
        super().__init__(text)
        self.text = text
        self.fields = fields
        """The text's fields: a value, or the value in a language (`Callable[[Texts], str]`)."""

    def say(self, t: Texts) -> str:
        return t(self.text, **{k: v(t) if callable(v) else v for k, v in self.fields.items()})


# --- arguments ----------------------------------------------------------------------------------

MAX_ARGUMENT = 200
"""Characters of a typed argument at most (no command's is longer; a front end cuts to this)."""

WHICH_CARD = N_("Which card? E.g. /play R13, /play W or /play J.")


def _nothing(_text: str, _theme: Theme) -> None:
    return None


def _no_button_arg(arg: str) -> None:
    if arg:
        raise ValueError("this button takes no argument")


def _words(text: str, _theme: Theme) -> str:
    return text.strip()


def _word(arg: str) -> str:
    return arg


def _level(text: str, _theme: Theme) -> str:
    level = text.strip().lower()
    if level and level not in LEVELS:  # what was typed is not repeated: it may be anything
        known = ", ".join(LEVELS)
        raise BadArgument(N_("AI levels: {known}. E.g. /addbot hard"), known=known)
    return level


def _level_button(arg: str) -> str:
    return _level(arg, Theme.COLOURS)


_AI_NUMBER = re.compile(r"[1-9][0-9]?")


def _ai_number(arg: str) -> int:
    """The number of the AI seat a lobby button takes off (its player is `ai:<number>`)."""
    if not _AI_NUMBER.fullmatch(arg):
        raise ValueError("not an AI seat's number")
    return int(arg)


LANGUAGE_CHOICES = tuple((f"{code} ({name})", code) for code, name in LANGUAGES.items())
"""Each language as a list shows it, `de (Deutsch)`, and its code."""


def _language(text: str, _theme: Theme) -> str:
    code = text.strip().lower()
    if code not in LANGUAGES:
        known = ", ".join(shown for shown, _code in LANGUAGE_CHOICES)
        raise BadArgument(N_("Languages: {known}. E.g. /language de"), known=known)
    return code


def _theme(text: str, _theme: Theme) -> Theme:
    name = text.strip().lower()
    if name not in Theme._value2member_map_:
        raise BadArgument(N_("Deck themes: {known}. E.g. /theme races"), known=_themes_shown)
    return Theme(name)


def _themes_shown(t: Texts) -> str:
    """Each theme as the word to type and its name in the reader's language, `races (Völker)`,
    as the languages are listed (`de (Deutsch)`)."""
    return ", ".join(f"{theme.value} ({theme_name(t, theme)})" for theme in Theme)


_BID = re.compile(r"-?[0-9]{1,3}")


def _bid(text: str, _theme: Theme) -> int:
    if not _BID.fullmatch(text.strip()):
        raise BadArgument(N_("A bid is a number of tricks, e.g. /bid 2."))
    return int(text)


def _bid_button(arg: str) -> int:
    if not _BID.fullmatch(arg):
        raise ValueError("not a bid")
    return int(arg)


def _card(text: str, theme: Theme) -> Card | None:
    """A card, or None for no card (the unseen one under foresight; no wings mark)."""
    if not text.strip():
        return None
    card = parse_card_text(text, theme)
    if card is None:
        raise BadArgument(WHICH_CARD)
    return card


def _card_button(arg: str) -> Card | None:
    if not arg:
        return None
    if not is_card(arg):
        raise ValueError("not a card")
    return Card(arg)


def _suit(text: str, theme: Theme) -> Suit:
    """A suit by its letter (B, G, R, Y), its face, or its name in any language and theme."""
    suit = parse_suit_text(text)
    if suit is None:
        raise BadArgument(
            N_("Choose a suit: {suits}. E.g. /trump {suit}"),
            suits=lambda t: ", ".join(suit_name(t, each, theme) for each in Suit),
            suit=lambda t: suit_name(t, Suit.RED, theme),
        )
    return suit


def _suit_button(arg: str) -> Suit:
    return Suit(arg)


@dataclass(frozen=True, slots=True)
class Arg:
    """How a command's argument is read: from typed text (`read`, which raises BadArgument),
    from a button's payload (`button`, which raises ValueError for a payload no button of ours
    carries), and the name and description (a catalog key) of its slash-command option."""

    read: Callable[[str, Theme], Any]
    button: Callable[[str], Any] = _no_button_arg
    option: str = ""
    about: str = ""
    choices: tuple[tuple[str, str], ...] = ()
    """Every value it takes, each with how a list of them shows it (in English), for a front
    end that offers them to pick (Discord's choices), so that nobody need know the words; ()
    for one typed freely (a name)."""
    shown: Callable[[Texts, str], str] | None = None
    """How a list shows a value in a language (the choices' names, localized); None: as in
    `choices` in every language (the words themselves)."""
    players: bool = False
    """It names a player of the chat's stats: a front end may offer their names as one types
    (Discord's autocomplete, from `GameService.player_names`)."""


def _same(*values: str) -> tuple[tuple[str, str], ...]:
    """Choices shown as the values themselves."""
    return tuple((value, value) for value in values)


def _named_and_typed(name: str, value: str) -> str:
    """A value as a list shows it: its `name` in the reader's language, and the word typed for
    it (`schwer (hard)`, `Völker (races)`), so that typing the word finds it in every language;
    the word alone where the name is it (`normal`)."""
    return value if name.casefold() == value.casefold() else f"{name} ({value})"


def _level_shown(t: Texts, level: str) -> str:
    """An AI level as a list shows it (`_named_and_typed`): `сложный (hard)`."""
    return _named_and_typed(level_word(t, level), level)


def _theme_shown(t: Texts, theme: str) -> str:
    """A deck theme as a list shows it (`_named_and_typed`): `Völker (races)`."""
    return _named_and_typed(theme_name(t, Theme(theme)), theme)


def _setting_shown(t: Texts, setting: str) -> str:
    """A setting as a list shows it: as the host's toggle does while it holds, and as typed
    (`✅ wings (wings=on)`), so that typing the word finds it in every language."""
    return f"{setting_label(t, setting)} ({setting})"


SETTING_CHOICES = tuple((_setting_shown(texts(DEFAULT_LANGUAGE), s), s) for s in SETTINGS)
"""Every setting `/options` takes, as a list shows it in English, and as typed."""


NONE = Arg(_nothing)


@dataclass(frozen=True, slots=True)
class Pick:
    """How a command takes a person pointed at rather than named (`Request.whom`): on Telegram
    by a reply to their message or a text mention in it, on Discord by a user option of this
    name (`option`, described by `about`, a catalog key); `help` says how in the help text, on
    a line of its own after the command's (a catalog key)."""

    option: str
    about: str
    help: str = ""


# --- the table ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CommandSpec:
    """One command, as every front end and the service know it."""

    kind: Kind
    name: str
    """Its name as typed (`/join`), and its slash command's on Discord; "" for a button only."""
    about: str = ""
    """What it does, for the help text and the menus (a catalog key); "" keeps it out of them."""
    action: Action | None = None
    """The action of the buttons that give it; None if no button does."""
    arg: Arg = NONE
    pick: Pick | None = None
    """It takes a person pointed at (`Request.whom`); None: it points at nobody."""
    who: Who = Who.ANYONE
    table: bool = True
    """It needs a table in the chat (else: there is no game here)."""
    seats: bool = False
    """It seats the presser (a front end makes sure it can reach them privately first)."""
    public: bool = False
    """Its answer is for everyone in the chat (the rules, the scores), not only the asker."""
    anywhere: bool = False
    """It works in a private chat too, not only where a game is played."""
    hosted: bool = False
    """In a private chat it acts on each lobby the person hosts (`GameService.for_host`),
    shown there, rather than on the private chat itself."""
    helped: bool = True
    """Listed in the help text (the menus list every command that has an `about`)."""
    slash: bool = True
    """A slash command on Discord (moves there are made with buttons only)."""
    record: bool = False
    """Its handler reads the chat's last game record (fetched before it runs)."""
    denied: str = ""
    """For the host's commands: what anyone else is told (a catalog key)."""
    query: bool = False
    """Answered by the service from the stats (`bot.queries`), outside the game's transaction,
    rather than by a handler of `bot.chat`."""
    move: bool = False
    """A move of the game: the rules' refusal of it may tell of the asker's hand or of bids not
    yet shown (`Outcome.ruled`); typed where everyone reads it, a move the table keeps secret is
    refused (`Request.aloud`)."""
    personal: bool = False
    """It acts for, or tells of, the one who gives it (their seat, their review, their stats,
    their data), besides every command that seats them or is for the seated or the host: see
    `for_its_giver`."""

    def for_its_giver(self, arg: str, pointed: bool) -> bool:
        """Whether, given with `arg` (and pointing at someone, `pointed`), it acts for or tells
        of the one who gives it: a message sent in a chat's name (a Telegram anonymous admin's,
        a channel's) has nobody behind it to do so. One that names or points at someone
        (`pick`) is about them."""
        if self.pick is not None and (arg or pointed):
            return False
        return self.seats or self.who is not Who.ANYONE or self.personal

    @property
    def typed(self) -> bool:
        """Whether people can type it (a button-only command has no name)."""
        return bool(self.name)


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec(
        Kind.JOIN,
        "join",
        N_("take a seat (3 to 6 players)"),
        Action.JOIN,
        table=False,
        seats=True,
    ),
    CommandSpec(
        Kind.LEAVE,
        "leave",
        N_("give up your seat before the start"),
        Action.LEAVE,
        personal=True,
    ),
    CommandSpec(
        Kind.ADD_AI,
        "addbot",
        N_("add an AI player"),
        Action.ADD_AI,
        Arg(
            _level,
            _level_button,
            "level",
            N_("The AI's level: easy, normal or hard"),
            _same(*LEVELS),
            _level_shown,
        ),
        who=Who.SEATED,
    ),
    CommandSpec(
        Kind.REMOVE_AI,
        "removebot",
        N_("remove an AI player: the last added, or /removebot Merlin"),
        Action.REMOVE_AI,
        Arg(_words, _ai_number, "name", N_("The AI player's name (else the last one added)")),
        who=Who.SEATED,
    ),
    CommandSpec(
        Kind.OPTION,
        "options",
        N_("choose the table's options (host)"),
        Action.OPTION,
        Arg(
            _words,
            _word,
            "setting",
            N_("An option to set, e.g. rounds=short"),
            SETTING_CHOICES,
            _setting_shown,
        ),
        who=Who.HOST,
        anywhere=True,
        hosted=True,
        denied=N_("Only the host may change the options."),
    ),
    CommandSpec(Kind.START, "start", N_("start the game"), Action.START, who=Who.SEATED),
    CommandSpec(
        Kind.BID,
        "bid",
        N_("bid a number of tricks, e.g. /bid 2"),
        Action.BID,
        Arg(_bid, _bid_button),
        who=Who.SEATED,
        helped=False,
        slash=False,
        move=True,
    ),
    CommandSpec(
        Kind.PLAY,
        "play",
        N_("play a card, e.g. /play R13"),
        Action.PLAY,
        Arg(_card, _card_button),
        who=Who.SEATED,
        helped=False,
        slash=False,
        move=True,
    ),
    CommandSpec(Kind.HAND, "hand", N_("show your hand again"), Action.HAND, who=Who.SEATED),
    CommandSpec(
        Kind.HINT,
        "hint",
        N_("a hint for your bid or card (coach tables)"),
        Action.HINT,
        who=Who.SEATED,
    ),
    CommandSpec(
        Kind.REVIEW,
        "review",
        N_("your costliest decisions of the last game, privately"),
        table=False,
        query=True,
        personal=True,
    ),
    CommandSpec(Kind.SCORES, "scores", N_("the score sheet"), Action.SCORES, public=True),
    CommandSpec(Kind.RULES, "rules", N_("the rules"), table=False, public=True, anywhere=True),
    CommandSpec(
        Kind.RECORD,
        "record",
        N_("the record of the last game"),
        table=False,
        public=True,
        record=True,
    ),
    CommandSpec(
        Kind.STATS,
        "stats",
        N_("your stats, or a player's: /stats Ann"),
        arg=Arg(_words, option="name", about=N_("A player's name, as seated"), players=True),
        pick=Pick(
            "player",
            N_("A server member whose stats to show (instead of a name)"),
            N_(
                "or point at them: a reply to their message (Telegram), the player option (Discord)"
            ),
        ),
        table=False,
        public=True,
        anywhere=True,
        query=True,
        personal=True,
    ),
    CommandSpec(
        Kind.TOP,
        "top",
        N_("the best players here, by rating"),
        table=False,
        public=True,
        query=True,
    ),
    CommandSpec(
        Kind.FORGET,
        "forgetme",
        N_("delete your stats in every chat"),
        arg=Arg(_words, option="confirm", about=N_("yes, to confirm")),
        table=False,
        anywhere=True,
        query=True,
        personal=True,
    ),
    CommandSpec(
        Kind.LANGUAGE,
        "language",
        N_("change the language"),
        arg=Arg(
            _language,
            option="code",
            about=N_("A language code, e.g. de or fr"),
            choices=LANGUAGE_CHOICES,
        ),
        table=False,
        public=True,
    ),
    CommandSpec(
        Kind.THEME,
        "theme",
        N_("change how the cards look"),
        arg=Arg(
            _theme,
            option="name",
            about=N_("A deck theme: colours, races or french"),
            choices=_same(*(theme.value for theme in Theme)),
            shown=_theme_shown,
        ),
        table=False,
        public=True,
        helped=False,
    ),
    CommandSpec(
        Kind.CANCEL,
        "cancel",
        N_("end the game (host or admin)"),
        Action.CANCEL,
        who=Who.HOST,
        public=True,
        denied=N_("Only the host or a chat admin may cancel the game."),
    ),
    CommandSpec(
        Kind.HELP,
        "help",
        N_("what the commands do"),
        table=False,
        public=True,
        anywhere=True,
        helped=False,
    ),
    CommandSpec(
        Kind.TRUMP,
        "trump",
        action=Action.TRUMP,
        arg=Arg(_suit, _suit_button),
        who=Who.SEATED,
        move=True,
    ),
    CommandSpec(
        Kind.WINGS,
        "wings",
        action=Action.WINGS,
        arg=Arg(_card, _card_button),
        who=Who.SEATED,
        move=True,
    ),
    CommandSpec(Kind.RESUME, "resume", action=Action.RESUME, who=Who.SEATED),
    CommandSpec(Kind.AGAIN, "", action=Action.AGAIN, seats=True),
)
"""Every command, in the order of the help text and the menus."""

BY_KIND: dict[Kind, CommandSpec] = {command.kind: command for command in COMMANDS}
BY_NAME: dict[str, CommandSpec] = {command.name: command for command in COMMANDS if command.typed}
BY_ACTION: dict[Action, CommandSpec] = {
    command.action: command for command in COMMANDS if command.action is not None
}


def of_payload(payload: str) -> CommandSpec | None:
    """The command a pressed button's payload gives (None: no button of ours)."""
    try:
        return BY_ACTION[tokens.decode(payload).action]
    except tokens.TokenError:
        return None


def help_line(t: Texts, command: CommandSpec) -> str:
    """`/join – take a seat (3 to 6 players)`, in the language of `t`."""  # noqa: RUF002
    return f"/{command.name} – {t(command.about)}"


def help_text(t: Texts) -> str:
    """What the commands do: the answer to /help (and the group's welcome), after how a game
    begins, for a newcomer."""
    lines = [
        t("🔮 Wizard: bid exactly the tricks you will take."),
        t("To play, everyone sends /join; then someone sends /start. New to Wizard? See /rules."),
        "",
    ]
    for command in COMMANDS:
        if command.about and command.helped:
            lines.append(help_line(t, command))
            if command.pick is not None and command.pick.help:
                lines.append(f"    {t(command.pick.help)}")
    return "\n".join(lines)


def welcome_text(t: Texts) -> str:
    """The answer to a person who opens a private chat with the bot: what it is and how a
    game starts."""
    return "\n".join(
        [
            t("🔮 Wizard: bid exactly the tricks you will take."),
            "",
            t("I run games of Wizard in group chats, for 3 to 6 players (and AI players)."),
            t("1. Add me to a group (the button below)."),
            t("2. There, everyone who plays sends /join; then someone sends /start."),
            t("3. Your cards come here, in this chat, with buttons to bid and play."),
            "",
            t("/help lists every command; /stats shows your results."),
        ]
    )


def menu(t: Texts) -> list[tuple[str, str]]:
    """The command menu: (name, description) of every command with an `about`, in order."""
    return [(command.name, t(command.about)) for command in COMMANDS if command.about]


def _check_table() -> None:
    """The table is consistent: every kind but BUTTON is a command, every action one button's."""
    kinds = {command.kind for command in COMMANDS}
    assert kinds == set(Kind) - {Kind.BUTTON}, set(Kind) - kinds
    actions = [command.action for command in COMMANDS if command.action is not None]
    assert sorted(actions) == sorted(Action), actions


_check_table()
