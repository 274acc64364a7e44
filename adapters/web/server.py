"""The web table's HTTP server (aiohttp): the page, and its API over the `GameService`.

- `GET /` and `/static/…`: the page (plain HTML, CSS and JavaScript modules, no build step);
- `GET /api/view`: the player's own view as JSON (`adapters.web.view`); asked for with a Mini
  App's `initData`, with a signed link of the game too (`link`), which the page uses from then
  on (`initData` is good for `web.init_data_ttl` only);
- `POST /api/move` `{"payload": …}`: the button press the payload is, through
  `GameService.handle` exactly as a chat button's; answers the service's answer, the
  player's own private messages it made (a hint) and the view. For a chat whose front end
  runs in another worker, the press is handed to that worker (`adapters.relay`) and answered
  once it took it (202, most often at once): the page sees the move in its event stream; one
  no worker took within `LIVE` (the reader that made the relay live was killed) is taken back
  and applied here, and so is one the worker that took it died holding, once no worker of
  the chat's front end reads the relay (`WebTable._watch`). A link's page whose player sits
  at the table Play again opened after its game is given a fresh link for it (`link`);
- `GET /api/relayed?entry=…&update=…`: what became of a move handed over (its 202's ids), asked
  by a page that has not seen it made: the chat worker's refusal, if it refused it, or that it
  was not made; "pending" while a worker holds it, and the page asks again;
- `GET /api/events`: server-sent events, a `view` event with the view each time the game's
  version changes (any worker's write: the store publishes it, `keys.versions`), the event id
  being the version; a client that reconnects gets the view at once; `gone` when the table is
  no longer the credential's (with the fresh link, as above, when there is one).

Every request proves whom it is for (`adapters.web.auth`): `Authorization: Bearer <link
token>` or `Authorization: tma <initData>`, or the query's `link` or `tma` (an `EventSource`
cannot send headers). 401: nobody proven; 403: a person who may not see that table; 429: too
many requests for one credential.
"""

import asyncio
import collections
import contextlib
import functools
import html
import json
import logging
import re
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis
from aiohttp import web
from redis.asyncio.client import PubSub

from adapters.health import parse_listen, serve_app
from adapters.relay import CLAIM, LIVE, MAX_AGE, TOO_LATE, apply_relayed
from adapters.running import Shows
from adapters.web import auth
from adapters.web.auth import AuthError, RateLimit, Viewer
from adapters.web.view import player_json, seat_of, words
from bot import (
    Config,
    GameService,
    Kind,
    Outcome,
    RedisClient,
    Request,
    StoreErrors,
    User,
    tokens,
)
from bot.clock import ServerClock, keeping
from bot.messages import Message
from bot.service import STORE_AWAY
from bot.show.i18n import DEFAULT_LANGUAGE, N_, Texts, catalog_language, texts
from bot.show.look import look_of, personal
from bot.stats import Rerated
from bot.store import keys, presence
from bot.store.relay import Relay, Relayed, dated
from bot.table import Table
from bot.tokens import Action, TokenError
from engine import Phase

log = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
POLL = 2.0
"""Seconds an open event stream reads the version anyway, should a published one be missed
(a Redis Cluster, where pages are told by this alone, reads every `CLUSTER_POLL`)."""
CLUSTER_POLL = 0.25
REVIEWS = 1.0
"""Seconds between looks for the coach's reviews of rounds the pages' moves ended (this table's
service runs no tick to hand them over)."""
RESUBSCRIBE = (1.0, 60.0)
"""Seconds before the first new try of a failed subscription, and the most between tries (each
wait twice the last): a Redis down for an hour is a few dozen tries, not 3,600."""
KEEPALIVE = 15.0
"""Seconds between comments on an idle event stream (proxies close silent connections)."""
MAX_BODY = 4096
MAX_STREAMS = 8
"""Event streams one person may hold open at one chat's table on this worker (a few tabs and
devices); one more is refused (429) until one ends: each holds a connection and reads the
store, and the rate limit alone let one link open five more every second, for ever."""
TAKEN = (0.01, 0.2)
"""Seconds between looks whether a consumer took a move handed over, at first and at most (each
wait twice the last): a consumer waiting in its read is given it as it is added, so the first
look, right after, most often finds it taken."""
ANSWERED = 4.0
"""Seconds `/api/relayed` waits at most for a move handed over to be acknowledged (applied or
refused) before it answers that the move is still pending (and the page asks again)."""
LATE = MAX_AGE + CLAIM
"""Seconds after it was handed over that a move still held unacknowledged is pending no more:
whoever takes it over now drops it as too old (`MAX_AGE`)."""
ENTRY = re.compile(r"\d{1,20}-\d{1,20}")
UPDATE = re.compile(r"web[0-9a-f]{16}")
"""A relay entry's id, and a relayed move's update id, as `/api/relayed` is asked them."""
WATCH = 1.0
"""Seconds between looks whether a move a consumer took is still held by it unacknowledged with
no worker of its scope reading the relay any more (it died holding it, and none is left to take
it over): the web worker then takes it over and applies it itself (`WebTable._watch`)."""
PAGE_HEADERS = {
    "Cache-Control": "no-cache",
    "Content-Security-Policy": "default-src 'self'; script-src 'self' https://telegram.org; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
"""The page's own scripts (and Telegram's, in a Mini App) only; the link in its address is
not sent on to anyone."""

UNREACHABLE_STORE = N_("the game store cannot be reached")
NOT_MADE = N_("Your move was not made: look at the table.")
"""What the page says of a move handed over that was not made and whose refusal was not noted
(Redis refused the note): the reason is not known, the table shows where the game is."""
NOT_A_MOVE = N_("not a move")
OTHER_GAME = N_("the move is for another game")
PRESSED = {NOT_A_MOVE: tokens.NOT_OURS, OTHER_GAME: tokens.GAME_OVER}
"""A move's own refusals, said as the chat answers a press of such a button: the table is
shown all the same (the page does not say it cannot be)."""
NO_LINK = frozenset({"no credentials", "no link token"})
"""Reasons that mean the page was opened without its link (not with a bad one)."""


def browser_language(header: str) -> str:
    """The first language of an `Accept-Language` header with a catalog (by its weights), else
    the default one."""
    ranked = []
    for index, part in enumerate(header.split(",")):
        code, _, parameters = part.strip().partition(";")
        weight = 1.0
        name, _, value = parameters.strip().partition("=")
        if name.strip() == "q":
            try:
                weight = float(value)
            except ValueError:
                weight = 0.0
        language = catalog_language(code)
        if language is not None and weight > 0:
            ranked.append((-weight, index, language))
    return min(ranked)[2] if ranked else DEFAULT_LANGUAGE


def refusal(t: Texts, reason: str) -> str:
    """What the page says when it cannot show the table, in the language of `t`; while Redis
    is away, what the chat says then (the page goes on once it is back: nothing to open anew);
    of a move refused by itself, what the chat says of such a press (`PRESSED`)."""
    if reason == UNREACHABLE_STORE:
        return t(STORE_AWAY)
    if reason in PRESSED:
        return t(PRESSED[reason])
    if reason in NO_LINK:
        return t("Open the table from the game's chat: this page needs its link.")
    return t(
        # TRANSLATORS: {reason} is one of the web table's refusals ("the link token has
        # expired", "not seated at this game", …), translated, in lower case
        "The table cannot be shown: {reason}. Open it again from the game's chat.",
        reason=t(reason),
    )


async def _caching(request: web.Request, response: web.StreamResponse) -> None:
    """Every answer is read as the type it says it is; the page's files are asked again each
    time (an upgrade's table.js is not kept stale: an unchanged one is a 304), and no answer
    of the API is stored (each is a player's own view, and its query may hold a credential)."""
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    if request.path.startswith("/static/"):
        response.headers.setdefault("Cache-Control", "no-cache")
    elif request.path.startswith("/api/"):
        response.headers.setdefault("Cache-Control", "no-store")


def _refused(request: web.Request, status: int, reason: str, language: str | None) -> web.Response:
    """An error answer: the reason (as the API says it) and the page's sentence for it, in the
    chat's language when it is known, else the browser's."""
    t = texts(language or browser_language(request.headers.get("Accept-Language", "")))
    return web.json_response({"error": reason, "message": refusal(t, reason)}, status=status)


class Watcher:
    """One Redis pub/sub connection of the server, subscribed to the version channel of each
    chat some open page watches; wakes the pages of a chat when a write publishes to it."""

    def __init__(self, client: RedisClient) -> None:
        self.client = client
        self._pubsub: PubSub | None = None
        self._waiting: dict[str, set[asyncio.Event]] = {}
        self._subscribed: set[str] = set()
        """The chats whose channel the connection subscribed: a chat whose subscription failed
        is not, and its next stream tries again."""
        self._lock = asyncio.Lock()
        self._reader: asyncio.Task[None] | None = None

    @property
    def live(self) -> bool:
        """Whether writes are heard (not on a Redis Cluster, where pages poll instead)."""
        return isinstance(self.client, aioredis.Redis)

    @contextlib.asynccontextmanager
    async def watching(self, chat: str) -> AsyncIterator[asyncio.Event]:
        """An event set each time `chat`'s game is written, while the context lasts."""
        event = asyncio.Event()
        waiting = self._waiting.setdefault(chat, set())
        waiting.add(event)
        try:
            if self.live and chat not in self._subscribed:
                await self._subscribe(chat)
            yield event
        finally:
            waiting.discard(event)
            if not waiting:
                self._waiting.pop(chat, None)
                if self.live:
                    with contextlib.suppress(*StoreErrors):
                        await self._unsubscribe(chat)

    async def _subscribe(self, chat: str) -> None:
        async with self._lock:
            if chat in self._subscribed:  # by another stream of the chat, while this one waited
                return
            if self._pubsub is None:
                assert isinstance(self.client, aioredis.Redis)
                self._pubsub = self.client.pubsub()
            await self._pubsub.subscribe(keys.versions(chat))
            self._subscribed.add(chat)
            if self._reader is None or self._reader.done():
                self._reader = asyncio.create_task(self._read())

    async def _unsubscribe(self, chat: str) -> None:
        async with self._lock:
            if self._pubsub is not None and chat not in self._waiting:
                self._subscribed.discard(chat)
                await self._pubsub.unsubscribe(keys.versions(chat))

    async def _read(self) -> None:
        """Wake the watchers of each chat a message names, until closed. While the connection
        is down it tries again less and less often (`RESUBSCRIBE`), and says so once when it
        drops and once when it is back."""
        pubsub = self._pubsub
        assert pubsub is not None
        wait = 0.0
        while True:
            try:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the connection dropped: pages poll meanwhile
                if not wait:
                    log.warning("the web table's subscription failed (pages poll): %s", error)
                first, most = RESUBSCRIBE
                wait = min(2 * wait or first, most)
                await asyncio.sleep(wait)
                continue
            if wait:
                log.info("the web table's subscription is back")
                wait = 0.0
            if not message or message.get("type") != "message":
                continue
            channel = message["channel"]
            name = channel.decode() if isinstance(channel, bytes) else str(channel)
            chat = name.removeprefix("wiz:{").removesuffix("}:ver")
            for event in self._waiting.get(chat, ()):
                event.set()

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        if self._pubsub is not None:
            with contextlib.suppress(*StoreErrors):
                await self._pubsub.aclose()  # type: ignore[no-untyped-call, unused-ignore]  # typed from redis 8.2


class WebTable:
    """The web table over `service`; `client` is the Redis whose writes it hears."""

    def __init__(
        self,
        service: GameService,
        config: Config,
        client: RedisClient,
        clock: Callable[[], float] | None = None,
        limit: RateLimit | None = None,
        deliver: Shows | None = None,
        relay: Relay | None = None,
        handover: float = LIVE,
        answered: float = ANSWERED,
    ) -> None:
        self.service = service
        service.reviewed_elsewhere = True  # it runs no tick: the chats' workers post them
        self.config = config
        self.clock = clock if clock is not None else service.clock
        """The time it goes by: its service's (the Redis server's, read at its start), by which
        the deadlines the page counts down to are set and the other workers read its beats."""
        self.secret = auth.link_secret(config)
        self.limit = limit or RateLimit()
        self.watcher = Watcher(client)
        self.client = client
        self.deliver = deliver
        """The chat front ends of this process: each shows what a move from the page shows
        in its chats."""
        self.relay = relay
        """Where a move for a chat whose front end runs elsewhere is handed to it (None: it is
        applied here, and the chat shows it at its next update)."""
        self.handover = handover
        """Seconds a move handed over waits for a consumer to take it before it is taken back
        and applied here (the reader that made the relay look live may have died)."""
        self.answered = answered
        """Seconds `/api/relayed` waits for a move handed over to be acknowledged before it
        answers that it is still pending."""
        self.poll = POLL if self.watcher.live else CLUSTER_POLL
        self._runner: web.AppRunner | None = None
        self._streams: set[asyncio.Task[object]] = set()
        """The requests for an event stream being answered (from their first step)."""
        self._stopping = False
        """Whether `stop` has begun: a stream asked for then ends at once."""
        self._open: collections.Counter[tuple[str, str]] = collections.Counter()
        """The event streams open of each chat and person (`MAX_STREAMS`)."""
        self._reviews: asyncio.Task[None] | None = None
        self._beating: asyncio.Task[None] | None = None
        self._timing: asyncio.Task[None] | None = None
        self._watches: set[asyncio.Task[None]] = set()
        self.port: int | None = None

    def link(self, chat: str, player: str, game: str, until: float | None = None) -> str:
        """A signed token for `player`'s page at `game` of `chat`, valid for `web.link_ttl`,
        and no later than `until` (the credential it is made for: `Viewer.until`)."""
        expires = self.clock() + self.config.web.link_ttl
        if until is not None:
            expires = min(expires, until)
        return auth.sign_link(self.secret, chat, player, game, expires)

    def app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY, middlewares=[self._errors])
        app.router.add_get("/", self.page)
        app.router.add_get("/api/view", self.view)
        app.router.add_post("/api/move", self.move)
        app.router.add_get("/api/relayed", self.relayed)
        app.router.add_get("/api/events", self.events)
        app.router.add_static("/static/", STATIC)
        app.on_response_prepare.append(_caching)
        app.on_startup.append(self._startup)
        app.on_cleanup.append(self._cleanup)
        return app

    async def _startup(self, app: web.Application) -> None:
        # Seen as running by a restore, in beats no chat worker reads (`bot.store.presence`),
        # from before it serves.
        worker = self.service.worker
        with contextlib.suppress(*StoreErrors):
            await self.service.keep_time()  # the deadlines its moves set go by Redis's clock
            await presence.beat(self.client, presence.WEB, worker, self.clock())
        # Its beat is its one write a second: a refused one is logged, as a chat worker's
        # timer loop's beat is (`GameService.wrote`); readiness asks Redis itself.
        beating = presence.beating(
            self.client, presence.WEB, worker, self.clock, told=self.service.wrote
        )
        self._beating = asyncio.create_task(beating)
        self._timing = asyncio.create_task(self._keep_time())
        if self.deliver is not None:
            self._reviews = asyncio.create_task(self._hand_reviews(self.deliver))

    async def _cleanup(self, app: web.Application) -> None:
        for task in (self._reviews, self._beating, self._timing):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._reviews = self._beating = self._timing = None
        for watch in list(self._watches):
            watch.cancel()
        await asyncio.gather(*self._watches, return_exceptions=True)
        await self.watcher.close()

    async def _keep_time(self) -> None:
        """Read the Redis server's clock again and again (`bot.clock.keeping`): each second
        until it is read (Redis away when the worker started: till then it goes by its own),
        then each minute. The chat workers sign the pages' links by that clock and read it at
        each beat; this worker checks the links, and sets deadlines, by it too."""
        clock = self.service.clock
        if isinstance(clock, ServerClock):  # else a clock of its own (a test's): nothing to read
            await keeping(clock, self.service.store.server_time)

    async def _hand_reviews(self, deliver: Shows) -> None:
        """At a coach table, a round a page's move ended is reviewed by a worker of the chat's
        front end: this table's service, which runs no tick, notes the review for it
        (`GameService.reviewed_elsewhere`). One Redis would not note is worked out here in the
        background: once a second those go to the chat's front end here, which posts them
        privately (those of a chat whose front end runs elsewhere are not shown)."""
        while True:
            await asyncio.sleep(REVIEWS)
            for scope in deliver.scopes():
                for chat, outcome in await self.service.reviews(scope):
                    try:
                        await deliver(chat, outcome)
                    except Exception:
                        log.exception("%s: a review could not be shown", chat)

    async def start(self, listen: str) -> None:
        """Listen at `listen` (host:port); ValueError for no host:port, OSError for an address
        that cannot be listened on."""
        host, port = parse_listen(listen)
        self._runner, self.port = await serve_app(self.app(), host, port)
        log.info("the web table at http://%s:%s/", host, self.port)

    async def stop(self) -> None:
        """Stop serving. Open event streams end now, not at their next write, and so do those
        still being set up (their pages reconnect, to another worker or to this one once it is
        back); a stream asked for meanwhile (a page reconnecting at once) ends as it begins. Else
        the server's shutdown would wait for such a stream, for a minute, before it ends it."""
        self._stopping = True
        self.service.coach.stop()  # a hint under way: its page is told to ask again
        for task in list(self._streams):
            task.cancel()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # --- who asks ---------------------------------------------------------------------------

    @web.middleware
    async def _errors(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        try:
            return await handler(request)
        except AuthError as error:
            return _refused(request, error.status, error.reason, error.language)
        except StoreErrors:
            return _refused(request, 503, UNREACHABLE_STORE, None)

    def viewer(self, request: web.Request) -> Viewer:
        """Whom `request` is proven to come from (AuthError 401 if nobody); rate-limited."""
        header = request.headers.get("Authorization", "")
        scheme, _, value = header.partition(" ")
        query = request.query
        now = self.clock()
        if scheme.lower() == "bearer" or (not header and "link" in query):
            viewer = auth.check_link(self.secret, value if header else query["link"], now)
        elif scheme.lower() == "tma" or (not header and "tma" in query):
            token = self.config.telegram.token
            if not token:
                raise auth.unauthorized(N_("this bot has no Telegram Mini App"))
            fields = auth.check_init_data(
                value if header else query["tma"], token, now, self.config.web.init_data_ttl
            )
            viewer = auth.telegram_viewer(fields, query.get("chat"))
            # its link is worth no more than one signed when the app was opened: a captured
            # initData, good for `init_data_ttl`, never makes a link good for longer
            opened = int(fields["auth_date"])
            viewer = replace(viewer, until=opened + self.config.web.link_ttl)
        else:
            raise auth.unauthorized(N_("no credentials"))
        if not self.limit.allow(viewer.key):
            raise AuthError(429, N_("too many requests"))
        return viewer

    async def seated(self, viewer: Viewer) -> tuple[int, Table, Any]:
        """The chat's version, table and settings, if `viewer` may see it (else 403)."""
        version, table, settings = await self.service.snapshot(viewer.chat)
        look = look_of(settings)
        if table is None:
            raise auth.forbidden(N_("no game in this chat"), look.t.language)
        language = personal(look, table.languages, viewer.player).t.language
        if viewer.game is not None and viewer.game != table.game_id:
            raise auth.forbidden(N_("the link is for another game"), language)
        if seat_of(table, viewer.player) is None:
            raise auth.forbidden(N_("not seated at this game"), language)
        return version, table, settings

    async def followed(self, viewer: Viewer) -> tuple[Viewer, str | None]:
        """Where a page goes after Play again: for a link whose game is over, when its player
        sits at the table opened after it, a viewer of that table and a fresh link for it;
        else `viewer` as it is and None."""
        if viewer.game is None:  # a Mini App's initData: the chat's current game already
            return viewer, None
        _, table, _ = await self.service.snapshot(viewer.chat)
        if table is None or table.after != viewer.game or seat_of(table, viewer.player) is None:
            return viewer, None
        link = self.link(viewer.chat, viewer.player, table.game_id, viewer.until)
        return replace(viewer, game=table.game_id, key=link), link

    async def _after(self, viewer: Viewer, action: Action) -> tuple[Viewer, str | None]:
        """`followed` after a Play again (the only move that opens another table); any other
        move leaves `viewer` as it is, with no read."""
        return await self.followed(viewer) if action is Action.AGAIN else (viewer, None)

    async def _ratings(self, chat: str, table: Table) -> tuple[Rerated, ...]:
        """How the table's game moved its seats' ratings, once it is over and the chat's stats
        folded it (whichever worker did: it is stored with them); else none."""
        if table.game.phase is not Phase.FINISHED:
            return ()
        return await self.service.stats.noted(chat, table.game_id)

    async def _json(
        self, viewer: Viewer, version: int, table: Table, settings: Any
    ) -> dict[str, Any]:
        ratings = await self._ratings(viewer.chat, table)
        return player_json(table, settings, viewer.player, version, self.clock(), ratings)

    # --- the routes -------------------------------------------------------------------------

    async def page(self, request: web.Request) -> web.StreamResponse:
        language = browser_language(request.headers.get("Accept-Language", ""))
        headers = {**PAGE_HEADERS, "Content-Language": language, "Vary": "Accept-Language"}
        return web.Response(text=page_html(language), content_type="text/html", headers=headers)

    async def view(self, request: web.Request) -> web.Response:
        viewer = self.viewer(request)
        version, table, settings = await self.seated(viewer)
        data = await self._json(viewer, version, table, settings)
        if viewer.game is None:
            # a Mini App's initData is good for `init_data_ttl` from the app's opening, and a
            # game may last longer: the page goes on with a link of this game, as a link's does
            data["link"] = self.link(viewer.chat, viewer.player, table.game_id, viewer.until)
        return web.json_response(data)

    async def move(self, request: web.Request) -> web.Response:
        viewer = self.viewer(request)
        try:
            body = await request.json()
            payload = body["payload"]
            token = tokens.decode(payload)
        except web.HTTPRequestEntityTooLarge:  # over MAX_BODY: no button's payload is so long
            return _refused(request, 413, NOT_A_MOVE, None)
        except (ValueError, KeyError, TypeError, TokenError, RecursionError):  # nested deep
            return _refused(request, 400, NOT_A_MOVE, None)
        seen = await self.seated(viewer)
        _, table, settings = seen
        if token.game != table.game_id:
            language = personal(look_of(settings), table.languages, viewer.player).t.language
            raise auth.forbidden(OTHER_GAME, language)
        seat = seat_of(table, viewer.player)
        assert seat is not None
        user = User(viewer.player, table.game.players[seat].name, language=viewer.language)
        scope = keys.scope(viewer.chat)
        here = self.deliver is not None and self.deliver.serves(scope)
        hint = token.action is Action.HINT  # asks, changes nothing: answered on the page
        # a press the game has moved past is refused here, in the chat's words: handed over,
        # its refusal would not come back to the page
        behind = not tokens.current(token, table.game)
        relay = self.relay if not here and not hint and not behind else None
        update = None
        if relay is not None and await relay.live(scope, LIVE):
            # a worker of the chat's front end applies it (once, by its update id) and posts
            # it in the chat; the page sees it in its event stream
            update = f"web{secrets.token_hex(8)}"
            handed = Relayed(
                viewer.chat, user.id, user.name, user.language, Kind.BUTTON.value, payload, update
            )
            entry = await relay.add(scope, handed)
            if await self._taken(relay, scope, entry):
                watch = asyncio.create_task(self._watch(relay, scope, entry))
                self._watches.add(watch)
                watch.add_done_callback(self._watches.discard)
                return await self._handed_over(viewer, token.action, seen, entry, update)
            # no consumer took it (the reader that made the relay live died), and none will:
            # it is applied here, as with no live reader, by the same update id
        outcome = await self.service.handle(
            viewer.chat, user, Request(Kind.BUTTON, payload), update
        )
        # a hint is shown on the page alone; the AI moves it may have made first (owed since
        # a worker died) are shown in the chat, as a move's
        chat_part = _without_own(outcome, viewer.player) if hint else outcome
        if here and chat_part.messages:
            assert self.deliver is not None
            await self.deliver(viewer.chat, chat_part)
        elif not here and self.relay is not None and chat_part.messages:
            # no worker of the chat's front end takes it now: whichever comes first takes this
            # worker's journal over (it is never seen to beat) and shows the chat again
            await self.relay.hand_over(scope, self.service.worker, self.clock())
        viewer, link = await self._after(viewer, token.action)
        version, table, settings = await self.seated(viewer)
        return web.json_response(
            {
                "ok": not outcome.alert,
                "relayed": False,
                "answer": outcome.answer,
                "private": [
                    message.text for message in outcome.messages if _own(message, viewer.player)
                ],
                "view": await self._json(viewer, version, table, settings),
                "link": link,
            }
        )

    async def _taken(self, relay: Relay, scope: str, entry: str) -> bool:
        """Whether a consumer of `scope` was given `entry` within `handover` seconds (looked
        at now and then: `TAKEN`); if none was, it is taken back, and none ever will be."""
        deadline = time.monotonic() + self.handover
        wait, most = TAKEN
        while not await relay.given(scope, entry):
            left = deadline - time.monotonic()
            if left <= 0:
                return not await relay.withdraw(scope, entry)  # a consumer took it just now
            await asyncio.sleep(min(wait, left))
            wait = min(2 * wait, most)
        return True

    async def _watch(self, relay: Relay, scope: str, entry: str) -> None:
        """Until the consumer that took `entry` acknowledges it: should it be held for `LIVE`
        seconds while no worker of `scope` read the relay in the last `LIVE` (the holder was
        killed, and no worker is left to take it over), take it over and apply it here, by its
        update id (a no-op if the holder applied it), the chat shown again by the next worker of
        the scope as after any move applied here. A live reader takes it over itself (`CLAIM`).
        Given up once it is too old to be applied (`MAX_AGE`); a Redis away is ridden over."""
        worker = self.service.worker

        async def shown(chat: str, outcome: Outcome) -> None:
            await relay.hand_over(scope, worker, self.clock())

        deadline = time.monotonic() + MAX_AGE
        while time.monotonic() < deadline:
            await asyncio.sleep(WATCH)
            try:
                if not await relay.held(scope, entry):
                    return  # applied (or dropped) and acknowledged
                if await relay.live(scope, LIVE):
                    continue  # a live reader takes it over, should its holder be dead
                taken = await relay.take(scope, worker, entry, LIVE)
                if taken is None:
                    continue
                log.warning("%s: a move handed over was left by a dead worker: applied here", scope)
                await apply_relayed(self.service, shown, taken, self.clock, relay, scope)
                await relay.ack(scope, entry)
                return
            except StoreErrors as error:  # Redis away: look again
                log.warning("%s: a move handed over cannot be looked at: %s", scope, error)

    async def _handed_over(
        self, viewer: Viewer, action: Action, seen: tuple[int, Table, Any], entry: str, update: str
    ) -> web.Response:
        """The answer to a move a consumer took (202): the view as it was before it was handed
        over (`seen`), the move's own comes by the event stream; after a Play again that was
        applied already, the view of the table it opened. Its `entry` and `update` are what the
        page asks `/api/relayed` with, should the move not show."""
        viewer, link = await self._after(viewer, action)  # should it be applied yet
        version, table, settings = seen if link is None else await self.seated(viewer)
        view = await self._json(viewer, version, table, settings)
        handed_over: dict[str, Any] = {
            "ok": True,
            "relayed": True,
            "answer": None,
            "private": [],
            "view": view,
            "link": link,
            "entry": entry,
            "update": update,
        }
        return web.json_response(handed_over, status=202)

    async def relayed(self, request: web.Request) -> web.Response:
        """What became of a move handed over (`entry` and `update` of its 202), asked by a page
        that has not seen it made: once the consumer that took it acknowledged it (looked at as
        `_taken` looks), `"ok": false` and the chat worker's answer if it refused it (or dropped
        it), else `"ok": true` if it was made (its update id is marked), else `"ok": false` and
        `NOT_MADE` (its refusal was not noted). Still held after `answered` seconds, it is
        `"pending": true`, and the page asks again, until the move is `LATE` (then, not made, it
        is `TOO_LATE`). Only a refusal is written (`Relay.refuse`): a move made costs nothing
        more unless its page asks. Ids no 202 gives are refused as a forged move is."""
        viewer = self.viewer(request)
        entry, update = request.query.get("entry", ""), request.query.get("update", "")
        if not ENTRY.fullmatch(entry) or not UPDATE.fullmatch(update):
            return _refused(request, 400, NOT_A_MOVE, None)
        if self.relay is None:  # nothing is handed over here
            return web.json_response({"ok": True, "answer": None})
        scope = keys.scope(viewer.chat)
        deadline = time.monotonic() + self.answered
        wait, most = TAKEN
        late = False
        while await self.relay.held(scope, entry):
            left = deadline - time.monotonic()
            if left <= 0:
                late = self.clock() - dated(entry) >= LATE
                if not late:
                    return web.json_response({"ok": True, "answer": None, "pending": True})
                break  # nobody applies it now
            await asyncio.sleep(min(wait, left))
            wait = min(2 * wait, most)
        noted = await self.relay.refusal(scope, update)
        if noted is not None:
            whose, answer = noted
            mine = whose == viewer.player  # only its mover is told it
            return web.json_response({"ok": not mine, "answer": answer if mine else None})
        if await self.relay.made(viewer.chat, update):
            return web.json_response({"ok": True, "answer": None})
        t = await self._texts(viewer)
        return web.json_response({"ok": False, "answer": t(TOO_LATE if late else NOT_MADE)})

    async def _texts(self, viewer: Viewer) -> Texts:
        """The texts of `viewer`'s page: their app's language at the table, else the chat's."""
        _, table, settings = await self.service.snapshot(viewer.chat)
        languages = table.languages if table is not None else {}
        return personal(look_of(settings), languages, viewer.player).t

    async def events(self, request: web.Request) -> web.StreamResponse:
        task = asyncio.current_task()
        assert task is not None
        self._streams.add(task)  # from its first step: `stop` ends it wherever it is
        try:
            if self._stopping:
                return await _reconnect_soon(request)
            viewer = self.viewer(request)
            await self.seated(viewer)
            whose = (viewer.chat, viewer.player)
            if self._open[whose] >= MAX_STREAMS:
                raise AuthError(429, N_("too many requests"))
            self._open[whose] += 1
            try:
                return await self._streaming(viewer, request)
            finally:
                self._open[whose] -= 1
                if not self._open[whose]:
                    del self._open[whose]
        finally:
            self._streams.discard(task)

    async def _streaming(self, viewer: Viewer, request: web.Request) -> web.StreamResponse:
        response = _event_stream()
        await response.prepare(request)
        with contextlib.suppress(ConnectionResetError):
            try:
                await self._stream(viewer, request, response)
            except StoreErrors:  # the subscription failed, the answer begun: no 503 now
                await _end_soon(response)
        return response

    async def _stream(
        self, viewer: Viewer, request: web.Request, response: web.StreamResponse
    ) -> None:
        """Send `viewer` the view each time the game's version changes, until it disconnects
        (seen within a poll, not only when a write fails) or the game is no longer theirs."""
        sent: tuple[int, tuple[Rerated, ...]] | None = None
        quiet = time.monotonic()
        async with self.watcher.watching(viewer.chat) as written:
            while request.transport is not None and not request.transport.is_closing():
                written.clear()  # before the read: a write after it sets it again
                try:
                    version, table, settings = await self.seated(viewer)
                    # a game's end is sent again once its ratings are folded (no new version)
                    ratings = await self._ratings(viewer.chat, table)
                except AuthError as error:  # the game ended and another began, or it is gone
                    await response.write(_event("gone", await self._gone(viewer, error)))
                    break
                except StoreErrors:  # Redis is away: try again at the next poll
                    await asyncio.sleep(self.poll)
                    continue
                if (version, ratings) != sent:
                    now = self.clock()
                    data = player_json(table, settings, viewer.player, version, now, ratings)
                    await response.write(_event("view", data, version))
                    sent, quiet = (version, ratings), time.monotonic()
                elif time.monotonic() - quiet > KEEPALIVE:
                    await response.write(b": keepalive\n\n")
                    quiet = time.monotonic()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(written.wait(), self.poll)

    async def _gone(self, viewer: Viewer, error: AuthError) -> dict[str, Any]:
        """The `gone` event's data: why the table is no longer `viewer`'s, and the fresh link
        of the table Play again opened when they sit there (else None)."""
        t = texts(error.language or viewer.language)
        link = None
        with contextlib.suppress(*StoreErrors):
            _, link = await self.followed(viewer)
        return {"error": error.reason, "message": refusal(t, error.reason), "link": link}


@functools.cache
def page_html(language: str) -> str:
    """The page (static/index.html) in `language`, the browser's: its words until the first
    view brings the chat's (`{{lang}}`, `{{words}}`, and `{{key}}` for each of the page's
    words, HTML-escaped; the words as JSON for the script, safe inside its element)."""
    said = words(language)
    data = json.dumps(said, ensure_ascii=False, separators=(",", ":"))
    filled = {
        "lang": language,
        "words": data.replace("<", "\\u003c"),
        **{key: html.escape(text) for key, text in said.items()},
    }
    template = (STATIC / "index.html").read_text(encoding="utf-8")
    return re.sub(r"\{\{(\w+)\}\}", lambda match: filled[match[1]], template)


def _event_stream() -> web.StreamResponse:
    return web.StreamResponse(
        headers={
            "Content-Type": "text/event-stream",
            "Cache-Control": "no-cache",
            "X-Accel-Buffering": "no",
        }
    )


RECONNECT_MS = 1000
"""How soon a page whose stream a stopping worker ended asks again (the stream's `retry`)."""


async def _reconnect_soon(request: web.Request) -> web.StreamResponse:
    """An event stream that ends as it begins, asking the browser to reconnect soon (an
    EventSource gives up for good on an answer other than 200)."""
    response = _event_stream()
    await response.prepare(request)
    await _end_soon(response)
    return response


async def _end_soon(response: web.StreamResponse) -> None:
    """End an event stream begun, asking the browser to reconnect soon."""
    await response.write(f"retry: {RECONNECT_MS}\n\n".encode())
    await response.write_eof()


def _event(name: str, data: object, event_id: int | None = None) -> bytes:
    head = f"id: {event_id}\n" if event_id is not None else ""
    body = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return f"{head}event: {name}\ndata: {body}\n\n".encode()


def _own(message: Message, player: str) -> bool:
    """Whether `message` is one the page shows its player: a private message of theirs that is
    no slot's (a hint), not their hand (the page shows the view)."""
    return message.to == player and message.slot is None


def _without_own(outcome: Outcome, player: str) -> Outcome:
    """`outcome` without what the page shows its player (`_own`): what the chat shows."""
    return replace(outcome, messages=tuple(m for m in outcome.messages if not _own(m, player)))
