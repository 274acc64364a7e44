"""Which private messages a move changes (`bot.chat.changed_hands`): a hand is shown again
only when its screen changed, and the digests kept in `Table.seen` by older code (of the
screen's repr) still say "unchanged" after an upgrade."""

import dataclasses
import hashlib
import random

import orjson

from bot.chat import LEGACY_SIZE, changed_hands, legacy_digest, screen_digest
from bot.show.look import look_of
from bot.show.seating import seating
from bot.table import Settings, Table
from engine import (
    ROUND_PHASES,
    GameState,
    Join,
    Options,
    SetOptions,
    Start,
    step,
    table_view,
    waiting_seats,
)
from engine.options import parse_option
from engine.randomplay import new_game, random_command

LOOK = look_of(Settings())


def playing() -> Table:
    """A four-player game of people some moves into its second round."""
    state = new_game(4, Options(), seed=7)
    rng = random.Random(7)
    while state.round is None or state.round.number < 2 or not state.round.trick:
        step(state, random_command(state, rng))
    return Table(game_id="abc123", game=state)


def changed(table: Table, version: int) -> list[tuple[str, bool]]:
    view = table_view(table.game)
    hands = changed_hands(LOOK, table, view, seating(table), version)
    return [(screen.player, new) for screen, new in hands]


def test_a_hand_is_shown_once_until_its_screen_changes() -> None:
    table = playing()
    first = changed(table, 1)
    assert [new for _, new in first] == [True] * 4  # a game's first hand messages are new
    assert changed(table, 2) == []
    assert all(entry.endswith("@1") for entry in table.seen.values())
    step(table.game, random_command(table.game, random.Random(1)))
    assert changed(table, 3)  # the player who moved sees their hand without the card


def test_digests_of_older_code_still_say_unchanged() -> None:
    table = playing()
    changed(table, 1)
    view = table_view(table.game)
    seats = seating(table)
    new = dict(table.seen)
    for screen, _ in changed_hands(LOOK, Table("abc123", table.game), view, seats, 1):
        entry = new[screen.player]
        turn = "!" if entry.partition("@")[0].endswith("!") else ""
        assert len(entry.partition("@")[0].rstrip("!")) == 2 * 7
        assert screen_digest(screen, "en", LOOK.theme) in entry
        table.seen[screen.player] = f"{legacy_digest(screen, 'en', LOOK.theme)}{turn}@1"
    assert changed(table, 2) == []  # after an upgrade: no edit that changes nothing
    kept = [entry.partition("@")[0].rstrip("!") for entry in table.seen.values()]
    assert all(len(digest) == 2 * LEGACY_SIZE for digest in kept)  # until they change
    other = next(iter(table.seen))
    table.seen[other] = "0" * (2 * LEGACY_SIZE) + "@1"  # an older screen, in the old digest
    turn = table.game.seat_of(other) in waiting_seats(table.game)
    assert changed(table, 3) == [(other, turn)]  # an edit; new only to say it is their turn
    assert table.seen[other].endswith("@3")


def test_a_screen_not_made_again_is_the_same_screen() -> None:
    """With what this worker kept of each screen (`Table.private`), the same hands change as
    when every screen is made and compared, at every move of games with every option."""
    for number, options in enumerate(["", "foresight=on,wings=on", "bids=secret,notequal=on"]):
        state = GameState()
        for seat in range(4):
            step(state, Join(f"tg:{seat}", f"P{seat}"))
        for text in filter(None, options.split(",")):
            step(state, SetOptions(parse_option(state.options, text)))
        step(state, Start(seed=number))
        table = Table(game_id="abc123", game=state, languages={"tg:2": "de"})
        rng = random.Random(number)
        version = kept = 0
        while state.phase in ROUND_PHASES:
            version += 1
            if rng.random() < 0.02:  # a player's time runs out, or they are back
                pid = f"tg:{rng.randrange(4)}"
                if pid in table.away:
                    table.away.remove(pid)
                else:
                    table.away.append(pid)
            fresh = table.copy()
            fresh.private.clear()
            assert changed(table, version) == changed(fresh, version)
            assert table.seen == fresh.seen
            kept += len(table.private)
            step(state, random_command(state, rng, wings=0.1))
        assert kept > version  # most moves: screens not made again


def test_digests_of_the_code_before_played_last_and_scores_still_say_unchanged() -> None:
    """The code before `HandScreen.played` (and before `.last`, `.scores` and `.paused`) made
    its digests of the screen without that field: where it is empty (every screen but a
    foresight hand whose card is played; but a turn to play after a trick of the round; but a
    bid; but a paused game's) they say
    "unchanged", so an upgrade, or old and new workers side by side, edit no hand for nothing
    (an edit of every hand with each change of worker, Telegram's "not modified")."""
    table = playing()
    changed(table, 1)
    view = table_view(table.game)
    seats = seating(table)
    for screen, _ in changed_hands(LOOK, Table("abc123", table.game), view, seats, 1):
        assert screen.played is None
        assert screen.last is None
        assert not screen.scores
        assert screen.paused is None
        fields = dataclasses.asdict(screen)
        del fields["played"], fields["last"], fields["scores"], fields["paused"]
        data = orjson.dumps((fields, "en", LOOK.theme))
        before = hashlib.blake2b(data, digest_size=7).hexdigest()
        entry = table.seen[screen.player]
        table.seen[screen.player] = before + entry[len(before) :]
    assert changed(table, 2) == []
