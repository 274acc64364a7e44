"""Game records: check_record accepts valid records and rejects each broken rule where it is."""

import copy
import itertools
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import engine
from engine import (
    DECK,
    Bid,
    BidMode,
    ChooseTrump,
    Deal,
    GameState,
    Join,
    Options,
    Phase,
    Play,
    RecordError,
    RoundsPlan,
    SetOptions,
    Start,
    Suit,
    check_record,
    export_record,
    parse_cards,
    step,
)
from engine.randomplay import play_random_game

Record = dict[str, Any]
SHORT = Options(rounds=RoundsPlan.SHORT)
NAMES = ["Ann", "Bob", "Cid"]


def record_of(state: GameState) -> Record:
    """The exported record of a finished game, as it comes back from JSON."""
    return json.loads(json.dumps(export_record(state)))


def short_game(seed: int, options: Options = SHORT, players: int = 3) -> GameState:
    state, _ = play_random_game(players, options, seed)
    return state


def find_record(
    want: Callable[[Record], bool], options: Options = SHORT, players: int = 3
) -> Record:
    """The record of the first random game (by seed) with the feature `want` looks for."""
    for seed in range(2_000):
        record = record_of(short_game(seed, options, players))
        if want(record):
            return record
    raise AssertionError("no game with the wanted feature")


def rejected(record: object, round_number: int, trick: int, *words: str) -> RecordError:
    """Assert that `record` is refused at (round, trick) with a reason naming every one of
    `words` (case-insensitive)."""
    with pytest.raises(RecordError) as info:
        check_record(record)
    error = info.value
    assert (error.round, error.trick) == (round_number, trick), error
    for word in words:
        assert word.lower() in error.reason.lower(), error
    assert str(error) == f"round {round_number} trick {trick}: {error.reason}"
    return error


def rounds_where(record: Record, want: Callable[[dict[str, Any]], bool]) -> list[int]:
    return [raw["number"] for raw in record["rounds"] if want(raw)]


def hands_before(raw: dict[str, Any], players: int) -> Iterator[tuple[int, list[list[str]]]]:
    """For each trick (1-based) of a recorded round, every player's hand before it."""
    hands = [list(hand) for hand in raw["hands"]]
    for index, trick in enumerate(raw["tricks"], start=1):
        yield index, [list(hand) for hand in hands]
        for offset, card in enumerate(trick["cards"]):
            hands[(trick["leader"] + offset) % players].remove(card)


@pytest.fixture(scope="module")
def game() -> GameState:
    return short_game(seed=3)


@pytest.fixture
def record(game: GameState) -> Record:
    """A valid 3-player rounds=short record, fresh for each test to break."""
    return record_of(game)


# --- valid records ---------------------------------------------------------------------------


def test_valid_record_returns_the_final_state(game: GameState, record: Record) -> None:
    state = check_record(record)
    assert isinstance(state, GameState)
    assert state.phase is Phase.FINISHED
    assert state.round is None
    assert state.results == game.results
    assert state.totals == game.totals == record["totals"]
    assert [player.name for player in state.players] == record["players"] == NAMES
    assert state.options.to_dict() == game.options.to_dict()
    assert state.first_dealer == record["first_dealer"]


def test_record_has_the_documented_shape(record: Record) -> None:
    assert record["format"] == engine.FORMAT == "wizard-record/1"
    assert set(record) >= {"format", "players", "options", "first_dealer", "rounds", "totals"}
    assert set(record["options"]) >= {"notequal", "bids", "rounds", "dmmixed", "foresight"}
    for raw in record["rounds"]:
        assert set(raw) >= {
            "number",
            "cards",
            "dealer",
            "hands",
            "trump_card",
            "trump",
            "bids",
            "tricks",
            "won",
            "points",
        }
        for trick in raw["tricks"]:
            assert set(trick) == {"leader", "cards", "winner"}


@pytest.mark.parametrize(
    "options",
    [
        Options(notequal=True, bids=BidMode.HIDDEN, rounds=RoundsPlan.SHORT),
        Options(notequal=True, bids=BidMode.SECRET, rounds=RoundsPlan.SHORT, dmmixed=True),
        Options(rounds=RoundsPlan.TOURNAMENT, foresight=True),
        Options(foresight=True, wings=True),
    ],
)
@pytest.mark.parametrize("players", [3, 4, 5])
def test_valid_records_of_every_kind_check(options: Options, players: int) -> None:
    state = short_game(seed=players, options=options, players=players)
    replayed = check_record(record_of(state))
    assert replayed.results == state.results
    assert replayed.totals == state.totals


def test_extra_unknown_keys_are_ignored(game: GameState, record: Record) -> None:
    record["created"] = "2024-05-01T12:00:00Z"
    record["platform"] = {"telegram": {"chat": -100123}}
    record["options"]["theme"] = "fantasy"
    for raw in record["rounds"]:
        raw["started_at"] = 1714564800
        raw["theme"] = ["humans", "elves"]
        for trick in raw["tricks"]:
            trick["ms"] = 1234
    state = check_record(record)
    assert state.results == game.results
    assert state.totals == game.totals


def test_bids_may_add_up_to_the_tricks_without_notequal() -> None:
    record = find_record(
        lambda rec: bool(rounds_where(rec, lambda raw: sum(raw["bids"]) == raw["cards"]))
    )
    assert record["options"]["notequal"] is False
    assert check_record(record).totals == record["totals"]


# --- not a record ----------------------------------------------------------------------------


@pytest.mark.parametrize("data", [None, 42, "wizard-record/1", [], {}, {"players": NAMES}])
def test_not_a_record(data: object) -> None:
    rejected(data, 0, 0, "not a wizard-record/1 record")


@pytest.mark.parametrize("name", ["wizard-record/2", "WIZARD-RECORD/1", None, 1])
def test_wrong_format(record: Record, name: object) -> None:
    record["format"] = name
    rejected(record, 0, 0, "wizard-record/1")


def test_missing_format(record: Record) -> None:
    del record["format"]
    rejected(record, 0, 0, "wizard-record/1")


@pytest.mark.parametrize(
    "players",
    [
        ["Ann", "Bob"],
        ["A", "B", "C", "D", "E", "F", "G"],
        [],
        "Ann Bob Cid",
        None,
        ["Ann", "", "Cid"],
        ["Ann", "  ", "Cid"],
        ["Ann", 7, "Cid"],
    ],
)
def test_bad_players(record: Record, players: object) -> None:
    record["players"] = players
    rejected(record, 0, 0, "players", "3 to 6")


def test_players_not_matching_the_hands(record: Record) -> None:
    record["players"] = [*NAMES, "Dee"]
    rejected(record, 1, 0, "hands must be 4 lists")


@pytest.mark.parametrize("first_dealer", [-1, 3, 10, "0", None, True, 1.0])
def test_bad_first_dealer(record: Record, first_dealer: object) -> None:
    record["first_dealer"] = first_dealer
    rejected(record, 0, 0, "first_dealer")


def test_another_first_dealer_moves_every_dealer(record: Record) -> None:
    record["first_dealer"] = (record["first_dealer"] + 1) % 3
    rejected(record, 1, 0, "dealer")


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"rounds": "marathon"}, ("rounds",)),
        ({"bids": "loud"}, ("bids",)),
        ({"notequal": "maybe"}, ("notequal",)),
        ([], ("options",)),
    ],
)
def test_bad_options(record: Record, options: object, words: tuple[str, ...]) -> None:
    record["options"] = options
    rejected(record, 0, 0, *words)


def test_tournament_rounds_for_six_players() -> None:
    record = record_of(short_game(seed=1, players=6))
    record["options"]["rounds"] = "tournament"
    rejected(record, 0, 0, "tournament")


def test_options_of_another_plan(record: Record) -> None:
    record["options"]["rounds"] = "standard"
    rejected(record, 0, 0, "5 rounds recorded", "20")


# --- the number of rounds --------------------------------------------------------------------


def test_a_round_missing(record: Record) -> None:
    record["rounds"].pop()
    rejected(record, 0, 0, "4 rounds recorded", "5")


def test_a_round_too_many(record: Record) -> None:
    record["rounds"].append(copy.deepcopy(record["rounds"][-1]))
    rejected(record, 0, 0, "6 rounds recorded", "5")


@pytest.mark.parametrize("rounds", [None, {}, "1 2 3 4 5"])
def test_rounds_not_a_list(record: Record, rounds: object) -> None:
    record["rounds"] = rounds
    rejected(record, 0, 0, "rounds")


def test_rounds_out_of_order(record: Record) -> None:
    record["rounds"][1], record["rounds"][2] = record["rounds"][2], record["rounds"][1]
    rejected(record, 2, 0, "round number")


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("number", 9, ("round number",)),
        ("cards", 4, ("cards",)),
        ("dealer", "x", ("dealer",)),
        ("hands", None, ("hands",)),
    ],
)
def test_broken_round_header(record: Record, key: str, value: object, words: tuple[str]) -> None:
    record["rounds"][2][key] = value
    rejected(record, 3, 0, *words)


def test_a_round_not_an_object(record: Record) -> None:
    record["rounds"][3] = ["not", "a", "round"]
    rejected(record, 4, 0, "round")


# --- the deal: one deck, the right trump -----------------------------------------------------


def test_duplicate_card(record: Record) -> None:
    raw = record["rounds"][3]
    numbered = next(card for card in raw["hands"][0] if card not in ("W", "J"))
    raw["hands"][1][0] = numbered
    rejected(record, 4, 0, "cards not from one deck", numbered)


def test_trump_card_also_in_a_hand(record: Record) -> None:
    raw = record["rounds"][4]
    numbered = next(card for card in raw["hands"][2] if card not in ("W", "J"))
    raw["trump_card"] = numbered
    raw["trump"] = numbered[0]
    rejected(record, 5, 0, "cards not from one deck", numbered)


def test_five_wizards() -> None:
    record = find_record(lambda rec: rec["rounds"][4]["trump_card"] not in ("W", "J"))
    raw = record["rounds"][4]
    raw["hands"] = [["W"] * 5, *raw["hands"][1:]]
    rejected(record, 5, 0, "cards not from one deck", "W")


@pytest.mark.parametrize("card", ["R14", "r5", "X", "", 5, None])
def test_not_a_card_in_a_hand(record: Record, card: object) -> None:
    record["rounds"][1]["hands"][0][0] = card
    rejected(record, 2, 0, "not a card")


@pytest.mark.parametrize("card", [["R1"], {"card": "R1"}])
def test_a_hand_holding_something_unhashable(record: Record, card: object) -> None:
    record["rounds"][1]["hands"][0][0] = card
    rejected(record, 2, 0, "not a card")


def test_numbered_trump_card_with_another_suit() -> None:
    record = find_record(lambda rec: rec["rounds"][1]["trump_card"] not in ("W", "J"))
    raw = record["rounds"][1]
    assert raw["trump"] == raw["trump_card"][0]
    raw["trump"] = next(suit for suit in "BGRY" if suit != raw["trump"])
    error = rejected(record, 2, 0, "wrong trump")
    assert error.reason.endswith(f"the turned card gives {raw['trump_card'][0]}")


@pytest.mark.parametrize("trump", [None, "X", "b", "Blue", 3])
def test_numbered_trump_card_with_a_bad_trump(record: Record, trump: object) -> None:
    number = rounds_where(record, lambda raw: raw["trump_card"] not in ("W", "J"))[0]
    record["rounds"][number - 1]["trump"] = trump
    rejected(record, number, 0, "wrong trump")


def has_trump_card(card: str) -> Callable[[Record], bool]:
    return lambda record: bool(rounds_where(record, lambda raw: raw["trump_card"] == card))


@pytest.mark.parametrize("trump", ["R", "B"])
def test_jester_trump_card_with_a_suit(trump: str) -> None:
    record = find_record(has_trump_card("J"))
    number = rounds_where(record, lambda raw: raw["trump_card"] == "J")[0]
    assert record["rounds"][number - 1]["trump"] is None
    record["rounds"][number - 1]["trump"] = trump
    rejected(record, number, 0, "wrong trump")


def test_wizard_trump_card_with_trump_null() -> None:
    record = find_record(has_trump_card("W"))
    number = rounds_where(record, lambda raw: raw["trump_card"] == "W")[0]
    assert record["rounds"][number - 1]["trump"] in ("B", "G", "R", "Y")
    record["rounds"][number - 1]["trump"] = None
    rejected(record, number, 0, "wrong trump", "wizard")


@pytest.mark.parametrize("trump", ["X", "W", "b"])
def test_wizard_trump_card_with_no_suit(trump: str) -> None:
    record = find_record(has_trump_card("W"))
    number = rounds_where(record, lambda raw: raw["trump_card"] == "W")[0]
    record["rounds"][number - 1]["trump"] = trump
    rejected(record, number, 0, "wrong trump")


@pytest.mark.parametrize("trump", [["B"], {"suit": "B"}])
def test_wizard_trump_card_with_an_unhashable_trump(trump: object) -> None:
    record = find_record(has_trump_card("W"))
    number = rounds_where(record, lambda raw: raw["trump_card"] == "W")[0]
    record["rounds"][number - 1]["trump"] = trump
    rejected(record, number, 0, "wrong trump")


def test_no_trump_card_while_cards_remain(record: Record) -> None:
    record["rounds"][2]["trump_card"] = None
    record["rounds"][2]["trump"] = None
    rejected(record, 3, 0, "wrong trump")


@pytest.mark.parametrize("card", ["X9", 7])
def test_trump_card_not_a_card(record: Record, card: object) -> None:
    record["rounds"][2]["trump_card"] = card
    rejected(record, 3, 0, "trump_card")


@pytest.fixture(scope="module")
def standard_record() -> Record:
    """A 3-player standard game: its round 20 deals all 60 cards."""
    state, _ = play_random_game(3, Options(), seed=11)
    return record_of(state)


def test_last_round_of_a_standard_game_has_no_trump(standard_record: Record) -> None:
    last = standard_record["rounds"][-1]
    assert (last["number"], last["trump_card"], last["trump"]) == (20, None, None)
    record = copy.deepcopy(standard_record)
    record["rounds"][-1]["trump"] = "R"
    rejected(record, 20, 0, "wrong trump")
    record = copy.deepcopy(standard_record)
    record["rounds"][-1]["trump_card"] = "R7"
    record["rounds"][-1]["trump"] = "R"
    error = rejected(record, 20, 0)  # R7 is dealt already: no card is left to turn
    assert "R7" in error.reason or "trump" in error.reason


# --- bids ------------------------------------------------------------------------------------


@pytest.mark.parametrize("bid", [-1, 4, 100])
def test_bid_out_of_range(record: Record, bid: int) -> None:
    record["rounds"][2]["bids"][1] = bid  # round 3: bids run from 0 to 3
    error = rejected(record, 3, 0, "out of range", str(bid))
    assert "Bob" in error.reason


@pytest.mark.parametrize(
    "bids", [[0, 1], [0, 1, 1, 0], None, [0, "1", 1], [0, 1.0, 1], [0, True, 1]]
)
def test_bids_malformed(record: Record, bids: object) -> None:
    record["rounds"][2]["bids"] = bids
    rejected(record, 3, 0, "bids")


def notequal_record(bids: BidMode, players: int = 3) -> tuple[Record, int, int]:
    """A notequal record, a round of it and the dealer's bid that would make the bids add up."""
    options = Options(notequal=True, bids=bids, rounds=RoundsPlan.SHORT)
    for seed in range(500):
        record = record_of(short_game(seed, options, players))
        assert record["options"]["notequal"] is True
        for raw in record["rounds"]:
            dealer = raw["dealer"]
            assert sum(raw["bids"]) != raw["cards"]
            others = sum(raw["bids"]) - raw["bids"][dealer]
            if 0 <= raw["cards"] - others <= raw["cards"]:
                return record, raw["number"], raw["cards"] - others
    raise AssertionError("no round where the dealer could make the bids add up")


@pytest.mark.parametrize("bids", list(BidMode))
def test_bid_forbidden_by_notequal(bids: BidMode) -> None:
    record, number, forbidden = notequal_record(bids)
    raw = record["rounds"][number - 1]
    assert check_record(record).totals == record["totals"]
    raw["bids"][raw["dealer"]] = forbidden
    assert sum(raw["bids"]) == raw["cards"]
    rejected(record, number, 0, "notequal")


def test_bid_forbidden_by_notequal_names_the_dealer() -> None:
    record, number, forbidden = notequal_record(BidMode.OPEN)
    raw = record["rounds"][number - 1]
    raw["bids"][raw["dealer"]] = forbidden
    error = rejected(record, number, 0, "forbidden by notequal", str(forbidden))
    assert NAMES[raw["dealer"]] in error.reason


def test_tournament_records_keep_notequal_by_default() -> None:
    state, _ = play_random_game(4, Options(rounds=RoundsPlan.TOURNAMENT), seed=2)
    record = record_of(state)
    assert record["options"]["notequal"] is True
    for raw in record["rounds"]:
        others = sum(raw["bids"]) - raw["bids"][raw["dealer"]]
        if raw["cards"] - others >= 0:
            raw["bids"][raw["dealer"]] = raw["cards"] - others
            rejected(record, raw["number"], 0, "notequal")
            return
    raise AssertionError("no round to break")


# --- tricks ----------------------------------------------------------------------------------


def test_card_not_in_hand(record: Record) -> None:
    raw = record["rounds"][3]
    dealt = {card for hand in raw["hands"] for card in hand} | {raw["trump_card"]}
    outside = next(card for card in DECK if card not in dealt)
    trick = raw["tricks"][1]
    seat = (trick["leader"] + 1) % 3
    trick["cards"][1] = outside
    error = rejected(record, 4, 2, "not in their hand", outside)
    assert NAMES[seat] in error.reason


def test_card_played_twice(record: Record) -> None:
    """A numbered card played again by the same player in the next trick: no longer in hand."""
    raw = record["rounds"][4]
    for index, (trick, following) in enumerate(itertools.pairwise(raw["tricks"]), start=1):
        for offset, card in enumerate(trick["cards"]):
            if card in ("W", "J"):
                continue
            seat = (trick["leader"] + offset) % 3
            following["cards"][(seat - following["leader"]) % 3] = card
            error = rejected(record, 5, index + 1, "not in their hand", card)
            assert NAMES[seat] in error.reason
            return
    raise AssertionError("no numbered card to play twice")


def test_card_not_a_card_in_a_trick(record: Record) -> None:
    record["rounds"][2]["tricks"][0]["cards"][2] = "Z3"
    rejected(record, 3, 1, "not a card")


def lead_suit(cards: list[str]) -> str | None:
    """The suit of the first numbered card, unless a Wizard came first (Jesters leave it open)."""
    for card in cards:
        if card != "J":
            return None if card == "W" else card[0]
    return None


def test_revoke_in_a_random_game() -> None:
    """Find a trick where a player who could follow suit did, and swap in their off-suit card."""
    for seed in range(200):
        record = record_of(short_game(seed))
        for raw in record["rounds"]:
            for index, hands in hands_before(raw, 3):
                trick = raw["tricks"][index - 1]
                for position in range(1, 3):
                    led = lead_suit(trick["cards"][:position])
                    hand = hands[(trick["leader"] + position) % 3]
                    off = [card for card in hand if card[0] in "BGRY" and card[0] != led]
                    if led is None or not any(card[0] == led for card in hand) or not off:
                        continue
                    trick["cards"][position] = off[0]
                    error = rejected(record, raw["number"], index, "revoke", off[0])
                    seat = (trick["leader"] + position) % 3
                    assert record["players"][seat] in error.reason
                    return
    raise AssertionError("no trick to revoke in")


def scripted_game() -> GameState:
    """Three players, rounds=short, fixed deals. In round 2 (dealer Bob), Cid leads R5 and Ann,
    holding R9 and B13, must follow with R9; Bob has no red and plays G2."""
    deals = []
    for cards in range(1, 6):
        hands = tuple(tuple(DECK[seat * cards : (seat + 1) * cards]) for seat in range(3))
        deals.append(Deal(hands=hands, trump_card=DECK[3 * cards]))
    deals[1] = Deal(
        hands=(
            tuple(parse_cards("R9 B13")),
            tuple(parse_cards("G2 G3")),
            tuple(parse_cards("R5 Y1")),
        ),
        trump_card=parse_cards("Y13")[0],
    )
    state = GameState()
    for seat, name in enumerate(NAMES):
        step(state, Join(player=f"p{seat}", name=name))
    step(state, SetOptions(SHORT))
    step(state, Start(seed=0, first_dealer=0, deals=tuple(deals)))
    while state.phase is not Phase.FINISHED:
        rnd = state.round
        assert rnd is not None
        if state.phase is Phase.TRUMP:
            step(state, ChooseTrump(f"p{rnd.dealer}", Suit.GREEN))
        elif state.phase is Phase.BIDDING:  # everybody bids 0, in turn
            made = sum(bid is not None for bid in rnd.bids)
            step(state, Bid(f"p{(rnd.dealer + 1 + made) % 3}", 0))
        else:
            step(state, Play(f"p{rnd.turn}", engine.legal_plays(state, rnd.turn)[0]))
    return state


@pytest.fixture(scope="module")
def scripted() -> Record:
    record = record_of(scripted_game())
    raw = record["rounds"][1]
    assert raw["dealer"] == 1
    assert raw["tricks"][0] == {"leader": 2, "cards": ["R5", "R9", "G2"], "winner": 0}
    return record


def test_scripted_record_is_valid(scripted: Record) -> None:
    assert check_record(copy.deepcopy(scripted)).totals == scripted["totals"]


def test_revoke(scripted: Record) -> None:
    record = copy.deepcopy(scripted)
    record["rounds"][1]["tricks"][0]["cards"] = ["R5", "B13", "G2"]
    error = rejected(record, 2, 1, "revoke", "B13", "could follow suit")
    assert "Ann" in error.reason


def test_a_wizard_played_while_holding_the_lead_suit_is_no_revoke(scripted: Record) -> None:
    """The same round with Ann dealt a Wizard instead of the B13: she may play it on R5."""
    record = copy.deepcopy(scripted)
    raw = record["rounds"][1]
    assert sum(hand.count("W") for hand in raw["hands"]) == 0
    raw["hands"][0] = ["R9", "W"]
    first, second = raw["tricks"]
    first["cards"] = ["R5", "W", "G2"]  # Ann keeps her R9 and plays the Wizard
    assert first["winner"] == 0
    assert second["leader"] == 0
    assert second["cards"][0] == "B13"
    second["cards"][0] = "R9"  # Ann leads her last card; Cid's Y1 (trump) still wins
    assert second["winner"] == 2
    assert check_record(record).totals == scripted["totals"]
    # and the B13 in place of the Wizard is the revoke again
    raw["hands"][0] = ["R9", "B13"]
    first["cards"] = ["R5", "B13", "G2"]
    rejected(record, 2, 1, "revoke")


def test_wrong_trick_winner(record: Record) -> None:
    trick = record["rounds"][3]["tricks"][2]
    right = trick["winner"]
    trick["winner"] = (right + 1) % 3
    rejected(record, 4, 3, "wrong winner", f"seat {right}")


@pytest.mark.parametrize("winner", [None, 3, -1, "0"])
def test_bad_trick_winner(record: Record, winner: object) -> None:
    record["rounds"][1]["tricks"][0]["winner"] = winner
    rejected(record, 2, 1, "wrong winner")


@pytest.mark.parametrize("index", [0, 2])
def test_wrong_leader(record: Record, index: int) -> None:
    trick = record["rounds"][3]["tricks"][index]
    right = trick["leader"]
    trick["leader"] = (right + 1) % 3
    rejected(record, 4, index + 1, "wrong leader", f"seat {right}")


def test_first_trick_is_led_left_of_the_dealer(record: Record) -> None:
    for raw in record["rounds"]:
        assert raw["tricks"][0]["leader"] == (raw["dealer"] + 1) % 3
    raw = record["rounds"][2]
    raw["tricks"][0]["leader"] = raw["dealer"]
    rejected(record, 3, 1, "wrong leader")


def test_trick_with_too_few_cards(record: Record) -> None:
    record["rounds"][2]["tricks"][1]["cards"].pop()
    rejected(record, 3, 2, "3 cards")


def test_trick_not_an_object(record: Record) -> None:
    record["rounds"][2]["tricks"][1] = ["R1", "R2", "R3"]
    rejected(record, 3, 2, "3 cards")


@pytest.mark.parametrize("change", ["drop", "add", "none"])
def test_wrong_number_of_tricks(record: Record, change: str) -> None:
    tricks = record["rounds"][2]["tricks"]
    if change == "drop":
        tricks.pop()
    elif change == "add":
        tricks.append(copy.deepcopy(tricks[-1]))
    else:
        record["rounds"][2]["tricks"] = None
    rejected(record, 3, 0, "3 tricks")


# --- scores ----------------------------------------------------------------------------------


def test_wrong_won(record: Record) -> None:
    raw = record["rounds"][3]
    raw["won"][0] += 1
    raw["won"][1] -= 1
    rejected(record, 4, 0, "wrong won")


def test_wrong_points(record: Record) -> None:
    raw = record["rounds"][3]
    raw["points"][2] += 10
    rejected(record, 4, 0, "wrong points")


@pytest.mark.parametrize("key", ["won", "points"])
def test_missing_scores(record: Record, key: str) -> None:
    del record["rounds"][1][key]
    rejected(record, 2, 0, f"wrong {key}")


def test_wrong_totals(record: Record) -> None:
    record["totals"][1] -= 10
    rejected(record, 0, 0, "wrong totals")


@pytest.mark.parametrize("totals", [None, [0, 0], "0 0 0"])
def test_malformed_totals(record: Record, totals: object) -> None:
    record["totals"] = totals
    rejected(record, 0, 0, "totals")


def test_points_and_totals_changed_together_are_still_wrong(record: Record) -> None:
    """Consistent bookkeeping does not make wrong points right: the rules give the points."""
    record["rounds"][0]["points"][0] += 10
    record["totals"][0] += 10
    rejected(record, 1, 0, "wrong points")


# --- where: the first broken rule is the one reported ----------------------------------------


def test_the_earliest_problem_is_reported(record: Record) -> None:
    later = record["rounds"][4]
    numbered = next(card for card in later["hands"][0] if card not in ("W", "J"))
    later["hands"][1][0] = numbered  # round 5: cards not from one deck
    record["rounds"][1]["tricks"][1]["winner"] = (
        record["rounds"][1]["tricks"][1]["winner"] + 1
    ) % 3
    record["totals"][0] += 1
    rejected(record, 2, 2, "wrong winner")
