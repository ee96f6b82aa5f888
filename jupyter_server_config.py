"""Jupyter server settings for this checkout: notebooks are written to disk without outputs.

A lesson run in JupyterLab keeps its outputs on screen, but autosave writes the file without
them, and without the kernel's version details, so running a lesson leaves `git status` clean
(tests/test_repo_layout.py saves each lesson through the hook and compares). `scripts/env.sh`
(sourced by `scripts/explorer.sh`) and `binder/start` put the repository root on
`JUPYTER_CONFIG_PATH`: JupyterLab reads no config file from the folder it is started in.
"""


def strip_outputs(model, **_):
    """ContentsManager.pre_save_hook: drop what running a notebook adds to it."""
    if model.get("type") != "notebook" or not isinstance(model.get("content"), dict):
        return
    notebook = model["content"]
    metadata = notebook.get("metadata", {})
    metadata.pop("widgets", None)  # ipywidgets' saved widget state
    if isinstance(metadata.get("language_info"), dict):
        # the kernel's Python version, codemirror mode and the like: the language's name only
        metadata["language_info"] = {"name": metadata["language_info"].get("name", "python")}
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        cell.get("metadata", {}).pop("execution", None)  # per-cell timings of the lab extension


c = get_config()  # noqa: F821 (traitlets injects get_config into config files)
c.ContentsManager.pre_save_hook = strip_outputs
