"""The engine package's names (engine/__init__.py): each one listed alike for the type checker,
for `__all__` and for loading when first used, each the object of the module it names, and a
program that needs only the options loads no more of the engine."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import engine

SOURCE = Path(engine.__file__)


def checked_imports() -> dict[str, str]:
    """The names imported under `if TYPE_CHECKING:`, each with its module."""
    tree = ast.parse(SOURCE.read_text(encoding="utf-8"))
    (block,) = [
        node
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    ]
    return {
        alias.name: node.module or ""
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


def test_the_three_lists_of_names_agree() -> None:
    homes = {name: module for module, names in engine.HOMES.items() for name in names}
    assert homes == checked_imports()
    assert sorted(engine.__all__) == sorted(homes)
    assert len(homes) == sum(len(names) for names in engine.HOMES.values())  # none twice


def test_each_name_is_its_modules_object() -> None:
    for module, names in engine.HOMES.items():
        loaded = sys.modules.get(module) or __import__(module, fromlist=["_"])
        for name in names:
            assert getattr(engine, name) is getattr(loaded, name), name
    assert set(engine.__all__) <= set(dir(engine))


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match=r"^module 'engine' has no attribute 'Optionz'$"):
        engine.Optionz  # type: ignore[attr-defined]  # noqa: B018


def test_the_options_load_without_the_rules() -> None:
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from engine import Options; from engine.options import hand_sizes; "
            "print(sorted(name for name in sys.modules if name.startswith('engine')))",
        ],
        check=True,
        capture_output=True,
        text=True,
        cwd=SOURCE.parents[1],
    ).stdout.strip()
    assert loaded == "['engine', 'engine.errors', 'engine.options']"
