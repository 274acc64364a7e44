"""A chat's table: the engine's game plus what the chat adds (host, AI seats, players away,
the turn deadline, language and deck theme), serialized compactly for the store."""

import json
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bot.packing import pack, unpack
from bot.upgrades import TABLE
from engine import ROUND_PHASES, Card, GameState, Phase, RoundResult

if TYPE_CHECKING:
    from bot.config import Config

FORMAT = TABLE.current
"""The version of the stored table this code writes (older ones are upgraded as they are read,
`bot.upgrades.TABLE`; a newer one is refused with `bot.upgrades.NewerForm`)."""


def new_game_id() -> str:
    """A short random id for one game: buttons of another game carry another id."""
    return secrets.token_hex(3)


COACH = "coach"
"""The table's own option, beside the game's rule options (`engine.OPTION_NAMES`): set in the
lobby like them (`coach`, `coach=off`), it offers hints and reviews (`Table.coach`)."""


@dataclass(frozen=True, slots=True)
class Settings:
    """A chat's lasting choices (they outlive games), and its name."""

    language: str = "en"
    theme: str = "colours"
    title: str = ""
    """The chat's name as its platform last showed it (a group's title, a Discord server's and
    channel's name), made safe by the front end; "" until a request that writes brings one.
    A player seated in two chats is told by it which one a private message is of
    (`bot.show.places`)."""

    @classmethod
    def defaults(cls, config: "Config") -> "Settings":
        """A chat's settings until it chooses: the configured language and theme."""
        return cls(language=config.language, theme=config.theme)

    def to_json(self) -> str:
        titled = {"title": self.title} if self.title else {}
        return json.dumps({"language": self.language, "theme": self.theme} | titled)

    @classmethod
    def from_json(cls, text: str | bytes | None, default: "Settings") -> "Settings":
        if not text:
            return default
        data = json.loads(text)
        return cls(
            language=data.get("language", default.language),
            theme=data.get("theme", default.theme),
            title=data.get("title", default.title),
        )


ROUNDS_KEPT = 256
"""Finished rounds kept parsed, by their stored bytes (`Table.from_bytes`)."""
_ROUNDS: dict[bytes, tuple[RoundResult, ...]] = {}
"""The finished rounds of the tables read last, parsed, by their stored bytes in the current
form: they change once a round, the rest of a table with every command, so a table read anew
mid-round parses only the rest (the rounds are frozen, so tables may share them)."""


def seen_since(entry: str) -> int | None:
    """The version a `Table.seen` entry came with (None in tables saved before it was kept)."""
    version = entry.partition("@")[2]
    return int(version) if version.isdigit() else None


@dataclass(slots=True)
class Table:
    """One game in one chat, from its lobby to its end."""

    game_id: str
    game: GameState
    host: str | None = None
    ai: dict[str, str] = field(default_factory=dict)
    """Player id of each AI seat, and its level."""
    away: list[str] = field(default_factory=list)
    """Players whose turns the AI takes (they let their time run out) until they act again;
    every person at the table: the game is paused (`paused`)."""
    deadline: float | None = None
    """When the current turn (or an idle lobby, or a pause) times out, in Unix seconds."""
    remind: float | None = None
    """When the group is reminded of the players it waits for (half the turn time); None once
    done, and in the lobby."""
    reminded: bool = False
    """The group's reminder of the turn is up (`bot.chat.remind`): the table's next change
    deletes it (`bot.chat.REMINDER`)."""
    created: float = 0.0
    updated: float = 0.0
    seen: dict[str, str] = field(default_factory=dict)
    """A digest of the last private message each player was sent, to send only what changed,
    and the version of the table it came with: `<digest>[!]@<version>` (`!`: their turn; the
    digest has 14 hex digits, 12 in tables saved before: `bot.chat.legacy_digest`)."""
    clock: float | None = None
    """When the turn's clock (or the lobby's) last started, or resumed after an outage."""
    after: str | None = None
    """The game this table was opened after (its "Play again" buttons seat people here)."""
    before: list[str] = field(default_factory=list)
    """The people who played that game: each one's own result has a "Play again" button, which
    goes once this game starts (for those who sit it out, no hand of it takes its place), or
    once this table closes as a lobby (`bot.chat.last_game_closed`). Once it started, those who
    sit it out: shown again, their result loses the button (`GameService.current`)."""
    started: int | None = None
    """The stored version the game started at (the write that closed its lobby): the lobby
    message has shown it since (`GameService.current`); None in the lobby, and in tables saved
    before it was kept."""
    languages: dict[str, str] = field(default_factory=dict)
    """The language of each player's app, as their platform said it when they last acted
    (a catalog's code): their private messages are shown in it."""
    locales: dict[str, str] = field(default_factory=dict)
    """The language of each player's app as their platform said it when they last acted
    (`zh-TW`), where it tells the writing of their name (Chinese, Japanese, Korean:
    `picture_fonts.locale_face`), whether or not a catalog has it: the score sheet's picture
    draws the ideographs of their name in its face (traditional Chinese's for `zh-TW`)."""
    coach: bool = False
    """The table's coach option: its players may ask for hints, and get reviews of their
    rounds (`bot.coaching`)."""
    autopilot: dict[str, list[int]] = field(default_factory=dict)
    """The rounds in which the AI made a move for each person (they were away): the coach does
    not review those rounds as theirs."""
    where: str | None = None
    """Where in its chat the game was opened, as the front end named it (`Request.where`: a
    Telegram forum topic); None: the chat itself. Its posts go there (`Outcome.where`)."""
    dropped: dict[str, Card] = field(default_factory=dict)
    """Wings: of each player whose marked card could not be played when their turn came, that
    card, while that turn lasts (the chat tells them in a private message; the web table, which
    sees no message, says it beside the question from this)."""
    stored: tuple[str, int] | None = field(default=None, compare=False, repr=False)
    """(game id, finished rounds) as last read or written: whether `results_bytes` must be
    written again (not serialized)."""
    private: dict[str, tuple[tuple[object, ...], str]] = field(
        default_factory=dict, compare=False, repr=False
    )
    """Of each player the game did not wait for when their screen was last compared: what the
    screen was made from (`bot.chat.private_key`) and the `seen` entry it left, so that the
    same again needs no screen (not serialized: a table read anew compares screens)."""

    def to_data(self) -> dict[str, Any]:
        """The table without its finished rounds (see `results_bytes`) as plain data, in the
        current form (`FORMAT`)."""
        return TABLE.stamp(
            {
                "id": self.game_id,
                "game": self.game.to_dict(results=False),
                "host": self.host,
                "ai": self.ai,
                "away": self.away,
                "deadline": self.deadline,
                "remind": self.remind,
                "created": self.created,
                "updated": self.updated,
                "seen": self.seen,
                "clock": self.clock,
                "after": self.after,
                "lang": self.languages,
            }
            | ({"loc": self.locales} if self.locales else {})
            | ({"coach": True} if self.coach else {})
            | ({"auto": self.autopilot} if self.autopilot else {})
            | ({"where": self.where} if self.where else {})
            | ({"drop": self.dropped} if self.dropped else {})
            | ({"before": self.before} if self.before else {})
            | ({"start": self.started} if self.started is not None else {})
            | ({"reminded": True} if self.reminded else {})
        )

    def to_bytes(self) -> bytes:
        """The table without its finished rounds (see `results_bytes`), compressed JSON, in the
        current form (`FORMAT`)."""
        return pack(self.to_data())

    def results_bytes(self) -> bytes:
        """The finished rounds, compressed JSON: they change once a round, so they are stored
        apart and written only when `results_changed()`."""
        return pack(self.game.results_to_list())

    def results_changed(self) -> bool:
        return self.stored != (self.game_id, len(self.game.results))

    @classmethod
    def from_bytes(cls, blob: bytes, results: bytes | None = None) -> "Table":
        """The table stored as `blob` and `results` (its finished rounds), upgraded from an older
        form; a form stored by an older version is written again, whole, by the next save.
        Raises `NewerForm` for a form newer than this code knows, ValueError for one that is
        not a table."""
        data = unpack(blob)
        if not isinstance(data, dict) or not isinstance(data.get("game"), dict):
            raise ValueError("not a stored table")
        current = data.get(TABLE.tag) == TABLE.current
        rounds = _ROUNDS.get(results) if results and current else None
        if rounds is None:
            data["game"]["results"] = unpack(results) if results else []
        else:
            data["game"]["results"] = []
        data, found = TABLE.upgrade(data)
        game = GameState.from_dict(data["game"])
        if rounds is not None:
            game.results = list(rounds)
        elif results and found == TABLE.current:
            if len(_ROUNDS) >= ROUNDS_KEPT:
                _ROUNDS.pop(next(iter(_ROUNDS)), None)  # the oldest
            _ROUNDS[results] = tuple(game.results)
        table = cls(
            game_id=data["id"],
            game=game,
            host=data["host"],
            ai=dict(data["ai"]),
            away=list(data["away"]),
            deadline=data["deadline"],
            remind=data.get("remind"),
            reminded=bool(data.get("reminded", False)),
            created=data["created"],
            updated=data["updated"],
            seen=dict(data["seen"]),
            clock=data.get("clock"),
            after=data.get("after"),
            languages=dict(data.get("lang", {})),
            locales=dict(data.get("loc", {})),
            coach=bool(data.get("coach", False)),
            autopilot={pid: list(rounds) for pid, rounds in data.get("auto", {}).items()},
            where=data.get("where"),
            dropped=dict(data.get("drop", {})),
            before=list(data.get("before", [])),
            started=data.get("start"),
        )
        if found == TABLE.current:
            table.stored = (table.game_id, len(table.game.results))
        return table

    def copy(self) -> "Table":
        """An independent copy (the store keeps one parsed table per chat between requests)."""
        return Table(
            game_id=self.game_id,
            game=self.game.copy(),
            host=self.host,
            ai=dict(self.ai),
            away=list(self.away),
            deadline=self.deadline,
            remind=self.remind,
            reminded=self.reminded,
            created=self.created,
            updated=self.updated,
            seen=dict(self.seen),
            clock=self.clock,
            after=self.after,
            languages=dict(self.languages),
            locales=dict(self.locales),
            coach=self.coach,
            autopilot={pid: list(rounds) for pid, rounds in self.autopilot.items()},
            where=self.where,
            dropped=dict(self.dropped),
            before=list(self.before),
            started=self.started,
            stored=self.stored,
            private=dict(self.private),
        )

    def wake(self) -> float | None:
        """The next moment the table has something to do on its own: remind, or time out."""
        return self.remind if self.remind is not None else self.deadline

    def paused(self) -> bool:
        """Whether the game is paused: a round is being played and every person at the table
        is away (the last of them let their time run out). Nothing moves, the AI seats' moves
        included, until one of them is back (a move, Resume), or the pause's deadline abandons
        the game (`bot.chat.timeout`). It is no field of its own: a table stored before pauses
        were kept never had every person away in a round (the game was abandoned instead)."""
        if self.game.phase not in ROUND_PHASES or not self.away:
            return False
        return all(pid in self.away for pid in self.humans())

    def humans(self) -> list[str]:
        """Seated players who are people, in seat order."""
        return [player.id for player in self.game.players if player.id not in self.ai]

    def seated(self) -> frozenset[str]:
        """The people with a seat at this game while it lasts, in its lobby or in play (none
        once it is over): what their index of live seats names the chat for
        (`bot.store.seats`)."""
        return frozenset() if self.game.phase is Phase.FINISHED else frozenset(self.humans())
