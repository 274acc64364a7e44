"""Making one post on Telegram: send it, or edit the message that shows its slot.

A slot post edits the slot's last message unless it asks to notify, there is none yet, or the
edit fails (the message was deleted, is too old...): then it is sent anew and becomes the slot's
message. An edit that changes nothing ("message is not modified") is no error. Texts are HTML;
attachments go as documents with the text as caption. A slot shows a post's version once
Telegram has taken the post (see `adapters.slots`).
"""

import enum
import logging
from functools import partial

from telegram import (
    Bot,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputFile,
    ReplyParameters,
)
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, NetworkError, TelegramError

from adapters.telegram.render import Key, Post
from adapters.telegram.slots import Slots
from bot import StoreErrors

log = logging.getLogger(__name__)


class Delivery(enum.Enum):
    SENT = "sent"
    EDITED = "edited"
    UNCHANGED = "unchanged"
    FORBIDDEN = "forbidden"
    """The person never opened a private chat with the bot, or blocked it."""
    FAILED = "failed"
    STALE = "stale"
    """Another worker showed a newer version of the slot already: nothing to post."""


def markup(rows: tuple[tuple[Key, ...], ...]) -> InlineKeyboardMarkup | None:
    if not rows:
        return None
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(key.label, url=key.url)
                if key.url is not None
                else InlineKeyboardButton(key.label, callback_data=key.data)
                for key in row
            ]
            for row in rows
        ]
    )


def retryable(error: BaseException) -> bool:
    """Whether a post that failed with `error` may succeed later: Telegram could not be reached
    or did not answer in time (not a request it refused), or the store was away."""
    if isinstance(error, StoreErrors):
        return True
    return isinstance(error, NetworkError) and not isinstance(error, BadRequest)


def not_modified(error: BadRequest) -> bool:
    return "not modified" in error.message.lower()


class Sender:
    """Delivers posts with `bot`, remembering slot messages in `slots`."""

    def __init__(self, bot: Bot, slots: Slots) -> None:
        self.bot = bot
        self.slots = slots

    async def __call__(self, post: Post) -> Delivery:
        """Deliver one post. A network failure (Telegram could not be reached, or did not
        answer in time) and a store error are raised: the outbox tries again (`retryable`)."""
        try:
            return await self._deliver(post)
        except Forbidden:
            log.info("chat %s does not take messages from the bot", post.target)
            return Delivery.FORBIDDEN
        except TelegramError as error:
            if retryable(error):
                raise
            log.warning("could not post to chat %s: %s", post.target, error)
            return Delivery.FAILED

    async def _deliver(self, post: Post) -> Delivery:
        if post.slot is None or post.version is None:
            return await self._post(post)
        delivery = await self.slots.post(
            post.target,
            post.slot,
            post.version,
            post.again,
            partial(self._post, post),
            Delivery.SENT,
        )
        return Delivery.STALE if delivery is None else delivery

    async def _post(self, post: Post) -> Delivery:
        if post.attachment is not None:
            name, data = post.attachment
            await self.bot.send_document(
                post.target,
                InputFile(data, filename=name),
                caption=post.html,
                parse_mode=ParseMode.HTML,
            )
            return Delivery.SENT
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
        )
        if post.slot is not None:
            await self.slots.set(post.target, post.slot, sent.message_id, post.version)
        return Delivery.SENT
