"""Commands: the only way a game moves. Each names the acting player by their id.

Commands are NamedTuples: immutable, typed, and cheap to make (simulations make millions).
"""

from typing import NamedTuple

from engine.cards import Card, Suit
from engine.options import Options


class Deal(NamedTuple):
    """A round's deal fixed in advance (for tests and replays): the hands in seat order and the
    card turned up for trump (None when no card is left)."""

    hands: tuple[tuple[Card, ...], ...]
    trump_card: Card | None


class Join(NamedTuple):
    """Take the next free seat (lobby only)."""

    player: str
    name: str


class Leave(NamedTuple):
    """Give up one's seat (lobby only)."""

    player: str


class SetOptions(NamedTuple):
    """Choose the table's options (lobby only)."""

    options: Options


class Start(NamedTuple):
    """Start the game with the seated players.

    `seed` makes every shuffle and the first dealer; `first_dealer` (a seat) and `deals` (one per
    round) fix them instead, as a replayed record or a scripted test needs.
    """

    seed: int
    first_dealer: int | None = None
    deals: tuple[Deal, ...] | None = None


class ChooseTrump(NamedTuple):
    """The dealer names the trump suit after a Wizard was turned up."""

    player: str
    suit: Suit


class Bid(NamedTuple):
    """Bid a number of tricks (or, when the dealer must change a hidden bid, the new bid)."""

    player: str
    bid: int


class Play(NamedTuple):
    """Play a card. Under foresight a player cannot see their card: `card=None` plays it."""

    player: str
    card: Card | None


class MarkWings(NamedTuple):
    """Mark a card to be played automatically when one's turn comes (wings); None clears it."""

    player: str
    card: Card | None


Command = Join | Leave | SetOptions | Start | ChooseTrump | Bid | Play | MarkWings

new_tuple = tuple.__new__
"""Makes a NamedTuple (a command, an event, a Trick) from its fields in order, as its own
constructor does but without that constructor's Python call: `new_tuple(Play, (player, card))`.
The hot paths use it, where every card played makes one of each."""
