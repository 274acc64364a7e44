"""The system's fonts that the pictures fall back to for characters the shipped fonts lack.

The shipped fonts (`bot/show/fonts/`) have no CJK ideographs, kana or emoji: fonts that have
them are 4 to 10 MB each, more than the whole shipped set. Where the system has such fonts, the
pictures draw those characters with them: first the files the operator names (`picture_fonts`,
`bot.config`), then those of `KNOWN` that exist, each in its place in Debian's and Ubuntu's
packages (`fonts-noto-color-emoji`, `fonts-noto-cjk`, `fonts-droid-fallback`, …). A character
none of them has is drawn as the placeholder `◌`, as without them.

A face with colour glyphs (a `CBDT`, `sbix` or `COLR` table: Noto Color Emoji) is drawn in its
colours; a bitmap font (Noto Color Emoji has one size, 109 pixels) is drawn at its size and
scaled to the text's. A collection of CJK faces (Noto Sans CJK's `.ttc`: JP, KR, SC, TC, HK)
draws each text with the face of its writing, found by the faces' names (`CJK_FACES`). Which
faces are used is found once, at the first picture (`faces`), or set with `use` (at start-up
from the configuration; the tests pin it).
"""

import functools
import os
import struct
from dataclasses import dataclass
from pathlib import Path

from PIL import ImageFont


@dataclass(frozen=True, slots=True)
class Face:
    """A font file of the system: its regular face, and its bold one if it has one."""

    regular: str
    bold: str | None = None


KNOWN = (
    Face("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"),  # fonts-noto-color-emoji
    Face(  # fonts-noto-cjk
        "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
        "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc",
    ),
    Face("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"),  # fonts-droid-fallback
    Face("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"),  # fonts-wqy-microhei
    Face("/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf"),  # fonts-symbola
)
"""Well-known fonts of Debian's and Ubuntu's packages, in the order they are tried: colour
emoji, then CJK (with Hangul and kana), then Symbola (emoji in black and white, symbols)."""

COLOUR_TABLES = frozenset({b"CBDT", b"sbix", b"COLR"})
"""The tables of an OpenType font that hold colour glyphs."""

STRIKES = (109, 128, 136, 160)
"""The pixel sizes tried for a bitmap font that cannot be scaled (Noto Color Emoji: 109)."""

PROBE = 32
"""The pixel size a scalable font, shipped or the system's, is drawn at to tell its glyphs
from its `.notdef` (`picture_fonts.has_glyph`)."""

_chosen: list[tuple[Face, ...]] = []
"""The faces chosen (none yet: found at the first picture)."""


def named(file: str) -> Face:
    """The face of a font file the operator names: its bold one is the file beside it whose
    name has `Bold` for `Regular` (`NotoSansCJK-Regular.ttc`, `NotoSansCJK-Bold.ttc`), where
    there is one; else the file draws both weights."""
    path = Path(file)
    bold = path.with_name(path.name.replace("Regular", "Bold"))
    return Face(file, str(bold) if bold != path and bold.is_file() else None)


def use(files: tuple[str, ...] | None, known: bool = True) -> None:
    """Fall back to `files` (paths of font files, `named`), then, with `known`, to the fonts
    of `KNOWN` that exist; None forgets the choice (found again at the next picture)."""
    _chosen.clear()
    if files is not None:
        found = [named(file) for file in files]
        if known:
            found += [face for face in KNOWN if Path(face.regular).is_file()]
        _chosen.append(tuple(found))


def faces() -> tuple[Face, ...]:
    """The faces to fall back to, in order (the `KNOWN` ones that exist, unless `use` said)."""
    if not _chosen:
        use(())
    return _chosen[0]


CJK_FACES = ("JP", "KR", "SC", "TC", "HK")
"""The faces of a CJK font collection, each told by the last word of its family's name (`Noto
Sans CJK SC`): Japanese, Korean, Simplified Chinese, Traditional Chinese (Taiwan's) and Hong
Kong's. They have the same characters, but an ideograph's form is its place's (直 and 骨 differ
between JP and SC). Which one draws a text: `picture_fonts.cjk_face`."""


def face_count(path: str) -> int:
    """How many faces the font file `path` holds (a `.ttc` collection more than one)."""
    with open(path, "rb") as file:
        head = file.read(12)
    return struct.unpack(">I", head[8:12])[0] if head[:4] == b"ttcf" else 1


def cjk_faces(path: str, size: int) -> tuple[tuple[str, int], ...]:
    """The CJK faces (`CJK_FACES`) of the collection `path`, each with its index in the file,
    found by their family names (the first face of each: `Noto Sans CJK JP` before `Noto Sans
    Mono CJK JP`); none for a file of one face or of faces named otherwise."""
    count = face_count(path)
    found: dict[str, int] = {}
    for index in range(count if count > 1 else 0):
        try:
            family, _style = ImageFont.truetype(path, size, index=index).getname()
        except OSError:
            continue
        region = (family or "").rsplit(" ", 1)[-1]
        if region in CJK_FACES:
            found.setdefault(region, index)
    return tuple(found.items())


def table_tags(path: str) -> frozenset[bytes]:
    """The tags of the tables of the font file `path` (of its first face, in a collection)."""
    with open(path, "rb") as file:
        head = file.read(12)
        offset = 0
        if head[:4] == b"ttcf":
            file.seek(12)
            (offset,) = struct.unpack(">I", file.read(4))
            file.seek(offset)
            head = file.read(12)
        (count,) = struct.unpack(">H", head[4:6])
        file.seek(offset + 12)
        records = file.read(16 * count)
    return frozenset(records[16 * n : 16 * n + 4] for n in range(count))


@dataclass(frozen=True, slots=True)
class Loaded:
    """A system font file as the pictures use it: its pixel size where it has one only."""

    path: str
    strike: int | None  # the one size of a bitmap font, else None
    colour: bool  # drawn in its own colours
    faces: tuple[tuple[str, int], ...] = ()  # a collection's CJK faces and their indexes

    def index(self, face: str) -> int:
        """The index in the file of the face that draws text of the CJK face `face`
        (`CJK_FACES`): the collection's face of that name, else its first."""
        return dict(self.faces).get(face, 0)

    def size(self, wanted: int) -> int:
        """The pixel size to load it at for text of `wanted` pixels."""
        return wanted if self.strike is None else self.strike

    def scale(self, wanted: int) -> float:
        """How much what it draws at `size(wanted)` is scaled for text of `wanted` pixels."""
        return 1.0 if self.strike is None else wanted / self.strike


@functools.cache
def loaded(path: str) -> Loaded | None:
    """`path` as a font the pictures can draw with; None if it cannot be read as one."""
    try:
        colour = bool(table_tags(path) & COLOUR_TABLES)
    except (OSError, struct.error):
        return None
    for size in (PROBE, *STRIKES):
        try:
            ImageFont.truetype(path, size)
        except OSError:
            continue
        return Loaded(path, None if size == PROBE else size, colour, cjk_faces(path, size))
    return None


def readable(path: str) -> bool:
    """Whether `path` is a font file the pictures can draw with (for the configuration's
    check)."""
    return os.path.isfile(path) and loaded(path) is not None
