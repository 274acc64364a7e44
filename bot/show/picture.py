"""The score sheet (the "block of truth") as a PNG picture, for `/scores` and a game's end.

A row per round with its number and cards and, per player, a cell of two lines: the tricks
won/bid behind a ✔ on green (bid met) or a ✘ on red (missed) and the round's points (+/-),
then the running total. The names are on top and the totals at the bottom. The winners'
columns are tinted gold, with a drawn crown before the name and the final total, both bold;
a running game (no places) marks nobody. An AI seat's name is drawn after a robot's head, the
chat's 🤖 mark (drawn, so it looks the same with or without a system emoji font). Two-line
cells keep six players legible on a phone; a column is as wide as the widest cell, or its
player's name up to a cap (a longer name takes two lines, then is cut with `…`, keeping a
namesake's number), so the picture grows with the players and the rounds (up to `WIDEST`, as
wide as Telegram shows it: six long names get a lower cap).

Text is drawn with the fonts shipped in `bot/show/fonts/` (see `picture_fonts`: DejaVu Sans,
then subsets for Hangul, Thai and Devanagari); a character none has, such as an emoji or a CJK
ideograph, with a system font that has it (`system_fonts`: Noto Color Emoji, a CJK font), else
as a dotted circle `◌`. The same input gives the same bytes on one machine: nothing but the
pixels goes into the PNG, with fixed settings.
"""

import functools
import io
import re
import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from bot.show.clusters import fitting
from bot.show.formatters import score_sheet, shown_points, signed_points
from bot.show.i18n import Texts, texts
from bot.show.picture_fonts import FONT_DIR, FontStack, cjk_face, stack
from bot.show.seating import ROBOT
from engine.views import ScoreRow

__all__ = ["FONT_DIR", "SheetPicture", "score_sheet_png"]

Color = tuple[int, int, int]

PAPER: Color = (255, 255, 255)
INK: Color = (33, 37, 41)
MUTED: Color = (108, 117, 125)
RULE: Color = (206, 212, 218)
STRIPE: Color = (244, 246, 248)
MET: Color = (22, 122, 52)
MET_TINT: Color = (222, 242, 228)
MISSED: Color = (190, 30, 45)
MISSED_TINT: Color = (252, 226, 229)
WIN_TINT: Color = (255, 242, 200)
WIN_STRIPE: Color = (250, 233, 180)
GOLD: Color = (214, 158, 0)
GOLD_EDGE: Color = (120, 82, 0)

MARGIN = 20  # around the sheet
PAD = 10  # inside a column, each side
GAP = 10  # between the values of a cell
BADGE = 6  # how far the tint behind ✔/✘ and won/bid reaches beyond them
TITLE_H, HEAD_H, LABEL_H, ROW, FOOT_H = 52, 46, 30, 58, 50
"""The heights of the title, the names, the column labels, a round and the totals."""
NAME_LINE = 28
"""How much higher the names are when one takes two lines."""

NAME_CAP = 160
"""How far a name may widen its column, in pixels, beside its marks (a longer name takes two
lines, and is cut if they are not enough)."""

WIDEST = 1280
"""How wide the picture may grow with long names, in pixels: Telegram shows a photo in a chat
at most 1,280 pixels wide, and scales a wider one down, its text with it. Where the columns
would be wider, the names' cap (`NAME_CAP`) is lowered until they fit (six long names); a
picture whose cells alone are wider stays so."""

TICK, CROSS = "\u2714", "\u2718"  # check mark, ballot X


@dataclass(frozen=True, slots=True)
class SheetPicture:
    """The score sheet as a message's picture (`bot.messages.Picture`): drawn when a front end
    sends it, in the language `language`; the winners marked when `places` are known."""

    language: str
    names: tuple[str, ...]
    rows: tuple[ScoreRow, ...]
    places: tuple[int, ...] | None = None
    locales: tuple[str | None, ...] = ()
    """Per seat, the language of its person's app as their platform said it (`zh-TW`), where
    it tells the writing of their name (`picture_fonts.locale_face`; `Table.locales`): the
    face its ideographs are drawn in. None (or none given): the chat's."""
    name: str = "scores.png"

    def png(self) -> bytes:
        return _drawn(self)

    def text(self) -> str:
        t = texts(self.language)
        sheet = score_sheet(self.names, self.rows, width=60, t=t)
        return t("Score sheet (w/b: tricks won/bid)") + "\n\n" + sheet


_DRAWING = threading.Lock()
"""One picture is drawn at a time (the font caches are shared)."""


@functools.lru_cache(maxsize=8)
def _drawn(picture: SheetPicture) -> bytes:
    """The PNG of `picture` (kept for a while: a post tried again sends the same bytes)."""
    with _DRAWING:
        t = texts(picture.language)
        return score_sheet_png(t, picture.names, picture.rows, picture.places, picture.locales)


def score_sheet_png(
    t: Texts,
    names: Sequence[str],
    rows: Sequence[ScoreRow],
    places: Sequence[int] | None = None,
    locales: Sequence[str | None] = (),
) -> bytes:
    """The score sheet as PNG bytes: its labels in the language of `t`, a column per name and
    a row per round of `rows`; with `places` (per seat, 1 = first) the winners are marked; a
    name's ideographs in the face of its seat's `locales` (`SheetPicture.locales`)."""
    sheet = _Sheet(t, names, rows, places, locales)
    sheet.draw()
    out = io.BytesIO()
    sheet.image.save(out, format="PNG", compress_level=3, optimize=False)
    return out.getvalue()


NAME_SIZE = 24
"""The names' pixel size."""


@dataclass(frozen=True, slots=True)
class _Type:
    """The font stacks of a sheet in the language `language`."""

    language: str
    title: FontStack
    label: FontStack
    value: FontStack
    total: FontStack
    bold: FontStack
    mark: FontStack

    def name(self, name: str, winner: bool = False, locale: str | None = None) -> FontStack:
        """The font of `name` (bold for a winner's), drawing its ideographs in the forms of its
        writing (`cjk_face`: Korean with Hangul, Japanese with kana, else those of its person's
        app language `locale`, else the chat's)."""
        return stack(NAME_SIZE, winner, cjk_face(name, self.language, locale))


def _type(language: str) -> _Type:
    face = cjk_face("", language)
    return _Type(
        language=language,
        title=stack(30, True, face),
        label=stack(18, False, face),
        value=stack(22, False, face),
        total=stack(24, False, face),
        bold=stack(24, True, face),
        mark=stack(20, True, face),
    )


@dataclass(frozen=True, slots=True)
class _Cell:
    """One seat's round as drawn."""

    won_bid: str
    points: str
    total: str
    met: bool


def _cells(rows: Sequence[ScoreRow]) -> list[list[_Cell]]:
    return [
        [
            _Cell(f"{won}/{bid}", signed_points(points), shown_points(total), won == bid)
            for bid, won, points, total in zip(
                row.bids, row.won, row.points, row.totals, strict=True
            )
        ]
        for row in rows
    ]


def _widest(font: FontStack, texts: Sequence[str]) -> int:
    return max((font.length(text) for text in texts), default=0)


def _crown_width(font: FontStack) -> int:
    return font.size + 6


def _robot_width(font: FontStack) -> int:
    """The room of the robot's head before an AI seat's name, with the gap after it."""
    return font.size


def _robot_named(name: str) -> tuple[bool, str]:
    """Whether `name` is an AI seat's (the chat's robot mark before it), and the name without
    the mark."""
    if name.startswith(ROBOT):
        return True, name.removeprefix(ROBOT).lstrip()
    return False, name


NUMBER = re.compile(r" \(\d+\)$")
"""A namesake's number at the end of a name (`Ann (2)`, `bot.namesakes`)."""


def _cut(font: FontStack, text: str, width: float) -> str:
    """`text` cut to `width` pixels with `…`, keeping a namesake's number at its end."""
    number = NUMBER.search(text)
    if number is None or font.length(text) <= width:
        return font.fit(text, width)
    return font.fit(text[: number.start()], width - font.length(number.group())) + number.group()


IDEOGRAPHIC = ("CJK UNIFIED IDEOGRAPH", "CJK COMPATIBILITY IDEOGRAPH", "HIRAGANA", "KATAKANA")
"""The starts of the Unicode names of the characters written without spaces between words
(Chinese, Japanese), between two of which a line may break."""

NO_LINE_START, NO_LINE_END = ("Pe", "Pf", "Po"), ("Ps", "Pi")
"""The categories of the marks a line does not start with (、 。 」 ) !) or end with (「 ( )."""


def _ideographic(char: str) -> bool:
    return unicodedata.name(char, "").startswith(IDEOGRAPHIC)


def _breaks(name: str) -> list[int]:
    """Where `name` may go on to a second line: at the start of each word but the first, and
    between two characters of which one is an ideograph or kana, unless the second is a
    closing mark (or no character of its own: a joiner, a mark) or the first an opening one."""
    return [at for at in range(1, len(name)) if _breaks_before(name[at - 1], name[at])]


def _breaks_before(before: str, after: str) -> bool:
    if " " in (before, after):
        return before == " " and after != " "
    return (
        (_ideographic(before) or _ideographic(after))
        and unicodedata.category(after)[0] in "LNSP"
        and unicodedata.category(after) not in NO_LINE_START
        and unicodedata.category(before) not in NO_LINE_END
    )


def _name_lines(font: FontStack, name: str, width: float) -> tuple[str, ...]:
    """`name` as drawn in `width` pixels: whole on one line; else as much of its start as fits
    on a first line, up to a break (`_breaks`: a space, or between ideographs), and the rest on
    a second, cut if need be. Where even its first piece is too wide for a line (a single long
    word, a run of emoji, a long first word), as much of it as fits goes on the first, ending
    between two characters as they show (`clusters.fitting`), and the rest on the second. A
    cut keeps a namesake's number."""
    name = font.clean(name)
    if font.length(name) <= width:
        return (name,)
    fits = [at for at in _breaks(name) if font.length(name[:at].rstrip()) <= width]
    at = fits[-1] if fits else fitting(name, width, font.length)
    return (name[:at].rstrip(), _cut(font, name[at:], width)) if at else (_cut(font, name, width),)


def _per_seat(locales: Sequence[str | None], names: Sequence[str]) -> tuple[str | None, ...]:
    """`locales` with one per name (None for the seats it does not reach)."""
    return (*locales[: len(names)], *(None,) * (len(names) - len(locales)))


def _name_width(font: FontStack, name: str, cap: int = NAME_CAP) -> int:
    """The room a column gives its name: the name up to `cap`, and beside it the crown and
    the robot's head of an AI seat (neither shortens the name)."""
    robot, shown = _robot_named(name)
    width = min(font.length(shown), cap) + _crown_width(font)
    return width + (_robot_width(font) if robot else 0)


@dataclass(frozen=True, slots=True)
class _Grid:
    """Where things go, in pixels: the left columns, then a column per player."""

    left: int  # width of the round and cards columns
    rnd: int  # width of the round numbers
    mark: int  # the ✔/✘ and the space after it
    won_bid: int
    columns: tuple[int, ...]  # width of each player's column

    @staticmethod
    def measure(
        t: Texts,
        names: Sequence[str],
        rows: Sequence[ScoreRow],
        cells: list[list[_Cell]],
        locales: Sequence[str | None] = (),
    ) -> "_Grid":
        """The grid that fits these labels, names (in the faces of their `locales`) and cells."""
        ty = _type(t.language)
        every = [cell for row in cells for cell in row]
        mark = _widest(ty.mark, [TICK, CROSS]) + 6
        won_bid = _widest(ty.value, [c.won_bid for c in every])
        points = _widest(ty.value, [c.points for c in every])
        total = _widest(ty.bold, [c.total for c in every])
        labels = _widest(ty.label, [t("w/b")]) + GAP + _widest(ty.label, [t("pts")])
        rnd = max(_widest(ty.label, [t("Rnd")]), _widest(ty.total, [str(r.round) for r in rows]))
        cards = max(
            _widest(ty.label, [t("Cards")]), _widest(ty.value, [str(r.cards) for r in rows])
        )
        left = 2 * PAD + max(rnd + GAP + cards, _widest(ty.bold, [t("Total")]))
        inner = max(mark + won_bid + BADGE + GAP + points, total, labels)

        def columns(cap: int) -> tuple[int, ...]:
            return tuple(
                2 * PAD + max(inner, _name_width(ty.name(name, True, locale), name, cap))
                for name, locale in zip(names, _per_seat(locales, names), strict=True)
            )

        cap = NAME_CAP
        while cap > 0 and 2 * MARGIN + left + sum(columns(cap)) > WIDEST:
            cap -= 1
        return _Grid(left, rnd, mark, won_bid, columns(cap))

    @property
    def width(self) -> int:
        return 2 * MARGIN + self.left + sum(self.columns)

    def x(self, seat: int) -> int:
        """The left edge of `seat`'s column (for `seat` = the number of players, the right
        edge of the last)."""
        return MARGIN + self.left + sum(self.columns[:seat])


@dataclass(frozen=True, slots=True)
class _Head:
    """A seat's name as drawn above its column."""

    font: FontStack
    lines: tuple[str, ...]
    winner: bool  # a crown before the name
    robot: bool  # a robot's head before the name (after the crown)
    marks: int  # the room of the crown and the robot's head


@functools.cache
def _crown(size: int) -> Image.Image:
    """A crown `size` pixels wide as an antialiased mask (drawn 4 times as large, then reduced)."""
    big, high = 4 * size, 4 * int(size * 0.8)
    mask = Image.new("L", (big, high))
    pen = ImageDraw.Draw(mask)

    def at(x: float, y: float) -> tuple[float, float]:
        return (x * big, y * high)

    outline = [(0.05, 0.3), (0.28, 0.58), (0.5, 0.12), (0.72, 0.58), (0.95, 0.3), (0.85, 0.78)]
    pen.polygon([at(x, y) for x, y in [*outline, (0.15, 0.78)]], fill=255)
    radius = big * 0.075
    for x, y in ((0.05, 0.3), (0.5, 0.12), (0.95, 0.3)):
        cx, cy = at(x, y)
        pen.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=255)
    pen.rectangle((*at(0.15, 0.84), *at(0.85, 0.98)), fill=255)
    return mask.reduce(4)


@functools.cache
def _robot(size: int) -> Image.Image:
    """A robot's head `size` pixels high as an antialiased mask (drawn 4 times as large, then
    reduced): an antenna, ears, two eyes and a mouth."""
    big = 4 * size
    mask = Image.new("L", (big, big))
    pen = ImageDraw.Draw(mask)

    def box(left: float, top: float, right: float, bottom: float) -> tuple[float, ...]:
        return (left * big, top * big, right * big, bottom * big)

    pen.ellipse(box(0.41, 0.0, 0.59, 0.18), fill=255)
    pen.rectangle(box(0.46, 0.1, 0.54, 0.3), fill=255)
    pen.rectangle(box(0.0, 0.5, 0.14, 0.78), fill=255)
    pen.rectangle(box(0.86, 0.5, 1.0, 0.78), fill=255)
    pen.rounded_rectangle(box(0.09, 0.28, 0.91, 1.0), radius=big * 0.16, fill=255)
    pen.ellipse(box(0.24, 0.45, 0.42, 0.63), fill=0)
    pen.ellipse(box(0.58, 0.45, 0.76, 0.63), fill=0)
    pen.rectangle(box(0.3, 0.77, 0.7, 0.85), fill=0)
    return mask.reduce(4)


class _Sheet:
    """One picture being drawn."""

    def __init__(
        self,
        t: Texts,
        names: Sequence[str],
        rows: Sequence[ScoreRow],
        places: Sequence[int] | None,
        locales: Sequence[str | None] = (),
    ) -> None:
        self.t, self.ty = t, _type(t.language)
        self.names, self.rows, self.cells = names, rows, _cells(rows)
        self.locales = _per_seat(locales, names)
        self.grid = _Grid.measure(t, names, rows, self.cells, self.locales)
        self.winners = {seat for seat, place in enumerate(places or ()) if place == 1}
        self.heading = [self.head(seat) for seat in range(len(names))]
        self.top = MARGIN + TITLE_H
        self.head_h = HEAD_H + NAME_LINE * max((len(h.lines) - 1 for h in self.heading), default=0)
        self.body = self.top + self.head_h + LABEL_H
        self.foot = self.body + len(rows) * ROW
        self.right = self.grid.x(len(names))
        size = (self.grid.width, self.foot + FOOT_H + MARGIN)
        self.image = Image.new("RGB", size, PAPER)
        self.pen = ImageDraw.Draw(self.image)

    def draw(self) -> None:
        pen, grid = self.pen, self.grid
        title = self.ty.title.fit(self.t("Score sheet"), self.grid.width - 2 * MARGIN)
        self.ty.title.draw(self.image, MARGIN, MARGIN + 34, title, INK)
        self.backgrounds()
        self.heads()
        for number, (row, line) in enumerate(zip(self.rows, self.cells, strict=True)):
            self.round(self.body + number * ROW, row, line)
        self.totals()
        pen.line((MARGIN, self.body - 1, self.right - 1, self.body - 1), fill=INK, width=2)
        pen.line((MARGIN, self.foot, self.right - 1, self.foot), fill=INK, width=2)
        pen.line((MARGIN, self.foot + 4, self.right - 1, self.foot + 4), fill=INK, width=1)
        for seat in range(len(self.names)):
            x = grid.x(seat)
            pen.line((x, self.top + 6, x, self.foot + FOOT_H - 6), fill=RULE, width=2)

    def backgrounds(self) -> None:
        """Zebra stripes, and the winners' columns tinted over them."""
        pen, grid = self.pen, self.grid
        odd = [self.body + number * ROW for number in range(1, len(self.rows), 2)]
        for y in odd:
            pen.rectangle((MARGIN, y, self.right - 1, y + ROW - 1), fill=STRIPE)
        for seat in sorted(self.winners):
            left, right = grid.x(seat), grid.x(seat + 1) - 1
            pen.rectangle((left, self.top, right, self.foot + FOOT_H - 1), fill=WIN_TINT)
            for y in odd:
                pen.rectangle((left, y, right, y + ROW - 1), fill=WIN_STRIPE)

    def crown(self, x: float, baseline: float, font: FontStack) -> None:
        """A gold crown with a dark edge, standing on `baseline` at `x`."""
        mask = _crown(font.size)
        left, top = int(x), int(baseline) - mask.height + 1
        edge = mask.resize((mask.width + 2, mask.height + 2), Image.Resampling.BILINEAR)
        self.image.paste(GOLD_EDGE, (left - 1, top - 1), edge)
        self.image.paste(GOLD, (left, top), mask)

    def robot(self, x: float, baseline: float, font: FontStack) -> None:
        """A robot's head, the AI seat's mark, standing on `baseline` at `x`."""
        mask = _robot(int(font.size * 0.8))
        self.image.paste(INK, (int(x), int(baseline) - mask.height + 1), mask)

    def head(self, seat: int) -> _Head:
        """How `seat`'s name is drawn above its column."""
        ty = self.ty
        robot, name = _robot_named(self.names[seat])
        winner = seat in self.winners
        font = ty.name(name, winner, self.locales[seat])
        marks = (_crown_width(ty.bold) if winner else 0) + (_robot_width(ty.bold) if robot else 0)
        room = self.grid.columns[seat] - 2 * PAD - marks
        return _Head(font, _name_lines(font, name, room), winner, robot, marks)

    def heads(self) -> None:
        """The names (bold after a crown for a winner, on two lines if need be, the last lines
        side by side), then the column labels."""
        grid, t, ty = self.grid, self.t, self.ty
        last = self.top + self.head_h - 14
        labels = self.top + self.head_h + LABEL_H - 9
        ty.label.draw(self.image, MARGIN + PAD + grid.rnd, labels, t("Rnd"), MUTED, "right")
        ty.label.draw(self.image, MARGIN + grid.left - PAD, labels, t("Cards"), MUTED, "right")
        for seat, head in enumerate(self.heading):
            x, column, font = grid.x(seat), grid.columns[seat], head.font
            baseline = last - NAME_LINE * (len(head.lines) - 1)
            if head.marks:
                left = x + (column - head.marks - max(map(font.length, head.lines))) / 2
                if head.winner:
                    self.crown(left, baseline, font)
                if head.robot:
                    self.robot(left + head.marks - _robot_width(ty.bold), baseline, font)
                for number, line in enumerate(head.lines):
                    font.draw(
                        self.image, left + head.marks, baseline + NAME_LINE * number, line, INK
                    )
            else:
                for number, line in enumerate(head.lines):
                    at = baseline + NAME_LINE * number
                    font.draw(self.image, x + column / 2, at, line, INK, "centre")
            ty.label.draw(self.image, x + PAD, labels, t("w/b"), MUTED)
            ty.label.draw(self.image, x + column - PAD, labels, t("pts"), MUTED, "right")

    def round(self, y: int, row: ScoreRow, line: Sequence[_Cell]) -> None:
        """One round: its number and cards, then each seat's cell."""
        pen, grid, ty = self.pen, self.grid, self.ty
        middle, first, second = y + ROW // 2 + 8, y + 25, y + ROW - 8
        ty.total.draw(self.image, MARGIN + PAD + grid.rnd, middle, str(row.round), INK, "right")
        ty.value.draw(self.image, MARGIN + grid.left - PAD, middle, str(row.cards), MUTED, "right")
        for seat, cell in enumerate(line):
            x, end = grid.x(seat) + PAD, grid.x(seat + 1) - PAD
            ink, tint = (MET, MET_TINT) if cell.met else (MISSED, MISSED_TINT)
            right = x + grid.mark + grid.won_bid + BADGE - 1
            pen.rounded_rectangle((x - BADGE, first - 21, right, first + 7), radius=7, fill=tint)
            ty.mark.draw(self.image, x, first, TICK if cell.met else CROSS, ink)
            ty.value.draw(self.image, x + grid.mark, first, cell.won_bid, INK)
            ty.value.draw(self.image, end, first, cell.points, ink, "right")
            total = ty.bold if seat in self.winners else ty.total
            total.draw(self.image, end, second, cell.total, INK, "right")

    def totals(self) -> None:
        """The last row: every seat's total in bold, a crown before a winner's."""
        grid, ty = self.grid, self.ty
        baseline = self.foot + FOOT_H // 2 + 11
        ty.bold.draw(self.image, MARGIN + PAD, baseline, self.t("Total"), INK)
        last = self.rows[-1].totals if self.rows else (0,) * len(self.names)
        for seat, total in enumerate(last):
            end = grid.x(seat + 1) - PAD
            width = ty.bold.draw(self.image, end, baseline, shown_points(total), INK, "right")
            if seat in self.winners:
                self.crown(end - width - _crown_width(ty.bold), baseline, ty.bold)
