"""People called alike, told apart: the second Ann is shown as `Ann (2)`, the third `Ann (3)`.
The table numbers its seats so (`bot.show.seating`), the stats their players (`bot.stats`).
Names are alike when they look alike: the same once what draws nothing is left out (`alike`)."""

import unicodedata
from collections import Counter
from collections.abc import Iterable

UNDRAWN = frozenset(
    "\u00ad\u034f\u115f\u1160\u180e\u200b\u200c\u200d\u2060\u2800\u3164\ufeff\uffa0"
    + "".join(map(chr, range(0xFE00, 0xFE10)))
    + "".join(map(chr, range(0xE0000, 0xE0080)))
    + "".join(map(chr, range(0xE0100, 0xE01F0)))
)
"""Characters that draw nothing, and move nothing: the soft hyphen, the combining grapheme
joiner, the Hangul fillers, the zero-width space, joiners and no-break space, the blank Braille
pattern, the variation selectors, the tags (that spell out a region's flag). Not the
bidirectional controls, which turn what is around them."""


def alike(name: str) -> str:
    """`name` as it looks: composed (NFC: `é` written with its accent apart is `é`), without
    what draws nothing (`UNDRAWN`). Two names that differ only so would show alike (`Ann`, and
    `Ann` with a zero-width joiner after it), and nobody could tell them apart."""
    return "".join(char for char in unicodedata.normalize("NFC", name) if char not in UNDRAWN)


def numbered(name: str, number: int) -> str:
    """`name` with its number, whatever it is: `Ann (2)`, and `Ann (1)` for the first."""
    return f"{name} ({number})"


def suffix(number: int) -> str:
    """What the `number`-th person called alike has after their name: ` (2)`, nothing for the
    first (`shown(name, number) == name + suffix(number)`)."""
    return "" if number == 1 else numbered("", number)


def shown(name: str, number: int) -> str:
    """`name` as the `number`-th person called so is shown: the first as they are called."""
    return name + suffix(number)


def numbers(names: Iterable[str]) -> tuple[int, ...]:
    """For each of `names`, in order, how often a name that looks like it (`alike`) came up
    to there: 1 for the first Ann, 2 for the second. A number whose label is the name of one
    of them (someone called `Ann (2)` themselves) is skipped: the second Ann is then `Ann (3)`,
    so no two people look alike."""
    looks = tuple(map(alike, names))
    taken = set(looks)
    last: Counter[str] = Counter()
    counted = []
    for look in looks:
        number = last[look] + 1
        while number > 1 and numbered(look, number) in taken:
            number += 1
        last[look] = number
        counted.append(number)
    return tuple(counted)


def apart(names: Iterable[str]) -> tuple[str, ...]:
    """The names in order, each one already shown numbered by how often it came: `Ann`,
    `Ann (2)`."""
    names = tuple(names)
    if len(set(map(alike, names))) == len(names):
        return names  # (as nearly always: nobody to number)
    return tuple(map(shown, names, numbers(names)))
