"""The apps' boundaries that import-linter's contracts do not state. The layers, the pure
engine and the one way into realtime are contracts in pyproject.toml ([tool.importlinter]),
checked by `make test` (`lint-imports`). What is left is checked here, on the same import
graph (grimp's, as lint-imports builds it: every import anywhere in a module, inside
functions and ``if TYPE_CHECKING`` blocks too):

- every package is declared to import-linter, so that the contracts cover it;
- no module imports itself back through others (import-linter's ``acyclic_siblings`` states
  a different rule: no circle between sibling packages, and none through a package's own
  ``__init__`` or between config and health);
- the engine and the SDK import only the standard library (and httpx, for the SDK): a
  contract can forbid named packages, not allow a list;
- no app imports a project module by a name given at run time (``importlib.import_module``,
  ``__import__``), which the graph does not hold;
- no app holds more than about a third of the code.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from functools import cache
from pathlib import Path

import grimp

from tests.support import ROOT

ENGINE = ROOT / "games" / "engine"
#: The SDK, a package of its own (sdk/pyproject.toml) that bot authors install anywhere.
SDK = "sergeant_sdk"
#: The project's own top-level packages (games, ratings, tournaments, bots, config...).
PROJECT_PACKAGES = frozenset(p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file())
IMPORT_LINTER = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]


@cache
def import_graph() -> grimp.ImportGraph:
    """The project's packages and the SDK, with the packages they import from outside."""
    return grimp.build_graph(
        *sorted(PROJECT_PACKAGES), SDK, include_external_packages=True, cache_dir=None
    )


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def imports_of(package: str) -> list[tuple[str, str]]:
    """Each (importer, imported) pair of ``package``'s modules, to a module outside it."""
    graph = import_graph()
    return sorted(
        (importer, imported)
        for importer in {package, *graph.find_descendants(package)}
        for imported in graph.find_modules_directly_imported_by(importer)
        if not within(imported, package)
    )


def report(bad: list[tuple[str, str]], rule: str) -> str:
    lines = []
    for importer, imported in bad:
        details = import_graph().get_import_details(importer=importer, imported=imported)
        lines += [f"  {importer}:{d['line_number']}: {d['line_contents']}" for d in details]
    return f"{rule}; found {len(bad)}:\n" + "\n".join(lines)


def test_it_declares_every_package_to_import_linter() -> None:
    (layers,) = (c for c in IMPORT_LINTER["contracts"] if c["type"] == "layers")
    layered = {name.strip() for layer in layers["layers"] for name in re.split("[|:]", layer)}

    assert {"games", "ratings", "tournaments", "clubs", "bots", "config"} <= PROJECT_PACKAGES
    assert set(IMPORT_LINTER["root_packages"]) == PROJECT_PACKAGES
    assert layered == PROJECT_PACKAGES


def test_it_keeps_the_engine_on_the_standard_library_only() -> None:
    found = imports_of("games.engine")
    bad = [(m, i) for m, i in found if i.split(".")[0] not in sys.stdlib_module_names]

    assert ("games.engine.deal", "hashlib") in found  # the engine's imports are seen
    assert not bad, report(bad, "games/engine/ imports beyond the standard library")


def test_it_keeps_the_sdk_on_httpx_and_the_standard_library() -> None:
    found = imports_of(SDK)
    allowed = {*sys.stdlib_module_names, "httpx"}
    bad = [(m, i) for m, i in found if i.split(".")[0] not in allowed]

    assert (f"{SDK}.client", "httpx") in found
    assert not bad, report(bad, "sdk/sergeant_sdk/ imports beyond httpx and the standard library")


def circle_through(graph: grimp.ImportGraph, module: str) -> tuple[str, ...] | None:
    """The shortest way ``module`` imports itself back through others, if there is one."""
    for target in sorted(graph.find_modules_directly_imported_by(module)):
        if target == module:
            return (module, module)
        chain = graph.find_shortest_chain(importer=target, imported=module)
        if chain:
            return (module, *chain)
    return None


def test_it_finds_an_import_circle() -> None:
    graph = grimp.ImportGraph()
    for importer, imported in [("a.x", "a.y"), ("a.y", "a.z"), ("a.z", "a.x"), ("b", "a.x")]:
        graph.add_import(importer=importer, imported=imported)

    assert circle_through(graph, "a.y") == ("a.y", "a.z", "a.x", "a.y")
    assert circle_through(graph, "b") is None


def test_it_has_no_import_circles() -> None:
    graph = import_graph()
    modules = sorted(m for p in PROJECT_PACKAGES for m in {p, *graph.find_descendants(p)})
    circles = {" -> ".join(c) for m in modules if (c := circle_through(graph, m)) is not None}

    # An import inside a function is in the graph (config/wiring.py imports the pages late).
    assert graph.direct_import_exists(importer="config.wiring", imported="web.views.games")
    assert not circles, "modules that import themselves back:\n" + "\n".join(sorted(circles))


def python_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def app_files() -> list[Path]:
    """Every module of the project's packages (the apps, config and health)."""
    return [path for package in sorted(PROJECT_PACKAGES) for path in python_files(ROOT / package)]


def named_imports(source: str) -> list[tuple[int, str]]:
    """(line, name) of each ``importlib.import_module("x")`` or ``__import__("x")``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        function = node.func
        name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")
        first = node.args[0]
        if name in ("import_module", "__import__") and isinstance(first, ast.Constant):
            found.append((node.lineno, str(first.value)))
    return found


def test_it_finds_an_import_by_name() -> None:
    source = 'import importlib\nimportlib.import_module("bots.match")\n__import__("os")\n'

    assert named_imports(source) == [(2, "bots.match"), (3, "os")]


def test_it_imports_no_project_module_by_name() -> None:
    bad = [
        f"{path.relative_to(ROOT)}:{line}: {name}"
        for path in app_files()
        for line, name in named_imports(path.read_text())
        if name.split(".")[0] in PROJECT_PACKAGES
    ]

    assert not bad, "project modules imported by name (import-linter cannot see them):\n" + (
        "\n".join(bad)
    )


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
