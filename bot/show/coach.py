"""What the coach says, privately: a hint for the decision at hand, and the reviews of a round
and of a game (the figures come from `bot.ai.coach` and `bot.ai.review`, read here through the
fields they have: screens do not depend on the AI)."""

from collections.abc import Sequence
from typing import Protocol

from bot.messages import Message
from bot.show.formatters import percent, said_of, signed_points
from bot.show.look import Look
from engine import Card, PlayerView


class BidHint(Protocol):
    @property
    def bid(self) -> int: ...
    @property
    def points(self) -> float: ...
    @property
    def chance(self) -> float: ...


class CardHint(Protocol):
    @property
    def card(self) -> Card: ...
    @property
    def points(self) -> float: ...
    @property
    def alike(self) -> tuple[Card, ...]: ...


class Mistake(Protocol):
    """A decision the coach would have made otherwise (`bot.ai.review.Mistake`)."""

    @property
    def round(self) -> int: ...
    @property
    def trick(self) -> int | None: ...
    @property
    def kind(self) -> str: ...
    @property
    def chosen(self) -> int | Card: ...
    @property
    def better(self) -> int | Card: ...
    @property
    def cost(self) -> float: ...
    @property
    def alike(self) -> tuple[Card, ...]: ...


def points(value: float) -> str:
    """Expected points as a person reads them: whole, signed (`+28`, `-10` with a minus sign,
    `0`)."""
    return signed_points(round(value))


def hint_message(
    look: Look, view: PlayerView, bids: Sequence[BidHint], cards: Sequence[CardHint]
) -> Message:
    """The hint for `view`'s player: each candidate bid with its expected points and chance of
    being met, or the best cards with the expected points of the round after each."""
    t = look.t
    lines = []
    if bids:
        lines.append(t("💡 Hint for your bid, round {round}:", round=view.table.round))
        lines += [
            # TRANSLATORS: {chance} is a share as /stats writes it, sign included: "86%",
            # "<1%", ">99%".
            t.ngettext(
                "Bid {bid}: {points} point expected, met {chance} of the time",
                "Bid {bid}: {points} points expected, met {chance} of the time",
                abs(round(hint.points)),
            ).format(bid=hint.bid, points=points(hint.points), chance=percent(hint.chance, 1))
            for hint in bids
        ]
    else:
        trick = len(view.table.tricks) + 1
        lines.append(
            t("💡 Hint for trick {trick}, round {round}:", trick=trick, round=view.table.round)
        )
        lines += [
            t.ngettext(
                "{card}: {points} point expected this round",
                "{card}: {points} points expected this round",
                abs(round(hint.points)),
            ).format(card=cards_named(look, (hint.card, *hint.alike)), points=points(hint.points))
            for hint in cards
        ]
    lines.append(t("(From your view alone: what you hold and what the table shows.)"))
    return Message("\n".join(lines), to=view.player)


def cards_named(look: Look, cards: Sequence[Card]) -> str:
    """Cards that play exactly alike, named together (a hint's, a review's better card):
    `🔷2`, `🔷2 or 🔷3`, `🔷2, 🔷3 or 🔷5`."""
    shown = [look.card(card) for card in cards]
    if len(shown) == 1:
        return shown[0]
    return look.t("{cards} or {card}", cards=", ".join(shown[:-1]), card=shown[-1])


def _line(look: Look, mistake: Mistake, rounds: bool) -> str:
    """One costly decision: what was chosen, and what was worth how many points more."""
    t = look.t
    cost = max(0, round(mistake.cost))
    if mistake.kind == "bid":
        said = t.ngettext(
            "you bid {chosen}; bidding {better} was worth {cost} point more",
            "you bid {chosen}; bidding {better} was worth {cost} points more",
            cost,
        ).format(chosen=mistake.chosen, better=mistake.better, cost=cost)
    else:
        said = t.ngettext(
            "you played {chosen}; {better} was worth {cost} point more",
            "you played {chosen}; {better} was worth {cost} points more",
            cost,
        ).format(
            chosen=look.card(Card(str(mistake.chosen))),
            better=cards_named(look, (Card(str(mistake.better)), *mistake.alike)),
            cost=cost,
        )
    if mistake.trick is None:
        where = t("In round {round}", round=mistake.round) if rounds else t("Your bid")
    elif rounds:
        where = t("In round {round}, trick {trick}", round=mistake.round, trick=mistake.trick)
    else:
        where = t("Trick {trick}", trick=mistake.trick)
    return f"• {said_of(t, where, said)}"


def round_review(
    look: Look, player: str, round_number: int, mistakes: Sequence[Mistake], late: bool = False
) -> Message:
    """The round's decisions where the coach would have chosen otherwise (worth 5 points or
    more), for `player` alone, in the order they were made; said of their last game if `late`
    (it comes once that game is over)."""
    t = look.t
    if late:
        # TRANSLATORS: a round's review that comes once its game is over (the next game may
        # have begun in the chat): "your last game" tells it from the game being played.
        top = t(
            "📝 The coach on round {round} of your last game: what was worth more",
            round=round_number,
        )
    else:
        top = t("📝 The coach on round {round}: what was worth more", round=round_number)
    lines = [top]
    in_order = sorted(mistakes, key=lambda mistake: mistake.trick or 0)  # the bid, the tricks
    lines += [_line(look, mistake, rounds=False) for mistake in in_order]
    return Message("\n".join(lines), to=player)


def game_review(
    look: Look, player: str, mistakes: Sequence[Mistake], skipped: Sequence[int] = ()
) -> Message:
    """A finished game's costliest decisions of `player`, with the alternatives; the rounds
    `skipped` (the AI played them for the player, away) are said to be left out: "no decision
    that cost you points" must not read as praise of the AI's moves."""
    t = look.t
    if not mistakes:
        lines = [t("📝 Your last game: the coach found no decision that cost you points.")]
    else:
        lines = [t("📝 Your last game: your costliest decisions")]
        lines += [_line(look, mistake, rounds=True) for mistake in mistakes]
        lines.append(t("(Expected points, by the coach's play-outs from your view at the time.)"))
    if skipped:
        lines.append(
            t.ngettext(
                "(Not reviewed: round {rounds}, which the AI played for you.)",
                "(Not reviewed: rounds {rounds}, which the AI played for you.)",
                len(skipped),
            ).format(rounds=", ".join(str(number) for number in sorted(skipped)))
        )
    return Message("\n".join(lines), to=player)
