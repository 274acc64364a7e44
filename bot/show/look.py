"""How a chat is shown: its language and deck theme (a `Look`), and the look of a chat's
settings."""

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from bot.show.i18n import Texts, texts
from bot.show.themes import DEFAULT_THEME, Theme, card_face, suit_face, suit_name
from bot.table import Settings
from engine import Card, Suit


@dataclass(frozen=True, slots=True)
class Look:
    """A chat's language (`t`, its texts) and deck theme."""

    t: Texts
    theme: Theme

    def card(self, card: Card | None) -> str:
        """A card's face (`🔺13`), or `—` for none."""
        return "—" if card is None else card_face(card, self.theme)

    def suit(self, suit: Suit | None) -> str:
        """A suit's face and name (`🔺 red`), or `none`."""
        if suit is None:
            # TRANSLATORS: the trump suit when there is none; it follows "Trump:"
            return self.t("none")
        return f"{suit_face(suit, self.theme)} {suit_name(self.t, suit, self.theme)}"


def look_of(settings: Settings) -> Look:
    """The look of a chat's settings (an unknown theme is shown as the default one)."""
    return _look(settings.language, settings.theme)


@lru_cache(maxsize=256)
def _look(language: str, theme: str) -> Look:
    """The look of a language and a theme: made once for each pair (a command needs it twice)."""
    known = theme in Theme._value2member_map_
    return Look(texts(language), Theme(theme) if known else DEFAULT_THEME)


def personal(look: Look, languages: Mapping[str, str], player: str | None) -> Look:
    """How a player's private messages are shown: in their app's language when it is known
    (`Table.languages`), else as the chat is."""
    code = languages.get(player) if player is not None else None
    if code is None or code == look.t.language:
        return look
    return Look(texts(code), look.theme)
