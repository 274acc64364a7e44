"""Debian packages the tests need from the system, installed with apt-get where missing.

As root on Debian or Ubuntu, `apt_install` runs `apt-get update` and `apt-get install -y
--no-install-recommends` (no questions asked); elsewhere it says why it cannot, and the caller
fails its tests with that reason and what to install. Used for the browser tests' Chromium
(`tests/browser.py`), the pictures' FriBiDi (`tests/conftest.py`) and the CJK and emoji fonts
the pictures fall back to (`tests/test_picture.py`).
"""

import os
import shutil
import subprocess
from collections.abc import Sequence


def apt_install(packages: Sequence[str]) -> str | None:
    """Install Debian's `packages`: None when apt-get did, else why not (its first line short,
    then apt-get's output if it failed)."""
    wanted = " ".join(packages)
    if shutil.which("apt-get") is None:
        return "there is no apt-get here"
    if os.geteuid() != 0:
        return f"not root (as root: apt-get install -y --no-install-recommends {wanted})"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (
        ["apt-get", "update", "-qq"],
        ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages],
    ):
        done = subprocess.run(
            command, check=False, env=env, capture_output=True, text=True, timeout=900
        )
        if done.returncode != 0:
            return (
                f"{' '.join(command)} failed ({done.returncode})\n"
                f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
            )
    return None
