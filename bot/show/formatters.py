"""Plain-text rendering of games: the score sheet, final standings and a round-by-round log."""

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.cards import WIZARD, sorted_hand
from engine.scoring import places
from engine.state import GameState, RoundResult
from engine.views import ScoreRow

WIDTH = 100
"""The terminal width the text is laid out for unless told otherwise."""

SUIT_NAMES = {"B": "blue", "G": "green", "R": "red", "Y": "yellow"}

NAME_CAP = 12
"""A name may widen its score-sheet column up to this many characters (then it is cut)."""


def text_width(text: str) -> int:
    """Columns `text` takes in a terminal (wide East Asian characters count 2, combining 0)."""
    width = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        width += 2 if unicodedata.east_asian_width(char) in "WF" else 1
    return width


def fit(text: str, width: int) -> str:
    """`text` cut to at most `width` columns, ending with `…` when cut."""
    if text_width(text) <= width:
        return text
    out = ""
    for char in text:
        if text_width(out + char) > width - 1:
            break
        out += char
    return out + "…"


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
    """One way to draw the score sheet; the roomiest that fits the width is used."""

    left: tuple[str, str]  # labels of the round and cards columns
    bar: str  # between the round columns and each player's group
    name_cap: int  # how far a name may widen its group


_LAYOUTS = (
    _Layout(("Rnd", "Cards"), " | ", NAME_CAP),
    _Layout(("Rnd", "Cards"), " | ", 0),
    _Layout(("Rnd", "Cards"), "  ", 0),
    _Layout(("Rd", "Cd"), "  ", 0),
    _Layout(("Rd", "Cd"), " ", 0),
)


def score_sheet(
    names: Sequence[str],
    rows: Sequence[ScoreRow],
    width: int = WIDTH,
    words: Mapping[str, str] | None = None,
) -> str:
    """The score sheet: a row per round with its cards, and per player `won/bid points total`.

    `words` translates the column labels (`Rnd`, `Cards`, `Rd`, `Cd`, `w/b`, `pts`, `tot`)."""
    cells = [
        [
            (f"{won}/{bid}", f"{points:+d}", str(total))
            for bid, won, points, total in zip(
                row.bids, row.won, row.points, row.totals, strict=True
            )
        ]
        for row in rows
    ]
    sub = [max([3, *(len(cell[part]) for row in cells for cell in row)]) for part in range(3)]
    lines: list[str] = []
    for layout in _LAYOUTS:
        lines = _draw_sheet(names, rows, cells, sub, layout, words or {})
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
    rnd_label, cards_label = (words.get(label, label) for label in layout.left)
    rnd_w = max([len(rnd_label), *(len(str(row.round)) for row in rows)])
    cards_w = max([len(cards_label), *(len(str(row.cards)) for row in rows)])
    left_w = rnd_w + 1 + cards_w
    inner = sum(sub) + 2
    groups = [max(inner, min(text_width(name), layout.name_cap)) for name in names]

    def line(left: str, parts: Sequence[str]) -> str:
        return (left + "".join(layout.bar + part for part in parts)).rstrip()

    def group(cell: tuple[str, str, str], size: int) -> str:
        bid_won, points, total = cell
        text = f"{bid_won:>{sub[0]}} {points:>{sub[1]}} {total:>{sub[2]}}"
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


def standings(names: Sequence[str], totals: Sequence[int]) -> str:
    """Final places (equal totals share a place, marked `=`) and who won."""
    ranks = places(totals)
    shared = {rank for rank in ranks if ranks.count(rank) > 1}
    name_w = max(text_width(name) for name in names)
    total_w = max(len(str(total)) for total in totals)
    order = sorted(range(len(names)), key=lambda seat: (ranks[seat], seat))
    winners = [names[seat] for seat in order if ranks[seat] == 1]
    best = max(totals)
    if len(winners) == 1:
        verdict = f"{winners[0]} wins with {best} points."
    else:
        verdict = f"{_and(winners)} share first place with {best} points."
    lines = ["Final standings", ""]
    for seat in order:
        mark = "=" if ranks[seat] in shared else "."
        lines.append(
            f"  {ranks[seat]:>2}{mark} {pad(names[seat], name_w)}  {totals[seat]:>{total_w}}"
        )
    return "\n".join([*lines, "", verdict])


def _and(words: Sequence[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def trump_text(result: RoundResult, names: Sequence[str]) -> str:
    """How the round's trump came about, e.g. `red (R7 turned up)` or `none (no card left)`."""
    card = result.trump_card
    if card is None:
        return "none (no card left to turn up)"
    if result.trump is None:
        return f"none ({card} turned up)"
    suit = f"{result.trump} {SUIT_NAMES[result.trump]}"
    if card == WIZARD:
        return f"{suit} ({card} turned up, {names[result.dealer]} chose)"
    return f"{suit} ({card} turned up)"


def _wrapped(label: str, items: Sequence[str], width: int, sep: str = "   ") -> list[str]:
    """`label` then `items` separated by `sep`, wrapped under the first item at `width`."""
    indent = " " * text_width(label)
    lines: list[str] = []
    current, empty = label, True
    for item in items:
        if not empty and text_width(current + sep + item) > width:
            lines.append(current)
            current, empty = indent, True
        current += item if empty else sep + item
        empty = False
    lines.append(current)
    return lines


def round_log(result: RoundResult, names: Sequence[str], rounds: int, width: int = WIDTH) -> str:
    """One round as it was played: deal, trump, bids, each trick and its winner, points."""
    count = len(names)
    name_w = max(text_width(name) for name in names)
    cards = "1 card" if result.cards == 1 else f"{result.cards} cards"
    lines = [f"Round {result.number} of {rounds}: {cards} each, {names[result.dealer]} deals"]
    label_w = len("Trick ") + len(str(result.cards)) + 2
    label_w = max(label_w, len("Points") + 2)

    def label(text: str) -> str:
        return "  " + text.ljust(label_w)

    for seat, hand in enumerate(result.hands):
        head = label("Hands" if seat == 0 else "")
        lines.extend(
            _wrapped(head + pad(names[seat], name_w) + "  ", sorted_hand(hand), width, " ")
        )
    lines.append(label("Trump") + trump_text(result, names))
    order = [(result.dealer + 1 + offset) % count for offset in range(count)]
    bids = [f"{names[seat]} {result.bids[seat]}" for seat in order]
    total = sum(result.bids)
    bids[-1] += f"   (bids add up to {total}, {result.cards} to take)"
    lines.extend(_wrapped(label("Bids"), bids, width, ", "))
    for index, trick in enumerate(result.tricks, start=1):
        plays = [
            f"{names[(trick.leader + offset) % count]} {card:<3}"
            for offset, card in enumerate(trick.cards)
        ]
        plays.append(f"-> {names[trick.winner]}")
        lines.extend(_wrapped(label(f"Trick {index}"), plays, width, "  "))
    points = [
        f"{names[seat]} {result.bids[seat]}/{result.won[seat]} "
        f"{result.points[seat]:+d} = {result.totals[seat]}"
        for seat in range(count)
    ]
    lines.extend(_wrapped(label("Points"), points, width, ",  "))
    return "\n".join(line.rstrip() for line in lines)


def game_log(state: GameState, width: int = WIDTH) -> str:
    """A finished game: its table, every round, the score sheet and the final standings."""
    names = [player.name for player in state.players]
    rounds = len(state.results)
    head = (
        f"{_and(names)}; options: {state.options.describe()}; {rounds} rounds; "
        f"{names[state.first_dealer]} deals first"
    )
    parts = [head]
    parts.extend(round_log(result, names, rounds, width) for result in state.results)
    parts.append(score_sheet(names, sheet_rows(state), width))
    parts.append(standings(names, state.totals))
    return "\n\n".join(parts)


def sheet_rows(state: GameState) -> list[ScoreRow]:
    """The score sheet's rows of a game so far."""
    return [ScoreRow(r.number, r.cards, r.bids, r.won, r.points, r.totals) for r in state.results]
