"""The kernel's schema (flushsim.schema) against the knob table, and the engine dispatch."""

import ast
import re
from pathlib import Path

import numpy as np
import pytest

import flushsim as fs
from flushsim import params, schema
from flushsim.kernels import layout, reference, sim
from flushsim.run import kernel_inputs, series_frame

ROOT = Path(__file__).resolve().parent.parent


def test_every_dynamic_knob_has_its_own_kernel_slot():
    # a knob a timeline may change must reach the kernel: without a slot its event would write
    # some other knob's place
    dynamic = [p.name for p in params.PARAMS if p.dynamic]
    assert dynamic and all(name in schema.KNOB_INDEX for name in dynamic)
    assert len(set(schema.KNOBS)) == len(schema.KNOBS) == schema.N_KNOBS
    assert sorted(schema.KNOB_INDEX.values()) == list(range(schema.N_KNOBS))


def test_knob_vector_is_the_knob_table():
    kernel = [p.name for p in params.PARAMS if p.kernel]
    assert list(schema.KNOBS) == kernel + ["engine"]
    assert {p.name for p in params.PARAMS if not p.kernel} == {
        "innodb_log_files_in_group",
        "zipf_theta",
        "device",
        "ssd_hours_per_day",  # read only by the lifetime, after the run
    }


def test_a_kernel_knob_an_engine_lacks_has_a_fill_value():
    for p in params.PARAMS:
        if p.kernel and set(p.engines) != set(params.ENGINES):
            assert p.name in schema.KNOB_FILL, p.name
    for engine in params.ENGINES:
        knobs = kernel_inputs(fs.Scenario(engine=engine)).knobs
        assert knobs.shape == (schema.N_KNOBS,) and np.isfinite(knobs).all()


def test_a_timeline_knob_without_a_slot_is_refused():
    from flushsim.run import _knob_slot

    assert _knob_slot("innodb_io_capacity") == schema.K_IOC
    with pytest.raises(ValueError, match="zipf_theta"):
        _knob_slot("zipf_theta")


def test_enum_codes_are_places_in_the_knobs_choices():
    for name, choices in (
        ("workload", ("uniform", "zipf", "hotset", "sequential")),
        ("innodb_flush_method", ("fsync", "O_DSYNC", "O_DIRECT", "O_DIRECT_NO_FSYNC")),
        ("filesystem", ("ext4", "ext4-dioread_nolock", "xfs")),
        ("device_interface", ("nvme", "sata")),
    ):
        assert params.get(name).choices == choices
        assert [schema.encode(name, c) for c in choices] == list(range(len(choices)))
    assert schema.FM_O_DIRECT == 2 and schema.WL_HOTSET == 2 and schema.IF_SATA == 1
    assert schema.encode("version", "10.6.17") == 100617
    assert schema.encode("linux_kernel", "5.10") == 510


def test_columns_have_units():
    assert set(schema.COLUMN_UNITS) == set(schema.COLUMNS) | set(schema.LATENCY_COLUMNS)
    assert schema.FLOAT_COLUMNS <= set(schema.COLUMN_UNITS)
    assert schema.COLUMNS[schema.C_TPS] == "sim_tps" and schema.N_COLS == len(schema.COLUMNS)


def test_nothing_outside_the_kernel_imports_its_layout():
    # live/ and viz/ are pointed at flushsim.schema when the branches merge
    offenders = []
    for path in sorted((ROOT / "flushsim").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and "layout" in node.module:
                offenders.append(path.name)
            if isinstance(node, ast.ImportFrom) and node.module == "kernels":
                if any(a.name == "layout" for a in node.names):
                    offenders.append(path.name)
    assert offenders == []


def test_engines_are_told_apart_by_named_predicates():
    # the kernel asks engine.py; no branch is "not MySQL" (a new engine would take it silently)
    for path in sorted((ROOT / "flushsim" / "kernels").glob("*.py")):
        text = path.read_text()
        if path.name != "engine.py":
            assert "S.K_ENGINE" not in text, path.name
        assert not re.search(r"!=\s*S\.ENG_", text), path.name


def test_engine_codes_are_the_ones_the_kernel_handles():
    assert set(schema.ENGINE_CODES) == set(params.ENGINES)
    assert sorted(schema.ENGINE_CODES.values()) == sorted(layout.ENGINES_HANDLED)
    with pytest.raises(ValueError, match="mysql-9.0"):
        schema.engine_code("mysql-9.0")
    out = np.zeros((1, schema.N_COLS))
    with pytest.raises(ValueError, match="mysql-9.0"):
        series_frame(out, np.zeros((1, schema.HIST_BUCKETS), dtype=np.int64), "mysql-9.0")


@pytest.mark.kernel
@pytest.mark.parametrize("run", [sim.simulate_kernel, reference.simulate_kernel])
def test_an_engine_code_no_branch_handles_fails_loudly(run):
    ki = kernel_inputs(fs.Scenario(seconds=1))
    knobs = ki.knobs.copy()
    knobs[schema.K_ENGINE] = max(schema.ENGINE_CODES.values()) + 1
    args = (knobs,) + ki.args()[1:]
    with pytest.raises(ValueError, match="no code for the engine"):
        run(*args)


# Kernel fields the twin holds in another shape, each with the reason: every other field of the
# kernel's state has a twin attribute of the same name (lower case, without its prefix).
TWIN_SHAPES = {
    "G_NOW": "the twin passes the event's time as an argument",
    "G_END": "the twin's loop ends at seconds * 1e6",
    "G_RING_HEAD": "the twin's writes in flight are a deque",
    "G_RING_TAIL": "the twin's writes in flight are a deque",
    "G_TL_NEXT": "the twin walks the timeline with an iterator",
    "G_NEXT_PAGE": "a prefetch hint of the kernel's, no state of the model",
    "G_FREE_CHECK": "a cache of redo_limits; the twin calls redo_limits",
    "G_PC_EVENT": "the twin wakes its page cleaner through its schedule (times)",
    "G_PC_N_FLUSHED": "the twin's round returns the count",
    "G_TRX_TOTAL": "the twin counts transactions in its output rows",
    "I_FREE_HEAD": "the twin's free list is a Python list",
    "I_FREE_LEN": "the twin's free list is a Python list",
    "I_FL_HEAD": "the twin's flush list is an insertion-ordered dict",
    "I_FL_TAIL": "the twin's flush list is an insertion-ordered dict",
    "I_FL_LEN": "the twin's flush list is an insertion-ordered dict",
    "I_SCAN_N": "the kernel's scan cache, a host-side shortcut with no effect on the model",
    "I_SCAN_NEXT": "the kernel's scan cache",
    "I_SCAN_PRE": "the kernel's scan cache",
    "I_RUN_FREE": "the kernel's LRU run index, a host-side shortcut with no effect on the model",
    "I_RUN_FRESH": "the kernel's LRU run index",
    "F_RUN": "the kernel's LRU run index",
    "I_ITR_AT": "the kernel's LRU run index (what the last bounded search knew)",
    "I_ITR_RUN": "the kernel's LRU run index",
    "I_ITR_LEFT": "the kernel's LRU run index",
    "I_ITR_VER": "the kernel's LRU run index",
    "F_DIRTY": "oldest_modification != 0 in the kernel's int32 row; the twin reads the LSN",
    "F_PREV": "the twin's LRU links are Frame references (prev)",
    "F_NEXT": "the twin's LRU links are Frame references (next)",
    "F_FPREV": "the twin's flush list is an insertion-ordered dict",
    "F_FNEXT": "the twin's flush list is an insertion-ordered dict",
    "F_LRU": "the twin keeps in_lru and old as two booleans",
    "TH_PENDING_WRITE": "the twin's pending row is a (page, is_write) tuple",
}


def test_the_kernel_and_the_twin_name_the_same_state_alike():
    import re
    from pathlib import Path

    twin = "".join(p.read_text() for p in Path(reference.__file__).parent.glob("reference*.py"))
    names = set(re.findall(r"self\.([a-z_0-9]+)\s*[:=]", twin))  # attributes
    names |= set(re.findall(r"^\s+([a-z_0-9]+):\s", twin, re.M))  # dataclass fields
    names |= set(re.findall(r'"([a-z_0-9]+)":', twin))  # a thread's fields
    unnamed = []
    for prefix in ("G_", "GF_", "I_", "F_", "L_", "TH_"):
        for field in (n for n in dir(layout) if n.startswith(prefix) and n.isupper()):
            value = getattr(layout, field)
            if not isinstance(value, int) or field in TWIN_SHAPES:
                continue
            if field[len(prefix) :].lower() not in names:
                unnamed.append(field)
    assert unnamed == []
