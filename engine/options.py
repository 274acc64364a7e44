"""A table's options (variants) and what they mean round by round: hand sizes, bids, notequal."""

from dataclasses import dataclass, replace
from enum import StrEnum
from functools import cache
from typing import Any, TypeVar

from engine.errors import ErrorCode, RuleError

MIN_PLAYERS = 3
MAX_PLAYERS = 6
DECK_SIZE = 60


class BidMode(StrEnum):
    """How bids are made and shown."""

    OPEN = "open"  # in turn order, public as they are made
    HIDDEN = "hidden"  # privately, in any order; all revealed together once the last is in
    SECRET = "secret"  # privately; shown as `?` until the round's end


class RoundsPlan(StrEnum):
    """Which rounds a game has."""

    STANDARD = "standard"  # round r deals r cards, until the deck runs out
    SHORT = "short"  # rounds 1 to 5
    TOURNAMENT = "tournament"  # Amigo tournament rules: 10 rounds, fixed hand sizes


TOURNAMENT_HANDS: dict[int, tuple[int, ...]] = {
    3: (2, 4, 6, 8, 10, 12, 14, 16, 18, 20),
    4: (1, 3, 5, 7, 9, 11, 12, 13, 14, 15),
    5: (2, 4, 5, 6, 7, 8, 9, 10, 11, 12),
}

DMMIXED_HIDDEN_ROUNDS = 6
"""Under dmmixed, rounds 1 to this one (and the last) use hidden bids."""


@dataclass(frozen=True, slots=True)
class Options:
    """The settings of a table, chosen before the game starts. They combine freely.

    `notequal=None` means the plan's default: on for tournament rounds, off otherwise.
    """

    notequal: bool | None = None
    bids: BidMode = BidMode.OPEN
    rounds: RoundsPlan = RoundsPlan.STANDARD
    dmmixed: bool = False
    foresight: bool = False
    wings: bool = False

    @property
    def notequal_on(self) -> bool:
        """Whether notequal holds in every round (dmmixed adds it in its middle rounds)."""
        if self.notequal is None:
            return self.rounds is RoundsPlan.TOURNAMENT
        return self.notequal

    def to_dict(self) -> dict[str, Any]:
        """Plain data, as in a game record (`notequal` resolved to true or false)."""
        return {
            "notequal": self.notequal_on,
            "bids": str(self.bids),
            "rounds": str(self.rounds),
            "dmmixed": self.dmmixed,
            "foresight": self.foresight,
            "wings": self.wings,
        }

    @classmethod
    def from_dict(cls, data: object) -> "Options":
        """Read options from plain data; unknown keys are ignored, bad values refused."""
        if not isinstance(data, dict):
            raise RuleError(ErrorCode.BAD_OPTION, "options must be an object")
        options = cls()
        for key, value in data.items():
            if key in OPTION_NAMES:
                options = options.with_option(key, value)
        return options

    def with_option(self, name: str, value: object) -> "Options":
        """These options with one changed; `value` may be a string as typed by a person."""
        if name not in OPTION_NAMES:
            known = ", ".join(OPTION_NAMES)
            raise RuleError(ErrorCode.BAD_OPTION, f"unknown option {name!r} (known: {known})")
        if name == "bids":
            return replace(self, bids=_enum(BidMode, name, value))
        if name == "rounds":
            return replace(self, rounds=_enum(RoundsPlan, name, value))
        if name == "notequal" and value is None:
            return replace(self, notequal=None)
        flag = _flag(name, value)
        if name == "notequal":
            return replace(self, notequal=flag)
        if name == "dmmixed":
            return replace(self, dmmixed=flag)
        if name == "foresight":
            return replace(self, foresight=flag)
        return replace(self, wings=flag)

    def normalized(self) -> "Options":
        """These options with every value read as its proper type (`"off"` is off); values
        that cannot be read raise RuleError `bad_option`."""
        options = Options()
        for name in OPTION_NAMES:
            options = options.with_option(name, getattr(self, name))
        return options

    def describe(self) -> str:
        """Short text such as `notequal bids=hidden rounds=short`, or `standard`."""
        parts = []
        if self.notequal_on:
            parts.append("notequal")
        if self.bids is not BidMode.OPEN:
            parts.append(f"bids={self.bids}")
        if self.rounds is not RoundsPlan.STANDARD:
            parts.append(f"rounds={self.rounds}")
        parts.extend(name for name in ("dmmixed", "foresight", "wings") if getattr(self, name))
        return " ".join(parts) or "standard"


OPTION_NAMES = ("notequal", "bids", "rounds", "dmmixed", "foresight", "wings")

_E = TypeVar("_E", bound=StrEnum)

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _flag(name: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in _TRUE | _FALSE:
        return value.lower() in _TRUE
    raise RuleError(ErrorCode.BAD_OPTION, f"option {name} takes on or off, not {value!r}")


def _enum(kind: type[_E], name: str, value: object) -> _E:
    if isinstance(value, str):
        for member in kind:
            if member.value == value.lower():
                return member
    choices = ", ".join(member.value for member in kind)
    raise RuleError(ErrorCode.BAD_OPTION, f"option {name} takes one of {choices}, not {value!r}")


def parse_option(options: Options, text: str) -> Options:
    """Apply one option as written on a command line: `notequal`, `bids=hidden`, `wings=off`."""
    name, sep, value = text.partition("=")
    return options.with_option(name.strip().lower(), value.strip() if sep else "on")


def hand_sizes(options: Options, players: int) -> tuple[int, ...]:
    """The number of cards each player holds in each round of a game."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise RuleError(
            ErrorCode.TOO_FEW_PLAYERS if players < MIN_PLAYERS else ErrorCode.GAME_FULL,
            f"Wizard is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}",
        )
    if options.rounds is RoundsPlan.TOURNAMENT:
        if players not in TOURNAMENT_HANDS:
            raise RuleError(
                ErrorCode.OPTION_UNAVAILABLE,
                f"tournament rounds are for 3 to 5 players, not {players}",
            )
        return TOURNAMENT_HANDS[players]
    last = DECK_SIZE // players
    if options.rounds is RoundsPlan.SHORT:
        last = 5
    return tuple(range(1, last + 1))


@dataclass(frozen=True, slots=True)
class RoundRules:
    """The rules in force in one round, after the options are applied to it."""

    bids: BidMode
    notequal: bool
    foresight: bool


@cache  # asked by every round of every game, answered from these four values alone
def round_rules(options: Options, number: int, rounds: int, cards: int) -> RoundRules:
    """The rules of round `number` (1-based) of `rounds`, in which each player holds `cards`.

    dmmixed: rounds 1-6 and the last use hidden bids (secret stays secret); the rounds between
    use the table's bid mode with notequal on. The table's own notequal holds in every round.
    """
    bids = options.bids
    notequal = options.notequal_on
    if options.dmmixed:
        if number <= DMMIXED_HIDDEN_ROUNDS or number == rounds:
            if bids is BidMode.OPEN:
                bids = BidMode.HIDDEN
        else:
            notequal = True
    return RoundRules(bids=bids, notequal=notequal, foresight=options.foresight and cards == 1)
