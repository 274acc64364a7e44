"""The score sheet as a picture: golden images, the winner's mark, the shipped fonts and their
fallback, sizes and deterministic bytes.

The golden PNGs are in tests/golden/pictures/ and are compared by their decoded pixels (not
their bytes); `pytest tests/test_picture.py --update-golden` (or UPDATE_GOLDEN=1) rewrites
them from the current output. They hold what the Pillow (and FreeType) of the project's
environment draws: another version may smooth glyph edges differently, and then they are
rewritten and looked at once. Right-to-left and shaped names need Pillow's Raqm layout, so the
system's FriBiDi (tests/conftest.py installs Debian's libfribidi0 where it can; where not, their
tests fail saying what to install); every other name looks the same with or without it.
The pictures are drawn with the shipped fonts only (`no_system_fonts`), whatever fonts the
machine has, but for the tests of the fallback to system fonts, which name theirs and install
their Debian packages where missing (`installed`: Noto Color Emoji and Droid Sans Fallback,
Symbola, Noto Sans CJK)."""

import gettext
import io
import logging
import os
import random
import struct
import subprocess
import sys
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import advance, finish, lobby, need_raqm
from PIL import Image, ImageChops, ImageDraw, ImageFont
from system_packages import apt_install

import engine
from adapters.running import say_picture_fonts
from adapters.serve import use_picture_fonts
from bot import Config
from bot.show import clusters, i18n, picture, picture_fonts, system_fonts
from bot.show.i18n import LANGUAGES, Texts, texts
from bot.show.picture import FONT_DIR, score_sheet_png
from bot.show.picture_fonts import BOLD, REGULAR, font_for, stack
from engine import Options, RoundsPlan, Start, table_view
from engine.scoring import places, round_points
from engine.views import ScoreRow

GOLDEN = Path(__file__).parent / "golden" / "pictures"
ROOT = Path(__file__).resolve().parents[1]

EN = texts("en")
DE = texts("de")


class _Words(gettext.NullTranslations):
    """A catalog given as a dict (for a language the bot has no catalog of yet)."""

    def __init__(self, words: dict[str, str]) -> None:
        super().__init__()
        self.words = words

    def gettext(self, message: str) -> str:
        return self.words.get(message, message)


KO = Texts(
    "ko",
    _Words(
        {
            "Score sheet": "점수표",
            "Rnd": "라운드",
            "Cards": "장",
            "w/b": "획/예",
            "pts": "점",
            "Total": "총점",
        }
    ),
)


class _Recording(Texts):
    """English texts that note every msgid asked for."""

    def __init__(self) -> None:
        super().__init__("en", gettext.NullTranslations())
        self.asked: set[str] = set()

    def gettext(self, message: str) -> str:
        self.asked.add(message)
        return super().gettext(message)


def sheet(players: int, rounds: int, seed: int) -> list[ScoreRow]:
    """The rows of a plausible game: round n deals n cards, its tricks are shared out among the
    seats, over half the bids are met, points and totals as the rules count them."""
    rng = random.Random(seed)
    totals = [0] * players
    rows = []
    for number in range(1, rounds + 1):
        won = [0] * players
        for _ in range(number):
            won[rng.randrange(players)] += 1
        bids = [
            w if rng.random() < 0.55 else max(0, min(number, w + rng.choice((-2, -1, 1, 1))))
            for w in won
        ]
        points = [round_points(bid, w) for bid, w in zip(bids, won, strict=True)]
        totals = [total + p for total, p in zip(totals, points, strict=True)]
        rows.append(ScoreRow(number, number, tuple(bids), tuple(won), tuple(points), tuple(totals)))
    return rows


def final_places(rows: Sequence[ScoreRow]) -> list[int]:
    return places(rows[-1].totals)


def decode(png: bytes) -> Image.Image:
    with Image.open(io.BytesIO(png)) as image:
        image.load()
        return image.convert("RGB")


def compare_golden(
    request: pytest.FixtureRequest, name: str, png: bytes, folder: Path = GOLDEN
) -> None:
    """Compare the pixels of `png` with tests/golden/pictures/`name`.png (or `folder`'s), or
    rewrite it (`pytest --update-golden`). A missing golden file fails."""
    path = folder / f"{name}.png"
    if request.config.getoption("--update-golden") or os.environ.get("UPDATE_GOLDEN"):
        folder.mkdir(parents=True, exist_ok=True)
        path.write_bytes(png)
    if not path.is_file():
        pytest.fail(f"{path} is missing (write it with pytest --update-golden)")
    now, expected = decode(png), decode(path.read_bytes())
    if now.size != expected.size:
        pytest.fail(f"{name}.png is {now.size}, was {expected.size} (pytest --update-golden)")
    changed = ImageChops.difference(now, expected).getbbox()
    if changed is not None:
        pytest.fail(f"{name}.png changed in {changed} (rewrite with pytest --update-golden)")


@pytest.fixture(autouse=True)
def no_system_fonts() -> Iterator[None]:
    """Every picture drawn with the shipped fonts only, whatever fonts the machine has; the
    tests of the system fonts' fallback name theirs (`system_fonts_used`)."""
    system_fonts.use((), known=False)
    yield
    system_fonts.use(None)


EMOJI_FONT = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"
CJK_FONT = "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"
FONT_PACKAGES = {EMOJI_FONT: "fonts-noto-color-emoji", CJK_FONT: "fonts-droid-fallback"}
"""The system fonts the fallback is tested with, and their Debian packages: the smallest with
CJK ideographs, kana and Hangul (Droid Sans Fallback, 1.8 MB to fetch), and the colour emoji
font the container installs (the browser tests install it too)."""


def installed(packages: dict[str, str]) -> tuple[str, ...]:
    """The font files of `packages` (path: Debian package), the packages installed with
    apt-get where missing; the test fails saying why if they cannot be."""
    missing = list(
        dict.fromkeys(package for path, package in packages.items() if not Path(path).is_file())
    )
    if missing:
        why = apt_install(missing)
        if why is not None:
            pytest.fail(f"the fallback fonts' tests need Debian's {' '.join(missing)}: {why}")
    for path, package in packages.items():
        if not Path(path).is_file():
            pytest.fail(f"apt-get installed {package} but there is no {path}")
    return tuple(packages)


@pytest.fixture(scope="session")
def system_font_files() -> tuple[str, ...]:
    """The fallback fonts' files (`FONT_PACKAGES`), installed where missing."""
    return installed(FONT_PACKAGES)


SYMBOLA = "/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf"
"""Symbola (`fonts-symbola`): black-and-white emoji, the fallback where no colour font is."""


@pytest.fixture(scope="session")
def symbola_file() -> str:
    """Symbola's file, its package installed with apt-get where missing."""
    return installed({SYMBOLA: "fonts-symbola"})[0]


NOTO_CJK = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
NOTO_CJK_BOLD = "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc"
"""Noto Sans CJK (`fonts-noto-cjk`, a collection whose first face is the Japanese one), as an
operator names it in `picture_fonts`."""


@pytest.fixture(scope="session")
def noto_cjk_file() -> str:
    """Noto Sans CJK's regular file, its package (with the bold file) installed where missing."""
    return installed({NOTO_CJK: "fonts-noto-cjk", NOTO_CJK_BOLD: "fonts-noto-cjk"})[0]


@pytest.fixture
def system_fonts_used(system_font_files: tuple[str, ...]) -> None:
    """The pictures fall back to the emoji font, then the CJK one (and no other)."""
    system_fonts.use(system_font_files, known=False)


# --- golden pictures ------------------------------------------------------------------------


def test_three_players_twenty_rounds(request: pytest.FixtureRequest) -> None:
    rows = sheet(3, 20, seed=1)
    png = score_sheet_png(EN, ["Ann", "Bob", "Cid"], rows, final_places(rows))
    compare_golden(request, "three_players_20_rounds", png)


TIE_SEED = 21


def test_six_players_with_a_tie_for_first(request: pytest.FixtureRequest) -> None:
    rows = sheet(6, 10, seed=TIE_SEED)
    assert final_places(rows).count(1) == 2  # the seed gives a tie
    names = ["Ann", "Bob", "Cid", "Dora", "Eve", "Finn"]
    compare_golden(request, "six_players_tie", score_sheet_png(EN, names, rows, final_places(rows)))


def test_a_running_game_marks_nobody(request: pytest.FixtureRequest) -> None:
    rows = sheet(4, 7, seed=2)
    names = ["Ana", "Bea", "Carlos", "Dani"]
    compare_golden(request, "running_game", score_sheet_png(texts("es"), names, rows, None))


def test_german_names_and_labels(request: pytest.FixtureRequest) -> None:
    rows = sheet(4, 12, seed=3)
    names = ["Jürgen", "Bärbel", "Özlem", "Groß"]
    compare_golden(request, "german", score_sheet_png(DE, names, rows, final_places(rows)))


def test_korean_labels_and_names(request: pytest.FixtureRequest) -> None:
    rows = sheet(4, 8, seed=4)
    names = ["김민준", "이서연", "박지훈", "최수아"]
    compare_golden(request, "korean", score_sheet_png(KO, names, rows, final_places(rows)))


def test_an_emoji_and_a_very_long_name(request: pytest.FixtureRequest) -> None:
    rows = sheet(3, 6, seed=5)
    names = ["Zoë 🎲", "Maximiliane Wolfeschlegelsteinhausen", "👨‍👩‍👧 Kim"]
    png = score_sheet_png(EN, names, rows, final_places(rows))
    compare_golden(request, "emoji_long_name", png)


def test_right_to_left_names(request: pytest.FixtureRequest) -> None:
    """Arabic and Hebrew names read right to left, Arabic letters joined; a name that mixes
    them with Latin letters and digits keeps each in its own direction; a long one takes two
    lines, its first words on the first."""
    need_raqm(request.config)
    rows = sheet(4, 5, seed=2)
    names = ["محمد عبد الله", "דוד כהן", "Ann مريم 2024", "عبد الرحمن بن عبد العزيز"]
    png = score_sheet_png(EN, names, rows, final_places(rows))
    compare_golden(request, "right_to_left", png)


def test_thai_and_hindi_names(request: pytest.FixtureRequest) -> None:
    """Thai names with their vowels and tone marks above and below the letters, and Hindi
    names with their conjuncts and vowel signs, in the shipped Noto fonts."""
    need_raqm(request.config)
    rows = sheet(4, 5, seed=2)
    names = ["สมชาย ใจดี", "น้ำผึ้ง", "राहुल शर्मा", "प्रियंका"]
    png = score_sheet_png(EN, names, rows, final_places(rows))
    compare_golden(request, "thai_and_hindi", png)


def test_long_names_take_two_lines(request: pytest.FixtureRequest) -> None:
    """Names too long for their column go on to a second line, so that two people whose names
    begin alike, or are alike (the second one numbered), are told apart; a name still too long
    is cut, keeping the number; a winner's second line stands after the crown."""
    rows = sheet(4, 5, seed=2)
    names = [
        "Alexander Schmidt",
        "Alexander Schmidt (2)",
        "Maximiliane Wolfeschlegelsteinhausen (3)",
        "🤖 Merlin",
    ]
    places = final_places(rows)
    assert places[2] == 1  # the seed makes Maximiliane win
    compare_golden(request, "long_names", score_sheet_png(DE, names, rows, places))


def test_ai_seats_carry_a_drawn_robot_and_a_long_name_is_cut(
    request: pytest.FixtureRequest,
) -> None:
    """Two AI seats (the chat's 🤖 before their names, drawn as a robot's head, not the dotted
    circle of a missing glyph), one of them the winner with its name whole, and a long German
    name cut with `…`."""
    rows = sheet(4, 5, seed=2)
    names = ["Bartholomäus Grünewald-Schmidt", "Jürgen", "🤖 Morgana", "🤖 Merlin"]
    places = final_places(rows)
    assert places[2] == 1  # the seed makes Morgana win
    png = score_sheet_png(DE, names, rows, places)
    compare_golden(request, "german_robots", png)


DOCS_PICTURES = ROOT / "docs" / "pictures"
"""The pictures of the sheet in the docs (README.md, docs/players.md)."""

DOCS_GAME = """
0/0 1/0 0/0 0/0 · 2/1 0/0 0/0 0/0 · 0/0 0/0 3/0 0/0 · 0/1 1/1 1/1 2/2 · 2/2 1/1 0/1 2/2
1/1 0/1 1/1 4/2 · 3/2 1/2 1/2 2/2 · 1/1 2/2 1/2 4/3 · 3/3 2/2 2/2 2/2 · 2/3 4/3 0/1 4/3
3/2 4/3 3/3 1/2 · 0/2 3/3 6/4 3/4 · 4/2 1/2 3/3 5/4 · 1/1 3/4 5/5 5/5 · 7/5 4/6 2/3 2/2
"""
"""The docs' game: four seats, 15 rounds (round n deals n cards), each round's tricks won/bid
per seat (read off the pictures first drawn of it, on 1 December 2026)."""


def docs_rows() -> list[ScoreRow]:
    """The rows of `DOCS_GAME`, points and totals as the rules count them."""
    cells = [tuple(map(int, cell.split("/"))) for cell in DOCS_GAME.split() if cell != "·"]
    rows: list[ScoreRow] = []
    totals = (0, 0, 0, 0)
    for number, at in enumerate(range(0, len(cells), 4), start=1):
        won, bids = zip(*cells[at : at + 4], strict=True)
        points = tuple(round_points(bid, w) for bid, w in zip(bids, won, strict=True))
        totals = tuple(total + p for total, p in zip(totals, points, strict=True))
        rows.append(ScoreRow(number, number, bids, won, points, totals))
    return rows


@pytest.mark.parametrize(
    ("name", "language", "names"),
    [
        ("score-sheet", "en", ["Ann", "Bob", "Cid", "Dora"]),
        ("score-sheet-de", "de", ["Anna", "Jörg", "Bärbel", "Uwe"]),
    ],
)
def test_the_docs_pictures_are_the_sheet_as_drawn_now(
    request: pytest.FixtureRequest, name: str, language: str, names: list[str]
) -> None:
    """docs/pictures/ shows the sheet of one finished game, in English and in German, as the
    code draws it now: checked as the goldens are, and rewritten with them
    (`pytest --update-golden`), so that no label the sheet no longer says stays in the docs."""
    rows = docs_rows()
    assert [sum(row.won) for row in rows] == [row.cards for row in rows] == list(range(1, 16))
    assert rows[-1].totals == (110, 140, 210, 260)
    png = score_sheet_png(texts(language), names, rows, final_places(rows))
    compare_golden(request, name, png, DOCS_PICTURES)


# --- what the picture shows -------------------------------------------------------------------


def ink_columns(image: Image.Image) -> list[bool]:
    """Per x of `image` (lit on black), whether any pixel of that column is lit."""
    return [
        image.crop((x, 0, x + 1, image.height)).getbbox() is not None for x in range(image.width)
    ]


def marked_columns(rows: Sequence[ScoreRow], names: Sequence[str], seats: set[int]) -> list[int]:
    """The x ranges where the picture with `seats` as winners differs from the one without
    winners, as the list of x where each differing stretch starts and ends."""
    ranks = [1 if seat in seats else 2 for seat in range(len(names))]
    plain = decode(score_sheet_png(EN, names, rows, None))
    marked = decode(score_sheet_png(EN, names, rows, ranks))
    assert plain.size == marked.size
    diff = ImageChops.difference(plain, marked).convert("L").point(lambda v: 255 if v else 0)
    columns = ink_columns(diff)
    edges = []
    for x, on in enumerate(columns):
        if on != (columns[x - 1] if x else False):
            edges.append(x)
    if columns and columns[-1]:
        edges.append(len(columns))
    return edges


def test_the_winners_mark_is_in_the_winners_column() -> None:
    rows = sheet(4, 5, seed=6)
    names = ["Ann", "Bob", "Cid", "Dora"]
    spans = [marked_columns(rows, names, {seat}) for seat in range(4)]
    for span in spans:
        assert len(span) == 2, span  # one stretch of the picture changes
    starts = [span[0] for span in spans]
    ends = [span[1] for span in spans]
    assert starts == sorted(starts)
    for seat in range(3):
        assert ends[seat] <= starts[seat + 1]  # each winner's mark stays in its own column
    tie = marked_columns(rows, names, {1, 3})
    assert tie == [*spans[1], *spans[3]]


def colours(image: Image.Image) -> set[object]:
    return {colour for _, colour in image.getcolors(1 << 20) or []}


def test_the_crown_is_drawn_by_the_winners_name() -> None:
    rows = sheet(3, 4, seed=7)
    names = ["Ann", "Bob", "Cid"]
    grid = picture._Grid.measure(EN, names, rows, picture._cells(rows))
    top = picture.MARGIN + picture.TITLE_H
    heads = [(grid.x(seat), top, grid.x(seat + 1), top + picture.HEAD_H) for seat in range(3)]
    marked = decode(score_sheet_png(EN, names, rows, [2, 1, 3]))
    plain = decode(score_sheet_png(EN, names, rows, None))
    found = [picture.GOLD in colours(marked.crop(box)) for box in heads]
    assert found == [False, True, False]
    assert not any(picture.GOLD in colours(plain.crop(box)) for box in heads)


def test_met_and_missed_bids_look_different_without_colour() -> None:
    """The mark before won/bid differs in shape (✔ or ✘), not only in colour."""
    met = ScoreRow(1, 1, (1, 0, 0), (1, 0, 0), (30, 20, 20), (30, 20, 20))
    missed = ScoreRow(1, 1, (0, 0, 0), (1, 0, 0), (-10, 20, 20), (-10, 20, 20))
    names = ["Ann", "Bob", "Cid"]
    grid = picture._Grid.measure(EN, names, [met], picture._cells([met]))
    body = picture.MARGIN + picture.TITLE_H + picture.HEAD_H + picture.LABEL_H
    left = grid.x(0) + picture.PAD
    mark = (left, body, left + grid.mark - 4, body + picture.ROW)

    def ink(row: ScoreRow) -> Image.Image:
        grey = decode(score_sheet_png(EN, names, [row])).convert("L").crop(mark)
        return grey.point(lambda v: 255 if v < 160 else 0)  # what stays dark in black and white

    shapes = ink(met), ink(missed)
    dark = [shape.histogram()[255] for shape in shapes]
    apart = ImageChops.difference(*shapes).histogram()[255]
    assert min(dark) > 30, dark  # a mark is drawn in both
    assert apart > max(dark) // 3, (apart, dark)  # and its shape differs, not just its edges


def test_the_picture_grows_with_rounds_and_players() -> None:
    names = ["Ann", "Bob", "Cid", "Dora", "Eve", "Finn"]
    by_rounds = [
        decode(score_sheet_png(EN, names[:3], sheet(3, n, seed=8))).size for n in (1, 5, 10, 20)
    ]
    heights = [height for _, height in by_rounds]
    assert heights == sorted(set(heights)), by_rounds
    by_players = [
        decode(score_sheet_png(EN, names[:n], sheet(n, 6, seed=8))).size for n in (3, 4, 5, 6)
    ]
    widths = [width for width, _ in by_players]
    assert widths == sorted(set(widths)), by_players
    assert len({height for _, height in by_players}) == 1


def test_a_long_name_widens_its_column_up_to_a_cap() -> None:
    rows = sheet(3, 3, seed=8)

    def width(name: str) -> int:
        return decode(score_sheet_png(EN, ["Ann", name, "Cid"], rows)).width

    assert width("Bob") == width("Ann") < width("Barbara") < width("Bartholomew")
    assert width("Bartholomew") == width("Bartholomew Wolfeschlegelsteinhausen")  # cut


SIX_LONG_NAMES = [
    "Maximiliane Wolfeschlegelstein",
    "Alexander Schmidt-Hohenzollern",
    "Konstantinos Papadopoulos III",
    "Bartholomew Fitzgerald-Smythe",
    "Anastasia Konstantinova Ivan",
    "Guðmundur Sigurðsson Jóhannes",
]


def test_six_long_names_keep_the_picture_as_wide_as_telegram_shows_it() -> None:
    """Six long names would make a picture 1,424 pixels wide, which Telegram scales down:
    their cap is lowered a pixel at a time (a pixel of each column) until it is at most 1,280
    wide, each name on two lines, cut where need be; three of them keep the cap's full width."""
    rows = sheet(6, 4, seed=3)
    six = decode(score_sheet_png(DE, SIX_LONG_NAMES, rows, final_places(rows)))
    assert picture.WIDEST - len(SIX_LONG_NAMES) < six.width <= picture.WIDEST == 1280
    grid = picture._Grid.measure(DE, SIX_LONG_NAMES, rows, picture._cells(rows))
    assert len(set(grid.columns)) == 1
    room = grid.columns[0] - 2 * picture.PAD - picture._crown_width(stack(24, bold=True))
    assert room < picture.NAME_CAP
    lines = picture._name_lines(stack(24), SIX_LONG_NAMES[1], room)
    assert lines[0] == "Alexander"
    assert lines[1].startswith("Schmidt-")
    assert lines[1].endswith("…")
    three = picture._Grid.measure(DE, SIX_LONG_NAMES[:3], rows[:1], picture._cells(rows[:1]))
    assert three.columns[0] - 2 * picture.PAD == picture.NAME_CAP + 30


def columns_of(names: Sequence[str], places: Sequence[int] | None) -> list[Image.Image]:
    """Each seat's column of a sheet whose rounds went alike for every seat, so that columns
    differ only by their names (each crop as wide as the narrowest column)."""
    alike = [ScoreRow(n, n, (1,) * 3, (1,) * 3, (30,) * 3, (30 * n,) * 3) for n in (1, 2)]
    image = decode(score_sheet_png(EN, names, alike, places))
    grid = picture._Grid.measure(EN, names, alike, picture._cells(alike))
    width, top = min(grid.columns) - 4, picture.MARGIN + picture.TITLE_H  # (under the title)
    return [
        image.crop((grid.x(seat) + 2, top, grid.x(seat) + 2 + width, image.height))
        for seat in range(3)
    ]


@pytest.mark.parametrize("places", [None, [1, 1, 1]])
def test_people_called_alike_are_told_apart_however_long_their_names(
    places: list[int] | None,
) -> None:
    """Long names that begin alike, and a namesake's number (`bot.namesakes`), are not cut
    away: each column's name looks different."""
    names = ["Alexander Schmidt", "Alexander Schmidt (2)", "Alexander Schulz"]
    first, second, third = columns_of(names, places)
    assert ImageChops.difference(first, second).getbbox() is not None
    assert ImageChops.difference(first, third).getbbox() is not None


def test_the_robot_mark_of_an_ai_seat_does_not_shorten_its_name() -> None:
    rows = sheet(3, 3, seed=8)

    def width(name: str) -> int:
        return decode(score_sheet_png(EN, ["Ann", name, "Cid"], rows)).width

    robot = picture_fonts.stack(24, bold=True).size
    assert width("🤖 Bartholomew") == width("Bartholomew") + robot
    assert width("🤖 Bartholomew Wolfeschlegelsteinhausen") == width("🤖 Bartholomew")  # cut


def test_a_sheet_without_rounds_yet() -> None:
    image = decode(score_sheet_png(EN, ["Ann", "Bob", "Cid"], [], None))
    assert image.width > 200
    assert image.height > 100


def test_a_real_game_from_the_engine() -> None:
    state = lobby(4, Options(rounds=RoundsPlan.SHORT))
    engine.step(state, Start(seed=11))
    advance(state, 3)
    running = table_view(state)
    names = [seat.name for seat in running.seats]
    assert running.places == ()
    mid = decode(score_sheet_png(EN, names, running.sheet, running.places or None))
    finish(state)
    view = table_view(state)
    assert len(view.sheet) == 5
    for row in view.sheet:
        assert sum(row.won) == row.cards
    done = decode(score_sheet_png(EN, names, view.sheet, view.places))
    assert done.height > mid.height
    assert picture.GOLD in colours(done)
    assert picture.GOLD not in colours(mid)


# --- bytes ---------------------------------------------------------------------------------------


def png_chunks(png: bytes) -> list[bytes]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    kinds, at = [], 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kinds.append(png[at + 4 : at + 8])
        at += 12 + length
    return kinds


def test_the_same_input_gives_the_same_bytes() -> None:
    rows = sheet(5, 9, seed=9)
    names = ["Ann", "Bøb", "김민준", "Zoë 🎲", "Eve"]
    first = score_sheet_png(DE, names, rows, final_places(rows))
    score_sheet_png(EN, ["Other", "Names", "Here"], sheet(3, 4, seed=1))  # caches fill up
    assert score_sheet_png(DE, names, rows, final_places(rows)) == first
    assert set(png_chunks(first)) == {b"IHDR", b"IDAT", b"IEND"}  # no time, no text


def test_the_bytes_do_not_depend_on_the_process() -> None:
    rows = sheet(3, 5, seed=10)
    names = ["Ann", "Bøb", "김민준"]
    script = (
        "import sys\n"
        "from bot.show.i18n import texts\n"
        "from bot.show.picture import score_sheet_png\n"
        "from engine.views import ScoreRow\n"
        f"png = score_sheet_png(texts('de'), {names!r}, {rows!r}, {final_places(rows)!r})\n"
        "sys.stdout.buffer.write(png)\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, check=True, env=env
    )
    assert done.stdout == score_sheet_png(DE, names, rows, final_places(rows))


# --- fonts -------------------------------------------------------------------------------------

SAMPLES = {
    "latin": "ĀāĒēĪīŪūĶķĻļŅņŠšŽžČčĢģ ȘșȚțĂăÂâÎî ŁłĄąĘęŚśŹźŻżĆćŃńÓó ŞşĞğİıÖöÜüÇç ÄäÖöÜüß",
    "more latin": "ÑñÁáÉéÍíÓóÚú¿¡ ÀàÈèÌìÒòÙùÊêÔôËëÏïŸÿÆæŒœØøÅåĐđŐőŰűĽľŘřŤťŮůĚě",
    "cyrillic": "АБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯабвгдеёжзийклмнопрстуфхцчшщъыьэюя ІіЇїЄєҐґЎў",
    "greek": "ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩαβγδεζηθικλμνξοπρστυφχψω",
    "hangul": "점수표 라운드 합계 승자 카드 김민준 이서연 박지훈 힣 ㄱㄴㄷㅏㅑㅎ",
    "thai": "กขคฆงจฉชซญฎฏฐฑฒณดตถทธนบปผฝพฟภมยรลวศษสหฬอฮ ะัาำิีึืฺุู เแโใไๅๆ็่้๊๋์ ๐๑๒๓๔๕๖๗๘๙",
    "devanagari": "अआइईउऊऋएऐओऔ कखगघङचछजझञटठडढणतथदधनपफबभमयरलवशषसह ािीुूृेैोौंःँ़् ०१२३४५६७८९ ।",
    "drawn": "✔✘−…◌+/0123456789 -'.,:;!?()",
}


@pytest.mark.parametrize("script", list(SAMPLES))
def test_every_sample_character_has_a_shipped_glyph(script: str) -> None:
    for files in (REGULAR, BOLD):
        missing = [char for char in SAMPLES[script] if font_for(char, files) is None]
        assert missing == [], (script, files)


@pytest.mark.parametrize("language", [*LANGUAGES, "ko-test"])
def test_every_label_of_every_language_has_a_shipped_glyph(language: str) -> None:
    recording = _Recording()
    score_sheet_png(recording, ["Ann", "Bob", "Cid"], sheet(3, 2, seed=1), [1, 2, 3])
    assert {"Score sheet", "Total"} <= recording.asked
    t = KO if language == "ko-test" else texts(language)
    for msgid in sorted(recording.asked):
        label = t(msgid)
        for files in (REGULAR, BOLD):
            assert [char for char in label if font_for(char, files) is None] == [], label


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_every_letter_in_the_catalogs_has_a_shipped_glyph(language: str) -> None:
    """Letters, digits, punctuation and spaces of every translation, not only the sheet's:
    symbols may be missing (the emoji of the chat messages become placeholders)."""
    missing: set[str] = set()
    for message in i18n.read_catalog(language):
        strings = message.string if isinstance(message.string, list | tuple) else [message.string]
        for char in "".join(text or "" for text in strings):
            drawn = unicodedata.category(char)[0] in "LNPZ"
            if drawn and (font_for(char, REGULAR) is None or font_for(char, BOLD) is None):
                missing.add(char)
    assert missing == set(), language


def test_the_glyph_check_tells_fonts_apart() -> None:
    assert font_for("A") == 0
    assert font_for("가") == 1  # DejaVu has no Hangul: the Hangul font draws it
    assert font_for("🎲") is None
    assert font_for("漢") is None  # no CJK ideographs are shipped
    assert font_for(" ") == 0


def test_missing_characters_become_one_placeholder_each_stretch() -> None:
    font = stack(24)
    shown = "".join(run.text for run in font.runs("Zoë 🎲🎲 👨‍👩‍👧 ok 🇩🇪"))
    assert shown == "Zoë ◌ ◌ ok DE"  # a flag no colour font draws is its letters
    assert [run.text for run in font.runs("Kim 김민준")] == ["Kim ", "김민준"]
    assert "".join(run.text for run in font.runs("Zoe\u0308")) == "Zoë"  # NFC
    # a script no font has, with its vowel signs and viramas (combining marks): Bengali
    assert "".join(run.text for run in font.runs("রাহুল শর্মা")) == "◌ ◌"


def test_a_placeholder_takes_its_place_in_a_right_to_left_name() -> None:
    """The dotted circle of an emoji after an Arabic name stands where the emoji would, at the
    name's end: on its left, as `محمد ◌` written out is drawn."""
    font = stack(24)
    assert [run.text for run in font.runs("محمد 🎲")] == ["محمد ◌"]
    drawn, written = drawn_alone("محمد 🎲", font), drawn_alone("محمد ◌", font)
    assert ImageChops.difference(drawn, written).getbbox() is None


def test_a_name_mixing_right_to_left_letters_and_hangul_reads_in_order(
    request: pytest.FixtureRequest,
) -> None:
    """Each font's run is placed as Unicode's bidirectional algorithm places it: a Hebrew name
    with a Korean word after it is read from the right, so the Korean word is drawn on the
    left (`דוד 김` looks like `김 דוד` written left to right), the space between them kept; in
    a name that starts in Korean, the Hebrew word follows on the right; a Hebrew name with a
    Korean word in the middle has its last Hebrew word on the left."""
    need_raqm(request.config)
    font = stack(24)
    drawn = [run.text for run in picture_fonts.visual(font.runs("דוד 김"))]
    assert drawn == ["김", " ", "דוד"]
    assert (
        ImageChops.difference(drawn_alone("דוד 김", font), drawn_alone("김 דוד", font)).getbbox()
        is None
    )
    drawn = [run.text for run in picture_fonts.visual(font.runs("김 דוד"))]
    assert drawn == ["김", " ", "דוד"]
    order = picture_fonts.visual(font.runs("מרים 민준 כהן"))
    assert [(run.text, run.direction) for run in order] == [
        ("כהן", "rtl"),
        (" ", "rtl"),
        ("민준", None),
        (" ", "rtl"),
        ("מרים", "rtl"),
    ]
    assert font.length("מרים 민준 כהן") == font.length("כהן 민준 מרים")


@pytest.mark.parametrize(
    ("written", "seen"),
    [
        ("דוד Bob 3 김", "Bob 3 김 דוד"),
        ("דוד 김 Bob", "김 Bob דוד"),
        ("محمد 12 민준", "민준 12 محمد"),
        ("Ann (דוד 7) 김", "Ann (7 דוד) 김"),
    ],
)
def test_a_right_to_left_name_with_latin_digits_and_hangul_follows_the_bidi_algorithm(
    request: pytest.FixtureRequest, written: str, seen: str
) -> None:
    """Each letter, digit and space is placed as Unicode's bidirectional algorithm places it,
    whatever font draws it: in a Hebrew name, a Latin word, a number and a Korean word after
    it are one left-to-right stretch, drawn on the left in their order (`דוד Bob 3 김` is
    drawn as `Bob 3 김 דוד` is, not `김 Bob 3 דוד`); an Arabic name's number stays before the
    Korean word; and in a Latin name, a Hebrew word and the number after it read from the
    right, inside brackets that stay in place."""
    need_raqm(request.config)
    font = stack(24)
    assert font.length(written) == font.length(seen)
    drawn, written_out = drawn_alone(written, font), drawn_alone(seen, font)
    assert ImageChops.difference(drawn, written_out).getbbox() is None, written


def test_thai_marks_sit_on_their_letter() -> None:
    """A Thai vowel and tone mark above a letter take no room of their own: ที่ is as wide as
    ท, and taller."""
    font = stack(24)
    assert font.length("ที่") == font.length("ท")
    letter, marked = drawn_alone("ท", font).getbbox(), drawn_alone("ที่", font).getbbox()
    assert letter is not None
    assert marked is not None
    assert marked[1] < letter[1] - 4  # the marks stand above the letter


def test_a_devanagari_conjunct_is_one_shape(request: pytest.FixtureRequest) -> None:
    """र्म (ra, virama, ma) is drawn as म with the ra as a hook above it (a reph), narrower
    than its three characters side by side."""
    need_raqm(request.config)
    font = stack(24)
    assert [run.text for run in font.runs("र्म")] == ["र्म"]  # drawn, not a placeholder
    assert font.length("र्म") < font.length("र") + font.length("्") + font.length("म")
    assert font.length("र्म") == font.length("म")


def test_a_long_name_is_cut_to_fit() -> None:
    font = stack(24)
    cut = font.fit("Maximiliane Wolfeschlegelsteinhausen", 150)
    assert cut.endswith("…")
    assert font.length(cut) <= 150
    assert font.fit("Ann", 150) == "Ann"


def test_the_fonts_ship_with_the_package() -> None:
    assert Path(picture_fonts.__file__).resolve().parent / "fonts" == FONT_DIR
    assert FONT_DIR.is_dir()
    shipped = {path.name for path in FONT_DIR.iterdir()}
    assert set(REGULAR) | set(BOLD) <= shipped
    assert {"LICENSE-DejaVu.txt", "LICENSE-SheetHangul.txt", "LICENSE-Noto.txt"} <= shipped
    size = sum(path.stat().st_size for path in FONT_DIR.glob("*.ttf"))
    assert size < 3_000_000
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"show/fonts/*.ttf"' in pyproject
    assert '"show/fonts/*.txt"' in pyproject


# --- right-to-left names -----------------------------------------------------------------------


def drawn_alone(text: str, font: picture_fonts.FontStack) -> Image.Image:
    """`text` drawn white on black with `font`, on a canvas just wide enough."""
    image = Image.new("RGB", (font.length(text) + 2 * font.size, 2 * font.size))
    font.draw(image, font.size, 1.5 * font.size, text, (255, 255, 255))
    return image.convert("L")


def test_a_hebrew_name_reads_right_to_left(request: pytest.FixtureRequest) -> None:
    """Its first letter is drawn rightmost, as a Hebrew reader reads it: in קובי (Kobi) the
    only letter that reaches below the line, its first, ק, is in the right half."""
    need_raqm(request.config)
    font = stack(24)
    name = drawn_alone("קובי", font)
    baseline = int(1.5 * font.size)
    ink = ink_columns(name)
    below = ink_columns(name.crop((0, baseline + 2, name.width, name.height)))
    left, right = ink.index(True), len(ink) - ink[::-1].index(True)
    tail = [x for x, lit in enumerate(below) if lit]
    assert tail, "no letter below the line"
    assert min(tail) > (left + right) // 2, (tail, left, right)


def test_an_arabic_name_is_joined(request: pytest.FixtureRequest) -> None:
    """Arabic letters take their joined forms: a word is one stroke without gaps between its
    letters (drawn apart, each letter stands alone)."""
    need_raqm(request.config)
    font = stack(24)
    word = drawn_alone("سمس", font)  # seen, meem, seen: all three join
    lit = ink_columns(word)
    first, last = lit.index(True), len(lit) - lit[::-1].index(True)
    assert all(lit[first:last]), "a gap between joined letters"
    apart = drawn_alone("س م س", font)
    assert ImageChops.difference(word, apart).getbbox() is not None


# --- without FriBiDi ---------------------------------------------------------------------------


@contextmanager
def without_raqm(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The pictures drawn as where Pillow has no Raqm layout (no FriBiDi): the basic layout for
    every run (the font stacks made anew inside and after)."""
    monkeypatch.setattr(picture_fonts, "LAYOUT", ImageFont.Layout.BASIC)
    picture_fonts._stack.cache_clear()
    try:
        yield
    finally:
        monkeypatch.undo()
        picture_fonts._stack.cache_clear()


def test_without_fribidi_a_skin_tone_is_dropped_and_a_flag_is_its_letters(
    monkeypatch: pytest.MonkeyPatch, system_fonts_used: None
) -> None:
    """Without Raqm the colour font cannot join a sequence: a hand with a skin tone is the
    hand alone (not the hand and a brown square), a flag its letters (not two blue ones), and
    a keycap's digit stays text (not a grey digit and an empty key), as without a colour
    font; and a variation selector is no blank as wide as an emoji after it."""
    with without_raqm(monkeypatch):
        runs = stack(24).runs("Kim 👍🏽 🇰🇷 1\ufe0f\u20e3 🦊")
        heart = stack(24).length("❤\ufe0f")  # the selector takes no room of its own
        assert heart == stack(24).length("🦊"), heart
    assert [(run.text.replace("\ufe0f", ""), run.colour) for run in runs] == [
        ("Kim ", False),
        ("👍", True),
        (" KR 1 ", False),
        ("🦊", True),
    ]


def test_a_zero_width_non_joiner_keeps_persian_letters_apart(
    request: pytest.FixtureRequest,
) -> None:
    """Persian writes U+200C (zero-width non-joiner) inside a word where two letters must not
    join (حسین‌زاده, Hosseinzadeh: ن in its final form before ز): it is kept in the run Raqm
    lays out, so the name is drawn so, not as if it were حسینزاده; the joiner U+200D asks a
    Devanagari consonant for its half form (क्‍ष) and is kept too."""
    need_raqm(request.config)
    font = stack(24)
    for apart, joined in (("حسین\u200cزاده", "حسینزاده"), ("क्\u200dष", "क्ष")):
        assert "".join(run.text for run in font.runs(apart)) == apart
        assert drawn_alone(apart, font).tobytes() != drawn_alone(joined, font).tobytes(), apart
    assert "".join(run.text for run in font.runs("Ann\u200cBob\u200d")) == "AnnBob"


def test_only_right_to_left_and_shaped_runs_are_laid_out_with_raqm() -> None:
    """Right-to-left letters, combining marks and the scripts that join, stack or reorder their
    letters need Raqm; Latin, Greek, Cyrillic, Hangul, digits and the sheet's signs do not."""
    for script in ("latin", "more latin", "cyrillic", "greek", "hangul", "drawn"):
        assert not picture_fonts.shaped(SAMPLES[script]), script
    for script in ("thai", "devanagari"):
        assert all(picture_fonts.shaped(char) for char in SAMPLES[script].replace(" ", ""))
    for name in ("דוד כהן", "محمد", "Ann مريم 2024", "রাহুল", "q\u0303"):
        assert picture_fonts.shaped(name), name
    layouts = [(run.text, run.font.layout_engine) for run in stack(24).runs("Kim 김 דוד")]
    basic = ImageFont.Layout.BASIC
    assert layouts == [("Kim ", basic), ("김", basic), (" דוד", picture_fonts.LAYOUT)]


def test_names_that_need_no_shaping_look_the_same_without_fribidi(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Latin, Greek, Cyrillic and Hangul names, an emoji's placeholder, a winner's crown and an
    AI seat's robot are drawn with the basic layout whether or not the machine has FriBiDi, so
    their pictures are the same everywhere (only right-to-left and shaped runs use Raqm)."""
    rows = sheet(5, 4, seed=2)
    names = ["Jürgen Groß", "Zoë 🎲", "김민준", "🤖 Merlin", "Ωμέγα Пётр"]
    normal = decode(score_sheet_png(DE, names, rows, final_places(rows)))
    with without_raqm(monkeypatch):
        runs = stack(24).runs("محمد")
        assert [run.font.layout_engine for run in runs] == [ImageFont.Layout.BASIC]
        basic = decode(score_sheet_png(DE, names, rows, final_places(rows)))
    assert normal.size == basic.size
    assert ImageChops.difference(normal, basic).getbbox() is None


# --- the system's fonts ------------------------------------------------------------------------

FALLBACK_NAMES = ["王小明", "さくら 🌸", "田中 太郎", "민준 🦊🇰🇷", "👨\u200d👩\u200d👧 Kim 👍🏽"]
"""Chinese, Japanese (kana; kanji), Hangul with emoji (a flag), a family and a skin tone."""


def test_cjk_kana_and_emoji_names_drawn_with_system_fonts(
    request: pytest.FixtureRequest, system_fonts_used: None
) -> None:
    """With a CJK and a colour emoji font on the system, names in Chinese and Japanese, and
    emoji (a flag, a family joined by ZWJ, a skin tone: one glyph each, laid out by Raqm), are
    drawn, not `◌`; the winner's CJK name, which has no bold face, in the regular one."""
    need_raqm(request.config)
    rows = sheet(5, 5, seed=7)
    png = score_sheet_png(EN, FALLBACK_NAMES, rows, final_places(rows))
    compare_golden(request, "cjk_kana_emoji", png)


def test_a_long_chinese_or_japanese_name_takes_two_lines(
    request: pytest.FixtureRequest, system_fonts_used: None
) -> None:
    """Chinese and Japanese are written without spaces, and a line may break between any two
    ideographs or kana: a long such name goes on to a second line, as a long name of words
    does, instead of being cut on the first; never before a closing mark (、 」) nor after an
    opening one (「)."""
    font = stack(24)
    for name in ("永远的小猫咪爱吃鱼", "たなかたろうさんです", "「東京」の山田花子さん、こんにち"):
        lines = picture._name_lines(font, name, 160)
        assert len(lines) == 2, name
        assert all(font.length(line) <= 160 for line in lines), lines
        assert lines[0] + lines[1] == name or lines[1].endswith("…"), lines
        assert lines[1][0] not in "、」", lines
        assert lines[0][-1] != "「", lines
    assert picture._breaks("「東京」、山") == [2, 5]
    rows = sheet(3, 3, seed=6)
    names = ["永远的小猫咪爱吃鱼", "たなかたろうさんです", "Ann"]
    png = score_sheet_png(EN, names, rows, final_places(rows))
    compare_golden(request, "cjk_two_lines", png)


LONG_WORDS = ["Wolfeschlegelsteinhaus", "🦊🐻🐼👨\u200d👩\u200d👧🇰🇷👍🏽🐨🐯🦁"]
"""A name of one long word, and one of emoji alone (a family joined by ZWJ, a flag and a skin
tone among them: one character each, which a line does not split)."""


def test_a_long_word_or_a_run_of_emoji_takes_two_lines(
    request: pytest.FixtureRequest, system_fonts_used: None
) -> None:
    """A name without a space (nor ideographs) to break at, too wide for its column, goes on
    to a second line between two of its characters as they show (grapheme clusters:
    `bot.show.clusters`), as much of it as fits on the first; it is cut with `…` only where two
    lines are not enough, keeping a namesake's number. A name with a space whose first word
    fits on a line breaks there only."""
    need_raqm(request.config)
    font = stack(24)
    for name in LONG_WORDS:
        lines = picture._name_lines(font, name, 160)
        assert len(lines) == 2, lines
        assert lines[0] + lines[1] == name, lines  # whole, in two lines
        assert all(font.length(line) <= 160 for line in lines), lines
        starts = [name[: unit.end()] for unit in clusters.CLUSTERS.finditer(name)]
        assert lines[0] in starts, lines
        longer = starts[starts.index(lines[0]) + 1]
        assert font.length(longer) > 160, lines  # as much as fits on the first line
    first, second = picture._name_lines(font, "Wolfeschlegelsteinhausenberger (2)", 160)
    assert "Wolfeschlegelsteinhausenberger".startswith(first + second[:2]), (first, second)
    assert second.endswith("… (2)"), second
    assert font.length(second) <= 160 < font.length(first + second[0])
    assert picture._name_lines(font, "Wolfeschlegelstein (2)", 240) == (
        "Wolfeschlegelstein",
        "(2)",
    )
    assert picture._name_lines(font, "Maximiliane Wolfeschlegelsteinhausen", 160) == (
        "Maximiliane",
        font.fit("Wolfeschlegelsteinhausen", 160),
    )
    rows = sheet(3, 3, seed=6)
    names = [*LONG_WORDS, "Leutheusserschnarrenberger (2)"]
    png = score_sheet_png(EN, names, rows, final_places(rows))
    compare_golden(request, "long_word_two_lines", png)


def test_a_first_word_too_wide_for_its_line_breaks_between_characters(
    request: pytest.FixtureRequest,
) -> None:
    """A name of words whose first word alone is wider than the column goes on to the second
    line inside that word, between two characters as they show, as a single long word does
    (not cut with `…` on its first line while the second has room); the second line is cut
    where need be, keeping a namesake's number."""
    font = stack(24)
    for name in ("Wolfeschlegelsteinhausen Maximiliane", "Leutheusserschnarrenberger Sabine (2)"):
        first, second = picture._name_lines(font, name, 160)
        assert not first.endswith("…"), first
        assert name.startswith(first), first
        assert first.isalpha(), first  # inside the first word
        assert font.length(first) <= 160 < font.length(name[: len(first) + 1]), first
        assert name[len(first) :].startswith(second.split("…")[0]), second  # where it left off
        assert font.length(second) <= 160, second
    assert picture._name_lines(font, "Leutheusserschnarrenberger Sabine (2)", 160)[1].endswith(
        "… (2)"
    )
    rows = sheet(3, 3, seed=6)
    names = ["Wolfeschlegelsteinhausen Maximiliane", "Leutheusserschnarrenberger Sabine (2)", "Ann"]
    png = score_sheet_png(EN, names, rows, final_places(rows))
    compare_golden(request, "long_first_word", png)


def test_without_the_system_fonts_those_names_are_placeholders() -> None:
    font = stack(24)
    assert font.clean("王小明") == "王小明"
    assert [run.text for run in font.runs("민준 🦊🇰🇷")] == ["민준", " ◌ KR"]
    assert font.runs("👨\u200d👩\u200d👧 Kim")[0].text == "◌ Kim"


def test_system_fonts_draw_what_the_shipped_ones_lack(
    request: pytest.FixtureRequest, system_fonts_used: None
) -> None:
    need_raqm(request.config)
    font = stack(24)
    emoji, cjk = (system_fonts.loaded(path) for path in FONT_PACKAGES)
    assert emoji == system_fonts.Loaded(EMOJI_FONT, 109, True)
    assert cjk == system_fonts.Loaded(CJK_FONT, None, False)
    runs = font.runs("민준 🦊🇰🇷 さくら")
    assert [run.text for run in runs] == ["민준", " ", "🦊🇰🇷", " ", "さくら"]
    assert [run.colour for run in runs] == [False, False, True, False, False]
    assert runs[2].scale == 24 / 109
    # a ZWJ sequence, a flag and a skin tone are one emoji each, as wide as one alone
    one = font.length("🦊")
    assert 24 <= one <= 32
    for sequence in ("👨\u200d👩\u200d👧", "🇰🇷", "👍🏽"):
        assert font.length(sequence) == one, sequence
    assert font.length("🇰🇷🦊") == 2 * one


def mean_colour(text: str, font: picture_fonts.FontStack) -> tuple[int, int, int]:
    """The mean colour of `text` drawn in white ink on black, where it has ink."""
    image = Image.new("RGB", (3 * font.size, 2 * font.size))
    font.draw(image, font.size, 1.5 * font.size, text, (255, 255, 255))
    assert image.getbbox() is not None
    drawn = image.crop(image.getbbox()).resize((1, 1), Image.Resampling.BOX).getpixel((0, 0))
    assert isinstance(drawn, tuple)
    red, green, blue = drawn[:3]
    return red, green, blue


def test_an_emoji_is_drawn_in_its_colours(system_fonts_used: None) -> None:
    """The fox is orange, whatever ink the text around it has."""
    red, green, blue = mean_colour("🦊", stack(24))
    assert red > green + 30 > blue + 30, (red, green, blue)


def test_a_character_meant_as_an_emoji_is_drawn_in_colour(system_fonts_used: None) -> None:
    """DejaVu Sans has ❤ and ⚡, but a heart followed by the emoji variation selector, and a
    lightning bolt (an emoji unless followed by the text one), are emoji in a chat: the colour
    font draws them. A heart alone, a bolt marked as text and the sheet's ✔ stay text."""
    font = stack(24)
    runs = font.runs("Ann ❤\ufe0f ⚡")
    assert [(run.text, run.colour) for run in runs] == [
        ("Ann ", False),
        ("❤\ufe0f", True),
        (" ", False),
        ("⚡", True),
    ]
    assert [run.colour for run in font.runs("❤ ⚡\ufe0e ✔")] == [False]
    red, green, blue = mean_colour("❤\ufe0f", font)
    assert red > max(green, blue) + 60, (red, green, blue)
    assert font.length("1\ufe0f\u20e3") == font.length("🦊")  # a keycap is one emoji
    assert [run.colour for run in font.runs("1\ufe0f #\ufe0f")] == [False]  # without its keycap


@pytest.mark.parametrize(
    "sequence",
    ["✌🏽", "☝🏻", "❤\u200d🔥", "🏃\u200d♀", "⛹🏽\u200d♀\ufe0f"],
)
def test_an_emoji_sequence_with_a_character_the_shipped_fonts_have_is_one_colour_emoji(
    system_fonts_used: None, sequence: str
) -> None:
    """A hand that DejaVu Sans has, with a skin tone, is one emoji in the chat (not a black
    hand and a brown square), and so is a ZWJ sequence that starts or ends with such a
    character, written without the variation selector (❤‍🔥, 🏃‍♀): the colour font draws each
    whole, as wide as one emoji."""
    font = stack(24)
    assert [run.colour for run in font.runs(sequence)] == [True]
    assert font.length(sequence) == font.length("🦊")
    assert [run.colour for run in font.runs("1\u200d2")] == [False]  # digits stay text


def test_a_subdivision_flag_is_drawn_whole(system_fonts_used: None) -> None:
    """Scotland's flag is a black flag followed by tag characters that spell `gbsct`: the
    colour font draws the flag of Scotland (mostly blue), not the black flag they follow."""
    font = stack(24)
    scotland = "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
    assert [run.text for run in font.runs(scotland)] == [scotland]
    assert font.length(scotland) == font.length("🦊")
    red, green, blue = mean_colour(scotland, font)
    assert blue > red + 60, (red, green, blue)


def test_without_a_colour_font_a_skin_tone_is_dropped_and_a_flag_is_its_letters(
    symbola_file: str,
) -> None:
    """With Symbola alone, whose emoji are black and white, a hand with a skin tone is the
    hand alone (not the hand and a grey square) and a flag its two letters (not two boxed
    letters); a family joined by ZWJ is its people side by side."""
    system_fonts.use((symbola_file,), known=False)
    font = stack(24)
    assert [run.text for run in font.runs("Kim 👍🏽 🇰🇷")] == ["Kim ", "👍", " KR"]
    assert [run.text for run in font.runs("👨\u200d👩\u200d👧")] == ["👨👩👧"]
    assert [run.text for run in font.runs("🏽 ok")] == ["🏽", " ok"]  # alone, it is kept
    # flags side by side, or against a name, are set apart by a space
    assert "".join(run.text for run in font.runs("Ann🇩🇪🇫🇷!")) == "Ann DE FR!"
    assert "".join(run.text for run in font.runs("🇩🇪Bo (🇫🇷)🇮🇹…")) == "DE Bo (FR) IT…"


def test_a_character_no_font_has_is_still_a_placeholder(system_fonts_used: None) -> None:
    """Linear B, which neither the shipped nor the system fonts have, is `◌`; a run of it and
    an emoji the system font lacks stays one placeholder."""
    font = stack(24)
    assert [run.text for run in font.runs("Ann \U00010000\U00010001 王")] == ["Ann ◌ ", "王"]


@pytest.mark.parametrize(
    ("name", "names", "language"),
    [
        ("german", ["Jürgen", "Søren", "Zoë", "Ægir"], "de"),
        ("korean", ["김민준", "이서연", "박지훈", "최수아"], "ko"),
        ("thai_and_hindi", ["สมชาย ใจดี", "प्रिया शर्मा", "Ann"], "en"),
        ("right_to_left_and_a_robot", ["محمد عبد الله", "דוד כהן", "🤖 Merlin"], "en"),
    ],
)
def test_names_the_shipped_fonts_have_look_the_same_with_system_fonts(
    name: str, names: list[str], language: str, system_font_files: tuple[str, ...]
) -> None:
    """A picture whose text the shipped fonts have is the same bytes with the system's fonts
    as without them."""
    rows = sheet(len(names), 6, seed=3)
    t = KO if language == "ko" else texts(language)
    without = score_sheet_png(t, names, rows, final_places(rows))
    system_fonts.use(system_font_files, known=False)
    assert score_sheet_png(t, names, rows, final_places(rows)) == without, name


def test_noto_sans_cjk_named_in_picture_fonts_draws_cjk_and_its_bold_the_winner(
    request: pytest.FixtureRequest, noto_cjk_file: str
) -> None:
    """`picture_fonts` naming Noto Sans CJK's regular collection: Chinese and Japanese names are
    drawn with its faces (`test_a_cjk_collection_draws_a_name_in_the_face_of_its_writing`;
    `田中 太郎`, ideographs alone in an English chat, with the Chinese one), and the winner's in
    the bold collection beside it (a named `…Regular…` file's `…Bold…` sibling), not in the
    regular weight."""
    use_picture_fonts(Config(picture_fonts=(noto_cjk_file,)))
    assert [run.font.path for run in stack(24).runs("王小明")] == [NOTO_CJK]
    assert [run.font.path for run in stack(24, bold=True).runs("さくら")] == [NOTO_CJK_BOLD]
    rows = sheet(4, 4, seed=11)
    names = ["王小明", "さくら", "田中 太郎", "李雷"]
    compare_golden(request, "noto_cjk", score_sheet_png(EN, names, rows, final_places(rows)))


CJK_FORMS = "直骨道"
"""Ideographs written differently in China, Japan, Korea, Taiwan and Hong Kong: together they
look different in each of Noto Sans CJK's five faces (直 alike in SC and TC, 道 in TC and HK)."""


def ink(image: Image.Image) -> Image.Image:
    """`image` cropped to its ink."""
    return image.crop(image.getbbox())


def face_drawn(path: str, family: str, text: str, size: int = 24) -> Image.Image:
    """`text` drawn white on black by the face named `family` of the collection `path`, found
    by its name, cropped to its ink."""
    index = 0
    while ImageFont.truetype(path, size, index=index).getname()[0] != family:
        index += 1
    image = Image.new("L", ((len(text) + 2) * size, 2 * size))
    font = ImageFont.truetype(path, size, index=index)
    ImageDraw.Draw(image).text((size, 1.5 * size), text, font=font, fill=255, anchor="ls")
    return ink(image)


@pytest.mark.parametrize(
    ("name", "language", "locale", "region"),
    [
        ("王直道", "en", None, "SC"),  # ideographs alone: Chinese, in a chat of no CJK language
        ("直子さん", "en", None, "JP"),  # with kana: Japanese
        ("김 直道", "en", None, "KR"),  # with Hangul: Korean
        ("道骨", "ko", None, "KR"),  # ideographs alone in a Korean chat: Hanja
        ("王直道", "en", "zh-hant", "TC"),  # a Telegram app in traditional Chinese
        ("王直道", "ko", "zh-TW", "TC"),  # a Discord app in Taiwan's: the person's, not the chat's
        ("王直道", "en", "zh-HK", "HK"),  # Hong Kong's
        ("王直道", "en", "zh-Hant-HK", "HK"),
        ("王直道", "en", "zh-hans", "SC"),
        ("田中直道", "en", "ja", "JP"),  # a Japanese name in kanji alone, of a Japanese app
        ("김 直道", "en", "zh-TW", "KR"),  # Hangul tells Korean, whatever the app
        ("王直道", "en", "de-AT", "SC"),  # no CJK language: as without one
    ],
)
def test_a_cjk_collection_draws_a_name_in_the_face_of_its_writing(
    noto_cjk_file: str, name: str, language: str, locale: str | None, region: str
) -> None:
    """Noto Sans CJK's collection holds a face per writing (JP, KR, SC, TC, HK), whose
    ideographs differ in form. A name is drawn in the face its letters tell: Korean's with
    Hangul, Japanese's with kana; of ideographs alone, the face of its person's app language
    (`SheetPicture.locales`, as the platform said it: traditional Chinese's for `zh-hant` or
    `zh-TW`, Hong Kong's for `zh-HK`), else of the chat's language if it is Korean (or
    Japanese), else Simplified Chinese's; a winner's in that face of the bold collection. The
    faces are found by their names."""
    system_fonts.use((noto_cjk_file,), known=False)
    rows = sheet(2, 2, seed=11)
    for winner in (False, True):
        places = [1 if winner else 2, 1]
        drawn = picture._Sheet(texts(language), [name, "Ann"], rows, places, (locale, None))
        font = drawn.heading[0].font
        path = NOTO_CJK_BOLD if winner else NOTO_CJK
        assert [run.font.getname()[0] for run in font.runs("直")] == [f"Noto Sans CJK {region}"]
        forms = ink(drawn_alone(CJK_FORMS, font))
        for other in system_fonts.CJK_FACES:
            looks = face_drawn(path, f"Noto Sans CJK {other}", CJK_FORMS)
            assert (forms == looks) == (other == region), (region, other)


def test_a_cjk_collections_faces_in_a_picture(
    request: pytest.FixtureRequest, noto_cjk_file: str
) -> None:
    """A sheet of names in each writing drawn with Noto Sans CJK: 直 and 道 in their Chinese,
    Japanese and Korean forms, the winner's in bold."""
    system_fonts.use((noto_cjk_file,), known=False)
    rows = sheet(3, 3, seed=11)
    names = ["王直道", "直子さん道", "김 直道"]
    compare_golden(request, "noto_cjk_faces", score_sheet_png(EN, names, rows, final_places(rows)))


def test_chinese_names_in_the_faces_of_their_peoples_apps(
    request: pytest.FixtureRequest, noto_cjk_file: str
) -> None:
    """The same name of ideographs alone, of three people whose apps are in Chinese as written
    in mainland China, Taiwan and Hong Kong: 直, 骨 and 道 in the SC, TC and HK forms."""
    system_fonts.use((noto_cjk_file,), known=False)
    rows = sheet(3, 3, seed=11)
    names = ["王直道", "王直道 (2)", "王直道 (3)"]
    locales = ("zh-CN", "zh-TW", "zh-HK")
    png = score_sheet_png(EN, names, rows, final_places(rows), locales)
    compare_golden(request, "noto_cjk_chinese_faces", png)


def test_the_known_system_fonts_are_found(system_font_files: tuple[str, ...]) -> None:
    """Unless told otherwise, the pictures fall back to the well-known fonts that exist, in
    `KNOWN`'s order: the emoji font before the CJK one; named files come first."""
    system_fonts.use(None)
    found = [face.regular for face in system_fonts.faces()]
    assert [path for path in found if path in system_font_files] == [EMOJI_FONT, CJK_FONT]
    assert found == [face.regular for face in system_fonts.KNOWN if Path(face.regular).is_file()]
    system_fonts.use((CJK_FONT,))
    assert [face.regular for face in system_fonts.faces()][:2] == [CJK_FONT, EMOJI_FONT]


def test_a_file_that_is_no_font_is_not_used(tmp_path: Path) -> None:
    text = tmp_path / "notes.ttf"
    text.write_text("not a font")
    assert system_fonts.loaded(str(text)) is None
    assert system_fonts.loaded(str(tmp_path / "missing.ttf")) is None
    system_fonts.use((str(text),), known=False)
    assert [run.text for run in stack(24).runs("王")] == ["◌"]


def test_a_worker_falls_back_to_the_configured_fonts_then_the_known_ones(
    system_font_files: tuple[str, ...],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`wizard-bot run` uses `picture_fonts` first, then the well-known files, and logs which;
    with none, it says what to install."""
    caplog.set_level(logging.INFO, logger="adapters.running")
    use_picture_fonts(Config(picture_fonts=(CJK_FONT,)))
    assert "draws CJK and emoji" not in caplog.text  # said once a front end runs
    say_picture_fonts.cache_clear()
    say_picture_fonts()
    found = [face.regular for face in system_fonts.faces()]
    assert found[0] == CJK_FONT
    assert EMOJI_FONT in found[1:]
    assert f"draws CJK and emoji with {CJK_FONT}, " in caplog.text
    assert [run.text for run in stack(24).runs("Bo 王🦊")] == ["Bo ", "王", "🦊"]
    monkeypatch.setattr(system_fonts, "KNOWN", ())
    use_picture_fonts(Config())
    say_picture_fonts.cache_clear()  # as in a new process
    say_picture_fonts()
    assert system_fonts.faces() == ()
    assert "found no CJK or emoji font: such names are drawn as ◌" in caplog.text
    assert [run.text for run in stack(24).runs("Bo 王🦊")] == ["Bo ◌"]
