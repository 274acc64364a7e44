"""One player's view of a chat's table, as the JSON the web page draws.

It is made from the engine's `player_view` alone (which never holds another seat's hand or a
bid before its reveal) and the seating; every move it offers is a button payload of the
player's hand message (`bot.show.screens.hand_message`), so a move from the page is exactly
the command the chat button sends.
"""

import functools
from collections.abc import Sequence
from typing import Any

from bot import tokens
from bot.namesakes import suffix
from bot.show.formatters import MEDALS, shown_points, signed_points, standings
from bot.show.i18n import N_, N_plural, texts
from bot.show.look import Look, look_of, personal
from bot.show.screens import hand_message, hand_notes, hand_screen, options_line, status
from bot.show.seating import Seating, seating
from bot.show.stats import provisional_line, seat_ratings
from bot.show.themes import FRENCH_RANKS, Theme, card_name
from bot.stats import Rerated
from bot.table import Settings, Table
from bot.tokens import Action
from engine import (
    ROUND_PHASES,
    Card,
    Phase,
    Suit,
    TableView,
    bids_met,
    lead_suit,
    player_view,
    trick_winner,
)
from engine.cards import RANK_OF, SUIT_OF
from engine.views import ScoreRow, SeatView

JSON = dict[str, Any]

WORDS: dict[str, str] = {
    "title": N_("Wizard · the table"),
    "seats": N_("Players"),
    "trump": N_("Trump"),
    "trick": N_("Trick"),
    "hand": N_("Your hand"),
    "your_turn": N_("Your turn"),
    # said to screen readers as a trick is taken (the chat's words)
    "trick_won": N_("{name} won the trick"),
    "turn_of": N_("{name}'s turn"),
    "dealer": N_("dealer"),
    "round": N_("Round {round} of {rounds}"),
    # the dealer's question beside the suits, as the hand message asks it (the card's caption
    # then says nothing: the question is asked once)
    "choose_trump": N_("A Wizard was turned up: you are the dealer, choose the trump suit."),
    "your_bid": N_("How many tricks will you take?"),
    "forbidden_bid": N_("You can't bid that: the bids may not add up to the number of tricks."),
    # TRANSLATORS: the web table's fold-out showing the trick taken last
    "last_trick": N_("Last trick"),
    "sheet": N_("Score sheet"),
    "sheet_round": N_("Round"),
    # TRANSLATORS: the tooltip of a seat's numbers on the web table, e.g. "90 (80) 0/1"
    "standing": N_("total (projected) won/bid"),
    # TRANSLATORS: the tooltip of a score sheet cell on the web table
    "cell": N_("bid {bid}, won {won}"),
    "over": N_("🏁 The game is over."),
    "lobby": N_("Waiting for the game to start."),
    "options": N_("Options"),
    "reconnecting": N_("Reconnecting…"),
    "unreachable": N_("The table cannot be reached: check the connection."),
    # TRANSLATORS: said on the web table when a move was sent but the page could not learn
    # whether the game took it (the connection lost meanwhile), and the table shows no change
    "unsure": N_("Your move may not have been made: look at the table."),
    "bid": N_("Bid"),
    "tricks": N_("Tricks"),
    "points": N_("Points"),
    "total": N_("Total"),
    # TRANSLATORS: the button that folds away a round's summary on the web table
    "close": N_("Close"),
    "standings": N_("Final standings"),
    "bids_met": N_("Bids met"),
    "rating": N_("Rating"),
    # TRANSLATORS: a card seen from its back (for screen readers)
    "hidden_card": N_("a card"),
    "noscript": N_("The table needs JavaScript."),
}
"""The page's own words (key → msgid), sent translated with every view (`words`) and with the
page itself, so the page's script says nothing in a language of its own."""


@functools.cache
def words(language: str) -> dict[str, str]:
    """The page's words in `language` (a catalog's code), made once per language: every view
    shares the dict, which nobody changes."""
    t = texts(language)
    return {key: t.gettext(message) for key, message in WORDS.items()}


SAID_POINTS = N_plural("{n} point", "{n} points")
# TRANSLATORS: a seat's points at the web table, said to a screen reader after its total
# ("20 points, 40 points if the round ended now, 1 of 2 tricks won"): its total were the
# round to end as it stands.
SAID_PROJECTED = N_plural("{n} point if the round ended now", "{n} points if the round ended now")
# TRANSLATORS: said to a screen reader after a seat's points: tricks won of those bid
# (the plural form follows the bid).
SAID_TRICKS = N_plural("{won} of {bid} trick won", "{won} of {bid} tricks won")
# TRANSLATORS: said to a screen reader after a seat's points: tricks won, the bid not shown
# to this player yet.
SAID_HIDDEN = N_plural("{won} trick won, bid hidden", "{won} tricks won, bid hidden")
# TRANSLATORS: said to a screen reader after a seat's points: the seat has not bid yet.
SAID_UNBID = N_("no bid yet")
# TRANSLATORS: a score sheet cell at the web table, said to a screen reader after its total
# ("20 points, +20 points this round, 1 of 1 trick won"): the points the round gave, signed.
SAID_ROUND = N_plural("{n} point this round", "{n} points this round")


def _count(look: Look, forms: tuple[str, str], by: int, **values: object) -> str:
    """`forms` in the plural form `by` takes, filled in with `values`."""
    return look.t.ngettext(*forms, abs(by)).format(**values)


def said(look: Look, s: SeatView) -> str:
    """A seat's numbers (`standing`, "20 (40) 1/2") as a screen reader is to say them: "20
    points, 40 points if the round ended now, 1 of 2 tricks won", as far as this viewer may
    know them (a bid hidden, a bid not made yet)."""
    parts = [_count(look, SAID_POINTS, s.total, n=shown_points(s.total))]
    if s.projected is not None:
        parts.append(_count(look, SAID_PROJECTED, s.projected, n=shown_points(s.projected)))
    if s.bid is not None:
        parts.append(_count(look, SAID_TRICKS, s.bid, won=s.won, bid=s.bid))
    elif s.has_bid:
        parts.append(_count(look, SAID_HIDDEN, s.won, won=s.won))
    else:
        parts.append(look.t(SAID_UNBID))
    return ", ".join(parts)


def cell_said(look: Look, row: ScoreRow, seat: int) -> str:
    """A score sheet cell ("20 (+20) 1/1") as a screen reader is to say it: "20 points, +20
    points this round, 1 of 1 trick won"."""
    total, points, bid = row.totals[seat], row.points[seat], row.bids[seat]
    return ", ".join(
        (
            _count(look, SAID_POINTS, total, n=shown_points(total)),
            _count(look, SAID_ROUND, points, n=signed_points(points)),
            _count(look, SAID_TRICKS, bid, won=row.won[seat], bid=bid),
        )
    )


def _face(look: Look, card: Card) -> JSON:
    """A card as the page draws it: its code, its face in the chat, its full name (for screen
    readers), its rank as the theme prints it (`13`; `A` in the French deck) and, for a Wizard
    or a Jester, the role printed on its face (`Wizard`, also on the French deck's high joker,
    whose full name `high joker (Wizard)` is too long for a card)."""
    rank = RANK_OF[card] if SUIT_OF.get(card) is not None else None
    shown = "" if rank is None else FRENCH_RANKS[rank] if look.theme is Theme.FRENCH else str(rank)
    return {
        "card": card,
        "face": look.card(card),
        "name": card_name(look.t, card, look.theme),
        "rank": shown,
        "role": card_name(look.t, card, Theme.COLOURS) if rank is None else "",
    }


def _card(look: Look, card: Card | None) -> JSON | None:
    return None if card is None else _face(look, card)


def _plays(look: Look, cards: tuple[Card, ...], leader: int, seats: int) -> list[JSON]:
    return [
        {"seat": (leader + index) % seats, **_face(look, card)} for index, card in enumerate(cards)
    ]


def _trump_line(look: Look, tv: TableView, seat: int, names: tuple[str, ...]) -> str:
    """The trump under its card: the suit, or who chooses it while the dealer does (a Wizard
    was turned up); nothing for the dealer, whose question is beside the suits to choose."""
    t = look.t
    if tv.phase is Phase.TRUMP:
        return "" if tv.dealer == seat else t("{name} chooses trump.", name=names[tv.dealer])
    return t("Trump: {suit}", suit=look.suit(tv.trump))


def _round_end(look: Look, tv: TableView, names: tuple[str, ...]) -> JSON | None:
    """The last round's result while the next round's play has not started (its deal, trump
    and bids): each seat's bid, tricks won, points and new total, as the chat's summary."""
    if tv.phase not in ROUND_PHASES or not tv.sheet or tv.trick or any(s.won for s in tv.seats):
        return None
    row = tv.sheet[-1]
    return {
        "round": row.round,
        "title": look.t("Round {round} is over.", round=row.round),
        "rows": [
            {
                "seat": seat,
                "name": name,
                "bid": row.bids[seat],
                "won": row.won[seat],
                "points": row.points[seat],
                "total": row.totals[seat],
                "made": row.bids[seat] == row.won[seat],
            }
            for seat, name in enumerate(names)
        ],
    }


def _final(
    look: Look, tv: TableView, names: tuple[str, ...], ratings: Sequence[Rerated]
) -> JSON | None:
    """A finished game's standings, best first: places, totals and bids met, and who won; and,
    once the chat's stats have folded the game (`ratings`, in seat order), each seat's rating
    after it and its change as the chat's end says them (`1130? (+130)`; an AI level's named,
    once at its best seat, counted if it had several: `seat_ratings`, "" at its other seats),
    with what `?` means. Before that, each `rating` is None."""
    if tv.phase is not Phase.FINISHED or not tv.places:
        return None
    totals = [seat.total for seat in tv.seats]
    order = sorted(range(len(names)), key=lambda seat: (tv.places[seat], seat))
    rated = len(ratings) == len(names)
    shown = seat_ratings(look.t, tv.places, ratings) if rated else [None] * len(names)
    provisional = rated and any(moved.provisional for moved in ratings)
    return {
        "title": look.t("🏁 The game is over."),
        "rounds": len(tv.sheet),
        "rows": [
            {
                "seat": seat,
                "name": names[seat],
                "place": tv.places[seat],
                "medal": MEDALS.get(tv.places[seat], f"{tv.places[seat]}."),
                "total": totals[seat],
                "bids_met": bids_met(tv.sheet, seat),
                "rating": shown[seat],
            }
            for seat in order
        ],
        "winners": standings(look, names, totals, tv.places)[-1],
        "provisional": provisional_line(look.t) if provisional else "",
    }


def _lobby(look: Look, tv: TableView, seats: Seating) -> JSON | None:
    """A lobby as everybody in the chat sees it: who has joined (the host first marked, each
    namesake's number apart as the seats carry it) and the options."""
    if tv.phase is not Phase.LOBBY:
        return None
    return {
        "title": look.t("Waiting for players…"),
        "players": [
            {
                "name": name,
                "namesake": suffix(seats.numbers[seat]) if seats.numbers else "",
                "host": seat == seats.host,
                "robot": seat in seats.robots,
            }
            for seat, name in enumerate(seats.names)
        ],
        "options": look.t("Options: {options}", options=options_line(look, tv.options)),
    }


def _row(look: Look, row: ScoreRow) -> JSON:
    return {
        "round": row.round,
        "cards": row.cards,
        "bids": list(row.bids),
        "won": list(row.won),
        "points": list(row.points),
        "totals": list(row.totals),
        "said": [cell_said(look, row, seat) for seat in range(len(row.totals))],
    }


def _dropped(look: Look, table: Table, player: str, plays: dict[str, str]) -> list[str]:
    """Wings: the chat's private notice that the player's marked card could not be played when
    their turn came, as long as that turn lasts (`Table.dropped`)."""
    card = table.dropped.get(player)
    if card is None or not plays:
        return []
    return [look.t("🪽 {card} could not be played: choose a card.", card=look.card(card))]


def seat_of(table: Table, player: str) -> int | None:
    """The seat of `player` at the table, or None."""
    return next((s for s, p in enumerate(table.game.players) if p.id == player), None)


def player_json(
    table: Table,
    settings: Settings,
    player: str,
    version: int,
    now: float,
    ratings: Sequence[Rerated] = (),
) -> JSON:
    """What the page of `player` (who must be seated at `table`) shows, as JSON; `ratings`:
    how the finished game moved its seats' ratings, in seat order, once known."""
    seat = seat_of(table, player)
    if seat is None:
        raise ValueError(f"{player} has no seat at the table")
    state = table.game
    look = personal(look_of(settings), table.languages, player)
    seats = seating(table)
    view = player_view(state, seat)
    tv = view.table
    count = len(tv.seats)
    screen = hand_screen(view, seats)
    message = hand_message(look, screen, notify=False)
    buttons = [button for row in message.buttons for button in row]
    by_action: dict[Action, list[tuple[str, str]]] = {}
    for button in buttons:
        token = tokens.decode(button.payload)
        by_action.setdefault(token.action, []).append((token.arg, button.payload))
    plays = dict(by_action.get(Action.PLAY, []))
    marks = dict(by_action.get(Action.WINGS, []))
    moves = [{"label": button.label, "payload": button.payload} for button in buttons]
    again = None
    if state.phase is Phase.FINISHED:
        again = {
            "label": look.t("Play again"),
            "payload": tokens.lobby(table.game_id, Action.AGAIN),
        }
        moves.append(again)
    winner = None
    if tv.trick:
        winner = (tv.trick_leader + trick_winner(tv.trick, tv.trump)) % count
    last = tv.last_trick
    # While the AI moves (its seats', or for players away), the deadline is only the grace
    # after which another worker would make those moves: no turn clock to count down. While
    # the game is paused, nothing moves: the clock counts down to the pause's end.
    thinking = state.phase in ROUND_PHASES and any(
        seat in seats.robots or seat in seats.away for seat in tv.waiting
    )
    thinking = thinking and seats.paused is None
    return {
        "version": version,
        "now": now,
        "game": table.game_id,
        "phase": str(tv.phase),
        "language": look.t.language,
        "words": words(look.t.language),
        "status": status(look, tv, seats) if state.phase in ROUND_PHASES else "",
        "theme": str(look.theme),
        "round": tv.round,
        "rounds": tv.rounds,
        "cards": tv.cards,
        "bid_mode": str(tv.bid_mode),
        "options": tv.options.to_dict(),
        "you": seat,
        "deadline": None if state.phase is Phase.FINISHED or thinking else table.deadline,
        "seats": [
            {
                "seat": s.seat,
                "name": seats.names[s.seat],
                # what tells the name from a namesake's, at its end: the page never cuts it
                "namesake": suffix(seats.numbers[s.seat]) if seats.numbers else "",
                "total": s.total,
                "projected": s.projected,
                "won": s.won,
                "bid": s.bid,
                "has_bid": s.has_bid,
                "shown_bid": s.shown_bid(),
                "standing": s.standing(shown_points),
                "said": said(look, s),
                "dealer": s.dealer,
                "to_act": s.to_act,
                "robot": s.seat in seats.robots,
                "away": s.seat in seats.away,
            }
            for s in tv.seats
        ],
        "trump": {
            "card": _card(look, tv.trump_card),
            "suit": tv.trump.value if tv.trump else None,
            "label": look.suit(tv.trump),
            "line": _trump_line(look, tv, seat, seats.names),
        },
        "trick": {
            "plays": _plays(look, tv.trick, tv.trick_leader, count),
            "leader": tv.trick_leader,
            "winning": winner,
            "follow": (lead_suit(tv.trick) or None) if tv.trick else None,
        },
        "last_trick": None
        if last is None
        else {"plays": _plays(look, last.cards, last.leader, count), "winner": last.winner},
        "hand": [
            {
                **_face(look, card),
                "legal": card in plays,
                "payload": plays.get(card),
                "mark": marks.get(card),
            }
            for card in screen.hand
        ],
        "hand_size": view.hand_size,
        "unseen": plays.get("") if screen.unseen else None,
        "bid": view.bid,
        "bids": [{"bid": int(arg), "payload": p} for arg, p in by_action.get(Action.BID, [])],
        "forbidden_bid": screen.forbidden,
        "trump_choice": [
            {"suit": arg, "label": look.suit(Suit(arg)), "payload": p}
            for arg, p in by_action.get(Action.TRUMP, [])
        ],
        "mark": _card(look, view.mark),
        "clear_mark": marks.get(""),
        "others": [
            {"seat": other, **_face(look, card)}
            for other, card in enumerate(view.others)
            if card is not None
        ],
        "again": again,
        "resume": next((p for arg, p in by_action.get(Action.RESUME, [])), None),
        "hint": next((p for arg, p in by_action.get(Action.HINT, [])), None),
        "sheet": [_row(look, row) for row in tv.sheet],
        "places": list(tv.places),
        "round_end": _round_end(look, tv, seats.names),
        "final": _final(look, tv, seats.names, ratings),
        "lobby": _lobby(look, tv, seats),
        "text": message.text,
        "notes": _dropped(look, table, player, plays) + hand_notes(look, screen),
        "moves": moves,
    }
