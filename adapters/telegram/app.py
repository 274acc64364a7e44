"""The Telegram front end: PTB handlers that turn updates into requests for the game service and
its outcomes into posts, and the lifecycle (start, stop, the timer loop, command menus).

Handlers only translate: a group command → a `Request`, a button press → `Request(BUTTON,
callback data)`, each with the update's id so a redelivered update applies once; every press is
answered (the outcome's answer as a toast, or an alert for a refusal). What this front end adds
is Telegram's own: a person who never opened a private chat with the bot cannot be sent their
cards, so before seating someone the bot writes to them privately; if Telegram refuses, the
group gets a deep link (`t.me/<bot>?start=join-<group>`) whose /start finishes the join. A
player Telegram stops taking private messages for mid-game (they blocked the bot: Telegram says
so at once, or a message to them is refused) is named in the group once each time, with a link
back to the private chat (`_unreached`); unblocking the bot, or /start there, sends their hand.

In a forum (a supergroup with topics) a game lives in the topic it was opened in: a request
says its topic (`Request.where`, the thread id as a string), the table keeps the one it was
opened in, and every outcome of that game says it back (`Outcome.where`), so its posts go there
whoever caused them (a command, a press, a timer). One game per group, as elsewhere: a command
typed in another topic acts on it, and is answered there with a link to the game's topic, as is
a press there that changed it ("Play again" under an older game's score sheet).
"""

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Hashable
from dataclasses import replace
from typing import Any, cast
from urllib.parse import urlsplit

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    BotCommandScopeDefault,
    Chat,
    ChatMember,
    ChatMemberRestricted,
    ChatMemberUpdated,
    MaybeInaccessibleMessage,
    Message,
    MessageEntity,
    Update,
)
from telegram import User as TgUser
from telegram.constants import ChatAction
from telegram.error import ChatMigrated, Conflict, Forbidden, NetworkError, TelegramError
from telegram.ext import (
    AIORateLimiter,
    Application,
    BaseRateLimiter,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from adapters.flood import Windows
from adapters.outbox import Limits, Outbox
from adapters.running import OneLine
from adapters.telegram import commands
from adapters.telegram.ids import (
    SCOPE,
    AdminCache,
    chat_key,
    is_group,
    make_user,
    telegram_id,
    user_key,
)
from adapters.telegram.limiter import CountingLimiter
from adapters.telegram.order import ChatOrder
from adapters.telegram.render import (
    Key,
    Post,
    answer_post,
    coalesce,
    html_text,
    posts,
    strip_post,
    thread,
)
from adapters.telegram.sender import Delivery, Sender, retryable
from adapters.telegram.slots import Slots
from adapters.text import TITLE_LIMIT, clean
from bot import (
    Config,
    GameService,
    Kind,
    Outcome,
    RedisClient,
    Request,
    User,
    WebLinks,
    caused_by_store,
)
from bot.commands import BY_KIND, Who, of_payload, welcome_text
from bot.logs import about, after
from bot.show.formatters import said_of
from bot.show.i18n import Texts, resolve_language, texts
from bot.store import keys
from bot.timers import stop_timer_loop, timer_loop
from engine import ROUND_PHASES

log = logging.getLogger(__name__)

TgApp = Application[Any, Any, Any, Any, Any, Any]
Context = ContextTypes.DEFAULT_TYPE

PLATFORM = "telegram"
"""This front end's name in the metrics (`platform` label) and readiness."""
ALLOWED_UPDATES = ("message", "callback_query", "my_chat_member")
OUT = ("left", "kicked")
"""The bot's status in a group it is no longer in (removed, or banned)."""
MAX_ANSWER = 200
"""Telegram's limit for a callback answer's text."""
MEMBER_STATUSES = frozenset({"creator", "administrator", "member", "restricted"})
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
UNBLOCKED_FOR = 10
"""Seconds a /start after an unblocking is taken as the Restart button's (`keys.unblocked`)."""


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


def build_application(config: Config, rate_limiter: BaseRateLimiter[Any] | None) -> TgApp:
    """A PTB Application for the configured token and Bot API server (`telegram.base_url`:
    Telegram's, a self-hosted one, or a test's)."""
    token = config.telegram.token
    if not token:
        raise ValueError("no Telegram token configured")
    base = config.telegram.base_url.rstrip("/")
    builder = (
        Application.builder().token(token).base_url(f"{base}/bot").base_file_url(f"{base}/file/bot")
    )
    if rate_limiter is not None:
        builder = builder.rate_limiter(rate_limiter)
    return builder.concurrent_updates(ChatOrder()).build()


def default_rate_limiter() -> AIORateLimiter:
    """PTB's limiter: 30 requests a second overall, 20 a minute per group, and up to three
    retries when Telegram answers 429 (retry after)."""
    return AIORateLimiter(max_retries=3)


POLL_FAILED_FOR = 35.0
"""Seconds after a failed long poll that the front end counts as not ready (`/readyz`): PTB
tries again at most 30 s later, so a front end that cannot poll stays not ready."""


def polling_failed(error: TelegramError) -> None:
    """A long poll that failed, said in one line (PTB tries again, waiting up to 30 s): another
    process polling with the token is a mistake of the deployment, said with what to do; the
    network or Telegram away is ridden over."""
    if isinstance(error, Conflict):
        log.error(
            "Telegram gives this bot's updates to another process (%s): run one polling worker "
            "per bot token, or set telegram.webhook_url on every worker "
            '(docs/operations.md, "Scaling out")',
            error,
        )
    elif isinstance(error, NetworkError):
        log.warning(
            "cannot get updates from Telegram (%s: %s); trying again", type(error).__name__, error
        )
    else:
        log.error("cannot get updates from Telegram; trying again", exc_info=error)


# PTB's own records of a network error (the last getUpdates on the way out, which it makes
# whatever the network's state): one warning line, not an error with a traceback.
logging.getLogger("telegram.ext.Updater").addFilter(OneLine(NetworkError))


class TelegramFrontEnd:
    """One worker's Telegram front end for `service`; start() and stop() it in a running loop."""

    def __init__(
        self,
        config: Config,
        service: GameService,
        client: RedisClient,
        *,
        limits: Limits = Limits(),  # noqa: B008 - frozen
        rate_limiter: BaseRateLimiter[Any] | None = None,
        timer_interval: float = 1.0,
        poll_timeout: int = 10,
    ) -> None:
        self.config = config
        self.service = service
        metrics = service.metrics
        limited = metrics.rate_limited.labels(PLATFORM)
        limiter = CountingLimiter(rate_limiter or default_rate_limiter(), limited)
        self.application = build_application(config, limiter)
        self.bot = self.application.bot
        self.client = client
        self.slots = Slots(client)
        self.sender = Sender(
            self.bot, self.slots, self._superseded, self._unreachable, self._lost, self._no_files
        )
        self.outbox: Outbox[Post] = Outbox(
            self._deliver,
            limits,
            coalesce,
            windows=Windows(client),
            chat_of=_window_of,
            retry=retryable,
            posting=metrics.posting(PLATFORM, (delivery.value for delivery in Delivery)),
        )
        self.admins = AdminCache(self._member_status)
        self.links = WebLinks.of(config, service.clock)
        """The web table's addresses, for the hands' "Open the table" buttons (None: none)."""
        self.timer_interval = timer_interval
        self.poll_timeout = poll_timeout
        self._timers: asyncio.Task[None] | None = None
        self._poll_failed_at = -math.inf
        """When a long poll last failed (monotonic): not ready for `POLL_FAILED_FOR` after."""
        self._register()

    # --- lifecycle ------------------------------------------------------------------------------

    def _register(self) -> None:
        app = self.application
        groups = filters.ChatType.GROUPS & filters.UpdateType.MESSAGE
        private = filters.ChatType.PRIVATE & filters.UpdateType.MESSAGE
        app.add_handler(CommandHandler(list(commands.GROUP_COMMANDS), self.on_group, groups))
        app.add_handler(MessageHandler(filters.COMMAND & private, self.on_private))
        app.add_handler(MessageHandler(filters.COMMAND & groups, self.on_other_command))
        app.add_handler(CallbackQueryHandler(self.on_button))
        app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, self.on_migrate))
        app.add_handler(ChatMemberHandler(self.on_member, ChatMemberHandler.MY_CHAT_MEMBER))
        app.add_error_handler(self.on_error)

    async def start(self) -> None:
        """Connect (getMe), set the command menus, and take updates: by webhook when
        `telegram.webhook_url` is configured, else by long polling; start the timer loop."""
        await self.application.initialize()
        await self.set_menus()
        await self.application.start()
        updater = self.application.updater
        assert updater is not None
        settings = self.config.telegram
        if settings.webhook_url:
            host, _, port = settings.listen.rpartition(":")
            await updater.start_webhook(
                listen=host.strip("[]"),
                port=int(port),
                url_path=urlsplit(settings.webhook_url).path.lstrip("/"),
                webhook_url=settings.webhook_url,
                secret_token=settings.webhook_secret,
                allowed_updates=ALLOWED_UPDATES,
            )
        else:
            await updater.start_polling(
                timeout=self.poll_timeout,
                allowed_updates=ALLOWED_UPDATES,
                error_callback=self._polling_failed,
            )
        self._timers = asyncio.create_task(
            timer_loop(self.service, self.show_async, SCOPE, self.timer_interval)
        )
        self.service.metrics.ready.report(
            PLATFORM,
            lambda: updater.running and time.monotonic() - self._poll_failed_at > POLL_FAILED_FOR,
        )

    def _polling_failed(self, error: TelegramError) -> None:
        self._poll_failed_at = time.monotonic()
        polling_failed(error)

    async def stop(self) -> None:
        """Stop taking updates and timers, post what waits, disconnect."""
        self.service.metrics.ready.report(PLATFORM, None)
        await stop_timer_loop(self._timers)
        self._timers = None
        updater = self.application.updater
        if updater is not None and updater.running:
            await updater.stop()
        if self.application.running:
            await self.application.stop()
        await self.outbox.close()
        await self.application.shutdown()

    async def set_menus(self) -> None:
        """The command menus: the game's commands in groups, those that work anywhere (/help,
        /rules, /stats, /forgetme) in private chats, in each
        language (Telegram picks by the person's app language; the default is the bot's)."""
        group = BotCommandScopeAllGroupChats()
        private = BotCommandScopeAllPrivateChats()
        calls: list[tuple[list[BotCommand], Any, str | None]] = []
        for language in (None, *commands.MENU_LANGUAGES):
            items = commands.menu(language or self.config.language)
            calls.append(([BotCommand(n, d) for n, d in items], group, language))
            anywhere = [BotCommand(n, d) for n, d in items if n in commands.PRIVATE_MENU]
            calls.append((anywhere, private, language))
        calls.append(([], BotCommandScopeDefault(), None))
        for entries, scope, language in calls:
            try:
                await self.bot.set_my_commands(entries, scope=scope, language_code=language)
            except TelegramError as error:
                log.warning("could not set the command menu (%s): %s", language, error)

    # --- showing outcomes -----------------------------------------------------------------------

    def show(
        self,
        chat: str,
        outcome: Outcome,
        here: str | None = None,
        asker: tuple[int, int] | None = None,
    ) -> None:
        """Queue an outcome's messages for their chats (in order; slots coalesce); `here`: the
        forum topic of the request, for group messages of no game; `asker`: (person, message)
        of a command typed in a group (a file it asked for may go to them: `Post.asker`; the
        chat in whose name it was sent, in place of the person, for an anonymous admin's or a
        channel's)."""
        for post in posts(chat, outcome, self.links, here, asker):
            self.outbox.put(post.target, post, key=post.slot)

    async def show_async(self, chat: str, outcome: Outcome) -> None:
        self.show(chat, outcome)

    def _superseded(self, target: int, message_id: int, behind: str | None = None) -> None:
        """An old slot message's buttons come off once the chat has nothing newer to show (in
        the same edit, its text becomes `behind`, if given: `Message.behind`)."""
        strip = strip_post(target, message_id, behind)
        self.outbox.put(target, strip, key=("strip", message_id), low=True)

    async def _lost(self, target: int, topic: int | None) -> None:
        """A post to forum topic `topic` of group `target` was refused, the topic closed or
        deleted: the game played there ends (`GameService.unseen`), its players told privately;
        a game played elsewhere in the group goes on. `topic` None: the bot may post no text
        in the group (muted, with no update to say so): its game ends, as when the bot is
        muted there by an update (`on_member`)."""
        game = chat_key(target)
        with about(game):
            where = None if topic is None else str(topic)
            self.show(game, await self.service.unseen(game, where))

    async def _no_files(self, post: Post, privately: bool) -> None:
        """Group `post.target` refused a file (the record) that `post.asker` asked for: they
        are told, in reply to their command, that it went to their private chat (`privately`),
        or else that the group takes no files from the bot, with what would let it come: an
        admin allowing files, or their private chat opened (a button) and the command asked
        again, which then sends it there. Asked in a chat's name (`post.asker` a chat: an
        anonymous admin, a channel), no private chat can take it: the command asked again as
        themselves."""
        t = await self._texts(chat_key(post.target))
        rows: tuple[tuple[Key, ...], ...] = ()
        if post.asker is not None and post.asker < 0:
            text = t(
                "This group does not let me send files, so I cannot send the record here. An "
                "admin can allow files for me in the group's permissions. Or send /record as "
                "yourself, not anonymously or as a channel, and I will send it to you privately."
            )
        elif privately:
            text = t(
                "This group does not let me send files, so I sent you the record in our "
                "private chat."
            )
        else:
            text = t(
                "This group does not let me send files, so I cannot send the record here. An "
                "admin can allow files for me in the group's permissions. Or open a private "
                "chat with me and ask again: I will send it there."
            )
            rows = ((Key(self._open_private(t), url=f"https://t.me/{self.bot.username}"),),)
        notice = Post(
            post.target, html_text(text), keys=rows, reply_to=post.reply_to, thread=post.thread
        )
        self.outbox.put(post.target, notice)

    def reply(
        self, target: int, outcome: Outcome, reply_to: int | None, here: str | None = None
    ) -> None:
        post = answer_post(target, outcome, reply_to, thread(here))
        if post is not None:
            self.outbox.put(target, post)

    async def _point(self, chat: Chat, outcome: Outcome, here: str | None, reply_to: int) -> None:
        """A command typed, or a button pressed, in another forum topic than its game's, which
        showed the game something (there), is answered where it was given with a link to the
        game's topic, replying to the command or to the message pressed. (A press's own answer,
        a toast, can carry no link to a topic: Telegram opens only links to the bot from it.)"""
        topic = thread(outcome.where)
        shown = any(message.to is None for message in outcome.messages)
        if outcome.version is None or outcome.where == here or not shown:
            return
        t = await self._texts(chat_key(chat.id))
        text = t("This group's game is played in another topic: {link}", link=_link(chat, topic))
        post = Post(chat.id, html_text(text), reply_to=reply_to, thread=thread(here))
        self.outbox.put(chat.id, post)

    async def _texts(self, chat: str) -> Texts:
        """The texts of a game chat's language."""
        return await self.service.texts(chat)

    # --- handlers -------------------------------------------------------------------------------

    async def on_group(self, update: Update, context: Context) -> None:
        """A command in a group."""
        message, chat, person = _parts(update)
        if message is None or chat is None or person is None:
            return
        request = commands.group_request(commands.command_name(message.text), context.args or [])
        if request is None:
            return
        here = _where(message)
        spec = BY_KIND[request.kind]
        whom = _pointed(message, typed=bool(request.arg)) if spec.pick else None
        request = replace(request, place=_title(chat), where=here, whom=whom)
        game = chat_key(chat.id)
        with about(game):
            sent_as = message.sender_chat
            if sent_as is not None and spec.for_its_giver(request.arg, whom is not None):
                await self._nobody_behind(chat, sent_as, message, here)
                return
            if spec.seats and not await self._reachable(chat, person, here, message.id):
                return
            admin = spec.who is Who.HOST and await self.admins.is_admin(chat.id, person.id)
            user = make_user(
                person.id, person.first_name, person.last_name, admin, person.language_code
            )
            outcome = await self.service.handle(game, user, request, str(update.update_id))
            # Sent in a chat's name (an anonymous admin's, a channel's: `_pointed`), the command
            # has no person behind it to send a file to privately: the chat stands as the asker.
            sender = message.sender_chat.id if message.sender_chat is not None else person.id
            self.show(game, outcome, here, (sender, message.id))
            await self._point(chat, outcome, here, message.id)
            if spec.seats:
                await self._greet(chat, person, outcome)
            if spec.move and outcome.ruled:  # it may tell of the hand or the bids
                self.reply(person.id, outcome, None)
            else:
                self.reply(chat.id, outcome, message.id, here)

    async def _nobody_behind(
        self, chat: Chat, sent_as: Chat, message: Message, here: str | None
    ) -> None:
        """A command that acts for the one who gives it, sent in a chat's name (an anonymous
        admin's, from the stand-in @GroupAnonymousBot; a channel's): nobody is behind it to
        seat, to take for the host, or to tell of their stats. The reply says so and what to
        do; nothing else is done (no seat for the stand-in, no notice asking it to open a
        private chat)."""
        t = await self._texts(chat_key(chat.id))
        command = "/" + commands.command_name(message.text)
        if sent_as.id == chat.id:
            text = t(
                "You are writing anonymously, as the group, so I cannot tell who you are. "
                "Send {command} as yourself (turn off “Remain anonymous” for a moment).",
                command=command,
            )
        else:
            text = t(
                "You are writing as {chat}, so I cannot tell who you are. "
                "Send {command} as yourself.",
                chat=sent_as.title or sent_as.username or "a channel",
                command=command,
            )
        self.reply(chat.id, Outcome(answer=text, alert=True), message.id, here)

    async def on_other_command(self, update: Update, context: Context) -> None:
        """A command in a group that is none of ours (those go to `on_group`): a slip of the
        finger on one of ours (`/jion`) gets "Did you mean /join?"; anything else, most likely
        another bot's, is left alone."""
        message, chat = update.effective_message, update.effective_chat
        if message is None or chat is None:
            return
        to = commands.addressee(message.text)
        if to and to != (self.bot.username or "").lower():
            return
        near = commands.near_command(commands.command_name(message.text))
        if near is None:
            return
        t = await self._texts(chat_key(chat.id))
        text = t("Did you mean /{command}?", command=near)
        post = Post(chat.id, html_text(text), reply_to=message.id, thread=thread(_where(message)))
        self.outbox.put(chat.id, post)

    async def on_private(self, update: Update, context: Context) -> None:
        """A command in a private chat: /start join-<group> finishes a join; the commands that
        work anywhere (/help, /rules) answer; anything else gets the help."""
        message, chat, person = _parts(update)
        if message is None or chat is None or person is None:
            return
        args = (message.text or "").split()[1:]  # a MessageHandler gets no context.args
        name = commands.command_name(message.text)
        join = commands.parse_join_payload(args[0]) if name == "start" and args else None
        if join is not None:
            await self._join_from_link(update, *join, person)
            return
        here = chat_key(chat.id)
        user = make_user(
            person.id, person.first_name, person.last_name, False, person.language_code
        )
        if name == "start":
            await self._welcome(update, person, user)
            return
        request = commands.private_request(name, args)
        if BY_KIND[request.kind].hosted:  # /options: the lobbies they host, shown here
            for game, outcome in await self.service.for_host(
                here, user, request, str(update.update_id)
            ):
                with about(game):
                    self.show(game, outcome)
                    self.reply(person.id, outcome, None)
            return
        with about(here):
            outcome = await self.service.handle(here, user, request, str(update.update_id))
            self.show(here, outcome)

    async def _welcome(self, update: Update, person: TgUser, user: User) -> None:
        """A private /start: how to play, with a button that adds the bot to a group; then,
        for a game this person sits at, their hand and turn as it is now (`_hands`), unless
        they were sent it a moment ago as they unblocked the bot: Telegram's Restart button in
        a blocked chat unblocks it and sends /start, and the hand would come twice. The chat is
        open now: a group's notice that asked them to open it loses its button (`_opened`)."""
        t = texts(resolve_language(person.language_code))
        add = Key(t("Add me to a group"), url=f"https://t.me/{self.bot.username}?startgroup=play")
        self.outbox.put(person.id, Post(person.id, html_text(welcome_text(t)), keys=((add,),)))
        await self._opened(person)
        if not await self.client.delete(keys.unblocked(user.id)):  # not sent a moment ago
            await self._hands(update, person.id, user)

    async def _hands(self, update: Update, person: int, user: User) -> None:
        """The person is back in their private chat: for each game it shows a hand of, or their
        live seats name (where they blocked the bot before their first hand came, the chat has
        none), the group's notice that they could not be reached loses its button
        (`_reached`), and their hand and turn as it is now are sent."""
        shown = await self.slots.games(person)
        for game in sorted({*shown, *await self._sitting(user.id)}):
            await self._reached(game, person)
            request = Request(Kind.HAND)
            with about(game):
                outcome = await self.service.handle(
                    game, user, request, f"{update.update_id}:{game}"
                )
                if outcome.messages:
                    self.show(game, outcome)

    async def _join_from_link(
        self, update: Update, group: int, where: str | None, person: TgUser
    ) -> None:
        """`/start join-<group>[_<topic>]`: a seat at the group's table (one it opens is played
        in that topic), for a member of the group. The join keeps the group's title, as a join
        in the group does (`Request.place`): the update is of the private chat and does not say
        it, so Telegram is asked (`_group_title`). Their notice in the group loses its button
        (`_opened`): the private chat it was to open is open, seated or not (a join refused, a
        full table say, can be asked again in the group). The link of a group that has become
        a supergroup since (a notice left in the old group, `_notices_moved`) leads to the
        supergroup: Telegram names it when asked of the old one."""
        try:
            status = str((await self.bot.get_chat_member(group, person.id)).status)
        except ChatMigrated as moved:
            group = moved.new_chat_id
            status = await self._member_status(group, person.id)
        except TelegramError as error:
            log.info("getChatMember %s %s failed: %s", group, person.id, error)
            status = ""
        game = chat_key(group)
        with about(game):
            t = await self._texts(game)
            if status not in MEMBER_STATUSES:
                text = t("You can only join a table in a group you belong to.")
                self.outbox.put(person.id, Post(person.id, html_text(text)))
                await self._opened(person)
                return
            user = make_user(
                person.id, person.first_name, person.last_name, False, person.language_code
            )
            place = await self._group_title(group)
            request = Request(Kind.JOIN, place=place, where=where)
            outcome = await self.service.handle(game, user, request, str(update.update_id))
            self.show(game, outcome)
            seated = bool(outcome.answer) and not outcome.alert
            await self._opened(person, group, seated)
            if seated:
                text = t(
                    "✅ You have a seat at the table. Your cards will come here, with buttons to "
                    "bid and play, once someone sends /start in the group."
                )
                self.outbox.put(person.id, Post(person.id, html_text(text)))
            elif outcome.answer:
                self.outbox.put(person.id, Post(person.id, html_text(outcome.answer)))

    async def on_button(self, update: Update, context: Context) -> None:
        """A button press: the callback data is the service's payload. The game is the group
        the message is in, or, for a private message, the game whose slot it shows (a hand
        message whose record a crash lost is adopted: `_adopt`)."""
        query, person = update.callback_query, update.effective_user
        if query is None or person is None:
            return
        data = query.data or ""
        where = query.message.chat if query.message is not None else None
        if where is None:
            await query.answer()
            return
        pressed = query.message.message_id  # type: ignore[union-attr]
        traced = None if is_group(where.id) else await self.slots.game_of(where.id, pressed)
        game = traced or chat_key(where.id)
        with about(game):
            spec = of_payload(data)
            joins = spec is not None and spec.seats and is_group(where.id)
            here = _where(query.message) if is_group(where.id) else None
            if joins and not await self._reachable(where, person, here):
                # The answer opens the private chat itself, at its Start button, whose /start
                # seats them (the link of the group's notice, which stays for a client that
                # does not follow it).
                t = await self._texts(game)
                link = commands.deep_link(self.bot.username, where.id, thread(here))
                opening = t("To sit down, press Start in our private chat, which opens now.")
                await query.answer(_cut(opening), url=link)
                return
            admin = (
                spec is not None
                and spec.who is Who.HOST
                and is_group(where.id)
                and await self.admins.is_admin(where.id, person.id)
            )
            user = make_user(
                person.id, person.first_name, person.last_name, admin, person.language_code
            )
            place = _title(where) if is_group(where.id) else None
            aside = not is_group(where.id)
            request = Request(Kind.BUTTON, data, place=place, where=here, aside=aside)
            outcome = await self.service.handle(game, user, request, str(update.update_id))
            # The answer first: it stops the button's spinner, and the person's chat then shows
            # the press answered before what it changed (in that order, every time).
            await query.answer(
                _cut(outcome.answer) if outcome.answer else None, show_alert=outcome.alert
            )
            if traced is not None:
                await self._adopt(where.id, traced, user, pressed)
            self.show(game, outcome, here)
            if is_group(where.id):
                await self._point(where, outcome, here, pressed)
            if joins:
                await self._greet(where, person, outcome)

    async def _adopt(self, where: int, game: str, user: User, message_id: int) -> None:
        """A press in a private chat on a hand message newer than the one the slot map names (a
        crash lost its record, see `adapters.slots`): it is the hand's message again, the one
        named before loses its buttons, and it shows the hand as it is now, in place, so the
        newest message is the live one. With Redis away, the next press tries again."""
        found = await self.slots.adopt_hand(where, game, user.id, message_id, self.service.current)
        if found is None:
            return
        adopted, hand = found
        if adopted.replaced is not None:
            self._superseded(where, adopted.replaced)
        self.show(game, hand)

    async def on_member(self, update: Update, context: Context) -> None:
        """The bot was added to a group: it says what it does and how to start (the help).
        It was removed from one, or muted there: the game there ends (`GameService.unseen`),
        its players told privately, since nobody could see its table any more. Any change of
        its rights in a group lets its next picture there be tried as one (`Sender.no_pictures`).
        A person blocked or unblocked it (its membership of their private chat):
        `_block_changed`."""
        change, person = update.my_chat_member, update.effective_user
        if change is None or person is None:
            return
        if not is_group(change.chat.id):
            await self._block_changed(update, change, person)
            return
        self.sender.pictures_again(change.chat.id)  # its rights there may allow them now
        was = change.old_chat_member.status
        now = change.new_chat_member.status
        game = chat_key(change.chat.id)
        if _silenced(change.new_chat_member) and not _silenced(change.old_chat_member):
            with about(game):
                self.show(game, await self.service.unseen(game))
            return
        if was not in OUT or now not in ("member", "administrator"):
            return
        user = make_user(
            person.id, person.first_name, person.last_name, False, person.language_code
        )
        with about(game):
            outcome = await self.service.handle(game, user, Request(Kind.HELP))
            self.show(game, outcome)

    async def _block_changed(
        self, update: Update, change: ChatMemberUpdated, person: TgUser
    ) -> None:
        """A person blocked the bot (the bot's membership of their private chat: kicked): at
        each table where they are playing a round the group is told at once (`_unreached`),
        not at the next message of theirs that fails, which can be minutes away. They unblocked
        it (back to member), with Start pressed or not: they are back (`_hands`)."""
        was = change.old_chat_member.status
        now = change.new_chat_member.status
        user = make_user(
            person.id, person.first_name, person.last_name, False, person.language_code
        )
        if now in OUT and was not in OUT:
            for game in await self._sitting(user.id):
                with about(game):
                    await self._unreached(game, person.id)
        elif was in OUT and now not in OUT:
            await self.client.set(keys.unblocked(user.id), b"1", ex=UNBLOCKED_FOR)
            await self._hands(update, person.id, user)

    async def on_migrate(self, update: Update, context: Context) -> None:
        """A group became a supergroup, with a new id (Telegram tells the old group and the new
        one): its game moves to the new id, the players' private hand messages follow it, and
        the supergroup shows the lobby or table anew (the old messages stay behind), and the
        notices of people yet to open a private chat with the bot, or of players it cannot
        reach there (`_notices_moved`)."""
        message = update.effective_message
        if message is None:
            return
        if message.migrate_to_chat_id:
            old, new = message.chat.id, message.migrate_to_chat_id
        elif message.migrate_from_chat_id:
            old, new = message.migrate_from_chat_id, message.chat.id
        else:
            return
        before, after = chat_key(old), chat_key(new)
        with about(after):
            players = await self.service.move_chat(before, after)
            await self._notices_moved(old, new)  # in the group's language, moved with it
            if players is None:
                return  # nothing to move, or moved already (both messages arrive)
            for player in players:
                person = telegram_id(player)
                if person is not None:
                    await self.slots.rename_game(person, before, after)
            log.info("the game of Telegram group %s moved to supergroup %s", old, new)
            self.show(after, await self.service.show_again(after))

    async def on_error(self, update: object, context: Context) -> None:
        """Log the error and, where there is someone to tell, say sorry (or that the store
        cannot be reached, when that was the cause)."""
        with after(context.error):
            if caused_by_store(context.error):  # Redis is away: said once, no traceback
                log.warning("could not handle a Telegram update: %s", context.error)
            else:
                log.error("error handling a Telegram update", exc_info=context.error)
        if not isinstance(update, Update):
            return
        chat = update.effective_chat
        sorry = await self.service.apology(chat_key(chat.id if chat else 0), context.error)
        with contextlib.suppress(TelegramError):
            if update.callback_query is not None:
                await update.callback_query.answer(_cut(sorry), show_alert=True)
            elif chat is not None and update.effective_message is not None:
                message = update.effective_message
                topic = thread(_where(message))
                post = Post(chat.id, html_text(sorry), reply_to=message.id, thread=topic)
                self.outbox.put(chat.id, post)

    # --- private chats --------------------------------------------------------------------------

    async def _sitting(self, player: str) -> list[str]:
        """The Telegram groups where `player` (`User.id`) has a live seat now."""
        seated = await self.service.seated(player)
        return [game for game in seated if is_group(telegram_id(game) or 0)]

    async def _reachable(
        self, group: Chat, person: TgUser, here: str | None, typed: int | None = None
    ) -> bool:
        """Whether the person can be written to privately (asked with a chat action, which
        leaves nothing in their chat: the hello follows only once they are seated, `_greet`).
        If Telegram refuses (they never opened the chat, or blocked the bot), the group gets a
        deep link instead, in a notice of their own slot (`OPEN_SLOT`): a command (`typed`,
        its message) gets a new one in reply, and the one before loses its button; a press
        whose person has a notice with a live button already has it edited to what it says
        (which changes nothing, "message is not modified") and posted anew only if that finds
        it gone (an admin deleted it: Telegram tells the bot nothing of that). Another error
        does not keep them from their seat."""
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
        an edit of the one before (`_reachable`). The group is noted in their index
        (`keys.opening`)."""
        game = chat_key(group)
        slot = open_slot(game, person.id)
        t = await self._texts(game)
        user = make_user(person.id, person.first_name, person.last_name, False)
        link = commands.deep_link(self.bot.username, group, thread(here))
        post = Post(
            group,
            html_text(said_of(t, user.name, self._open_first(t))),
            keys=((Key(self._open_private(t), url=link),),),
            reply_to=typed,
            thread=thread(here),
            slot=slot,
            notify=not there,  # a new message, next to what asked; the last loses its button
            behind=html_text(said_of(t, user.name, self._open_first(t, button=False))),
            opens=user,
        )
        index = keys.opening(user_key(person.id))
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.sadd(index, str(group))
            pipe.expire(index, OPENING_FOR)
            await pipe.execute()
        self.outbox.put(group, post, key=slot)

    async def _notices_moved(self, old: int, new: int) -> None:
        """Group `old` became the supergroup `new`, and the old group takes no more calls: a
        notice there asking someone to open a private chat with the bot can never lose its
        button. Each one that still has it is shown anew in the supergroup, in the order they
        were posted, if it is still true: a newcomer's (`open_slot`) whose index still names
        the old group, with a link to the supergroup's table (the index names the supergroup
        then); a player's who cannot be reached (`unreached_slot`) whose game's mark that the
        group was told is still set (`_unreached` sets it for the supergroup's game, and asks
        Telegram first whether they still cannot be reached: they may have come back as the
        game moved, and their return found neither mark nor notice). Their /start then takes
        the button off the new one, with no call to the old group. Both of Telegram's messages
        of the move come here; the index's SREM, or the old mark's DEL, lets one of them post
        each notice."""
        before = chat_key(old)
        live = []
        for prefix in (open_slot(before, None), unreached_slot(before, None)):
            for slot in await self.slots.named(old, prefix):
                message = await self.slots.buttoned(old, slot)
                if message is not None:
                    live.append((message, prefix, int(slot.removeprefix(prefix))))
        table = await self.service.table(chat_key(new))
        for _, prefix, person in sorted(live):  # in the order they were posted
            if prefix == unreached_slot(before, None):
                if table is not None:
                    told = keys.unreached(before, table.game_id, person)
                    if await self.client.delete(told):  # not back, nor moved by the other
                        await self._unreached(chat_key(new), person, table.game_id)
                continue
            if not await self.client.srem(keys.opening(user_key(person)), str(old)):
                continue  # opened since, or shown anew by the other message of the move
            try:
                member = await self.bot.get_chat_member(new, person)
            except TelegramError as error:
                log.info("getChatMember %s %s failed: %s", new, person, error)
                continue
            await self._ask_to_open(new, member.user, None, None, False)

    async def _opened(
        self, person: TgUser, linked: int | None = None, seated: bool = False
    ) -> None:
        """The person's private chat is open: they sent /start there, through the link of a
        notice of group `linked` (which `seated` them, or not) or typed. Each group's notice
        that asked them to open it (`_reachable`: the groups are in `keys.opening`) loses its
        button, if it is still there, and in the same edit says that the chat is open, and
        whether they have a seat, not "press the button below". One Redis call when there is
        none; the group's own moves cost nothing of it. The index goes before the notices are
        looked at: one still on its way finds its group gone from it (`_deliver`) or is found
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
                t = await self._texts(game)
                said = said_of(t, name, self._open_now(t, seated and group == linked))
                self.outbox.put(group, button_off(group, slot, said), key=slot)

    async def _deliver(self, post: Post) -> Delivery:
        """One post (`Sender`). A notice asking a person to open a private chat with the bot
        (`Post.opens`) that they opened while it waited in the group's queue, or was on its
        way (their /start, or unblocking the bot, found no message yet to take the button
        off), is looked at as it goes (`_still_asks`). A newcomer's (their /start took the
        group out of their index, `_opened`) goes as it reads once they have: no button, and
        whether they have a seat there or how to take one. A player's who could not be
        reached (`Post.told`: their /start took the mark off, `_reached`) does not go: the
        group was never told they could not be reached. One that went as they opened the
        chat loses its button after it, and says what is true then (`_now_open`). Two Redis
        reads a notice, on this path only."""
        person = post.opens
        if person is None:
            return await self.sender(post)
        if not await self._still_asks(post, person):
            if post.told is not None:
                return Delivery.UNCHANGED
            said = await self._now_open(post, person)
            return await self.sender(replace(post, html=html_text(said), keys=(), behind=None))
        delivery = await self.sender(post)
        if delivery is not Delivery.SENT or post.slot is None:
            return delivery
        if not await self._still_asks(post, person):  # opened as it went
            said = await self._now_open(post, person)
            self.outbox.put(post.target, button_off(post.target, post.slot, said), key=post.slot)
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
        t = await self._texts(game)
        if post.told is not None:
            return said_of(t, person.name, self._back(t))
        seated = game in await self.service.seated(person.id)
        return said_of(t, person.name, self._open_now(t, seated))

    async def _unreachable(self, failed: Post) -> None:
        """Telegram refused a game's private message to its player (they blocked the bot, or
        their account or chat is gone): the group is told (`_unreached`). The Redis calls
        happen on a failure only."""
        if failed.game is None or failed.version is None:
            return
        await self._unreached(failed.game, failed.target, failed.version[0])

    async def _unreached(self, game: str, person: int, game_id: str | None = None) -> None:
        """The player `person` of `game` cannot be reached privately (a message to them was
        refused, or they blocked the bot). The first time while a round is played, the group is
        told in a new message, naming them with a mention (which notifies) and a link back to
        the private chat, where /start shows their hand again; nothing of the hand. One SET NX
        shared by the workers (`keys.unreached`) makes later failures say nothing, until they
        are back (/start, or unblocking the bot) and the mark comes off (`_reached`): once per
        time they block the bot, not once per game. `game_id`: the game a refused message was
        of (a message of an older game tells nothing), or whose notice moved with its group
        (`_notices_moved`), checked as a refusal is. A refusal may come back after they are
        back (its answer slow, or its handling): it would tell the group something untrue, and
        set the mark again, which would then keep the group from being told when they block
        the bot for real. So, the mark set, a refusal is checked with a chat action (one call,
        once per time they block the bot): if Telegram takes it, the mark goes and nothing is
        said. A block (Telegram's update) is told as it comes."""
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
        if not await self.client.set(mark, b"1", nx=True, ex=UNREACHED_FOR):
            return
        if game_id is not None and await self._writes(person):  # back since it was refused
            await self.client.delete(mark)
            return
        t = await self._texts(game)
        text = t(
            "I cannot write to you privately, where your cards are shown: press the button "
            "below, then Start."
        )
        link = commands.cards_link(self.bot.username)
        notice = Post(
            group,
            html_text(said_of(t, name, text), mentions=((player, name),)),
            keys=((Key(self._open_private(t), url=link),),),
            slot=unreached_slot(game, person),
            notify=True,  # a new message (a mention in an edit notifies nobody)
            thread=thread(table.where),
            opens=User(player, name),
            told=mark,  # true while it is set: it goes off as they come back (`_deliver`)
        )
        self.outbox.put(group, notice, key=notice.slot)

    async def _reached(self, game: str, person: int) -> None:
        """A player is back in their private chat: the group's notice that they could not be
        reached (`_unreached`), if there is one, loses its button and, in the same edit, says
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
                t = await self._texts(game)
                said = said_of(t, name, self._back(t))
            self.outbox.put(group, button_off(group, slot, said), key=slot)

    async def _greet(self, group: Chat, person: TgUser, outcome: Outcome) -> None:
        """A person who just sat down is told privately where their cards will come."""
        if outcome.alert or not outcome.messages:
            return  # refused, or a redelivery applied before
        t = await self._texts(chat_key(group.id))
        hello = t(
            "🔮 You are sitting down at the table in {group}. Your cards will be shown here.",
            group=_title(group),
        )
        self.outbox.put(person.id, Post(person.id, html_text(hello)))

    @staticmethod
    def _open_first(t: Texts, button: bool = True) -> str:
        """What a person who never opened a private chat with the bot is told to do to sit
        down; without `button`, as their notice says it once a newer one superseded it and its
        button is gone."""
        if not button:
            return t(
                "To sit down, first open a private chat with me, where your cards will be shown."
            )
        return t(
            "To sit down, first open a private chat with me, where your cards will be shown: "
            "press the button below, then Start."
        )

    @staticmethod
    def _open_now(t: Texts, seated: bool) -> str:
        """What a notice asking a person to open a private chat with the bot says once they
        have (its button gone): that they have a seat, or how to take one."""
        if seated:
            return t("Our private chat is open, and you have a seat at the table.")
        return t("Our private chat is open: send /join to sit down.")

    @staticmethod
    def _back(t: Texts) -> str:
        """What the notice that a player cannot be reached privately says once they are back
        (its button gone)."""
        return t("I can write to you privately again: your cards are there.")

    @staticmethod
    def _open_private(t: Texts) -> str:
        return t("Open the private chat")

    async def _group_title(self, group: int) -> str | None:
        """The group's title as Telegram shows it now, made safe (one getChat: a deep-link join
        is rare, one for each person the bot could not write to first); None if Telegram does
        not answer, and the title the chat kept stays until its next write from the group."""
        try:
            chat = await self.bot.get_chat(group)
        except TelegramError as error:
            log.info("getChat %s failed: %s", group, error)
            return None
        return clean(chat.title, TITLE_LIMIT) or None

    async def _member_status(self, chat_id: int, user_id: int) -> str:
        try:
            member = await self.bot.get_chat_member(chat_id, user_id)
        except TelegramError as error:
            log.info("getChatMember %s %s failed: %s", chat_id, user_id, error)
            return ""
        return str(member.status)


def _silenced(member: ChatMember) -> bool:
    """Whether the bot, as this member of a group, can post nothing there: it is out (left,
    kicked), or restricted without the right to send messages (muted)."""
    if isinstance(member, ChatMemberRestricted):
        return not (member.is_member and member.can_send_messages)
    return member.status in OUT


def _title(chat: Chat) -> str:
    """A group's title as it is shown in a message (made safe: `adapters.text.clean`)."""
    return clean(chat.title, TITLE_LIMIT)


def _where(message: MaybeInaccessibleMessage | None) -> str | None:
    """The forum topic a message is in, as this front end names it (`Request.where`: the
    thread id as a string); None outside topics (a reply thread in a group is no topic)."""
    if isinstance(message, Message) and message.is_topic_message and message.message_thread_id:
        return str(message.message_thread_id)
    return None


def _pointed(message: Message, typed: bool) -> User | None:
    """The person a command points at: the first person it mentions by a text mention (a
    mention of someone without a username, which carries them), else, with nothing typed after
    the command, the author of the message it replies to. Not a bot (this one included), nor
    the stand-in Telegram sends an anonymous admin's or a channel's message from (they have a
    `sender_chat`), nor the opener of a forum topic (every message in a topic that replies to
    nothing else is sent as a reply to the topic's first message)."""
    for entity in message.entities:
        person = entity.user
        if entity.type == MessageEntity.TEXT_MENTION and person is not None and not person.is_bot:
            return make_user(person.id, person.first_name, person.last_name, False)
    replied = message.reply_to_message
    if typed or replied is None or replied.forum_topic_created is not None:
        return None
    person = replied.from_user
    if person is None or person.is_bot or replied.sender_chat is not None:
        return None
    return make_user(person.id, person.first_name, person.last_name, False)


def _link(chat: Chat, topic: int | None) -> str:
    """A link to a forum topic of `chat` (to the chat, for General): by the group's public
    name, else the `t.me/c/` form members can open."""
    if chat.username:
        base = f"https://t.me/{chat.username}"
    else:
        base = f"https://t.me/c/{str(chat.id).removeprefix('-100')}"
    return base if topic is None else f"{base}/{topic}"


def _window_of(target: Hashable) -> str:
    """The shared flood window of an outbox target (a Telegram chat id)."""
    return chat_key(cast(int, target))


def _parts(update: Update) -> tuple[Message | None, Chat | None, TgUser | None]:
    return update.effective_message, update.effective_chat, update.effective_user


def _cut(text: str) -> str:
    return text if len(text) <= MAX_ANSWER else text[: MAX_ANSWER - 1] + "…"


__all__ = ["TelegramFrontEnd", "User", "build_application"]
