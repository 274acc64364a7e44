"""Deck themes: how a card is *shown* to people (RULES.md "Cards"); the engine's cards stay
`R13`, `W`, `J` whatever the theme.

| theme | blue `B` | green `G` | red `R` | yellow `Y` | ranks | Wizard `W` | Jester `J` |
|---|---|---|---|---|---|---|---|
| `colours` (default) | 🔷 | 🟩 | 🔺 | ⭐ | 1-13: `🔺13` | 🧙 | 🃏 |
| `races` | 👤 humans | 🧝 elves | 🪓 dwarves | 🗿 giants | 1-13: `🪓13` | 🧙 | 🃏 |
| `french` | ♠ spades | ♣ clubs | ♥ hearts | ♦ diamonds | 2-10 J Q K A: `A♥` | 🃏▲ | 🃏▼ |

Every face has one symbol per suit, distinct in shape as well as colour (a diamond, a square,
a triangle, a star; figures; the French suits), so suits are told apart at a glance on a phone
button, by colour-blind players too, and line up in a monospace table (an emoji takes two columns: a
numbered face is at most four columns wide, a French one at most three).

The French deck: ranks 1…13 are shown as 2, 3, …, 10, J, Q, K, A (1→2, 9→10, 10→J, 11→Q,
12→K, 13→A). Hearts are red and diamonds yellow, as in four-colour decks (the German one
prints diamonds yellow); clubs are green, as in four-colour poker decks; spades, the
remaining dark suit, are blue. The two jokers stand for Wizards (high joker, 🃏▲) and Jesters
(low joker, 🃏▼); the triangles say which is which and that one beats everything and the
other nothing. The French suit symbols are text characters, not emoji, so they stay one column.

`parse_card_text` reads what a person types: record notation always (`R13`, `w`, `j`), the
faces of every theme, and names in every language of the catalogs (`red 13`, `rot 13`,
`ace of hearts`, `as de corazones`, `Herz Ass`, `AH`, `10♠`, `dwarves 5`, `Zauberer`).
"""

import functools
import re
import unicodedata
from collections.abc import Iterable
from enum import StrEnum

from bot.show.i18n import LANGUAGES, N_, NC_, Texts, texts
from engine.cards import JESTER, RANK_OF, RANKS, SUIT_OF, WIZARD, Card, Suit, sorted_hand


class Theme(StrEnum):
    """A way of showing the deck."""

    COLOURS = "colours"
    RACES = "races"
    FRENCH = "french"


DEFAULT_THEME = Theme.COLOURS

THEME_NAMES: dict[Theme, str] = {
    Theme.COLOURS: N_("Colours"),
    Theme.RACES: N_("Races"),
    Theme.FRENCH: N_("French deck"),
}
"""Each theme's name as a list shows it, capitalised (translate with `theme_name`)."""
IN_A_SENTENCE = "deck in a sentence"
"""The catalogs' context of a theme's name within a sentence (`THEME_WORDS`)."""
THEME_WORDS: dict[Theme, str] = {
    # TRANSLATORS: a deck's name within a sentence (`Settings saved: English, cards: colours.`),
    # lower-case where your language writes it so (`цвета`, `colores`), else as `Farben`.
    Theme.COLOURS: NC_("deck in a sentence", "colours"),
    # TRANSLATORS: a deck's name within a sentence (`Settings saved: English, cards: races.`),
    # lower-case where your language writes it so (`расы`, `razas`), else as `Völker`.
    Theme.RACES: NC_("deck in a sentence", "races"),
    # TRANSLATORS: a deck's name within a sentence (`Settings saved: English, cards: French
    # deck.`), lower-case where your language writes it so (`baraja francesa`, `französisches
    # Blatt`), a capital only where one is written mid-sentence.
    Theme.FRENCH: NC_("deck in a sentence", "French deck"),
}
"""Each theme's name as a sentence writes it (`THEME_NAMES` as a list does): `races`,
`расы`, `Völker` (translate with `theme_in_a_sentence`)."""

SUIT_FACES: dict[Theme, dict[Suit, str]] = {
    Theme.COLOURS: {Suit.BLUE: "🔷", Suit.GREEN: "🟩", Suit.RED: "🔺", Suit.YELLOW: "⭐"},
    Theme.RACES: {Suit.BLUE: "👤", Suit.GREEN: "🧝", Suit.RED: "🪓", Suit.YELLOW: "🗿"},
    Theme.FRENCH: {Suit.BLUE: "♠", Suit.GREEN: "♣", Suit.RED: "♥", Suit.YELLOW: "♦"},
}

OLD_FACES: dict[Suit, str] = {Suit.BLUE: "🟦", Suit.GREEN: "🟩", Suit.RED: "🟥", Suit.YELLOW: "🟨"}
"""The colour theme's faces before each suit had a shape of its own: still read when typed."""

SUIT_NAMES: dict[Theme, dict[Suit, str]] = {
    Theme.COLOURS: {
        Suit.BLUE: N_("blue"),
        Suit.GREEN: N_("green"),
        Suit.RED: N_("red"),
        Suit.YELLOW: N_("yellow"),
    },
    Theme.RACES: {
        Suit.BLUE: N_("humans"),
        Suit.GREEN: N_("elves"),
        Suit.RED: N_("dwarves"),
        Suit.YELLOW: N_("giants"),
    },
    Theme.FRENCH: {
        Suit.BLUE: N_("spades"),
        Suit.GREEN: N_("clubs"),
        Suit.RED: N_("hearts"),
        Suit.YELLOW: N_("diamonds"),
    },
}

WIZARD_FACES: dict[Theme, str] = {Theme.COLOURS: "🧙", Theme.RACES: "🧙", Theme.FRENCH: "🃏▲"}
JESTER_FACES: dict[Theme, str] = {Theme.COLOURS: "🃏", Theme.RACES: "🃏", Theme.FRENCH: "🃏▼"}

FRENCH_RANKS: dict[int, str] = {rank: str(rank + 1) for rank in range(1, 10)} | {
    10: "J",
    11: "Q",
    12: "K",
    13: "A",
}
"""How the French deck shows each rank 1-13."""

FRENCH_RANK_NAMES: dict[int, str] = {
    10: N_("jack"),
    11: N_("queen"),
    12: N_("king"),
    13: N_("ace"),
}

WIZARD_NAME = N_("Wizard")
JESTER_NAME = N_("Jester")
HIGH_JOKER = N_("high joker")
LOW_JOKER = N_("low joker")


def read_faces(suit: Suit) -> tuple[str, ...]:
    """Every face read as `suit` when typed: each theme's (`🔺`, `🪓`, `♥`), and the old `🟥`."""
    return (*(faces[suit] for faces in SUIT_FACES.values()), OLD_FACES[suit])


def theme_name(t: Texts, theme: Theme) -> str:
    """The theme's name in the language of `t`."""
    return t.gettext(THEME_NAMES[theme])


def theme_in_a_sentence(t: Texts, theme: Theme) -> str:
    """The theme's name as a sentence in the language of `t` writes it (`карты: расы`, where
    `theme_name` is capitalised as a list writes it, `Расы`)."""
    return t.pgettext(IN_A_SENTENCE, THEME_WORDS[theme])


def suit_face(suit: Suit, theme: Theme) -> str:
    """The suit's symbol: `🔺`, `🪓`, `♥`."""
    return SUIT_FACES[theme][suit]


def _card_face(card: Card, theme: Theme) -> str:
    if card == WIZARD:
        return WIZARD_FACES[theme]
    if card == JESTER:
        return JESTER_FACES[theme]
    suit = SUIT_OF[card]
    if suit is None:  # pragma: no cover - every card but W and J has a suit
        raise ValueError(f"not a card: {card!r}")
    rank = RANK_OF[card]
    if theme is Theme.FRENCH:
        return f"{FRENCH_RANKS[rank]}{SUIT_FACES[theme][suit]}"
    return f"{SUIT_FACES[theme][suit]}{rank}"


CARD_FACES: dict[Theme, dict[str, str]] = {
    theme: {card: _card_face(Card(card), theme) for card in SUIT_OF} for theme in Theme
}
"""Each card's face in each theme, made once (`card_face`)."""


def card_face(card: Card, theme: Theme) -> str:
    """A card's short face, for buttons and tables: `🔺13`, `🪓13`, `A♥`, `🧙`, `🃏▼`."""
    face = CARD_FACES[theme].get(card)
    return _card_face(card, theme) if face is None else face


def cards_line(cards: Iterable[Card], theme: Theme) -> str:
    """A hand as one line of faces, in display order: `🧙 🔷7 🔺13 🔺2 🃏`."""
    faces = CARD_FACES[theme]
    return " ".join([faces[card] for card in sorted_hand(cards)])


def suit_name(t: Texts, suit: Suit, theme: Theme) -> str:
    """The suit's name in the language of `t`: `red`/`rot`/`rojo`, `dwarves`, `hearts`."""
    return t.gettext(SUIT_NAMES[theme][suit])


def rank_name(t: Texts, rank: int, theme: Theme) -> str:
    """A rank as said aloud: `13` in the numbered themes; `2`…`10`, `jack`…`ace` in French."""
    if theme is Theme.FRENCH:
        return t.gettext(FRENCH_RANK_NAMES[rank]) if rank in FRENCH_RANK_NAMES else str(rank + 1)
    return str(rank)


def card_name(t: Texts, card: Card, theme: Theme) -> str:
    """A card's full name, for screen readers and alerts: `red 13`, `Wizard`, `Jester`,
    `ace of hearts`, `high joker (Wizard)`."""
    if card in (WIZARD, JESTER):
        name = t.gettext(WIZARD_NAME if card == WIZARD else JESTER_NAME)
        if theme is Theme.FRENCH:
            joker = t.gettext(HIGH_JOKER if card == WIZARD else LOW_JOKER)
            return f"{joker} ({name})"
        return name
    suit = SUIT_OF[card]
    if suit is None:  # pragma: no cover - every card but W and J has a suit
        raise ValueError(f"not a card: {card!r}")
    rank = rank_name(t, RANK_OF[card], theme)
    if theme is Theme.FRENCH:
        return t("{rank} of {suit}", rank=rank, suit=suit_name(t, suit, theme))
    return t("{suit} {rank}", suit=suit_name(t, suit, theme), rank=rank)


# -- Reading what people type ---------------------------------------------------------------

_NUMBERED = "numbered"  # a suit word of the colours or races theme, or a record letter: 1-13
_FRENCH = "french"  # a French suit word or symbol: ranks 2-10, J, Q, K, A

_IGNORED = frozenset({"of", "the", "de", "del", "la", "las", "los", "el", "der", "die", "das"})
"""Words between a rank and a suit: `ace of hearts`, `as de corazones`."""

_EXTRA_SUIT_WORDS: dict[str, Suit] = {
    # singular and other forms people type
    "human": Suit.BLUE,
    "mensch": Suit.BLUE,
    "humano": Suit.BLUE,
    "elf": Suit.GREEN,
    "elfe": Suit.GREEN,
    "elfo": Suit.GREEN,
    "dwarf": Suit.RED,
    "zwerg": Suit.RED,
    "enano": Suit.RED,
    "giant": Suit.YELLOW,
    "riese": Suit.YELLOW,
    "gigante": Suit.YELLOW,
    "roja": Suit.RED,
    "amarilla": Suit.YELLOW,
}
_EXTRA_FRENCH_WORDS: dict[str, Suit] = {
    "s": Suit.BLUE,
    "spade": Suit.BLUE,
    "pica": Suit.BLUE,
    "♤": Suit.BLUE,
    "c": Suit.GREEN,
    "club": Suit.GREEN,
    "trebol": Suit.GREEN,
    "♧": Suit.GREEN,
    "h": Suit.RED,
    "heart": Suit.RED,
    "corazon": Suit.RED,
    "♡": Suit.RED,
    "d": Suit.YELLOW,
    "diamond": Suit.YELLOW,
    "diamante": Suit.YELLOW,
    "♢": Suit.YELLOW,
}
_EXTRA_FRENCH_RANKS: dict[str, int] = {
    "j": 10,
    "sota": 10,
    "q": 11,
    "dama": 11,
    "k": 12,
    "konig": 12,
    "a": 13,
}
_EXTRA_WIZARD_WORDS = ("w", "zauberer", "mago", "big joker", "red joker", "joker ▲", "joker +")
_EXTRA_JESTER_WORDS = ("j", "narr", "bufon", "small joker", "black joker", "joker ▼")
_AMBIGUOUS = ("joker", "🃏 joker")


def _fold(text: str) -> str:
    """Text as compared: no accents, variation selectors, skin tones or emoji ZWJ tails;
    case-folded."""
    text = re.sub("\u200d.", "", text)
    text = unicodedata.normalize("NFKD", text)
    return "".join(
        char
        for char in text
        if not unicodedata.combining(char)
        and char not in "\ufe0e\ufe0f"
        and not 0x1F3FB <= ord(char) <= 0x1F3FF
    ).casefold()


def _tokens(text: str) -> list[str]:
    """Words, numbers and single symbols, punctuation dropped: `A♥` → `a`, `♥`."""
    found = re.findall(r"\d+|[^\W\d_]+|[^\w\s]", _fold(text))
    return [token for token in found if not unicodedata.category(token[0]).startswith("P")]


def _key(text: str) -> str:
    return " ".join(_tokens(text))


@functools.cache
def _vocabulary(
    theme: Theme,
) -> tuple[dict[str, Card | None], dict[str, tuple[Suit, str]], dict[str, int]]:
    """What `parse_card_text` understands in `theme`: whole phrases (Wizard, Jester, ambiguous
    ones as None), suit tokens with their family, French rank words."""
    catalogs = [texts(language) for language in LANGUAGES]
    phrases: dict[str, Card | None] = {}
    suits: dict[str, tuple[Suit, str]] = {}
    ranks: dict[str, int] = {}
    for t in catalogs:
        for suit_theme, names in SUIT_NAMES.items():
            family = _FRENCH if suit_theme is Theme.FRENCH else _NUMBERED
            for suit, name in names.items():
                suits[_key(t.gettext(name))] = (suit, family)
        for rank, name in FRENCH_RANK_NAMES.items():
            ranks[_key(t.gettext(name))] = rank
        phrases[_key(t.gettext(WIZARD_NAME))] = WIZARD
        phrases[_key(t.gettext(JESTER_NAME))] = JESTER
        for card in (WIZARD, JESTER):
            phrases[_key(card_name(t, card, Theme.FRENCH))] = card
        phrases[_key(t.gettext(HIGH_JOKER))] = WIZARD
        phrases[_key(t.gettext(LOW_JOKER))] = JESTER
    for suit in Suit:
        suits[suit.value.lower()] = (suit, _NUMBERED)
        for face in read_faces(suit):
            family = _FRENCH if face == SUIT_FACES[Theme.FRENCH][suit] else _NUMBERED
            suits[_key(face)] = (suit, family)
    suits |= {word: (suit, _NUMBERED) for word, suit in _EXTRA_SUIT_WORDS.items()}
    suits |= {word: (suit, _FRENCH) for word, suit in _EXTRA_FRENCH_WORDS.items()}
    ranks |= _EXTRA_FRENCH_RANKS
    phrases |= {_key(word): WIZARD for word in _EXTRA_WIZARD_WORDS}
    phrases |= {_key(word): JESTER for word in _EXTRA_JESTER_WORDS}
    phrases |= {_key(word): None for word in _AMBIGUOUS}
    # Every theme's faces, this theme's last so that they win (🃏 is the Jester in colours
    # and races, but only half a face in the French deck, where it is ambiguous).
    for face_theme in sorted(Theme, key=lambda other: other is theme):
        phrases[_key(WIZARD_FACES[face_theme])] = WIZARD
        phrases[_key(JESTER_FACES[face_theme])] = JESTER
    if theme is Theme.FRENCH:
        phrases[_key("🃏")] = None
    return phrases, suits, ranks


def _numbered(tokens: list[str], theme: Theme) -> Card | None:
    """A suit token and a rank token, in either order."""
    _, suits, ranks = _vocabulary(theme)
    if len(tokens) != 2:
        return None
    for suit_token, rank_token in (tokens, tokens[::-1]):
        if suit_token not in suits:
            continue
        suit, family = suits[suit_token]
        if rank_token.isdigit():
            number = int(rank_token)
            if family == _FRENCH and not 2 <= number <= 10:
                continue  # a French deck numbers only 2 to 10
            rank = number - 1 if family == _FRENCH else number
        elif family == _FRENCH and rank_token in ranks:
            rank = ranks[rank_token]
        else:
            continue
        if rank in RANKS:
            return Card(f"{suit}{rank}")
    return None


def parse_suit_text(text: str) -> Suit | None:
    """The suit `text` names: its letter (B, G, R, Y), its face or its name in any theme and
    any language (as cards are read: `red`, `rot`, `hearts`, `♥`, `dwarves`)."""
    folded = text.strip().casefold()
    for suit in Suit:
        if folded == suit.value.casefold() or folded in _suit_words(suit):
            return suit
    return None


@functools.cache
def _suit_words(suit: Suit) -> frozenset[str]:
    words = set(read_faces(suit))
    for language in LANGUAGES:
        t = texts(language)
        words |= {t.gettext(names[suit]).casefold() for names in SUIT_NAMES.values()}
    return frozenset(words)


def parse_card_text(text: str, theme: Theme) -> Card | None:
    """The card a person means by `text`, or None: record notation (`R13`, `w`, `j`), a face
    of any theme (`🔺13`, `A♥`, `🧙`; the old `🟥13` too), or a name in any catalog language
    (`red 13`, `rot 13`, `ace of hearts`, `as de corazones`, `AH`, `dwarf 5`, `Wizard`,
    `Narr`). `theme` settles faces that differ between themes: a bare `🃏` is the Jester, but
    not in the French deck."""
    record = text.strip().upper()
    if record in SUIT_OF:
        return Card(record)
    phrases, _, _ = _vocabulary(theme)
    tokens = [token for token in _tokens(text) if token not in _IGNORED]
    phrase = " ".join(tokens)
    if phrase in phrases:
        return phrases[phrase]
    card = _numbered(tokens, theme)
    if card is None and len(tokens) == 1 and len(tokens[0]) == 2 and tokens[0].isalpha():
        card = _numbered(list(tokens[0]), theme)  # `AH`, `QS`, `as` (ace of spades)
    return card
