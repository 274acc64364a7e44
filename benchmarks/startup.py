"""Start-up of the `wizard-bot` command line: the import of adapters.cli and the wall time of
`--version` and `--help`, against the command line of an earlier revision, in the same run.
Prints one JSON line a run and a last line with the medians and spreads.

    python benchmarks/startup.py [--repeat 15] [--runs 3] [--baseline REV]

In each run every measurement is taken --repeat times, interleaved, each in a fresh process
with its bytecode cached (as an installed package has it); a run reports the medians, in ms:

- import_ms: `python -X importtime -c "import adapters.cli"`, the module's cumulative time;
- version_ms, help_ms: the wall time of `wizard-bot --version` and `wizard-bot --help`;
- python_ms: the wall time of `python -c pass`, the interpreter's own start-up (a floor);
- base_*: the same for adapters/cli.py as of REV (default: the last revision before its
  imports were made lazy), run from a copy beside today's engine and bot.
"""

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BASELINE = "c4b590f"
IMPORT_LINE = re.compile(r"import time:\s+\d+ \|\s+(\d+) \| (\S+)$", re.MULTILINE)


def import_ms(module: str, env: dict[str, str]) -> float:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    times = {name: int(cumulative) for cumulative, name in IMPORT_LINE.findall(done.stderr)}
    return times[module] / 1000


def wall_ms(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="measurements of each in a run")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline", default=BASELINE, metavar="REV")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as temporary:
        old = subprocess.run(
            ["git", "show", f"{args.baseline}:adapters/cli.py"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        Path(temporary, "cli_baseline.py").write_text(old)
        env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
        base_env = env | {"PYTHONPATH": os.pathsep.join([temporary, str(ROOT)])}
        script = Path(sys.executable).with_name("wizard-bot")
        cli = [str(script)] if script.exists() else [sys.executable, "-m", "adapters.cli"]
        base = [sys.executable, "-c", "import sys, cli_baseline; sys.exit(cli_baseline.main())"]
        measures: dict[str, Callable[[], float]] = {
            "import_ms": lambda: import_ms("adapters.cli", env),
            "base_import_ms": lambda: import_ms("cli_baseline", base_env),
            "version_ms": lambda: wall_ms([*cli, "--version"], env),
            "base_version_ms": lambda: wall_ms([*base, "--version"], base_env),
            "help_ms": lambda: wall_ms([*cli, "--help"], env),
            "base_help_ms": lambda: wall_ms([*base, "--help"], base_env),
            "python_ms": lambda: wall_ms([sys.executable, "-c", "pass"], env),
        }
        for measure in measures.values():
            measure()  # bytecode written, caches warm
        figures: dict[str, list[float]] = {name: [] for name in measures}
        for run in range(args.runs):
            samples: dict[str, list[float]] = {name: [] for name in measures}
            for _ in range(args.repeat):
                for name, measure in measures.items():
                    samples[name].append(measure())
            line: dict[str, Any] = {"run": run + 1, "repeat": args.repeat}
            for name, values in samples.items():
                line[name] = round(statistics.median(values), 1)
                figures[name].append(statistics.median(values))
            print(json.dumps(line), flush=True)
    summary: dict[str, Any] = {"runs": args.runs, "baseline": args.baseline}
    for name, values in figures.items():
        summary[name] = round(statistics.median(values), 1)
        summary[f"{name}_spread"] = [round(min(values), 1), round(max(values), 1)]
    summary.update(python=platform.python_version(), cli=" ".join(cli))
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
