"""Making one post on Telegram: send it, or edit the message that shows its slot.

A slot post edits the slot's last message unless it asks to notify, there is none yet, or the
edit fails (the message was deleted, is too old...): then it is sent anew and becomes the slot's
message (one deleted is not edited again to take its buttons off). An edit that changes
nothing ("message is not modified") is no error. Texts are HTML; attachments go as documents
with the text as caption. A slot shows a post's version once Telegram has taken the post (see
`adapters.slots`). A private chat Telegram refuses (403: the person blocked the bot, or never
opened it; or 400 "chat not found") is told to `unreachable`.
A new message refused because its forum topic is closed or deleted (`topic_gone`), or because
the bot may not send text to the group at all (`muted`: its default permissions mute every
member, which Telegram tells the bot nothing of), is told to the app (`lost`): its game may be
unseen. A picture the group's permissions refuse (no photos) goes as its text form instead, in
the same place; the rest of that game's pictures there go as text at once, from every worker
(`keys.no_pictures`).
A file the group refuses (the record asked for with /record) goes to the asker's private chat
instead, and the group is told where it went, or, that chat not open, what would let it come.
"""

import asyncio
import enum
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from functools import partial

from telegram import (
    Bot,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputFile,
    ReplyParameters,
    WebAppInfo,
)
from telegram.constants import ParseMode
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
)

from adapters.telegram.ids import chat_key
from adapters.telegram.render import Key, Post, html_text
from adapters.telegram.slots import Slots
from bot import StoreErrors
from bot.messages import Picture
from bot.store import keys

log = logging.getLogger(__name__)


class Delivery(enum.Enum):
    SENT = "sent"
    EDITED = "edited"
    UNCHANGED = "unchanged"
    FORBIDDEN = "forbidden"
    """The person never opened a private chat with the bot, or blocked it (or their account,
    or its chat, is gone)."""
    FAILED = "failed"
    STALE = "stale"
    """Another worker showed a newer version of the slot already: nothing to post."""


def button(key: Key) -> InlineKeyboardButton:
    if key.web_app is not None:
        return InlineKeyboardButton(key.label, web_app=WebAppInfo(key.web_app))
    if key.url is not None:
        return InlineKeyboardButton(key.label, url=key.url)
    return InlineKeyboardButton(key.label, callback_data=key.data)


def markup(rows: tuple[tuple[Key, ...], ...]) -> InlineKeyboardMarkup | None:
    if not rows:
        return None
    return InlineKeyboardMarkup([[button(key) for key in row] for row in rows])


def retryable(error: BaseException) -> bool:
    """Whether a post that failed with `error` may succeed later: Telegram could not be reached
    or did not answer in time (not a request it refused), it still said "too many requests"
    after the rate limiter's own retries (a slot's newer post replaces it meanwhile), or the
    store was away."""
    if isinstance(error, (RetryAfter, *StoreErrors)):
        return True
    return isinstance(error, NetworkError) and not isinstance(error, BadRequest)


def not_modified(error: BadRequest) -> bool:
    return "not modified" in error.message.lower()


def gone(error: BadRequest) -> bool:
    """Whether an edit was refused because its message is gone (deleted, by an admin say:
    Telegram tells a bot nothing of that)."""
    return "message to edit not found" in error.message.lower()


def refused(error: TelegramError, target: int) -> bool:
    """Whether Telegram will not let the bot write to chat `target`: 403 (blocked, never
    opened, a deactivated account, removed from a group), or a private chat it does not know."""
    if isinstance(error, Forbidden):
        return True
    return (
        target > 0 and isinstance(error, BadRequest) and "chat not found" in error.message.lower()
    )


async def _nobody(_post: Post) -> None:
    return None


TOPIC_GONE = ("topic_closed", "message thread not found")
"""How Telegram refuses a new message to a forum topic that is closed (to a bot that may not
manage topics: 400 "TOPIC_CLOSED") or deleted (400 "message thread not found")."""


def topic_gone(error: TelegramError) -> bool:
    """Whether `error` says the post's forum topic takes no messages from the bot."""
    said = error.message.lower()
    return isinstance(error, BadRequest) and any(reason in said for reason in TOPIC_GONE)


MUTED = ("not enough rights to send text messages", "have no rights to send a message")
"""How Telegram refuses a text message to a group where the bot may send none: 400 "not enough
rights to send text messages to the chat" (muted, by the group's default permissions or its
own), or "have no rights to send a message". A refused photo or document says nothing of
text, which may still be allowed."""


def muted(error: TelegramError, target: int) -> bool:
    """Whether `error` says the bot may post no text in group `target`."""
    said = error.message.lower()
    return target < 0 and isinstance(error, BadRequest) and any(r in said for r in MUTED)


NO_PICTURES = (
    "not enough rights to send photos",
    "chat_send_photos_forbidden",
    "chat_send_media_forbidden",
)
"""How Telegram refuses a photo to a group whose permissions (every member's, or the bot's own)
allow text but no photos: 400 "not enough rights to send photos to the chat", the Bot API's
own check; "CHAT_SEND_PHOTOS_FORBIDDEN" or "CHAT_SEND_MEDIA_FORBIDDEN" passed on from Telegram's
servers when the Bot API's view of the rights was out of date."""

NO_FILES = (
    "not enough rights to send documents",
    "chat_send_docs_forbidden",
    "chat_send_media_forbidden",
)
"""How Telegram refuses a document to a group whose permissions allow the bot no files: 400
"not enough rights to send documents to the chat" (the Bot API's own check), or the refusal
of Telegram's servers passed on ("CHAT_SEND_DOCS_FORBIDDEN", "CHAT_SEND_MEDIA_FORBIDDEN")."""

NO_PICTURES_FOR = 86400
"""Seconds the mark that a group refused a picture in a game is kept (`keys.no_pictures`): a
game is played within it; a longer one tries a picture again once a day."""


def _refused_for(error: TelegramError, words: tuple[str, ...]) -> bool:
    """Whether `error` refuses a post for what it holds (one of `words`), text perhaps still
    allowed. Matched by its words whatever its status: a 403 must not be taken for the bot's
    removal (`refused`)."""
    said = error.message.lower()
    return isinstance(error, (BadRequest, Forbidden)) and any(r in said for r in words)


def pictures_refused(error: TelegramError) -> bool:
    """Whether `error` refuses a photo for what it is (`NO_PICTURES`)."""
    return _refused_for(error, NO_PICTURES)


def files_refused(error: TelegramError) -> bool:
    """Whether `error` refuses a document for what it is (`NO_FILES`)."""
    return _refused_for(error, NO_FILES)


async def _nothing(_chat: int, _topic: int | None, _muted: bool) -> None:
    return None


async def _unsaid(_post: Post, _privately: bool) -> None:
    return None


async def _unmoved(_post: Post, _new: int) -> None:
    return None


class Sender:
    """Delivers posts with `bot`, remembering slot messages in `slots`. When a slot's new
    message supersedes one that may still have buttons, `superseded(chat, message id, text)`
    is told: the app queues a post that takes them off (`Post.strip`), when the chat has time
    for it, and shows the text it was to show once left behind (`Post.behind`), if any.
    A private post Telegram refuses (`refused`) is handed to `unreachable`. When a post is
    refused because its forum topic is closed or gone, `lost(chat, topic, False)` is awaited;
    because the bot may not post text in the group (`muted`), `lost(chat, None, True)`; because
    it may not post there at all (removed from it, or the group deleted, with no update that
    said so), `lost(chat, None, False)`. A picture refused
    for what it is (`pictures_refused`) is sent as its text form instead. A file refused
    for what it is (`files_refused`: a record, which has no text form short enough) goes to
    the private chat of the person who asked for it (`Post.asker`), and `no_files(post,
    privately)` is awaited, with whether it went there: the app tells the group. A post
    refused because its group has become a supergroup is handed to `migrated(post, new id)`."""

    def __init__(
        self,
        bot: Bot,
        slots: Slots,
        superseded: Callable[[int, int, str | None], object] = lambda _c, _m, _t: None,
        unreachable: Callable[[Post], Awaitable[None]] = _nobody,
        lost: Callable[[int, int | None, bool], Awaitable[None]] = _nothing,
        no_files: Callable[[Post, bool], Awaitable[None]] = _unsaid,
        migrated: Callable[[Post, int], Awaitable[None]] = _unmoved,
    ) -> None:
        self.bot = bot
        self.slots = slots
        self.superseded = superseded
        self.unreachable = unreachable
        self.lost = lost
        self.no_files = no_files
        self.migrated = migrated

    async def refused_in(self, chat: int) -> str | None:
        """The game in whose course group `chat` refused a picture (`Post.game_id`, "" for a
        picture of none), if one did lately: that game's later pictures there go as text, with
        no call refused first. In Redis (`keys.no_pictures`, next to the group's other marks),
        so every worker, and one started anew, knows it: one GET a picture."""
        found = await self.slots.client.get(keys.no_pictures(chat_key(chat)))
        if found is None:
            return None
        return found.decode() if isinstance(found, bytes) else str(found)

    async def pictures_again(self, chat: int) -> None:
        """The bot's rights in group `chat` changed (a my_chat_member update): its next
        picture there is tried as a picture, by every worker."""
        await self.slots.client.delete(keys.no_pictures(chat_key(chat)))

    async def __call__(self, post: Post) -> Delivery:
        """Deliver one post. A network failure (Telegram could not be reached, or did not
        answer in time) and a store error are raised: the outbox tries again (`retryable`)."""
        try:
            return await self._deliver(post)
        except TelegramError as error:
            if retryable(error):
                raise
            if isinstance(error, ChatMigrated):  # the group became a supergroup
                log.info("chat %s is now %s: %s", post.target, error.new_chat_id, error)
                await self.migrated(post, error.new_chat_id)
                return Delivery.FAILED
            if refused(error, post.target):
                log.info("chat %s does not take messages from the bot: %s", post.target, error)
                if post.target < 0:  # removed from the group, or it was deleted
                    await self.lost(post.target, None, False)
                else:
                    await self.unreachable(post)
                return Delivery.FORBIDDEN
            log.warning("could not post to chat %s: %s", post.target, error)
            if muted(error, post.target):
                await self.lost(post.target, None, True)
            elif post.thread is not None and topic_gone(error):
                await self.lost(post.target, post.thread, False)
            return Delivery.FAILED

    async def _deliver(self, post: Post) -> Delivery:
        if post.strip is not None:
            return await self._strip(post.target, post.strip, post.behind)
        if post.slot is None or post.version is None:
            return await self._post(post)
        if post.bare and post.again:  # only where buttons may be left: see `SlotMap.unbutton`
            strip = partial(self._strip, post.target, slot=post.slot)
            game, version = post.version
            stripped = await self.slots.unbutton(
                post.target, post.slot, version, strip, post.behind, game
            )
            return Delivery.UNCHANGED if stripped is None else stripped
        delivery = await self.slots.post(
            post.target,
            post.slot,
            post.version,
            post.again,
            partial(self._post, post),
            Delivery.SENT,
            keys=bool(post.keys),
            behind=post.behind,
            only_edit=post.only_edit,
        )
        return Delivery.STALE if delivery is None else delivery

    async def _post(self, post: Post) -> Delivery:
        if post.delete:
            return await self._delete(post)
        if post.bare:  # nothing to do where the slot's message has no buttons (`bared`)
            if post.slot is None:
                return Delivery.UNCHANGED
            message_id = await self.slots.buttoned(post.target, post.slot)
            if message_id is None:
                return Delivery.UNCHANGED
            stripped = await self._strip(post.target, message_id, post.behind, post.slot)
            await self.slots.bared(post.target, post.slot, message_id)
            return stripped
        if post.picture is not None:
            return await self._picture(post, post.picture)
        if post.attachment is not None:
            return await self._document(post, post.attachment)
        if post.slot is not None and not post.notify:
            message_id = await self.slots.get(post.target, post.slot)
            if message_id is not None:
                try:
                    await self.bot.edit_message_text(
                        post.html,
                        chat_id=post.target,
                        message_id=message_id,
                        parse_mode=ParseMode.HTML,
                        reply_markup=markup(post.keys),
                    )
                    return Delivery.EDITED
                except BadRequest as error:
                    if not_modified(error):
                        return Delivery.UNCHANGED
                    log.info("cannot edit message %s in %s: %s", message_id, post.target, error)
                    if gone(error):  # nothing of it to edit again, or take buttons off
                        await self.slots.gone(post.target, post.slot, message_id)
                    if post.only_edit:  # gone (deleted): nothing to edit, and nothing new
                        return Delivery.FAILED
        sent = await self.bot.send_message(
            post.target,
            post.html,
            parse_mode=ParseMode.HTML,
            reply_markup=markup(post.keys),
            reply_parameters=(
                None
                if post.reply_to is None
                else ReplyParameters(post.reply_to, allow_sending_without_reply=True)
            ),
            message_thread_id=post.thread,
            disable_notification=post.quiet,
        )
        return await self._sent(post, sent.message_id)

    async def _delete(self, post: Post) -> Delivery:
        """The slot's message is deleted (`Post.delete`), if it names one: it names none after.
        One Telegram no longer lets the bot delete (gone already, older than 48 hours) is
        forgotten all the same."""
        message_id = None if post.slot is None else await self.slots.get(post.target, post.slot)
        if post.slot is None or message_id is None:
            return Delivery.UNCHANGED
        try:
            await self.bot.delete_message(post.target, message_id)
        except BadRequest as error:
            log.info("cannot delete message %s in %s: %s", message_id, post.target, error)
        await self.slots.gone(post.target, post.slot, message_id)
        return Delivery.EDITED

    async def _sent(self, post: Post, message_id: int) -> Delivery:
        """The post went as message `message_id`: for a slot, its new message (the one before
        loses its buttons)."""
        if post.slot is not None:
            # A post of no version has no release to say what it shows once left behind.
            behind = post.behind if post.version is None and post.keys else None
            old = await self.slots.set(post.target, post.slot, message_id, post.version, behind)
            if post.version is None and not post.keys:  # nor that it has no buttons
                await self.slots.bared(post.target, post.slot, message_id)
            if old is not None:
                self.superseded(post.target, old.message, old.behind)
        return Delivery.SENT

    async def _picture(self, post: Post, picture: Picture) -> Delivery:
        """A picture with the post's text as its caption (a new message, even for a slot);
        the picture's text form instead if it cannot be drawn, or the group takes no pictures
        from the bot (its permissions allow no photos: `pictures_refused`)."""
        if await self.refused_in(post.target) == (post.game_id or ""):
            return await self._as_text(post, picture)
        try:
            data = await asyncio.to_thread(picture.png)
        except Exception:
            log.exception("could not draw %s", picture.name)
            return await self._as_text(post, picture)
        try:
            sent = await self.bot.send_photo(
                post.target,
                InputFile(data, filename=picture.name),
                caption=post.html,
                parse_mode=ParseMode.HTML,
                reply_markup=markup(post.keys),
                message_thread_id=post.thread,
            )
        except TelegramError as error:
            if not pictures_refused(error):
                raise
            log.info("chat %s takes no pictures from the bot, sent as text: %s", post.target, error)
            mark = keys.no_pictures(chat_key(post.target))
            await self.slots.client.set(mark, post.game_id or "", ex=NO_PICTURES_FOR)
            return await self._as_text(post, picture)
        return await self._sent(post, sent.message_id)

    async def _document(self, post: Post, attachment: tuple[str, bytes]) -> Delivery:
        """A file with the post's text as its caption; if the group takes no files from the
        bot (`files_refused`), in the private chat of who asked for it, when there is one
        (`Post.asker`: a person, not a chat in whose name it was asked) and it is open, its
        caption in their language (`Post.aside`), and the group is told (`no_files`)."""
        name, data = attachment

        async def send(chat: int, thread: int | None, caption: str) -> None:
            await self.bot.send_document(
                chat,
                InputFile(data, filename=name),
                caption=caption,
                parse_mode=ParseMode.HTML,
                message_thread_id=thread,
            )

        try:
            await send(post.target, post.thread, post.html)
        except TelegramError as error:
            if post.asker is None or not files_refused(error):
                raise
            log.info("chat %s takes no files from the bot: %s", post.target, error)
        else:
            return Delivery.SENT
        if post.asker < 0:  # asked in a chat's name: nobody's private chat to send it to
            await self.no_files(post, False)
            return Delivery.FAILED
        try:
            await send(post.asker, None, post.aside or post.html)  # their language
        except TelegramError as error:
            if retryable(error):
                raise
            log.info("could not send %s to %s privately: %s", name, post.asker, error)
            await self.no_files(post, False)
            return Delivery.FAILED
        await self.no_files(post, True)
        return Delivery.SENT

    async def _as_text(self, post: Post, picture: Picture) -> Delivery:
        """The post with the picture's text form below its text, as a message of its own."""
        text = html_text(picture.text(), pre=True)
        return await self._post(replace(post, html=f"{post.html}\n\n{text}", picture=None))

    async def _strip(
        self, target: int, message_id: int, behind: str | None = None, slot: str | None = None
    ) -> Delivery:
        """Message `message_id` loses its buttons; with `behind`, in the same edit, its text
        becomes that (`Message.behind`: no line asks for a press it no longer offers). One
        gone (deleted) is no more the message of `slot`, if given (`SlotMap.gone`)."""
        try:
            if behind is None:
                await self.bot.edit_message_reply_markup(
                    chat_id=target, message_id=message_id, reply_markup=None
                )
            else:
                await self.bot.edit_message_text(
                    behind, chat_id=target, message_id=message_id, parse_mode=ParseMode.HTML
                )
        except BadRequest as error:  # no buttons left already, or the message is gone
            log.info("buttons of message %s in %s stay: %s", message_id, target, error)
            if slot is not None and gone(error):
                await self.slots.gone(target, slot, message_id)
            return Delivery.UNCHANGED
        return Delivery.EDITED
