"""The lobby's option buttons fit a narrow phone: every label of a two-per-row button, in every
language and on both platforms' layouts, is at most `HALF_ROW` columns wide, and every label of
a button a row wide (the coach's toggle) at most `FULL_ROW` (docs/players.md, "Option buttons
fit a phone"); so is each label of the lobby's rows of three at most `THIRD_ROW`."""

import itertools
import unicodedata

import pytest

from adapters.discord.render import rows as discord_rows
from adapters.telegram.render import keys as telegram_keys
from bot.messages import Message
from bot.show import i18n
from bot.show.i18n import DEFAULT_LANGUAGE, LANGUAGES, texts
from bot.show.look import Look
from bot.show.option_words import BUTTON, COACH_BUTTON, FLAGS, setting_label
from bot.show.screens import lobby, options_line
from bot.show.seating import Seating
from bot.show.themes import DEFAULT_THEME
from engine import BidMode, GameState, Join, Options, RoundsPlan, step, table_view

HALF_ROW = 18
"""Columns a half-width button shows whole on a 360 dp phone: Telegram draws button text at
15 dp in a medium weight, letters of running words about 6.5 dp wide, and a half row of a group
message's keyboard leaves about 115 dp for the text (docs/players.md)."""

FULL_ROW = 30
"""Columns a button a row wide shows whole on a 360 dp phone. By `HALF_ROW`'s measure a full
row, the two halves with the gap between them and one button's padding less (about 245 dp of
text), would hold some 37 letters; but 6.5 dp is the mean of lower-case running words, and a
label a row wide is a phrase of them in every script, whose capitals, Cyrillic (ж, ш, ы) and
accented letters run wider. So we hold it to 30, the number of narrow letters a full-row button
of Telegram is taken to show on a 360 px phone: an estimate from the app's layout like
`HALF_ROW`, not a measurement on a device; the ✅ before it counts two. The coach's toggle at
33 (Italian, Polish: `allenatore: consigli e analisi`) was cut there."""

THIRD_ROW = 12
"""Columns a button a third of a row wide (the lobby's Join, Leave, Start and Add AI, Options,
Cancel) shows whole on a 360 dp phone. By `HALF_ROW`'s measure a third of the keyboard is
about 87 dp, the same 15 dp of padding and gap less leaves about 72 dp: 11 letters of 6.5 dp,
12 of a word with narrow ones (i, l, t: Latvian `Pievienoties`). German `KI hinzufügen` at 13
was cut there."""

CHANNEL = 42


def columns(label: str) -> int:
    """How wide `label` is drawn, in letters: an emoji or a wide (CJK, Hangul) character as
    two, any other as one."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in label)


def every_options() -> list[tuple[Options, bool]]:
    """Each combination of the table options, with the coach option off and on."""
    return [
        (Options(notequal, bids, rounds, dmmixed, foresight, wings), coach)
        for bids, rounds in itertools.product(BidMode, RoundsPlan)
        for notequal, dmmixed, foresight, wings, coach in itertools.product((False, True), repeat=5)
    ]


def host_lobby(language: str, options: Options, coach: bool, show_options: bool = True) -> Message:
    """The lobby of three as its host sees it, with the option buttons shown unless
    `show_options` is False."""
    state = GameState(options=options)
    for seat, name in enumerate(("Ann", "Bob", "Cid")):
        step(state, Join(player=f"p{seat}", name=name))
    seating = Seating("g1", ("Ann", "Bob", "Cid"), 0, frozenset(), "s", "r", coach=coach)
    look = Look(texts(language), DEFAULT_THEME)
    return lobby(look, table_view(state), seating, show_options=show_options)


def row_labels(message: Message, size: int) -> set[str]:
    """The labels of the buttons in rows of `size` buttons (2: a half row each; 1: a row of
    its own), as each platform lays the message's buttons out."""
    laid_out = [[key.label for key in row] for row in telegram_keys(message) if len(row) == size]
    laid_out += [[key.label for key in row] for row in discord_rows(CHANNEL, message)]
    return {label for row in laid_out if len(row) == size for label in row}


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_every_half_row_option_button_fits_a_phone(language: str) -> None:
    labels: set[str] = set()
    for options, coach in every_options():
        labels |= row_labels(host_lobby(language, options, coach), 2)
    assert len(labels) >= 10  # both states of every toggle, every bid mode and rounds plan
    too_wide = sorted((label for label in labels if columns(label) > HALF_ROW), key=columns)
    assert not too_wide, [(label, columns(label)) for label in too_wide]


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_every_full_row_option_button_fits_a_phone(language: str) -> None:
    labels: set[str] = set()
    for coach in (False, True):
        labels |= row_labels(host_lobby(language, Options(), coach), 1)
    assert len(labels) == 2  # the coach's toggle, off and on
    too_wide = sorted((label for label in labels if columns(label) > FULL_ROW), key=columns)
    assert not too_wide, [(label, columns(label)) for label in too_wide]


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_every_lobby_button_of_a_row_of_three_fits_a_phone(language: str) -> None:
    labels = row_labels(host_lobby(language, Options(), False, show_options=False), 3)
    assert len(labels) == 6  # Join, Leave, Start; Add AI, Options, Cancel
    too_wide = sorted((label for label in labels if columns(label) > THIRD_ROW), key=columns)
    assert not too_wide, [(label, columns(label)) for label in too_wide]


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_the_options_line_keeps_the_options_full_names(language: str) -> None:
    """A short button word is for the button alone: the lobby's `Options:` line, the table's
    rules and /rules still name each option in full."""
    t = texts(language)
    look = Look(t, DEFAULT_THEME)
    options = Options(True, BidMode.HIDDEN, RoundsPlan.TOURNAMENT, True, True, True)
    line = options_line(look, options, coach=True)
    for name in ("hidden bids", "tournament rounds", "notequal", "dmmixed", "foresight", "wings"):
        assert t(name) in line.split(", ")
    text = host_lobby(language, options, True).text
    assert line in text


@pytest.mark.parametrize("language", [code for code in LANGUAGES if code != DEFAULT_LANGUAGE])
def test_each_options_button_word_is_its_catalogs(language: str) -> None:
    """The button words are looked up in the context they are marked with: each is the
    catalog's `msgctxt "option button"` entry, not the English words."""
    catalog = i18n.read_catalog(language)
    t = texts(language)
    for flag in FLAGS:
        entry = catalog.get(flag.button, BUTTON)
        assert entry is not None, flag.key
        assert entry.string, flag.key
        assert flag.button_word(t) == entry.string
    coach = catalog.get(COACH_BUTTON, BUTTON)
    assert coach is not None
    assert coach.string
    assert t.pgettext(BUTTON, COACH_BUTTON) == coach.string


def test_the_short_rounds_button_says_the_rounds_are_short() -> None:
    """The rounds button names the plan as the other languages do, by what it is (`Rounds:
    short`, `Runden: kurz`, `Manches : courtes`): Spanish `Rondas: pocas` ("few rounds") read
    as a count left unsaid; it says `Rondas: cortas`, as its option name says `5 rondas`."""
    spanish = texts("es")
    assert setting_label(spanish, f"rounds={RoundsPlan.SHORT}") == "Rondas: cortas"
    assert setting_label(texts("pt"), f"rounds={RoundsPlan.SHORT}") == "Rodadas: curtas"
