"""The texts made from the table of configuration keys (`bot.config.KEYS`).

Two places list the environment variables, and both are written from the table, never by hand:
the header of `config.example.toml` (its comment block before the first blank line) and the
table in docs/operations.md, between its two markers. `python -m bot.config_docs` rewrites
both; with `--check` it changes nothing and exits 1 if either is out of date.
"""

import argparse
import sys
import textwrap
from pathlib import Path

from bot.config import DEFAULT_FILE, ENV_CONFIG, ENV_PREFIX, KEYS, Config, Key
from bot.config_rules import NAMES, SWITCH

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "config.example.toml"
OPERATIONS = ROOT / "docs" / "operations.md"
COMMAND = "python -m bot.config_docs"
"""What updates both texts."""

TABLE_BEGIN = f"<!-- The table below is written by `{COMMAND}` from KEYS in bot/config.py. -->"
TABLE_END = "<!-- End of the written table. -->"

_WIDTH = 96
_INTRO = (
    "wizard-bot configuration: copy to wizard.toml (read from the current directory) or point "
    f"{ENV_CONFIG} at it. Every key is optional; the values below are the defaults, and the keys "
    "left commented out have no default. Unknown keys are errors. Times are whole seconds."
)


def _example_key() -> Key:
    return next(key for key in KEYS if key.section)


def _environment_note() -> str:
    example = _example_key()
    names = next(key for key in KEYS if key.rule == NAMES)
    return (
        "Environment variables override the file (an empty one counts as unset): "
        f"{ENV_PREFIX} and the key upper-cased, a section's with the section "
        f"({example.variable} for {example.name}). A switch is {SWITCH.form}; {names.name} is "
        f"{NAMES.form}. docs/operations.md has the table of them all. This list is written by "
        f"`{COMMAND}`:"
    )


def _comment(text: str) -> list[str]:
    return textwrap.wrap(text, _WIDTH - 2, initial_indent="# ", subsequent_indent="# ")


def example_header() -> str:
    """The comment block that opens config.example.toml, ending with the list of variables."""
    rows = [(ENV_CONFIG, "the path of this file"), *((key.variable, key.name) for key in KEYS)]
    width = max(len(variable) for variable, _ in rows) + 2
    lines = [*_comment(_INTRO), "#", *_comment(_environment_note())]
    lines += [f"#   {variable:<{width}}{name}" for variable, name in rows]
    return "\n".join(lines)


def _default(key: Key) -> str:
    value = key.value_in(Config())
    if value is None:
        return "unset"
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, tuple):
        text = ",".join(str(item) for item in value)
    else:
        text = str(value)
    return f"`{text}`"


def docs_table() -> str:
    """The Markdown table of every variable: its key, how its value is written, its default."""
    rows = [
        "| Variable | Key | Value | Default | Sets |",
        "|---|---|---|---|---|",
        f"| `{ENV_CONFIG}` | | a file path | `./{DEFAULT_FILE}` if there is one "
        "| The TOML file to read |",
    ]
    rows += [
        f"| `{key.variable}` | `{key.name}` | {key.rule.form} | {_default(key)} | {key.about} |"
        for key in KEYS
    ]
    return "\n".join(rows)


def updated_example(text: str) -> str:
    """config.example.toml's text with its header written anew (the keys below kept as they are)."""
    _, blank, rest = text.partition("\n\n")
    return example_header() + "\n\n" + rest if blank else example_header() + "\n"


def updated_operations(text: str) -> str:
    """docs/operations.md's text with the table between its markers written anew."""
    before, begin, after = text.partition(TABLE_BEGIN)
    _, end, rest = after.partition(TABLE_END)
    if not (begin and end):
        raise ValueError(f"{OPERATIONS.name} lacks the markers of the table: {TABLE_BEGIN}")
    return f"{before}{TABLE_BEGIN}\n\n{docs_table()}\n\n{TABLE_END}{rest}"


_TEXTS = ((EXAMPLE, updated_example), (OPERATIONS, updated_operations))


def main(argv: list[str] | None = None) -> int:
    """Rewrite the texts made from KEYS (with --check: only say which are out of date)."""
    parser = argparse.ArgumentParser(prog=COMMAND, description=main.__doc__)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if stale")
    check = parser.parse_args(argv).check
    stale = False
    for path, update in _TEXTS:
        text = path.read_text(encoding="utf-8")
        new = update(text)
        if new == text:
            continue
        stale = True
        if check:
            print(f"{path.relative_to(ROOT)} is out of date: run {COMMAND}")
        else:
            path.write_text(new, encoding="utf-8")
            print(f"updated {path.relative_to(ROOT)}")
    return 1 if stale and check else 0


if __name__ == "__main__":
    sys.exit(main())
