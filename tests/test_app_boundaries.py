"""The apps depend one way: games knows nothing of ratings, tournaments or bots (they listen
to its signals and fill its extension points), and the rules engine knows nothing of Django
or of the project (games/engine/README.md: pure Python, standard library only).

Every ``.py`` file is parsed with ``ast``: each ``import``/``from ... import`` anywhere in
it (inside functions, ``try`` and ``if TYPE_CHECKING`` blocks too), relative ones resolved
against the file's package, and calls of ``importlib.import_module`` or ``__import__``
with a constant name.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.support import ROOT

GAMES = ROOT / "games"
ENGINE = GAMES / "engine"
#: The project's own top-level packages (games, ratings, tournaments, bots, config, tests...).
PROJECT_PACKAGES = frozenset(p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file())
#: What games must not import: the apps built on it.
ABOVE_GAMES = frozenset({"ratings", "tournaments", "bots"})


@dataclass(frozen=True)
class Import:
    """One imported name: ``module`` is absolute (``from .rules import Rules`` in
    games/engine/game.py is ``games.engine.rules.Rules``)."""

    path: Path
    line: int
    module: str
    source: str

    @property
    def top(self) -> str:
        return self.module.split(".")[0]

    def within(self, package: str) -> bool:
        return self.module == package or self.module.startswith(package + ".")

    def __str__(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}: {self.source} ({self.module})"


def package_of(path: Path) -> str:
    """The package a module's relative imports start from."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1])


def resolved(module: str | None, level: int, package: str) -> str:
    if level == 0:
        return module or ""
    parts = package.split(".")
    base = parts[: len(parts) - level + 1]
    return ".".join([*base, module] if module else base)


def dynamic_name(node: ast.Call) -> str | None:
    """The constant module name of ``importlib.import_module("x")`` or ``__import__("x")``."""
    function = node.func
    name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")
    if name not in ("import_module", "__import__") or not node.args:
        return None
    first = node.args[0]
    return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None


def imports_in(path: Path, source: str | None = None) -> Iterator[Import]:
    """Every name ``path`` imports (``source`` is its text, read if not given)."""
    text = path.read_text() if source is None else source
    tree = ast.parse(text, filename=str(path))
    lines = text.splitlines()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = resolved(node.module, node.level, package_of(path))
            names = [base if a.name == "*" else f"{base}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Call) and (dynamic := dynamic_name(node)) is not None:
            names = [dynamic]
        else:
            continue
        statement = " ".join(line.strip() for line in lines[node.lineno - 1 : node.end_lineno])
        for name in names:
            yield Import(path, node.lineno, name, statement)


def python_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def report(bad: list[Import], rule: str) -> str:
    return f"{rule}; found {len(bad)}:\n" + "\n".join(f"  {i}" for i in bad)


def test_it_finds_imports_anywhere_in_a_module() -> None:
    source = """
from __future__ import annotations
import os.path, json as j
from typing import TYPE_CHECKING
from . import rules
from .deal import Deal
from .. import services
from ..models import *
if TYPE_CHECKING:
    from ratings.models import Rating
def late() -> None:
    import django
    try:
        from tournaments import services as t
    except ImportError:
        pass
class Lazy:
    def load(self) -> None:
        importlib.import_module("bots.match")
        __import__("config.settings")
"""
    found = [(i.line, i.module) for i in imports_in(ENGINE / "example.py", source)]

    assert sorted(found) == [
        (2, "__future__.annotations"),
        (3, "json"),
        (3, "os.path"),
        (4, "typing.TYPE_CHECKING"),
        (5, "games.engine.rules"),
        (6, "games.engine.deal.Deal"),
        (7, "games.services"),
        (8, "games.models"),
        (10, "ratings.models.Rating"),
        (12, "django"),
        (14, "tournaments.services"),
        (19, "bots.match"),
        (20, "config.settings"),
    ]
    (late,) = (i for i in imports_in(ENGINE / "example.py", source) if i.top == "django")
    assert str(late) == "games/engine/example.py:12: import django (django)"


def test_it_scans_every_module_of_games_and_the_engine() -> None:
    files = python_files(GAMES)

    assert {GAMES / "services.py", GAMES / "api.py", ENGINE / "game.py"} <= set(files)
    assert any("migrations" in p.parts for p in files)
    assert {"games", "ratings", "tournaments", "bots", "config"} <= PROJECT_PACKAGES
    # The engine's own imports are seen (and resolved), so the rules below check something.
    engine_imports = [i for p in python_files(ENGINE) for i in imports_in(p)]
    assert any(i.module == "games.engine.rules.Rules" for i in engine_imports)


def test_it_keeps_games_free_of_the_apps_built_on_it() -> None:
    bad = [i for p in python_files(GAMES) for i in imports_in(p) if i.top in ABOVE_GAMES]

    assert not bad, report(bad, "games/ imports ratings, tournaments or bots")


def test_it_keeps_the_engine_free_of_django_and_of_the_project() -> None:
    forbidden = {"django", *PROJECT_PACKAGES}
    bad = [
        i
        for p in python_files(ENGINE)
        for i in imports_in(p)
        if i.top in forbidden and not i.within("games.engine")
    ]

    assert not bad, report(bad, "games/engine/ imports Django or a project package")


def test_it_keeps_the_engine_on_the_standard_library_only() -> None:
    bad = [
        i
        for p in python_files(ENGINE)
        for i in imports_in(p)
        if not i.within("games.engine") and i.top not in sys.stdlib_module_names
    ]

    assert not bad, report(bad, "games/engine/ imports beyond the standard library")
