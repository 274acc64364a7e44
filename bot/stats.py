"""Players' stats and ratings, folded from a chat's game summaries (no I/O).

A chat keeps a summary of each finished game (`bot.chat.game_summary`; the store keeps the last
`RESULTS_KEPT`, newest first). `read_game` reads one tolerantly (summaries written before places,
bids met and AI levels were kept lack them), and `Fold.add` folds games, oldest first, into a
`Fold`: for each player their games, wins, points, best game and bids met, and an OpenSkill
Plackett-Luce rating updated from the game's places (ties allowed). An AI seat is rated as its
level (`ai:hard`), one identity for every seat of that level. The fold also names the newest game
it holds (`Fold.cursor`), so it can be carried forward with the games after it (`unfolded`);
`fold_noting` folds the same way and notes how the newest game folded moved its seats' ratings
(`Noted`), kept with the fold for the game's end to say.

`board` orders a leaderboard by the conservative rating (`Standing.ordinal`: mu - 3 sigma),
`recent` picks the games of the last `WINDOW` seconds, `namesakes` numbers people called alike
(by their first game here), `find` looks a player up by name (`near`: whom a name that
matches nobody may have meant), and `anonymised` rewrites a summary
without one player (for /forgetme; `record_without`, the record of the chat's last game).
docs/stats.md describes the model, the data kept and what a fold costs.
"""

import itertools
import json
import math
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce, PlackettLuceRating

from bot.namesakes import alike, numbered, numbers
from bot.upgrades import STATS

MODEL = PlackettLuce()
"""The rating model, with OpenSkill's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300,
kappa 0.0001."""

Z = 3.0
"""Standard deviations below mu of the conservative rating (`Standing.ordinal`)."""
RATING_BASE = 1000
RATING_SCALE = 40
"""The rating shown is `RATING_BASE + RATING_SCALE * (mu - 3 sigma)`: 1000 for a new player."""
PROVISIONAL = 5
"""A rating from fewer games than this is provisional (marked on the boards)."""
WINDOW = 30 * 24 * 3600
"""Seconds of the recent board (the last 30 days)."""
BOARD = 8
"""Rows of a leaderboard at most."""
AI = "ai:"
"""The prefix of AI seats' ids, and of an AI level's rating identity (`ai:hard`)."""
UNKNOWN_LEVEL = "?"
"""The level of an AI seat in a summary that did not name it."""
FORGOTTEN = "x:"
"""The prefix of the alias that replaces a player who asked to be forgotten (`anonymised`)."""


def forgotten(player: str) -> bool:
    """Whether `player` is the alias of someone forgotten (kept out of boards and look-ups)."""
    return player.startswith(FORGOTTEN)


def person(player: str) -> bool:
    """Whether a rating identity is a person's (not an AI level's, nor a forgotten alias)."""
    return not player.startswith(AI) and not forgotten(player)


def level_of(player: str) -> str | None:
    """The AI level of a rating identity (`ai:hard` → `hard`); None for a person."""
    return player[len(AI) :] if player.startswith(AI) else None


# --- one game ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat of a finished game, as the stats count it."""

    player: str
    """Whose: a person's id, or the AI level's identity (`ai:hard`)."""
    name: str
    total: int
    place: int
    made: int | None = None
    """Bids met in the game (None: the summary did not keep it)."""
    rounds: int | None = None
    """Rounds the game had (None: not kept)."""


@dataclass(frozen=True, slots=True)
class Game:
    """A finished game: when it ended and its seats."""

    key: str
    """What names it among the chat's games (`unfolded`): its end time and its id."""
    finished: float
    seats: tuple[Seat, ...]
    game: str = ""
    """Its id (the table's `game_id`; "" for a summary that did not keep it)."""


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _ints(value: object, length: int) -> list[int] | None:
    """`value` as `length` ints, or None."""
    if isinstance(value, list) and len(value) == length and all(map(_is_int, value)):
        return list(value)
    return None


def places_of(totals: Sequence[int]) -> list[int]:
    """Places from totals: 1 + how many scored more (ties share a place)."""
    return [1 + sum(other > total for other in totals) for total in totals]


def key_of(entry: Mapping[str, Any]) -> str:
    """What names a summary among its chat's: its end time and its game's id (rewriting a
    summary for /forgetme keeps both)."""
    return f"{entry.get('finished')!r}/{game_of(entry)}"


def game_of(entry: Mapping[str, Any]) -> str:
    """The id of a summary's game ("" for a summary that did not keep it)."""
    return str(entry.get("game", ""))


def read_game(entry: object) -> Game | None:
    """A summary as a `Game`; None for one that cannot be read (it is skipped). A summary of
    the older format lacks places (they come from the totals), AI levels (a seat whose id starts
    `ai:` is an AI of unknown level) and bids met (left out of the percentage)."""
    if not isinstance(entry, dict):
        return None
    players = entry.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        return None
    count = len(players)
    totals = _ints(entry.get("totals"), count)
    if count < 2 or totals is None:
        return None
    names = entry.get("names")
    if not (isinstance(names, list) and len(names) == count):
        names = players
    places = _ints(entry.get("places"), count) or places_of(totals)
    made = _ints(entry.get("made"), count)
    rounds = entry.get("rounds")
    if not _is_int(rounds):
        made = None
    levels = entry.get("ai")
    levels = levels if isinstance(levels, dict) else {}
    finished = entry.get("finished")
    seats = []
    for seat, pid in enumerate(players):
        player, name = pid, names[seat] if isinstance(names[seat], str) else pid
        level = levels.get(pid)
        if isinstance(level, str) and level:
            player, name = AI + level, level
        elif pid.startswith(AI):
            player, name = AI + UNKNOWN_LEVEL, UNKNOWN_LEVEL
        seats.append(
            Seat(
                player,
                name,
                totals[seat],
                places[seat],
                None if made is None else made[seat],
                rounds if made is not None else None,
            )
        )
    when = float(finished) if isinstance(finished, int | float) else 0.0
    return Game(key_of(entry), when, tuple(seats), game_of(entry))


def people(entry: object) -> list[str]:
    """The people (not the AI seats) a summary names."""
    game = read_game(entry)
    return [] if game is None else [seat.player for seat in game.seats if person(seat.player)]


def read_games(entries: Iterable[object]) -> list[Game]:
    """The games of `entries` that can be read, in the same order."""
    return [game for entry in entries if (game := read_game(entry)) is not None]


# --- a player's standing ---------------------------------------------------------------------


@dataclass(slots=True)
class Standing:
    """A player's tally and rating in one chat (an AI level's: its seats)."""

    name: str
    games: int = 0
    wins: int = 0
    points: int = 0
    best: int | None = None
    """The highest total of a game."""
    made: int = 0
    """Bids met, in the games that kept them."""
    rounds: int = 0
    """Rounds of the games that kept bids met."""
    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    last: float = 0.0
    """When their last game ended."""

    @property
    def average(self) -> float:
        """Points a game."""
        return self.points / self.games if self.games else 0.0

    @property
    def met(self) -> float | None:
        """Bids met, in per cent of rounds (None: no game kept them)."""
        return 100.0 * self.made / self.rounds if self.rounds else None

    @property
    def ordinal(self) -> float:
        """The conservative skill estimate mu - 3 sigma (the true skill is very likely above)."""
        return self.mu - Z * self.sigma

    @property
    def rating(self) -> int:
        """The rating shown: the conservative estimate, scaled (1000 for a new player)."""
        return round(RATING_BASE + RATING_SCALE * self.ordinal)

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.name,
            "g": self.games,
            "w": self.wins,
            "p": self.points,
            "b": self.best,
            "m": self.made,
            "r": self.rounds,
            "mu": self.mu,
            "s": self.sigma,
            "t": self.last,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Standing":
        return cls(
            name=str(data.get("n", "")),
            games=int(data.get("g", 0)),
            wins=int(data.get("w", 0)),
            points=int(data.get("p", 0)),
            best=None if data.get("b") is None else int(data["b"]),
            made=int(data.get("m", 0)),
            rounds=int(data.get("r", 0)),
            mu=float(data.get("mu", MODEL.mu)),
            sigma=float(data.get("s", MODEL.sigma)),
            last=float(data.get("t", 0.0)),
        )


def total(standings: Sequence[Standing]) -> Standing:
    """Several chats' standings of one player added up (the rating: the chat where they played
    most; a rating is a chat's own)."""
    most = max(standings, key=lambda s: (s.games, s.last))
    bests = [s.best for s in standings if s.best is not None]
    return Standing(
        name=max(standings, key=lambda s: s.last).name,
        games=sum(s.games for s in standings),
        wins=sum(s.wins for s in standings),
        points=sum(s.points for s in standings),
        best=max(bests) if bests else None,
        made=sum(s.made for s in standings),
        rounds=sum(s.rounds for s in standings),
        mu=most.mu,
        sigma=most.sigma,
        last=max(s.last for s in standings),
    )


# --- the fold ---------------------------------------------------------------------------------


@dataclass(slots=True)
class Fold:
    """A chat's games folded, oldest first: every player's standing, and the newest game."""

    players: dict[str, Standing] = field(default_factory=dict)
    """By rating identity, in the order of their first game folded (kept so when stored): it
    numbers people called alike (`namesakes`)."""
    cursor: str = ""
    """The key of the newest game folded ("" before the first)."""
    games: int = 0
    """Games folded in all (more than a chat keeps: the fold goes on past them)."""

    def add(self, game: Game) -> None:
        """Fold one game: each seat's tally, then the ratings from its places."""
        self.cursor = game.key
        self.games += 1
        for seat in game.seats:
            standing = self.players.get(seat.player)
            if standing is None:
                standing = self.players[seat.player] = Standing(seat.name)
            standing.name = seat.name
            standing.games += 1
            standing.wins += seat.place == 1
            standing.points += seat.total
            standing.best = seat.total if standing.best is None else max(standing.best, seat.total)
            if seat.made is not None and seat.rounds is not None:
                standing.made += seat.made
                standing.rounds += seat.rounds
            standing.last = max(standing.last, game.finished)
        self._rate(game)

    def _rate(self, game: Game) -> None:
        """Update the ratings of a game's players from its places. Every seat is a team of one;
        an identity with several seats (two `hard` AI seats) plays each from its rating before
        the game, and moves by the mean of their updates. A tie is rated as the mean of every
        way of breaking it (`tie_orders`): OpenSkill's Plackett-Luce, given tied ranks, rates
        the tied players below the one they beat (1st, 2nd, 2nd, 4th, 5th of five newcomers:
        1112, 1018, 1018, 1026, 893)."""
        before = [(self.players[s.player].mu, self.players[s.player].sigma) for s in game.seats]
        orders = tie_orders([seat.place for seat in game.seats])
        sums = [[0.0, 0.0] for _ in game.seats]
        for ranks in orders:
            teams = [[MODEL.create_rating([mu, sigma])] for mu, sigma in before]
            rated: list[list[PlackettLuceRating]] = MODEL.rate(teams, ranks=ranks)
            for total, team in zip(sums, rated, strict=True):
                total[0] += team[0].mu
                total[1] += team[0].sigma
        moved: dict[str, list[tuple[float, float]]] = {}
        for seat, (mu, sigma) in zip(game.seats, sums, strict=True):
            moved.setdefault(seat.player, []).append((mu / len(orders), sigma / len(orders)))
        for player, ratings in moved.items():
            standing = self.players[player]
            standing.mu = math.fsum(mu for mu, _ in ratings) / len(ratings)
            standing.sigma = math.fsum(sigma for _, sigma in ratings) / len(ratings)

    def to_json(self) -> str:
        """The fold as stored, in the current form (`bot.upgrades.STATS`)."""
        players = {player: s.to_dict() for player, s in self.players.items()}
        return json.dumps(STATS.stamp({"c": self.cursor, "g": self.games, "p": players}))

    @classmethod
    def from_json(cls, text: str | bytes | None) -> "Fold":
        """The fold stored as `text`, upgraded from an older form; raises
        `bot.upgrades.NewerForm` for a form newer than this code knows (it must not be
        written over)."""
        if not text:
            return cls()
        data, _ = STATS.upgrade(json.loads(text))
        players = {str(p): Standing.from_dict(s) for p, s in data.get("p", {}).items()}
        return cls(players, str(data.get("c", "")), int(data.get("g", 0)))


def tie_orders(places: Sequence[int]) -> list[list[float]]:
    """The ranks (1 to n) of each way to break the ties of `places` (a seat's place, equal for
    a tie): every order of each group of tied seats, groups by place. A game without a tie has
    one; a six-way tie, the most a table holds, 720."""
    groups: dict[int, list[int]] = {}
    for seat, place in enumerate(places):
        groups.setdefault(place, []).append(seat)
    tied = [groups[place] for place in sorted(groups)]
    orders: list[list[float]] = []
    for broken in itertools.product(*(itertools.permutations(group) for group in tied)):
        ranks = [0.0] * len(places)
        for rank, seat in enumerate(itertools.chain.from_iterable(broken), start=1):
            ranks[seat] = float(rank)
        orders.append(ranks)
    return orders


def fold(games: Iterable[Game], into: Fold | None = None) -> Fold:
    """`games` (oldest first) folded into `into` (a new fold by default)."""
    done = Fold() if into is None else into
    for game in games:
        done.add(game)
    return done


@dataclass(frozen=True, slots=True)
class Rerated:
    """How one game moved a seat's rating: its rating identity's rating shown after the game
    (`Standing.rating`), the change from the one shown before it, and whether it is still
    provisional (`Standing.provisional`)."""

    player: str
    """The seat's rating identity: a person's id, or an AI level's (`ai:hard`)."""
    rating: int
    change: int
    provisional: bool


@dataclass(frozen=True, slots=True)
class Noted:
    """How the newest game a fold folded moved its seats' ratings (`fold_noting`): kept with
    the fold, so that the game's end, shown by whichever worker (again after a crash too),
    says it."""

    game: str
    """The game's id (`Game.game`; "" for a summary that did not keep it: matches none)."""
    ratings: tuple[Rerated, ...]
    """One per seat, in seat order (two seats of one AI level both show the level's)."""

    def of(self, game: str) -> tuple[Rerated, ...]:
        """The ratings if they are of the game `game`, else none."""
        return self.ratings if game and game == self.game else ()

    def to_json(self) -> str:
        moved = [[r.player, r.rating, r.change, r.provisional] for r in self.ratings]
        return json.dumps({"g": self.game, "r": moved})

    @classmethod
    def from_json(cls, text: str | bytes | None) -> "Noted":
        """The note stored as `text`; one of no game if there is none, or it cannot be read
        (then no game's end says how it moved the ratings)."""
        if not text:
            return cls("", ())
        try:
            data = json.loads(text)
            return cls(
                str(data["g"]),
                tuple(Rerated(str(p), int(r), int(c), bool(v)) for p, r, c, v in data["r"]),
            )
        except (ValueError, TypeError, KeyError):
            return cls("", ())


def fold_noting(games: Sequence[Game], into: Fold | None) -> tuple[Fold, Noted]:
    """`games` (oldest first) folded into `into`, as `fold` does; and how the newest of them
    (the last) moved each of its seats' ratings (a note of no game if there is none)."""
    if not games:
        return fold(games, into), Noted("", ())
    done = fold(games[:-1], into)
    game = games[-1]
    before = {
        seat.player: done.players.get(seat.player, Standing(seat.name)).rating
        for seat in game.seats
    }
    done.add(game)
    after = [done.players[seat.player] for seat in game.seats]
    moved = tuple(
        Rerated(seat.player, s.rating, s.rating - before[seat.player], s.provisional)
        for seat, s in zip(game.seats, after, strict=True)
    )
    return done, Noted(game.game, moved)


def unfolded(games: Sequence[Game], cursor: str) -> tuple[list[Game], bool]:
    """Of `games` (newest first, as kept), those after the one named `cursor`, oldest first;
    and whether `cursor` was among them (else all of `games` are newer than it, or it is "")."""
    newer: list[Game] = []
    for game in games:
        if cursor and game.key == cursor:
            return newer[::-1], True
        newer.append(game)
    return newer[::-1], False


def recent(games: Iterable[Game], now: float, window: float = WINDOW) -> list[Game]:
    """The games that ended in the last `window` seconds, in the same order."""
    return [game for game in games if game.finished >= now - window]


# --- boards and look-ups -----------------------------------------------------------------------


def board(players: Mapping[str, Standing], limit: int = BOARD) -> list[tuple[str, Standing]]:
    """The leaderboard: players with a game, by the conservative rating (highest first), then
    by games played, then by name; at most `limit` rows."""
    ranked = [(p, s) for p, s in players.items() if s.games and not forgotten(p)]
    ranked.sort(key=lambda item: (-item[1].ordinal, -item[1].games, item[1].name.casefold()))
    return ranked[:limit]


def _normal(name: str) -> str:
    """A name as it looks (`alike`: without what draws nothing), NFKC-normalised, spaces
    trimmed: `Ann (2)` finds the second Ann, whatever invisible character her name has."""
    return unicodedata.normalize("NFKC", alike(name)).strip()


def folded_name(name: str) -> str:
    """A name as compared by `find`: `_normal`, case-folded."""
    return _normal(name).casefold()


def namesakes(players: Mapping[str, Standing]) -> dict[str, int]:
    """Each person's number among the people called alike here (`bot.namesakes`): 1 for the
    first to play here, 2 for the next, as the fold met them (`Fold.players`), so a number stays
    with its person from one board to the next, whoever plays or wins later."""
    people = [(p, s.name) for p, s in players.items() if person(p)]
    counted = numbers(name for _, name in people)
    return {player: number for (player, _), number in zip(people, counted, strict=True)}


def find(players: Mapping[str, Standing], name: str) -> list[str]:
    """The players `name` may mean: an AI level by its name (`hard`: the level's, even where a
    person is called so too), else the people called `name` as seated, or as numbered among
    people called alike (`Ann (2)`; the first is also `Ann (1)`: see `namesakes`), compared
    case-insensitively; of several, those written exactly so, if any. In the order of
    `namesakes`; empty if nobody is meant."""
    wanted = folded_name(name)
    if not wanted:
        return []
    for player, standing in players.items():
        if level_of(player) is not None and folded_name(standing.name) == wanted:
            return [player]
    found: dict[str, set[str]] = {}
    for player, number in namesakes(players).items():
        called = players[player].name
        names = {_normal(called), _normal(numbered(called, number))}
        if wanted in {n.casefold() for n in names}:
            found[player] = names
    written = [player for player, names in found.items() if _normal(name) in names]
    return written or list(found)


SUGGESTED = 3
"""Players a name that matches nobody suggests at most (`near`)."""


def starts_a_word(name: str, wanted: str) -> bool:
    """Whether `wanted` (folded: `folded_name`) starts `name` or a word of it, compared as `find`
    does (`bob` for Bob Brown)."""
    called = folded_name(name)
    return called.startswith(wanted) or any(w.startswith(wanted) for w in called.split())


def near(players: Mapping[str, Standing], name: str, limit: int = SUGGESTED) -> list[str]:
    """The players a `name` that `find` matched to nobody may have meant: those with a word of
    their name that starts with it, compared as `find` does (`bob` for Bob Brown, `max` for
    Maximilian), in the order of `namesakes`; at most `limit`. A name that already means
    someone gets none."""
    wanted = folded_name(name)
    if not wanted or find(players, name):
        return []
    found = []
    for player, standing in players.items():
        if forgotten(player) or not standing.games:
            continue
        if starts_a_word(standing.name, wanted):
            found.append(player)
    return found[:limit]


def anonymised(entry: Mapping[str, Any], player: str, alias: str) -> dict[str, Any] | None:
    """A summary with `player` replaced by `alias` (their name blanked): the others' places and
    points stay, so their stats and ratings add up as before. None if `player` is not in it."""
    players = entry.get("players")
    if not isinstance(players, list) or player not in players:
        return None
    changed = dict(entry)
    changed["players"] = [alias if p == player else p for p in players]
    names = entry.get("names")
    if isinstance(names, list) and len(names) == len(players):
        changed["names"] = ["" if p == player else n for p, n in zip(players, names, strict=True)]
    return changed


SEAT_NAME = "Player {seat}"
"""What a game's record calls a forgotten player's seat (`record_without`; a record's names
may not be blank)."""


def record_without(
    record: Mapping[str, Any], entry: Mapping[str, Any], player: str
) -> dict[str, Any] | None:
    """The chat's record of its last game (`wizard-record/1`, which names players by name only)
    with `player`'s name replaced by their seat's (`Player 2`), if it is the game of `entry`
    (the chat's newest summary, as read before `anonymised`: the same names and totals) and
    `player` sat in it; else None."""
    players, names = entry.get("players"), entry.get("names")
    if not (isinstance(players, list) and player in players and isinstance(names, list)):
        return None
    if len(names) != len(players):
        return None
    if record.get("players") != names or record.get("totals") != entry.get("totals"):
        return None
    changed = dict(record)
    changed["players"] = [
        SEAT_NAME.format(seat=seat) if p == player else name
        for seat, (p, name) in enumerate(zip(players, names, strict=True), start=1)
    ]
    return changed
