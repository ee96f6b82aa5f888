"""Notebooks are committed clean, CI runs the README's test command, the API is small."""

import json
import re
from pathlib import Path

import flushsim as fs

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS


def test_notebooks_are_committed_without_outputs():
    for path in NOTEBOOKS:
        nb = json.loads(path.read_text())
        assert nb["nbformat"] == 4 and nb["nbformat_minor"] >= 4, path.name
        assert "widgets" not in nb.get("metadata", {}), f"{path.name} stores widget state"
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                assert cell["outputs"] == [], f"{path.name} has outputs"
                assert cell["execution_count"] is None, f"{path.name} has execution counts"


def test_notebooks_are_numbered_and_open_with_a_title():
    for path in NOTEBOOKS:
        assert re.fullmatch(r"\d\d-[a-z0-9-]+\.ipynb", path.name), path.name
        first = json.loads(path.read_text())["cells"][0]
        assert first["cell_type"] == "markdown"
        assert "".join(first["source"]).startswith("# "), path.name


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"^\s*(bash scripts/\S+)", quick, flags=re.M)
    assert commands == ["bash scripts/explorer.sh", "bash scripts/test.sh"]
    assert "bash scripts/test.sh" in (ROOT / ".ci" / "run").read_text()


def test_public_api_is_the_documented_one():
    assert sorted(fs.__all__) == [
        "Event",
        "Run",
        "Scenario",
        "compare",
        "params",
        "presets",
        "replay",
        "run_ahead",
        "simulate",
        "simulate_many",
        "sweep",
    ]
    readme = (ROOT / "README.md").read_text()
    for name in (
        "fs.simulate",
        "fs.presets.get",
        ".replace(",
        "run.series",
        "fs.sweep",
        "fs.simulate_many",
        "fs.run_ahead",
    ):
        assert name in readme, name
