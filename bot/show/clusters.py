"""Where text may be cut without splitting what shows as one character: an emoji sequence joined
by zero-width joiners (👨‍👩‍👧), and a flag, which is two regional indicators (🇩🇪)."""

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
