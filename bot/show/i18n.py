"""Translations: every word a player sees comes from a gettext catalog, read with Babel.

Catalogs are kept as source only: `bot/show/locale/messages.pot` (the template) and
`bot/show/locale/<lang>/LC_MESSAGES/messages.po` for each of `LANGUAGES`. At run time each `.po` is
read with Babel, compiled in memory and cached, so no compiled `.mo` file is ever committed.

In code, a `Texts` for the reader's language is conventionally named `t`:

    t = texts(user_language)
    t("Round {round} of {rounds}", round=3, rounds=20)     # translate, then str.format
    t.ngettext("{n} trick", "{n} tricks", n).format(n=n)   # plural forms
    error_text(t, error.code)                               # an engine refusal as a sentence

A text that is defined in one place and translated in another is marked with `N_("...")` (or
`N_plural(singular, plural)`), which returns it unchanged but lets the extractor find it.
The same English words that need another translation in one place (an option's short word on
its button beside its name) get a context: `NC_("option button", "notequal")` marks it, and
`t.pgettext("option button", "notequal")` translates it (a catalog's `msgctxt`).

After adding or changing texts, run `python -m bot.show.i18n extract`: it extracts every marked
text from `bot/` and `adapters/` (keywords `_`, `gettext`, `ngettext`, `pgettext`, `t`, `N_`,
`NC_`, `N_plural`; a comment starting `TRANSLATORS:` just above a text is passed on to
translators), rewrites `messages.pot` and merges it into each `.po`; then fill in the new empty
`msgstr` lines.
`python -m bot.show.i18n check` lists texts the code uses that a catalog lacks or leaves
untranslated, any entry marked fuzzy, and entries no text of the code is marked as (`extract`
would make them obsolete).
A text without a translation is shown in English, the msgid itself.
"""

import argparse
import functools
import gettext as _gettext
import io
import re
import string
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import ErrorCode
from engine.state import Phase

if TYPE_CHECKING:  # Babel loads when a catalog is first read, not with this module
    from babel.messages.catalog import Catalog, Message
    from babel.support import Translations

LANGUAGES: dict[str, str] = {
    "en": "English",
    "de": "Deutsch",
    "es": "Español",
    "fr": "Français",
    "it": "Italiano",
    "ko": "한국어",
    "lv": "Latviešu",
    "nl": "Nederlands",
    "pl": "Polski",
    "pt": "Português",
    "ro": "Română",
    "ru": "Русский",
}
"""The languages with a catalog: code → the language's own name."""

DEFAULT_LANGUAGE = "en"
"""The language of the msgids, used for an unknown or missing language."""

DOMAIN = "messages"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
"""Where the catalogs live: `messages.pot` and `<lang>/LC_MESSAGES/messages.po`."""

PROJECT_ROOT = LOCALE_DIR.parents[2]
SOURCE_DIRS = ("bot", "adapters")
"""The folders under the project root whose Python files are searched for texts."""

KEYWORDS: dict[str, tuple[int | tuple[int, str], ...] | None] = {
    "_": None,
    "gettext": None,
    "ngettext": (1, 2),
    "t": None,
    "N_": None,
    "N_plural": (1, 2),
    "pgettext": ((1, "c"), 2),
    "NC_": ((1, "c"), 2),
}
"""The functions whose string arguments are texts to translate (Babel keyword specs)."""

COMMENT_TAGS = ("TRANSLATORS:",)


def N_(message: str) -> str:
    """Mark `message` for the catalogs without translating it (translate it later with `t`)."""
    return message


def NC_(context: str, message: str) -> str:
    """Mark `message`, in `context`, for the catalogs without translating it (translate it later
    with `t.pgettext(context, message)`)."""
    return message


def N_plural(singular: str, plural: str) -> tuple[str, str]:
    """Mark a plural pair for the catalogs; translate it later with `t.ngettext(*pair, n)`."""
    return (singular, plural)


# TRANSLATORS: your language's own name as a sentence writes it (`Settings saved: English`):
# lower-case where your language writes it so (`русский`, `español`), else as `Deutsch`.
OWN_NAME = NC_("own name", "English")
"""The language's name within a sentence, in the context `own name` (`Texts.name_in_a_sentence`)."""

KNOWN_CAP = 4096
"""Translations one `Texts` keeps at most (a catalog holds a few hundred)."""


class Texts:
    """The texts of one language. Call it as `t("...", **kwargs)`: translate, then format."""

    __slots__ = ("_known", "_translations", "language")

    def __init__(self, language: str, translations: _gettext.NullTranslations) -> None:
        self.language = language
        self._translations = translations
        self._known: dict[str, str] = {}
        """Each message translated so far (a catalog does not change once read)."""

    @property
    def name(self) -> str:
        """The language's own name, e.g. `Deutsch`."""
        return LANGUAGES.get(self.language, self.language)

    @property
    def name_in_a_sentence(self) -> str:
        """The language's own name as a sentence writes it: `русский`, `español`, `Deutsch`
        (`name` is capitalised, as a list of languages writes it)."""
        return self.pgettext("own name", OWN_NAME)

    def gettext(self, message: str) -> str:
        """`message` translated; the message itself where the catalog has no translation."""
        text = self._known.get(message)
        if text is None:
            text = self._translations.gettext(message)
            if len(self._known) < KNOWN_CAP:
                self._known[message] = text
        return text

    def pgettext(self, context: str, message: str) -> str:
        """`message` as translated in `context` (a catalog's `msgctxt`); the message itself
        where the catalog has no translation in that context."""
        key = f"{context}\x04{message}"
        text = self._known.get(key)
        if text is None:
            text = self._translations.pgettext(context, message)
            if len(self._known) < KNOWN_CAP:
                self._known[key] = text
        return text

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        """The form of `singular`/`plural` that fits the number `n`, translated."""
        return self._translations.ngettext(singular, plural, n)

    def __call__(self, message: str, /, **kwargs: object) -> str:
        """`message` translated and, when `kwargs` are given, filled in with `str.format`.

        A translation whose placeholders do not fit `kwargs` (a translator's slip) falls back
        to the English text rather than failing.
        """
        text = self.gettext(message)
        if not kwargs:
            return text
        try:
            return text.format_map(kwargs)
        except (KeyError, IndexError, ValueError):
            return message.format(**kwargs)

    def __repr__(self) -> str:
        return f"Texts({self.language!r})"


@functools.lru_cache(maxsize=1024)
def catalog_language(code: str | None) -> str | None:
    """The catalog language for a code as platforms send it (`de`, `de-AT`, `es_419`, `EN`,
    `pt-BR`); None when there is no catalog for it."""
    if not code:
        return None
    base = re.split(r"[-_]", code.strip().lower(), maxsplit=1)[0]
    return base if base in LANGUAGES else None


def resolve_language(code: str | None) -> str:
    """The catalog language for a code as platforms send it; the default language when there
    is no catalog for it."""
    return catalog_language(code) or DEFAULT_LANGUAGE


def po_path(language: str, locale_dir: Path = LOCALE_DIR) -> Path:
    """Where the source catalog of `language` is kept."""
    return locale_dir / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def read_catalog(language: str, locale_dir: Path = LOCALE_DIR) -> "Catalog":
    """The parsed `.po` catalog of `language`."""
    from babel.messages.pofile import read_po

    with po_path(language, locale_dir).open("rb") as file:
        return read_po(file, locale=language, domain=DOMAIN)


def compile_catalog(catalog: "Catalog") -> "Translations":
    """A catalog compiled in memory (fuzzy entries left out, so they show in English)."""
    from babel.messages.mofile import write_mo
    from babel.support import Translations

    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    buffer.seek(0)
    return Translations(fp=buffer, domain=DOMAIN)


@functools.cache
def _load(language: str) -> Texts:
    path = po_path(language)
    if not path.is_file():
        return Texts(language, _gettext.NullTranslations())
    return Texts(language, compile_catalog(read_catalog(language)))


def texts(language: str | None) -> Texts:
    """The texts of `language` (read once, then cached); an unknown language gets English."""
    return _load(resolve_language(language))


# -- Engine refusals ------------------------------------------------------------------------

ERROR_MESSAGES: dict[ErrorCode, str] = {
    ErrorCode.BAD_COMMAND: N_("Sorry, I don't understand that command."),
    ErrorCode.BAD_OPTION: N_("That is not a valid option."),
    # the one option a table's number of players rules out (engine.options.hand_sizes)
    ErrorCode.OPTION_UNAVAILABLE: N_("Tournament rounds are for {n} to {m} players."),
    ErrorCode.OPTION_OFF: N_("That option is not switched on at this table."),
    ErrorCode.BAD_PLAYER: N_("That player name is not valid."),
    ErrorCode.UNKNOWN_PLAYER: N_("You are not playing at this table."),
    ErrorCode.ALREADY_JOINED: N_("You have already joined."),
    ErrorCode.GAME_FULL: N_("The table is full."),
    ErrorCode.TOO_FEW_PLAYERS: N_(
        "At least 3 players are needed to start: invite more, or add an AI player with /addbot."
    ),
    ErrorCode.GAME_STARTED: N_("The game has already started."),
    ErrorCode.GAME_OVER: N_("The game is over."),
    ErrorCode.WRONG_PHASE: N_("You can't do that right now."),
    ErrorCode.BAD_DEAL: N_("The cards were not dealt correctly."),
    ErrorCode.NOT_YOUR_TURN: N_("It's not your turn."),
    ErrorCode.NOT_DEALER: N_("Only the dealer can choose trump."),
    ErrorCode.BAD_SUIT: N_("Choose one of the four suits."),
    ErrorCode.ALREADY_BID: N_("You have already bid."),
    ErrorCode.BID_OUT_OF_RANGE: N_(
        "Your bid must be between 0 and the number of cards in your hand."
    ),
    ErrorCode.BID_FORBIDDEN: N_(
        "You can't bid that: the bids may not add up to the number of tricks."
    ),
    ErrorCode.UNKNOWN_CARD: N_("That is not a card."),
    ErrorCode.CARD_NOT_IN_HAND: N_("You don't have that card."),
    ErrorCode.MUST_FOLLOW_SUIT: N_("You must follow suit."),
    ErrorCode.CARD_NOT_VISIBLE: N_("You can't see your own card this round."),
}
"""A friendly sentence for every engine refusal, keyed by its stable code."""

UNKNOWN_ERROR = N_("That is not possible right now.")

PHASE_REFUSALS: dict[Phase, str] = {
    Phase.LOBBY: N_("The game has not started yet."),
    Phase.TRUMP: N_("Not now: the dealer is choosing the trump suit."),
    Phase.BIDDING: N_("Not now: it is time to bid; the cards are played once everyone has bid."),
    Phase.PLAYING: N_("Not now: the bids are in, and the cards are being played."),
}
"""A move the table is not at, said by what the table is doing (rather than "You can't do that
right now.", which leaves a newcomer who plays a card while bidding wondering why)."""


def error_text(t: Texts, code: ErrorCode | str, phase: Phase | None = None) -> str:
    """The refusal `code` as a sentence in the language of `t`; a move out of turn for the
    round (`WRONG_PHASE`) says what the table is doing, given its `phase`."""
    if code == ErrorCode.WRONG_PHASE and phase in PHASE_REFUSALS:
        return t.gettext(PHASE_REFUSALS[phase])
    try:
        message = ERROR_MESSAGES[ErrorCode(code)]
    except (KeyError, ValueError):
        return t.gettext(UNKNOWN_ERROR)
    if code == ErrorCode.OPTION_UNAVAILABLE:
        from engine.options import TOURNAMENT_HANDS  # (the rules load only when needed)

        return t(message, n=min(TOURNAMENT_HANDS), m=max(TOURNAMENT_HANDS))
    return t.gettext(message)


# -- Texts the game screens will need (kept in the catalogs until the code uses them) -------

FORESEEN: tuple[str | tuple[str, str], ...] = (
    # Lobby and menus
    N_("Join"),
    N_("Leave"),
    N_("Start"),
    N_("Cancel"),
    N_("Add AI"),
    N_("Remove AI"),
    N_("Options"),
    N_("Language"),
    N_("Deck"),
    N_("Back"),
    N_("Done"),
    N_("On"),
    N_("Off"),
    N_("New game"),
    N_("Players"),
    N_("Waiting for players…"),
    N_("{name} joined."),
    N_("{name} left."),
    N_("The game has started."),
    N_("Game cancelled."),
    N_("Game over"),
    # The table
    N_("Round {round} of {rounds}"),
    N_("Dealer"),
    N_("{name} deals."),
    N_("Trump"),
    N_("No trump"),
    N_("Trump: {suit}"),
    N_("Choose trump"),
    N_("{name} chooses trump."),
    N_("Your hand"),
    N_("Your turn"),
    N_("{name}'s turn"),
    N_("Bid"),
    N_("Play"),
    N_("How many tricks will you take?"),
    N_("{name} bids {bid}."),
    N_("{name} plays {card}."),
    N_("{name} won the trick"),
    N_("Lead suit: {suit}"),
    N_("Tricks"),
    # The score sheet
    N_("Score sheet"),
    N_("Round"),
    N_("Points"),
    N_("Total"),
    # TRANSLATORS: short score-sheet header for "bid/won" (at most 3 letters).
    N_("b/w"),
    N_("Final standings"),
    N_("{name} wins with {points} points."),
    N_("Winner"),
    # Counts
    N_plural("{n} trick", "{n} tricks"),
    N_plural("{n} point", "{n} points"),
    N_plural("{n} card", "{n} cards"),
    N_plural("{n} player", "{n} players"),
    N_plural("Waiting for {n} more player.", "Waiting for {n} more players."),
)


# -- Catalog maintenance: extraction, merging and checks --------------------------------------

_HEADER = """\
# Translations of wizard-bot.
# Updated by `python -m bot.show.i18n extract`; fill in the empty msgstr lines.
#"""

_DATE_HEADERS = re.compile(rb'^"(POT-Creation-Date|PO-Revision-Date): .*\\n"$', re.MULTILINE)


def extract_messages(root: Path = PROJECT_ROOT, dirs: Sequence[str] = SOURCE_DIRS) -> "Catalog":
    """A template catalog of every text marked in the Python files of `root`/`dirs`."""
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract_from_dir

    template = Catalog(
        domain=DOMAIN, header_comment=_HEADER, project="wizard-bot", charset="utf-8", fuzzy=False
    )
    for name in dirs:
        folder = root / name
        if not folder.is_dir():
            continue
        found = extract_from_dir(
            folder,
            method_map=[("**.py", "python")],
            keywords=KEYWORDS,
            comment_tags=COMMENT_TAGS,
            strip_comment_tags=True,
        )
        for filename, lineno, message, comments, context in found:
            location = f"{name}/{Path(filename).as_posix()}"
            template.add(
                message, None, [(location, lineno)], auto_comments=comments, context=context
            )
    return template


def _render(catalog: "Catalog") -> bytes:
    from babel.messages.pofile import write_po

    buffer = io.BytesIO()
    write_po(buffer, catalog, width=100, include_lineno=False)
    return buffer.getvalue()


def _write_if_changed(path: Path, catalog: "Catalog") -> bool:
    """Write `catalog` to `path` unless only its dates would change; True if written."""
    content = _render(catalog)
    if path.is_file() and _DATE_HEADERS.sub(b"", path.read_bytes()) == _DATE_HEADERS.sub(
        b"", content
    ):
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return True


def update_catalogs(
    root: Path = PROJECT_ROOT,
    locale_dir: Path = LOCALE_DIR,
    languages: Iterable[str] = LANGUAGES,
    dirs: Sequence[str] = SOURCE_DIRS,
) -> list[Path]:
    """Extract the texts, rewrite the template and merge it into each language's catalog
    (new texts empty, changed ones fuzzy, removed ones obsolete). Returns the files written.
    English, the source language, whose entries are all empty, is merged without Babel's
    fuzzy matching: it took a plural's empty forms for a translation, and marked a new text
    close to a plural's (`{n} point this round` beside `{n} point`) fuzzy, carrying nothing."""
    from babel.messages.catalog import Catalog

    template = extract_messages(root, dirs)
    written = []
    pot = locale_dir / f"{DOMAIN}.pot"
    if _write_if_changed(pot, template):
        written.append(pot)
    for language in languages:
        path = po_path(language, locale_dir)
        if path.is_file():
            catalog = read_catalog(language, locale_dir)
        else:
            # A new language takes Babel's plural rule for its locale; check its Plural-Forms
            # header (es and de use the two gettext forms, `plural=(n != 1)`).
            catalog = Catalog(
                locale=language,
                domain=DOMAIN,
                header_comment=_HEADER,
                project="wizard-bot",
                fuzzy=False,
            )
        catalog.update(template, no_fuzzy_matching=language == DEFAULT_LANGUAGE)
        if _write_if_changed(path, catalog):
            written.append(path)
    return written


def _forms(value: object) -> tuple[str, ...]:
    """A msgid or msgstr as a tuple of its forms (one, or one per plural form)."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list | tuple):
        return tuple(str(form) for form in value)
    return ("",)


def _msgid(message: "Message") -> str:
    return _forms(message.id)[0]


def missing_messages(template: "Catalog", catalog: "Catalog") -> list[str]:
    """The msgids of `template` (texts used in code) that `catalog` lacks (plurals by their
    singular; a text with a context lacks when the catalog has it in no such context), in
    template order."""
    return [
        _msgid(message)
        for message in template
        if message.id and catalog.get(message.id, message.context) is None
    ]


def unused_messages(template: "Catalog", catalog: "Catalog") -> list[str]:
    """The msgids of `catalog` that no text of `template` is marked as (in its context): an
    entry `extract` would make obsolete, the text it translates shown untranslated if the code
    still shows it (wrapped in a function the extractor does not know); in catalog order."""
    return [
        _msgid(message)
        for message in catalog
        if message.id and template.get(message.id, message.context) is None
    ]


def untranslated_messages(catalog: "Catalog", msgids: Iterable[str] | None = None) -> list[str]:
    """The msgids of `catalog` (or only those in `msgids`) with no usable translation: empty,
    partly empty (plurals) or fuzzy."""
    wanted = None if msgids is None else set(msgids)
    out = []
    for message in catalog:
        if not message.id or (wanted is not None and _msgid(message) not in wanted):
            continue
        if message.fuzzy or not all(_forms(message.string)):
            out.append(_msgid(message))
    return out


def _fields(text: str) -> set[str]:
    try:
        return {field for _, field, _, _ in string.Formatter().parse(text) if field is not None}
    except ValueError:
        return {"<malformed>"}


def placeholder_problems(catalog: "Catalog") -> list[str]:
    """Translations whose `{placeholders}` differ from their msgid's."""
    problems = []
    for message in catalog:
        if not message.id:
            continue
        expected = set().union(*(_fields(msgid) for msgid in _forms(message.id)))
        for text in _forms(message.string):
            if text and _fields(text) != expected:
                problems.append(f"{_msgid(message)!r}: {text!r}")
    return problems


NAMED_FIELDS = frozenset({"name", "names", "chat", "group"})
"""The placeholders that hold a name (a person's, a list of them, a chat's): its first letter is
nobody's to know when the text is translated."""
ELIDING: dict[str, tuple["re.Pattern[str]", frozenset[str] | None]] = {
    "fr": (
        re.compile(
            r"(?<![\w’'])(?:de|que|jusque|lorsque|puisque|le|la|ce|je|me|te|se|ne)\s+\{(\w+)\}",
            re.IGNORECASE,
        ),
        NAMED_FIELDS,
    ),
    "pl": (
        re.compile(
            r"(?<![\w’'])(?:bez|dla|do|ku|na|nad|o|od|po|pod|przed|przez|przy|u|w|we|wobec|z|"
            r"za|ze)\s+\{(\w+)\}",
            re.IGNORECASE,
        ),
        NAMED_FIELDS,
    ),
    "ru": (
        re.compile(
            r"(?<![\w’'])(?:без|в|во|для|до|за|из|к|ко|на|над|о|об|от|перед|по|под|при|про|с|"
            r"со|у|через|вместо|кроме|против|после|среди|ради|около|участием|от\s+имени)"
            r"\s+\{(\w+)\}",
            re.IGNORECASE,
        ),
        NAMED_FIELDS,
    ),
    "it": (
        re.compile(
            r"(?<![\w’'])(?:il|lo|la|del|dello|della|al|allo|alla|dal|dallo|dalla|nel|nello|"
            r"nella|sul|sullo|sulla|col|a(?=\s+\{(?:name|names|chat|group)\})|"
            r"in(?=\s+\{(?:chat|group)\}))\s+\{(\w+)\}",
            re.IGNORECASE,
        ),
        None,
    ),
    "de": (re.compile(r"(?<![\w’'])(?:in|im|aus)\s+\{(\w+)\}"), frozenset({"group", "chat"})),
    "es": (re.compile(r"(?<![\w’'])en\s+\{(\w+)\}", re.IGNORECASE), frozenset({"group", "chat"})),
    "pt": (re.compile(r"(?<![\w’'])em\s+\{(\w+)\}", re.IGNORECASE), frozenset({"group", "chat"})),
    "ko": (
        re.compile(
            r"\{(\w+)\}(?:\((?:으|이|을|를|은|는|와|과)\)|(?:을|를|이|가|은|는|와|과|으로|로)"
            r"(?![가-힣]))"
        ),
        None,
    ),
}
"""For each language, the words that cannot come right next to a placeholder, and the
placeholders they are wrong beside (None: any, a number or a word alike): a word that takes
another form before a vowel (French `d'Ana`, never `de Ana`; Italian `l'84%`, never `il 84%`,
and `ad Anna` before a name, never `a Anna`),
or a preposition after which a name is declined (Polish `w grupie Rodzina`, never `w Rodzina`;
Russian `в группе`, and after a compound one, `с участием Ани`), which a translation cannot
do to a name it does not know (German names a group before its title too: `in der Gruppe
Zauberer`, never `in Zauberer`, which reads as a place and takes no article a title may have);
or, in Korean, a particle right after one, whose form is the last sound's of what it follows
(`민준이`, `지아가`; `⭐9를`, `🧙을`), which a fallback (`을(를)`) only shows the translation
did not know: the text names what it is instead, or puts a noun between (`{card} 카드를`).
Spanish, Portuguese and Italian put no title right after `en`, `em`, `in` either, for German's
reason (`en el grupo {group}`, `no grupo {group}`, `nel gruppo {group}`)."""


def elision_problems(catalog: "Catalog") -> list[str]:
    """Translations that put a word right before a placeholder whose value decides its form,
    or the value's own (`ELIDING`: French `En attente des annonces de {names}`, which reads
    `de Ana`; Italian `azzeccata il {chance}`, `il 84%`; Polish `w {group}`), or a Korean
    particle right after one (`{card}을(를)`): the text must say it another way
    (`des annonces : {names}`, `w grupie {group}`, `{card} 카드를`)."""
    found = ELIDING.get(_language_of(catalog))
    if found is None:
        return []
    pattern, fields = found
    problems = []
    for message in catalog:
        if not message.id:
            continue
        for text in _forms(message.string):
            hits = [hit.group(1) for hit in pattern.finditer(text)]
            if any(fields is None or field in fields for field in hits):
                problems.append(f"{_msgid(message)!r}: {text!r}")
    return problems


ITALIAN_AGREEING = (
    r"|\{(?:name|names)\}\s+(?:è|sono|era|erano|sarà|saranno)\s+"
    r"(?!(?:di|da|in|a|ad|un|una|il|lo|la|i|gli|le|qui|lì|ora|ancora|già|sempre)\b)\w+[oaie]\b"
)
"""Italian's adjective or participle after `è` or `sono` said of a name (`{names} sono primi`,
`{name} è pronto`), which agrees with them; not a phrase that takes no gender (`è in
vantaggio`, `è di nuovo qui`, `è un bot`)."""
AGREEING: dict[str, "re.Pattern[str]"] = {
    "ru": re.compile(
        r"\{(?:name|names)\}(?:(?:\s*\([^)]*\))?\s+"
        r"(\w+[аеиоуыяё]л(?:ся)?|должен|готов|рад|согласен|уверен|занят|сам)\b"
        r"|\s*\(\w+(?:ий|ый|ой|ая|яя)\))"
    ),
    "pl": re.compile(
        r"\{(?:name|names)\}(?:(?:\s*\([^)]*\))?\s+(\w+ł(?:a|o|y|by)?|powinien|gotów|sam)\b"
        r"|\s*\(\w+(?:ący|ąca|ny|na|ty|ta)\))"
    ),
    **{
        language: re.compile(
            rf"\{{(?:name|names)\}}\s*\(\w+(?:{endings})\)"
            rf"|\b\w+(?:{before})\s*:\s*\{{(?:name|names)\}}"
            + (ITALIAN_AGREEING if language == "it" else "")
        )
        for language, endings, before in (
            ("es", "dor|dora|ero|era", "dor|dora|ero|era"),
            ("pt", "dor|dora|eiro|eira", "dor|dora|eiro|eira"),
            ("it", "iere|iera|tore|trice", "iere|iera|tore|trice"),
            ("fr", "eur|euse|rice", "eur|euse|rice"),
            ("lv", "tājs|tāja|ējs|ēja", "tājs|tāja"),  # `Uzvarēja: {names}`, a verb: "won"
            ("de", "er|erin", "er|erin"),
            ("ro", "er|tor|toare", "er|tor|toare"),
        )
    },
}
"""For each language, a word right after a name (or its role in brackets) that takes the
name's gender: a past tense or a short adjective (Russian `{name} (сдающий) должен`, which
read `Оля (сдающий) должен`; Polish `{name} zagrał`), or a participle or an agent noun in
brackets (`{name} (сдающий)`, `Аня (сдающий)`, `Ania (rozdający)`, `Ana (repartidor)`,
`Anne (donneur)`, `Anna (Geber)`, Romanian `Ana (dealer)`), or such a noun naming them before
a colon (Italian `primo mazziere: {name}`, Latvian `pirmais dalītājs: {name}`). A translation
cannot know the person's gender, so it says it without one (`сдающему ({name}) нужно`,
`{name} (сдаёт)`, `quien reparte ({name})`, `{name}, qui distribue,`, `{name} (gibt)`,
`{name} (împarte)`, `prima smazzata: {name}`, `{name} sāk dalīt kārtis`); Italian, an adjective
after `è`/`sono` too (`ITALIAN_AGREEING`: `Primo posto a pari merito: {names}`).
Dutch keeps `{name} (deler)`: an agent noun of common gender said of anyone, with no
woman's form in use and nothing in the sentence agreeing with it."""


def _language_of(catalog: "Catalog") -> str:
    return str(catalog.locale).split("_")[0] if catalog.locale else ""


def _matching(catalog: "Catalog", pattern: "re.Pattern[str]") -> list[str]:
    """The translations of `catalog` in which `pattern` finds something, as `check` lists them."""
    return [
        f"{_msgid(message)!r}: {text!r}"
        for message in catalog
        if message.id
        for text in _forms(message.string)
        if pattern.search(text)
    ]


def agreement_problems(catalog: "Catalog") -> list[str]:
    """Translations whose word right after a name takes the name's gender (`AGREEING`)."""
    found = AGREEING.get(_language_of(catalog))
    return [] if found is None else _matching(catalog, found)


STRAYS: dict[str, tuple["re.Pattern[str]", str]] = {
    "de": (re.compile(r"(?<![.!?]\s)(?<!^)(?<!\n)\b(?:Sie|Ihnen)\b"), "the formal Sie"),
    "ko": (re.compile(r"\s(?:을|를|은|는|와|과|으로|로)(?=[\s.,!?:;)]|$)"), "a particle set apart"),
    "fr": (re.compile(r" (?=[:;?!])"), "a plain space before : ; ? !"),
    "pl": (
        re.compile(r"\bkolejk\w*|\bkolejce\b", re.IGNORECASE),
        "a queue (kolejka) for a turn (kolej)",
    ),
    "nl": (re.compile(r"(?:\d|\{\w+\})\s+spelen\b"), "the verb spelen for games (spellen)"),
}
"""For each language, a word out of its place, and what it is: German `Sie` within a sentence
reads as the formal address in a catalog that says `du` (`Merke eine Karte vor: Sie wird…`, the
card meant), and `Ihnen` is it; a Korean particle is written on the word it follows, and set
apart after a command it reads as a stray syllable (`/hint 를`: `/hint를`, or `/options coach
명령으로`, the command named); French sets a no-break space (U+00A0) before `:`, `;`, `?` and
`!`, and a plain one lets the sign start a line of its own; a Polish turn is `kolej`, and
`kolejka` a queue (`w twojej kolejce`: "in your queue"); Dutch games are `spellen`, and
`spelen` after a number the verb "to play" (`{n} spelen`)."""


READER_GENDER: dict[str, "re.Pattern[str]"] = {
    "fr": re.compile(
        r"\bvous (?:êtes|étiez|serez) (?:le|la) \w+(?:eur|euse|rice)\b|\bvous seule?s?\b"
        r"|\bnouve(?:au|aux|lle|lles) (?:à|dans)\b",
        re.IGNORECASE,
    ),
    "es": re.compile(
        r"¿(?:Nuev|List|Segur)[oa]\b|\b[Bb]ienvenid[oa]\b"
        r"|\b[Ee]stás\s+(?:list|segur|sentad|invitad)[oa]\b|\b[Ee]res\s+(?:el|la)\s"
    ),
    "pt": re.compile(
        r"\b(?:Nov|Pront)[oa]\s+(?:no|na|em|para)\b|\b[Bb]em-vind[oa]\b"
        r"|\b(?:[Ee]stá|[Ff]icou)\s+(?:pront|segur|sentad|convidad)[oa]\b"
        r"|\b(?:[Vv]ocê é|é mais)\s+(?:o|a)\s|\b[Cc]omo\s+(?:carteador|anfitrião)\b"
    ),
    "it": re.compile(
        r"\bNuov[oa]\s+(?:a|di|in|del|della)\b|\b[Bb]envenut[oa]\b"
        r"|\b[Ss]ei\s+(?:pront|sicur|sedut|invitat|nuov)[oa]\b|\b[Ss]ei\s+(?:il|lo|la)\s"
    ),
}
"""For each language, a word said of the reader that takes their gender, which no text
knows: French `vous êtes le donneur` (a Wizard turned up), `pour vous seul` (a hand shown
in the channel) and `Nouveau à Wizard ?` (/help) took a man's, as did Spanish, Portuguese and
Italian `¿Nuevo en Wizard?`, `Novo no Wizard?`, `Nuovo a Wizard?`, and a role said of the
reader with a man's noun (`eres el repartidor`, `como carteador`, `sei il mazziere`). The text
says it without one (`c’est vous qui distribuez`, `à vous seulement`, `Vous découvrez Wizard ?`,
`¿No conoces Wizard?`, `repartes tú`)."""


def reader_gender_problems(catalog: "Catalog") -> list[str]:
    """Translations with a word said of the reader that takes their gender (`READER_GENDER`)."""
    found = READER_GENDER.get(_language_of(catalog))
    return [] if found is None else _matching(catalog, found)


def stray_problems(catalog: "Catalog") -> list[str]:
    """Translations with a word out of its place (`STRAYS`), each with what it is."""
    found = STRAYS.get(_language_of(catalog))
    if found is None:
        return []
    pattern, what = found
    return [f"{what} {problem}" for problem in _matching(catalog, pattern)]


def check_catalogs(root: Path = PROJECT_ROOT, locale_dir: Path = LOCALE_DIR) -> list[str]:
    """Every problem with the catalogs, one line each: texts the code uses that a catalog
    lacks, entries of a catalog that no text of the code is marked as (`unused_messages`),
    translations missing or fuzzy outside English, an entry marked fuzzy in English
    (whose entries are empty: the mark means nothing, and reads as work left undone),
    placeholders that do not match, a word elided before a name (or a Korean particle after
    a placeholder), a word that takes a name's gender, a word out of its place (`STRAYS`), a
    word that takes the reader's gender (`READER_GENDER`)."""
    template = extract_messages(root)
    problems = []
    for language in LANGUAGES:
        catalog = read_catalog(language, locale_dir)
        problems += [f"{language}: missing {m!r}" for m in missing_messages(template, catalog)]
        problems += [f"{language}: unused {m!r}" for m in unused_messages(template, catalog)]
        if language != DEFAULT_LANGUAGE:
            problems += [f"{language}: untranslated {m!r}" for m in untranslated_messages(catalog)]
        else:
            fuzzy = [_msgid(message) for message in catalog if message.id and message.fuzzy]
            problems += [f"{language}: fuzzy {m!r}" for m in fuzzy]
        problems += [f"{language}: placeholders {p}" for p in placeholder_problems(catalog)]
        problems += [
            f"{language}: elided before a placeholder {p}" for p in elision_problems(catalog)
        ]
        problems += [f"{language}: a gender after a name {p}" for p in agreement_problems(catalog)]
        problems += [f"{language}: {p}" for p in stray_problems(catalog)]
        problems += [
            f"{language}: a gender for the reader {p}" for p in reader_gender_problems(catalog)
        ]
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m bot.show.i18n extract|check`."""
    parser = argparse.ArgumentParser(prog="python -m bot.show.i18n", description=__doc__)
    parser.add_argument("command", choices=["extract", "check"])
    args = parser.parse_args(argv)
    if args.command == "extract":
        for path in update_catalogs():
            print(f"updated {path.relative_to(PROJECT_ROOT)}")
        return 0
    problems = check_catalogs()
    for problem in problems:
        print(problem)
    print(f"{len(problems)} problem(s)", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
