"""Deck themes: distinct, short faces; French ranks; translated names; typed cards read back."""

import unicodedata

import pytest

from bot.commands import BY_KIND, BadArgument, Kind
from bot.show.i18n import LANGUAGES, texts
from bot.show.themes import (
    DEFAULT_THEME,
    Theme,
    card_face,
    card_name,
    cards_line,
    parse_card_text,
    parse_suit_text,
    suit_face,
    suit_name,
    theme_in_a_sentence,
    theme_name,
)
from engine import DECK, JESTER, WIZARD, Card, Suit, parse_cards, sorted_hand
from engine.cards import NUMBERED

CARDS: list[Card] = sorted(set(DECK))
THEMES = list(Theme)


def width(text: str) -> int:
    """Columns on a terminal or phone: an emoji (wide character) counts 2, a variation selector
    or joiner 0, anything else 1."""
    total = 0
    for char in text:
        if char in "\ufe0e\ufe0f\u200d" or unicodedata.combining(char):
            continue
        total += 2 if unicodedata.east_asian_width(char) in "WF" else 1
    return total


def test_the_deck_has_54_distinct_cards() -> None:
    assert len(CARDS) == 54


def test_theme_values() -> None:
    assert [theme.value for theme in Theme] == ["colours", "races", "french"]
    assert DEFAULT_THEME is Theme.COLOURS


@pytest.mark.parametrize("theme", THEMES)
def test_faces_are_distinct(theme: Theme) -> None:
    faces = {card_face(card, theme) for card in CARDS}
    assert len(faces) == 54
    assert len({suit_face(suit, theme) for suit in Suit}) == 4


@pytest.mark.parametrize("theme", THEMES)
def test_faces_are_short(theme: Theme) -> None:
    for card in NUMBERED:
        assert width(card_face(card, theme)) <= 4, card_face(card, theme)
    for card in (WIZARD, JESTER):
        assert 1 <= width(card_face(card, theme)) <= 4


@pytest.mark.parametrize("theme", THEMES)
def test_a_numbered_face_shows_its_suit_face(theme: Theme) -> None:
    for card in NUMBERED:
        assert suit_face(Suit(card[0]), theme) in card_face(card, theme)


def test_colour_faces() -> None:
    assert card_face(Card("R13"), Theme.COLOURS) == "🔺13"
    assert card_face(Card("B1"), Theme.COLOURS) == "🔷1"
    assert card_face(Card("G7"), Theme.COLOURS) == "🟩7"
    assert card_face(Card("Y10"), Theme.COLOURS) == "⭐10"
    assert card_face(WIZARD, Theme.COLOURS) == "🧙"
    assert card_face(JESTER, Theme.COLOURS) == "🃏"


def test_race_faces() -> None:
    suits = (Suit.BLUE, Suit.GREEN, Suit.RED, Suit.YELLOW)
    faces = [suit_face(suit, Theme.RACES) for suit in suits]
    assert faces == ["👤", "🧝", "🪓", "🗿"]
    assert card_face(Card("R13"), Theme.RACES) == "🪓13"


def test_french_ranks() -> None:
    shown = [card_face(Card(f"R{rank}"), Theme.FRENCH) for rank in range(1, 14)]
    assert shown == ["2♥", "3♥", "4♥", "5♥", "6♥", "7♥", "8♥", "9♥", "10♥", "J♥", "Q♥", "K♥", "A♥"]
    suits = {suit: suit_face(suit, Theme.FRENCH) for suit in Suit}
    assert suits == {Suit.BLUE: "♠", Suit.GREEN: "♣", Suit.RED: "♥", Suit.YELLOW: "♦"}


def test_french_jokers_are_told_apart() -> None:
    wizard, jester = card_face(WIZARD, Theme.FRENCH), card_face(JESTER, Theme.FRENCH)
    assert wizard != jester
    assert "🃏" in wizard
    assert "🃏" in jester


@pytest.mark.parametrize(
    ("language", "theme", "names"),
    [
        ("en", Theme.COLOURS, ["blue", "green", "red", "yellow"]),
        ("de", Theme.COLOURS, ["blau", "grün", "rot", "gelb"]),
        ("es", Theme.COLOURS, ["azul", "verde", "rojo", "amarillo"]),
        ("en", Theme.RACES, ["humans", "elves", "dwarves", "giants"]),
        ("de", Theme.RACES, ["Menschen", "Elfen", "Zwerge", "Riesen"]),
        ("es", Theme.RACES, ["humanos", "elfos", "enanos", "gigantes"]),
        ("en", Theme.FRENCH, ["spades", "clubs", "hearts", "diamonds"]),
        ("de", Theme.FRENCH, ["Pik", "Kreuz", "Herz", "Karo"]),
        ("es", Theme.FRENCH, ["picas", "tréboles", "corazones", "diamantes"]),
    ],
)
def test_suit_names(language: str, theme: Theme, names: list[str]) -> None:
    t = texts(language)
    assert [suit_name(t, suit, theme) for suit in Suit] == names


@pytest.mark.parametrize(
    ("language", "theme", "card", "name"),
    [
        ("en", Theme.COLOURS, "R13", "red 13"),
        ("en", Theme.COLOURS, "W", "Wizard"),
        ("en", Theme.COLOURS, "J", "Jester"),
        ("de", Theme.COLOURS, "R13", "rot 13"),
        ("de", Theme.COLOURS, "W", "Zauberer"),
        ("es", Theme.COLOURS, "J", "Bufón"),
        ("en", Theme.RACES, "R13", "dwarves 13"),
        ("de", Theme.RACES, "G2", "Elfen 2"),
        ("en", Theme.FRENCH, "R13", "ace of hearts"),
        ("en", Theme.FRENCH, "B1", "2 of spades"),
        ("en", Theme.FRENCH, "G10", "jack of clubs"),
        ("de", Theme.FRENCH, "R13", "Herz Ass"),
        ("es", Theme.FRENCH, "R13", "as de corazones"),
        ("es", Theme.FRENCH, "Y12", "rey de diamantes"),
        ("en", Theme.FRENCH, "W", "high joker (Wizard)"),
        ("en", Theme.FRENCH, "J", "low joker (Jester)"),
        ("de", Theme.FRENCH, "J", "niedriger Joker (Narr)"),
    ],
)
def test_card_names(language: str, theme: Theme, card: str, name: str) -> None:
    assert card_name(texts(language), Card(card), theme) == name


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("language", ["en", "de", "es"])
def test_card_names_are_distinct(theme: Theme, language: str) -> None:
    t = texts(language)
    assert len({card_name(t, card, theme) for card in CARDS}) == 54


def test_theme_names() -> None:
    assert theme_name(texts("en"), Theme.FRENCH) == "French deck"
    assert theme_name(texts("de"), Theme.RACES) == "Völker"
    assert theme_name(texts("es"), Theme.COLOURS) == "Colores"


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_a_decks_name_in_a_sentence_is_its_lists_name_as_a_sentence_writes_it(
    language: str,
) -> None:
    """The settings message names the deck mid-sentence (`карты: расы`): the list's name
    (`Расы`), its first letter as the language writes it there: lower-case but in German
    (nouns), Korean (no case) and Dutch's `Frans` (a people's adjective). It was the list's
    capitalised name in every language."""
    t = texts(language)
    capitalised = {"de": {Theme.COLOURS, Theme.RACES}, "nl": {Theme.FRENCH}, "en": {Theme.FRENCH}}
    for theme in Theme:
        named, written = theme_name(t, theme), theme_in_a_sentence(t, theme)
        assert written[1:] == named[1:], (language, theme)
        if theme in capitalised.get(language, set()) or language == "ko":
            assert written == named, (language, theme)
        else:
            assert written[0] == named[0].lower() != named[0], (language, theme)


@pytest.mark.parametrize("theme", THEMES)
def test_cards_line_is_in_display_order(theme: Theme) -> None:
    hand = parse_cards("J R2 B7 W R13 Y1 G10")
    line = cards_line(hand, theme)
    assert line.split(" ") == [card_face(card, theme) for card in sorted_hand(hand)]
    assert cards_line([], theme) == ""


def test_cards_line_example() -> None:
    assert cards_line(parse_cards("J R2 B7 W R13"), Theme.COLOURS) == "🧙 🔷7 🔺13 🔺2 🃏"
    assert cards_line(parse_cards("J R2 B7 W R13"), Theme.FRENCH) == "🃏▲ 8♠ A♥ 3♥ 🃏▼"


@pytest.mark.parametrize("theme", THEMES)
def test_faces_parse_back(theme: Theme) -> None:
    for card in CARDS:
        assert parse_card_text(card_face(card, theme), theme) == card, card_face(card, theme)
        assert parse_card_text(f" {card_face(card, theme)}\ufe0f ", theme) == card


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("language", ["en", "de", "es"])
def test_names_parse_back(theme: Theme, language: str) -> None:
    t = texts(language)
    for card in CARDS:
        assert parse_card_text(card_name(t, card, theme), theme) == card, card_name(t, card, theme)


@pytest.mark.parametrize("theme", THEMES)
def test_record_notation_always_parses(theme: Theme) -> None:
    for card in CARDS:
        assert parse_card_text(card, theme) == card
        assert parse_card_text(card.lower(), theme) == card
        assert parse_card_text(f"  {card} ", theme) == card
        if card not in (WIZARD, JESTER):
            assert parse_card_text(f"{card[0]} {card[1:]}", theme) == card


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("red 13", "R13"),
        ("13 red", "R13"),
        ("Rot 13", "R13"),
        ("rojo 13", "R13"),
        ("grün 4", "G4"),
        ("grun 4", "G4"),
        ("dwarves 5", "R5"),
        ("dwarf 5", "R5"),
        ("Zwerge 5", "R5"),
        ("enano 5", "R5"),
        ("ace of hearts", "R13"),
        ("Ace of Hearts!", "R13"),
        ("as de corazones", "R13"),
        ("Herz-Ass", "R13"),
        ("AH", "R13"),
        ("ha", "R13"),
        ("A♥", "R13"),
        ("♥A", "R13"),
        ("AS", "B13"),
        ("10♠", "B9"),
        ("10 of spades", "B9"),
        ("JH", "R10"),
        ("QC", "G11"),
        ("K♦", "Y12"),
        ("2 of clubs", "G1"),
        ("🔺 13", "R13"),
        ("🟥 13", "R13"),  # the old face
        ("⭐7", "Y7"),
        ("🧝🏽3", "G3"),
        ("wizard", "W"),
        ("Zauberer", "W"),
        ("mago", "W"),
        ("🧙‍♂️", "W"),
        ("jester", "J"),
        ("Narr", "J"),
        ("bufon", "J"),
        ("high joker", "W"),
        ("low joker", "J"),
        ("comodín alto", "W"),
    ],
)
def test_typed_cards(text: str, card: str) -> None:
    for theme in THEMES:
        assert parse_card_text(text, theme) == card, theme


@pytest.mark.parametrize(
    "text",
    ["", "  ", "hello", "R14", "R0", "B", "13", "hearts 1", "hearts 13", "red ace", "joker", "W W"],
)
def test_not_cards(text: str) -> None:
    for theme in THEMES:
        assert parse_card_text(text, theme) is None, theme


def test_a_bare_joker_depends_on_the_theme() -> None:
    assert parse_card_text("🃏", Theme.COLOURS) == JESTER
    assert parse_card_text("🃏", Theme.RACES) == JESTER
    assert parse_card_text("🃏", Theme.FRENCH) is None
    assert parse_card_text("🃏▲", Theme.COLOURS) == WIZARD


@pytest.mark.parametrize(
    ("language", "named"),
    [
        ("de", "races (Völker)"),
        ("ru", "races (Расы)"),
        ("ko", "races (종족)"),
        ("en", "races (Races)"),
    ],
)
def test_an_unknown_theme_is_answered_with_the_themes_named_in_the_readers_language(
    language: str, named: str
) -> None:
    """`/theme` with no theme (or an unknown one) lists the themes to type, each with its name
    in the reader's language, as `/language` lists `de (Deutsch)`: it listed `colours, races,
    french` in every language, three English words a reader may not know."""
    arg = BY_KIND[Kind.THEME].arg
    assert arg is not None
    with pytest.raises(BadArgument) as refused:
        arg.read("", DEFAULT_THEME)
    said = refused.value.say(texts(language))
    assert named in said, said
    assert said.endswith("/theme races"), said


@pytest.mark.parametrize(
    ("typed", "theme", "suit"),
    [
        ("R", Theme.COLOURS, Suit.RED),
        ("y", Theme.COLOURS, Suit.YELLOW),
        ("красные", Theme.COLOURS, Suit.RED),
        ("Rot", Theme.COLOURS, Suit.RED),
        ("grün", Theme.COLOURS, Suit.GREEN),
        ("hearts", Theme.FRENCH, Suit.RED),
        ("♠", Theme.FRENCH, Suit.BLUE),
        ("🔺", Theme.COLOURS, Suit.RED),
        ("zwerge", Theme.RACES, Suit.RED),
    ],
)
def test_trump_takes_a_suit_by_its_name_in_any_language(
    typed: str, theme: Theme, suit: Suit
) -> None:
    """`/trump` took only the English letters B, G, R and Y, which a reader of another language
    has no way to guess: it takes the suit's name in any language and theme, and its face, as a
    card is read (`/play rot 13`), and the letters still."""
    arg = BY_KIND[Kind.TRUMP].arg
    assert arg is not None
    assert arg.read(typed, theme) == suit


@pytest.mark.parametrize(
    ("language", "theme", "said"),
    [
        (
            "ru",
            Theme.COLOURS,
            "Выбери масть: синие, зелёные, красные, жёлтые. Например, /trump красные",
        ),
        ("de", Theme.FRENCH, "Wähle eine Farbe: Pik, Kreuz, Herz, Karo. Z. B. /trump Herz"),
        ("en", Theme.RACES, "Choose a suit: humans, elves, dwarves, giants. E.g. /trump dwarves"),
    ],
)
def test_an_unknown_suit_is_answered_with_the_suits_named_in_the_readers_language(
    language: str, theme: Theme, said: str
) -> None:
    """`/trump` with no suit (or an unknown one) names the suits in the reader's language and
    the chat's deck, as they are typed; it said `B, G, R or Y` in every language."""
    arg = BY_KIND[Kind.TRUMP].arg
    assert arg is not None
    with pytest.raises(BadArgument) as refused:
        arg.read("purple", theme)
    assert refused.value.say(texts(language)) == said


def test_each_suits_name_is_its_own_in_every_language_and_theme() -> None:
    """`/trump` reads a name in any language and theme: none names two suits."""
    for language in LANGUAGES:
        t = texts(language)
        for theme in Theme:
            for suit in Suit:
                assert parse_suit_text(suit_name(t, suit, theme)) == suit, (language, theme)
