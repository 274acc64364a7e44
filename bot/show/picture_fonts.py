"""The fonts of the pictures, shipped in `bot/show/fonts/`, and text drawn with them.

Pillow draws a string with one font and does not fall back to another for a character that
font lacks, so text is split into runs: each run is drawn with the first font of the stack
that has all its characters (DejaVu Sans for Latin, Greek, Cyrillic, Hebrew and Arabic, then
SheetHangul, a Hangul subset of NanumSquare, then subsets of Noto Sans Thai and Noto Sans
Devanagari). Whether a font has a character is found with Pillow alone:
its glyph, drawn, is compared with the font's `.notdef` glyph (the "tofu" box), once per font
and character.

A character no shipped font has (an emoji, a CJK ideograph) is drawn with the system's fonts
that the stack falls back to (`bot.show.system_fonts`: colour emoji, CJK), if one has it: a
colour font in its colours, a bitmap one scaled to the text's size, a CJK collection in the
face of the text's writing or of its person's app language (`cjk_face`: Noto Sans CJK's JP,
KR, SC, TC or HK), and an emoji run laid out with Raqm, which joins a ZWJ sequence, a flag's
two letters or a skin tone into one emoji (the joiner and the emoji variation selector are
kept in such a run only). A character the shipped
fonts have but that is meant as an emoji (`emoji.shown_as_emoji`: ❤️ with its variation
selector, ⚡) is drawn by a colour emoji font where there is one, as a chat shows it. Where no
colour font draws them, a skin tone after an emoji is dropped and a flag is its two letters
(`🇰🇷` as `KR`), not a grey square and two boxed letters. Where none has it, it is
drawn as a dotted circle `◌` in its place; a run of them (an emoji sequence joined by ZWJ, a
flag's two letters) becomes one circle, and variation selectors, joiners and other invisible
characters are dropped. Text that the shipped fonts have is drawn by them alone, with or
without system fonts, to the pixel (but for the emoji among it, with a colour font).
Text is NFC-normalized first (decomposed Hangul and accents become one character). A run
that needs shaping (`shaped`: right-to-left letters, combining marks, or a script whose letters
join or reorder, such as Arabic, Thai or Devanagari) is laid out with Pillow's Raqm layout: a
Hebrew or Arabic run reads right to left, Arabic letters join, and marks sit on their letters.
Raqm needs the system's FriBiDi library (Debian's `libfribidi0`; the container installs it);
without it such a run is drawn left to right, letter by letter. Every other run (Latin, Greek,
Cyrillic, Hangul, placeholders) is laid out with the basic layout, FriBiDi or not, so that its
pixels do not depend on it. Each run is laid out on its own; where a text of several runs has
right-to-left letters, each character is placed as Unicode's bidirectional algorithm places it
in the whole text (`visual`, with FriBiDi's levels: `bidi`): `דוד 김` is drawn with 김 on the
left, as a Hebrew reader reads it, and `דוד Bob 3 김` as `Bob 3 김 דוד` (without FriBiDi, in the
order of the text).
"""

import functools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import regex
from PIL import Image, ImageDraw, ImageFont, features

from bot.show import bidi, emoji, system_fonts
from bot.show.clusters import JOINERS, shortened

FONT_DIR = Path(__file__).resolve().parent / "fonts"
"""Where the shipped fonts and their licence texts are."""

REGULAR = (
    "DejaVuSans.ttf",
    "SheetHangul-Regular.ttf",
    "NotoSansThai-Regular.ttf",
    "NotoSansDevanagari-Regular.ttf",
)
BOLD = (
    "DejaVuSans-Bold.ttf",
    "SheetHangul-Bold.ttf",
    "NotoSansThai-Bold.ttf",
    "NotoSansDevanagari-Bold.ttf",
)
"""The font files of each weight, in fallback order."""

PLACEHOLDER = "\u25cc"
"""Drawn in place of characters that no shipped font has (◌ DOTTED CIRCLE)."""

CACHE_LIMIT = 4096
"""How many texts a font stack keeps laid out and rendered (then it starts afresh)."""

_NOTDEF_PROBE = "\U0010ffff"  # a noncharacter: no font maps it, so it draws `.notdef`

_INVISIBLE = frozenset({"Cc", "Cf", "Cs", "Mn", "Me", "Zl", "Zp"})
"""Categories dropped from drawn text: controls, formats (ZWJ, tags), lone surrogates, line
separators, and combining marks that no shipped font has (variation selectors, a keycap)."""


EMOJI_JOINERS = emoji.TAGS | {emoji.JOINER, emoji.KEYCAP, emoji.EMOJI_STYLE, emoji.TEXT_STYLE}
"""Invisible characters kept in a run of a colour emoji font, whose layout joins them with the
emoji around them (👨‍👩‍👧, ❤️, a keycap 1️⃣, the tags of Scotland's flag); dropped elsewhere.
The variation selectors also tell which characters are meant as emoji
(`emoji.shown_as_emoji`)."""


@dataclass(frozen=True, slots=True)
class Run:
    """A stretch of text drawn with one font: scaled by `scale` (a bitmap font's one size to
    the text's), in the font's own colours if `colour`."""

    font: ImageFont.FreeTypeFont
    text: str
    scale: float = 1.0
    colour: bool = False
    direction: str | None = None  # "rtl" or "ltr" for Raqm (`visual`); None: its own

    def advance(self) -> int:
        """How far the next run starts, in whole pixels."""
        return round(self.font.getlength(self.text, direction=self.direction) * self.scale)


BASIC = ImageFont.Layout.BASIC
LAYOUT = ImageFont.Layout.RAQM if features.check_feature("raqm") else BASIC
"""Pillow's layout of the runs that need shaping (`shaped`): Raqm (FriBiDi for the order of
right-to-left text, HarfBuzz for the shapes of joined letters and the places of marks) where the
system has FriBiDi; else the basic layout, which draws every script left to right, letter by
letter."""

RIGHT_TO_LEFT = frozenset({"R", "AL"})
"""The bidirectional classes of right-to-left letters (Hebrew; Arabic, Syriac, Thaana)."""

SHAPED_SCRIPTS = frozenset(
    {
        *("ARABIC", "SYRIAC", "THAANA", "NKO", "MONGOLIAN", "HEBREW"),
        *("DEVANAGARI", "BENGALI", "GURMUKHI", "GUJARATI", "ORIYA", "TAMIL", "TELUGU"),
        *("KANNADA", "MALAYALAM", "SINHALA", "THAI", "LAO", "TIBETAN", "MYANMAR", "KHMER"),
    }
)
"""Scripts whose letters join, stack or reorder, by the first word of their characters' Unicode
names (`THAI CHARACTER KO KAI`)."""


@functools.cache
def _shaped(char: str) -> bool:
    return (
        unicodedata.bidirectional(char) in RIGHT_TO_LEFT
        or unicodedata.category(char).startswith("M")
        or unicodedata.name(char, "").split(" ")[0] in SHAPED_SCRIPTS
    )


def shaped(text: str) -> bool:
    """Whether `text` is laid out with Raqm (`LAYOUT`): it has right-to-left letters, combining
    marks to place on their letters, or letters of a script that joins, stacks or reorders
    them (`SHAPED_SCRIPTS`)."""
    return any(_shaped(char) for char in text)


@functools.cache
def _font(name: str, size: int, layout: ImageFont.Layout) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONT_DIR / name), size, layout_engine=layout)


def _signature(font: ImageFont.FreeTypeFont, char: str) -> tuple[bytes, float]:
    """What `char` looks like in `font`: its bitmap on a small canvas and its advance."""
    size = int(font.size)
    canvas = Image.new("L", (3 * size, 2 * size))
    ImageDraw.Draw(canvas).text((size, 1.5 * size), char, font=font, fill=255, anchor="ls")
    return canvas.tobytes(), font.getlength(char)


def _probe(name: str) -> ImageFont.FreeTypeFont:
    """The font that tells whether `name` has a character: laid out by the basic layout, which
    draws a character alone as its own glyph (Raqm's HarfBuzz puts a lone combining mark on a
    dotted circle, which would pass for the mark's glyph)."""
    return _font(name, system_fonts.PROBE, BASIC)


@functools.cache
def _notdef(name: str) -> tuple[bytes, float]:
    return _signature(_probe(name), _NOTDEF_PROBE)


@functools.cache
def has_glyph(name: str, char: str) -> bool:
    """Whether the shipped font file `name` has a glyph for `char` (a whitespace character
    counts as present, drawn as space)."""
    if char.isspace():
        return True
    return _signature(_probe(name), char) != _notdef(name)


def font_for(char: str, files: tuple[str, ...] = REGULAR) -> int | None:
    """The index in `files` of the first font with a glyph for `char`; None if none has."""
    for index, name in enumerate(files):
        if has_glyph(name, char):
            return index
    return None


def clean(text: str, keep: frozenset[str] = frozenset()) -> str:
    """`text` as it is drawn: NFC, whitespace as plain spaces, invisible characters dropped
    (a combining mark stays when a shipped font has it, and so does each one of `keep`)."""
    out = []
    for char in unicodedata.normalize("NFC", text):
        if char.isspace():
            out.append(" ")
        elif (
            char in keep
            or unicodedata.category(char) not in _INVISIBLE
            or (unicodedata.category(char) in ("Mn", "Me") and font_for(char) is not None)
        ):
            out.append(char)
    return "".join(out)


def _spaced(run: Run) -> list[Run]:
    """`run` with the spaces at either end split off as runs of their own (so that a space
    is drawn alike wherever the algorithm puts it)."""
    body = run.text.strip(" ")
    start = len(run.text) - len(run.text.lstrip(" "))
    parts = (run.text[:start], body, run.text[start + len(body) :]) if body else (run.text,)
    return [replace(run, text=part) for part in parts if part]


def _pieces(runs: Sequence[Run], levels: Sequence[int]) -> list[tuple[int, Run]]:
    """`runs` cut where the embedding level changes, and the spaces at the ends of each cut
    off (`_spaced`), each piece with its level."""
    pieces: list[tuple[int, Run]] = []
    at = 0
    for run in runs:
        start = 0
        for end in range(1, len(run.text) + 1):
            if end == len(run.text) or levels[at + end] != levels[at + start]:
                piece = replace(run, text=run.text[start:end])
                pieces += [(levels[at + start], part) for part in _spaced(piece)]
                start = end
        at += len(run.text)
    return pieces


def visual(runs: Sequence[Run]) -> list[Run]:
    """`runs` in the order they are drawn from left to right, where they hold right-to-left
    letters and are more than one: each character gets the level Unicode's bidirectional
    algorithm gives it in the whole text (`bidi.levels`; the text's direction is its first
    strong letter's), the runs are cut where the level changes, and the pieces are placed in
    the algorithm's order (`bidi.order`): `דוד Bob 3 김` is drawn `Bob 3 김 דוד`, as a Hebrew
    reader reads it. Every piece that Raqm lays out is told its direction (its level's).
    Where there is no Raqm (`LAYOUT` basic) or no FriBiDi to ask, the runs stay in order."""
    text = "".join(run.text for run in runs)
    if len(runs) < 2 or LAYOUT != ImageFont.Layout.RAQM:
        return list(runs)
    if not any(unicodedata.bidirectional(char) in RIGHT_TO_LEFT for char in text):
        return list(runs)
    levels = bidi.levels(text)
    if levels is None:
        return list(runs)
    pieces = _pieces(runs, levels)
    return [
        replace(run, direction="rtl" if level % 2 else "ltr")
        if run.font.layout_engine == ImageFont.Layout.RAQM
        else run
        for level, run in (pieces[n] for n in bidi.order([level for level, _ in pieces]))
    ]


@functools.cache
def _system_font(
    path: str, size: int, layout: ImageFont.Layout, index: int = 0
) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size, index=index, layout_engine=layout)


HANGUL, KANA = regex.compile(r"\p{Hangul}"), regex.compile(r"[\p{Hiragana}\p{Katakana}]")
"""Korean's letters, and Japanese's."""

CHINESE = "SC"
"""The CJK face of ideographs alone where no language tells another: Simplified Chinese's."""

TRADITIONAL = frozenset({"hant", "tw", "mo"})
"""The subtags of a Chinese locale written in traditional characters (`zh-Hant`, `zh-TW`,
`zh-MO`), which Taiwan's face (TC) draws; Hong Kong's (`hk`) has a face of its own."""


def locale_face(code: str | None) -> str | None:
    """The CJK face (`system_fonts.CJK_FACES`) of a language as a platform says it (Telegram's
    `zh-hant`, Discord's `zh-TW`, a chat's `ko`): Japanese's for `ja`, Korean's for `ko`, and
    for Chinese Hong Kong's (`zh-HK`, `zh-Hant-HK`), Taiwan's for the other traditional ones
    (`TRADITIONAL`), else Simplified Chinese's; None for a language with no CJK face."""
    tags = re.split(r"[-_]", (code or "").strip().lower())
    if tags[0] in ("ja", "ko"):
        return "JP" if tags[0] == "ja" else "KR"
    if tags[0] != "zh":
        return None
    if "hk" in tags:
        return "HK"
    return "TC" if TRADITIONAL.intersection(tags) else CHINESE


def cjk_face(text: str, language: str, locale: str | None = None) -> str:
    """The face of a CJK collection that draws `text` (`system_fonts.CJK_FACES`), in a chat of
    `language`: Korean's if it has Hangul (Hanja among it take their Korean forms), Japanese's
    if it has kana; ideographs alone, the face of `locale` (the language of the app of the
    person whose name it is: `locale_face`), else of the chat's language, else Simplified
    Chinese's (`CHINESE`)."""
    if HANGUL.search(text):
        return "KR"
    if KANA.search(text):
        return "JP"
    return locale_face(locale) or locale_face(language) or CHINESE


@functools.cache
def _system_notdef(font: system_fonts.Loaded) -> tuple[bytes, float]:
    return _signature(_system_font(font.path, font.size(system_fonts.PROBE), BASIC), _NOTDEF_PROBE)


@functools.cache
def system_has(font: system_fonts.Loaded, char: str) -> bool:
    """Whether the system font `font` has a glyph for `char` (found as for a shipped font; in
    a collection, by its first face: a CJK collection's faces have the same characters)."""
    probe = _system_font(font.path, font.size(system_fonts.PROBE), BASIC)
    return _signature(probe, char) != _system_notdef(font)


class FontStack:
    """The shipped fonts of one weight at one pixel size, with per-character fallback, then the
    system's fonts of `system` (`bot.show.system_fonts`) for what the shipped ones lack, a
    collection's CJK face `face` among them (`cjk_face`).

    What it measures and draws is cached per text, so a sheet's many equal numbers are laid
    out and rendered once."""

    __slots__ = (
        "_masks",
        "_shapes",
        "colour",
        "face",
        "files",
        "fonts",
        "keep",
        "sequences",
        "shaping",
        "size",
        "system",
        "system_fonts",
    )

    def __init__(
        self,
        size: int,
        bold: bool = False,
        system: tuple[system_fonts.Face, ...] = (),
        face: str = CHINESE,
    ) -> None:
        self.size = size
        self.face = face
        self.files = BOLD if bold else REGULAR
        self.fonts = tuple(_font(name, size, BASIC) for name in self.files)
        self.shaping = tuple(_font(name, size, LAYOUT) for name in self.files)
        paths = ((face.bold or face.regular) if bold else face.regular for face in system)
        self.system = tuple(
            loaded for loaded in map(system_fonts.loaded, paths) if loaded is not None
        )
        self.colour = any(font.colour for font in self.system)
        # a colour font joins emoji sequences (skin tones, flags, keycaps) where Raqm is
        self.sequences = self.colour and LAYOUT == ImageFont.Layout.RAQM
        self.keep = JOINERS | EMOJI_JOINERS if self.sequences else JOINERS
        self._shapes: dict[str, tuple[tuple[Run, ...], int]] = {}
        self._masks: dict[Run, tuple[Image.Image, int, int]] = {}

    def clean(self, text: str) -> str:
        """`text` as drawn (`clean`), keeping the joiner and non-joiner (for `runs` to keep
        or drop), and what joins emoji where a colour font draws them."""
        return clean(text, self.keep)

    def _find(self, char: str, following: str, joined: bool = False) -> int | None:
        """The index of the font for `char`, followed by `following` (the next two characters),
        `joined` to an emoji before it or not: a colour font first if it is meant as an emoji
        (`emoji.shown_as_emoji`), then the shipped ones, then the system's."""
        keycap = char.isascii()  # a keycap's digit is an emoji only where sequences join
        if (
            self.colour
            and emoji.shown_as_emoji(char, following, joined)
            and not (keycap and not self.sequences)
        ):
            for index, font in enumerate(self.system):
                if font.colour and system_has(font, char):
                    return len(self.files) + index
        found = font_for(char, self.files)
        if found is not None:
            return found
        for index, font in enumerate(self.system):
            if system_has(font, char):
                return len(self.files) + index
        return None

    def runs(self, text: str) -> list[Run]:
        """`text` (cleaned) split into runs of one font each, placeholders in place of
        characters no font has. A placeholder is drawn with the first font, in the run of the
        text around it: laid out with it, it stands in its place in right-to-left text.
        A joiner of emoji stays in a colour font's run; a joiner or non-joiner after a letter
        that is shaped (Persian's U+200C in حسین‌زاده, a Devanagari half form's U+200D) stays in
        its run, which Raqm lays out; elsewhere they are dropped. A character
        meant as an emoji (`emoji.shown_as_emoji`: ❤️, ⚡) is drawn by a colour font that has
        it, before the shipped ones; where no colour font draws them joined (none, or no Raqm),
        a skin tone after an emoji is dropped (the emoji stays) and a flag's letters are drawn
        as letters (🇰🇷: KR)."""
        runs: list[Run] = []
        current, missing = -1, False
        chunk = ""
        cleaned = self.clean(text)
        if not self.sequences:
            cleaned = emoji.flags_as_letters(cleaned)
        for at, written in enumerate(cleaned):
            char = written
            if char in self.keep and not missing and self._colour(current):
                chunk += char
                continue
            if char in JOINERS and self._shaping(current, missing, chunk):
                chunk += char  # Raqm joins or parts the letters around it
                continue
            if char in self.keep and clean(char) != char:
                continue  # dropped as without a colour font
            joined = chunk.endswith(emoji.JOINER) and self._colour(current)
            found = self._find(char, cleaned[at + 1 : at + 3], joined)
            joins = self.sequences and self._colour(found if found is not None else -1)
            if emoji.skin_tone(char) and not joins and chunk and not chunk[-1].isspace():
                continue  # the emoji before it is drawn alone
            if found is None and missing:
                continue  # one placeholder for a whole stretch of missing characters
            index = 0 if found is None else found
            if index != current and chunk:
                runs.append(self._run(current, chunk))
                chunk = ""
            current, missing = index, found is None
            chunk += PLACEHOLDER if found is None else char
        if chunk:
            runs.append(self._run(current, chunk))
        return runs

    def _shaping(self, index: int, missing: bool, chunk: str) -> bool:
        """Whether the run being built (`chunk`, in the font `index`) is a shipped font's and
        ends with a letter that is shaped (`shaped`), which a joiner after it acts on."""
        return not missing and 0 <= index < len(self.files) and bool(chunk) and _shaped(chunk[-1])

    def _colour(self, index: int) -> bool:
        """Whether the font `index` of the stack draws in colour (-1: none yet)."""
        return index >= len(self.files) and self.system[index - len(self.files)].colour

    def _run(self, index: int, text: str) -> Run:
        """`text` in the font `index` of the stack, laid out with Raqm if it needs shaping (or
        is emoji, whose sequences Raqm joins)."""
        if index < len(self.files):
            return Run((self.shaping if shaped(text) else self.fonts)[index], text)
        font = self.system[index - len(self.files)]
        layout = LAYOUT if font.colour or shaped(text) else BASIC
        drawn = _system_font(font.path, font.size(self.size), layout, font.index(self.face))
        return Run(drawn, text, font.scale(self.size), font.colour)

    def _shape(self, text: str) -> tuple[tuple[Run, ...], int]:
        """The runs of `text` and its width in whole pixels (each run starts on a pixel)."""
        shape = self._shapes.get(text)
        if shape is None:
            runs = tuple(visual(self.runs(text)))
            shape = (runs, sum(run.advance() for run in runs))
            if len(self._shapes) >= CACHE_LIMIT:
                self._shapes.clear()
            self._shapes[text] = shape
        return shape

    def _mask(self, run: Run) -> tuple[Image.Image, int, int]:
        """`run` drawn white on black (in its colours on transparency, if `colour`), with where
        its top left lies from (x, baseline); scaled by its `scale`."""
        mask = self._masks.get(run)
        if mask is None:
            box = run.font.getbbox(run.text, anchor="ls", direction=run.direction)
            left, top, right, bottom = (int(value) for value in box)
            size = (max(1, right - left), max(1, bottom - top))
            image = Image.new("RGBA" if run.colour else "L", size)
            pen = ImageDraw.Draw(image)
            at, text, font, way = (-left, -top), run.text, run.font, run.direction
            if run.colour:
                pen.text(at, text, font=font, anchor="ls", direction=way, embedded_color=True)
            else:
                pen.text(at, text, font=font, fill=255, anchor="ls", direction=way)
            if run.scale != 1.0:
                image = image.resize(
                    (max(1, round(size[0] * run.scale)), max(1, round(size[1] * run.scale))),
                    Image.Resampling.LANCZOS,
                )
                left, top = round(left * run.scale), round(top * run.scale)
            mask = (image, left, top)
            if len(self._masks) >= CACHE_LIMIT:
                self._masks.clear()
            self._masks[run] = mask
        return mask

    def length(self, text: str) -> int:
        """How wide `text` is drawn, in pixels."""
        return self._shape(text)[1]

    def fit(self, text: str, width: float) -> str:
        """`text` (cleaned) cut to at most `width` pixels, ending with `…` when cut."""
        return shortened(self.clean(text), width, self.length)

    def draw(
        self,
        image: Image.Image,
        x: float,
        baseline: float,
        text: str,
        fill: tuple[int, int, int],
        align: str = "left",
    ) -> int:
        """Draw `text` on `image` on the baseline at `x`: its left edge, centre or right edge
        for `align` left, centre or right. Returns the width drawn."""
        runs, width = self._shape(text)
        if align == "right":
            x -= width
        elif align == "centre":
            x -= width / 2
        left, baseline = round(x), round(baseline)
        for run in runs:
            mask, dx, dy = self._mask(run)
            if run.colour:
                image.paste(mask, (left + dx, baseline + dy), mask)
            else:
                image.paste(fill, (left + dx, baseline + dy), mask)
            left += run.advance()
        return width


@functools.cache
def _stack(size: int, bold: bool, system: tuple[system_fonts.Face, ...], face: str) -> FontStack:
    return FontStack(size, bold, system, face)


def stack(size: int, bold: bool = False, face: str = CHINESE) -> FontStack:
    """The (cached) font stack of one size and weight, with the system fonts chosen now
    (`system_fonts.faces`), drawing with their collections' CJK face `face` (`cjk_face`)."""
    return _stack(size, bold, system_fonts.faces(), face)
