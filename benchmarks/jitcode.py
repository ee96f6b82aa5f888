"""Where numba's compiled kernel code lies in memory, by function (profile.py, instructions.py).

Profilers cannot name numba's code: it runs from memory the JIT wrote, with no symbols. So
`compiled_functions` keeps the object code numba loads from its cache, `nm` lists that object's
functions and their offsets, and one function's address in memory gives the object's base.
"""

from __future__ import annotations

import bisect
import collections
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path

CODE_SYMBOL_TYPES = ("t", "T", "w", "W")  # nm: local, global and weak code symbols


def _demangle(symbol: str) -> str:
    """module.function of a numba symbol (_ZN8flushsim7kernels3sim10event_loopB3v41...)."""
    s = symbol.removeprefix("_ZN")
    parts, i = [], 0
    while i < len(s) and s[i].isdigit():
        j = i
        while s[j].isdigit():
            j += 1
        n = int(s[i:j])
        parts.append(s[j : j + n])
        i = j + n
    return ".".join(parts[-2:]) if len(parts) >= 2 else symbol


def _code_symbols(obj: Path) -> list[tuple[int, int, str, str]]:
    """(offset, size, nm's type letter, symbol) of every code symbol in an object file."""
    out = subprocess.run(
        ["nm", "--defined-only", "-S", str(obj)], check=True, capture_output=True, text=True
    ).stdout
    rows = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in CODE_SYMBOL_TYPES:
            rows.append((int(parts[0], 16), int(parts[1], 16), parts[2], parts[3]))
    return rows


def compiled_functions(load: Callable[[], None], workdir: Path) -> list[tuple[int, int, str]]:
    """(address, size in bytes, module.function) of the code `load()` loads from numba's cache.

    Sorted by address. Call it in a fresh process, before anything has loaded the kernel:
    code compiled rather than loaded from the cache has no object to map (SystemExit).
    """
    from numba.core import codegen

    loaded: list[tuple[object, bytes]] = []
    keep = codegen.CodeLibrary._set_compiled_object

    def remember(library, value):  # numba calls this with each object it loads from the cache
        loaded.append((library, value))
        return keep(library, value)

    codegen.CodeLibrary._set_compiled_object = remember
    try:
        load()
    finally:
        codegen.CodeLibrary._set_compiled_object = keep
    if not loaded:
        raise SystemExit("the kernel was compiled, not loaded from numba's cache: run again")
    functions = []
    for k, (library, code) in enumerate(loaded):
        obj = workdir / f"library{k}.o"
        obj.write_bytes(code)
        symbols = _code_symbols(obj)
        base = None
        for offset, _size, kind, symbol in symbols:
            if kind != "T":  # a weak symbol may resolve to another library's copy
                continue
            try:
                address = library.get_pointer_to_function(symbol)
            except Exception:  # a symbol the engine did not export: try the next one
                continue
            if address:
                base = address - offset
                break
        if base is not None:
            functions += [(base + off, size, _demangle(sym)) for off, size, _, sym in symbols]
    functions.sort()
    return functions


def by_function(counts: Mapping[int, int], functions: list) -> collections.Counter:
    """`counts` (address -> n) summed by the function of `functions` that holds each address.

    Addresses outside every function (Python, the C libraries) are summed under None.
    """
    starts = [f[0] for f in functions]
    by: collections.Counter = collections.Counter()
    for address, n in counts.items():
        k = bisect.bisect_right(starts, address) - 1
        inside = k >= 0 and address < functions[k][0] + functions[k][1]
        by[functions[k][2] if inside else None] += n
    return by
