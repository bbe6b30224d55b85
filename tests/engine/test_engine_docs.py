"""The usage examples in the engine's docstrings run and stay true; the engine is pure."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import games.engine

MODULES = ["games.engine"] + [
    f"games.engine.{m.name}" for m in pkgutil.iter_modules(games.engine.__path__)
]


@pytest.mark.parametrize("name", MODULES)
def test_it_runs_the_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_it_imports_nothing_but_the_standard_library() -> None:
    package = Path(games.engine.__file__).parent
    assert (package / "py.typed").exists()
    for source in package.glob("*.py"):
        for line in source.read_text().splitlines():
            words = line.split()
            if words[:1] in (["import"], ["from"]) and len(words) > 1:
                top = words[1].split(".")[0]
                assert top not in {"django", "rest_framework", "celery", "numpy"}, source
