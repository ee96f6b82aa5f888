"""Notebooks are committed clean, CI runs the README's test command, the API is small."""

import json
import re
import runpy
from pathlib import Path

import nbformat
import pytest
from traitlets.config import Config

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


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_lesson_saved_after_running_it_is_the_committed_file(path):
    """What JupyterLab saves after running a lesson, through jupyter_server_config's hook."""
    strip_outputs = runpy.run_path(
        str(ROOT / "jupyter_server_config.py"), init_globals={"get_config": Config}
    )["strip_outputs"]
    committed = path.read_text()
    notebook = json.loads(committed)
    for n, cell in enumerate(notebook["cells"]):  # as a kernel leaves them
        cell.setdefault("metadata", {})["execution"] = {"iopub.status.idle": "2026-11-28"}
        if cell["cell_type"] == "code":
            cell["execution_count"] = n
            cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["x\n"]}]
    notebook["metadata"]["widgets"] = {"application/vnd.jupyter.widget-state+json": {}}
    notebook["metadata"]["kernelspec"] = {
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
        "name": "python3",
    }
    notebook["metadata"]["language_info"] = {
        "codemirror_mode": {"name": "ipython", "version": 3},
        "file_extension": ".py",
        "mimetype": "text/x-python",
        "name": "python",
        "nbconvert_exporter": "python",
        "pygments_lexer": "ipython3",
        "version": "3.11.7",
    }
    model = {"type": "notebook", "content": notebook}
    strip_outputs(model)
    saved = nbformat.writes(nbformat.from_dict(model["content"]))  # as jupyter_server writes it
    assert saved + "\n" == committed
