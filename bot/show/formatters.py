"""The small formatters every audience shares: the chat screens, the terminal table and
`wizard-bot replay` build their lines from these (a trump line, a trick line, a score line, the
standings, the score sheet), and lay out text in terminal columns.

Each takes a `Look` (the language and the deck theme) or its texts, and plain values from the
engine's views and records."""

import math
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.namesakes import apart
from bot.show.clusters import shortened
from bot.show.i18n import N_, Texts
from bot.show.look import Look
from bot.show.themes import cards_line
from engine import WIZARD, Card, GameState, RoundResult, Suit, TableView, Trick, table_view
from engine.views import ScoreRow, SeatView

WIDTH = 100
"""The terminal width the text is laid out for unless told otherwise."""

NAME_CAP = 12
"""A name may widen its score-sheet column up to this many characters (then it is cut)."""


MINUS = "\u2212"
"""The sign of negative points shown to people (`−10`, U+2212 MINUS SIGN, as the rules, the
coach and the score sheet's picture write it), never the hyphen `-`."""


def shown_points(value: int) -> str:
    """Points as people read them: `30`, `0`, `-10` with the minus sign."""
    return f"{MINUS}{-value}" if value < 0 else str(value)


def signed_points(value: int) -> str:
    """Points won or lost: `+30`, `0`, `-10` with the minus sign."""
    return f"+{value}" if value > 0 else shown_points(value)


def percent(part: float, whole: float) -> str:
    """`part` in per cent of `whole`, halves rounded up; a share rounded to 0 or 100 that is
    not quite none or all reads `<1%` or `>99%` (one win in 1,000 games is not 0%), in every
    language (/stats, a hint's chance of a bid)."""
    if not whole:
        return "–"
    shown = math.floor(100 * part / whole + 0.5)
    if shown == 0 and part > 0:
        return "<1%"
    if shown == 100 and part < whole:
        return ">99%"
    return f"{shown}%"


EMOJI_PRESENTATION = "\ufe0f"
"""The variation selector that asks for a symbol drawn as an emoji (☺️), two columns wide."""
JOINER = "\u200d"
"""The zero-width joiner: an emoji after it is drawn with the one before (👨‍👩‍👧)."""
SKIN_TONES = range(0x1F3FB, 0x1F400)
"""The emoji modifiers (👍🏽): they colour the emoji before them, and take no column."""


def _emoji_like(char: str) -> bool:
    """Whether `char` may be part of an emoji sequence joined by a zero-width joiner (👨‍👩‍👧,
    🏴‍☠️): a pictograph or a symbol."""
    code = ord(char)
    return code >= 0x1F000 or 0x2600 <= code < 0x27C0 or 0x2B00 <= code < 0x2C00


def text_width(text: str) -> int:
    """Columns `text` takes in a terminal or a chat's monospace block: wide East Asian
    characters and emoji 2, others 1; marks, variation selectors, skin tones and invisible format
    characters 0. An emoji is counted once however many code points make it (a skin tone, a
    sequence joined by zero-width joiners, a keycap), and a symbol asked for as emoji (U+FE0F)
    counts 2. A longer start of a text is never narrower (`shortened` relies on it)."""
    width = shown = 0  # `shown`: the columns of what the last characters draw as one
    joined = False
    for char in text:
        if char == EMOJI_PRESENTATION:
            width, shown = width + (shown == 1), max(shown, 2) if shown else 0
            continue
        category = unicodedata.category(char)
        if char == JOINER:
            joined = True
            continue
        if category in ("Cf", "Mn", "Me") or unicodedata.combining(char) or ord(char) in SKIN_TONES:
            continue
        if joined and shown and _emoji_like(char):  # joined to the emoji before it
            width, shown, joined = width + 2 - min(shown, 2), 2, False
            continue
        joined = False
        shown = 2 if unicodedata.east_asian_width(char) in "WF" else 1
        width += shown
    return width


def fit(text: str, width: int) -> str:
    """`text` cut to at most `width` columns, ending with `…` when cut (`shortened`)."""
    return shortened(text, width, text_width)


def isolated(name: str) -> str:
    """`name` kept apart from the text around it in the bidirectional algorithm (first-strong
    isolate): a right-to-left name neither turns the line around nor moves the numbers
    beside it (a leaderboard's columns stay under their heads)."""
    return f"\u2068{name}\u2069"


def pad(text: str, width: int, align: str = "<") -> str:
    """`text` padded with spaces to `width` columns: align `<` left, `>` right, `^` centre."""
    room = max(0, width - text_width(text))
    if align == ">":
        return " " * room + text
    if align == "^":
        return " " * (room // 2) + text + " " * (room - room // 2)
    return text + " " * room


@dataclass(frozen=True, slots=True)
class _Layout:
    """One way to draw the score sheet; the roomiest that fits the width is used (else the
    narrowest)."""

    bar: str  # between the round columns and each player's group
    name_cap: int  # how far a name may widen its group


_LAYOUTS = (
    _Layout(" | ", NAME_CAP),
    _Layout(" | ", 0),
    _Layout("  ", 0),
    _Layout(" ", 0),
)
"""Every layout heads the rounds and cards columns with the words for them (`Rnd`, `Cards`:
`Manche`, `Cartes`). The narrowest had abbreviations (`Rd`, `Cd`: French `Mn`, `Ct`) until
7 December 2026; it is the picture's text form (60 columns, `SheetPicture.text`) of nearly
every game of four players or more, which is wider than that whatever the headers: they saved
4 to 8 columns of a line that did not fit anyway, and made a reader guess."""


SHEET_WORDS = (
    # TRANSLATORS: score-sheet header for "Round": the word for a round (at most 6 letters).
    N_("Rnd"),
    # TRANSLATORS: score-sheet header for the cards dealt (at most 7 letters).
    N_("Cards"),
    # TRANSLATORS: score-sheet header for "tricks won/bid" (at most 3 letters).
    N_("w/b"),
    # TRANSLATORS: score-sheet header for "points" (at most 3 letters).
    N_("pts"),
    # TRANSLATORS: score-sheet header for "total" (at most 3 letters).
    N_("tot"),
)
"""The score sheet's column labels (catalog keys)."""


def score_sheet(
    names: Sequence[str],
    rows: Sequence[ScoreRow],
    width: int = WIDTH,
    t: Texts | None = None,
) -> str:
    """The score sheet: a row per round with its cards, and per player `won/bid points total`;
    its labels in the language of `t` (English without)."""
    words = {word: t(word) for word in SHEET_WORDS} if t is not None else {}
    cells = [
        [
            (f"{won}/{bid}", signed_points(points), shown_points(total))
            for bid, won, points, total in zip(
                row.bids, row.won, row.points, row.totals, strict=True
            )
        ]
        for row in rows
    ]
    labels = [words.get(label, label) for label in ("w/b", "pts", "tot")]
    sub = [
        max([text_width(labels[part]), *(len(cell[part]) for row in cells for cell in row)])
        for part in range(3)
    ]
    lines: list[str] = []
    for layout in _LAYOUTS:
        lines = _draw_sheet(names, rows, cells, sub, layout, words)
        if max(map(text_width, lines)) <= width:
            break
    return "\n".join(lines)


def _draw_sheet(
    names: Sequence[str],
    rows: Sequence[ScoreRow],
    cells: list[list[tuple[str, str, str]]],
    sub: list[int],
    layout: _Layout,
    words: Mapping[str, str],
) -> list[str]:
    rnd_label, cards_label = (words.get(label, label) for label in ("Rnd", "Cards"))
    rnd_w = max([text_width(rnd_label), *(len(str(row.round)) for row in rows)])
    cards_w = max([text_width(cards_label), *(len(str(row.cards)) for row in rows)])
    left_w = rnd_w + 1 + cards_w
    inner = sum(sub) + 2
    groups = [max(inner, min(text_width(name), layout.name_cap)) for name in names]

    def line(left: str, parts: Sequence[str]) -> str:
        return (left + "".join(layout.bar + part for part in parts)).rstrip()

    def group(cell: tuple[str, str, str], size: int) -> str:
        text = " ".join(pad(part, width, ">") for part, width in zip(cell, sub, strict=True))
        return pad(text, size, ">")

    head = [pad(fit(name, size), size, "^") for name, size in zip(names, groups, strict=True)]
    labels = [
        group((words.get("w/b", "w/b"), words.get("pts", "pts"), words.get("tot", "tot")), size)
        for size in groups
    ]
    rule = layout.bar.replace(" ", "-").replace("|", "+") if "|" in layout.bar else layout.bar
    out = [
        line(pad(rnd_label, rnd_w, ">") + " " + pad(cards_label, cards_w, ">"), head),
        line(" " * left_w, labels),
        ("-" * left_w + "".join(rule + "-" * size for size in groups)),
    ]
    for row, cell in zip(rows, cells, strict=True):
        left = f"{row.round:>{rnd_w}} {row.cards:>{cards_w}}"
        out.append(line(left, [group(c, size) for c, size in zip(cell, groups, strict=True)]))
    return out


def trump_line(
    look: Look, card: Card | None, trump: Suit | None, dealer: str, choosing: bool = False
) -> str:
    """How a round's trump came about: `Trump: 🔺 red (🔺7 turned up)`; `choosing` while the
    dealer chooses it (a Wizard was turned up)."""
    t = look.t
    face = look.card(card)
    if choosing:
        return t("Trump: {card} turned up, {name} (dealer) chooses", card=face, name=dealer)
    if card == WIZARD:
        return t(
            "Trump: {suit} ({card} turned up, chosen by {name})",
            suit=look.suit(trump),
            card=face,
            name=dealer,
        )
    if card is None:
        return t("Trump: none (no card left to turn up)")
    return t("Trump: {suit} ({card} turned up)", suit=look.suit(trump), card=face)


def trick_cards(look: Look, cards: Sequence[Card], leader: int, names: Sequence[str]) -> str:
    """A trick's cards with who played each: `Ann 🔺7 · Bob 🧙 · Cid 🔺2`."""
    return plays_line(look, trick_plays(cards, leader, names))


def trick_plays(
    cards: Sequence[Card], leader: int, names: Sequence[str]
) -> tuple[tuple[str, Card], ...]:
    """A trick's cards with who played each, in order: (name, card)."""
    count = len(names)
    return tuple((names[(leader + index) % count], card) for index, card in enumerate(cards))


def plays_line(look: Look, plays: Sequence[tuple[str, Card]]) -> str:
    """(name, card) plays as a line: `Ann 🔺7 · Bob 🧙 · Cid 🔺2`."""
    return " · ".join(f"{name} {look.card(card)}" for name, card in plays)


def last_trick(look: Look, trick: Trick, names: Sequence[str]) -> str:
    """`Last trick: Ann 🔺7 · Bob 🧙 · Cid 🔺2 → Bob`."""
    return last_trick_line(look, trick_plays(trick.cards, trick.leader, names), names[trick.winner])


def last_trick_line(look: Look, plays: Sequence[tuple[str, Card]], winner: str) -> str:
    """A done trick's (name, card) plays and its winner: `Last trick: Ann 🔺7 · Bob 🧙 → Bob`."""
    return look.t("Last trick: {cards} → {name}", cards=plays_line(look, plays), name=winner)


def seat_score(t: Texts, seat: SeatView) -> str:
    """A seat on the table: `20 pts · 1/2 tricks · ⇢ 10` (its total, tricks won/bid, and ⇢ the
    total if the round ended now); `20 pts · 1/? tricks` while the bid is hidden; `20 pts · no
    bid yet`."""
    if seat.bid is not None and seat.projected is not None:
        return t(
            "{points} pts · {won}/{bid} tricks · ⇢ {projected}",
            points=shown_points(seat.total),
            won=seat.won,
            bid=seat.bid,
            projected=shown_points(seat.projected),
        )
    if seat.has_bid:
        return t("{points} pts · {won}/? tricks", points=shown_points(seat.total), won=seat.won)
    return t("{points} pts · no bid yet", points=shown_points(seat.total))


def said_of(t: Texts, name: str, text: str) -> str:
    """`Ann: 1/1 +30 → 30`: a name (a player's, or a place in the game such as `Trick 2`) and
    what is said of it, joined as the language of `t` joins them (French: `Ann : 1/1`)."""
    # TRANSLATORS: a name (a player's, or a place in the game such as "Trick 2") and what is
    # said of it: a score, cards, a sentence. French puts a space before the colon.
    return t("{name}: {text}", name=name, text=text)


def score_line(t: Texts, name: str, row: ScoreRow, seat: int) -> str:
    """A seat's round: `✅ Ann: 1/1 +30 → 30` (tricks won/bid, points, total)."""
    made, said = round_result(row, seat)
    return f"{made} {said_of(t, name, said)}"


def round_result(row: ScoreRow, seat: int) -> tuple[str, str]:
    """A seat's round, whether its bid was met (`✅`, `❌`), and `1/1 +30 → 30`: tricks
    won/bid, points, total."""
    made = "✅" if row.bids[seat] == row.won[seat] else "❌"
    points, total = signed_points(row.points[seat]), shown_points(row.totals[seat])
    return made, f"{row.won[seat]}/{row.bids[seat]} {points} → {total}"


MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}


def standings(
    look: Look, names: Sequence[str], totals: Sequence[int], places: Sequence[int]
) -> list[str]:
    """The final standings, best first (`🥇 Ann: 120`), then who won."""
    t = look.t
    order = sorted(range(len(names)), key=lambda seat: (places[seat], seat))
    lines = [
        f"{MEDALS.get(places[seat], f'{places[seat]}.')} "
        + said_of(t, names[seat], shown_points(totals[seat]))
        for seat in order
    ]
    winners = [names[seat] for seat in order if places[seat] == 1]
    lines.append("")
    if len(winners) == 1:
        lines.append(t("{name} wins!", name=winners[0]))
    else:
        lines.append(t("{names} share first place!", names=", ".join(winners)))
    return lines


# --- a whole game, round by round (wizard-bot replay) ------------------------------------------


def round_head(t: Texts, number: int, rounds: int, cards: int) -> str:
    """A round's heading on the table and in the record: its number and how many cards each
    player holds (a plural: "1 карта", "3 карты", "5 карт")."""
    return t.ngettext(
        "🔮 Round {round} of {rounds} · {cards} card",
        "🔮 Round {round} of {rounds} · {cards} cards",
        cards,
    ).format(round=number, rounds=rounds, cards=cards)


def round_log(
    look: Look, result: RoundResult, row: ScoreRow, names: Sequence[str], rounds: int
) -> str:
    """One round as it was played: its deal, trump, bids, each trick and its winner, and what
    each seat scored."""
    t = look.t
    count = len(names)
    head = round_head(t, result.number, rounds, result.cards)
    deals = t("{name} deals.", name=names[result.dealer])
    lines = [f"{head} · {deals}"]
    lines += [
        said_of(t, names[seat], cards_line(hand, look.theme))
        for seat, hand in enumerate(result.hands)
    ]
    lines.append(trump_line(look, result.trump_card, result.trump, names[result.dealer]))
    order = [(result.dealer + 1 + offset) % count for offset in range(count)]
    bids = " · ".join(f"{names[seat]} {result.bids[seat]}" for seat in order)
    lines.append(t("Bids: {bids}", bids=bids))
    for number, trick in enumerate(result.tricks, start=1):
        cards = trick_cards(look, trick.cards, trick.leader, names)
        lines.append(
            t(
                "Trick {number}: {cards} → {name}",
                number=number,
                cards=cards,
                name=names[trick.winner],
            )
        )
    lines += [score_line(t, name, row, seat) for seat, name in enumerate(names)]
    return "\n".join(lines)


def game_log(look: Look, state: GameState, width: int = WIDTH) -> str:
    """A finished game: its table, every round, the score sheet and the final standings."""
    t = look.t
    view = table_view(state)
    names = list(apart(seat.name for seat in view.seats))
    head = t(
        "{names}; options: {options}; {name} deals first",
        names=", ".join(names),
        options=state.options.describe(),
        name=names[state.first_dealer],
    )
    parts = [head]
    parts += [
        round_log(look, result, row, names, view.rounds)
        for result, row in zip(state.results, view.sheet, strict=True)
    ]
    parts.append(score_sheet(names, view.sheet, width, t))
    parts.append("\n".join([t("Final standings"), "", *final_standings(look, view)]))
    return "\n\n".join(parts)


def final_standings(look: Look, view: TableView) -> list[str]:
    """The standings of a finished game, from its table view (people called alike told apart)."""
    names = list(apart(seat.name for seat in view.seats))
    return standings(look, names, [seat.total for seat in view.seats], view.places)
