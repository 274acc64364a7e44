"""Which message shows each slot (a lobby, a table, a hand), kept in Redis: shared by the
Telegram and Discord front ends, each with its own keys (`bot.store.keys.telegram`,
`bot.store.keys.discord`).

One hash per chat where messages are shown: the field `<game chat>:<slot>` holds the id of the
last message sent for that slot there. So a restart, or another worker, edits the same message;
and a button pressed in a private chat is traced back to the game it belongs to (the game chat
whose slot that message is).

Several workers may post outcomes of one game at the same moment. So beside each slot's message
the hash keeps the version it shows (`<field>#v`: game id and `Outcome.version`, written once the
platform has taken the post) and, while a worker posts, its hold (`<field>#hold`): posts for a
slot go one at a time across workers, and a post older than what the slot shows is dropped. A
slot never goes back to an older state. A hold lasts HOLD_MS and is renewed while its post
runs, so a worker that dies holding a slot frees it within HOLD_MS; and a post that never
reached the platform leaves the version as it was, so what is shown again after a crash or an
outage (`Outcome.again`) is posted where, and only where, a slot is behind.

The hash also keeps whether each slot's message has buttons (`<field>#k`: `0` none, `1` some,
followed by the text it is to show once left behind, if it has one: `Message.behind`): when a
slot's new message supersedes the one before, that one loses its buttons if it may still have
some (`SlotMap.set` says which, with that text), so no old message invites a press it would
refuse, nor says it asks for one. A post that only
takes a slot's buttons off, made without a version (a notice of a player who cannot be written
to privately), says so too (`SlotMap.bared`): the slots of such notices are shared by every
game of the chat, and a later game's notice would else take them off again, an edit of an old
game's message far up the chat.

A post that may only edit (`Message.only_edit`: a host's private option toggles following
their lobby) is claimed only where the slot has a message that may still have buttons: the
claim skips it otherwise, so nothing is sent to a host who never asked for their toggles, or
whose toggles closed, and no platform call is made.

A private chat that refused a post (Discord: a person whose DMs are closed to the bot) is
marked at that slot (`<field>#closed`, `SlotMap.refused`): the release of the next post for the
slot that goes through takes the mark off and says it was there, so whichever worker makes that
post knows the person can be written to again (and what was shown instead can be tidied up),
without a call of its own: a slot never refused has no mark, and its release answers 0.

A bare post shown again (`Outcome.again`: the lobby, table or game end of a chat whose game a
crash left cancelled, or a hand of it) takes the buttons off only where they may be left and
the slot shows no later version of the chat (`SlotMap.unbutton`), saying in the same edit what
the lost post said, if it says anything (`Message.behind`), and then also where no button is left
but the slot shows an older version than the lost post's (it never got there), once: where
nothing is left, one call to Redis. Only a message of the game the post names is made to say
it: another game's loses only its buttons.

A slot message the platform says is gone (a person deleted it) is forgotten (`SlotMap.gone`):
the slot names none, and nothing shown again, nor an edit-only post, tries it again.

A slot's new message is recorded only after the platform took it: a crash (or the store away)
in between leaves the map naming the message before, which the next post would edit while the
new one, the newest in its chat, keeps buttons nobody updates. A press on such a message of a
person's hand (`SlotMap.adopt`: newer than the one recorded) makes it the slot's message again,
and the front end shows the hand in it as it is now (`hand_again`): the newest message is the
live one.
"""

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from bot import Outcome, RedisClient, StoreErrors
from bot.messages import NO_GAME, OPTIONS

log = logging.getLogger(__name__)

T = TypeVar("T")
_Script = Callable[..., Awaitable[Any]]
"""A registered Lua script (called with `keys` and `args`)."""

TTL = 30 * 24 * 3600
"""A chat's slot map is forgotten after this long without a post (as an untouched game is)."""

HOLD_MS = 4_000
"""How long a worker holds a slot while it posts, renewed every third of it until the post is
done (a crashed worker's hold runs out)."""

_HELD = """
local hold = redis.call('HGET', KEYS[1], ARGV[1] .. '#hold')
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if hold then
  local sep = string.find(hold, ':', 1, true)
  if tonumber(string.sub(hold, sep + 1)) > now and string.sub(hold, 1, sep - 1) ~= ARGV[4] then
    return -1
  end
end
"""
"""-1 while a worker other than ARGV[4] holds the slot ARGV[1] (the start of a script)."""

_CLAIM = (
    _HELD
    + """
local shown = redis.call('HGET', KEYS[1], ARGV[1] .. '#v')
if shown then
  local sep = string.find(shown, ':', 1, true)
  local was = tonumber(string.sub(shown, sep + 1))
  if string.sub(shown, 1, sep - 1) == ARGV[2]
      and (was > tonumber(ARGV[3]) or (ARGV[7] == '1' and was == tonumber(ARGV[3]))) then
    return 0
  end
end
if ARGV[8] == '1' and (not redis.call('HGET', KEYS[1], ARGV[1])
    or redis.call('HGET', KEYS[1], ARGV[1] .. '#k') == '0') then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1] .. '#hold', ARGV[4] .. ':' .. (now + tonumber(ARGV[5])))
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[6]))
return 1
"""
)
"""Claim a slot to post version ARGV[3] of game ARGV[2]: -1 while another worker holds it,
0 if it shows a newer version of that game already (or that version, when ARGV[7] is 1: shown
again only where behind), or, when ARGV[8] is 1 (`Message.only_edit`), if it has no message
or one without buttons; else 1 (held by ARGV[4] for ARGV[5] ms)."""

_RENEW = """
local hold = redis.call('HGET', KEYS[1], ARGV[1] .. '#hold')
if not hold or string.sub(hold, 1, string.len(ARGV[2]) + 1) ~= ARGV[2] .. ':' then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], ARGV[1] .. '#hold', ARGV[2] .. ':' .. (now + tonumber(ARGV[3])))
return 1
"""

_RELEASE = """
local hold = redis.call('HGET', KEYS[1], ARGV[1] .. '#hold')
if hold and string.sub(hold, 1, string.len(ARGV[2]) + 1) == ARGV[2] .. ':' then
  redis.call('HDEL', KEYS[1], ARGV[1] .. '#hold')
end
if ARGV[3] ~= '' then
  local shown = redis.call('HGET', KEYS[1], ARGV[1] .. '#v')
  local newer = true
  if shown then
    local sep = string.find(shown, ':', 1, true)
    newer = string.sub(shown, 1, sep - 1) ~= ARGV[3]
      or tonumber(string.sub(shown, sep + 1)) < tonumber(ARGV[4])
  end
  if newer then redis.call('HSET', KEYS[1], ARGV[1] .. '#v', ARGV[3] .. ':' .. ARGV[4]) end
  if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], ARGV[1] .. '#k', ARGV[5]) end
  return redis.call('HDEL', KEYS[1], ARGV[1] .. '#closed')
end
return 0
"""
"""Let go of a slot; with a version (ARGV[3], ARGV[4]), the platform took that post: the slot
shows it now (unless it shows a newer one of that game already), with buttons or not (ARGV[5],
'1' (with the text it shows once left behind after it) or '0', kept in `<field>#k`), and the
answer is 1 if the chat had refused a post for the slot (`<field>#closed`, which goes), else
0."""

_ADOPT = (
    _HELD
    + """
local old = redis.call('HGET', KEYS[1], ARGV[1])
local new = ARGV[2]
if old and (#old > #new or (#old == #new and old >= new)) then return 0 end
if ARGV[5] ~= '' and redis.call('HGET', KEYS[1], ARGV[5]) == new then return 0 end
local keys = redis.call('HGET', KEYS[1], ARGV[1] .. '#k')
redis.call('HSET', KEYS[1], ARGV[1], new)
redis.call('HDEL', KEYS[1], ARGV[1] .. '#v')
redis.call('HSET', KEYS[1], ARGV[1] .. '#k', '1')
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
if old and keys ~= '0' then return old end
return -2
"""
)
"""Make message ARGV[2] the slot ARGV[1]'s, unless it names that one or a newer one already, or
the message is slot ARGV[5]'s (a host's option toggles beside their hands: 0):
showing no known version (the next post for the slot goes, again or not), with buttons. -1
while a worker holds the slot; else the message it replaces if that may have buttons (its id
as a string: a Discord id is beyond a Lua number's precision, and so compared as digits), or
-2."""

_BARED = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('HSET', KEYS[1], ARGV[1] .. '#k', '0')
  local shown = ARGV[4] and redis.call('HGET', KEYS[1], ARGV[1] .. '#v')
  if shown then
    local sep = string.find(shown, ':', 1, true)
    if tonumber(string.sub(shown, sep + 1)) < tonumber(ARGV[4]) then
      redis.call('HSET', KEYS[1], ARGV[1] .. '#v', string.sub(shown, 1, sep) .. ARGV[4])
    end
  end
end
if ARGV[3] then
  local hold = redis.call('HGET', KEYS[1], ARGV[1] .. '#hold')
  if hold and string.sub(hold, 1, string.len(ARGV[3]) + 1) == ARGV[3] .. ':' then
    redis.call('HDEL', KEYS[1], ARGV[1] .. '#hold')
  end
end
return 0
"""
"""The slot ARGV[1]'s message, if still ARGV[2], has no buttons now (and, with ARGV[4], shows
that version of the chat, if it showed an older one); with ARGV[3], the worker of that token
lets go of the slot."""

_UNBUTTON = (
    _HELD
    + """
local message = redis.call('HGET', KEYS[1], ARGV[1])
local shown = redis.call('HGET', KEYS[1], ARGV[1] .. '#v')
if not message or not shown then return 0 end
local sep = string.find(shown, ':', 1, true)
local at = tonumber(string.sub(shown, sep + 1))
if at > tonumber(ARGV[2]) then return 0 end
local ours = ARGV[6] == '' or string.sub(shown, 1, sep - 1) == ARGV[6]
if redis.call('HGET', KEYS[1], ARGV[1] .. '#k') == '0'
    and not (ARGV[5] == '1' and at < tonumber(ARGV[2]) and ours) then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1] .. '#hold', ARGV[3] .. ':' .. (now + tonumber(ARGV[4])))
return {message, ours and 1 or 0}
"""
)
"""Hold the slot ARGV[1] to take its message's buttons off, if it may have some and shows a
version of the chat no later than ARGV[2] (of any game), or, when ARGV[5] is 1 (the edit says
something), if it shows an older one (the post that would have said it never went through)
of game ARGV[6] (of any, when ARGV[6] is `NO_GAME`'s ''): the message and whether it is of
game ARGV[6] (1, else 0: only its buttons come off), held by ARGV[3] for ARGV[4] ms; else 0;
-1 while another worker holds the slot."""

_GONE = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('HDEL', KEYS[1], ARGV[1], ARGV[1] .. '#k')
end
return 0
"""
"""The slot ARGV[1]'s message, if still ARGV[2], is gone (deleted): the slot names none."""

_RENAME = """
local old, new = ARGV[1] .. ':', ARGV[2] .. ':'
local fields = redis.call('HGETALL', KEYS[1])
local taken = {}
for i = 1, #fields, 2 do
  if string.sub(fields[i], 1, #new) == new then
    taken[string.match(string.sub(fields[i], #new + 1), '^[^#]*')] = true
  end
end
for i = 1, #fields, 2 do
  local name = fields[i]
  if string.sub(name, 1, #old) == old then
    local rest = string.sub(name, #old + 1)
    if not taken[string.match(rest, '^[^#]*')] then
      redis.call('HSET', KEYS[1], new .. rest, fields[i + 1])
    end
    redis.call('HDEL', KEYS[1], name)
  end
end
return 0
"""
"""The slots of game chat ARGV[1] become ARGV[2]'s (each field, its version, hold and marks
with it), but for a slot that ARGV[2] has a field of already: a post of the new chat's game
wrote it, newer than the old one, which goes."""

HAND = "hand"
"""The slot of a person's hand: in a private chat, the only messages with buttons are its."""

LOCKED = "locked"
"""No slot: in a Discord thread's slot map, `<game chat>:locked` notes the game whose players
were told that the thread is locked (a game id, no message). Named before marks took a `#`,
and kept so for the workers that read it there: the readers of slots skip it (`_slot`)."""


def hand_slot(game: str) -> str:
    """The slot map field of the hand of the game chat `game` (`<game chat>:hand`)."""
    return f"{game}:{HAND}"


def hand_again(outcome: Outcome, player: str) -> Outcome:
    """Of a game's lasting messages as they are now (`GameService.current`), the hand of
    `player`, as an edit of its slot's message (for a message just adopted: see
    `SlotMap.adopt`)."""
    mine = tuple(
        replace(message, notify=False)
        for message in outcome.messages
        if message.to == player and message.slot == HAND
    )
    return replace(outcome, messages=mine)


@dataclass
class Held:
    """A slot held for one post: the sender says whether the platform took it."""

    shown: bool = False
    keys: bool | None = None
    """Whether the message the slot shows now has buttons (None: as before)."""
    behind: str | None = None
    """What that message is to show once left behind (`Message.behind`; None: its text)."""
    sent: bool = False
    """The platform took this very post already, as the slot's new message, but the store
    could not record that then (a retry of it must not send it again)."""
    reopened: bool = False
    """The platform took the post, and the chat had refused one for the slot before
    (`SlotMap.refused`): set once the slot is released."""


@dataclass(frozen=True)
class Superseded:
    """The message a slot's new one replaces, which may still have buttons (take them off)."""

    message: int
    behind: str | None = None
    """What it is to show once left behind (`Message.behind`; None: its text as it is)."""


def _keys_flag(keys: bool | None, behind: str | None) -> str:
    """`<field>#k` as a post leaves it: '' as before, '0' no buttons, '1' buttons (then the
    text the message shows once left behind, if any)."""
    if keys is None:
        return ""
    return f"1{behind or ''}" if keys else "0"


@dataclass(frozen=True)
class Adopted:
    """A message a press came from is its slot's message now (`SlotMap.adopt`)."""

    replaced: int | None
    """The message the slot named before, if it may still have buttons (take them off)."""


class SlotMap:
    """The slot maps of one platform: `key(where)` is the Redis hash of the chat `where`."""

    def __init__(self, client: RedisClient, key: Callable[[int], str]) -> None:
        self.client = client
        self._key = key
        self._unsaved: dict[tuple[int, str], tuple[int, tuple[str, int] | None, str | None]] = {}
        """Slot messages sent while the store was away, not yet recorded there: (chat where it
        is shown, slot) → (the message, the version it shows, what it shows once left behind).
        They count as the slot's message
        until recorded, which the next post for the slot does first."""
        self._claim = client.register_script(_CLAIM)
        self._adopt = client.register_script(_ADOPT)
        self._renew = client.register_script(_RENEW)
        self._release = client.register_script(_RELEASE)
        self._bared = client.register_script(_BARED)
        self._unbutton = client.register_script(_UNBUTTON)
        self._gone = client.register_script(_GONE)
        self._rename = client.register_script(_RENAME)

    async def claim(
        self,
        where: int,
        slot: str,
        version: tuple[str, int],
        again: bool = False,
        only_edit: bool = False,
    ) -> str | None:
        """Hold `slot` in chat `where` to show `version` of its game: a token to `release`
        afterwards, or None if the slot already shows a newer version (or, `again`, this one:
        skip the post), or, `only_edit`, has no message that may still have buttons (nothing
        to edit: `Message.only_edit`). While another worker holds it, wait: posts for one slot
        go one at a time, and never backwards. (A hold outlives a crashed worker by at most
        HOLD_MS.)"""
        if only_edit and (where, slot) in self._unsaved:
            await self._save(where, slot)  # its message, sent while the store was away
        token = secrets.token_hex(6)
        flags = ["1" if again else "0", "1" if only_edit else "0"]
        args: list[str | int] = [slot, *version, token, HOLD_MS, TTL, *flags]
        claimed = int(await self._unheld(self._claim, where, args))
        return token if claimed == 1 else None

    async def _unheld(self, script: _Script, where: int, args: list[str | int]) -> Any:
        """What `script` (one that starts with `_HELD`) answers once no other worker holds
        the slot: tried again, with back-off, while one does."""
        delay = 0.005
        while True:
            answer = await script(keys=[self._key(where)], args=args)
            if answer != -1:
                return answer
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.2)

    @contextlib.asynccontextmanager
    async def hold(
        self,
        where: int,
        slot: str,
        version: tuple[str, int],
        again: bool = False,
        only_edit: bool = False,
    ) -> AsyncIterator[Held | None]:
        """`claim` the slot for one post, renewed while it runs: None if the slot shows a newer
        version, or has nothing to edit (skip the post); else released at the end, as showing
        `version` if the sender set `shown` (the platform took the post)."""
        token = await self.claim(where, slot, version, again, only_edit)
        if token is None:
            yield None
            return
        unsaved = self._unsaved.get((where, slot))
        held = Held(sent=unsaved is not None and unsaved[1] == version)
        if unsaved is not None:
            await self._save(where, slot)
        renewing = asyncio.create_task(self._renewing(where, slot, token))
        try:
            yield held
        finally:
            renewing.cancel()
            held.reopened = await self.release(
                where,
                slot,
                token,
                version if held.shown else None,
                held.keys if held.shown else None,
                held.behind,
            )

    async def post(
        self,
        where: int,
        slot: str,
        version: tuple[str, int],
        again: bool,
        send: Callable[[], Awaitable[T]],
        already: T,
        keys: bool | None = None,
        behind: str | None = None,
        reopened: Callable[[], object] = lambda: None,
        only_edit: bool = False,
    ) -> T | None:
        """One post for `slot` in chat `where`, made by `send` while the slot is held (see
        `hold`): what `send` returned; None if the slot shows a newer version (nothing was
        posted), or, `only_edit`, has no message that may still have buttons to edit;
        `already` if the platform took this very post before and only the store had not
        recorded it. A post `send` made counts as shown unless it raised; `keys` says whether
        it has buttons, `behind` what it shows once left behind (`Message.behind`).
        `reopened` is called if the chat had refused a post for the slot (`refused`): this
        one went through, and the mark is gone."""
        async with self.hold(where, slot, version, again, only_edit) as held:
            if held is None:
                return None
            if not held.sent:
                already = await send()
            held.shown = True
            held.keys = keys
            held.behind = behind
        if held.reopened:
            reopened()
        return already

    async def _renewing(self, where: int, slot: str, token: str) -> None:
        while True:
            await asyncio.sleep(HOLD_MS / 3000)
            await self._renew(keys=[self._key(where)], args=[slot, token, HOLD_MS])

    async def rename_game(self, where: int, old: str, new: str) -> None:
        """The game chat `old` is now `new`: its slots in chat `where` follow it, in one step
        (a post beside it cannot be overwritten by what it read before). A slot the new chat's
        game has posted already keeps that newer message (`_RENAME`)."""
        await self._rename(keys=[self._key(where)], args=[old, new])

    async def release(
        self,
        where: int,
        slot: str,
        token: str,
        shown: tuple[str, int] | None = None,
        keys: bool | None = None,
        behind: str | None = None,
    ) -> bool:
        """Let go of the slot; `shown`: the version the post that held it showed, with buttons
        or not (`keys`), and what it shows once left behind (`behind`). True if that post
        went where one for the slot was refused before (`refused`): the mark is gone."""
        game, version = shown if shown is not None else ("", 0)
        flag = _keys_flag(keys, behind)
        args: list[str | int] = [slot, token, game, version, flag]
        return int(await self._release(keys=[self._key(where)], args=args)) == 1

    async def refused(self, where: int, slot: str) -> None:
        """The private chat `where` refused a post for `slot` (the person's messages are
        closed to the bot): the next post for the slot that goes through says so (`post`'s
        `reopened`), on whichever worker makes it, at no cost of its own (the release it
        makes anyway answers it)."""
        key = self._key(where)
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(key, f"{slot}#closed", "1")
            pipe.expire(key, TTL)
            await pipe.execute()

    async def unrefused(self, where: int, slot: str) -> None:
        """The mark of a refusal at `slot` in the private chat `where` (`refused`) goes: what
        was shown instead is tidied up already (the game is over)."""
        await self.client.hdel(self._key(where), f"{slot}#closed")

    async def bared(self, where: int, slot: str, message_id: int) -> None:
        """The slot's message `message_id` had its buttons taken off (a bare post, made
        without a version: a closed-DM player's notice of the round before, or the last
        notice of a game): it has none now, unless the slot names another message since. A
        slot every game of the chat shares would else take them off again when a later game's
        message supersedes it, an edit of an old game's message far up the chat."""
        await self._bared(keys=[self._key(where)], args=[slot, str(message_id)])

    async def unbutton(
        self,
        where: int,
        slot: str,
        version: int,
        strip: Callable[[int, str | None], Awaitable[T]],
        behind: str | None = None,
        game: str = NO_GAME,
    ) -> T | None:
        """Shown again (`Outcome.again`) as a bare post: the slot's message loses its buttons
        (`strip(message id, behind)`, while the slot is held: its answer) if it may still have
        some and shows no later version of the chat than `version`, of any game (a chat's
        versions only grow: a game begun since keeps its buttons). When the edit says
        something (`behind`: what the lost post of the write at `version` said), also a message
        without buttons that shows an older version (that post never reached it: a hand not
        asked for anything), which shows `version` after, so it is edited once. Only a message
        of `game` is edited to say it (of any, for a note that names none: `NO_GAME`): another
        game's loses only its buttons (`behind` None), one without buttons is left. None if it
        has none (or shows `version`), or shows a later one (one call to Redis, and none to
        the platform); or if no post ever said what it shows (one that died before it could),
        or it is gone (`gone`)."""
        if (where, slot) in self._unsaved:
            await self._save(where, slot)
        token = secrets.token_hex(6)
        said = "0" if behind is None else "1"
        args: list[str | int] = [slot, version, token, HOLD_MS, said, game]
        answer = await self._unheld(self._unbutton, where, args)
        if answer == 0:
            return None
        message_id, ours = int(answer[0]), answer[1] == 1
        renewing = asyncio.create_task(self._renewing(where, slot, token))
        bared = ""
        try:
            stripped = await strip(message_id, behind if ours else None)
            bared = str(message_id)
            return stripped
        finally:
            renewing.cancel()
            await self._bared(keys=[self._key(where)], args=[slot, bared, token, version])

    async def gone(self, where: int, slot: str, message_id: int) -> None:
        """The platform says the slot's message `message_id` is gone (a person deleted it):
        the slot names no message now, unless it names another since, so no post shown again
        (`unbutton`) nor one that may only edit (`Message.only_edit`) tries it again, and the
        slot's next post sends a new one."""
        if self._unsaved.get((where, slot), (None,))[0] == message_id:
            del self._unsaved[(where, slot)]
        await self._gone(keys=[self._key(where)], args=[slot, str(message_id)])

    async def buttoned(self, where: int, slot: str) -> int | None:
        """The message showing `slot` in the chat `where` if it may still have buttons."""
        unsaved = self._unsaved.get((where, slot))
        if unsaved is not None:
            return unsaved[0]
        value, keys = await self.client.hmget(self._key(where), [slot, f"{slot}#k"])
        return int(value) if value and keys not in (b"0", "0") else None

    async def get(self, where: int, slot: str) -> int | None:
        """The message showing `slot` in the chat `where`."""
        unsaved = self._unsaved.get((where, slot))
        if unsaved is not None:
            return unsaved[0]
        value = await self.client.hget(self._key(where), slot)
        return int(value) if value else None

    async def shown(self, where: int, slot: str) -> tuple[str, int] | None:
        """The version the slot's message in the chat `where` shows (None: none known)."""
        unsaved = self._unsaved.get((where, slot))
        if unsaved is not None and unsaved[1] is not None:
            return unsaved[1]
        value = await self.client.hget(self._key(where), f"{slot}#v")
        if not value:
            return None
        game, _, version = (value.decode() if isinstance(value, bytes) else value).partition(":")
        return game, int(version)

    async def set(
        self,
        where: int,
        slot: str,
        message_id: int,
        version: tuple[str, int] | None = None,
        behind: str | None = None,
    ) -> Superseded | None:
        """`message_id` (showing `version`) is the slot's message now: the message it replaces
        if that one may still have buttons (take them off: nothing should invite a press it
        would refuse). `behind`: for a message with buttons posted without a version (no
        release says what it has), the text it is to show once superseded, kept with its mark
        of buttons (`<field>#k`). If the store cannot record it, this worker remembers it (and
        raises): the slot's next post records it first, and a retry of the post that sent it
        does not send it again."""
        self._unsaved[(where, slot)] = (message_id, version, behind)
        return await self._save(where, slot)

    async def _save(self, where: int, slot: str) -> Superseded | None:
        saving = self._unsaved[(where, slot)]
        message_id, _version, behind = saving
        key = self._key(where)
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.hget(key, slot)
            pipe.hget(key, f"{slot}#k")
            pipe.hset(key, slot, str(message_id))
            if behind is None:  # the new message's: said when its post is released
                pipe.hdel(key, f"{slot}#k")
            else:
                pipe.hset(key, f"{slot}#k", _keys_flag(True, behind))
            pipe.expire(key, TTL)
            old, had_keys, *_ = await pipe.execute()
        if self._unsaved.get((where, slot)) == saving:
            del self._unsaved[(where, slot)]
        if not old or int(old) == message_id or had_keys in (b"0", "0"):
            return None
        flag = had_keys.decode() if isinstance(had_keys, bytes) else had_keys or ""
        return Superseded(int(old), flag[1:] or None)

    async def adopt(
        self, where: int, slot: str, message_id: int, besides: str = ""
    ) -> Adopted | None:
        """A press came from `message_id` in the chat `where`, a message of `slot` newer than
        the one the map names: a crash (or the store away) lost the record of it as the slot's
        new message. It is the slot's message again, showing no known version (the slot's next
        post goes, even one shown only where behind), with buttons. None if the map names it
        or a newer one already, or names it the message of the slot `besides` (nothing to do).
        Waits while a worker posts for the slot."""
        unsaved = self._unsaved.get((where, slot))
        if unsaved is not None:
            if unsaved[0] >= message_id:
                return None
            del self._unsaved[(where, slot)]  # older than the press: not to be recorded
        adopted = int(await self._unheld(self._adopt, where, [slot, message_id, TTL, "", besides]))
        if adopted == 0:
            return None
        return Adopted(None if adopted == -2 else adopted)

    async def adopt_hand(
        self,
        where: int,
        game: str,
        player: str,
        message_id: int,
        current: Callable[[str], Awaitable[Outcome]],
    ) -> tuple[Adopted, Outcome] | None:
        """A press in the private chat `where` came from `message_id`: if it is a hand message
        of `game` newer than the one the map names (not its lobby's option toggles, newer than
        any hand), `adopt` it, and the player's hand as it is now (from `current`:
        `GameService.current`) to show in it (`hand_again`). None if there is nothing to adopt,
        or the store is away (the next press tries again)."""
        try:
            besides = f"{game}:{OPTIONS}"  # a host's toggles are newer than any hand
            adopted = await self.adopt(where, hand_slot(game), message_id, besides)
            if adopted is None:
                return None
            now = await current(game)
        except StoreErrors as error:
            log.info("could not check the hand message %s in %s: %s", message_id, where, error)
            return None
        log.info("message %s in %s shows the hand again (its record was lost)", message_id, where)
        return adopted, hand_again(now, player)

    async def games(self, where: int) -> list[str]:
        """The game chats that have a slot message in the chat `where` (a person's private
        chat: the games they were shown a hand of), in no particular order."""
        fields = await self.client.hkeys(self._key(where))
        return sorted({game for field in fields if (game := _game_of_field(field)) is not None})

    async def named(self, where: int, prefix: str) -> list[str]:
        """The slots of the chat `where` whose field starts with `prefix` (`<game chat>:<slot
        name>`), in no particular order; not their versions, holds or marks."""
        fields = await self.client.hkeys(self._key(where))
        names = (_slot(field) for field in fields)
        return [name for name in names if name is not None and name.startswith(prefix)]

    async def game_of(self, where: int, message_id: int) -> str | None:
        """The game chat whose slot message in `where` is `message_id`; if it is none's (an
        older message), the only game there, if there is just one."""
        items = await self.client.hgetall(self._key(where))
        games = set()
        for field, value in items.items():
            game = _game_of_field(field)
            if game is None:
                continue
            if int(value) == message_id:
                return game
            games.add(game)
        return games.pop() if len(games) == 1 else None


def _slot(field: bytes | str) -> str | None:
    """A slot map field, if it holds a slot's message (`<game chat>:<slot>`); None for a
    slot's version, hold or buttons mark (`<field>#v`...), a chat's mark (`<game chat>#...`)
    or the older mark `<game chat>:locked` (`LOCKED`), which are no message."""
    name = field.decode() if isinstance(field, bytes) else str(field)
    return None if "#" in name or name.rpartition(":")[2] == LOCKED else name


def _game_of_field(field: bytes | str) -> str | None:
    """The game chat of a slot map field that holds a slot's message (`_slot`), else None."""
    name = _slot(field)
    return None if name is None else name.rpartition(":")[0]
