"""Where text may be cut without splitting what shows as one character: an emoji sequence joined
by zero-width joiners (👨‍👩‍👧), and a flag, which is two regional indicators (🇩🇪); and text cut
to a width with `…` (`shortened`: in columns for the chat screens, in pixels for the pictures,
in characters for the platforms' limits)."""

from collections.abc import Callable

JOINERS = frozenset("\u200c\u200d")
"""Zero-width non-joiner and joiner: invisible, but part of emoji (👨‍👩‍👧) and of some scripts."""
REGIONAL_INDICATORS = "".join(map(chr, range(0x1F1E6, 0x1F200)))
"""The letters of flags: a flag is two of them (🇩🇪)."""


def whole(cut: str) -> str:
    """`cut` (the start of a longer text) without half an emoji at its end: no dangling joiner
    (👨‍👩‍ cut from 👨‍👩‍👧) and no flag's lone first half."""
    cut = cut.rstrip("".join(JOINERS))
    indicators = len(cut) - len(cut.rstrip(REGIONAL_INDICATORS))
    return cut[:-1] if indicators % 2 else cut


ELLIPSIS = "…"


def utf16_units(text: str) -> int:
    """The length of `text` in UTF-16 code units, the unit of Telegram's entity offsets: an
    emoji outside the Basic Multilingual Plane (🧙) is two. (Telegram counts a message's and
    a caption's length in characters, code points, as `len` does.)"""
    return len(text.encode("utf-16-le")) // 2


def shortened(text: str, width: float, measure: Callable[[str], float]) -> str:
    """`text` cut to at most `width` as `measure` measures it (columns, pixels), ending with `…`
    when cut: the longest start of it that fits with the ellipsis, without half an emoji
    (`whole`) or a space before the ellipsis (`Bob…`, not `Bob …`)."""
    if measure(text) <= width:
        return text
    room = width - measure(ELLIPSIS)
    low, high = 0, len(text)
    while low < high:  # a longer start is never narrower: the longest that fits
        middle = (low + high + 1) // 2
        if measure(whole(text[:middle]).rstrip()) <= room:
            low = middle
        else:
            high = middle - 1
    return whole(text[:low]).rstrip() + ELLIPSIS
