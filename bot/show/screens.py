"""What people see, built from engine views: the lobby, the group's table, each player's hand,
round summaries, the end of a game. Every builder takes a `Look`, a view and the `Seating`; none
reads the game's state or asks a rule. Platform-neutral text and buttons, every word translated.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from bot import tokens
from bot.messages import OPTIONS, Button, Message
from bot.show.formatters import (
    MEDALS,
    last_trick,
    last_trick_line,
    plays_line,
    round_head,
    round_result,
    said_of,
    score_line,
    seat_score,
    shown_points,
    standings,
    trick_cards,
    trick_plays,
    trump_line,
)
from bot.show.i18n import error_text
from bot.show.look import Look, personal
from bot.show.option_words import (
    BID_NAMES,
    FLAGS,
    FORESIGHT,
    NOTEQUAL,
    ROUND_NAMES,
    setting_label,
)
from bot.show.picture import SheetPicture
from bot.show.seating import AWAY, CROWN, Seating, dealer_mark
from bot.show.stats import own_rating, ratings_lines
from bot.show.themes import cards_line
from bot.stats import Rerated
from bot.table import COACH
from bot.tokens import Action
from engine import (
    ROUND_PHASES,
    BidMode,
    Card,
    ErrorCode,
    Options,
    Phase,
    PlayerView,
    RoundsPlan,
    Suit,
    TableView,
    bids_met,
    lead_suit,
    trick_winner,
)
from engine.options import MAX_PLAYERS, MIN_PLAYERS, TOURNAMENT_HANDS
from engine.views import ScoreRow

ROW = 4
"""Card buttons per row at most (phones show four comfortably), in rows as even as can be
(`even_rows`)."""
BID_ROW = 6
"""Bid buttons per row at most (`even_rows`)."""

Rows = tuple[tuple[Button, ...], ...]
T = TypeVar("T")


def _rows(buttons: list[Button], size: int) -> list[tuple[Button, ...]]:
    return [tuple(buttons[i : i + size]) for i in range(0, len(buttons), size)]


def even_rows(items: Sequence[T], size: int) -> list[tuple[T, ...]]:
    """`items` in as few rows of at most `size` as can hold them, their lengths as even as can
    be: a platform stretches a row over the whole width, so a bid left alone on a row ([0-5]
    [6]) looks like a button of another kind."""
    count = -(-len(items) // size)
    rows, extra = divmod(len(items), count) if count else (0, 0)
    laid, start = [], 0
    for n in range(count):
        end = start + rows + (n < extra)
        laid.append(tuple(items[start:end]))
        start = end
    return laid


# --- lobby -----------------------------------------------------------------------------------


def options_line(look: Look, options: Options, coach: bool = False) -> str:
    """The options as a line of words (with the table's coach option, when on)."""
    t = look.t
    parts = [t(BID_NAMES[options.bids]), t(ROUND_NAMES[options.rounds])]
    parts += [t(flag.name) for flag in FLAGS if flag.on(options)]
    if coach:
        parts.append(t("coach"))
    return ", ".join(parts)


def option_notes(look: Look, options: Options, coach: bool = False) -> list[str]:
    """A line for each option that is on, saying what it does (its name alone tells little),
    the table's coach option last (as `options_line`)."""
    t = look.t
    notes = {
        BidMode.HIDDEN: t(
            "Hidden bids: everyone bids privately; all bids are shown once the last is in."
        ),
        BidMode.SECRET: t(
            "Secret bids: everyone bids privately; the bids are shown at the round's end."
        ),
    }
    lines = [notes[options.bids]] if options.bids in notes else []
    if options.rounds is RoundsPlan.TOURNAMENT:
        lines.append(t("Tournament rounds: 10 rounds with set hand sizes (Amigo rules)."))
    if options.notequal_on:
        lines.append(
            t("notequal: the dealer may not make the bids add up to the number of tricks.")
        )
    if options.dmmixed:
        lines.append(
            t("dmmixed: hidden bids in rounds 1–6 and the last round, notequal in between.")
        )
    if options.foresight:
        lines.append(
            t("foresight: with one card each, you see the others' cards but not your own.")
        )
    if options.wings:
        lines.append(t("wings: mark a card ahead; it is played by itself on your turn if allowed."))
    if coach:
        lines.append(t("coach: a Hint button on your turn, and a private review after each round."))
    return lines


def lobby(
    look: Look,
    view: TableView,
    seating: Seating,
    show_options: bool = False,
    host: str | None = None,
) -> Message:
    """The lobby: who sits where, the options, and its buttons (with the host's option toggles
    when `show_options`). With `host`, their own copy in their private chat: the same lines,
    and the option toggles alone (slot `OPTIONS`)."""
    t = look.t
    if view.phase is not Phase.LOBBY:
        return _lobby_closed(look, view, seating)
    lines = [t("🔮 Wizard: a new table"), ""]
    for seat, name in enumerate(seating.names):
        crown = f" {CROWN}" if seat == seating.host else ""
        lines.append(f"{seat + 1}. {name}{crown}")
    seated = len(seating.names)
    free = MAX_PLAYERS - seated
    if free:
        lines.append(t.ngettext("{free} seat free", "{free} seats free", free).format(free=free))
    options = options_line(look, view.options, seating.coach)
    notes = option_notes(look, view.options, seating.coach)
    lines += ["", t("Options: {options}", options=options), *notes]
    if seated < MIN_PLAYERS:
        few = (
            t("{n} to {m} players; the game starts with /start.")
            if host is None  # the host's own copy is in their private chat, where /start is not
            else t("{n} to {m} players; the game starts with /start in its chat.")
        )
        lines.append(few.format(n=MIN_PLAYERS, m=MAX_PLAYERS))
    elif view.options.rounds is RoundsPlan.TOURNAMENT and seated not in TOURNAMENT_HANDS:
        lines.append(error_text(t, ErrorCode.OPTION_UNAVAILABLE))  # a /start would be refused
    elif host is None:
        lines.append(t("Ready: any seated player may /start."))
    else:
        lines.append(t("Ready: any seated player may send /start in its chat."))
    gid = seating.game
    rows: list[tuple[Button, ...]] = [
        (
            Button(t("Join"), tokens.lobby(gid, Action.JOIN)),
            Button(t("Leave"), tokens.lobby(gid, Action.LEAVE)),
            Button(t("Start"), tokens.lobby(gid, Action.START)),
        ),
        (
            Button(t("Add AI"), tokens.lobby(gid, Action.ADD_AI)),
            Button(t("Options"), tokens.lobby(gid, Action.OPTION)),
            Button(t("Cancel"), tokens.lobby(gid, Action.CANCEL)),
        ),
    ]
    if host is not None:
        toggles = option_buttons(look, view.options, gid, seating.coach)
        return Message("\n".join(lines), to=host, buttons=tuple(toggles), slot=OPTIONS)
    if show_options:
        rows = [*option_buttons(look, view.options, gid, seating.coach), rows[0]]
    elif seating.last_robot is not None:  # a row of its own, while an AI seat is seated
        seat, number = seating.last_robot
        # TRANSLATORS: a lobby button a whole row wide that takes an AI player off the table;
        # {name} is the AI player's name as seated, e.g. "🤖 Merlin".
        label = t("Remove {name}", name=seating.names[seat])
        rows.append((Button(label, tokens.lobby(gid, Action.REMOVE_AI, number)),))
    return Message("\n".join(lines), buttons=tuple(rows), slot="lobby")


def _lobby_closed(look: Look, view: TableView, seating: Seating) -> Message:
    """The lobby once the game has started: who plays, without buttons (none would work)."""
    t = look.t
    lines = [
        t("🔮 Wizard: the game has started."),
        ", ".join(seating.names),
        t("Options: {options}", options=options_line(look, view.options, seating.coach)),
    ]
    return Message("\n".join(lines), slot="lobby")


def lobby_cancelled(look: Look) -> Message:
    """The lobby of a game that was cancelled, without its buttons."""
    return Message(look.t("🔮 Wizard: this table was cancelled."), slot="lobby")


def option_buttons(
    look: Look, options: Options, gid: str, coach: bool = False
) -> list[tuple[Button, ...]]:
    """Buttons that change one option each (for the host), the table's coach option last:
    each shows the option as it is and sets the next value."""
    t = look.t

    def button(name: str, now: str, after: str) -> Button:
        return Button(
            setting_label(t, f"{name}={now}"), tokens.lobby(gid, Action.OPTION, f"{name}={after}")
        )

    def flag(name: str, on: bool) -> Button:
        return button(name, "on" if on else "off", "off" if on else "on")

    bids_next = {BidMode.OPEN: "hidden", BidMode.HIDDEN: "secret", BidMode.SECRET: "open"}
    rounds_next = {
        RoundsPlan.STANDARD: "short",
        RoundsPlan.SHORT: "tournament",
        RoundsPlan.TOURNAMENT: "standard",
    }
    return [
        (
            button("bids", options.bids, bids_next[options.bids]),
            button("rounds", options.rounds, rounds_next[options.rounds]),
        ),
        *_rows([flag(f.key, f.on(options)) for f in FLAGS], 2),
        (flag(COACH, coach),),
    ]


# --- the table -------------------------------------------------------------------------------


def status(look: Look, view: TableView, seating: Seating) -> str:
    """Who the table waits for."""
    t = look.t
    seated = seating.names
    if view.phase is Phase.TRUMP:
        return t("{name} (dealer) chooses trump.", name=seated[view.dealer])
    if view.phase is Phase.BIDDING:
        if any(view.seats[seat].has_bid for seat in view.waiting):  # notequal, hidden bids
            return t(
                "The bids add up to the number of tricks: {name} (dealer) must change their bid.",
                name=seated[view.dealer],
            )
        waiting = ", ".join(seated[seat] for seat in view.waiting)
        if view.bid_mode is BidMode.OPEN or len(view.waiting) == 1:
            return t("{names} to bid.", names=waiting)
        return t("Waiting for bids from {names}.", names=waiting)
    if view.phase is Phase.PLAYING:
        return t("{name} to play.", name=seated[view.waiting[0]])
    return ""


def pause_line(look: Look, minutes: int, table: bool = False) -> str:
    """What each person's hand (or, `table`, the group's table) says while the game is paused
    (`Seating.paused`): how it goes on, and when it ends otherwise. The table has no Resume
    button, so it says where the button is: under each one's cards."""
    if table:
        # TRANSLATORS: on the group's table while the game waits for a person (everyone let
        # their time run out). "Resume" is the label of a button under each player's cards
        # (their private message), not on this table; {minutes} as in "30 min".
        return look.t(
            "⏸ Paused: nobody is playing. Make your move, or press Resume under your cards, "
            "to go on; otherwise the game ends in {minutes} min.",
            minutes=minutes,
        )
    # TRANSLATORS: in each player's private message while the game waits for a person
    # (everyone let their time run out); "Resume" is the label of a button under this very
    # message, {minutes} a number of minutes ("min" as in "30 min").
    return look.t(
        "⏸ Paused: nobody is playing. Make your move or press Resume to go on; otherwise "
        "the game ends in {minutes} min.",
        minutes=minutes,
    )


def table_text(
    look: Look, view: TableView, seating: Seating, notice: str | None = None, ended: bool = False
) -> str:
    """The group's table. `ended`: the game was cancelled or abandoned mid-round (`notice`
    says so): the table waits for nobody any more, so no seat is ▶️ and no "to play" line."""
    t = look.t
    seated = seating.names
    head = round_head(t, view.round, view.rounds, view.cards)
    choosing = view.phase is Phase.TRUMP
    lines = [head, trump_line(look, view.trump_card, view.trump, seated[view.dealer], choosing)]
    rules = []
    if view.bid_mode is not BidMode.OPEN:
        rules.append(t(BID_NAMES[view.bid_mode]))
    if view.notequal:
        rules.append(t(NOTEQUAL.name))
    if view.foresight:
        rules.append(t(FORESIGHT.name))
    if rules:
        lines.append(" · ".join(rules))
    lines.append("")
    dealer_word = dealer_mark(t)
    for seat in view.seats:
        mark = "▶️" if seat.to_act and not ended else "▫️"
        away = f" {AWAY}" if seat.seat in seating.away else ""
        dealer = f" {dealer_word}" if seat.dealer else ""
        player = f"{seated[seat.seat]}{dealer}{away}"
        lines.append(f"{mark} {said_of(t, player, seat_score(t, seat))}")
    if any(seat.bid is not None for seat in view.seats):
        lines.append(t("⇢ the points if the round ended now"))
    lines.append("")
    if view.trick:
        played = trick_cards(look, view.trick, view.trick_leader, seated)
        lines.append(t("Trick: {cards}", cards=played))
    if view.tricks:
        lines.append(last_trick(look, view.tricks[-1], seated))
    text = "" if ended else status(look, view, seating)
    if text:
        lines.append(text)
    if seating.paused is not None and not ended:
        lines += ["", pause_line(look, seating.paused, table=True)]
    if notice:  # one blank line before it (an ended table's end with one: nothing to play)
        lines += [notice] if lines[-1] == "" else ["", notice]
    return "\n".join(lines)


def table_message(
    look: Look,
    view: TableView,
    seating: Seating,
    new: bool,
    notice: str | None = None,
    ended: bool = False,
) -> Message:
    """The group's table; open bids are made with its buttons. Once the game is over, its
    last round as it ended, without buttons; `ended` (cancelled or abandoned, `table_text`):
    as it was left, without buttons."""
    if view.phase is Phase.FINISHED and view.sheet:
        return Message(final_table_text(look, view, seating, notice), slot="table")
    buttons = () if ended else tuple(bid_buttons(seating, view.open_bids))
    text = table_text(look, view, seating, notice, ended)
    return Message(text, buttons=buttons, slot="table", notify=new, quiet=True)


def final_table_text(
    look: Look, view: TableView, seating: Seating, notice: str | None = None
) -> str:
    """The table of a finished game: its last round as it ended, and that the game is over."""
    t = look.t
    row = view.sheet[-1]
    lines = [t("🏁 Final table · round {round} of {rounds}", round=row.round, rounds=view.rounds)]
    if row.last_trick is not None:
        lines.append(last_trick(look, row.last_trick, seating.names))
    lines.append("")
    lines += [score_line(t, name, row, seat) for seat, name in enumerate(seating.names)]
    if notice:  # one blank line before it (an ended table's end with one: nothing to play)
        lines += [notice] if lines[-1] == "" else ["", notice]
    return "\n".join(lines)


def bid_buttons(seating: Seating, bids: tuple[int, ...]) -> list[tuple[Button, ...]]:
    payloads = [
        Button(str(bid), tokens.encode(seating.game, seating.stamp, Action.BID, str(bid)))
        for bid in bids
    ]
    return even_rows(payloads, BID_ROW)


# --- a player's hand --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HandScreen:
    """Everything one player's hand message shows, and nothing else: the message is made from
    this alone, so two equal screens are the same message (the service sends a hand again only
    when its screen changed)."""

    player: str
    game: str
    round: int
    rounds: int
    trump: Suit | None
    others: tuple[tuple[str, Card | None], ...]
    """Under foresight: each seat's name and the card it holds (None: their own seat, or a
    player who has played it)."""
    played: Card | None
    """Under foresight, once they played the card they could not see: that card (on the
    table now; the message no longer says they cannot see it)."""
    hand: tuple[Card, ...]
    bid: int | None
    won: int
    mark: Card | None
    away: bool
    choose_trump: bool
    bids: tuple[int, ...]
    """The bids the player may make now (buttons; in open bidding the group's table has them
    as well: either press makes the bid)."""
    forbidden: int | None
    """The one bid notequal forbids them (shown while they bid)."""
    cards: tuple[Card, ...]
    """The cards they may play now (buttons)."""
    unseen: bool
    """Under foresight: they play the card they cannot see (one button)."""
    marks: tuple[Card, ...]
    """Wings: the cards they may mark (buttons), when nothing else is asked of them."""
    stamp: str
    """The decision's stamp, when a button carries it."""
    round_stamp: str
    """The round's stamp, when a wings button carries it."""
    trick: tuple[tuple[str, Card], ...] = ()
    """When they are to play: the trick so far, who played what (empty: they lead)."""
    winning: str | None = None
    """When they are to play a card to a trick: who is winning it so far."""
    follow: Suit | None = None
    """When they are to play a card to a trick: the suit to follow (None: any)."""
    last: tuple[tuple[tuple[str, Card], ...], str] | None = None
    """When they are to play and a trick of the round is done: the last one's plays and its
    winner (its cards played after theirs reached the group's table alone)."""
    standings: tuple[tuple[str, int, str], ...] = ()
    """When they are asked to bid or play: every player's name, tricks won and bid as the bid
    mode lets them see it ("?" hidden, "-" not made yet)."""
    hint: bool = False
    """At a coach table, when they have a choice to make (a bid, or one of several cards): a
    Hint button."""
    chooser: str | None = None
    """While the trump waits for the dealer's choice (a Wizard was turned up): the dealer's
    name (the trump is not "none" then)."""
    bids_last: int | None = None
    """While they are to bid once the others have (the dealer, with secret bids and notequal):
    the number of tricks the bids may not add up to."""
    tricks: int = 0
    """While they bid and notequal forbids them a bid (`forbidden`): the number of tricks the
    bids may not add up to."""
    scores: tuple[tuple[str, int], ...] = ()
    """While they are asked to bid, from the second round on: each player's name and total (a
    bid late in a game depends on the score; the group's table has it, the private chat did
    not)."""
    last_round: tuple[str, str] | None = None
    """Until they bid, how their round before went: whether the bid was met, and `1/1 +30 →
    30` (`formatters.round_result`). A player who stays in the private chat sees each round's
    end there too; the message their bid edits anyway drops it (no edit of its own)."""
    paused: int | None = None
    """While the game is paused (`Seating.paused`): the minutes it waits for them to be back."""


def has_choice(view: PlayerView) -> bool:
    """Whether the player of `view` has a choice to make now: a bid among several, or one of
    several cards (what a coach's hint is for; a trump choice or a forced card is none)."""
    if view.choose_trump:
        return False
    return len(view.legal_bids) > 1 if view.legal_bids else len(view.legal_cards) > 1


def hand_screen(view: PlayerView, seating: Seating) -> HandScreen:
    """What the hand message of `view`'s player shows."""
    tv = view.table
    others = tuple((seating.names[seat], card) for seat, card in enumerate(view.others))
    bidding = not view.choose_trump and bool(view.legal_bids)
    asked = view.choose_trump or bidding or view.play_unseen or bool(view.legal_cards)
    wings = not asked and tv.options.wings and bool(view.hand) and tv.phase in ROUND_PHASES
    bid = view.bid
    playing = not (view.choose_trump or bidding) and (view.play_unseen or bool(view.legal_cards))
    names = seating.names
    trick: tuple[tuple[str, Card], ...] = ()
    winning = None
    follow = None
    last = None
    if playing:
        trick = trick_plays(tv.trick, tv.trick_leader, names)
        if tv.tricks:
            done = tv.tricks[-1]
            last = (trick_plays(done.cards, done.leader, names), names[done.winner])
        if tv.trick:
            winning = trick[trick_winner(tv.trick, tv.trump)][0]
            follow = lead_suit(tv.trick)
    standings: tuple[tuple[str, int, str], ...] = ()
    cards = view.legal_cards if not (view.choose_trump or bidding) else ()
    if playing or bidding:
        own = None if bid is None else str(bid)  # their own bid, hidden or not
        standings = tuple(
            (
                names[seat.seat],
                seat.won,
                own if seat.seat == view.seat and own else seat.shown_bid(),
            )
            for seat in tv.seats
        )
    return HandScreen(
        player=view.player,
        game=seating.game,
        round=tv.round,
        rounds=tv.rounds,
        trump=tv.trump,
        others=others,
        played=_played_unseen(view),
        hand=() if view.others else view.hand,
        bid=bid,
        won=tv.seats[view.seat].won if bid is not None else 0,
        mark=view.mark,
        away=view.seat in seating.away,
        choose_trump=view.choose_trump,
        bids=view.legal_bids if bidding else (),
        forbidden=view.forbidden_bid if bidding else None,
        cards=cards,
        unseen=view.play_unseen and not (view.choose_trump or bidding),
        marks=tuple(dict.fromkeys(view.hand)) if wings else (),
        stamp=seating.stamp if asked else "",
        round_stamp=seating.round_stamp if wings else "",
        trick=trick,
        winning=winning,
        follow=follow,
        last=last,
        standings=standings,
        hint=seating.coach and has_choice(view),
        chooser=names[tv.dealer] if tv.phase is Phase.TRUMP else None,
        bids_last=tv.cards if view.bids_last else None,
        tricks=tv.cards if bidding and view.forbidden_bid is not None else 0,
        scores=tuple((names[s.seat], s.total) for s in tv.seats) if bidding and tv.sheet else (),
        last_round=(
            round_result(tv.sheet[-1], view.seat)
            if tv.sheet and bid is None and tv.phase in (Phase.TRUMP, Phase.BIDDING)
            else None
        ),
        paused=seating.paused,
    )


def _played_unseen(view: PlayerView) -> Card | None:
    """Under foresight, the card the player of `view` played without seeing it, once played
    (a foresight round has one card each: one trick)."""
    tv = view.table
    if not view.others or view.hand_size or tv.trick_leader < 0:
        return None
    index = (view.seat - tv.trick_leader) % len(tv.seats)
    return tv.trick[index] if index < len(tv.trick) else None


def round_end_screen(
    view: TableView, seat: int, seating: Seating, trump: Suit | None, unseen: Card | None = None
) -> HandScreen:
    """What the hand message of the player in `seat` shows of the round that just ended (the
    last row of the score sheet; its trump was `trump`): the round as it ended, their bid and
    the tricks they won, nothing asked (as a hand shows once its last card is played). Once the
    game is over, and before a new message for the next round's turn. `unseen`: in a foresight
    round, the card they played without seeing it, which the round's end names."""
    row = view.sheet[-1]
    others = () if unseen is None else tuple((name, None) for name in seating.names)
    return HandScreen(
        player=view.seats[seat].player,
        game=seating.game,
        round=row.round,
        rounds=view.rounds,
        trump=trump,
        others=others,
        played=unseen,
        hand=(),
        bid=row.bids[seat],
        won=row.won[seat],
        mark=None,
        away=False,
        choose_trump=False,
        bids=(),
        forbidden=None,
        cards=(),
        unseen=False,
        marks=(),
        stamp="",
        round_stamp="",
    )


def _shown_lines(look: Look, screen: HandScreen) -> list[str]:
    """The lines of a hand message that stay once it is left behind (a newer message of the
    hand has its buttons): the round, the cards, the trick and the bid."""
    t = look.t
    if screen.chooser is not None:
        head = t(
            "Round {round} of {rounds} · trump: {name} (dealer) chooses",
            round=screen.round,
            rounds=screen.rounds,
            name=screen.chooser,
        )
    else:
        head = t(
            "Round {round} of {rounds} · trump: {suit}",
            round=screen.round,
            rounds=screen.rounds,
            suit=look.suit(screen.trump),
        )
    lines = [head]
    if screen.last_round is not None:
        made, said = screen.last_round
        lines.append(f"{made} " + t("Last round: {result}", result=said))
    if screen.scores:
        totals = " · ".join(f"{name} {shown_points(total)}" for name, total in screen.scores)
        # TRANSLATORS: in a player's private message when they are to bid: every player's
        # total points so far, "Ann 20 · Bob 10 · Cid 40".
        lines.append(t("Scores: {players}", players=totals))
    if screen.standings:
        if screen.bids:  # bidding: the bids made so far
            bids = " · ".join(f"{name} {bid}" for name, _, bid in screen.standings if bid != "-")
            if bids:
                lines.append(t("Bids so far: {bids}", bids=bids))
        else:
            won_bid = " · ".join(f"{name} {won}/{bid}" for name, won, bid in screen.standings)
            lines.append(t("Tricks won/bid: {players}", players=won_bid))
    if screen.cards or screen.unseen:
        if screen.last is not None:
            lines.append(last_trick_line(look, *screen.last))
        if not screen.trick:
            lines.append(t("You lead this trick."))
        else:
            lines.append(t("Trick: {cards}", cards=plays_line(look, screen.trick)))
            if screen.follow is None:
                lines.append(t("{name} is winning it; any suit may follow.", name=screen.winning))
            else:
                lines.append(
                    t(
                        "{name} is winning it; follow {suit} if you can.",
                        name=screen.winning,
                        suit=look.suit(screen.follow),
                    )
                )
    if screen.others:
        seen = ", ".join(
            f"{name} {look.card(card)}" for name, card in screen.others if card is not None
        )
        if screen.played is None and seen:
            lines.append(
                t("Foresight: you cannot see your card. The others hold: {cards}", cards=seen)
            )
        elif screen.played is None:  # the last to play: the trick shows the others' cards
            lines.append(t("Foresight: you cannot see your card."))
        elif seen:
            lines.append(
                t(
                    "Foresight: you played {card} without seeing it. The others hold: {cards}",
                    card=look.card(screen.played),
                    cards=seen,
                )
            )
        else:
            lines.append(
                t("Foresight: you played {card} without seeing it.", card=look.card(screen.played))
            )
    elif screen.hand:
        lines.append(t("Your hand: {cards}", cards=cards_line(screen.hand, look.theme)))
    if screen.bid is not None and not _rebid(screen):  # a bid to change: its question says it
        lines.append(t("Your bid: {bid} · tricks won: {won}", bid=screen.bid, won=screen.won))
    return lines


def _asking_lines(look: Look, screen: HandScreen) -> list[str]:
    """The lines of a hand message that ask for a press (a bid, a card, the trump, a wings
    mark, Resume), or say whom it waits for: gone once the message is left behind."""
    t = look.t
    lines = _wings_notes(look, screen) + _away_notes(look, screen)
    if screen.choose_trump:
        lines.append(t("A Wizard was turned up: you are the dealer, choose the trump suit."))
    elif screen.bids:
        lines.append(_bid_question(look, screen))
    elif screen.cards or screen.unseen:
        lines.append(t("Your turn: play a card."))
    else:
        lines += _bids_last_notes(look, screen)
    return lines


def _wings_notes(look: Look, screen: HandScreen) -> list[str]:
    t = look.t
    if screen.mark is not None:
        return [t("🪽 Marked to play by itself: {card}", card=look.card(screen.mark))]
    if screen.marks:
        return [t("🪽 Mark a card to have it played by itself when your turn comes.")]
    return []


def _away_notes(look: Look, screen: HandScreen) -> list[str]:
    """A player on autopilot: the AI moves for them; Resume takes them back, and so does a
    move of their own while they are asked one (it is made, and the AI's is then refused).
    While the game is paused, nobody moves for them: it says so instead."""
    if not screen.away:
        return []
    if screen.paused is not None:
        return [pause_line(look, screen.paused)]
    if screen.choose_trump or screen.bids or screen.cards or screen.unseen:
        return [
            look.t(
                "💤 The AI is playing for you. Make your move, or press Resume, to play "
                "yourself again."
            )
        ]
    return [look.t("💤 The AI is playing for you. Press Resume to play yourself.")]


def _foresight_notes(look: Look, screen: HandScreen) -> list[str]:
    """Under foresight, for the web table (which draws the others' cards on their seats): that
    the player cannot see their card, or once played, which card it was."""
    if not screen.others:
        return []
    if screen.played is None:
        return [look.t("Foresight: you cannot see your card.")]
    return [
        look.t("Foresight: you played {card} without seeing it.", card=look.card(screen.played))
    ]


def _rebid(screen: HandScreen) -> bool:
    """Whether a player who bid is asked again (notequal under hidden bids: the dealer)."""
    return bool(screen.bids) and screen.bid is not None and not screen.choose_trump


def _bid_question(look: Look, screen: HandScreen) -> str:
    """The one line that asks a player for their bid: the bids they may make, and, where
    notequal bars one, which and why; for a bid to change, that it must and why. Said once
    (it said the bid made, that it must change, the one allowed and the one barred, four
    lines of one decision)."""
    t = look.t
    low, high = screen.bids[0], screen.bids[-1]
    if _rebid(screen):
        if low == high:
            # TRANSLATORS: the dealer's bid, once the others' hidden bids are shown, makes the
            # bids add up to the round's tricks (notequal): they must bid again, {only} alone.
            return t(
                "Your bid of {bid} makes the bids add up to {tricks}: bid {only} instead.",
                bid=screen.bid,
                tricks=screen.tricks,
                only=low,
            )
        # TRANSLATORS: as above, with the bids {low} to {high} left (the buttons below).
        return t(
            "Your bid of {bid} makes the bids add up to {tricks}: bid another ({low} to {high}).",
            bid=screen.bid,
            tricks=screen.tricks,
            low=low,
            high=high,
        )
    if screen.forbidden is not None:
        if low == high:
            # TRANSLATORS: a player to bid whom notequal leaves one bid ({bid}): the bids may
            # not add up to the round's tricks.
            return t(
                "Your bid? Only {bid} is allowed: the bids may not add up to {tricks}.",
                bid=low,
                tricks=screen.tricks,
            )
        # TRANSLATORS: the question under a player's hand when they are to bid ({low} to
        # {high}, the buttons below it), notequal barring {bid}.
        return t(
            "Your bid? How many tricks will you take ({low} to {high})? Not {bid}: the bids "
            "may not add up to {tricks}.",
            low=low,
            high=high,
            bid=screen.forbidden,
            tricks=screen.tricks,
        )
    if low == high:  # a range "0 to 0" reads oddly
        return t("Your bid? (only {bid} is allowed)", bid=low)
    # TRANSLATORS: the question under a player's hand when they are to bid; the
    # buttons below it are the numbers {low} to {high}.
    return t("Your bid? How many tricks will you take ({low} to {high})?", low=low, high=high)


def _bid_notes(look: Look, screen: HandScreen) -> list[str]:
    """For the web table, which draws the bids itself: the question where notequal bars a
    bid or a bid must change (it says which and why), else nothing."""
    if not screen.bids or screen.choose_trump:
        return []
    if _rebid(screen) or screen.forbidden is not None:
        return [_bid_question(look, screen)]
    return []


def _bids_last_notes(look: Look, screen: HandScreen) -> list[str]:
    """The dealer under secret bids and notequal, waiting for the others' bids."""
    if screen.bids_last is None or screen.choose_trump or screen.bids:
        return []
    if screen.cards or screen.unseen:
        return []
    return [
        look.t(
            "You bid last, once the others have: the bids may not add up to {tricks}.",
            tricks=screen.bids_last,
        )
    ]


def hand_notes(look: Look, screen: HandScreen) -> list[str]:
    """The hand message's lines that say why the player is asked what they are, or what is
    asked of them besides the question: under foresight that they cannot see their card (or
    which card they played without seeing it), a bid to change, the bid notequal forbids,
    bidding last, a wings mark, the AI playing for them (as the hand message words them, for
    the web table, which draws the rest itself: the others' cards on their seats)."""
    return (
        _foresight_notes(look, screen)
        + _bid_notes(look, screen)
        + _bids_last_notes(look, screen)
        + _wings_notes(look, screen)
        + _away_notes(look, screen)
    )


def hand_message(look: Look, screen: HandScreen, notify: bool) -> Message:
    """A player's private message: their hand, bid and what they are asked to do, with the
    buttons to do it."""
    t = look.t
    gid = screen.game

    def now(action: Action, arg: str) -> str:
        return tokens.encode(gid, screen.stamp, action, arg)

    rows: list[tuple[Button, ...]] = []
    if screen.choose_trump:
        rows.append(tuple(Button(look.suit(suit), now(Action.TRUMP, suit.value)) for suit in Suit))
    elif screen.bids:  # (in open bidding the group's table has them as well)
        bids = [Button(str(b), now(Action.BID, str(b))) for b in screen.bids]
        rows.extend(even_rows(bids, BID_ROW))
    elif screen.unseen:
        rows.append((Button(t("Play your unseen card"), now(Action.PLAY, "")),))
    elif screen.cards:
        cards = [Button(look.card(card), now(Action.PLAY, card)) for card in screen.cards]
        rows.extend(even_rows(cards, ROW))
    elif screen.marks:

        def mark(arg: str) -> str:
            return tokens.encode(gid, screen.round_stamp, Action.WINGS, arg)

        marks = [Button(f"🪽{look.card(card)}", mark(card)) for card in screen.marks]
        rows.extend(even_rows(marks, ROW))
        if screen.mark is not None:
            rows.append((Button(t("Clear the mark"), mark("")),))
    if screen.hint:
        rows.append((Button(t("💡 Hint"), now(Action.HINT, "")),))
    if screen.away:
        rows.append((Button(t("Resume"), tokens.lobby(gid, Action.RESUME)),))
    shown, asking = _shown_lines(look, screen), _asking_lines(look, screen)
    text = "\n".join(shown + asking)
    return Message(
        text,
        to=screen.player,
        buttons=tuple(rows),
        slot="hand",
        notify=notify,
        round=screen.round,
        open_table=t("Open the table"),
        rebid=_rebid(screen),
        behind="\n".join(shown) if asking else None,
    )


# --- round and game ends ------------------------------------------------------------------------


def round_summary(look: Look, row: ScoreRow, seating: Seating) -> Message:
    """A round's end: its last trick and each seat's result (the first round's with a key)."""
    t = look.t
    seated = seating.names
    lines = [t("Round {round} is over.", round=row.round)]
    if row.last_trick is not None:
        lines.append(last_trick(look, row.last_trick, seated))
    lines.append("")
    lines += [score_line(t, name, row, seat) for seat, name in enumerate(seated)]
    if row.round == 1:  # the first summary a newcomer reads says how to read it
        # TRANSLATORS: a key under the first round's results ("✅ Ann: 1/1 +30 → 30"): the
        # tricks won/bid, the points of the round, then the total.
        lines.append(
            t("Tricks won/bid, points, total. Bid met: 20 + 10 a trick; missed: −10 a trick off.")
        )
    return Message("\n".join(lines), quiet=True)


def sheet_picture(look: Look, view: TableView, seating: Seating) -> SheetPicture:
    """The score sheet so far as a picture (the winners marked once the game is over)."""
    places = tuple(view.places) if view.phase is Phase.FINISHED else None
    names, rows = tuple(seating.names), tuple(view.sheet)
    return SheetPicture(look.t.language, names, rows, places, seating.locales)


ROOM = 1024
"""Characters a game's end in the group may take with its ratings line: a Telegram photo's
caption holds 1,024 (a Discord message 2,000). Standings too long for the line with them are
shown without it, rather than cut."""


def game_over(
    look: Look, view: TableView, seating: Seating, ratings: Sequence[Rerated] = ()
) -> Message:
    """The group's end of the game: the standings, with the score sheet as a picture; and,
    if `ratings` (how the game moved each seat's rating, when that is known), each
    seat's rating after it, if that fits (`ROOM`)."""
    t = look.t
    totals = [seat.total for seat in view.seats]
    lines = [t("🏁 The game is over."), "", *standings(look, seating.names, totals, view.places)]
    text = "\n".join(lines)
    if ratings:
        said = ratings_lines(t, seating.names, seating.numbers, view.places, ratings)
        rated = "\n".join([text, "", *said])
        text = rated if len(rated) <= ROOM else text
    buttons = ((Button(t("Play again"), tokens.lobby(seating.game, Action.AGAIN)),),)
    picture = sheet_picture(look, view, seating) if view.sheet else None
    # A slot of its own, always a new message: shown again after a crash if it was lost.
    return Message(text, buttons=buttons, slot="over", notify=True, picture=picture)


def the_end(
    look: Look,
    view: TableView,
    seating: Seating,
    languages: Mapping[str, str],
    ratings: Sequence[Rerated] = (),
) -> list[Message]:
    """What a finished game shows: the final table, the group's standings with the score
    sheet, and each person's own result; with how the game moved each seat's rating when
    `ratings` says (one per seat; empty: not said)."""
    ratings = ratings if len(ratings) == len(view.seats) else ()
    final = [table_message(look, view, seating, new=False), game_over(look, view, seating, ratings)]
    return final + player_results(look, view, seating, languages, ratings)


def player_results(
    look: Look,
    view: TableView,
    seating: Seating,
    languages: Mapping[str, str],
    ratings: Sequence[Rerated] = (),
) -> list[Message]:
    """Each person's own end of the game (not the AI seats'), in their language."""
    return [
        player_result(
            personal(look, languages, view.seats[seat].player),
            view,
            seating,
            seat,
            ratings[seat] if ratings else None,
        )
        for seat in range(len(view.seats))
        if seat not in seating.robots
    ]


def player_result(
    look: Look, view: TableView, seating: Seating, seat: int, rating: Rerated | None = None
) -> Message:
    """A player's own end of the game, in their private chat: place, points, bids met; and
    their rating here after the game, if `rating` says."""
    t = look.t
    place, players = view.places[seat], len(view.seats)
    made = bids_met(view.sheet, seat)
    medal = MEDALS.get(place, "🏁")
    lines = [
        # TRANSLATORS: a player's place at the game's end among the table's seats: "2 of 4".
        # AI seats count too: no word or counter for people alone (as for "{rank} of {n}").
        t("{medal} Your place: {place} of {players}", medal=medal, place=place, players=players),
        t(
            "{points} points · bids met {made} of {rounds}",
            points=shown_points(view.seats[seat].total),
            made=made,
            rounds=len(view.sheet),
        ),
    ]
    winners = [seating.names[s] for s in range(players) if view.places[s] == 1 and s != seat]
    if winners and place != 1:
        # TRANSLATORS: to a player who did not win, who did: one name, or several who share
        # first place. Said by the place, a word that takes no number and no gender.
        lines.append(t("First place: {names}", names=", ".join(winners)))
    if rating is not None:
        lines.append(own_rating(t, rating))
    buttons = ((Button(t("Play again"), tokens.lobby(seating.game, Action.AGAIN)),),)
    return Message(
        "\n".join(lines), to=view.seats[seat].player, buttons=buttons, slot="hand", notify=True
    )


def sheet(look: Look, view: TableView, seating: Seating) -> Message:
    """The score sheet so far: a picture, with the standings as its caption."""
    t = look.t
    if not view.sheet:
        return Message(t("No round has been played yet."))
    row = view.sheet[-1]
    order = sorted(range(len(seating.names)), key=lambda seat: -row.totals[seat])
    totals = " · ".join(f"{seating.names[seat]} {shown_points(row.totals[seat])}" for seat in order)
    head = t("Score sheet after round {round} of {rounds}", round=row.round, rounds=view.rounds)
    return Message(f"{head}\n{totals}", picture=sheet_picture(look, view, seating))


def rules_text(look: Look, options: Options | None, coach: bool = False) -> str:
    """The rules in a few lines, enough to learn the game from (with a table's options, and
    its `coach` option, named and explained as the lobby does)."""
    t = look.t
    lines = [
        t("📜 Wizard in short"),
        t("60 cards: four suits 1–13, 4 Wizards (highest), 4 Jesters (lowest)."),
        t(
            "Round r deals r cards; the next card sets trump"
            " (Jester: none; Wizard: the dealer picks)."
        ),
        t("Starting left of the dealer, everyone bids how many tricks they will take."),
        t("A trick: each player plays one card in turn; its winner leads the next one."),
        t("Follow the lead suit if you can; a Wizard or a Jester may always be played."),
        t(
            "A Jester led: the next card sets the suit to follow;"
            " a Wizard led: any card may follow."
        ),
        t(
            "The first Wizard wins, else the top trump, else the top lead card,"
            " else the first Jester."
        ),
        t("Bid met: 20 points + 10 per trick. Missed: −10 per trick too many or too few."),
        t("After the last round, the most points wins."),
    ]
    if options is not None:
        lines += ["", t("This table: {options}", options=options_line(look, options, coach))]
        lines += option_notes(look, options, coach)
    return "\n".join(lines)
