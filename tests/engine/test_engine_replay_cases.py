"""Every public replay case, field by field; the replay command as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from games.engine.replay import replay_case, replay_file

ROOT = Path(__file__).resolve().parents[2]
SHARED_CASES = ROOT.parent / "shared" / "replay-cases"
# The public cases live in ../shared beside the checkout; a clone elsewhere (as in CI) uses
# the copy kept in the repository (tests/engine/replay-cases, copied from shared).
CASES_DIR = Path(
    os.environ.get(
        "REPLAY_CASES_DIR",
        SHARED_CASES if SHARED_CASES.is_dir() else Path(__file__).parent / "replay-cases",
    )
)
CASES = sorted(p for p in CASES_DIR.glob("*.json") if not p.name.endswith(".expected.json"))


def _expected(case: Path) -> dict[str, Any]:
    return json.loads(case.with_name(case.stem + ".expected.json").read_text())  # type: ignore[no-any-return]


def test_it_finds_the_public_cases() -> None:
    assert len(CASES) >= 11, f"no replay cases found in {CASES_DIR}"


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_it_replays_each_public_case_field_by_field(case: Path) -> None:
    expected = _expected(case)
    got = replay_file(str(case))
    assert "error" not in got, got.get("error")
    assert list(got) == ["file", "steps", "hands", "scores", "game_over", "winner", "final_hands"]
    assert Path(got["file"]).name == expected["file"]
    assert len(got["steps"]) == len(expected["steps"])
    for number, (mine, theirs) in enumerate(zip(got["steps"], expected["steps"], strict=True)):
        assert mine == theirs, f"step {number}"
        assert list(mine) == ["phase", "to_act", "legal_plays", "result"]
    assert len(got["hands"]) == len(expected["hands"])
    for number, (mine, theirs) in enumerate(zip(got["hands"], expected["hands"], strict=True)):
        for field in theirs:
            assert mine[field] == theirs[field], f"hand {number} {field}"
        assert list(mine) == list(theirs)
    for field in ("scores", "game_over", "winner", "final_hands"):
        assert got[field] == expected[field], field


def _run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "games.engine.replay", *args],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        env=env,
        timeout=60,
        check=False,
    )


def test_it_prints_one_line_per_file_from_the_command_line() -> None:
    names = ["01-first-hand.json", "09-two-up-one-down-full.json"]
    run = _run(*names, cwd=CASES_DIR)
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    lines = run.stdout.splitlines()
    assert len(lines) == 2
    for name, line in zip(names, lines, strict=True):
        got = json.loads(line)
        assert got == _expected(CASES_DIR / name)  # "file" is the base name from this dir


def test_it_reports_a_malformed_file_without_a_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"rules": "classic", "deals": [')
    good = CASES_DIR / "08-three-hands.json"
    run = _run(str(bad), str(good))
    assert run.returncode == 2
    assert "Traceback" not in run.stdout + run.stderr
    first, second = (json.loads(line) for line in run.stdout.splitlines())
    assert first["file"] == str(bad)
    assert set(first) == {"file", "error"}
    assert "JSON" in first["error"]
    assert second["scores"] == [2, -2, 0]


def test_it_exits_2_for_a_missing_file() -> None:
    run = _run("/nonexistent/case.json")
    assert run.returncode == 2
    assert json.loads(run.stdout)["error"].startswith("cannot read file")


def _case(**changes: Any) -> dict[str, Any]:
    data = json.loads((CASES_DIR / "01-first-hand.json").read_text())
    data.update(changes)
    return data  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"rules": "bridge"}, "unknown rules preset"),
        ({"rules": {"preset": "classic", "colour": 1}}, "unknown option"),
        ({"rules": {"preset": "classic", "deal_packet": 3}}, "deal_packet"),
        ({"first_dealer": 3}, "first_dealer"),
        ({"first_dealer": 1.0}, "first_dealer"),
        ({"deals": []}, "deals"),
        ({"deals": [{"hands": [["AS"]], "kitty": []}]}, "needs 3 hands"),
        ({"actions": {"seat": 0}}, "actions"),
    ],
)
def test_it_rejects_bad_files_with_a_clear_message(changes: dict[str, Any], message: str) -> None:
    result = replay_case(_case(**changes), "x.json")
    assert set(result) == {"file", "error"}
    assert message in result["error"]


def test_it_rejects_a_deal_that_is_not_a_partition() -> None:
    data = _case()
    hands = data["deals"][0]["hands"]
    hands[0][0] = hands[1][0]  # a card twice, one missing
    result = replay_case(data, "x.json")
    assert "twice" in result["error"]
    data = _case()
    data["deals"][0]["kitty"] = data["deals"][0]["kitty"][:3]
    assert "kitty" in replay_case(data, "x.json")["error"]


def test_it_maps_malformed_actions_to_error_codes() -> None:
    actions = [
        "not an object",  # unknown_action
        {"seat": 0},  # no type
        {"seat": "0", "type": "trump", "suit": "H"},  # seat not an int
        {"seat": 0.0, "type": "trump", "suit": "H"},
        {"seat": True, "type": "trump", "suit": "H"},
        {"seat": 0, "type": "trump"},  # missing suit
        {"seat": 0, "type": "trump", "suit": "h"},
        {"seat": 0, "type": "trump", "suit": "H"},
        {"seat": 0, "type": "discard", "cards": "3D 7D 4S 2C"},
        {"seat": 0, "type": "discard", "cards": ["3D", "7D", "4S", "ZZ"]},
        {"seat": 0, "type": "discard", "cards": ["3D", "3D", "ZZ"]},
        {"seat": 0, "type": "discard", "cards": ["3D", "3D", "ZZ", "4S"]},
    ]
    result = replay_case(_case(actions=actions), "x.json")
    assert [s["result"] for s in result["steps"]] == [
        "illegal:unknown_action",
        "illegal:unknown_action",
        "illegal:not_your_turn",
        "illegal:not_your_turn",
        "illegal:not_your_turn",
        "illegal:invalid_suit",
        "illegal:invalid_suit",
        "ok",
        "illegal:wrong_card_count",
        "illegal:card_not_in_hand",
        "illegal:wrong_card_count",
        "illegal:duplicate_card",
    ]


def test_it_keeps_its_copy_of_the_public_cases_current() -> None:
    if not SHARED_CASES.is_dir():
        pytest.skip("no ../shared beside this checkout to compare with")
    copy = Path(__file__).parent / "replay-cases"
    for case in SHARED_CASES.iterdir():
        assert (copy / case.name).read_bytes() == case.read_bytes(), case.name
