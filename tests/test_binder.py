"""Binder installs what CI tests: environment.yml == binder/environment.yml == pyproject."""

import importlib.metadata
import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _conda_specs() -> dict[str, SpecifierSet]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    specs = {}
    for dep in env["dependencies"]:
        m = re.fullmatch(r"([A-Za-z0-9_.\-]+)\s*(.*)", dep)
        name, spec = m.group(1), m.group(2).strip()
        if re.fullmatch(r"=\d+(\.\d+)*", spec):
            spec = "=" + spec + ".*"  # conda pkg=1.2 means ==1.2.*
        specs[canonicalize_name(name)] = SpecifierSet(spec)
    return specs


def _pyproject_specs() -> dict[str, SpecifierSet]:
    reqs = (
        PYPROJECT["project"]["dependencies"]
        + PYPROJECT["project"]["optional-dependencies"]["notebook"]
    )
    return {canonicalize_name(r.name): r.specifier for r in map(Requirement, reqs)}


def test_binder_environment_is_the_root_one():
    assert (ROOT / "binder" / "environment.yml").read_bytes() == (
        ROOT / "environment.yml"
    ).read_bytes()


def test_conda_forge_only_and_python_matches():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    assert env["channels"] == ["conda-forge"]
    specs = _conda_specs()
    assert SpecifierSet(PYPROJECT["project"]["requires-python"]).contains("3.11")
    assert specs["python"] == SpecifierSet("==3.11.*")


def test_same_packages_and_bounds_as_pyproject():
    conda = {k: v for k, v in _conda_specs().items() if k not in ("python", "pip")}
    assert conda == _pyproject_specs()


@pytest.mark.parametrize("name", sorted(_pyproject_specs()))
def test_installed_versions_satisfy_both(name):
    version = importlib.metadata.version(name)
    assert _pyproject_specs()[name].contains(version, prereleases=True), (name, version)
    assert _conda_specs()[name].contains(version, prereleases=True), (name, version)


def test_widget_frontend_and_backend_agree():
    # ipywidgets 8 needs jupyterlab_widgets 3 ("model not found" otherwise)
    assert importlib.metadata.version("ipywidgets").startswith("8.")
    assert importlib.metadata.version("jupyterlab_widgets").startswith("3.")


def test_postbuild_and_start_use_a_generic_numba_target():
    for name in ("postBuild", "start"):
        path = ROOT / "binder" / name
        assert os.access(path, os.X_OK), f"binder/{name} is not executable"
        text = path.read_text()
        assert "NUMBA_CPU_NAME=generic" in text
        assert "NUMBA_CACHE_DIR" in text
    assert "python -m flushsim warm" in (ROOT / "binder" / "postBuild").read_text()
    assert '"windowingMode": "defer"' in (ROOT / "binder" / "overrides.json").read_text()


@pytest.mark.skipif(shutil.which("repo2docker") is None, reason="repo2docker is not installed")
def test_repo2docker_accepts_the_layout():
    res = subprocess.run(
        ["repo2docker", "--no-build", "--no-run", "--debug", str(ROOT)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr[-2000:]
