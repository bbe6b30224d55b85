"""The apps depend one way, in layers: core, then api, accounts, realtime, games, the apps
built on games (bots, ratings, tournaments), which know nothing of each other, then quick
play and the bot arena (which match and seat by rating), and the web pages; config wires
them together (config/wiring.py). No module imports itself back through others (no import
circles), other apps reach realtime delivery through ``realtime.delivery`` only, no app
holds more than about a third of the code, and the rules engine knows nothing of Django or
of the project (games/engine/README.md: pure Python, standard library only).

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
#: The SDK, a package of its own (sdk/pyproject.toml) that bot authors install anywhere.
SDK = ROOT / "sdk" / "sergeant_sdk"
#: The project's own top-level packages (games, ratings, tournaments, bots, config, tests...).
PROJECT_PACKAGES = frozenset(p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file())
#: What games must not import: the apps built on it.
ABOVE_GAMES = frozenset({"ratings", "tournaments", "bots", "quickplay", "arena", "challenges"})
#: The layers, lowest first: a package may import its own layer's modules and lower ones.
#: The apps of one layer (bots, ratings, tournaments, challenges) do not import each other.
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"core"}),
    frozenset({"api"}),
    frozenset({"accounts"}),
    frozenset({"realtime"}),
    frozenset({"games"}),
    frozenset({"bots", "ratings", "tournaments", "challenges"}),
    # Quick play matches seekers by their ratings; the arena seats bots by theirs.
    frozenset({"quickplay", "arena"}),
    frozenset({"web"}),  # the pages: on top of every app
)
#: Packages above every layer: wiring (config) and what checks or measures the rest.
ABOVE_ALL = frozenset({"config", "health", "tests", "benchmarks"})


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


def test_it_keeps_the_sdk_on_httpx_and_the_standard_library() -> None:
    files = python_files(SDK)
    bad = [
        i
        for p in files
        for i in imports_in(p)
        if not i.within("sergeant_sdk") and i.top not in {*sys.stdlib_module_names, "httpx"}
    ]

    assert SDK / "client.py" in files
    assert not bad, report(bad, "sdk/sergeant_sdk/ imports beyond httpx and the standard library")


def layer_of(package: str) -> int:
    return next(number for number, layer in enumerate(LAYERS) if package in layer)


def app_files() -> list[Path]:
    """Every module of the apps and of config (not the tests or the benchmarks)."""
    return [
        path
        for package in sorted(PROJECT_PACKAGES - {"tests", "benchmarks"})
        for path in python_files(ROOT / package)
    ]


def test_it_knows_the_layer_of_every_package() -> None:
    layered = {package for layer in LAYERS for package in layer}

    assert layered == PROJECT_PACKAGES - ABOVE_ALL


def test_it_keeps_each_layer_to_itself_and_the_layers_below() -> None:
    bad = []
    for path in app_files():
        package = path.relative_to(ROOT).parts[0]
        if package in ABOVE_ALL:
            continue
        for found in imports_in(path):
            if found.top not in PROJECT_PACKAGES or found.top == package:
                continue
            if found.top in ABOVE_ALL or layer_of(found.top) >= layer_of(package):
                bad.append(found)

    assert not bad, report(bad, "an app imports its own layer's other apps or a higher layer")


def test_it_lets_nothing_import_the_web_pages() -> None:
    bad = [
        found
        for path in app_files()
        if path.relative_to(ROOT).parts[0] not in {"web", "config"}
        for found in imports_in(path)
        if found.top == "web"
    ]

    assert not bad, report(bad, "a module imports the web pages")


def test_it_lets_other_apps_reach_realtime_through_its_delivery_module_only() -> None:
    bad = [
        found
        for path in app_files()
        if path.relative_to(ROOT).parts[0] not in {"realtime", "config"}
        for found in imports_in(path)
        if found.within("realtime") and not found.within("realtime.delivery")
    ]

    assert not bad, report(bad, "an app imports realtime beyond realtime.delivery")


def module_names() -> dict[Path, str]:
    return {
        path: ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for path in app_files()
    }


def import_graph() -> dict[str, set[str]]:
    """Each module of the apps and the modules of the apps it imports (anywhere in it): an
    imported name resolves to the longest module it starts with."""
    names = module_names()
    modules = set(names.values())

    def module_of(name: str) -> str | None:
        parts = name.split(".")
        for end in range(len(parts), 0, -1):
            if ".".join(parts[:end]) in modules:
                return ".".join(parts[:end])
        return None

    graph: dict[str, set[str]] = {}
    for path, module in names.items():
        targets = {module_of(found.module) for found in imports_in(path)}
        graph[module] = {t for t in targets if t is not None and t != module}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(graph.get(module, ())):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def test_it_finds_an_import_circle() -> None:
    graph = {"a.x": {"a.y"}, "a.y": {"a.z"}, "a.z": {"a.x"}, "b": {"a.x"}}

    assert circles(graph) == [["a.x", "a.y", "a.z"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_it_has_no_import_circles() -> None:
    graph = import_graph()

    assert "games.services" in graph and "accounts.models" in graph["games.services"]
    assert circles(graph) == []


def code_lines(path: Path) -> int:
    return sum(1 for line in path.read_text().splitlines() if line.strip())


def test_it_keeps_every_app_under_about_a_third_of_the_code() -> None:
    """Lines that are not blank, of every module but the migrations; the engine counted as
    a part of its own."""
    sizes: dict[str, int] = {}
    for path in app_files():
        if "migrations" in path.parts:
            continue
        part = "games.engine" if path.is_relative_to(ENGINE) else path.relative_to(ROOT).parts[0]
        sizes[part] = sizes.get(part, 0) + code_lines(path)
    total = sum(sizes.values())

    assert sizes["games.engine"] > 0 and sizes["games"] > 0
    crowded = {part: f"{n / total:.0%}" for part, n in sizes.items() if n > total * 0.35}
    assert not crowded, f"parts holding more than about a third of the code: {crowded}"
