"""The Pythons the packages declare (``requires-python``) are the ones they are tested on:
the platform on 3.11 (CI's, the image's), 3.12 and 3.13 (docs/operations.md says what ran),
and nothing it was not; the SDK on those too (and on 3.10, where bot authors may be)."""

from __future__ import annotations

import platform
import tomllib

from packaging.specifiers import SpecifierSet

from tests.support import ROOT

TESTED = ("3.11", "3.12", "3.13")


def requires_python(pyproject: str) -> SpecifierSet:
    with (ROOT / pyproject).open("rb") as file:
        return SpecifierSet(tomllib.load(file)["project"]["requires-python"])


def test_it_declares_every_python_the_platform_is_tested_on_and_no_other() -> None:
    declared = requires_python("pyproject.toml")

    assert [version for version in TESTED if f"{version}.0" not in declared] == []
    assert "3.10.13" not in declared
    assert "3.14.0" not in declared


def test_it_runs_the_suite_on_a_declared_python() -> None:
    assert platform.python_version() in requires_python("pyproject.toml")


def test_it_lets_the_sdk_install_wherever_the_platform_runs() -> None:
    declared = requires_python("sdk/pyproject.toml")

    assert [version for version in TESTED if f"{version}.0" not in declared] == []
