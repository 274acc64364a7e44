"""Randomized interleavings: two workers (two services, each with its own Store cache) serve
several chats on one Redis, while a seeded scheduler runs batches of concurrent sources
against them: people's presses (some redelivered with the same update id, some stale), web
moves (one update id handed to both workers, as a relay and its taking back may), timer ticks
on both workers under a fake clock, AI stand-ins for people timed out, time jumps past the
turn's deadline until every person is away (the game pauses), Resume, /cancel and a new game
in the middle, a worker's cache dropped (a restart). After each run every chat is played out
and checked: each acknowledged update applied exactly once, the finished game's stored record
replays to the stored totals, while in play the game always waited for a seat with a way to
act, each person was shown their hand as it last changed, and of the writes in order: while
paused no AI move was applied, a pause ended only by a move or Resume of a person away (or
the game's end: abandoned at the pause's deadline, or cancelled), and each deadline timed the
game out once at most. `WIZARD_INTERLEAVINGS=200` runs more seeds than the default two, from
`WIZARD_INTERLEAVINGS_SEED` (docs/service.md)."""

import asyncio
import itertools
import json
import os
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis
from service_helpers import LABEL, MOVES, Clock, RecordingStore, human, payloads, table_of

from bot import tokens
from bot.chat import robot_seats
from bot.commands import Kind
from bot.config import Config
from bot.messages import Message, Outcome
from bot.requests import Request, User
from bot.service import GameService
from bot.store import keys
from bot.table import Table
from engine import Phase, check_record, export_record, table_view

RUNS = int(os.environ.get("WIZARD_INTERLEAVINGS", "2"))
"""How many seeds a run of this file tries."""
SCOPE = "chat"
CHATS = ("chat:-1", "chat:-2")
PEOPLE = [human(number) for number in range(1, 4)]
IN_PLAY = (Phase.TRUMP, Phase.BIDDING, Phase.PLAYING)
CONFIG = Config(turn_timeout=6, ai_grace=2)
TIMER = "timer"
"""The label of the writes the timers make (`service_helpers.LABEL`)."""


@dataclass
class Seen:
    """What the people of one chat were shown: each (recipient, slot)'s newest message by the
    chat version it shows, and every move button ever shown (for stale presses)."""

    latest: dict[tuple[str | None, str | None], tuple[int, Message]] = field(default_factory=dict)
    shown: list[str] = field(default_factory=list)

    def show(self, outcome: Outcome) -> None:
        version = outcome.version[1] if outcome.version is not None else 0
        for message in outcome.messages:
            self.shown += [p for p in payloads(message) if tokens.decode(p).action in MOVES]
            where = (message.to, message.slot)
            if message.slot is not None and version >= self.latest.get(where, (-1, message))[0]:
                self.latest[where] = (version, message)

    def moves(self, user: User) -> list[str]:
        hand = self.latest.get((user.id, "hand"))
        group = self.latest.get((None, "table"))
        found = [p for p in payloads(hand[1]) if tokens.decode(p).action in MOVES] if hand else []
        if hand and "Your bid?" in hand[1].text and group:
            found += [p for p in payloads(group[1]) if tokens.decode(p).action == "b"]
        return found


class Run:
    """One seeded run: two workers, the chats, what was sent and what was acknowledged."""

    def __init__(self, redis_client: aioredis.Redis, url: str, seed: int) -> None:
        self.rng = random.Random(seed)
        self.clock = Clock()
        self.clients = [redis_client, aioredis.from_url(url)]
        self.stores = [RecordingStore(c) for c in self.clients]
        self.workers = [
            GameService(store, CONFIG, clock=self.clock, rng=random.Random(seed * 7 + n))
            for n, store in enumerate(self.stores)
        ]
        self.seen = {chat: Seen() for chat in CHATS}
        self.accepted: dict[str, str] = {}
        """Update ids some delivery of which was answered as taken, with their chats."""
        self.sent: list[tuple[str, User, Request, str]] = []
        self.updates = 0

    def worker(self) -> GameService:
        return self.rng.choice(self.workers)

    def show(self, chat: str, outcome: Outcome) -> None:
        self.seen[chat].show(outcome)

    async def send(
        self, chat: str, user: User, request: Request, update: str | None = None
    ) -> Outcome:
        LABEL.set(request.kind.name)
        outcome = await self.worker().handle(chat, user, request, update)
        self.show(chat, outcome)
        if update is not None and not outcome.alert and outcome.messages:
            self.accepted[update] = chat
        return outcome

    def update_id(self) -> str:
        self.updates += 1
        return str(self.updates)

    async def lobby(self, chat: str) -> None:
        """People join, an AI seat is added now and then, and the host starts a short game."""
        count = self.rng.choice([2, 3])
        for user in PEOPLE[:count]:
            await self.send(chat, user, Request(Kind.JOIN), self.update_id())
        if count == 2 or self.rng.random() < 0.5:
            await self.send(chat, PEOPLE[0], Request(Kind.ADD_AI, "normal"), self.update_id())
        await self.send(chat, PEOPLE[0], Request(Kind.OPTION, "rounds=short"), self.update_id())
        await self.send(chat, PEOPLE[0], Request(Kind.START), self.update_id())

    # --- the sources ----------------------------------------------------------------------

    async def press(self, chat: str) -> None:
        """A person presses a move on their screen; now and then Telegram delivers the same
        update again (to either worker), or the press is of a button long gone."""
        user = self.rng.choice(PEOPLE)
        seen = self.seen[chat]
        moves = seen.moves(user)
        if self.rng.random() < 0.15 and seen.shown:
            moves = [self.rng.choice(seen.shown)]  # stale, most likely
        if not moves:
            return
        request = Request(Kind.BUTTON, self.rng.choice(moves))
        update = self.update_id()
        self.sent.append((chat, user, request, update))
        await self.send(chat, user, request, update)

    async def redeliver(self, chat: str) -> None:
        mine = [item for item in self.sent if item[0] == chat]
        if mine:
            _, user, request, update = self.rng.choice(mine)
            await self.send(chat, user, request, update)

    async def web(self, chat: str) -> None:
        """A move from the web page: a relay consumer and the web worker taking it back may
        both apply the one entry, by its update id."""
        user = self.rng.choice(PEOPLE)
        moves = self.seen[chat].moves(user)
        if not moves:
            return
        request = Request(Kind.BUTTON, self.rng.choice(moves))
        update = f"web{self.update_id()}"
        self.sent.append((chat, user, request, update))
        LABEL.set(request.kind.name)
        outcomes = await asyncio.gather(
            *(svc.handle(chat, user, request, update) for svc in self.workers)
        )
        for outcome in outcomes:
            self.show(chat, outcome)
            if not outcome.alert and outcome.messages:
                self.accepted[update] = chat

    async def timers(self) -> None:
        """Time passes; a worker's timers fire (a tick, or the timers alone, with the AI's
        moves made in line or aside)."""
        self.clock.advance(self.rng.choice([0.5, 1.0, 1.0, 2.0]))
        svc = self.worker()
        LABEL.set(TIMER)
        if self.rng.random() < 0.5:
            shown = await svc.tick(SCOPE)
        else:
            shown = await svc.run_timers(SCOPE, aside=self.rng.random() < 0.5)
        for chat, outcome in shown:
            self.show(chat, outcome)

    async def walk_away(self) -> None:
        """Nobody answers: time jumps past the turn's deadline, again and again, as a worker's
        timers fire and the AI moves for those away, until (most likely) every person is away
        and the games pause."""
        LABEL.set(TIMER)
        for _ in range(self.rng.randint(1, 4)):
            self.clock.advance(CONFIG.turn_timeout + 1)
            svc = self.worker()
            for chat, outcome in await svc.tick(SCOPE):
                self.show(chat, outcome)
            await svc.moved()

    async def resume(self, chat: str) -> None:
        await self.send(chat, self.rng.choice(PEOPLE), Request(Kind.RESUME), self.update_id())

    async def cancel(self, chat: str) -> None:
        """The host cancels the game, and a new one is opened at once."""
        outcome = await self.send(chat, PEOPLE[0], Request(Kind.CANCEL), self.update_id())
        if not outcome.alert:
            await self.lobby(chat)

    async def restart(self) -> None:
        """A worker restarts: what it knew of the chats is gone."""
        svc = self.worker()
        for chat in CHATS:
            svc.store.forget(chat)

    async def step(self) -> None:
        """A batch of sources at once."""
        sources: list[Any] = []
        for _ in range(self.rng.randint(1, 5)):
            chat = self.rng.choice(CHATS)
            pick = self.rng.random()
            if pick < 0.3:
                sources.append(self.press(chat))
            elif pick < 0.38:
                sources.append(self.redeliver(chat))
            elif pick < 0.46:
                sources.append(self.web(chat))
            elif pick < 0.68:
                sources.append(self.timers())
            elif pick < 0.76:
                sources.append(self.walk_away())
            elif pick < 0.86:
                sources.append(self.resume(chat))
            elif pick < 0.89:
                sources.append(self.cancel(chat))
            else:
                sources.append(self.restart())
        await asyncio.gather(*sources)

    # --- the checks -----------------------------------------------------------------------

    async def table(self, chat: str) -> Table | None:
        return await table_of(self.clients[0], chat)

    async def check_waits(self, chat: str) -> None:
        """A game in play waits for somebody with a way to act: a person present who has the
        buttons for it, or a deadline indexed (no later than the table's) that times them
        out or makes the AI's move; while the game is paused, each person it waits for has
        their buttons (a move of theirs ends the pause)."""
        table = await self.table(chat)
        if table is None or table.game.phase not in IN_PLAY:
            return
        wake = table.wake()
        assert wake is not None, table.game.to_dict()
        indexed = await self.clients[0].zscore(keys.timers(chat), chat)
        assert indexed is not None, table.game.to_dict()
        assert indexed <= wake + 0.001, (indexed, wake)
        waiting = table_view(table.game).waiting
        assert waiting
        if robot_seats(table):
            return
        now = await self.workers[0].current(chat)
        for seat in waiting:
            player = table.game.players[seat].id
            if player in table.ai or (player in table.away and not table.paused()):
                continue
            hand = [m for m in now.messages if m.to == player and m.slot == "hand"]
            buttons = [p for m in hand for p in payloads(m) if tokens.decode(p).action in MOVES]
            group = [m for m in now.messages if m.to is None and m.slot == "table"]
            bids = [p for m in group for p in payloads(m) if tokens.decode(p).action == "b"]
            assert buttons or bids, (player, [m.text for m in now.messages])

    async def settle(self, chat: str) -> None:
        """Play the chat out: people press their buttons, time passes and the timers fire,
        until its game is over (or gone); it must never be left waiting for nobody."""
        for _ in range(3000):
            table = await self.table(chat)
            if table is None or table.game.phase is Phase.FINISHED:
                return
            if table.game.phase is Phase.LOBBY:
                await self.send(chat, PEOPLE[0], Request(Kind.START), self.update_id())
                if (t := await self.table(chat)) is not None and t.game.phase is Phase.LOBBY:
                    await self.send(chat, PEOPLE[0], Request(Kind.ADD_AI), self.update_id())
                continue
            await self.check_waits(chat)
            for svc in self.workers:
                await svc.moved()
            current = await self.worker().current(chat)
            self.show(chat, current)
            pressed = False
            for user in PEOPLE:
                moves = self.seen[chat].moves(user)
                if moves and self.rng.random() < 0.7:
                    request = Request(Kind.BUTTON, moves[0])
                    outcome = await self.send(chat, user, request, self.update_id())
                    pressed = pressed or not outcome.alert
            if not pressed:
                await self.timers()
        raise AssertionError(f"{chat}: the game never ended")

    async def check_screens(self) -> None:
        """Once what the AI's moves made aside show is handed over, each person at a game in
        play was shown their hand as it last changed (the version `Table.seen` keeps)."""
        LABEL.set(TIMER)
        for svc in self.workers:
            await svc.moved()
            for chat, outcome in await svc.tick(SCOPE):
                self.show(chat, outcome)
        for chat in CHATS:
            table = await self.table(chat)
            if table is None or table.game.phase not in IN_PLAY:
                continue
            for message in (await self.workers[0].current(chat)).messages:
                if message.slot != "hand" or message.since is None:
                    continue
                shown = self.seen[chat].latest.get((message.to, "hand"))
                assert shown is not None, (chat, message.to)
                assert shown[0] >= message.since, (chat, message.to, shown[0], message.since)

    def check_pauses(self) -> None:
        """Each acknowledged write against the one before it in its chat: while a game was
        paused no AI move was applied (it moved on only by a move of a person away, who was
        back with it), a pause ended only by such a move, a Resume, or the game's end (its
        deadline abandoned it, or it was cancelled), and each deadline timed the game out once
        at most, not before it was due."""
        writes = sorted(
            (w for s in self.stores for w in s.acked), key=lambda w: (w.chat, w.version)
        )
        fired: set[tuple[str, float | None]] = set()
        for earlier, later in itertools.pairwise(writes):
            if earlier.chat != later.chat or earlier.blob is None:
                continue
            assert later.version > earlier.version, (earlier, later)
            old = Table.from_bytes(earlier.blob)
            where = (later.chat, later.version, later.label)
            if later.blob is None:  # the table closed
                assert not old.paused() or later.label in (TIMER, Kind.CANCEL.name), where
                continue
            new = Table.from_bytes(later.blob)
            if new.game_id != old.game_id:
                continue
            away, was_away = set(new.away), set(old.away)
            if away > was_away:  # a timeout
                assert not old.paused(), where
                assert old.deadline is not None, where
                assert new.updated >= old.deadline, where
                assert (old.game_id, old.deadline) not in fired, where
                fired.add((old.game_id, old.deadline))
            if not old.paused():
                continue
            if new.game.seq != old.game.seq or away != was_away:  # a move, or Resume
                assert away < was_away, where
                assert len(was_away - away) == 1, where
                assert not new.paused(), where
            else:
                assert new.paused(), where

    async def check(self) -> None:
        for chat in CHATS:
            await self.check_waits(chat)
        await self.check_screens()
        for chat in CHATS:
            await self.settle(chat)
        for svc in self.workers:
            await svc.moved()
        # each update applied once at most, and each one answered as taken exactly once
        applied = Counter(w.update_id for s in self.stores for w in s.acked if w.update_id)
        twice = {update: n for update, n in applied.items() if n > 1}
        assert not twice, twice
        assert set(self.accepted) <= set(applied), set(self.accepted) - set(applied)
        for update, chat in self.accepted.items():  # marked, so a redelivery is skipped
            assert await self.clients[0].exists(keys.update(chat, update)), update
        for chat in CHATS:
            table = await self.table(chat)
            if table is None or table.game.phase is not Phase.FINISHED:
                continue
            stored = await self.clients[0].get(keys.record(chat))
            assert stored is not None
            record = json.loads(stored)
            replayed = check_record(record)
            assert replayed.totals == table.game.totals
            assert record == export_record(table.game)
        self.check_pauses()

    async def close(self) -> None:
        await self.clients[1].aclose()


async def test_interleaved_sources_apply_each_move_once_and_never_stall(
    redis_client: aioredis.Redis, redis_url: str
) -> None:
    base = int(os.environ.get("WIZARD_INTERLEAVINGS_SEED", "0"))
    for seed in range(base, base + RUNS):
        await redis_client.flushdb()
        run = Run(redis_client, redis_url, seed)
        try:
            for chat in CHATS:
                await run.lobby(chat)
            for _ in range(40):
                await run.step()
                for chat in CHATS:
                    await run.check_waits(chat)
            await run.check()
        except AssertionError as error:
            raise AssertionError(f"seed {seed}: {error}") from error
        finally:
            await run.close()
