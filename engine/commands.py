"""Commands: the only way a game moves. Each names the acting player by their id."""

from dataclasses import dataclass

from engine.cards import Card, Suit
from engine.options import Options


@dataclass(frozen=True, slots=True)
class Deal:
    """A round's deal fixed in advance (for tests and replays): the hands in seat order and the
    card turned up for trump (None when no card is left)."""

    hands: tuple[tuple[Card, ...], ...]
    trump_card: Card | None


@dataclass(frozen=True, slots=True)
class Join:
    """Take the next free seat (lobby only)."""

    player: str
    name: str


@dataclass(frozen=True, slots=True)
class Leave:
    """Give up one's seat (lobby only)."""

    player: str


@dataclass(frozen=True, slots=True)
class SetOptions:
    """Choose the table's options (lobby only)."""

    options: Options


@dataclass(frozen=True, slots=True)
class Start:
    """Start the game with the seated players.

    `seed` makes every shuffle and the first dealer; `first_dealer` (a seat) and `deals` (one per
    round) fix them instead, as a replayed record or a scripted test needs.
    """

    seed: int
    first_dealer: int | None = None
    deals: tuple[Deal, ...] | None = None


@dataclass(frozen=True, slots=True)
class ChooseTrump:
    """The dealer names the trump suit after a Wizard was turned up."""

    player: str
    suit: Suit


@dataclass(frozen=True, slots=True)
class Bid:
    """Bid a number of tricks (or, when the dealer must change a hidden bid, the new bid)."""

    player: str
    bid: int


@dataclass(frozen=True, slots=True)
class Play:
    """Play a card. Under foresight a player cannot see their card: `card=None` plays it."""

    player: str
    card: Card | None


@dataclass(frozen=True, slots=True)
class MarkWings:
    """Mark a card to be played automatically when one's turn comes (wings); None clears it."""

    player: str
    card: Card | None


Command = Join | Leave | SetOptions | Start | ChooseTrump | Bid | Play | MarkWings
