"""The group notices about a person's private chat with the bot, for the Telegram front end: the
notice that a person must open it to sit down (`open_slot`, with the deep link that seats
them), and the one that a player cannot be reached there (`unreached_slot`, with a link back to
it). `Notices` posts them, keeps them true as they wait and go (`Notices.deliver`), moves them
with a group that becomes a supergroup, and takes their buttons off once the chat is open.
"""

import logging
import math
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import replace

from telegram import Bot, Chat
from telegram import User as TgUser
from telegram.constants import ChatAction
from telegram.error import Forbidden, TelegramError

from adapters.telegram import commands
from adapters.telegram.ids import chat_key, is_group, make_user, telegram_id, user_key
from adapters.telegram.render import Key, Post, html_text, thread
from adapters.telegram.sender import Delivery
from adapters.telegram.slots import Slots
from bot import GameService, RedisClient, User
from bot.logs import about
from bot.show.formatters import said_of
from bot.show.i18n import Texts
from bot.store import keys
from engine import ROUND_PHASES

log = logging.getLogger(__name__)

Send = Callable[[Post], Awaitable[Delivery]]
"""How a post goes to Telegram (`Sender`)."""

UNREACHED_SLOT = "unreached:"
"""The group slot of the notice that a player cannot be reached privately (`<slot><user id>`,
`unreached_slot`): its button comes off when they are back."""
OPEN_SLOT = "open:"
"""The group slot of the notice that a person must open a private chat with the bot to sit down
(`<slot><user id>`, `open_slot`): one with a live button per person and game chat; it loses the
button when a newer one supersedes it, or once they have opened the chat."""
OPENING_FOR = 30 * 86400
"""Seconds a person's index of the groups with a notice of theirs to open the private chat is
kept after the last (`keys.opening`), as long as the slot map that names those notices."""
UNREACHED_FOR = 30 * 86400
"""Seconds the mark that a game told its group of an unreachable player is kept."""
MOVED_FOR = 2 * 86400
"""Seconds the claim of a group's move to a supergroup (`keys.notices_moved`) is kept: longer
than Telegram keeps an update for the bot (a day), so the move's second message finds it."""
TOLD = "1"
"""The mark's value once the group is told (`keys.unreached`). While a refusal checks that the
player still cannot be reached, it holds that check's own token, `CHECKING` and a random part
(`Notices.unreached`)."""
CHECKING = "?"

_SWAP = """
local now = redis.call('GET', KEYS[1])
if ARGV[1] == '' then
  if now and string.sub(now, 1, 1) ~= ARGV[4] then return 0 end
elseif now ~= ARGV[1] then
  return 0
end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
end
return 1
"""
"""The mark KEYS[1] becomes ARGV[2] (kept ARGV[3] seconds; '': it goes) if it holds ARGV[1];
ARGV[1] '': if it is not set, or a check holds it (its value begins with ARGV[4]). 1 if it
did, else 0."""


def open_slot(game: str, person: int | None) -> str:
    """The slot map field of `person`'s notice in the group of `game` that they must open a
    private chat with the bot to sit down (`OPEN_SLOT`); None: what each such field begins
    with."""
    return f"{game}:{OPEN_SLOT}{'' if person is None else person}"


def unreached_slot(game: str, person: int | None) -> str:
    """The slot map field of the notice in the group of `game` that its player `person` cannot
    be reached privately (`UNREACHED_SLOT`); None: what each such field begins with."""
    return f"{game}:{UNREACHED_SLOT}{'' if person is None else person}"


def button_off(group: int, slot: str, said: str | None) -> Post:
    """The notice of `slot` in `group` loses its button and, in the same edit, says `said`
    (what is true once its button is gone, of the person it names) instead; None: its text
    stays."""
    return Post(group, "", slot=slot, bare=True, behind=None if said is None else html_text(said))


class Notices:
    """One front end's notices: `queue` puts a post in the outbox, in the place of its slot's
    waiting one; the outbox delivers every post through `deliver`, with the `Sender`."""

    def __init__(
        self,
        service: GameService,
        client: RedisClient,
        slots: Slots,
        bot: Bot,
        queue: Callable[[Post], object],
    ) -> None:
        self.service = service
        self.client = client
        self.slots = slots
        self.bot = bot
        self.queue = queue
        self._swap = client.register_script(_SWAP)

    async def reachable(
        self, group: Chat, person: TgUser, here: str | None, typed: int | None = None
    ) -> bool:
        """Whether the person can be written to privately (asked with a chat action, which
        leaves nothing in their chat: the hello follows only once they are seated, the front
        end's `_greet`). If Telegram refuses (they never opened the chat, or blocked the bot),
        the group gets a deep link instead, in a notice of their own slot (`OPEN_SLOT`): a
        command (`typed`, its message) gets a new one in reply, and the one before loses its
        button; a press whose person has a notice with a live button already has it edited to
        what it says (which changes nothing, "message is not modified") and posted anew only
        if that finds it gone (an admin deleted it: Telegram tells the bot nothing of that).
        Another error does not keep them from their seat."""
        if await self._writes(person.id) is not False:
            return True
        slot = open_slot(chat_key(group.id), person.id)
        there = typed is None and await self.slots.buttoned(group.id, slot) is not None
        await self._ask_to_open(group.id, person, here, typed, there)
        return False

    async def _writes(self, person: int) -> bool | None:
        """Whether Telegram lets the bot write to `person` privately now, asked with a chat
        action (which leaves nothing in their chat): False if it refuses (they never opened
        the chat, or blocked the bot), None if the call fails otherwise."""
        try:
            await self.bot.send_chat_action(person, ChatAction.TYPING)
        except Forbidden:
            return False
        except TelegramError as error:
            log.info("sendChatAction to %s failed: %s", person, error)
            return None
        return True

    async def _ask_to_open(
        self, group: int, person: TgUser, here: str | None, typed: int | None, there: bool
    ) -> None:
        """The notice in `group` (in its forum topic `here`, in reply to `typed`) that the
        person must open a private chat with the bot to sit down, with the deep link that
        opens it: a new message, or, `there` (the slot's message may still have its button),
        an edit of the one before (`reachable`). The group is noted in their index
        (`keys.opening`)."""
        game = chat_key(group)
        slot = open_slot(game, person.id)
        t = await self.service.texts(game)
        user = make_user(person.id, person.first_name, person.last_name, False)
        link = commands.deep_link(self.bot.username, group, thread(here))
        post = Post(
            group,
            html_text(said_of(t, user.name, _open_first(t))),
            keys=((Key(open_private(t), url=link),),),
            reply_to=typed,
            thread=thread(here),
            slot=slot,
            notify=not there,  # a new message, next to what asked; the last loses its button
            behind=html_text(said_of(t, user.name, _open_first(t, button=False))),
            opens=user,
        )
        index = keys.opening(user_key(person.id))
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.sadd(index, str(group))
            pipe.expire(index, OPENING_FOR)
            await pipe.execute()
        self.queue(post)

    async def moved(self, old: int, new: int) -> None:
        """Group `old` became the supergroup `new`, and the old group takes no more calls: a
        notice there asking someone to open a private chat with the bot can never lose its
        button. Each one that still has it is shown anew in the supergroup, in the order they
        were posted, if it is still true: a newcomer's (`open_slot`) whose index still names
        the old group (`_open_anew`); a player's who cannot be reached (`unreached_slot`) whose
        game's mark that the group was told is still set (`unreached` sets it for the
        supergroup's game, and asks Telegram first whether they still cannot be reached: they
        may have come back as the game moved, and their return found neither mark nor notice).
        Their /start then takes the button off the new one, with no call to the old group.
        A player's notice still waiting in the old group's queue (or on its way) has no
        message yet, but its mark is set: it is told in the supergroup after those posted, and
        the waiting one, its mark gone, does not go (`deliver`). A newcomer's still waiting is
        shown anew when the old group refuses it (`migrated`). Both of Telegram's messages of
        the move may come here, at once (with no game moved: the front end's `on_migrate`): the
        first to claim the move (`keys.notices_moved`) moves every notice, one after another;
        the other moves none (when each took the notices its SREM or DEL won, the second
        notice went first whenever the first one's `getChatMember` was slower). The index's
        SREM, or the old mark's DEL, still lets one of the move and a refused notice, or the
        person's return, have each."""
        before = chat_key(old)
        claimed = await self.client.set(keys.notices_moved(before), str(new), nx=True, ex=MOVED_FOR)
        if not claimed:
            return
        told = unreached_slot(before, None)
        posted: dict[tuple[str, int], float] = {}
        for prefix in (open_slot(before, None), told):
            for slot in await self.slots.named(old, prefix):
                message = await self.slots.buttoned(old, slot)
                if message is not None:
                    posted[(prefix, int(slot.removeprefix(prefix)))] = message
        table = await self.service.table(chat_key(new))
        if table is not None:  # a player's notice still waiting has no message: its mark tells
            for player in table.game.players:
                person = telegram_id(player.id)
                if person is not None and not is_group(person):
                    posted.setdefault((told, person), math.inf)
        for _, prefix, person in sorted((at, *notice) for notice, at in posted.items()):
            if prefix != told:
                await self._open_anew(old, new, person)
            elif table is not None:
                mark = keys.unreached(before, table.game_id, person)
                if await self.client.delete(mark):  # not back, nor moved by the other
                    await self.unreached(chat_key(new), person, table.game_id)

    async def migrated(self, refused: Post, new: int) -> None:
        """A post to a group that has become the supergroup `new` was refused (400 "group chat
        was upgraded to a supergroup chat"). A newcomer's notice that was still waiting, or on
        its way, as the group moved had no message there for `moved` to find: it is shown anew
        in the supergroup now (`_open_anew`), whichever came first, the move's message or the
        refusal. A player's is moved by its mark (`moved`); any other post is left: the
        supergroup shows the game anew."""
        person = refused.opens
        if person is None or refused.told is not None:
            return
        found = telegram_id(person.id)
        if found is not None:
            await self._open_anew(refused.target, new, found)

    async def _open_anew(self, old: int, new: int, person: int) -> None:
        """The notice asking `person` to open a private chat with the bot, to sit down in group
        `old`, is shown anew in the supergroup `new` it became, with a link to its table (one
        `getChatMember`, for their name), if their index still names the old group: its SREM
        lets one of the move's two messages, or the refused notice, show it; once they have
        opened the chat, nothing is shown."""
        if not await self.client.srem(keys.opening(user_key(person)), str(old)):
            return  # opened since, or shown anew already
        try:
            member = await self.bot.get_chat_member(new, person)
        except TelegramError as error:
            log.info("getChatMember %s %s failed: %s", new, person, error)
            return
        await self._ask_to_open(new, member.user, None, None, False)

    async def opened(self, person: TgUser, linked: int | None = None, seated: bool = False) -> None:
        """The person's private chat is open: they sent /start there, through the link of a
        notice of group `linked` (which `seated` them, or not) or typed. Each group's notice
        that asked them to open it (`reachable`: the groups are in `keys.opening`) loses its
        button, if it is still there, and in the same edit says that the chat is open, and
        whether they have a seat, not "press the button below". One Redis call when there is
        none; the group's own moves cost nothing of it. The index goes before the notices are
        looked at: one still on its way finds its group gone from it (`deliver`) or is found
        here, whichever comes second."""
        index = keys.opening(user_key(person.id))
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.smembers(index)
            pipe.delete(index)
            noted, _ = await pipe.execute()
        name = make_user(person.id, person.first_name, person.last_name, False).name
        for group in sorted({int(group) for group in noted} | ({linked} if linked else set())):
            game = chat_key(group)
            slot = open_slot(game, person.id)
            with about(game):
                if await self.slots.buttoned(group, slot) is None:
                    continue
                t = await self.service.texts(game)
                said = said_of(t, name, _open_now(t, seated and group == linked))
                self.queue(button_off(group, slot, said))

    async def deliver(self, send: Send, post: Post) -> Delivery:
        """One post (`Sender`). A notice asking a person to open a private chat with the bot
        (`Post.opens`) that they opened while it waited in the group's queue, or was on its
        way (their /start, or unblocking the bot, found no message yet to take the button
        off), is looked at as it goes (`_still_asks`). A newcomer's (their /start took the
        group out of their index, `opened`) goes as it reads once they have: no button, and
        whether they have a seat there or how to take one. A player's who could not be
        reached (`Post.told`: their /start took the mark off, `reached`) does not go: the
        group was never told they could not be reached. One that went as they opened the
        chat loses its button after it, and says what is true then (`_now_open`). Two Redis
        reads a notice, on this path only."""
        person = post.opens
        if person is None:
            return await send(post)
        if not await self._still_asks(post, person):
            if post.told is not None:
                return Delivery.UNCHANGED
            said = await self._now_open(post, person)
            return await send(replace(post, html=html_text(said), keys=(), behind=None))
        delivery = await send(post)
        if delivery is not Delivery.SENT or post.slot is None:
            return delivery
        if not await self._still_asks(post, person):  # opened as it went
            said = await self._now_open(post, person)
            self.queue(button_off(post.target, post.slot, said))
        return delivery

    async def _still_asks(self, post: Post, person: User) -> bool:
        """Whether the notice `post` asking `person` to open a private chat with the bot is
        still true: the game's mark that the group was told they cannot be reached is set
        (`Post.told`), or, a newcomer's, their index still names the group."""
        if post.told is not None:
            return bool(await self.client.exists(post.told))
        return bool(await self.client.sismember(keys.opening(person.id), str(post.target)))

    async def _now_open(self, post: Post, person: User) -> str:
        """What the notice `post` asking `person` to open a private chat with the bot says
        once they have: a player's who could not be reached, that they are back; a
        newcomer's, whether they have a seat at its group's table, or how to take one."""
        game = chat_key(post.target)
        t = await self.service.texts(game)
        if post.told is not None:
            return said_of(t, person.name, _back(t))
        seated = game in await self.service.seated(person.id)
        return said_of(t, person.name, _open_now(t, seated))

    async def unreachable(self, failed: Post) -> None:
        """Telegram refused a game's private message to its player (they blocked the bot, or
        their account or chat is gone): the group is told (`unreached`). The Redis calls
        happen on a failure only."""
        if failed.game is None or failed.version is None:
            return
        await self.unreached(failed.game, failed.target, failed.version[0])

    async def unreached(self, game: str, person: int, game_id: str | None = None) -> None:
        """The player `person` of `game` cannot be reached privately (a message to them was
        refused, or they blocked the bot). The first time while a round is played, the group is
        told in a new message, naming them with a mention (which notifies) and a link back to
        the private chat, where /start shows their hand again; nothing of the hand. One mark
        shared by the workers (`keys.unreached`) makes later failures say nothing, until they
        are back (/start, or unblocking the bot) and the mark comes off (`reached`): once per
        time they block the bot, not once per game. `game_id`: the game a refused message was
        of (a message of an older game tells nothing), or whose notice moved with its group
        (`moved`), checked as a refusal is. A refusal may come back after they are
        back (its answer slow, or its handling): it would tell the group something untrue, and
        set the mark again, which would then keep the group from being told when they block
        the bot for real. So, the mark set, a refusal is checked with a chat action (one call,
        once per time they block the bot): if Telegram takes it, the mark goes and nothing is
        said. A block (Telegram's update) is told as it comes, even while a refusal's check
        holds the mark (its own token, `CHECKING`): the block takes the mark over, and the
        check, finding it no longer its own, says nothing and leaves it (`_SWAP`). Else a
        block told while the check that found them back was on its way went unsaid, and the
        check then took the mark off: the group was never told."""
        group = telegram_id(game)
        if group is None or not is_group(group):
            return
        table = await self.service.table(game)
        if table is None or game_id not in (None, table.game_id):
            return
        player = user_key(person)
        name = next((p.name for p in table.game.players if p.id == player), None)
        if name is None or table.game.phase not in ROUND_PHASES:
            return
        mark = keys.unreached(game, table.game_id, person)
        if game_id is None:  # a block: told, unless it was (a refusal's check gives way)
            if not await self._swapped(mark, "", TOLD):
                return
        else:
            check = CHECKING + secrets.token_hex(6)
            if not await self.client.set(mark, check, nx=True, ex=UNREACHED_FOR):
                return
            back = await self._writes(person) is True  # back since it was refused?
            if not await self._swapped(mark, check, "" if back else TOLD) or back:
                return  # a block was told meanwhile, or their return took the mark off
        t = await self.service.texts(game)
        text = t(
            "I cannot write to you privately, where your cards are shown: press the button "
            "below, then Start."
        )
        link = commands.cards_link(self.bot.username)
        notice = Post(
            group,
            html_text(said_of(t, name, text), mentions=((player, name),)),
            keys=((Key(open_private(t), url=link),),),
            slot=unreached_slot(game, person),
            notify=True,  # a new message (a mention in an edit notifies nobody)
            thread=thread(table.where),
            opens=User(player, name),
            told=mark,  # true while it is set: it goes off as they come back (`deliver`)
        )
        self.queue(notice)

    async def _swapped(self, mark: str, was: str, now: str) -> bool:
        """Whether the mark `mark` held `was` and became `now` (`_SWAP`)."""
        args: list[str | int] = [was, now, UNREACHED_FOR, CHECKING]
        return bool(await self._swap(keys=[mark], args=args))

    async def reached(self, game: str, person: int) -> None:
        """A player is back in their private chat: the group's notice that they could not be
        reached (`unreached`), if there is one, loses its button and, in the same edit, says
        they are back (not "I cannot write to you", untrue now), and the game's mark that the
        group was told goes: if they block the bot again, the group is told again."""
        group = telegram_id(game)
        if group is None:
            return
        table = await self.service.table(game)
        name = None
        if table is not None:
            await self.client.delete(keys.unreached(game, table.game_id, person))
            name = next((p.name for p in table.game.players if p.id == user_key(person)), None)
        slot = unreached_slot(game, person)
        if await self.slots.buttoned(group, slot) is not None:
            said = None  # the game is gone: the notice keeps its words, as before
            if name is not None:
                t = await self.service.texts(game)
                said = said_of(t, name, _back(t))
            self.queue(button_off(group, slot, said))


def _open_first(t: Texts, button: bool = True) -> str:
    """What a person who never opened a private chat with the bot is told to do to sit
    down; without `button`, as their notice says it once a newer one superseded it and its
    button is gone."""
    if not button:
        return t("To sit down, first open a private chat with me, where your cards will be shown.")
    return t(
        "To sit down, first open a private chat with me, where your cards will be shown: "
        "press the button below, then Start."
    )


def _open_now(t: Texts, seated: bool) -> str:
    """What a notice asking a person to open a private chat with the bot says once they
    have (its button gone): that they have a seat, or how to take one."""
    if seated:
        return t("Our private chat is open, and you have a seat at the table.")
    return t("Our private chat is open: send /join to sit down.")


def _back(t: Texts) -> str:
    """What the notice that a player cannot be reached privately says once they are back
    (its button gone)."""
    return t("I can write to you privately again: your cards are there.")


def open_private(t: Texts) -> str:
    """The words of the button that opens the private chat with the bot."""
    return t("Open the private chat")
