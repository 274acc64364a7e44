"""Where text may be cut without splitting what shows as one character (a grapheme cluster:
an emoji joined by zero-width joiners 👨‍👩‍👧, a flag 🇩🇪, a skin tone 👍🏽, a keycap 1️⃣, a
letter and its accents), as Unicode's text segmentation (UAX #29) says, by the `regex`
package's `\\X`; and text cut to a width with `…` (`shortened`: in columns for the chat screens,
in pixels for the pictures, in characters for the platforms' limits), or where a line of a
width ends (`fitting`: the pictures' long words on two lines)."""

from collections.abc import Callable

import regex

JOINERS = frozenset("\u200c\u200d")
"""Zero-width non-joiner and joiner: invisible, but part of emoji (👨‍👩‍👧) and of some scripts."""
REGIONAL_INDICATORS = "".join(map(chr, range(0x1F1E6, 0x1F200)))
"""The letters of flags: a flag is two of them (🇩🇪)."""

CLUSTERS = regex.compile(r"\X")
"""What shows as one character: the units a text is cut between."""

ELLIPSIS = "…"


def utf16_units(text: str) -> int:
    """The length of `text` in UTF-16 code units, the unit of Telegram's entity offsets: an
    emoji outside the Basic Multilingual Plane (🧙) is two. (Telegram counts a message's and
    a caption's length in characters, code points, as `len` does.)"""
    return len(text.encode("utf-16-le")) // 2


def head(text: str, limit: int, units: regex.Pattern[str] = CLUSTERS) -> str:
    """The longest start of `text` of at most `limit` characters that splits none of its
    `units` (what shows as one character, unless told another unit that is never split)."""
    if len(text) <= limit:
        return text
    end = 0
    for unit in units.finditer(text):
        if unit.end() > limit:
            break
        end = unit.end()
    return text[:end]


def fitting(
    text: str,
    width: float,
    measure: Callable[[str], float],
    units: regex.Pattern[str] = CLUSTERS,
) -> int:
    """The length of the longest start of `text` at most `width` wide as `measure` measures it
    (its spaces at the end not counted), ending where one of its `units` does: where a line
    may end that splits no character (the pictures' long words, `shortened`); 0 if not even
    the first unit fits."""
    ends = [0, *(unit.end() for unit in units.finditer(text))]
    low, high = 0, len(ends) - 1
    while low < high:  # a longer start is never narrower: the longest that fits
        middle = (low + high + 1) // 2
        if measure(text[: ends[middle]].rstrip()) <= width:
            low = middle
        else:
            high = middle - 1
    return ends[low]


def shortened(
    text: str,
    width: float,
    measure: Callable[[str], float],
    units: regex.Pattern[str] = CLUSTERS,
) -> str:
    """`text` cut to at most `width` as `measure` measures it (columns, pixels, characters),
    ending with `…` when cut: the longest start of it that fits with the ellipsis, ending
    where one of its `units` does (no half an emoji or a letter without its accent), without
    a space before the ellipsis (`Bob…`, not `Bob …`)."""
    if measure(text) <= width:
        return text
    end = fitting(text, width - measure(ELLIPSIS), measure, units)
    return text[:end].rstrip() + ELLIPSIS
