"""Making one post on Discord: send it, or edit the message that shows its slot.

A slot post edits the slot's last message unless it asks to notify, there is none yet, or the
edit fails (the message was deleted): then it is sent anew and becomes the slot's message, and
the one before loses its buttons (`superseded`). A DM goes to the person's DM channel (opened
once, then remembered). When Discord refuses a DM (error 50007: the person does not take DMs
from server members or blocked the bot), the person is remembered as unreachable for a while,
the refusal is marked in the slot map (at the hand's slot of their DM channel:
`SlotMap.refused`), and `on_closed` is told, which shows the hand another way; the hand of a
new round tries their DMs again (`skips`), and once one goes through `on_open` is told, by
whichever worker posted it: the release of the hand's slot, made anyway, says the mark was
there. A game's end (a hand that shows no round) marks nothing, and the app takes the mark off
(`forget_refusal`, on any worker) as it takes the notice's button off. Only the person a post
names may be pinged; `@everyone` in a name stays text. A picture for a channel where the
client's cache knows the bot may not attach files goes as its text form at once
(`_takes_files`). A picture
refused for want of permissions (50013: Attach Files taken while the client's cache did not
know, so nothing refused the press before) is sent again once without it, its text form below
the post's text in the same message (or, too long for one, before it in messages of their
own: `with_text`); a channel that takes no text either refuses that too, and the post fails
as before. Those messages of their own go one outbox turn each (`Post.before`, `Rest`): each
counts in the channel's pace, and a post tried again after a failure sends only what it had
not. In a thread Discord archived (after its inactivity, as short as an hour) no message
may be edited (error 50083): the bot unarchives the thread, as any member may unless a
moderator locked it, and edits again, once; a post refused so in a thread that stays archived
(locked) is told to `on_locked`. A thread the gateway said a moderator locked (`thread_update`)
is sent nothing, as all of it would be refused, until the gateway says it is open again; its
players are told then. A lock the gateway reported or a post found is also noted in the
thread's slot map (`Slots.shut`), for every worker: a worker the gateway did not tell sends
nothing there for `SHUT_RETRY` seconds after it was found, then tries one post, which notes it
again if refused, or takes the mark off if it goes through. A post or an edit in the game's
channel refused for want of permissions (`muted`: the bot may not see the channel, 50001, or
send messages there, 50013, for a post with no file) is told to `on_muted`: the game played
there ends, as no table can be shown; a DM refused never is.
"""

import asyncio
import enum
import io
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

import aiohttp
import discord

from adapters.discord.buttons import view
from adapters.discord.ids import cached_permissions, chat_key
from adapters.discord.render import Post, with_text
from adapters.discord.slots import Slots
from adapters.outbox import Rest
from adapters.slots import hand_slot
from bot import StoreErrors
from bot.messages import Picture

log = logging.getLogger(__name__)

MISSING_ACCESS = 50001
CANNOT_MESSAGE_USER = 50007
MISSING_PERMISSIONS = 50013
UNKNOWN_MESSAGE = 10008
THREAD_ARCHIVED = 50083
CLOSED_FOR = 600.0
"""Seconds a person whose DMs are closed is not tried again (but for a new round's hand)."""
RETRY_AFTER = 60.0
"""Seconds after a refused DM before the hand of a new round tries the person's DMs again."""
LOCKED_KEPT = 10_000
"""How many locked threads a worker remembers (the gateway tells of every server's): the
oldest forgotten is only tried again, one refused call a post."""
SHUT_RETRY = 60.0
"""Seconds after a thread was found locked (`Slots.shut`) before a worker the gateway did not
tell tries a post there again: how it sees the thread opened when no gateway said so."""

Round = tuple[str | None, int]
"""(game id, round number) of a hand."""


@dataclass(slots=True)
class Closed:
    """A person whose DMs were found closed: when, and in which round of each game channel."""

    at: float
    rounds: dict[int, Round] = field(default_factory=dict)


class Shut(enum.Enum):
    """Whether a channel post is tried, as far as a moderator's lock of its thread goes."""

    OPEN = "open"
    SHUT = "shut"
    """Not tried: the thread is locked (the gateway said so, or it was found so lately)."""
    STALE = "stale"
    """Tried: the thread was found locked over `SHUT_RETRY` seconds ago; the mark goes if
    the post goes through."""


class Delivery(enum.Enum):
    SENT = "sent"
    EDITED = "edited"
    CLOSED = "closed"
    """The person's DMs are closed to the bot."""
    FAILED = "failed"
    STALE = "stale"
    """Another worker showed a newer version of the slot already: nothing to post."""


async def _untold() -> bool:
    return False


def retryable(error: BaseException) -> bool:
    """Whether a post that failed with `error` may succeed later: Discord failed on its side
    (5xx), could not be reached or did not answer in time, or the store was away."""
    return isinstance(
        error, (discord.DiscordServerError, aiohttp.ClientError, TimeoutError, *StoreErrors)
    )


class Sender:
    """Delivers posts with `client`, remembering slot messages in `slots`. A post that fails
    for a while (`retryable`) raises: the outbox tries again."""

    def __init__(
        self,
        client: discord.Client,
        slots: Slots,
        on_closed: Callable[[Post], Awaitable[None]],
        on_open: Callable[[Post], Awaitable[None]] = lambda _post: asyncio.sleep(0),
        clock: Callable[[], float] = time.monotonic,
        superseded: Callable[[Post, int, str | None], object] = lambda _p, _m, _t: None,
        on_locked: Callable[[Post], Awaitable[bool]] = lambda _post: _untold(),
        wall: Callable[[], float] = time.time,
        on_muted: Callable[[Post], Awaitable[None]] = lambda _post: asyncio.sleep(0),
    ) -> None:
        self.client = client
        self.slots = slots
        self.on_closed = on_closed
        self.on_open = on_open
        """Told of the hand that went to a person's DMs found closed before (by any worker:
        the mark in the slot map, `SlotMap.refused`): open again."""
        self.superseded = superseded
        """Told when a slot's new message supersedes one that may still have buttons (the
        post, the old message's id, the text it is to show once left behind if any): the app
        queues a post that takes them off (and shows that text)."""
        self.on_locked = on_locked
        """Told of a channel post refused because its thread is archived and stays so (a
        moderator locked it: error 50083 after the bot's unarchiving was refused), or not tried
        because the gateway said so; it answers whether the players were told (now or before)."""
        self.on_muted = on_muted
        """Told of a post to the game's channel refused because the bot may not post there
        (`muted`): the app ends the game played there."""
        self.clock = clock
        self.wall = wall
        """Seconds since the epoch: when a thread was found locked, as every worker reads it."""
        self._dms: dict[int, int] = {}
        self._closed: dict[int, Closed] = {}
        self._locked: dict[int, bool] = {}
        """Threads the gateway said a moderator locked, each with whether the players of its
        game were told so (`on_locked`). Kept in memory: a worker started anew tries the posts
        there, refused, until the gateway tells it."""

    async def thread_update(self, thread: int, locked: bool) -> None:
        """The gateway said whether `thread` is locked by a moderator (archived and locked:
        THREAD_UPDATE). While it is, its posts are not tried: each would be refused (a new
        message, or an edit and the unarchiving). Discord's client cache does not help here:
        discord.py drops a thread from its cache once it is archived. A lock is noted in the
        thread's slot map for the workers the gateway did not tell, and its players are told
        now (`on_locked`), not at the table's next post; an opening takes the mark off."""
        if not locked:
            self._locked.pop(thread, None)
            await self.slots.unshut(thread)
            return
        if thread not in self._locked:
            log.info("thread %s is locked: nothing is posted there until it is open", thread)
            self._locked[thread] = False
            if len(self._locked) > LOCKED_KEPT:
                del self._locked[next(iter(self._locked))]
            await self.slots.shut(thread, self.wall())
        await self._shut(Post(game=thread, text=""))

    async def _shut(self, post: Post) -> Shut:
        """Whether `post` goes to a thread known to be locked: one the gateway said is (the
        first such post, until the players are told, is told to `on_locked` as a refused one
        is), or one the slot map says was found so (`Slots.shut`; read where the client's
        cache does not know the channel as one that is no thread), lately or not."""
        if post.user is not None:
            return Shut.OPEN
        told = self._locked.get(post.game)
        if told is not None:
            if not told:
                told = await self.on_locked(post)
                if post.game in self._locked:  # not opened meanwhile
                    self._locked[post.game] = told
            return Shut.SHUT
        if not self._may_be_thread(post.game):
            return Shut.OPEN
        since = await self.slots.shut_since(post.game)
        if since is None:
            return Shut.OPEN
        return Shut.SHUT if self.wall() < since + SHUT_RETRY else Shut.STALE

    async def locked(self, channel: int) -> bool:
        """Whether a post to `channel` would go nowhere now: it is a thread known to be locked
        (`_shut`: the gateway said so, or it was found so, lately or not)."""
        return await self._shut(Post(game=channel, text="")) is not Shut.OPEN

    def _may_be_thread(self, channel: int) -> bool:
        """Whether `channel` may be a thread: the client's cache knows it as a thread, or does
        not know it (it drops a thread once archived)."""
        known = self.client.get_channel(channel)
        return known is None or isinstance(known, discord.Thread)

    def dms_closed(self, user: int) -> bool:
        """Whether the person's DMs were found closed lately."""
        closed = self._closed.get(user)
        if closed is None:
            return False
        if closed.at + CLOSED_FOR <= self.clock():
            del self._closed[user]
            return False
        return True

    def skips(self, post: Post) -> bool:
        """Whether `post` is not tried: it is for a person whose DMs were found closed lately,
        and it is not the first hand of a new round in its game's channel (one at least
        `RETRY_AFTER` seconds after the last refusal), which tries them again: a player who
        opens their DMs gets their hands there from the next round on, at the cost of one
        refused call a round (at most one a minute) while they stay closed."""
        if post.user is None or not self.dms_closed(post.user):
            return False
        closed = self._closed[post.user]
        if post.round is None or closed.rounds.get(post.game) == _round(post):
            return True
        return self.clock() < closed.at + RETRY_AFTER

    async def __call__(self, post: Post) -> Delivery | Rest[Post]:
        shut = await self._shut(post)
        if shut is Shut.SHUT:
            return Delivery.FAILED
        if self.skips(post):
            await self.on_closed(post)
            return Delivery.CLOSED
        retried = post.user is not None and self.dms_closed(post.user)
        reopened: list[bool] = []
        try:
            delivery = await self._deliver(post, lambda: reopened.append(True))
        except discord.Forbidden as error:
            if post.user is not None and error.code == CANNOT_MESSAGE_USER:
                log.info("user %s does not take DMs from the bot", post.user)
                where = self._dms.get(post.user)
                if where is not None and not _over(post):  # for every worker to know
                    await self.slots.refused(where, hand_slot(chat_key(post.game)))
                self._refused(post, post.user)
                await self.on_closed(post)
                return Delivery.CLOSED
            log.warning("may not post to %s: %s", post.target, error)
            if muted(error, post):
                await self.on_muted(post)
            return Delivery.FAILED
        except discord.HTTPException as error:
            if retryable(error):
                raise
            log.warning("could not post to %s: %s", post.target, error)
            if error.code == THREAD_ARCHIVED and post.user is None:
                await self.slots.shut(post.game, self.wall())  # for every worker to know
                await self.on_locked(post)
            return Delivery.FAILED
        if shut is Shut.STALE and delivery in (Delivery.SENT, Delivery.EDITED):
            log.info("thread %s is open again", post.game)
            await self.slots.unshut(post.game)
        if post.stands_for is not None and delivery is Delivery.SENT:
            await self._stood_for(post, post.stands_for)
        if post.user is None or delivery not in (Delivery.SENT, Delivery.EDITED):
            return delivery
        if retried:
            self._closed.pop(post.user, None)
        if reopened:  # the slot map knew of a refusal, whichever worker had it
            log.info("user %s takes DMs from the bot again", post.user)
            await self.on_open(post)
        return delivery

    async def forget_refusal(self, game: int, user: int) -> None:
        """The game in channel `game` is over for `user`, whose DMs were closed, and what was
        shown instead is tidied up: the mark of the refusal in the slot map goes, so that a
        later game's hand in their DMs, once open, does not look for anything to tidy (one
        call to Redis; and one to Discord where this worker does not know their DM channel,
        which Discord opens whatever their DMs take: a worker forgets DM channels apart from
        the people it found closed, `_channel`). Should Discord not answer, the mark stays,
        as harmless: it costs a search for a notice later, no more."""
        try:
            where = await self._channel(Post(game=game, text="", user=user))
        except (discord.HTTPException, aiohttp.ClientError, TimeoutError) as error:
            log.info("could not open the DM channel of %s: %s", user, error)
            return
        await self.slots.unrefused(where, hand_slot(chat_key(game)))

    async def _stood_for(self, notice: Post, user: int) -> None:
        """A "Your hand" notice was posted for `user`: if their DMs show a hand as new as the
        one it stands for already (another worker's went through while the notice waited in
        this one's queue, and found no notice to take the button off then), `on_open` is told
        now, and the notice loses its button. One Redis read a notice; none for a player whose
        DMs were never refused."""
        where = self._dms.get(user)
        if where is None or notice.version is None:
            return
        try:
            shown = await self.slots.shown(where, hand_slot(chat_key(notice.game)))
        except StoreErrors as error:  # the notice is posted: it is not tried again for this
            log.info("could not read the DM hand of %s: %s", user, error)
            return
        game, version = notice.version
        if shown is not None and shown[0] == game and shown[1] >= version:
            log.info("user %s got their hand by DM before its notice was posted", user)
            await self.on_open(replace(notice, user=user))

    def _refused(self, post: Post, user: int) -> None:
        """Remember that a DM to `user` was refused now, for `post`'s round in its channel."""
        if len(self._closed) > 10_000:
            self._closed.clear()
        closed = self._closed.setdefault(user, Closed(self.clock()))
        closed.at = self.clock()
        if post.round is not None:
            closed.rounds[post.game] = _round(post)

    async def _channel(self, post: Post) -> int:
        """The channel the post is shown in: the game's, or the person's DM channel."""
        if post.user is None:
            return post.game
        known = self._dms.get(post.user)
        if known is None:
            data = await self.client.http.start_private_message(post.user)
            known = int(data["id"])
            if len(self._dms) > 100_000:
                self._dms.clear()
            self._dms[post.user] = known
        return known

    async def _deliver(self, post: Post, reopened: Callable[[], object]) -> Delivery | Rest[Post]:
        """Make the post; `reopened` is called if it is a slot's post that went to a DM
        channel where one for that slot was refused before (`SlotMap.refused`). A picture the
        channel takes no files for (as the client's cache knows, or as it refuses: 50013), or
        that cannot be drawn, is sent as its text form (`as_text`), its messages one at a time
        (`Rest`)."""
        where = await self._channel(post)
        if post.before:
            return await self._before(post, where)
        if post.picture is None:
            return await self._made(post, where, reopened)
        file = None
        if not self._takes_files(post, where):
            log.info("channel %s takes no files from the bot, sent as text", where)
        else:
            file = await drawn(post.picture)
        if file is None:
            return await self._deliver(as_text(post), reopened)
        try:
            return await self._made(post, where, reopened, file)
        except discord.Forbidden as error:
            if error.code != MISSING_PERMISSIONS:
                raise
            log.info("channel %s takes no files from the bot, sent as text: %s", where, error)
            return await self._deliver(as_text(post), reopened)

    async def _before(self, post: Post, where: int) -> Delivery | Rest[Post]:
        """Send the first of the messages that go before the post's own (`Post.before`); what
        is left goes next (`Rest`). A slot's post sends it while the slot is held, and only if
        the post is still to be made: not where the slot shows a newer version, nor, shown
        again, where it shows this one (then nothing is sent: STALE); were the post itself
        taken already (its record left unsaved), no message before it is sent again."""
        block, *rest = post.before
        left = Rest(replace(post, before=tuple(rest)))
        channel = self._messageable(post, where)
        none = discord.AllowedMentions.none()
        if post.slot is None or post.version is None:
            await channel.send(block, allowed_mentions=none)
            return left
        async with self.slots.hold(where, post.slot, post.version, post.again) as held:
            if held is None:
                return Delivery.STALE
            if held.sent:
                return Rest(replace(post, before=()))
            await channel.send(block, allowed_mentions=none)
        return left

    async def _made(
        self,
        post: Post,
        where: int,
        reopened: Callable[[], object],
        file: discord.File | None = None,
    ) -> Delivery:
        """Make the post in `where` (with its picture as `file`), holding its slot if it has
        one: see `_deliver`."""
        if post.strip is not None:
            return await self._strip(post, where, post.strip, post.behind)
        if post.slot is None or post.version is None:
            return await self._post(post, where, file)
        if post.bare and post.again:  # only where buttons may be left: see `SlotMap.unbutton`
            strip = partial(self._strip, post, where, slot=post.slot)
            game, version = post.version
            stripped = await self.slots.unbutton(
                where, post.slot, version, strip, post.behind, game
            )
            return Delivery.STALE if stripped is None else stripped
        delivery = await self.slots.post(
            where,
            post.slot,
            post.version,
            post.again,
            partial(self._post, post, where, file),
            Delivery.SENT,
            keys=bool(post.keys),
            behind=post.behind,
            reopened=reopened,
            only_edit=post.only_edit,
        )
        return Delivery.STALE if delivery is None else delivery

    def _messageable(self, post: Post, where: int) -> discord.PartialMessageable:
        """The channel (or DM channel) `where` that `post` is shown in."""
        return self.client.get_partial_messageable(
            where,
            type=discord.ChannelType.text if post.user is None else discord.ChannelType.private,
        )

    async def _post(self, post: Post, where: int, file: discord.File | None = None) -> Delivery:
        channel = self._messageable(post, where)
        mentions = (
            discord.AllowedMentions(users=[discord.Object(user) for user in post.mentions])
            if post.mentions
            else discord.AllowedMentions.none()
        )
        if post.delete:
            return await self._delete(post, where)
        if post.bare:
            if post.slot is None:
                return Delivery.FAILED
            message_id = await self.slots.get(where, post.slot)
            if message_id is None:
                return Delivery.FAILED
            stripped = await self._strip(post, where, message_id, post.behind, post.slot)
            await self.slots.bared(where, post.slot, message_id)
            return stripped
        if post.attachment is not None:
            name, data = post.attachment
            attached = discord.File(io.BytesIO(data), filename=name)
            await channel.send(post.text, file=attached, allowed_mentions=mentions)
            return Delivery.SENT
        message_id = None  # the slot's message, when this post edits it
        if post.slot is not None and not post.notify:
            message_id = await self.slots.get(where, post.slot)
        if message_id is not None and not post.notify and post.picture is None:
            try:
                await self._edit(
                    where,
                    channel.get_partial_message(message_id),
                    content=post.text,
                    view=view(post.keys),
                    allowed_mentions=mentions,
                )
                return Delivery.EDITED
            except discord.NotFound as error:
                log.info("slot message %s in %s is gone", message_id, where)
                if error.code == UNKNOWN_MESSAGE and post.slot is not None:  # none to edit again
                    await self.slots.gone(where, post.slot, message_id)
                if post.only_edit:  # nothing to edit, and nothing new
                    return Delivery.FAILED
                message_id = None
        buttons = view(post.keys)
        extra: dict[str, Any] = {}
        if file is not None:
            extra["file"] = file
        if buttons is not None:
            extra["view"] = buttons
        sent = await channel.send(post.text, allowed_mentions=mentions, silent=post.quiet, **extra)
        if post.slot is not None:
            old = await self.slots.set(where, post.slot, sent.id, post.version)
            if old is not None:
                self.superseded(post, old.message, old.behind)
        return Delivery.SENT

    def _takes_files(self, post: Post, where: int) -> bool:
        """Whether a picture is tried in `where`: not in a server channel where the client's
        cache knows the bot may not attach files (the gateway keeps it: the guild, its roles,
        the channel's overwrites, as they change), which would refuse it (50013) only for the
        text form to follow. Where the cache does not know, it is tried."""
        if post.user is not None:
            return True
        cached = cached_permissions(self.client, where)
        return cached is None or cached[0].attach_files

    async def _delete(self, post: Post, where: int) -> Delivery:
        """The slot's message is deleted (`Post.delete`), if it names one: it names none after
        (one gone already is forgotten all the same)."""
        message_id = None if post.slot is None else await self.slots.get(where, post.slot)
        if post.slot is None or message_id is None:
            return Delivery.FAILED
        message = self._messageable(post, where).get_partial_message(message_id)
        try:
            await message.delete()
        except discord.NotFound as error:
            log.info("message %s in %s is gone: %s", message_id, where, error)
        await self.slots.gone(where, post.slot, message_id)
        return Delivery.EDITED

    async def _strip(
        self,
        post: Post,
        where: int,
        message_id: int,
        behind: str | None = None,
        slot: str | None = None,
    ) -> Delivery:
        """Message `message_id` loses its buttons; with `behind`, in the same edit, its text
        becomes that (`Message.behind`: no line asks for a press it no longer offers). One
        gone (deleted) is no more the message of `slot`, if given (`SlotMap.gone`)."""
        message = self._messageable(post, where).get_partial_message(message_id)
        try:
            if behind is None:
                await self._edit(where, message, view=None)
            else:
                await self._edit(
                    where,
                    message,
                    content=behind,
                    view=None,
                    allowed_mentions=discord.AllowedMentions.none(),
                )
        except discord.NotFound as error:
            log.info("message %s in %s is gone", message_id, where)
            if slot is not None and error.code == UNKNOWN_MESSAGE:
                await self.slots.gone(where, slot, message_id)
            return Delivery.FAILED
        return Delivery.EDITED

    async def _edit(self, where: int, message: discord.PartialMessage, **fields: Any) -> None:
        """Edit `message` with `fields`. In a thread Discord archived (error 50083) the thread
        is unarchived first and the edit made again, once; a thread a moderator locked stays
        archived, and the edit fails with its first error."""
        try:
            await message.edit(**fields)
        except discord.HTTPException as error:
            if error.code != THREAD_ARCHIVED:
                raise
            log.info("thread %s is archived: opening it to edit message %s", where, message.id)
            try:
                await self.client.http.edit_channel(where, archived=False)
            except discord.HTTPException as refused:
                log.warning("may not unarchive thread %s (locked?): %s", where, refused)
                raise error from refused
            await message.edit(**fields)


def as_text(post: Post) -> Post:
    """`post` with its picture's text form instead of the picture (`with_text`): below its
    text, or in messages of their own before it (`Post.before`). A new message, as a picture's
    always is."""
    assert post.picture is not None
    *first, text = with_text(post.text, post.picture)
    return replace(post, text=text, picture=None, before=tuple(first), notify=True)


async def drawn(picture: Picture) -> discord.File | None:
    """`picture` drawn as a file to send; None, logged, if it cannot be (a font missing, a
    Pillow error): its text form goes instead."""
    try:
        png = await asyncio.to_thread(picture.png)
    except Exception:
        log.exception("could not draw %s", picture.name)
        return None
    return discord.File(io.BytesIO(png), filename=picture.name)


def is_hand(post: Post) -> bool:
    """Whether `post` is of its game's hand slot (`hand_slot`): a person's hand, or what their
    hand message shows once the game is over."""
    return post.slot == hand_slot(chat_key(post.game))


def muted(error: discord.Forbidden, post: Post) -> bool:
    """Whether `error` says the bot may no longer post in `post`'s game channel: Missing Access
    (50001: it may not even see the channel) on a message there or an edit of one, or Missing
    Permissions (50013: it may not send messages there) on one that carried no file. Only the
    game's channel: a DM refused (50007, closed DMs) ends nothing. A file the channel refused
    (the record) says nothing of text, which may still be allowed; a picture refused so went
    again as text already (`_deliver`), and this is the text's refusal."""
    if post.user is not None:
        return False
    return error.code == MISSING_ACCESS or (
        error.code == MISSING_PERMISSIONS and post.attachment is None
    )


def _over(post: Post) -> bool:
    """Whether `post` is a person's hand once their game is over (it shows no round: their
    result, or why the game ended)."""
    return post.user is not None and post.round is None and is_hand(post)


def _round(post: Post) -> Round:
    """The game and round of a hand's post."""
    assert post.round is not None
    return (post.version[0] if post.version is not None else None, post.round)
