"""The table options' words, declared once: each option's name (the lobby's `Options:` line,
the table's rules, /rules) and its word on the host's button in the lobby, which is half a row
wide and so may be shorter (docs/players.md, "Option buttons fit a phone")."""

from dataclasses import dataclass

from bot.show.i18n import N_, NC_, Texts
from bot.table import COACH
from engine import BidMode, Options, RoundsPlan

BUTTON = "option button"
"""The context of an option's word on its button (a catalog's `msgctxt`)."""

BID_NAMES = {
    BidMode.OPEN: N_("open bids"),
    BidMode.HIDDEN: N_("hidden bids"),
    BidMode.SECRET: N_("secret bids"),
}
"""Each bid mode's name."""
BID_MODES = {BidMode.OPEN: N_("open"), BidMode.HIDDEN: N_("hidden"), BidMode.SECRET: N_("secret")}
"""Each bid mode's word on the host's option button (`Bids: hidden`)."""
ROUND_NAMES = {
    RoundsPlan.STANDARD: N_("all rounds"),
    RoundsPlan.SHORT: N_("5 rounds"),
    RoundsPlan.TOURNAMENT: N_("tournament rounds"),
}
"""Each rounds plan's name."""
ROUND_PLANS = {
    RoundsPlan.STANDARD: N_("standard"),
    RoundsPlan.SHORT: N_("short"),
    RoundsPlan.TOURNAMENT: N_("tournament"),
}
"""Each rounds plan's word on the host's option button (`Rounds: short`)."""


@dataclass(frozen=True, slots=True)
class Flag:
    """An option that is on or off: its key (`/options notequal`, a button's payload), the
    `Options` attribute that says whether it is on, its name and its word on its button
    (translated in the context `BUTTON`)."""

    key: str
    attribute: str
    name: str
    button: str

    def on(self, options: Options) -> bool:
        """Whether the option is on in `options`."""
        return bool(getattr(options, self.attribute))

    def button_word(self, t: Texts) -> str:
        """The option's word on its button, in the language of `t`."""
        return t.pgettext(BUTTON, self.button)


NOTEQUAL = Flag(
    "notequal",
    "notequal_on",
    N_("notequal"),
    # TRANSLATORS: the option's word on its lobby button, half a row wide beside another:
    # at most 15 letters wide, a Hangul syllable counting two (the name itself where it fits).
    NC_("option button", "notequal"),
)
DMMIXED = Flag(
    "dmmixed",
    "dmmixed",
    N_("dmmixed"),
    # TRANSLATORS: the option's word on its lobby button, half a row wide beside another:
    # at most 15 letters wide, a Hangul syllable counting two (the name itself where it fits).
    NC_("option button", "dmmixed"),
)
FORESIGHT = Flag(
    "foresight",
    "foresight",
    N_("foresight"),
    # TRANSLATORS: the option's word on its lobby button, half a row wide beside another:
    # at most 15 letters wide, a Hangul syllable counting two (the name itself where it fits).
    NC_("option button", "foresight"),
)
WINGS = Flag(
    "wings",
    "wings",
    N_("wings"),
    # TRANSLATORS: the option's word on its lobby button, half a row wide beside another:
    # at most 15 letters wide, a Hangul syllable counting two (the name itself where it fits).
    NC_("option button", "wings"),
)
FLAGS = (NOTEQUAL, DMMIXED, FORESIGHT, WINGS)
"""The options that are on or off, in the order they are listed and their buttons laid out."""

# TRANSLATORS: the coach option's words on its lobby button, a row of its own: at most 27
# letters wide, a Hangul syllable counting two (the option is "coach" on the lobby's line).
COACH_BUTTON = NC_("option button", "coach: hints and reviews")
"""The table's coach option's words on its button, a row wide (translated in the context
`BUTTON`, so that a language may say it shorter there than elsewhere)."""


SETTINGS = (
    *(f"bids={mode}" for mode in BidMode),
    *(f"rounds={plan}" for plan in RoundsPlan),
    *(f"{key}={value}" for key in (*(f.key for f in FLAGS), COACH) for value in ("on", "off")),
)
"""Every setting `/options` takes, as typed (`bids=hidden`, `coach=on`), in the order of the
host's toggles."""


def setting_label(t: Texts, setting: str) -> str:
    """What the host's toggle in the lobby shows while `setting` (one of `SETTINGS`) holds:
    `bids=hidden` "Bids: hidden", `wings=on` "✅ wings", in the language of `t`."""
    name, _, value = setting.partition("=")
    if name == "bids":
        # TRANSLATORS: a lobby button half a row wide: at most 18 letters wide with
        # the longest {mode}, a Hangul syllable counting two.
        return t("Bids: {mode}", mode=t(BID_MODES[BidMode(value)]))
    if name == "rounds":
        # TRANSLATORS: a lobby button half a row wide: at most 18 letters wide with
        # the longest {plan}, a Hangul syllable counting two.
        return t("Rounds: {plan}", plan=t(ROUND_PLANS[RoundsPlan(value)]))
    flag = next((f for f in FLAGS if f.key == name), None)
    word = t.pgettext(BUTTON, COACH_BUTTON) if flag is None else flag.button_word(t)
    return f"{'✅' if value == 'on' else '⬜'} {word}"
