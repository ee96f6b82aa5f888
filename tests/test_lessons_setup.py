"""Training set-up: notebooks saved without outputs, a Voila page without notebook-only text."""

import json
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
EXPLORER = ROOT / "notebooks" / "00-explorer.ipynb"


@pytest.fixture
def server_config(monkeypatch, tmp_path):
    """The config JupyterLab loads when scripts/env.sh has put the repository on its path."""
    from jupyter_server.serverapp import ServerApp

    monkeypatch.setenv("JUPYTER_CONFIG_DIR", str(tmp_path / "user-config"))
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", str(ROOT))
    app = ServerApp()
    app.load_config_file()
    return app.config


def test_a_notebook_saved_through_the_contents_manager_has_no_outputs(server_config, tmp_path):
    from jupyter_server.services.contents.filemanager import FileContentsManager

    nb = nbformat.v4.new_notebook()
    code = nbformat.v4.new_code_cell("print(6365.283333)", execution_count=3)
    code.outputs = [nbformat.v4.new_output("stream", name="stdout", text="6365.283333\n")]
    nb.cells = [nbformat.v4.new_markdown_cell("# A lesson"), code]
    manager = FileContentsManager(config=server_config, root_dir=str(tmp_path))
    manager.save({"type": "notebook", "format": "json", "content": nb}, "lesson.ipynb")

    on_disk = json.loads((tmp_path / "lesson.ipynb").read_text())
    saved = on_disk["cells"][1]
    assert "".join(saved["source"]) == "print(6365.283333)"  # the code stays
    assert saved["outputs"] == [] and saved["execution_count"] is None


def test_voila_reads_the_config_at_the_repository_root(monkeypatch):
    from voila.app import Voila

    monkeypatch.chdir(ROOT)  # scripts/explorer.sh runs voila from the repository root
    app = Voila()
    assert app.config_file_paths[0] == str(ROOT)
    app.load_config_file("voila", path=app.config_file_paths)
    assert "notebook-only" in app.config.TagRemovePreprocessor.remove_cell_tags


def test_the_voila_page_leaves_out_the_notebook_only_cells(monkeypatch):
    from nbconvert import HTMLExporter
    from voila.app import Voila

    monkeypatch.chdir(ROOT)
    app = Voila()
    app.load_config_file("voila", path=app.config_file_paths)
    html, _ = HTMLExporter(config=app.config).from_filename(str(EXPLORER))
    for notebook_text in ("Run the cell below", "ex.pin()", "In a new cell", "tests/"):
        assert notebook_text not in html, notebook_text
    assert "Things to try" in html and "Reading the figures" in html
    assert 'href="01-buffer-pool-lists.ipynb"' in html  # the lesson links stay


def test_the_explorer_links_each_lesson_it_names():
    nb = nbformat.read(EXPLORER, as_version=4)
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    links = re.findall(r"\]\(([^)]+\.ipynb)\)", text)
    assert len(links) >= 4
    for link in links:
        assert (EXPLORER.parent / link).is_file(), link
    bare = re.findall(r"`[^`]*\.ipynb`", text)
    assert not bare, f"lesson names that are not links: {bare}"


def test_the_readme_has_no_placeholder_binder_link():
    assert "OWNER" not in (ROOT / "README.md").read_text()
