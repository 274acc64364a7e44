"""Upgrades of what the store keeps: every stored form with a structure that may change carries
its version, and a chain of small steps brings an older one up to the current version as it is
read (v1 → v2 → … → current). What is read is used in the current form, and the next save
writes that form: a stored form is upgraded once, by its next write, never in bulk.

A form newer than this code knows (an old worker, during a rolling upgrade, meets what a newer
one wrote) is refused with `NewerForm`, and nothing of it is written: the game waits for a
worker that knows its form. There is no step down; a rollback is in docs/operations.md.

To change a stored form: add the step from the current version to the next to its chain (the
form's `steps`; the step gets and returns the form as plain data, and writes nothing), change
the form's writer and reader to the new form, and add the fixtures of the new version
(tests/fixtures/README.md). The forms the store writes, and why the others carry no version,
are listed in docs/operations.md ("Upgrades").
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

Data = dict[str, Any]
Step = Callable[[Data], Data]
"""Upgrade a form from one version to the next (it may change `data` in place)."""


class NewerForm(ValueError):
    """A stored form of a version newer than this code knows: left as it is, untouched."""

    def __init__(self, form: str, found: int, known: int) -> None:
        super().__init__(
            f"{form} form {found} was written by a newer version of the bot "
            f"(this one knows up to {known}): it is left as it is"
        )
        self.form = form
        self.found = found
        self.known = known


@dataclass(frozen=True, slots=True)
class Form:
    """One stored form and its chain of upgrades: `steps[n]` turns version n into n + 1, for
    every n from `oldest` on; the current version is the one after the last step."""

    name: str
    steps: Mapping[int, Step] = field(default_factory=dict)
    tag: str = "f"
    """The field of the stored object that holds its version."""
    oldest: int = 1
    untagged: int | None = None
    """The version of a stored object without the tag (written before it carried one); None:
    every stored object has it."""

    def __post_init__(self) -> None:
        expected = list(range(self.oldest, self.oldest + len(self.steps)))
        if sorted(self.steps) != expected:
            raise ValueError(f"{self.name}: the upgrade steps {sorted(self.steps)} skip a version")

    @property
    def current(self) -> int:
        """The version this code writes."""
        return self.oldest + len(self.steps)

    def version(self, data: Mapping[str, Any]) -> int:
        """The version of a stored object; ValueError for one that names none this form had."""
        found = data.get(self.tag, self.untagged)
        if not isinstance(found, int) or isinstance(found, bool):
            raise ValueError(f"{self.name} form {found!r}: not a version")
        if found > self.current:
            raise NewerForm(self.name, found, self.current)
        if found < self.oldest:
            raise ValueError(f"{self.name} form {found}: older than any this bot reads")
        return found

    def upgrade(self, data: Data) -> tuple[Data, int]:
        """`data` in the current form, and the version it was stored in."""
        found = self.version(data)
        for version in range(found, self.current):
            data = self.steps[version](data)
            data[self.tag] = version + 1
        return data, found

    def stamp(self, data: Data) -> Data:
        """`data` (in the current form) with its version first, as it is written."""
        return {self.tag: self.current, **data}


def _packed_with_a_dictionary(data: Data) -> Data:
    """Table 1 to 2: the same data. Version 2 changed only the bytes it is stored as: Zstandard
    with the table dictionary (`bot.packing`, 4 December 2026), where version 1 was zlib. An
    older worker cannot read those bytes at all (it fails on them, and writes nothing over
    them), so the version says that a release writing them changes a stored form
    (docs/operations.md, "Upgrades")."""
    return data


TABLE = Form("table", steps={1: _packed_with_a_dictionary})
"""A chat's table: the game hash's `t` (the table without its finished rounds) and `r` (the
finished rounds), upgraded together as one object, the rounds in `game.results` (as
`GameState.to_dict()` has them); `t` carries the version."""

STATS = Form("stats", untagged=1)
"""A chat's fold of its games (the stats hash's `s`, and its recent board `m`): `bot.stats.Fold`.
Folds written before it carried a version are version 1."""
