"""A fake Discord API server for testing a bot end to end, through discord.py's real HTTP client.

`FakeDiscord` is an aiohttp server on 127.0.0.1 (a free port) that answers the REST routes a game
bot uses the way Discord does (API v10 JSON, Discord's error bodies `{"code": 50007, "message":
"Cannot send messages to this user"}`), and builds the gateway payloads people's clients would
cause: `INTERACTION_CREATE` for a slash command or a button press, which a test feeds to the
client's connection state (there is no gateway here).

    async with FakeDiscord() as fake:
        discord.http.Route.BASE = fake.base_url      # every REST call goes to the fake
        await client.login(fake.token)                # GET /users/@me, /oauth2/applications/@me
        ann = fake.add_user("Ann")
        client._connection.parse_interaction_create(fake.command(fake.channel, ann, "join"))
        ...
        print(fake.format_transcript(fake.channel))

What it models, as Discord does:
- channel messages (create, edit) with content ≤ 2000 characters and components checked (≤ 5
  action rows of ≤ 5 buttons, custom ids 1-100 characters and unique, labels ≤ 80; a link
  button, style 5, has an http(s) url of ≤ 512 characters and no custom id, no other a url);
- threads: a channel may be archived (`archive`), as Discord does after a thread's inactivity;
  there a message cannot be edited (400, code 50083), only deleted (an ephemeral one through
  its interaction's webhook, as the bot's own through the channel), a new message unarchives
  it unless it is locked, and PATCH /channels/{id} with `archived: false` unarchives it (a
  locked one: 403);
  `archive` and `reopen` (a moderator opening a locked thread) return the THREAD_UPDATE payload
  the gateway sends then;
  a thread of the guild's channel (`add_thread`) sends its interactions as a thread's (type
  11, with its `thread_metadata`: archived, locked), and a press there leaves it as it is;
- the bot's permissions in the channel (`app_permissions`): without View Channel every message
  there, new or edited, is refused with 403, code 50001 ("Missing Access"); without Send
  Messages (or Attach Files, for a file) a new message is refused with 403, code 50013
  ("Missing Permissions"), while its own messages may still be edited, as Discord lets them;
- DMs: POST /users/@me/channels opens a DM channel; a message to a person whose DMs are closed
  is refused with 403, code 50007;
- a server failing: a message whose body a test's predicate in `failing` accepts is answered
  503 (code 0), once, as Discord answers when it fails on its side;
- interactions: each is answered once (a second answer: 400, code 40060) within 3 seconds
  (later: 404, code 10062, counted in `late`); responses 4 (a message, ephemeral with flag 64),
  5 (deferred, "thinking"), 6 (deferred update) and 7 (update the pressed message); followups,
  edits and deletion of the original response through the interaction's webhook;
- the command sync (PUT /applications/{id}/commands) is checked (names; descriptions 1-100
  characters, in every locale; at most 25 options and 25 choices of 1-100 characters) and kept
  in `commands`; a command is typed with the options it was synced with, of their type (text,
  or a user: `resolved` carries the person, and in a server their member; a number or a
  yes/no where another version synced one: `resync`); an option synced with autocomplete may
  be typed into (`autocomplete`: type 4), answered by response 8 with at most 25 choices of
  1-100 characters (`offered`);
- with `rate_limits`: at most N posts per period per channel (sends and edits), with Discord's
  X-RateLimit-* headers, and 429 beyond it (counted in `throttled`);
- the guild as the gateway describes it to the client (`guild_create`, `channel_update`): its
  @everyone role, the channel with the bot's permissions there (`app_permissions`), the bot's
  own member;
- a minimal gateway (`gateway_url`; GET /gateway/bot names it, with `shards`): HELLO, IDENTIFY →
  READY (recording each shard's intents in `identified`), heartbeats, and `dispatch(event,
  data)` to send an event to every session; a test may use it instead of the connection state.

Bookkeeping for tests and benchmarks: `calls` (route → count), `errors`, `late`, `throttled`,
per-view transcripts (a channel, or a person's DM) where each person's action is followed by
what answered it (so the order does not depend on timing), and the messages a view shows now.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import socket
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self

from aiohttp import web

JSON = dict[str, Any]

EPHEMERAL = 64
PERMISSIONS = (1 << 10) | (1 << 11) | (1 << 31)  # view channel, send messages, use commands
ADMIN_PERMISSIONS = PERMISSIONS | (1 << 5)  # + manage server
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
ATTACH_FILES = 1 << 15
APP_PERMISSIONS = VIEW_CHANNEL | SEND_MESSAGES | ATTACH_FILES | (1 << 38)
"""The bot's own in the channel, as its invite grants them (docs/discord.md): view channel, send
messages, attach files, send messages in threads."""
MAX_URL = 512
LINK_STYLE = 5
"""A link button's style: it opens its url, and Discord sends no interaction."""
MAX_CONTENT = 2000
MAX_CHOICES = 25
"""Discord's limit for an option's choices, a command's options and an autocomplete's answer."""
ANSWER_WITHIN = 3.0


@dataclass(frozen=True, slots=True)
class Person:
    id: int
    name: str
    locale: str = "en-US"
    """The language of their Discord client (sent with each interaction)."""
    bot: bool = False
    """A bot account (Discord's `bot` flag on the user)."""

    def to_json(self) -> JSON:
        return {
            "id": str(self.id),
            "username": self.name.lower(),
            "global_name": self.name,
            "discriminator": "0",
            "avatar": None,
            "public_flags": 0,
            **({"bot": True} if self.bot else {}),
        }


@dataclass
class Stored:
    """A message as the fake keeps it."""

    id: int
    channel: int
    number: int
    """Its number in its view's transcript (#1, #2...)."""
    content: str
    components: list[JSON]
    flags: int = 0
    only: int | None = None
    """For an ephemeral message: the one person who sees it."""
    attachments: list[str] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)
    allowed_mentions: JSON | None = None
    """Whom the message was allowed to ping, as sent."""

    @property
    def name(self) -> str:
        """How the transcript names it: #3, or #e2 for the second ephemeral message (numbered
        apart, so that an answer racing a channel post does not change the numbers)."""
        return f"#e{self.number}" if self.only is not None else f"#{self.number}"

    def labels(self) -> list[list[str]]:
        return [[b.get("label", "") for b in row["components"]] for row in self.components]

    def styles(self) -> dict[str, int]:
        """Its buttons' styles (1 blurple, 2 grey, 3 green, 4 red, 5 link), by label."""
        return {
            b.get("label", ""): b["style"] for row in self.components for b in row["components"]
        }

    def pressed(self) -> list[list[str]]:
        """The labels of its buttons that send an interaction, row by row (not its link
        buttons, which ask the bot nothing)."""
        return [
            [b.get("label", "") for b in row["components"] if "custom_id" in b]
            for row in self.components
        ]

    def custom_ids(self) -> list[str]:
        """The ids of its buttons that send an interaction (not its link buttons)."""
        return [
            b["custom_id"] for row in self.components for b in row["components"] if "custom_id" in b
        ]

    def links(self) -> dict[str, str]:
        """Its link buttons: label → address."""
        return {
            b.get("label", ""): b["url"]
            for row in self.components
            for b in row["components"]
            if b.get("style") == LINK_STYLE
        }

    def button(self, label: str) -> str:
        for row in self.components:
            for b in row["components"]:
                if b.get("label") == label and "custom_id" in b:
                    return str(b["custom_id"])
        raise KeyError(f"no button {label!r} on message {self.name}: {self.labels()}")


@dataclass
class Line:
    """One entry of a transcript: what happened, and (for an action) what answered it."""

    text: str
    replies: list[str] = field(default_factory=list)
    action: bool = False
    """A person's action (a command, a press), which `replies` answer."""


@dataclass
class _Interaction:
    id: int
    token: str
    channel: int
    view: int
    user: Person
    message: int | None
    made: float
    line: Line
    answered: float | None = None
    original: int | None = None
    kind: int | None = None
    offered: list[JSON] | None = None
    """An autocomplete's answer: the choices offered."""


class ApiError(Exception):
    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def _json(data: Any, status: int, headers: dict[str, str]) -> web.Response:
    """A JSON response with Discord's bare content type (discord.py compares it exactly)."""
    headers = {**headers, "Content-Type": "application/json"}
    return web.Response(body=json.dumps(data).encode(), status=status, headers=headers)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def option_type(value: object) -> int:
    """The type of a slash command option that takes `value`: 6 a user (a Person), 5 a
    boolean, 4 an integer, 10 a number, 3 a string."""
    if isinstance(value, Person):
        return 6
    if isinstance(value, bool):
        return 5
    if isinstance(value, int):
        return 4
    return 10 if isinstance(value, float) else 3


class FakeDiscord:
    """One guild with a text channel (and any more a test adds), people, their DMs, and the
    bot."""

    def __init__(self, rate_limits: tuple[int, float] | None = None) -> None:
        self.token = "ODk0MjU.fake.discord-token-for-wizard-tests"
        self.app_id = 894250000000000001
        self.guild = 894250000000000100
        self.channel = 894250000000000200
        """The guild's first text channel (`#wizards`)."""
        self.channels: dict[int, str] = {self.channel: "wizards"}
        """The guild's text channels and their names."""
        self.rate_limits = rate_limits
        self._ids = itertools.count(1_100_000_000_000_000_000)
        self.people: dict[int, Person] = {}
        self.closed_dms: set[int] = set()
        self.admins: set[int] = set()
        self.app_permissions = APP_PERMISSIONS
        """The bot's permissions in the channel: sent with each interaction, and enforced on
        its posts there."""
        self.dm_of: dict[int, int] = {}
        """Person → their DM channel."""
        self.archived: set[int] = set()
        """Channels (threads) archived: their messages cannot be edited."""
        self.locked: set[int] = set()
        """Archived threads a moderator locked: only a moderator may unarchive them."""
        self.threads: set[int] = set()
        """The threads of the guild's channel (`add_thread`): channels whose interactions
        say they are threads."""
        self.failing: list[Callable[[JSON], bool]] = []
        """Predicates on a message's body: the next message posted that one accepts is answered
        503 (Discord failing on its side), and the predicate dropped."""
        self.messages: dict[int, Stored] = {}
        self.interactions: dict[int, _Interaction] = {}
        self._by_token: dict[str, _Interaction] = {}
        self.transcripts: dict[int, list[Line]] = {self.channel: []}
        """View (the channel, or a person's id for their DM) → its lines."""
        self._numbers: dict[int, itertools.count[int]] = {}
        self.commands: list[JSON] = []
        self.calls: Counter[str] = Counter()
        self.errors: list[tuple[str, int, str]] = []
        self.late: list[int] = []
        self.throttled: list[str] = []
        self._posts: dict[int, deque[float]] = {}
        self._inflight = 0
        self._stalls: dict[int, list[str]] = {}
        self._unstalled = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.port = 0
        self.bot = Person(self.app_id, "Wizard", bot=True)
        self.shards = 1
        self.identified: list[JSON] = []
        """The IDENTIFY payloads received (token, intents, shard)."""
        self._sockets: list[web.WebSocketResponse] = []
        self._seq = itertools.count(1)

    # --- the server -------------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        app = web.Application(client_max_size=32 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway)
        app.router.add_route("*", "/api/v10/{path:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        self.port = _free_port()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        for session in list(self._sockets):
            await session.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def base_url(self) -> str:
        """discord.py's `Route.BASE` for this server."""
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def gateway_url(self) -> str:
        """The gateway's address (discord.py's `DiscordWebSocket.DEFAULT_GATEWAY`)."""
        return f"ws://127.0.0.1:{self.port}/gateway"

    def busy(self) -> bool:
        return self._inflight > 0

    # --- the gateway ----------------------------------------------------------------------------

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.send_json({"op": 10, "d": {"heartbeat_interval": 41250}, "s": None, "t": None})
        self._sockets.append(ws)
        try:
            async for frame in ws:
                message = json.loads(frame.data)
                if message["op"] == 1:  # heartbeat
                    await ws.send_json({"op": 11, "d": None, "s": None, "t": None})
                elif message["op"] == 2:  # identify
                    identify = message["d"]
                    if identify.get("token") != self.token:
                        await ws.close(code=4004, message=b"Authentication failed.")
                        break
                    self.identified.append(identify)
                    ready = {
                        "v": 10,
                        "user": {**self.bot.to_json(), "bot": True},
                        "guilds": [],
                        "session_id": f"session-{len(self.identified)}",
                        "resume_gateway_url": self.gateway_url,
                        "shard": identify.get("shard", [0, 1]),
                        "application": {"id": str(self.app_id), "flags": 0},
                    }
                    await self._send(ws, "READY", ready)
        finally:
            self._sockets.remove(ws)
        return ws

    async def _send(self, ws: web.WebSocketResponse, event: str, data: JSON) -> None:
        await ws.send_json({"op": 0, "t": event, "s": next(self._seq), "d": data})

    async def dispatch(self, event: str, data: JSON) -> None:
        """Send a gateway event (e.g. INTERACTION_CREATE) over the first identified session."""
        if not self._sockets:
            raise RuntimeError("no gateway session")
        await self._send(self._sockets[0], event, data)

    async def wait_identified(self, count: int = 1, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while len(self.identified) < count or not self._sockets:
            if time.monotonic() > deadline:
                raise TimeoutError("the bot did not identify on the gateway")
            await asyncio.sleep(0.01)

    # --- people -------------------------------------------------------------------------------

    def add_channel(self, name: str) -> int:
        """Another text channel of the guild, named `name`: its id."""
        channel = self.channel + len(self.channels)
        self.channels[channel] = name
        self.transcripts[channel] = []
        return channel

    def add_thread(self, name: str) -> int:
        """A public thread of the guild's channel, named `name`: its id."""
        thread = self.add_channel(name)
        self.threads.add(thread)
        return thread

    def add_user(
        self,
        name: str,
        *,
        dms: bool = True,
        admin: bool = False,
        locale: str = "en-US",
        bot: bool = False,
    ) -> Person:
        """A member of the guild (`bot`: a bot account, another app's)."""
        person = Person(next(self._ids), name, locale, bot)
        self.people[person.id] = person
        self.transcripts[person.id] = []
        if not dms:
            self.closed_dms.add(person.id)
        if admin:
            self.admins.add(person.id)
        return person

    # --- what people do (gateway payloads) --------------------------------------------------

    def command(
        self, view: int, user: Person, name: str, /, **options: str | int | float | Person
    ) -> JSON:
        """The INTERACTION_CREATE payload of `/name option:value...` typed in `view` (the
        channel, or the person's id for their DM). A Person is a user option's value (type 6,
        the id, the person in `resolved`: as a user, and in a server as a member too); a bool,
        an int or a float a boolean's, an integer's or a number's (types 5, 4 and 10: a
        command another version of the bot synced so, `resync`); a client offers only the
        options the synced command has, of their type (a KeyError else). A text that mentions
        people it knows (`<@id>`, `<@!id>`) has them in `resolved` too, as Discord sends them;
        one it does not know (who left the server) is not there."""
        synced = {o["name"]: o["type"] for o in self._command(name).get("options") or []}
        shown = " ".join(
            [f"/{name}", *(f"{k}:{getattr(v, 'name', v)}" for k, v in options.items())]
        )
        dm = view not in self.channels
        sent: list[JSON] = []
        resolved: JSON = {}
        for key, value in options.items():
            kind = option_type(value)
            if synced.get(key) != kind:
                raise KeyError(f"/{name} has no option {key!r} of type {kind}")
            given = value
            if isinstance(value, Person):
                self._resolve(resolved, value, dm)
                given = str(value.id)
            for found in re.findall(r"<@!?([0-9]+)>", value if isinstance(value, str) else ""):
                known = self.bot if int(found) == self.bot.id else self.people.get(int(found))
                if known is not None:
                    self._resolve(resolved, known, dm)
            sent.append({"name": key, "type": kind, "value": given})
        data: JSON = {"id": self._command(name)["id"], "name": name, "type": 1, "options": sent}
        if resolved:
            data["resolved"] = resolved
        return self._interaction(view, user, 2, data, None, f"{user.name}: {shown}")

    def autocomplete(self, view: int, user: Person, name: str, option: str, typed: str) -> JSON:
        """The INTERACTION_CREATE payload a client sends as `user` types `typed` into the text
        option `option` of `/name` (one with autocomplete, else a KeyError)."""
        synced = {o["name"]: o for o in self._command(name).get("options") or []}
        if not synced[option].get("autocomplete"):
            raise KeyError(f"/{name} {option} has no autocomplete")
        sent = [{"name": option, "type": 3, "value": typed, "focused": True}]
        data: JSON = {"id": self._command(name)["id"], "name": name, "type": 1, "options": sent}
        return self._interaction(
            view, user, 4, data, None, f"{user.name} types /{name} {option}:{typed}"
        )

    def offered(self, iid: int) -> list[str]:
        """The names of the choices an autocomplete interaction was answered with."""
        return [choice["name"] for choice in self.interactions[iid].offered or []]

    @staticmethod
    def _resolve(resolved: JSON, person: Person, dm: bool) -> None:
        """Add `person` to an interaction's `resolved`: as a user, and in a server as a member."""
        resolved.setdefault("users", {})[str(person.id)] = person.to_json()
        if not dm:
            resolved.setdefault("members", {})[str(person.id)] = _member(PERMISSIONS)

    def press(self, view: int, user: Person, message: Stored, custom_id: str) -> JSON:
        """The INTERACTION_CREATE payload of a press on `custom_id` under `message` (which need
        not be among its buttons: a forged press)."""
        label = next(
            (
                b.get("label", "")
                for row in message.components
                for b in row["components"]
                if b.get("custom_id") == custom_id
            ),
            custom_id,
        )
        data = {"custom_id": custom_id, "component_type": 2}
        text = f"{user.name} presses [{label}] on {message.name}"
        return self._interaction(view, user, 3, data, message, text)

    def press_label(self, view: int, user: Person, message: Stored, label: str) -> JSON:
        return self.press(view, user, message, message.button(label))

    def resync(self, name: str, option: str, kind: int) -> None:
        """Another version of the bot synced /name with its option `option` of type `kind`
        (3 string, 4 integer, 5 boolean, 6 user, 10 number): Discord offers it so, and sends
        what is typed into it so, until this version syncs its own again (a version sync
        under way: workers of either version run, and a person's client keeps the definition
        it fetched)."""
        for synced in self._command(name).get("options") or []:
            if synced["name"] == option:
                synced["type"] = kind
                synced.pop("choices", None)
                synced.pop("autocomplete", None)
                return
        raise KeyError(f"/{name} has no option {option!r}")

    def _command(self, name: str) -> JSON:
        for command in self.commands:
            if command["name"] == name:
                return command
        raise KeyError(f"/{name} was not synced")

    def _interaction(
        self, view: int, user: Person, kind: int, data: JSON, message: Stored | None, text: str
    ) -> JSON:
        iid = next(self._ids)
        token = f"itoken-{iid}"
        dm = view not in self.channels
        channel = self._dm_channel(user.id) if dm else view
        line = Line(text, action=True)
        self.transcripts[view].append(line)
        record = _Interaction(
            iid, token, channel, view, user, message.id if message else None, time.monotonic(), line
        )
        self.interactions[iid] = record
        self._by_token[token] = record
        payload: JSON = {
            "id": str(iid),
            "application_id": str(self.app_id),
            "type": kind,
            "token": token,
            "version": 1,
            "data": data,
            "channel_id": str(channel),
            "locale": user.locale,
            "entitlements": [],
            "app_permissions": str(self.app_permissions if not dm else APP_PERMISSIONS),
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        if dm:
            payload["user"] = user.to_json()
            payload["channel"] = {"id": str(channel), "type": 1, "recipients": [user.to_json()]}
            payload["context"] = 1
            payload["authorizing_integration_owners"] = {"0": str(self.guild)}
        else:
            perms = ADMIN_PERMISSIONS if user.id in self.admins else PERMISSIONS
            payload["guild_id"] = str(self.guild)
            payload["guild_locale"] = "en-US"
            payload["context"] = 0
            payload["authorizing_integration_owners"] = {"0": str(self.guild)}
            payload["channel"] = {
                "id": str(channel),
                "type": 0,
                "guild_id": str(self.guild),
                "name": self.channels[channel],
                "position": 0,
                "permission_overwrites": [],
                "nsfw": False,
                "parent_id": None,
                "permissions": str(perms),
            }
            if channel in self.threads:
                payload["channel"] = {**self._thread_json(channel), "permissions": str(perms)}
            payload["member"] = {
                "user": user.to_json(),
                **_member(perms),
                "deaf": False,
                "mute": False,
            }
        if message is not None:
            payload["message"] = self._message_json(message)
        return payload

    # --- what the gateway tells the client about the guild ------------------------------------

    def guild_create(self) -> JSON:
        """The GUILD_CREATE payload the gateway sends for the guild (on connecting, or on
        joining it): its @everyone role, the channel and the bot's own member, the only one
        sent without the members intent. What `app_permissions` lacks is denied to the bot in
        the channel by a member overwrite, as an admin would take it away."""
        return {
            "id": str(self.guild),
            "name": "Wizards",
            "icon": None,
            "owner_id": "1",
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "preferred_locale": "en-US",
            "features": [],
            "emojis": [],
            "stickers": [],
            "roles": [
                {
                    "id": str(self.guild),  # @everyone has the guild's id
                    "name": "@everyone",
                    "permissions": str(PERMISSIONS | APP_PERMISSIONS),
                    "position": 0,
                    "color": 0,
                    "hoist": False,
                    "managed": False,
                    "mentionable": False,
                    "flags": 0,
                }
            ],
            "channels": [self._channel_json()],
            "threads": [],
            "members": [
                {
                    "user": {**self.bot.to_json(), "bot": True},
                    "roles": [],
                    "joined_at": "2025-01-01T00:00:00+00:00",
                    "deaf": False,
                    "mute": False,
                    "flags": 0,
                }
            ],
            "voice_states": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "member_count": 1,
            "large": False,
            "unavailable": False,
        }

    def channel_update(self) -> JSON:
        """The CHANNEL_UPDATE payload the gateway sends when the channel's permissions change
        (say, `app_permissions` was changed)."""
        return {**self._channel_json(), "guild_id": str(self.guild)}

    def channel_delete(self, channel: int) -> JSON:
        """An admin deletes one of the guild's text channels: it is gone (a post there is
        refused as an unknown channel), and this is the CHANNEL_DELETE payload the gateway
        sends."""
        name = self.channels.pop(channel)
        return {
            **self._channel_json(),
            "id": str(channel),
            "name": name,
            "guild_id": str(self.guild),
        }

    def thread_delete(self, thread: int) -> JSON:
        """The THREAD_DELETE payload the gateway sends when a thread of the guild's channel
        is deleted (a game played in a thread is the thread's)."""
        self.channels.pop(thread, None)
        parent = str(self.channel)
        return {"id": str(thread), "guild_id": str(self.guild), "parent_id": parent, "type": 11}

    def archive(self, thread: int, *, locked: bool = False) -> JSON:
        """Discord archives the thread `thread` (after its inactivity, or a moderator does,
        `locked` or not): the THREAD_UPDATE payload the gateway sends."""
        self.archived.add(thread)
        if locked:
            self.locked.add(thread)
        return self._thread_json(thread)

    def reopen(self, thread: int) -> JSON:
        """A moderator opens the thread `thread` again (unlocked, unarchived): the THREAD_UPDATE
        payload the gateway sends."""
        self.locked.discard(thread)
        self.archived.discard(thread)
        return self._thread_json(thread)

    def _thread_json(self, thread: int) -> JSON:
        metadata = {
            "archived": thread in self.archived,
            "locked": thread in self.locked,
            "auto_archive_duration": 60,
            "archive_timestamp": "2026-12-06T00:00:00+00:00",
        }
        return {
            "id": str(thread),
            "type": 11,
            "guild_id": str(self.guild),
            "parent_id": str(self.channel),
            "owner_id": str(next(iter(self.people), self.app_id)),
            "name": self.channels.get(thread, "thread"),
            "message_count": 0,
            "member_count": len(self.people),
            "thread_metadata": metadata,
        }

    def guild_delete(self) -> JSON:
        """The bot is removed from the guild: the GUILD_DELETE payload the gateway sends
        (not `unavailable`: an outage is no removal). Its channels are gone to the bot."""
        self.channels.clear()
        return {"id": str(self.guild)}

    def _channel_json(self) -> JSON:
        denied = APP_PERMISSIONS & ~self.app_permissions
        overwrites = [{"id": str(self.app_id), "type": 1, "allow": "0", "deny": str(denied)}]
        return {
            "id": str(self.channel),
            "type": 0,
            "name": "wizards",
            "position": 0,
            "permission_overwrites": overwrites if denied else [],
            "nsfw": False,
            "parent_id": None,
            "topic": None,
            "last_message_id": None,
            "rate_limit_per_user": 0,
        }

    # --- what tests read ------------------------------------------------------------------------

    def answered(self, interaction_id: int) -> bool:
        record = self.interactions[interaction_id]
        return record.answered is not None

    def shown(self, view: int, user: Person | None = None) -> list[Stored]:
        """The messages a view shows now, oldest first (ephemeral ones only to `user`)."""
        channel = view if view in self.channels else self.dm_of.get(view)
        return [
            m
            for m in self.messages.values()
            if m.channel == channel and (m.only is None or (user is not None and m.only == user.id))
        ]

    def last(self, view: int, user: Person | None = None) -> Stored:
        return self.shown(view, user)[-1]

    def command_names(self, locale: str) -> set[str]:
        """The slash commands' names as a client in `locale` offers them (its localized name,
        else the command's own), as the last sync left them."""
        return {
            (command.get("name_localizations") or {}).get(locale, command["name"])
            for command in self.commands
        }

    def format_transcript(self, view: int) -> str:
        lines = []
        for line in self.transcripts[view]:
            lines.append(line.text)
            lines.extend(f"    ↳ {reply}" for reply in line.replies)
        return "\n".join(lines)

    def texts(self, view: int) -> list[str]:
        """Every text the view showed, replies included."""
        found = []
        for line in self.transcripts[view]:
            found.append(line.text)
            found.extend(line.replies)
        return found

    # --- the REST API -------------------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        self._inflight += 1
        try:
            path = "/" + request.match_info["path"]
            route = re.sub(r"/[0-9]{5,20}", "/{id}", path)
            route = re.sub(r"/itoken-[0-9]+", "/{token}", route)
            self.calls[f"{request.method} {route}"] += 1
            headers: dict[str, str] = {}
            await self._held(path, f"{request.method} {route}")
            try:
                if request.headers.get("Authorization") != f"Bot {self.token}" and not (
                    route.startswith(("/interactions/", "/webhooks/"))
                ):
                    raise ApiError(401, 0, "401: Unauthorized")
                body, files = await self._body(request)
                result = await self._route(request.method, path, body, files, request, headers)
            except ApiError as error:
                self.errors.append((route, error.code, error.message))
                data = {"code": error.code, "message": error.message}
                if error.status == 429:
                    data = {"message": error.message, "retry_after": 0.5, "global": False}
                return _json(data, error.status, headers)
            if result is None:
                return web.Response(status=204, headers=headers)
            return _json(result, 200, headers)
        finally:
            self._inflight -= 1

    async def _body(self, request: web.Request) -> tuple[Any, dict[str, bytes]]:
        files: dict[str, bytes] = {}
        if request.content_type.startswith("multipart/"):
            body: JSON = {}
            reader = await request.multipart()
            while True:
                part: Any = await reader.next()
                if part is None:
                    break
                if part.name == "payload_json":
                    body = json.loads(await part.text())
                else:
                    files[part.filename or part.name] = bytes(await part.read())
            return body, files
        if request.can_read_body:
            return await request.json(), files  # an object, or a list (the command sync)
        return {}, files

    async def _route(
        self,
        method: str,
        path: str,
        body: Any,
        files: dict[str, bytes],
        request: web.Request,
        headers: dict[str, str],
    ) -> Any:
        parts = path.strip("/").split("/")
        if method == "GET" and path == "/users/@me":
            return {**self.bot.to_json(), "bot": True, "verified": True, "mfa_enabled": False}
        if method == "GET" and path == "/oauth2/applications/@me":
            return self._application()
        if method == "GET" and path in ("/gateway", "/gateway/bot"):
            limit = {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 16}
            return {"url": self.gateway_url, "shards": self.shards, "session_start_limit": limit}
        if method == "PUT" and parts[:1] == ["applications"] and parts[2:] == ["commands"]:
            _check_command_names(body)
            self.commands = [
                {
                    **c,
                    "id": str(next(self._ids)),
                    "application_id": str(self.app_id),
                    "version": "1",
                }
                for c in body
            ]
            return self.commands
        if method == "POST" and path == "/users/@me/channels":
            user = int(body["recipient_id"])
            recipients = [self.people[user].to_json()]
            return {"id": str(self._dm_channel(user)), "type": 1, "recipients": recipients}
        if method == "PATCH" and parts[0] == "channels" and len(parts) == 2:
            return self._edit_channel(int(parts[1]), body)
        if parts[0] == "channels" and len(parts) >= 3 and parts[2] == "messages":
            channel = int(parts[1])
            if self._view_of(channel) in self.channels and not self.app_permissions & VIEW_CHANNEL:
                raise ApiError(403, 50001, "Missing Access")
            self._spend(channel, headers)
            if method == "POST" and len(parts) == 3:
                return self._message_json(self._post(channel, body, files))
            if method == "PATCH" and len(parts) == 4:
                return self._message_json(self._edit(channel, int(parts[3]), body))
            if method == "DELETE" and len(parts) == 4:
                self._delete(channel, int(parts[3]))
                return None
        if method == "POST" and parts[0] == "interactions" and parts[3:] == ["callback"]:
            return self._callback(int(parts[1]), parts[2], body, files)
        if parts[0] == "webhooks" and len(parts) >= 3:
            record = self._by_token.get(parts[2])
            if record is None:
                raise ApiError(404, 10015, "Unknown Webhook")
            if method == "POST" and len(parts) == 3:
                return self._followup(record, body, files)
            if method == "DELETE" and len(parts) == 5:
                target = record.original if parts[4] == "@original" else int(parts[4])
                gone = self.messages.pop(target or 0, None)
                if gone is None:
                    raise ApiError(404, 10008, "Unknown Message")
                record.line.replies.append(f"{gone.name} deleted")
                return None
            if method == "PATCH" and len(parts) == 5:
                target = record.original if parts[4] == "@original" else int(parts[4])
                if target is None:
                    raise ApiError(404, 10008, "Unknown Message")
                message = self._edit(record.channel, target, body)
                record.line.replies.append(self._describe(message, edited=True))
                return self._message_json(message)
        raise ApiError(404, 0, f"404: Not Found ({method} {path})")

    def _application(self) -> JSON:
        return {
            "id": str(self.app_id),
            "name": "Wizard",
            "icon": None,
            "description": "",
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": Person(1, "Owner").to_json(),
            "verify_key": "0" * 64,
            "flags": 0,
            "team": None,
            "summary": "",
        }

    def _spend(self, channel: int, headers: dict[str, str]) -> None:
        if self.rate_limits is None:
            return
        count, period = self.rate_limits
        now = time.monotonic()
        sent = self._posts.setdefault(channel, deque())
        while sent and sent[0] <= now - period:
            sent.popleft()
        reset_after = (sent[0] + period - now) if sent else period
        headers["X-RateLimit-Limit"] = str(count)
        headers["X-RateLimit-Bucket"] = f"channel-{channel}"
        if len(sent) >= count:
            headers["X-RateLimit-Remaining"] = "0"
            headers["X-RateLimit-Reset-After"] = f"{reset_after:.3f}"
            headers["X-RateLimit-Reset"] = f"{time.time() + reset_after:.3f}"
            headers["X-RateLimit-Scope"] = "user"
            self.throttled.append(f"channel {channel}")
            raise ApiError(429, 0, "You are being rate limited.")
        sent.append(now)
        headers["X-RateLimit-Remaining"] = str(count - len(sent))
        headers["X-RateLimit-Reset-After"] = f"{reset_after:.3f}"
        headers["X-RateLimit-Reset"] = f"{time.time() + reset_after:.3f}"

    def stall(self, view: int) -> list[str]:
        """From now on, each call about `view` (a channel, or a person's id for their DM) waits,
        not yet applied, until `unstall` (Discord slow to answer there): the list of them
        (method and route), in the order they came."""
        held: list[str] = []
        self._stalls[view] = held
        return held

    def unstall(self, view: int) -> None:
        """The calls held for `view` (`stall`) are applied, in the order they came."""
        del self._stalls[view]
        self._unstalled.set()
        self._unstalled = asyncio.Event()

    async def _held(self, path: str, call: str) -> None:
        parts = path.strip("/").split("/")
        if len(parts) < 2 or parts[0] != "channels" or not parts[1].isdigit():
            return
        channel = int(parts[1])
        view = next((user for user, dm in self.dm_of.items() if dm == channel), channel)
        held = self._stalls.get(view)
        if held is None:
            return
        held.append(call)
        while self._stalls.get(view) is held:
            await self._unstalled.wait()

    def _dm_channel(self, user: int) -> int:
        if user not in self.people:
            raise ApiError(400, 50035, "Invalid Form Body")
        if user not in self.dm_of:
            self.dm_of[user] = next(self._ids)
        return self.dm_of[user]

    def _view_of(self, channel: int) -> int:
        if channel in self.channels:
            return channel
        for user, dm in self.dm_of.items():
            if dm == channel:
                return user
        raise ApiError(404, 10003, "Unknown Channel")

    def _check(self, body: JSON) -> tuple[str, list[JSON]]:
        text = str(body.get("content") or "")
        if len(text) > MAX_CONTENT:
            raise ApiError(400, 50035, "Invalid Form Body: content: at most 2000 characters")
        rows = list(body.get("components") or [])
        seen: set[str] = set()
        if len(rows) > 5:
            raise ApiError(400, 50035, "Invalid Form Body: components: at most 5 rows")
        for row in rows:
            buttons = row.get("components", [])
            if row.get("type") != 1 or not 1 <= len(buttons) <= 5:
                raise ApiError(400, 50035, "Invalid Form Body: an action row holds 1 to 5 buttons")
            for button in buttons:
                if button.get("style") == LINK_STYLE:  # a link: an address, and no custom_id
                    url = str(button.get("url") or "")
                    if "custom_id" in button or not re.match(r"(https?|discord)://\S+", url):
                        raise ApiError(400, 50035, "Invalid Form Body: a link button's url")
                    if len(url) > MAX_URL:
                        raise ApiError(400, 50035, "Invalid Form Body: url: at most 512")
                    if len(str(button.get("label", ""))) > 80:
                        raise ApiError(400, 50035, "Invalid Form Body: label too long")
                    continue
                custom_id = str(button.get("custom_id", ""))
                if "url" in button:
                    raise ApiError(400, 50035, "Invalid Form Body: only a link button has a url")
                if not 1 <= len(custom_id) <= 100 or custom_id in seen:
                    raise ApiError(400, 50035, f"Invalid Form Body: custom_id {custom_id!r}")
                if len(str(button.get("label", ""))) > 80:
                    raise ApiError(400, 50035, "Invalid Form Body: label too long")
                seen.add(custom_id)
        return text, rows

    def _store(
        self, channel: int, body: JSON, files: dict[str, bytes], only: int | None = None
    ) -> Stored:
        text, rows = self._check(body)
        view = self._view_of(channel)
        numbers = self._numbers.setdefault(view if only is None else -view, itertools.count(1))
        flags = int(body.get("flags") or 0)
        message = Stored(
            next(self._ids), channel, next(numbers), text, rows, flags, only, list(files), files
        )
        message.allowed_mentions = body.get("allowed_mentions")
        self.messages[message.id] = message
        return message

    def _post(self, channel: int, body: JSON, files: dict[str, bytes]) -> Stored:
        view = self._view_of(channel)
        for failing in self.failing:
            if failing(body):
                self.failing.remove(failing)
                raise ApiError(503, 0, "503: Service Unavailable")
        if view not in self.channels and view in self.closed_dms:
            raise ApiError(403, 50007, "Cannot send messages to this user")
        needed = SEND_MESSAGES | (ATTACH_FILES if files else 0)
        if view in self.channels and self.app_permissions & needed != needed:
            raise ApiError(403, 50013, "Missing Permissions")
        if view in self.archived and view in self.locked:
            raise ApiError(400, 50083, "Thread is archived")
        self.archived.discard(view)  # a new message unarchives a thread
        message = self._store(channel, body, files)
        self.transcripts[view].append(Line(self._describe(message)))
        return message

    def _edit_channel(self, channel: int, body: JSON) -> JSON:
        """PATCH /channels/{id}: only a thread's unarchiving is modelled."""
        if channel not in self.channels or set(body) != {"archived"} or body["archived"]:
            raise ApiError(400, 50035, "Invalid Form Body")
        if channel in self.locked:
            raise ApiError(403, 50013, "Missing Permissions")
        self.archived.discard(channel)
        return self._thread_json(channel)

    def _edit(self, channel: int, message_id: int, body: JSON) -> Stored:
        message = self.messages.get(message_id)
        if message is None or message.channel != channel:
            raise ApiError(404, 10008, "Unknown Message")
        if channel in self.archived:
            raise ApiError(400, 50083, "Thread is archived")
        if "content" in body:
            message.content = self._check(body)[0]
        if "components" in body:
            message.components = self._check({"components": body["components"]})[1]
        if message.only is None:
            self.transcripts[self._view_of(channel)].append(
                Line(self._describe(message, edited=True))
            )
        return message

    def _delete(self, channel: int, message_id: int) -> None:
        """The bot deletes one of its messages (every message the fake keeps is the bot's)."""
        message = self.messages.get(message_id)
        if message is None or message.channel != channel:
            raise ApiError(404, 10008, "Unknown Message")
        del self.messages[message_id]
        if message.only is None:
            self.transcripts[self._view_of(channel)].append(Line(f"{message.name} deleted"))

    def _describe(self, message: Stored, *, edited: bool = False) -> str:
        who = f" (only {self.people[message.only].name} sees)" if message.only else ""
        head = f"{message.name}{who} {'edited' if edited else 'bot'}: "
        # as a client shows it: a mention, unless its `<` is escaped
        shown = re.sub(r"(?<!\\)<@([0-9]+)>", self._mention, message.content)
        text = head + shown.replace("\n", "\n    ")
        for row in message.labels():
            text += "\n    " + " ".join(f"[{label}]" for label in row)
        for name in message.attachments:
            text += f"\n    📎 {name}"
        return text

    def _mention(self, match: re.Match[str]) -> str:
        person = self.people.get(int(match.group(1)))
        return f"@{person.name}" if person else match.group(0)

    def _callback(self, iid: int, token: str, body: JSON, files: dict[str, bytes]) -> JSON:
        record = self.interactions.get(iid)
        if record is None or record.token != token:
            raise ApiError(404, 10062, "Unknown interaction")
        if record.answered is not None:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        now = time.monotonic()
        if now - record.made > ANSWER_WITHIN:
            self.late.append(iid)
            raise ApiError(404, 10062, "Unknown interaction")
        record.answered = now
        kind = int(body["type"])
        record.kind = kind
        data = dict(body.get("data") or {})
        ephemeral = bool(int(data.get("flags") or 0) & EPHEMERAL)
        only = record.user.id if ephemeral else None
        result: JSON = {
            "interaction": {
                "id": str(iid),
                "type": 2 if record.message is None else 3,
                "response_message_loading": kind == 5,
                "response_message_ephemeral": ephemeral,
            }
        }
        if kind in (4, 5):
            shown = data if kind == 4 else {"flags": data.get("flags")}
            message = self._store(record.channel, shown, files, only)
            record.original = message.id
            result["interaction"]["response_message_id"] = str(message.id)
            if kind == 4:
                record.line.replies.append(self._describe(message))
            else:
                record.line.replies.append(
                    f"{message.name}{' (ephemeral)' if only else ''} (thinking…)"
                )
            result["resource"] = {"type": kind, "message": self._message_json(message)}
        elif kind == 7:
            if record.message is None:
                raise ApiError(400, 50035, "Invalid Form Body: no message to update")
            record.original = record.message  # the message its button is on: @original
            message = self.messages[record.message]
            if "content" in data:
                message.content = self._check(data)[0]
            if "components" in data:
                message.components = self._check({"components": data["components"]})[1]
            record.line.replies.append(self._describe(message, edited=True))
            result["resource"] = {"type": kind, "message": self._message_json(message)}
        elif kind == 8:  # an autocomplete's choices: at most 25, shown to the typist alone
            offered = list(data.get("choices") or [])
            if len(offered) > MAX_CHOICES or not all(
                1 <= len(str(c.get("name", ""))) <= 100 for c in offered
            ):
                raise ApiError(400, 50035, "Invalid Form Body: choices: 1 to 25 of 1-100")
            record.offered = offered
            record.line.replies.append("offered: " + ", ".join(c["name"] for c in offered))
        elif kind == 6:
            record.original = record.message  # a deferred update: @original is its message
        else:
            raise ApiError(400, 50035, f"Invalid Form Body: interaction response type {kind}")
        return result

    def _followup(self, record: _Interaction, body: JSON, files: dict[str, bytes]) -> JSON:
        if record.answered is None:
            raise ApiError(404, 10015, "Unknown Webhook")
        ephemeral = bool(int(body.get("flags") or 0) & EPHEMERAL)
        original = self.messages.get(record.original or 0)
        if record.kind == 5 and original is not None and not original.content:
            original.content, original.components = self._check(body)  # the deferred answer
            original.attachments, original.files = list(files), files
            record.line.replies.append(self._describe(original, edited=True))
            return self._message_json(original)
        only = record.user.id if ephemeral else None
        message = self._store(record.channel, body, files, only)
        record.line.replies.append(self._describe(message))
        return self._message_json(message)

    def _message_json(self, message: Stored) -> JSON:
        data: JSON = {
            "id": str(message.id),
            "channel_id": str(message.channel),
            "type": 0,
            "content": message.content,
            "author": {**self.bot.to_json(), "bot": True},
            "timestamp": "2025-01-01T00:00:00+00:00",
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [
                {
                    "id": str(index + 1),
                    "filename": name,
                    "size": len(message.files[name]),
                    "url": f"https://cdn.example/{name}",
                    "proxy_url": f"https://cdn.example/{name}",
                }
                for index, name in enumerate(message.attachments)
            ],
            "embeds": [],
            "pinned": False,
            "components": message.components,
            "flags": message.flags,
        }
        if message.channel in self.channels:
            data["guild_id"] = str(self.guild)
        return data

    # --- waiting --------------------------------------------------------------------------------

    async def wait_answered(self, interaction_id: int, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not self.answered(interaction_id):
            if time.monotonic() > deadline:
                raise TimeoutError(f"interaction {interaction_id} was not answered")
            await asyncio.sleep(0.002)


def _member(permissions: int) -> JSON:
    """A guild member of an interaction, without their user (as `resolved` sends one)."""
    return {
        "roles": [],
        "joined_at": "2025-01-01T00:00:00+00:00",
        "flags": 0,
        "pending": False,
        "nick": None,
        "avatar": None,
        "permissions": str(permissions),
    }


def _check_command_names(commands: list[JSON]) -> None:
    """Discord's checks of a command sync: each name and localized name is one word of at most
    32 lowercase letters, digits, - or _, and no two commands share one in a locale; a
    command's and an option's description, and each localized one, is 1 to 100 characters, a
    command has at most 25 options, an option at most 25 choices, and a choice's name (each
    localized one too) and a text choice's value 1 to 100 (the Application Command Object's
    limits in Discord's documentation; its API counts characters as code points)."""
    for command in commands:
        _check_described(command)
        options = command.get("options") or []
        if len(options) > MAX_CHOICES:
            raise ApiError(400, 50035, "Invalid Form Body: options: at most 25")
        for option in options:
            _check_described(option)
            choices = option.get("choices") or []
            if len(choices) > MAX_CHOICES:
                raise ApiError(400, 50035, "Invalid Form Body: choices: at most 25")
            for choice in choices:
                names = [choice["name"], *(choice.get("name_localizations") or {}).values()]
                value = choice["value"]
                if not all(1 <= len(name) <= 100 for name in names) or (
                    isinstance(value, str) and not 1 <= len(value) <= 100
                ):
                    raise ApiError(400, 50035, f"Invalid Form Body: choice {choice['name']!r}")
    locales = {""} | {loc for c in commands for loc in c.get("name_localizations") or {}}
    for locale in locales:
        seen: set[str] = set()
        for command in commands:
            name = (command.get("name_localizations") or {}).get(locale, command["name"])
            valid = re.fullmatch(r"[-_\w]{1,32}", name) and name == name.lower()
            if not valid or name in seen:
                raise ApiError(400, 50035, f"Invalid Form Body: name {name!r} ({locale})")
            seen.add(name)


def _check_described(item: JSON) -> None:
    """A command's or an option's description, and each localized one: 1 to 100 characters."""
    said = [item.get("description", ""), *(item.get("description_localizations") or {}).values()]
    if not all(1 <= len(str(text)) <= 100 for text in said):
        raise ApiError(400, 50035, f"Invalid Form Body: description of {item.get('name')!r}")
