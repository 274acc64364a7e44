"""The layers hold: dependencies point one way (engine ← bot ← adapters), no front end imports
another, and front ends reach bot/ only through the service. The lint rules that say so (each
package's ruff.toml) fail on an import that breaks them, wherever it is written."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

BANNED = [
    ("engine/x.py", "import bot"),
    ("engine/x.py", "from adapters.telegram import app"),
    ("bot/x.py", "import adapters.cli"),
    ("bot/x.py", "from adapters.outbox import Outbox"),
    ("bot/x.py", "from telegram import Bot"),
    ("bot/x.py", "import discord"),
    ("bot/ai/x.py", "from bot.store import Store"),
    ("bot/ai/x.py", "from bot.show import screens"),
    ("bot/ai/x.py", "from bot.service import GameService"),
    ("bot/show/x.py", "from bot.service import GameService"),
    ("bot/show/x.py", "from bot.store import Store"),
    ("bot/show/x.py", "import redis"),
    ("bot/store/x.py", "from bot.show import screens"),
    ("bot/store/x.py", "from bot.chat import HANDLERS"),
    ("adapters/x.py", "import telegram"),
    ("adapters/x.py", "from bot.store import Store"),
    ("adapters/telegram/x.py", "from adapters.discord import app"),
    ("adapters/telegram/x.py", "from adapters.console.app import play"),
    ("adapters/telegram/x.py", "from adapters import serve"),
    ("adapters/telegram/x.py", "import discord"),
    ("adapters/telegram/x.py", "from bot.store import Store"),
    ("adapters/telegram/x.py", "from bot.dispatch import apply"),
    ("adapters/discord/x.py", "from adapters.telegram.commands import menu"),
    ("adapters/discord/x.py", "from telegram import Bot"),
    ("adapters/discord/x.py", "from bot.chat import HANDLERS"),
    ("adapters/console/x.py", "from adapters.telegram import app"),
    ("adapters/console/x.py", "from bot.store.store import Store"),
    ("adapters/web/x.py", "from adapters.telegram.ids import chat_key"),
    ("adapters/web/x.py", "from adapters.discord import app"),
    ("adapters/web/x.py", "import telegram"),
    ("adapters/web/x.py", "from bot.store import Store"),
    ("adapters/web/x.py", "from bot.dispatch import apply"),
]
"""An import, and a file it may not be written in."""

ALLOWED = [
    ("bot/x.py", "from bot.store import Store"),
    ("bot/show/x.py", "from bot.tokens import Action"),
    ("bot/store/x.py", "from bot.table import Table"),
    ("adapters/telegram/x.py", "from bot import GameService"),
    ("adapters/telegram/x.py", "from bot.store import keys"),
    ("adapters/telegram/x.py", "from telegram import Bot"),
    ("adapters/discord/x.py", "import discord"),
    ("adapters/x.py", "from adapters.telegram.run import serve"),
    ("adapters/x.py", "from adapters.console import play"),
    ("adapters/x.py", "from adapters.web.server import WebTable"),
    ("adapters/web/x.py", "from bot import GameService"),
]
"""Imports that follow the layers (so the rules are not simply banning everything)."""


def banned(path: str, line: str) -> bool:
    """Whether the project's lint rules refuse `line` in the file `path` (read from stdin, with
    the rules that apply to that path)."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--select",
            "TID251",
            "--stdin-filename",
            path,
            "-",
        ],
        input=line + "\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    return done.returncode == 1 and "TID251" in done.stdout


@pytest.mark.parametrize(("path", "line"), BANNED)
def test_an_import_against_the_layers_fails_the_lint(path: str, line: str) -> None:
    assert banned(path, line), f"{line!r} is allowed in {path}"


@pytest.mark.parametrize(("path", "line"), ALLOWED)
def test_an_import_along_the_layers_passes(path: str, line: str) -> None:
    assert not banned(path, line), f"{line!r} is refused in {path}"
