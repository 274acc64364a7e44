"""A chat's table: the engine's game plus what the chat adds (host, AI seats, players away,
the turn deadline, language and deck theme), serialized compactly for the store."""

import json
import secrets
import zlib
from dataclasses import dataclass, field
from typing import Any

from engine import GameState

FORMAT = 1


def new_game_id() -> str:
    """A short random id for one game: buttons of another game carry another id."""
    return secrets.token_hex(3)


@dataclass(frozen=True, slots=True)
class Settings:
    """A chat's lasting choices (they outlive games)."""

    language: str = "en"
    theme: str = "colours"

    def to_json(self) -> str:
        return json.dumps({"language": self.language, "theme": self.theme})

    @classmethod
    def from_json(cls, text: str | bytes | None, default: "Settings") -> "Settings":
        if not text:
            return default
        data = json.loads(text)
        return cls(
            language=data.get("language", default.language),
            theme=data.get("theme", default.theme),
        )


@dataclass(slots=True)
class Table:
    """One game in one chat, from its lobby to its end."""

    game_id: str
    game: GameState
    host: str | None = None
    ai: dict[str, str] = field(default_factory=dict)
    """Player id of each AI seat, and its level."""
    away: list[str] = field(default_factory=list)
    """Players whose turns the AI takes (they let their time run out) until they act again."""
    deadline: float | None = None
    """When the current turn (or an idle lobby) times out, in Unix seconds."""
    created: float = 0.0
    updated: float = 0.0
    seen: dict[str, str] = field(default_factory=dict)
    """A digest of the last private message each player was sent, to send only what changed."""

    def to_bytes(self) -> bytes:
        data: dict[str, Any] = {
            "f": FORMAT,
            "id": self.game_id,
            "game": self.game.to_dict(),
            "host": self.host,
            "ai": self.ai,
            "away": self.away,
            "deadline": self.deadline,
            "created": self.created,
            "updated": self.updated,
            "seen": self.seen,
        }
        text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
        return zlib.compress(text.encode(), 1)  # level 1: half the time of 6, 10 % larger

    @classmethod
    def from_bytes(cls, blob: bytes) -> "Table":
        data = json.loads(zlib.decompress(blob))
        if data.get("f") != FORMAT:
            raise ValueError(f"table format {data.get('f')!r}, expected {FORMAT}")
        return cls(
            game_id=data["id"],
            game=GameState.from_dict(data["game"]),
            host=data["host"],
            ai=dict(data["ai"]),
            away=list(data["away"]),
            deadline=data["deadline"],
            created=data["created"],
            updated=data["updated"],
            seen=dict(data["seen"]),
        )

    def copy(self) -> "Table":
        """An independent copy (the store keeps one parsed table per chat between requests)."""
        return Table(
            game_id=self.game_id,
            game=self.game.copy(),
            host=self.host,
            ai=dict(self.ai),
            away=list(self.away),
            deadline=self.deadline,
            created=self.created,
            updated=self.updated,
            seen=dict(self.seen),
        )

    def humans(self) -> list[str]:
        """Seated players who are people, in seat order."""
        return [player.id for player in self.game.players if player.id not in self.ai]
