"""The platform's dependencies are bounded above: CI installs the newest release inside each
bound and the suite runs on it, so a release the code was never run on is never installed."""

from __future__ import annotations

import importlib.metadata
import tomllib

from packaging.requirements import Requirement

from tests.support import ROOT

#: Static files only (the API docs' scripts): nothing of ours relies on their behaviour.
UNBOUNDED = {"drf-spectacular-sidecar"}


def runtime_requirements() -> list[Requirement]:
    with open(ROOT / "pyproject.toml", "rb") as file:
        project = tomllib.load(file)["project"]
    return [Requirement(line) for line in project["dependencies"]]


def test_it_bounds_every_runtime_dependency_above() -> None:
    unbounded = [
        str(requirement)
        for requirement in runtime_requirements()
        if requirement.name not in UNBOUNDED
        and not any(spec.operator in ("<", "<=", "==", "~=") for spec in requirement.specifier)
    ]

    assert unbounded == []


def test_it_runs_on_releases_inside_the_bounds() -> None:
    outside = {
        requirement.name: importlib.metadata.version(requirement.name)
        for requirement in runtime_requirements()
        if not requirement.specifier.contains(
            importlib.metadata.version(requirement.name), prereleases=True
        )
    }

    assert outside == {}
