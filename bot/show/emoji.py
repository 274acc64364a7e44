"""Which characters of a text are meant as emoji, for the pictures' choice of font.

The shipped fonts have some characters that are also emoji (DejaVu Sans draws ❤ ☀ ✈ ⚡ in
black and white). Unicode says when such a character is shown as an emoji: when it has the
property Emoji_Presentation (⚡, ☔: emoji unless followed by the text variation selector
U+FE0E), or when it is followed by the emoji variation selector U+FE0F (❤️, ☀️, ✈️), and when
it is part of an emoji sequence (a skin tone after it, ✌🏽; joined by U+200D, ❤‍🔥). Chat
apps show those in colour, and so does the picture where a colour emoji font draws them
(`picture_fonts.FontStack`); a character with neither (✔, the sheet's own tick) stays text.

Also: the skin-tone modifiers, which only a colour font joins to the hand before them, and the
regional indicator letters, whose pairs are flags in a colour font (`🇰🇷`) and are otherwise
drawn as the two letters (`KR`).
"""

import functools
import unicodedata

from bot.show.clusters import REGIONAL_INDICATORS

TEXT_STYLE = "\ufe0e"
"""VARIATION SELECTOR-15: the character before it is shown as text."""

EMOJI_STYLE = "\ufe0f"
"""VARIATION SELECTOR-16: the character before it is shown as an emoji."""

JOINER = "\u200d"
"""ZERO WIDTH JOINER: joins emoji into one (👨‍👩‍👧)."""

KEYCAP = "\u20e3"
"""COMBINING ENCLOSING KEYCAP: a digit, `#` or `*` before it is a keycap emoji (1️⃣)."""

TAGS = frozenset(map(chr, range(0xE0020, 0xE0080)))
"""The tag characters, which after 🏴 spell out a region's flag (`gbsct`, Scotland's)."""

SKIN_TONES = range(0x1F3FB, 0x1F400)
"""EMOJI MODIFIER FITZPATRICK TYPE-1-2 to TYPE-6, the skin tones."""

_PRESENTATION = (
    *((0x231A, 0x231B), (0x23E9, 0x23EC), (0x23F0, 0x23F0), (0x23F3, 0x23F3)),
    *((0x25FD, 0x25FE), (0x2614, 0x2615), (0x2648, 0x2653), (0x267F, 0x267F)),
    *((0x2693, 0x2693), (0x26A1, 0x26A1), (0x26AA, 0x26AB), (0x26BD, 0x26BE)),
    *((0x26C4, 0x26C5), (0x26CE, 0x26CE), (0x26D4, 0x26D4), (0x26EA, 0x26EA)),
    *((0x26F2, 0x26F3), (0x26F5, 0x26F5), (0x26FA, 0x26FA), (0x26FD, 0x26FD)),
    *((0x2705, 0x2705), (0x270A, 0x270B), (0x2728, 0x2728), (0x274C, 0x274C)),
    *((0x274E, 0x274E), (0x2753, 0x2755), (0x2757, 0x2757), (0x2795, 0x2797)),
    *((0x27B0, 0x27B0), (0x27BF, 0x27BF), (0x2B1B, 0x2B1C), (0x2B50, 0x2B50)),
    *((0x2B55, 0x2B55), (0x1F004, 0x1F004), (0x1F0CF, 0x1F0CF), (0x1F18E, 0x1F18E)),
    *((0x1F191, 0x1F19A), (0x1F1E6, 0x1F1FF), (0x1F201, 0x1F201), (0x1F21A, 0x1F21A)),
    *((0x1F22F, 0x1F22F), (0x1F232, 0x1F236), (0x1F238, 0x1F23A), (0x1F250, 0x1F251)),
    *((0x1F300, 0x1F320), (0x1F32D, 0x1F335), (0x1F337, 0x1F37C), (0x1F37E, 0x1F393)),
    *((0x1F3A0, 0x1F3CA), (0x1F3CF, 0x1F3D3), (0x1F3E0, 0x1F3F0), (0x1F3F4, 0x1F3F4)),
    *((0x1F3F8, 0x1F43E), (0x1F440, 0x1F440), (0x1F442, 0x1F4FC), (0x1F4FF, 0x1F53D)),
    *((0x1F54B, 0x1F54E), (0x1F550, 0x1F567), (0x1F57A, 0x1F57A), (0x1F595, 0x1F596)),
    *((0x1F5A4, 0x1F5A4), (0x1F5FB, 0x1F64F), (0x1F680, 0x1F6C5), (0x1F6CC, 0x1F6CC)),
    *((0x1F6D0, 0x1F6D2), (0x1F6D5, 0x1F6D7), (0x1F6DC, 0x1F6DF), (0x1F6EB, 0x1F6EC)),
    *((0x1F6F4, 0x1F6FC), (0x1F7E0, 0x1F7EB), (0x1F7F0, 0x1F7F0), (0x1F90C, 0x1F93A)),
    *((0x1F93C, 0x1F945), (0x1F947, 0x1F9FF), (0x1FA70, 0x1FA7C), (0x1FA80, 0x1FA88)),
    *((0x1FA90, 0x1FABD), (0x1FABF, 0x1FAC5), (0x1FACE, 0x1FADB), (0x1FAE0, 0x1FAE8)),
    *((0x1FAF0, 0x1FAF8),),
)
"""The code points with Unicode's Emoji_Presentation property (emoji-data.txt, Unicode 15.0),
as inclusive ranges."""


@functools.cache
def _presentation(char: str) -> bool:
    code = ord(char)
    return any(first <= code <= last for first, last in _PRESENTATION)


def shown_as_emoji(char: str, following: str, joined: bool = False) -> bool:
    """Whether `char`, followed by `following` (the next characters: two are enough; "" at
    the end), is shown as an emoji: followed by U+FE0F, a skin tone or the joiner U+200D (✌🏽,
    ❤‍🔥), `joined` to an emoji before it by U+200D (🏃‍♀), or an Emoji_Presentation character
    not followed by U+FE0E. An ASCII character (a digit, `#`, `*`) is one only as a keycap's,
    before U+20E3 (1️⃣)."""
    if char.isascii():
        return following.removeprefix(EMOJI_STYLE).startswith(KEYCAP)
    after = following[:1]
    if joined or after in (EMOJI_STYLE, JOINER) or (after and skin_tone(after)):
        return True
    return after != TEXT_STYLE and _presentation(char)


def skin_tone(char: str) -> bool:
    """Whether `char` is a skin-tone modifier (🏽)."""
    return ord(char) in SKIN_TONES


def flag_letter(char: str) -> str | None:
    """The Latin capital that the regional indicator `char` stands for (🇰 → K); None if it is
    none."""
    if len(char) != 1 or char not in REGIONAL_INDICATORS:
        return None
    return chr(ord("A") + REGIONAL_INDICATORS.index(char))


def flags_as_letters(text: str) -> str:
    """`text` with each flag (a pair of regional indicators, or one alone) written as its
    letters, set apart by a space from what is beside it (`_apart`: `Ann🇩🇪🇫🇷!` is
    `Ann DE FR!`, `(🇩🇪)` is `(DE)`, a cut `🇩🇪…` is `DE…`)."""
    tokens: list[tuple[str, bool]] = []  # a character, or a flag's letters (True)
    for char in text:
        letter = flag_letter(char)
        if letter is None:
            tokens.append((char, False))
        elif tokens and tokens[-1][1] and len(tokens[-1][0]) == 1:
            tokens[-1] = (tokens[-1][0] + letter, True)
        else:
            tokens.append((letter, True))
    out = ""
    for index, (token, flag) in enumerate(tokens):
        if index and (flag or tokens[index - 1][1]) and _apart(out[-1], token[0]):
            out += " "
        out += token
    return out


def _apart(before: str, after: str) -> bool:
    """Whether a space goes between `before` and `after`, one of them a flag's letter: not
    beside a space, after an opening mark, nor before a closing or other punctuation mark."""
    opening = unicodedata.category(before) in ("Ps", "Pi")
    closing = unicodedata.category(after) in ("Pe", "Pf", "Po")
    return not (before.isspace() or after.isspace() or opening or closing)
