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
back to the private chat; unblocking the bot, or /start there, sends their hand. Those notices
are handled in `adapters.telegram.notices`.

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
from collections.abc import Callable, Hashable
from dataclasses import replace
from typing import Any, cast
from urllib.parse import urlsplit

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    BotCommandScopeDefault,
    CallbackQuery,
    Chat,
    ChatFullInfo,
    ChatMember,
    ChatMemberRestricted,
    ChatMemberUpdated,
    MaybeInaccessibleMessage,
    Message,
    MessageEntity,
    Update,
)
from telegram import User as TgUser
from telegram.error import BadRequest, ChatMigrated, Conflict, NetworkError, TelegramError
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

from adapters.delivered import Delivered
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
)
from adapters.telegram.limiter import CountingLimiter
from adapters.telegram.notices import Notices, open_private
from adapters.telegram.order import ChatOrder
from adapters.telegram.polls import PollRequest
from adapters.telegram.render import (
    Key,
    Post,
    answer_post,
    coalesce,
    cut,
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
from bot.logs import Recurring, about, after
from bot.show.clusters import utf16_units
from bot.show.i18n import Texts, catalog_language, resolve_language, texts
from bot.store import keys
from bot.timers import stop_timer_loop, timer_loop

log = logging.getLogger(__name__)

TgApp = Application[Any, Any, Any, Any, Any, Any]
Context = ContextTypes.DEFAULT_TYPE

PLATFORM = "telegram"
"""This front end's name in the metrics (`platform` label) and readiness."""
ALLOWED_UPDATES = ("message", "callback_query", "my_chat_member")
OUT = ("left", "kicked")
"""The bot's status in a group it is no longer in (removed, or banned)."""
MAX_ANSWER = 200
"""Telegram's limit for a callback answer's text, counted by Telegram's servers in a unit its
documentation does not say: cut to 200 UTF-16 units, which is never more than 200 characters
either (`cut`)."""
MEMBER_STATUSES = frozenset({"creator", "administrator", "member", "restricted"})
UNBLOCKED_FOR = 10
"""Seconds a /start after an unblocking is taken as the Restart button's (`keys.unblocked`)."""
DELIVERY_WAIT = 10.0
"""Seconds a host's private /options waits for its toggles to be delivered before it reads their
lobbies again (`_for_host`)."""


def build_application(
    config: Config, rate_limiter: BaseRateLimiter[Any] | None, polled: Callable[[], None]
) -> TgApp:
    """A PTB Application for the configured token and Bot API server (`telegram.base_url`:
    Telegram's, a self-hosted one, or a test's); `polled` is called after each long poll that
    Telegram answered."""
    token = config.telegram.token
    if not token:
        raise ValueError("no Telegram token configured")
    base = config.telegram.base_url.rstrip("/")
    builder = (
        Application.builder()
        .token(token)
        .base_url(f"{base}/bot")
        .base_file_url(f"{base}/file/bot")
        .get_updates_request(PollRequest(polled))
    )
    if rate_limiter is not None:
        builder = builder.rate_limiter(rate_limiter)
    return builder.concurrent_updates(ChatOrder()).build()


def default_rate_limiter() -> AIORateLimiter:
    """PTB's limiter: 30 requests a second overall, 20 a minute per group, and up to three
    retries when Telegram answers 429 (retry after)."""
    return AIORateLimiter(max_retries=3)


POLL_LATE = 10.0
"""Seconds a polling front end waits beyond `poll_timeout` for Telegram's answer to a long poll
before it counts as not ready (`/readyz`). Telegram answers one at the latest after
`poll_timeout`, with no updates, and the network adds its delay; PTB waits 5 s more than that
(its read timeout for getUpdates) before it gives up on one, and then tries again at once, on a
new connection if it must (5 s more to connect at most), without telling its error callback.
So a working worker is answered well within the margin, and one whose polls hang unanswered (a
dead connection, a proxy that swallows requests) is not ready however often PTB tries."""

CONFLICT_SPAN = 60.0
"""Seconds within which a second 409 Conflict (another process's getUpdates cut this one's
off) makes a polling front end not ready, until this long after the later one. One conflict
alone may be a leftover: a poll of a worker that has just stopped, whose next poll is answered;
two within the span are another process polling with the token, which takes turns with this one
(each answered poll between its conflicts, PTB waiting up to 30 s after a failure and polls
lasting `poll_timeout`), so without the span the worker would count as ready between them."""


def polling_failed(error: TelegramError, failing: Recurring) -> None:
    """A long poll that failed, said in one line (PTB tries again, waiting up to 30 s): another
    process polling with the token is a mistake of the deployment, said with what to do; the
    network or Telegram away is ridden over; anything else is an error, its traceback said once
    while it recurs (`failing`)."""
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
        failing.failed(log, error, "cannot get updates from Telegram; trying again")


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
        self.application = build_application(config, limiter, self._polled)
        self.bot = self.application.bot
        self.client = client
        self.slots = Slots(client)
        self.notices = Notices(service, client, self.slots, self.bot, self._queue)
        """The group notices about a person's private chat with the bot."""
        self.sender = Sender(
            self.bot,
            self.slots,
            self._superseded,
            self.notices.unreachable,
            self._lost,
            self._no_files,
            self.notices.migrated,
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
        self.delivered = Delivered(service, self.outbox, self._shown)
        """Forgets the notes of the coach's reviews once posted (`adapters.delivered`)."""
        self.admins = AdminCache(self._member_status)
        self.links = WebLinks.of(config, service.clock)
        """The web table's addresses, for the hands' "Open the table" buttons (None: none)."""
        self.timer_interval = timer_interval
        self.poll_timeout = poll_timeout
        self._timers: asyncio.Task[None] | None = None
        self._answered_at = -math.inf
        """When Telegram last answered a long poll (monotonic), or polling started."""
        self._poll_failed = False
        """Whether a long poll failed since the last one Telegram answered."""
        self._failing = Recurring()
        """The unexpected errors of long polls, their traceback said once while they recur."""
        self._conflicts = (-math.inf, -math.inf)
        """When the last two long polls ended with 409 Conflict (monotonic), the earlier first."""
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
            self._polled()  # getMe and deleteWebhook were answered: Telegram is reachable
        self._timers = asyncio.create_task(
            timer_loop(self.service, self.show_async, SCOPE, self.timer_interval)
        )
        polling = not settings.webhook_url
        self.service.metrics.ready.report(
            PLATFORM, lambda: updater.running and (not polling or self._polls_answered())
        )

    def _polling_failed(self, error: TelegramError) -> None:
        self._poll_failed = True
        if isinstance(error, Conflict):
            self._conflicts = (self._conflicts[1], time.monotonic())
        polling_failed(error, self._failing)

    def _polled(self) -> None:
        self._answered_at = time.monotonic()
        self._poll_failed = False
        self._failing.worked()

    def _polls_answered(self) -> bool:
        """Whether long polling works: no poll failed since the last one Telegram answered, that
        answer (or the start) is recent enough that the poll after it is not overdue, and no
        other process has been polling with the token (two conflicts within `CONFLICT_SPAN`)."""
        now = time.monotonic()
        late = now - self._answered_at > self.poll_timeout + POLL_LATE
        shared = now - self._conflicts[0] <= CONFLICT_SPAN
        return not (self._poll_failed or late or shared)

    async def stop(self) -> None:
        """Stop taking updates and timers, post what waits (a hint under way is not waited
        for: its asker is told to ask again, `Coach.stop`), disconnect."""
        self.service.metrics.ready.report(PLATFORM, None)
        self.service.coach.stop()
        await stop_timer_loop(self._timers)
        self._timers = None
        updater = self.application.updater
        if updater is not None and updater.running:
            await updater.stop()
        if self.application.running:
            await self.application.stop()
        await self.outbox.close()
        await self.delivered.close()  # the notes of the reviews posted are forgotten
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
    ) -> list["asyncio.Future[object]"]:
        """Queue an outcome's messages for their chats (in order; slots coalesce); `here`: the
        forum topic of the request, for group messages of no game; `asker`: (person, message)
        of a command typed in a group (a file it asked for may go to them: `Post.asker`; the
        chat in whose name it was sent, in place of the person, for an anonymous admin's or a
        channel's). What each one's delivery will be (`Outbox.put`)."""
        return [self._queue(post) for post in posts(chat, outcome, self.links, here, asker)]

    async def _deliver(self, post: Post) -> Delivery:
        """One post (the outbox's), unless it links to the topic of a game that is played
        there no more (`Post.pointing`): the group's posts go in order, so a lobby refused in
        a topic deleted since, ahead of the link, has closed by then (`_lost`). One Redis read,
        for such a link only."""
        if post.pointing is not None:
            table = await self.service.table(chat_key(post.target))
            if table is None or table.where != post.pointing:
                return Delivery.STALE
        return await self.notices.deliver(self.sender, post)

    def _queue(self, post: Post) -> "asyncio.Future[object]":
        """Queue a post for its chat, in the place of its slot's waiting one (`Post.slot`)."""
        return self.outbox.put(post.target, post, key=post.slot)

    async def _shown(self, chat: str, outcome: Outcome) -> list["asyncio.Future[object]"]:
        return self.show(chat, outcome)

    async def show_async(self, chat: str, outcome: Outcome) -> None:
        await self.delivered.show(chat, outcome)

    def _superseded(self, target: int, message_id: int, behind: str | None = None) -> None:
        """An old slot message's buttons come off once the chat has nothing newer to show (in
        the same edit, its text becomes `behind`, if given: `Message.behind`)."""
        strip = strip_post(target, message_id, behind)
        self.outbox.put(target, strip, key=("strip", message_id), low=True)

    async def _lost(self, target: int, topic: int | None, muted: bool) -> None:
        """A post to forum topic `topic` of group `target` was refused, the topic closed or
        deleted: the game played there ends (`GameService.unseen`), its players told privately;
        a game played elsewhere in the group goes on. `topic` None: the bot may post nothing
        in the group (removed, or, `muted`, may post no text: with no update to say so), and
        its game ends, as when an update says so (`on_member`)."""
        game = chat_key(target)
        with about(game):
            where = None if topic is None else str(topic)
            self.show(game, await self.service.unseen(game, where, muted))

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
            rows = ((Key(open_private(t), url=f"https://t.me/{self.bot.username}"),),)
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
        post = Post(
            chat.id, html_text(text), reply_to=reply_to, thread=thread(here), pointing=outcome.where
        )
        self.outbox.put(chat.id, post)

    async def _texts(self, chat: str) -> Texts:
        """The texts of a game chat's language."""
        return await self.service.texts(chat)

    async def _own_texts(self, person: TgUser, chat: str) -> Texts:
        """The texts of what `person` alone reads in `chat` (the answer to their press): their
        app's language where a catalog has it, as the service words its answers to them
        (`Request.alone`); else the chat's."""
        own = catalog_language(person.language_code)
        return texts(own) if own is not None else await self._texts(chat)

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
            if spec.seats and not await self.notices.reachable(chat, person, here, message.id):
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
                chat=_title(sent_as) or sent_as.username or "a channel",
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
            await self._for_host(here, person.id, user, request, str(update.update_id))
            return
        with about(here):
            outcome = await self.service.handle(here, user, request, str(update.update_id))
            self.show(here, outcome)

    async def _for_host(
        self, here: str, person: int, user: User, request: Request, update: str
    ) -> None:
        """A host's command in their private chat `here` (/options): the toggles of each lobby
        they host (`GameService.for_host`), and its answer. Once they are delivered (at most
        `DELIVERY_WAIT` seconds), each lobby is read again, and the toggles edited where it
        moved on meanwhile (`GameService.toggles_now`): a change written while they were on
        their way found no toggles of theirs to edit."""
        asked = await self.service.for_host(here, user, request, update)
        sent: list[asyncio.Future[object]] = []
        for game, outcome in asked:
            with about(game):
                delivered = self.show(game, outcome)
                self.reply(person, outcome, None)
            if outcome.version is not None:  # a lobby's (not why they host none)
                sent += delivered
        if sent:
            await asyncio.wait(sent, timeout=DELIVERY_WAIT)
        for game, outcome in asked:
            with about(game):
                self.show(game, await self.service.toggles_now(game, user.id, outcome.version))

    async def _welcome(self, update: Update, person: TgUser, user: User) -> None:
        """A private /start: how to play, with a button that adds the bot to a group; then,
        for a game this person sits at, their hand and turn as it is now (`_hands`), unless
        they were sent it a moment ago as they unblocked the bot: Telegram's Restart button in
        a blocked chat unblocks it and sends /start, and the hand would come twice. The chat is
        open now: a group's notice that asked them to open it loses its button
        (`Notices.opened`)."""
        t = texts(resolve_language(person.language_code))
        add = Key(t("Add me to a group"), url=f"https://t.me/{self.bot.username}?startgroup=play")
        self.outbox.put(person.id, Post(person.id, html_text(welcome_text(t)), keys=((add,),)))
        await self.notices.opened(person)
        if not await self.client.delete(keys.unblocked(user.id)):  # not sent a moment ago
            await self._hands(update, person.id, user)

    async def _hands(self, update: Update, person: int, user: User) -> None:
        """The person is back in their private chat: for each game it shows a hand of, or their
        live seats name (where they blocked the bot before their first hand came, the chat has
        none), the group's notice that they could not be reached loses its button
        (`Notices.reached`), and their hand and turn as it is now are sent."""
        shown = await self.slots.games(person)
        for game in sorted({*shown, *await self._sitting(user.id)}):
            await self.notices.reached(game, person)
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
        it, so Telegram is asked (`_group`), which also says whether it has topics (a topic
        named for a group without them is not taken). Their notice in the group loses its
        button (`Notices.opened`): the private chat it was to open is open, seated or not (a join
        refused, a full table say, can be asked again in the group). The link of a group that
        has become a supergroup since (a notice left in the old group, `Notices.moved`) leads to
        the supergroup: Telegram names it when asked of the old one. A seat is answered at once,
        without waiting for the group's posts: a topic deleted or closed since the link was given
        refuses them, which closes the table and tells each person seated, this one after this
        answer (`_lost`; Telegram has no call that says whether a topic is there). What it says in
        the private chat is in the person's app language (the join is given there:
        `Request.aside`)."""
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
            t = texts(resolve_language(person.language_code))
            if status not in MEMBER_STATUSES:
                text = t("You can only join a table in a group you belong to.")
                self.outbox.put(person.id, Post(person.id, html_text(text)))
                await self.notices.opened(person)
                return
            user = make_user(
                person.id, person.first_name, person.last_name, False, person.language_code
            )
            found = await self._group(group)
            # The title the chat kept stays where Telegram does not answer, until its next
            # write from the group; a topic is taken only where the group has topics (the
            # payload is typed as easily as a link is followed).
            place = None if found is None else clean(found.title, TITLE_LIMIT) or None
            if found is not None and not found.is_forum:
                where = None
            request = Request(Kind.JOIN, place=place, where=where, aside=True)
            outcome = await self.service.handle(game, user, request, str(update.update_id))
            self.show(game, outcome)
            seated = bool(outcome.answer) and not outcome.alert
            if seated:  # queued at once, before a refused post of the group's can tell more
                text = t(
                    "✅ You have a seat at the table. Your cards will come here, with buttons to "
                    "bid and play, once someone sends /start in the group."
                )
                self.outbox.put(person.id, Post(person.id, html_text(text)))
            elif outcome.answer:
                self.outbox.put(person.id, Post(person.id, html_text(outcome.answer)))
            await self.notices.opened(person, group, seated)

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
            await _answer(query)
            return
        pressed = query.message.message_id  # type: ignore[union-attr]
        traced = None if is_group(where.id) else await self.slots.game_of(where.id, pressed)
        game = traced or chat_key(where.id)
        with about(game):
            spec = of_payload(data)
            joins = spec is not None and spec.seats and is_group(where.id)
            here = _where(query.message) if is_group(where.id) else None
            if joins and not await self.notices.reachable(where, person, here):
                # The answer opens the private chat itself, at its Start button, whose /start
                # seats them (the link of the group's notice, which stays for a client that
                # does not follow it).
                t = await self._own_texts(person, game)
                link = commands.deep_link(self.bot.username, where.id, thread(here))
                opening = t("To sit down, press Start in our private chat, which opens now.")
                await _answer(query, _cut(opening), url=link)
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
            request = Request(Kind.BUTTON, data, place=place, where=here, aside=aside, alone=True)
            outcome = await self.service.handle(game, user, request, str(update.update_id))
            # The answer first: it stops the button's spinner, and the person's chat then shows
            # the press answered before what it changed (in that order, every time).
            await _answer(
                query, _cut(outcome.answer) if outcome.answer else None, show_alert=outcome.alert
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
        """The bot was added to a group: it says what it does and how to start (the help); to a
        channel, nothing (no command is sent there). It was removed from a group, or muted
        there: the game there ends (`GameService.unseen`), its players told privately, since
        nobody could see its table any more. Any change of its rights in a group lets its next
        picture there be tried as one (`Sender.refused_in`). A person blocked or unblocked it
        (its membership of their private chat): `_block_changed`."""
        change, person = update.my_chat_member, update.effective_user
        if change is None or person is None or change.chat.type == Chat.CHANNEL:
            return  # nobody sends a command in a channel: no game, and nothing to say there
        if not is_group(change.chat.id):
            await self._block_changed(update, change, person)
            return
        await self.sender.pictures_again(change.chat.id)  # its rights may allow them now
        was = change.old_chat_member.status
        now = change.new_chat_member.status
        game = chat_key(change.chat.id)
        if _silenced(change.new_chat_member) and not _silenced(change.old_chat_member):
            new = change.new_chat_member  # still in the group, mute: not "removed"
            muted = isinstance(new, ChatMemberRestricted) and new.is_member
            with about(game):
                self.show(game, await self.service.unseen(game, muted=muted))
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
        each table where they are playing a round the group is told at once (`Notices.unreached`),
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
                    await self.notices.unreached(game, person.id)
        elif was in OUT and now not in OUT:
            await self.client.set(keys.unblocked(user.id), b"1", ex=UNBLOCKED_FOR)
            await self._hands(update, person.id, user)

    async def on_migrate(self, update: Update, context: Context) -> None:
        """A group became a supergroup, with a new id (Telegram tells the old group and the new
        one): its game moves to the new id, the players' private hand messages follow it (before
        anything is asked of Telegram), the notices of people yet to open a private chat with
        the bot, or of players it cannot reach there, move (`Notices.moved`), and the
        supergroup shows the lobby or table anew (the old messages stay behind)."""
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
            if players is None and await self.service.table(after) is not None:
                return  # the other message of the move (both arrive) moved it, and moves the rest
            # The hand slots follow the game at once, with no call to Telegram between: a
            # player's return (/start, unblocking) looks at the games their slots name, and
            # would otherwise take a button off in the old group, which refuses every call.
            for player in players or ():
                person = telegram_id(player)
                if person is not None:
                    await self.slots.rename_game(person, before, after)
            await self.notices.moved(old, new)  # in the group's language, moved with it
            if players is None:
                return  # nothing to move, or moved already (both messages arrive)
            log.info("the game of Telegram group %s moved to supergroup %s", old, new)
            self.show(after, await self.service.show_again(after))

    async def on_error(self, update: object, context: Context) -> None:
        """Log the error and, where there is someone to tell, say sorry (or that the store
        cannot be reached, when that was the cause): in their app's language where they alone
        read it (a press's answer, their private chat), else in the chat's."""
        with after(context.error):
            if caused_by_store(context.error):  # Redis is away: said once, no traceback
                log.warning("could not handle a Telegram update: %s", context.error)
            else:
                log.error("error handling a Telegram update", exc_info=context.error)
        if not isinstance(update, Update):
            return
        chat, person = update.effective_chat, update.effective_user
        alone = update.callback_query is not None or (chat is not None and not is_group(chat.id))
        own = catalog_language(person.language_code) if alone and person is not None else None
        sorry = await self.service.apology(chat_key(chat.id if chat else 0), context.error, own=own)
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

    async def _greet(self, group: Chat, person: TgUser, outcome: Outcome) -> None:
        """A person who just sat down is told privately where their cards will come, in their
        app's language as everything else in their private chat (not the group's)."""
        if outcome.alert or not outcome.messages:
            return  # refused, or a redelivery applied before
        t = texts(resolve_language(person.language_code))
        hello = t(
            "🔮 You are sitting down at the table in {group}. Your cards will be shown here.",
            group=_title(group),
        )
        self.outbox.put(person.id, Post(person.id, html_text(hello)))

    async def _group(self, group: int) -> ChatFullInfo | None:
        """The group as Telegram shows it now (one getChat: a deep-link join is rare, one for
        each person the bot could not write to first); None if Telegram does not answer."""
        try:
            chat: ChatFullInfo = await self.bot.get_chat(group)
        except TelegramError as error:
            log.info("getChat %s failed: %s", group, error)
            return None
        return chat

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


async def _answer(query: CallbackQuery, text: str | None = None, **kwargs: Any) -> None:
    """Answer a press. Telegram takes one answer a press, and none for a press the bot got to
    late (some seconds: Redis slow, the machine busy) or one redelivered after it was answered:
    that refusal is let go, and what the press did is still shown (it stopped the handler
    before, the move made and not shown, with an error logged)."""
    try:
        await query.answer(text, **kwargs)
    except BadRequest as error:
        if "query is too old" not in error.message.lower():
            raise
        log.info("a press could not be answered: %s", error)


def _cut(text: str) -> str:
    return cut(text, MAX_ANSWER, utf16_units)


__all__ = ["TelegramFrontEnd", "User", "build_application"]
