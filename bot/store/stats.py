"""Stats in Redis: each chat's fold of its game summaries, and each player's index of chats.

The game summaries are the truth: the compare-and-set that writes a game's end pushes its summary
to the chat's `results` list (`Store.save`). The fold (`keys.stats`, in the chat's slot) is
derived from them and carried forward lazily: `fold` reads it, folds the summaries pushed since
its newest game and writes it back if nobody wrote it meanwhile (its version `v`), with a note of
how the newest game folded moved the ratings (`e`: what that game's end says, `fold_game`, and
what the web page's end of the game shows, `noted`); the write tells the pages that watch the
chat's game to look again (its version channel). A crash between a game's end and the fold
loses nothing: the next `fold` finds the game unfolded. The fold goes on past the summaries
kept (the last `RESULTS_KEPT`), so "all time" counts every game since the chat's first fold.

A player's index (`keys.played`, a hash tag of the player's own) names the chats their stats may
be in. It is written before what it indexes (`enlist`, before a game's end is saved, and again
by each fold), so it may name a chat too many, never one too few. No script touches keys of two
hash tags: a chat's fold and results share its tag, and the index is written on its own.
"""

import asyncio
import json
import logging
import math
import secrets
from collections.abc import Iterable

from bot.stats import (
    FORGOTTEN,
    WINDOW,
    Fold,
    Game,
    Noted,
    Rerated,
    anonymised,
    fold,
    fold_noting,
    person,
    read_game,
    record_without,
    unfolded,
)
from bot.store import keys
from bot.store.store import RedisClient, StoreErrors

ATTEMPTS = 10
"""Tries of a write that lost a race with another (then the fold is used unsaved)."""
PAGE = 5
"""Summaries read first when carrying a fold forward (usually a game or two are new)."""
IN_THREAD = 50
"""Folding more games than this runs in a worker thread (about 0.15 ms a game)."""
RECENT_STEP = 3600
"""The recent board's window starts on the hour: its fold (field `m`) is carried forward with
new games, and folded anew only once one of its games is older than the window."""

log = logging.getLogger(__name__)

_WRITE = """
if tonumber(redis.call('HGET', KEYS[1], 'v') or '0') ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'v', tonumber(ARGV[1]) + 1, 's', ARGV[2], 'e', ARGV[3])
redis.call('PUBLISH', ARGV[4], redis.call('HGET', KEYS[2], 'v') or '0')
return 1
"""
"""Write a chat's fold (KEYS[1]), and the note of how its newest game moved the ratings, if its
version is still the one read; and publish the version of the chat's game (KEYS[2]) on its
channel (ARGV[4]), as a write of the game does, so the web pages that show its end look again
(and find the note)."""

_KEEP = """
if tonumber(redis.call('HGET', KEYS[1], 'v') or '0') ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'm', ARGV[2])
return 1
"""
"""Keep the fold of the recent board if the chat's fold was not written since (a /forgetme
meanwhile: it would bring back whom it forgot)."""

_FORGET = """
local v = tonumber(redis.call('HGET', KEYS[2], 'v') or '0')
if v ~= tonumber(ARGV[1]) then return 0 end
if ARGV[3] ~= '' and redis.call('GET', KEYS[3]) ~= ARGV[3] then return 0 end
for i = 5, #ARGV, 3 do
  if redis.call('LINDEX', KEYS[1], tonumber(ARGV[i])) ~= ARGV[i + 1] then return 0 end
end
for i = 5, #ARGV, 3 do redis.call('LSET', KEYS[1], tonumber(ARGV[i]), ARGV[i + 2]) end
if ARGV[3] ~= '' then redis.call('SET', KEYS[3], ARGV[4], 'KEEPTTL') end
redis.call('HSET', KEYS[2], 'v', v + 1)
redis.call('HDEL', KEYS[2], 'm', 'e')
if ARGV[2] ~= '' then redis.call('HSET', KEYS[2], 's', ARGV[2]) end
return 1
"""
"""Forget a player in one chat (KEYS: its results, its fold and the record of its last game):
rewrite the summaries that name them (triples of index, summary as read, summary rewritten),
the fold without them, and the record if it names them (ARGV[3] as read, ARGV[4] rewritten,
its expiry kept; ARGV[3] "": not touched), if none changed since they were read; the recent
board's fold goes, and so does the note of the newest game's ratings (it names them). The
version is bumped either way, so a fold that read the summaries before they were rewritten
does not write back what it folded from them."""


def _summary(raw: object) -> object:
    """A stored summary as JSON (None for what does not parse)."""
    try:
        return json.loads(raw) if isinstance(raw, bytes | str) else None
    except ValueError:
        return None


class StatsStore:
    """The stats of every chat in Redis (see the module's docstring)."""

    def __init__(self, client: RedisClient) -> None:
        self.client = client
        self._write = client.register_script(_WRITE)
        self._forget = client.register_script(_FORGET)
        self._keep = client.register_script(_KEEP)

    async def _games(self, chat: str, stop: int = -1) -> tuple[list[Game], bool]:
        """The chat's games (newest first) up to index `stop` (-1: every game kept), and
        whether that was every game kept."""
        raws = await self.client.lrange(keys.results(chat), 0, stop)
        games = [game for raw in raws if (game := read_game(_summary(raw))) is not None]
        return games, stop < 0 or len(raws) <= stop

    async def _unfolded(self, chat: str, cursor: str) -> list[Game]:
        """The chat's games after the one named `cursor`, oldest first."""
        games, every = await self._games(chat, PAGE - 1)
        newer, found = unfolded(games, cursor)
        if found or every:
            if cursor and not found:
                log.warning("%s: the stats' newest game is no longer kept", chat)
            return newer
        newer, found = unfolded((await self._games(chat))[0], cursor)
        if cursor and not found:
            log.warning("%s: more games ended than are kept since its stats were folded", chat)
        return newer

    async def fold(self, chat: str) -> Fold:
        """The chat's fold with every game it kept (written back, unless another worker wrote
        it first; then it is read again)."""
        return (await self._fold(chat, ""))[0]

    async def fold_game(self, chat: str, game: str) -> tuple[Rerated, ...]:
        """Fold the chat's stats (as `fold`) once the game `game` (its id) has ended, and how
        that game moved its seats' ratings, as the fold that folded it noted them
        (`bot.stats.Noted`, kept with the fold), whichever worker's it was: empty if a newer
        game was folded since, a /forgetme wrote the fold since, or this fold's write kept
        losing to others'. The numbers are those the stored fold then shows."""
        return (await self._fold(chat, game))[1]

    async def _fold(self, chat: str, game: str) -> tuple[Fold, tuple[Rerated, ...]]:
        done = Fold()
        for _attempt in range(ATTEMPTS):
            version, blob, kept = await self.client.hmget(keys.stats(chat), ["v", "s", "e"])
            done = Fold.from_json(blob)
            pending = await self._unfolded(chat, done.cursor)
            if not pending:
                return done, Noted.from_json(kept).of(game)
            await self.enlist(
                {seat.player for ended in pending for seat in ended.seats if person(seat.player)},
                chat,
            )
            if len(pending) > IN_THREAD:
                done, noted = await asyncio.to_thread(fold_noting, pending, done)
            else:
                done, noted = fold_noting(pending, done)
            args: list[int | str] = [
                int(version or 0),
                done.to_json(),
                noted.to_json(),
                keys.versions(chat),
            ]
            if await self._write(keys=[keys.stats(chat), keys.game(chat)], args=args):
                return done, noted.of(game)
        return done, ()

    async def noted(self, chat: str, game: str) -> tuple[Rerated, ...]:
        """How the game `game` (its id) moved its seats' ratings, as the fold that folded it
        noted them (whichever worker's it was), read without folding: none while it is not
        folded, once a newer game is, or after a /forgetme in the chat; none either if the
        stats cannot be read (logged): the game's end is shown without them, as when its fold
        failed, rather than not at all."""
        try:
            kept = await self.client.hget(keys.stats(chat), "e")
        except StoreErrors as error:
            log.warning("%s: the note of the newest game's ratings cannot be read: %s", chat, error)
            return ()
        return Noted.from_json(kept).of(game)

    async def recent(self, chat: str, since: float) -> list[Game]:
        """The chat's kept games that ended at `since` or later, oldest first."""
        games, every = await self._games(chat, PAGE - 1)
        if not every and (not games or games[-1].finished >= since):
            games = (await self._games(chat))[0]
        return [game for game in reversed(games) if game.finished >= since]

    async def recent_fold(self, chat: str, now: float) -> Fold:
        """The fold, from new ratings, of the chat's games that ended in the last `WINDOW`
        seconds (counted from the start of the hour). It is kept beside the fold (field `m`,
        with the oldest game in it) and carried forward with the games after it while none of
        its games has aged out of the window; else it is folded anew (at most once an hour)."""
        since = now // RECENT_STEP * RECENT_STEP - WINDOW
        version, kept = await self.client.hmget(keys.stats(chat), ["v", "m"])
        done, oldest = None, math.inf
        if kept:
            text = kept.decode() if isinstance(kept, bytes) else str(kept)
            head, _, blob = text.partition("\n")
            oldest = float(head)
            if oldest >= since:
                done = Fold.from_json(blob)
        if done is None:
            games, oldest = await self.recent(chat, since), math.inf
        else:  # (no game in the window yet: look only as far back as it goes)
            fresh = self._unfolded(chat, done.cursor) if done.cursor else self.recent(chat, since)
            games = [game for game in await fresh if game.finished >= since]
            if not games:
                return done
        if len(games) > IN_THREAD:
            done = await asyncio.to_thread(fold, games, done)
        else:
            done = fold(games, done)
        oldest = min([oldest, *(game.finished for game in games)])
        args: list[int | str] = [int(version or 0), f"{oldest!r}\n{done.to_json()}"]
        await self._keep(keys=[keys.stats(chat)], args=args)
        return done

    # --- a player's chats -------------------------------------------------------------------

    async def enlist(self, players: Iterable[str], chat: str) -> None:
        """Note `chat` in the index of each of `players` (each its own hash tag)."""
        players = list(players)
        if not players:
            return
        async with self.client.pipeline(transaction=False) as pipe:
            for player in players:
                pipe.sadd(keys.played(player), chat)
            await pipe.execute()

    async def chats(self, player: str) -> list[str]:
        """The chats a player's stats may be in, sorted."""
        members = await self.client.smembers(keys.played(player))
        return sorted(m.decode() if isinstance(m, bytes) else str(m) for m in members)

    async def players(self, chat: str) -> set[str]:
        """The people the chat's kept results or its fold name."""
        games = (await self._games(chat))[0]
        players = {seat.player for game in games for seat in game.seats}
        players |= set(Fold.from_json(await self.client.hget(keys.stats(chat), "s")).players)
        return {player for player in players if person(player)}

    async def moved(self, old: str, new: str) -> None:
        """Chat `old`'s results and fold moved to `new`: its players' indexes follow."""
        players = await self.players(new)
        await self.enlist(players, new)
        async with self.client.pipeline(transaction=False) as pipe:
            for player in players:
                pipe.srem(keys.played(player), old)
            await pipe.execute()

    # --- forgetting -------------------------------------------------------------------------

    async def forget(self, player: str, also: Iterable[str] = ()) -> int:
        """Forget `player` in every chat of their index (and in `also`): their standing leaves
        each chat's fold, and an alias of that chat's replaces them in its kept summaries. Then
        the index goes, and so does the set of Telegram groups where they were asked to open
        a private chat (`keys.opening`: same hash tag). The chats where there was something
        to forget."""
        chats = sorted(set(await self.chats(player)) | set(also))
        forgot = 0
        for chat in chats:
            forgot += await self._forget_in(chat, player)
        await self.client.delete(keys.played(player), keys.opening(player))
        return forgot

    async def _forget_in(self, chat: str, player: str) -> bool:
        alias = FORGOTTEN + secrets.token_hex(4)
        for _attempt in range(ATTEMPTS):
            version, blob = await self.client.hmget(keys.stats(chat), ["v", "s"])
            done = Fold.from_json(blob)
            raws = await self.client.lrange(keys.results(chat), 0, -1)
            changes: list[bytes | str | int] = []
            for index, raw in enumerate(raws):
                entry = _summary(raw)
                rewritten = anonymised(entry, player, alias) if isinstance(entry, dict) else None
                if rewritten is not None:
                    changes += [index, raw, json.dumps(rewritten)]
            had = done.players.pop(player, None) is not None
            record = await self._record_without(chat, raws[0] if raws else None, player)
            if not changes and not had and record is None:
                return False
            state = done.to_json() if had else ""
            args = [int(version or 0), state, *(record or ("", "")), *changes]
            names = [keys.results(chat), keys.stats(chat), keys.record(chat)]
            if await self._forget(keys=names, args=args):
                return True
        raise RuntimeError(f"{chat}: could not forget a player (too many concurrent writes)")

    async def _record_without(
        self, chat: str, newest: object, player: str
    ) -> tuple[bytes | str, str] | None:
        """The record of the chat's last game as read, and rewritten without `player`
        (`bot.stats.record_without`), if it is the game of `newest` (the newest summary, as
        read) and names them; else None."""
        raw = await self.client.get(keys.record(chat))
        record, entry = _summary(raw), _summary(newest)
        if raw is None or not isinstance(record, dict) or not isinstance(entry, dict):
            return None
        rewritten = record_without(record, entry, player)
        return None if rewritten is None else (raw, json.dumps(rewritten))
