"""The layout rules of docs/architecture.md, checked on the source: sizes and citations."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "flushsim"
MAX_PARAMS = 12
MAX_MODULE_LINES = 1000


def _modules():
    return sorted(PACKAGE.rglob("*.py"))


def _functions(path: Path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node


def _n_params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    a = fn.args
    n = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
    if a.args and a.args[0].arg in ("self", "cls"):
        n -= 1
    return n


def test_no_function_takes_more_than_twelve_parameters():
    wide = [
        f"{p.relative_to(PACKAGE.parent)}:{fn.lineno} {fn.name} ({_n_params(fn)})"
        for p in _modules()
        for fn in _functions(p)
        if _n_params(fn) > MAX_PARAMS
    ]
    assert wide == []


def test_no_module_over_a_thousand_lines():
    long = [
        f"{p.relative_to(PACKAGE.parent)} ({n})"
        for p in _modules()
        if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES
    ]
    assert long == []


def test_the_design_is_cited_from_the_repository_not_from_outside_it():
    # docs/ holds what the code relies on; a clone has nothing beside it
    outside = re.compile(
        r"DESIGN\.md|PITFALLS\.md|STACK-NOTES\.md|innodb-flushing\.md|ssd-models\.md|\.\./shared"
    )
    root = PACKAGE.parent
    files = [*_modules(), *(root / "tests").rglob("*.py"), *(root / "notebooks").glob("*.ipynb")]
    files += [*(root / "scripts").iterdir(), *(root / "benchmarks").glob("*.py")]
    cited = [str(f.relative_to(root)) for f in files if outside.search(f.read_text())]
    assert cited == []
