"""Unicode's bidirectional algorithm for the pictures, from the system's FriBiDi.

Pillow lays out one font's run of text at a time; Raqm (FriBiDi inside) orders the letters of
that run, but a name drawn with several fonts (Hebrew in DejaVu Sans, Hangul in SheetHangul,
an emoji in the colour font) has to be ordered as a whole: `levels` gives each character its
embedding level (even: left to right, odd: right to left; the paragraph's direction is its
first strong letter's), and `order` the visual order of pieces of given levels (rule L2).
The levels come from the FriBiDi library that Pillow's Raqm layout loads (`libfribidi.so.0`,
Debian's `libfribidi0`), called with ctypes; where it cannot be loaded, `levels` is None and
the text is drawn in its written order, as Pillow's basic layout draws it.
"""

import ctypes
import ctypes.util
import functools
from collections.abc import Sequence

LIBRARIES = ("libfribidi.so.0", "libfribidi.so", "libfribidi.0.dylib", "libfribidi.dylib")
"""The names Pillow's Raqm layout loads FriBiDi by (Linux, macOS); else where ctypes finds it."""

_PAR_ON = 0x40
"""FRIBIDI_PAR_ON: the paragraph's direction is that of its first strong letter."""


@functools.cache
def _library() -> ctypes.CDLL | None:
    """FriBiDi, with the result types of the three functions `levels` calls; None where it
    cannot be loaded, or is older than 1.0 (2018), which has not all three."""
    found = ctypes.util.find_library("fribidi")
    for name in (*LIBRARIES, *([found] if found else [])):
        try:
            library = ctypes.CDLL(name)
            library.fribidi_get_bidi_types.restype = None
            library.fribidi_get_bracket_types.restype = None
            library.fribidi_get_par_embedding_levels_ex.restype = ctypes.c_byte
        except (OSError, AttributeError):
            continue
        return library
    return None


@functools.lru_cache(maxsize=4096)
def levels(text: str) -> tuple[int, ...] | None:
    """The embedding level of each character of `text` (one paragraph); None without FriBiDi
    or if it fails."""
    library = _library()
    if library is None or not text:
        return None
    size = len(text)
    chars = (ctypes.c_uint32 * size)(*map(ord, text))
    types = (ctypes.c_uint32 * size)()
    brackets = (ctypes.c_uint32 * size)()
    found = (ctypes.c_byte * size)()
    direction = ctypes.c_uint32(_PAR_ON)
    library.fribidi_get_bidi_types(chars, ctypes.c_int(size), types)
    library.fribidi_get_bracket_types(chars, ctypes.c_int(size), types, brackets)
    done = library.fribidi_get_par_embedding_levels_ex(
        types, brackets, ctypes.c_int(size), ctypes.byref(direction), found
    )
    if done <= 0:
        return None
    return tuple(found)


def order(levels: Sequence[int]) -> list[int]:
    """The indexes of pieces of text with `levels`, in the order they are drawn from left to
    right (Unicode's rule L2: from the highest level down to the lowest odd one, every stretch
    at that level or higher is reversed)."""
    drawn = list(range(len(levels)))
    if not drawn:
        return drawn
    lowest_odd = min(levels) | 1
    for level in range(max(levels), lowest_odd - 1, -1):
        start = 0
        while start < len(drawn):
            if levels[drawn[start]] < level:
                start += 1
                continue
            end = start
            while end < len(drawn) and levels[drawn[end]] >= level:
                end += 1
            drawn[start:end] = reversed(drawn[start:end])
            start = end
    return drawn
