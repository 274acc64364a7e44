"""The `wizard-bot` command line: demo, simulate, replay (--check), help and version (`run` and
`play`, the terminal table, are tested in test_console.py)."""

import contextlib
import gc
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from conftest import modules_loaded

from adapters import bulk
from adapters.cli import main, program
from bot.show.formatters import (
    game_log,
    score_line,
    score_sheet,
    seat_score,
    shown_points,
    signed_points,
    standings,
    text_width,
)
from bot.show.i18n import LANGUAGES, texts
from bot.show.look import Look
from bot.show.themes import Theme
from engine import Options, export_record, parse_option
from engine.options import RoundsPlan
from engine.randomplay import play_random_game
from engine.state import Player
from engine.views import ScoreRow, SeatView


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run `wizard-bot argv` in-process; return the exit status, stdout and stderr."""
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def simulate_records(
    capsys: pytest.CaptureFixture[str], folder: Path, games: int = 2, *extra: str
) -> list[Path]:
    status, _, err = run(
        capsys, "simulate", "--games", str(games), "--players", "3", "--seed", "10",
        "--option", "rounds=short", "--records", str(folder), *extra,
    )  # fmt: skip
    assert status == 0, err
    return sorted(folder.iterdir())


@pytest.fixture
def record_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A valid record written by `wizard-bot simulate`."""
    return simulate_records(capsys, tmp_path / "records", 1)[0]


def sheet_lines(out: str) -> list[list[str]]:
    """The score sheet's rows in `out`, split into round, cards and the players' cells."""
    return [
        line.replace("|", " ").split()
        for line in out.splitlines()
        if re.match(r"^\s*\d+\s+\d+[\s|]", line)
    ]


def corrupt_winner(path: Path, round_number: int, trick: int) -> Path:
    """A copy of the record in `path` with one trick's winner changed."""
    data: dict[str, Any] = json.loads(path.read_text())
    recorded = data["rounds"][round_number - 1]["tricks"][trick - 1]
    recorded["winner"] = (recorded["winner"] + 1) % len(data["players"])
    bad = path.with_name("bad.json")
    bad.write_text(json.dumps(data))
    return bad


# --- help, version, demo -------------------------------------------------------------------------


def test_help_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--help")
    assert status == 0
    for command in ("run", "play", "demo", "simulate", "replay"):
        assert re.search(rf"^\s+{command}\s+\w", out, re.MULTILINE), command


@pytest.mark.parametrize("command", ["run", "play", "demo", "simulate", "replay"])
def test_each_command_has_help(capsys: pytest.CaptureFixture[str], command: str) -> None:
    status, out, _ = run(capsys, command, "--help")
    assert status == 0
    assert f"usage: wizard-bot {command}" in out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--version")
    assert status == 0
    assert out.strip() == f"wizard-bot {metadata.version('wizard-bot')}"


def test_demo_game(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "demo")
    assert status == 0, err
    assert "Final standings" in out
    assert "wins!" in out or "share first place!" in out
    last = out.rstrip().splitlines()[-1]
    assert "wizard-bot play" in last
    assert "wizard-bot --help" in last


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_demo_sheet_has_a_row_per_round_and_fits_100_columns(
    capsys: pytest.CaptureFixture[str], players: int
) -> None:
    status, out, _ = run(capsys, "demo", "--players", str(players), "--seed", "42")
    assert status == 0
    state, _ = play_random_game(players, Options(), 42)
    rows = sheet_lines(out)
    assert len(rows) == len(state.results) == 60 // players
    for row, result in zip(rows, state.results, strict=True):
        assert row == [str(result.number), str(result.cards)] + [
            cell
            for bid, won, points, total in zip(
                result.bids, result.won, result.points, result.totals, strict=True
            )
            for cell in (f"{won}/{bid}", signed_points(points), shown_points(total))
        ]
    assert max(len(line) for line in out.splitlines()) <= 100
    for name, total in zip(["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"], state.totals, strict=False):
        assert re.search(rf"^(🥇|🥈|🥉|\d+\.) {name}: {shown_points(total)}$", out, re.MULTILINE)


def test_demo_is_reproducible_from_its_seed(capsys: pytest.CaptureFixture[str]) -> None:
    first = run(capsys, "demo", "--seed", "7", "--option", "notequal")
    assert first == run(capsys, "demo", "--seed", "7", "--option", "notequal")
    assert "wizard-bot demo --seed 7 --option notequal" in first[1]
    five = run(capsys, "demo", "--seed", "7", "--players", "5")
    assert "wizard-bot demo --seed 7 --players 5\n" in five[1]
    assert five == run(capsys, "demo", "--seed", "7", "--players", "5")
    assert "options: notequal" in first[1]


# --- simulate ------------------------------------------------------------------------------------


def test_simulate_writes_one_record_per_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "new" / "records"
    status, out, err = run(
        capsys, "simulate", "--games", "3", "--players", "4", "--seed", "100",
        "--option", "notequal", "--option", "bids=hidden", "--records", str(folder),
    )  # fmt: skip
    assert status == 0, err
    files = sorted(folder.iterdir())
    assert [file.name for file in files] == ["game-0000.json", "game-0001.json", "game-0002.json"]
    options = parse_option(parse_option(Options(), "notequal"), "bids=hidden")
    for index, file in enumerate(files):
        text = file.read_text()
        assert "\n" not in text.rstrip("\n")  # one line: no indent
        state, _ = play_random_game(4, options, 100 + index)
        assert json.loads(text) == export_record(state)
    assert re.search(r"^games\s+3\b", out, re.MULTILINE)
    assert re.search(r"^players\s+4\b", out, re.MULTILINE)
    assert re.search(r"^options\s+notequal bids=hidden$", out, re.MULTILINE)
    assert re.search(r"^mean\s+Ann -?\d+\.\d, Bob .*, Dee -?\d+\.\d$", out, re.MULTILINE)
    assert re.search(r"^elapsed\s+\d+\.\d+ s", out, re.MULTILINE)


def test_simulate_mean_is_the_mean_total_per_seat(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "simulate", "--games", "4", "--players", "3", "--seed", "5")
    assert status == 0
    totals = [play_random_game(3, Options(), 5 + index)[0].totals for index in range(4)]
    means = [sum(game[seat] for game in totals) / 4 for seat in range(3)]
    assert f"mean     Ann {means[0]:.1f}, Bob {means[1]:.1f}, Cid {means[2]:.1f}" in out


def test_simulate_without_records_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "simulate", "--games", "2", "--seed", "1")
    assert status == 0
    assert "records" not in out
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--players", "6", "--option", "rounds=tournament"], "rounds=tournament"),
        (["--option", "rounds=tornament"], "rounds=tornament"),
        (["--option", "colour"], "colour"),
        (["--option", "notequal=maybe"], "notequal=maybe"),
        (["--option", "bids=hidden", "--option", "bids=loud"], "bids=loud"),
    ],
)
@pytest.mark.parametrize("command", ["simulate", "demo"])
def test_a_bad_option_is_a_usage_error_naming_it(
    capsys: pytest.CaptureFixture[str], command: str, args: list[str], named: str
) -> None:
    games = ["--games", "1"] if command == "simulate" else []
    status, out, err = run(capsys, command, *games, *args)
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith(f"wizard-bot {command}: error: --option {named}: ")
    assert "Traceback" not in err


def test_tournament_with_six_players_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    _, _, err = run(capsys, "simulate", "--players", "6", "--option", "rounds=tournament")
    assert "tournament rounds are for 3 to 5 players, not 6" in err


@pytest.mark.parametrize(
    "args",
    [
        ["--players", "7"],
        ["--players", "x"],
        ["--games", "0"],
        ["--seed", "s"],
        ["--seed", str(2**64)],  # a record holds its seed as a 64-bit integer
        ["--seed", "-1"],
        ["--bad"],
    ],
)
def test_bad_arguments_are_usage_errors(
    capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    status, _, err = run(capsys, "simulate", *args)
    assert status == 2
    assert "error:" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "extra"),
    [(["simulate", "--bad"], "--bad"), (["backup", "a", "b"], "b"), (["replay", "x", "-q"], "-q")],
)
def test_an_unknown_argument_is_named_with_its_command_and_usage(
    capsys: pytest.CaptureFixture[str], args: list[str], extra: str
) -> None:
    status, _, err = run(capsys, *args)
    usage, said = err.splitlines()[0], err.splitlines()[-1]
    assert status == 2
    assert usage.startswith(f"usage: wizard-bot {args[0]} ")
    assert said == f"wizard-bot {args[0]}: error: unrecognized arguments: {extra}"


@pytest.mark.parametrize(
    "args",
    [
        ["simulate", "--records", ""],
        ["replay", ""],
        ["replay", "--check", "x.json", ""],
        ["backup", ""],
        ["restore", ""],
    ],
)
def test_an_empty_path_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    """An empty file or folder name (a shell variable unset: `backup "$FILE"`) is refused as
    such, before anything is read, written or started; it was `cannot create : ...`, or the
    current directory for `restore`."""
    status, out, err = run(capsys, *args)
    assert (status, out) == (2, "")
    assert err.splitlines()[-1].startswith(f"wizard-bot {args[0]}: error: argument ")
    assert err.splitlines()[-1].endswith(": an empty path names no file or folder")


def test_records_folder_that_cannot_be_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    status, _, err = run(capsys, "simulate", "--games", "1", "--records", str(blocker / "x"))
    assert status == 1
    assert err.startswith(f"wizard-bot simulate: cannot create {blocker / 'x'}: ")


def test_records_folder_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("kept")
    status, out, err = run(capsys, "simulate", "--games", "1", "--records", str(blocker))
    assert (status, out) == (1, "")
    assert err == f"wizard-bot simulate: cannot write records in {blocker}: it is not a directory\n"
    assert blocker.read_text() == "kept"


def without_elapsed(out: str) -> str:
    return "\n".join(line for line in out.splitlines() if not line.startswith("elapsed"))


def test_simulate_in_processes_writes_what_one_process_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outputs = []
    for jobs in ("1", "3"):
        folder = tmp_path / jobs
        status, out, err = run(
            capsys, "simulate", "--games", "7", "--players", "5", "--seed", "40",
            "--option", "bids=secret", "--records", str(folder), "--jobs", jobs,
        )  # fmt: skip
        assert status == 0, err
        outputs.append(without_elapsed(out).replace(str(folder), "DIR"))
    assert outputs[0] == outputs[1]
    names = sorted(path.name for path in (tmp_path / "1").iterdir())
    assert names == sorted(path.name for path in (tmp_path / "3").iterdir())
    assert len(names) == 7
    for name in names:
        assert (tmp_path / "1" / name).read_bytes() == (tmp_path / "3" / name).read_bytes()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_simulate_leaves_the_collector_as_it_was(
    capsys: pytest.CaptureFixture[str], jobs: str
) -> None:
    before = gc.get_threshold(), gc.get_freeze_count()
    status, _, err = run(capsys, "simulate", "--games", "2", "--jobs", jobs)
    assert status == 0, err
    assert (gc.get_threshold(), gc.get_freeze_count()) == before


def test_a_record_is_compact_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (path,) = simulate_records(capsys, tmp_path, 1)
    text = path.read_text()
    assert text == json.dumps(json.loads(text), separators=(",", ":")) + "\n"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_record_that_cannot_be_written_stops_the_simulation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], jobs: str
) -> None:
    blocker = tmp_path / "game-0001.json"
    blocker.mkdir()
    status, out, err = run(
        capsys, "simulate", "--games", "3", "--records", str(tmp_path), "--jobs", jobs
    )
    assert status == 1
    assert out == ""
    assert err.startswith(f"wizard-bot simulate: cannot write {blocker}: ")
    assert err.count("\n") == 1


def test_importing_the_command_line_loads_only_argparse() -> None:
    """`--version` and `--help` start fast: the engine, the bot, the JSON libraries and the
    package metadata load only for the commands that use them."""
    late = ("engine", "bot", "json", "orjson", "multiprocessing")
    loaded = modules_loaded("import adapters.cli")
    assert sorted(m for m in loaded if m.split(".")[0] in late or m == "importlib.metadata") == []


def test_the_interpreter_starts_without_an_import_hook() -> None:
    """The install puts the checkout on the path with a `.pth` line (pyproject.toml's
    `package-dir`), not setuptools' import hook for editable flat layouts, which loads pathlib
    and more at every start of Python (`python -c pass`: 21 ms with it, 9.5 without)."""
    loaded = modules_loaded("import engine")
    assert sorted(m for m in loaded if m.startswith("__editable__") or m == "pathlib") == []


def test_simulate_loads_the_random_games_and_not_the_rules(tmp_path: Path) -> None:
    """`simulate` starts fast: its random games, the options and orjson, and not the engine's
    rules, the AI, a process pool or hashlib (the compiled modules' digests need no
    cryptography)."""
    script = f"from adapters.cli import main\nmain(['simulate', '--records', {str(tmp_path)!r}])"
    loaded = modules_loaded(script)
    assert {"bot.simulation.randomgames", "engine.options", "orjson"} <= loaded
    unwanted = {"engine.game", "engine.checks", "bot.ai", "multiprocessing", "hashlib"}
    assert sorted(loaded & unwanted) == []


def test_the_program_exits_with_the_status_of_main(monkeypatch: pytest.MonkeyPatch) -> None:
    """`wizard-bot` runs `main` on its arguments, and leaves what it loaded frozen out of the
    garbage collector's way for its exit."""
    monkeypatch.setattr(sys, "argv", ["wizard-bot", "replay"])
    before = gc.get_freeze_count()
    try:
        assert program() == 2  # a usage error: no files
        assert gc.get_freeze_count() > before
    finally:
        gc.unfreeze()


# --- replay --------------------------------------------------------------------------------------


def test_a_simulated_record_passes_the_check(
    record_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "replay", "--check", str(record_file))
    assert status == 0
    totals = json.loads(record_file.read_text())["totals"]
    assert out == f"{record_file}: ok, totals Ann {totals[0]}, Bob {totals[1]}, Cid {totals[2]}\n"


def test_many_simulated_records_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = simulate_records(capsys, tmp_path, 5, "--option", "dmmixed")
    status, out, _ = run(capsys, "replay", "--check", *map(str, files))
    assert status == 0
    assert out.count(": ok, totals ") == 5


def test_checking_in_processes_says_what_one_process_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = simulate_records(capsys, tmp_path / "records", 6)
    bad = corrupt_winner(files[2], 2, 1)
    named = [*map(str, files[:3]), str(bad), str(tmp_path / "missing.json"), *map(str, files[3:])]
    first = run(capsys, "replay", "--check", *named)
    assert first[0] == 1
    assert first[1].count(": ok, totals ") == 6
    assert run(capsys, "replay", "--check", "--jobs", "2", *named) == first


def test_replaying_in_processes_is_for_checking(
    record_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(capsys, "replay", "--jobs", "2", str(record_file))
    assert status == 2
    assert out == ""
    assert (
        err
        == "wizard-bot replay: error: --jobs is for --check: replaying prints each game in turn\n"
    )


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16"])
def test_a_record_in_another_unicode_encoding_is_still_read(
    record_file: Path, capsys: pytest.CaptureFixture[str], encoding: str
) -> None:
    record_file.write_bytes(record_file.read_text().encode(encoding))
    status, out, _ = run(capsys, "replay", "--check", str(record_file))
    assert status == 0
    assert out.startswith(f"{record_file}: ok, totals ")


def test_a_wrong_trick_winner_is_reported_with_round_and_trick(
    record_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = corrupt_winner(record_file, 3, 2)
    status, out, err = run(capsys, "replay", "--check", str(bad))
    assert status == 1
    assert re.fullmatch(rf"{re.escape(str(bad))}: round 3 trick 2: wrong winner .*\n", out)
    assert "Traceback" not in out + err


def test_a_wrong_total_is_reported(record_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(record_file.read_text())
    data["totals"][1] += 10
    record_file.write_text(json.dumps(data))
    status, out, _ = run(capsys, "replay", "--check", str(record_file))
    assert status == 1
    assert out.startswith(f"{record_file}: wrong totals: ")


def test_a_wrong_count_of_a_round_names_the_round_alone(
    record_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A fault of a round as a whole (its tricks won, its points) names the round, and no
    trick 0."""
    data = json.loads(record_file.read_text())
    data["rounds"][1]["won"][0] += 1
    record_file.write_text(json.dumps(data))
    status, out, _ = run(capsys, "replay", "--check", str(record_file))
    assert status == 1
    assert out.startswith(f"{record_file}: round 2: wrong won: recorded ")


def test_replay_without_check_refuses_a_bad_record(
    record_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = corrupt_winner(record_file, 1, 1)
    status, out, _ = run(capsys, "replay", str(bad))
    assert status == 1
    assert out.startswith(f"{bad}: round 1 trick 1: wrong winner")
    assert "Round 1" not in out


def write(path: Path, content: str | bytes) -> Path:
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("broken.json", '{"format": oops}', "not JSON (line 1 column 12: Expecting value)"),
        ("empty.json", "", "empty: the file holds no record"),
        ("blank.json", " \n", "empty: the file holds no record"),
        ("binary.json", b'{"a": \x81}', "not JSON (not UTF-8 text)"),
        ("list.json", "[1, 2]", "not a wizard-record/1 record"),
        ("other.json", '{"format": "chess/1"}', "not a wizard-record/1 record"),
        ("deep.json", "[" * 100_000 + "]" * 100_000, "not JSON ("),
        ("players.json", '{"format": "wizard-record/1", "players": []}', "players must be"),
        ("number.json", '{"format": "wizard-record/1", "seed": ' + "9" * 5000 + "}", "a number of"),
    ],
)
def test_a_file_that_is_not_a_record_gets_one_clear_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    content: str | bytes,
    message: str,
) -> None:
    path = write(tmp_path / name, content)
    status, out, err = run(capsys, "replay", "--check", str(path))
    assert status == 1
    assert out.startswith(f"{path}: {message}")
    assert out.count("\n") == 1
    assert "Traceback" not in out + err


CUT_SHORT = "cut short: the file ends inside its record ({} bytes)"


def test_a_record_cut_anywhere_is_said_to_be_cut_short(record_file: Path) -> None:
    """A record cut short at any byte (what a SIGKILL of `simulate` as it writes one leaves;
    a non-ASCII name cut in the middle of its letter too) is said to be cut short, with its
    length, and not as JSON with a character unexpected."""
    whole = record_file.read_bytes().replace(b'"Bob"', '"Bö"'.encode())
    assert whole.endswith(b"}\n")
    for length in range(1, len(whole) - 1):  # with its closing brace, only the newline is cut
        with pytest.raises(bulk.BadRecord) as refused:
            bulk.parse_json(whole[:length])
        assert str(refused.value) == CUT_SHORT.format(length), whole[:length][-20:]


def test_a_cut_record_among_good_ones_is_named_and_the_rest_checked(
    record_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = record_file.read_bytes()
    cut = write(record_file.with_name("cut.json"), raw[: len(raw) // 2])
    middle = bytearray(raw)
    middle[len(raw) // 2] = ord("#")
    damaged = write(record_file.with_name("damaged.json"), bytes(middle))
    status, out, _ = run(capsys, "replay", "--check", str(cut), str(damaged), str(record_file))
    assert status == 1
    cut_line, damaged_line, good_line = out.splitlines()
    assert cut_line == f"{cut}: " + CUT_SHORT.format(len(raw) // 2)
    assert damaged_line.startswith(f"{damaged}: not JSON (line 1 column {len(raw) // 2 + 1}: ")
    assert good_line.startswith(f"{record_file}: ok, totals ")


@pytest.mark.parametrize("name", ["large.json", "/dev/zero"])
def test_a_file_too_large_for_a_record_is_not_read_whole(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file far larger than any record (a log named by mistake; /dev/zero, which never ends)
    is refused after its first bytes, not read into memory to its end."""
    if name.startswith("/"):
        path = Path(name)
        if not path.exists():
            pytest.skip(f"needs {path}")
    else:
        path = tmp_path / name
        with path.open("wb") as file:
            file.truncate(bulk.MAX_RECORD + 1)  # sparse: no time to write
    status, out, _ = run(capsys, "replay", "--check", str(path))
    assert (status, out) == (1, f"{path}: too large for a record (over 16 MiB)\n")


def test_a_record_the_checker_chokes_on_gets_one_clear_line(
    record_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(record_file.read_text())
    data["rounds"][1]["hands"][0][0] = {"not": "a card"}
    record_file.write_text(json.dumps(data))
    status, out, _ = run(capsys, "replay", "--check", str(record_file))
    assert status == 1
    assert out.startswith(f"{record_file}: ")
    assert out.count("\n") == 1


def test_a_name_the_rules_refuse_is_said_plainly(
    record_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(record_file.read_text())
    data["players"][1] = "Ann\nBob"
    record_file.write_text(json.dumps(data))
    status, out, _ = run(capsys, "replay", "--check", str(record_file))
    assert status == 1
    reason = "player 2: a player's id and name are one line of text"
    assert out == f"{record_file}: {reason}\n"


def test_missing_file_and_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "missing.json"
    status, out, err = run(capsys, "replay", "--check", str(missing), str(tmp_path))
    assert status == 1
    assert out.splitlines() == [
        f"{missing}: cannot read: No such file or directory",
        f"{tmp_path}: cannot read: Is a directory",
    ]
    assert "Traceback" not in out + err


def test_one_bad_file_among_good_ones(
    record_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.json"
    status, out, _ = run(capsys, "replay", "--check", str(record_file), str(missing))
    assert status == 1
    first, second = out.splitlines()
    assert first.startswith(f"{record_file}: ok")
    assert second.startswith(f"{missing}: cannot read")


def test_replay_without_files_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "replay", "--check")
    assert status == 2
    assert "FILE" in err


def test_replay_prints_the_game_round_by_round(
    record_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "replay", str(record_file))
    assert status == 0
    data = json.loads(record_file.read_text())
    assert out.startswith(f"{record_file}: ok, totals ")
    for rnd in data["rounds"]:
        number = rnd["number"]
        assert f"Round {number} of 5 · " in out
        section = out.split(f"Round {number} of 5 · ")[1].split("\n\n")[0]
        assert section.count("Trick ") == rnd["cards"]
        names = data["players"]
        for trick in rnd["tricks"]:
            assert f"→ {names[trick['winner']]}" in section
        for seat, name in enumerate(names):
            # tricks won/bid, as the chat's round summary and the score sheet show them
            points = signed_points(rnd["points"][seat])
            assert f"{name}: {rnd['won'][seat]}/{rnd['bids'][seat]} {points}" in section
    assert "Final standings" in out
    assert [row[:2] for row in sheet_lines(out)] == [[str(n), str(n)] for n in range(1, 6)]


# --- the rendering -------------------------------------------------------------------------------


def test_a_games_log_tells_people_called_alike_apart() -> None:
    """Two players called Ann: the log of their game (`replay`) numbers the second, as the
    table did, in its head, its rounds, its score sheet and its standings."""
    state, _ = play_random_game(3, Options(rounds=RoundsPlan.SHORT), 4)
    state.players = [Player("a", "Ann"), Player("b", "Ann"), Player("c", "Bob")]
    log = game_log(Look(texts("en"), Theme.COLOURS), state)
    assert log.startswith("Ann, Ann (2), Bob; options: ")
    assert "❌ Ann (2): " in log or "✅ Ann (2): " in log  # each round's line
    assert re.search(r"^Rnd Cards \| +Ann +\| +Ann \(2\) +\| +Bob$", log, re.MULTILINE)
    final = log.split("Final standings\n\n", 1)[1].splitlines()
    assert sorted(line.split(": ")[0][2:] for line in final[:3]) == ["Ann", "Ann (2)", "Bob"]


def test_standings_share_places() -> None:
    look = Look(texts("en"), Theme.COLOURS)
    lines = standings(look, ["Ann", "Bob", "Cid"], [30, 50, 30], [2, 1, 2])
    assert lines[:3] == ["🥇 Bob: 50", "🥈 Ann: 30", "🥈 Cid: 30"]
    assert lines[-1] == "Bob wins!"
    shared = standings(look, ["Ann", "Bob", "Cid"], [5, 5, 0], [1, 1, 3])
    assert shared[-1] == "Ann, Bob share first place!"
    assert standings(look, list("ABCD"), [4, 3, 2, 1], [1, 2, 3, 4])[3] == "4. D: 1"


def test_points_below_zero_have_the_minus_sign_not_the_hyphen() -> None:
    t = texts("en")
    look = Look(t, Theme.COLOURS)
    assert standings(look, ["Ann", "Bob"], [-30, 20], [2, 1])[:2] == ["🥇 Bob: 20", "🥈 Ann: −30"]
    row = ScoreRow(1, 1, (1, 0), (0, 0), (-10, 20), (-10, 20))
    assert score_line(t, "Ann", row, 0) == "❌ Ann: 0/1 −10 → −10"
    assert score_line(t, "Bob", row, 1) == "✅ Bob: 0/0 +20 → 20"
    seat = SeatView(0, "p", "Ann", -10, True, 1, 0, -40, False, False)
    assert seat_score(t, seat) == "−10 pts · 0/1 tricks · ⇢ −40"
    assert "-" not in score_sheet(["Ann", "Bob"], [row], t=t).splitlines()[-1]


def test_score_sheet_narrows_to_fit() -> None:
    names = ["Annabelle-Marie-Louise", "Bob", "Cid", "Dee", "Eve", "Fay"]
    row = ScoreRow(10, 10, (10,) * 6, (10,) * 6, (120,) * 6, (-550,) * 6)
    wide = score_sheet(names, [row], width=200)
    assert wide.split()[3] == "Annabelle-Mari…"  # a long name is cut to its column
    assert max(len(line) for line in wide.splitlines()) > 100
    narrow = score_sheet(names, [row], width=100)
    # The widest possible 6-player row (10/10 +120, a 4-digit total everywhere) needs 105, the
    # rounds and cards columns headed `Rnd Cards` (101 with `Rd Cd`, until 7 December 2026).
    assert max(len(line) for line in narrow.splitlines()) <= 105
    assert narrow.splitlines()[-1].split() == ["10", "10", *(["10/10", "+120", "−550"] * 6)]
    assert narrow.split()[2] == "Annabelle-Mari…"


FOUR = ["Ann", "Bob", "Cid", "Dee"]
ROUNDS_OF_FOUR = [ScoreRow(n, n, (1,) * 4, (1,) * 4, (30,) * 4, (30 * n,) * 4) for n in (1, 2, 10)]


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_the_narrowest_score_sheet_still_says_round_and_cards(language: str) -> None:
    """The picture's text form is 60 columns wide (`SheetPicture.text`): four players or more
    never fit it, so it is the narrowest sheet, in every language. Its rounds and cards columns
    are headed by the words the roomier sheets use (`Manche Cartes`), not an abbreviation a
    reader must guess (`Mn Ct`, `Rd Kt`, Korean `R`)."""
    t = texts(language)
    narrow = score_sheet(FOUR, ROUNDS_OF_FOUR, width=60, t=t)
    assert " | " not in narrow  # the narrowest layout
    assert narrow.split()[:2] == [t("Rnd"), t("Cards")]


@pytest.mark.parametrize("width", [200, 60])
def test_the_score_sheets_columns_line_up_under_wide_letters(width: int) -> None:
    """A Korean header (`라운드 장`, each letter two columns wide) is as wide as the rounds and
    cards columns under it, so the players' groups start at the same column on every line."""
    t = texts("ko")
    head, _, rule, *rows = score_sheet(FOUR, ROUNDS_OF_FOUR, width=width, t=t).splitlines()
    left = len(rule.split("-+-")[0]) if "+" in rule else rule.index(" ")  # rounds and cards
    labels = head[: head.index(t("Cards")) + len(t("Cards"))]
    assert text_width(labels) == left, (head, rule)
    assert all(row[left - 1].isdigit() and row[left] == " " for row in rows), rows


def test_score_sheet_lets_a_name_widen_its_column() -> None:
    rows = [ScoreRow(1, 1, (0, 1, 0), (0, 0, 1), (20, -10, -10), (20, -10, -10))]
    sheet = score_sheet(["Maximilian", "Bob", "Christopher Robin"], rows)
    head = sheet.splitlines()[0]
    assert head.split() == ["Rnd", "Cards", "|", "Maximilian", "|", "Bob", "|", "Christopher…"]
    assert head.endswith("| Christopher…")  # widened to 12 columns, no more


# --- the real console script ---------------------------------------------------------------------


def console_script() -> str:
    beside = Path(sys.executable).with_name("wizard-bot")
    found = str(beside) if beside.exists() else shutil.which("wizard-bot")
    if found is None:
        pytest.skip("the wizard-bot console script is not installed")
    return found


def test_console_script_checks_records(
    record_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = corrupt_winner(record_file, 2, 1)
    missing = tmp_path / "missing.json"
    done = subprocess.run(
        [console_script(), "replay", "--check", str(record_file), str(bad), str(missing)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"{record_file}: ok, totals Ann ")
    assert lines[1].startswith(f"{bad}: round 2 trick 1: wrong winner")
    assert lines[2] == f"{missing}: cannot read: No such file or directory"
    assert done.stderr == ""

    good = subprocess.run(
        [console_script(), "replay", "--check", str(record_file)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert good.returncode == 0


@pytest.mark.parametrize("command", ["run", "play"])
def test_a_config_error_names_the_command_run(
    command: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "data").write_text("a file where the data directory should be")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("WIZARD_CONFIG", raising=False)
    monkeypatch.setenv("WIZARD_DATA_DIR", "data")
    status, _, err = run(capsys, command)
    assert status == 2
    assert err == (
        f'wizard-bot {command}: error: WIZARD_DATA_DIR: data_dir "data" is not a directory\n'
    )


@pytest.mark.parametrize(
    ("command", "blocked"),
    [
        ("run", "redis.lock"),
        ("backup", "redis.lock"),
        ("play", "console.lock"),
        ("play", "redis.lock"),
    ],
)
def test_a_data_dir_that_fails_after_the_config_check_is_named(
    command: str,
    blocked: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A data_dir the config's check passes (a directory this user can write) where the bot
    still cannot make its files (here a directory where one of them goes; a folder under /proc,
    one removed meanwhile) is named, with its variable, not left as a bare OS error."""
    data = tmp_path / "data"
    (data / blocked).mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("WIZARD_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("WIZARD_DATA_DIR", str(data))
    monkeypatch.setenv("WIZARD_TELEGRAM_TOKEN", "123456:a-token-of-a-test")
    args = [str(tmp_path / "backup.gz")] if command == "backup" else []
    status, _, err = run(capsys, command, *args)
    assert status == 1
    assert err.startswith(f"wizard-bot {command}: ")
    assert err.count("\n") == 1
    assert err.endswith(
        f'data_dir "{data}" cannot be used: {data / blocked}: Is a directory (mend it, or set '
        "data_dir, or WIZARD_DATA_DIR, to a directory this user can write)\n"
    )


def _copies(pid: int) -> list[int]:
    """The processes whose parent is `pid` (the `--jobs` copies of a command)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if int((entry / "stat").read_text().rpartition(")")[2].split()[1]) == pid:
                    found.append(int(entry.name))
    return found


def _running(pid: int) -> bool:
    """Whether process `pid` is there and not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_stop_signal_stops_a_command_as_ctrl_c_does(signum: int, tmp_path: Path) -> None:
    """SIGINT (Ctrl-C), SIGTERM (kill, a supervisor) or SIGHUP (its terminal closed) in the
    middle of `simulate --jobs 2`: the command stops as Ctrl-C stops it, its cleanup done (its
    copy stopped, none left running), one line said, and exits with 128 + the signal's
    number."""
    if not Path("/proc/self/stat").exists():
        pytest.skip("needs /proc to see the copies")
    records = tmp_path / "records"
    command = subprocess.Popen(
        [console_script(), "simulate", "-n", "100000", "-j", "2", "--records", str(records)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    copies: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while not (records.is_dir() and any(records.iterdir())):  # under way
            assert command.poll() is None, command.communicate()
            assert time.monotonic() < deadline, "no record written"
            time.sleep(0.02)
        copies = _copies(command.pid)
        assert copies
        command.send_signal(signum)
        out, err = command.communicate(timeout=60)
    finally:
        if command.poll() is None:
            command.kill()
            command.communicate()
        left = [pid for pid in copies if _running(pid)]
        for pid in left:
            os.kill(pid, signal.SIGKILL)
    assert (command.returncode, out, err) == (128 + signum, "", "wizard-bot: interrupted\n")
    assert left == []


STOPS_MID_RUN = 12
"""How many runs of `simulate --records` the test of whole records stops."""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_stop_mid_run_leaves_only_whole_records(jobs: str, tmp_path: Path) -> None:
    """`simulate --records` stopped by SIGTERM in the middle of its games, STOPS_MID_RUN times
    (with --jobs 2 its copy is stopped too, wherever it stands): each file it leaves is a
    whole, valid record of its name, none empty or cut short, and nothing else is there."""
    for attempt in range(STOPS_MID_RUN):
        records = tmp_path / f"records-{attempt}"
        command = subprocess.Popen(
            [console_script(), "simulate", "-n", "100000", "-j", jobs, "--records", str(records)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 60
            while not (records.is_dir() and len(os.listdir(records)) > 20 + attempt):
                assert command.poll() is None, command.communicate()
                assert time.monotonic() < deadline, "no record written"
                time.sleep(0.005)
            command.send_signal(signal.SIGTERM)
            _, err = command.communicate(timeout=60)
        finally:
            if command.poll() is None:
                command.kill()
                command.communicate()
        assert command.returncode == 128 + signal.SIGTERM, err
        for path in sorted(records.iterdir()):
            assert re.fullmatch(r"game-\d{4,}\.json", path.name), path
            ok, verdict = bulk.check_file(str(path))
            assert ok, f"stop {attempt}: {verdict}"


UNWRITTEN = [
    (args, buffered)
    for args in (
        ["simulate", "-n", "1"],
        ["demo"],
        ["replay", "--check", "RECORD"],
        ["replay", "RECORD"],
        ["--help"],
    )
    for buffered in (True, False)
    if args != ["--help"] or buffered  # argparse drops an error of writing its help as printed
]
"""The commands whose output a full disk refuses, each written at the end and as printed."""


@pytest.mark.parametrize(("args", "buffered"), UNWRITTEN)
def test_output_that_cannot_be_written_is_one_line_and_a_failure(
    args: list[str], buffered: bool, record_file: Path
) -> None:
    """A full disk (here /dev/full) under the output, written as it is printed or at the end:
    the command fails (1) and says so in one line, with no traceback, and the exit does not
    try again and say more."""
    assert Path("/dev/full").exists(), "the test needs /dev/full (Linux)"
    env = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    argv = [str(record_file) if arg == "RECORD" else arg for arg in args]
    command = "wizard-bot" + ("" if argv[0].startswith("-") else f" {argv[0]}")
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [console_script(), *argv],
            stdout=full,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
            timeout=60,
            check=False,
        )
    assert (done.returncode, done.stderr) == (
        1,
        f"{command}: cannot write the output: No space left on device\n",
    )
