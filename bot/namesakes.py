"""People called alike, told apart: the second Ann is shown as `Ann (2)`, the third `Ann (3)`.
The table numbers its seats so (`bot.show.seating`), the stats their players (`bot.stats`)."""

from collections import Counter
from collections.abc import Iterable


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
    """For each of `names`, in order, how often it came up to there: 1 for the first Ann, 2 for
    the second. A number whose label is the name of one of them (someone called `Ann (2)`
    themselves) is skipped: the second Ann is then `Ann (3)`, so no two people look alike."""
    names = tuple(names)
    taken = set(names)
    last: Counter[str] = Counter()
    counted = []
    for name in names:
        number = last[name] + 1
        while number > 1 and numbered(name, number) in taken:
            number += 1
        last[name] = number
        counted.append(number)
    return tuple(counted)


def apart(names: Iterable[str]) -> tuple[str, ...]:
    """The names in order, each one already shown numbered by how often it came: `Ann`,
    `Ann (2)`."""
    names = tuple(names)
    if len(set(names)) == len(names):
        return names  # (as nearly always: nobody to number)
    return tuple(map(shown, names, numbers(names)))
