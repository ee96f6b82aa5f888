"""Figures, regime annotations and the explorer, driven from Python (no browser)."""

import math

import numpy as np
import polars as pl
import pytest

import flushsim as fs

pytest.importorskip("bokeh")
pytest.importorskip("jupyter_bokeh")

from flushsim import warmup  # noqa: E402
from flushsim.viz import figures  # noqa: E402
from flushsim.viz.explorer import CHOICES, Explorer  # noqa: E402
from flushsim.viz.regimes import regime_changes  # noqa: E402
from flushsim.warmup import simulate_warm  # noqa: E402


@pytest.fixture(scope="module")
def default_run():
    return fs.simulate(fs.presets.get("default").replace(seconds=20))


def test_regimes_of_the_default_preset(default_run):
    table = regime_changes(default_run)
    regimes = table["regime"].to_list()
    # a cold pool under load: the free list drains and LRU batches start; never "idle"
    assert "lru_batch" in regimes
    assert "idle" not in regimes
    assert table["time_s"].is_sorted()
    first_lru = table.filter(pl.col("regime") == "lru_batch")["time_s"][0]
    s = default_run.series.filter(pl.col("time_s") == first_lru)
    assert s["buffer_LRU_batch_evict_total_pages"][0] + s["buffer_LRU_batch_flush_total_pages"][0]


def test_regimes_of_the_idle_preset_name_idle_and_the_stop():
    run = fs.simulate(fs.presets.get("seed004-idle-flush").replace(seconds=20))
    table = regime_changes(run)
    assert "stop" in table["regime"].to_list()
    idle = table.filter(pl.col("regime") == "idle")
    assert idle.height >= 1
    stop_t = table.filter(pl.col("regime") == "stop")["time_s"][0]
    assert idle["time_s"][0] >= stop_t


def test_run_data_curves_match_the_series(default_run):
    d = figures.run_data(default_run)
    s = default_run.series
    assert set(d) == {"pool", "flush", "redo", "work", "wa", "ssd", "ssd_now"}
    np.testing.assert_array_equal(d["pool"]["dirty"], s["buffer_pool_pages_dirty"].to_numpy())
    np.testing.assert_array_equal(
        d["pool"]["free"] + d["pool"]["clean"] + d["pool"]["dirty"],
        (s["buffer_pool_pages_free"] + s["buffer_pool_pages_data"]).to_numpy(),
    )
    kinds = [name for name, _, _ in figures.FLUSH_KINDS]
    np.testing.assert_array_equal(d["flush"]["total"], s.select(kinds).sum_horizontal().to_numpy())
    # lifetime falls as the drive fills (less spare area, more FTL write amplification)
    years = d["ssd"]["desnoyers-greedy"]
    assert np.all(np.diff(years) <= 1e-9) and years[0] > years[-1]
    assert all(math.isfinite(y) for y in d["ssd_now"]["years"])


def test_every_source_shape_matches_empty_data(default_run):
    d = figures.run_data(default_run)
    e = figures.empty_data()
    for key, cols in d.items():
        assert set(cols) == set(e[key]), key
        lengths = {len(v) for v in cols.values()}
        assert len(lengths) == 1, key


def test_standalone_figures_are_fully_revealed(default_run):
    figs = figures.standalone(default_run)
    end = default_run.series.height
    assert figs.x_range.end == end == figs.clock.end == figs.clock.value
    assert list(figs.curtain.data["left"]) == [end]
    assert figs.regimes_text.text.count("<li>") == regime_changes(default_run).height


def test_throughput_draws_one_line_per_run(default_run):
    from bokeh.models import BoxAnnotation, Line

    other = fs.simulate(fs.presets.get("default").replace(threads=4), seconds=10)
    p = figures.throughput({"sixteen": default_run, "four": other}, warm_up_s=5)
    lines = [r for r in p.renderers if isinstance(r.glyph, Line)]
    assert [r.data_source.name for r in lines] == ["tps sixteen", "tps four"]
    np.testing.assert_array_equal(
        lines[1].data_source.data["sim_tps"], other.series["sim_tps"].to_numpy()
    )
    assert lines[0].glyph.line_color != lines[1].glyph.line_color
    assert [item.label["value"] for item in p.legend[0].items] == ["sixteen", "four"]
    assert p.x_range.end == default_run.series.height  # the longer run
    (box,) = [a for a in p.center if isinstance(a, BoxAnnotation)]
    assert (box.left, box.right) == (0, 5)
    bare = figures.throughput({"four": other})
    assert not [a for a in bare.center if isinstance(a, BoxAnnotation)]
    with pytest.raises(ValueError, match="1 to 10 runs"):
        figures.throughput({})


def test_explorer_choices_are_valid_server_values():
    for name, values in CHOICES.items():
        p = fs.params.get(name)
        for v in values:
            assert fs.params.check_value(p, v) == v
        assert list(values) == sorted(values)
    # a trainer's usual thread counts are stops, not only powers of two (issue #35)
    assert {12, 24, 48, 96} <= set(CHOICES["threads"])


@pytest.fixture(scope="module")
def explorer(monkeypatch_module):
    monkeypatch_module.setenv("FLUSHSIM_FAST", "1")
    return Explorer(autoplay=False)


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


def _serialised_rows(ex, key: str = "pool") -> int:
    """Rows of source `key` in the document the explorer's widget serialised for pages."""

    def find(node):
        if isinstance(node, dict):
            if node.get("id") == ex.sources[key].id and "attributes" in node:
                return node
            node = list(node.values())
        if isinstance(node, list):
            for child in node:
                if (hit := find(child)) is not None:
                    return hit
        return None

    data = find(ex.bokeh.render_bundle["docs_json"])["attributes"]["data"]
    entries = dict((k, v) for k, v in data["entries"])
    time_s = entries["time_s"]
    return len(time_s) if isinstance(time_s, list) else time_s["shape"][0]


def test_a_code_driven_explorers_first_run_is_in_the_figures_it_serialises(explorer):
    # The first read of `run` simulates the first run; a display after that serialises it.
    n = explorer.run.series.height
    assert len(explorer.sources["pool"].data["time_s"]) == n > 0
    assert _serialised_rows(explorer) == n
    assert "ready" in explorer.status.value


def _page_ready(ex) -> None:
    """What a page's BokehJS sends once it has drawn the explorer's document."""
    from bokeh.events import DocumentReady

    ex.figs.layout.document.callbacks.trigger_event(DocumentReady())


def test_a_displayed_explorer_simulates_while_the_page_loads_and_draws_when_it_is_drawn(
    monkeypatch,
):
    import json

    monkeypatch.setenv("FLUSHSIM_FAST", "1")
    ex = Explorer(autoplay=True)
    assert ex._run is None and "running" in ex.status.value  # nothing simulated yet
    ex._repr_mimebundle_()  # displayed: serialised without data, the run started after that
    assert ex._first is not None and _serialised_rows(ex) == 0
    sent = []
    monkeypatch.setattr(
        ex.bokeh, "send", lambda content, buffers=None: sent.append((content, buffers))
    )
    _page_ready(ex)
    # drawn at once, as one PATCH-DOC (header, metadata, content), shown whole
    run = ex._run
    assert run.series.equals(simulate_warm(ex.scenario_now(), warm=ex.warm).series)
    assert "ready" in ex.status.value
    assert len(sent) == 3
    events = json.loads(sent[2][0]["payload"])["events"]
    pool = [
        e
        for e in events
        if e["kind"] == "ColumnDataChanged" and e["model"]["id"] == ex.sources["pool"].id
    ]
    assert len(pool) == 1 and len(dict(pool[0]["data"]["entries"])["time_s"]) == run.series.height
    assert not ex.figs.play.active and ex.figs.clock.value == ex.figs.clock.end == 20
    assert ex.autoplay  # knob changes animate again
    _page_ready(ex)  # another view (a second display) changes nothing
    assert len(sent) == 3


def test_a_first_run_drawn_before_the_page_had_its_view_is_serialised_again(monkeypatch):
    monkeypatch.setenv("FLUSHSIM_FAST", "1")
    ex = Explorer(autoplay=False)
    ex._repr_mimebundle_()
    n = ex.run.series.height  # read from code before the page said it had drawn the figures
    assert _serialised_rows(ex) == 0  # its patch went to no view
    _page_ready(ex)
    assert _serialised_rows(ex) == n > 0  # the page's view redraws from the new state
    bundle = ex.bokeh.render_bundle
    _page_ready(ex)  # that redraw's own DocumentReady does not serialise it again
    assert ex.bokeh.render_bundle is bundle


def test_explorer_knob_change_reruns_and_redraws(explorer):
    before = np.asarray(explorer.sources["flush"].data["total"]).copy()
    explorer.set(innodb_io_capacity=10000, innodb_io_capacity_max=20000)
    assert explorer.run.scenario["innodb_io_capacity"] == 10000
    after = np.asarray(explorer.sources["flush"].data["total"])
    assert not np.array_equal(before, after)
    assert "ready" in explorer.status.value


def test_explorer_pin_and_clear_baseline(explorer):
    explorer.pin()
    assert len(explorer.base_sources["pool"].data["time_s"]) == explorer.run.series.height
    explorer.clear_baseline()
    assert len(explorer.base_sources["pool"].data["time_s"]) == 0


def test_explorer_fill_changes_only_the_wear_figures(explorer):
    pool = explorer.sources["pool"].data
    years = np.asarray(explorer.sources["ssd_now"].data["years"]).copy()
    run = explorer.run
    explorer.fill.value = 90
    assert explorer.run is run and explorer.sources["pool"].data is pool
    assert np.all(np.asarray(explorer.sources["ssd_now"].data["years"]) < years)


def test_explorer_one_drive_picker_sets_profile_and_lifetime(explorer):
    device = explorer.controls["device"]
    assert device.layout.display == "none"  # one picker until the user splits them
    explorer.drive_picker.value = "samsung-870-evo-1tb"
    assert device.value == "sata-ssd" and explorer.run.scenario["device"] == "sata-ssd"
    assert "sata-ssd" in explorer.profile_note.value
    assert "the drive's" in explorer.profile_note.value
    life = explorer.lifetime()
    assert life.drive.name == "samsung-870-evo-1tb"
    assert explorer.sources["ssd_now"].data["label"] == [life.headline]
    assert f"<td style='padding:0 6px'>{life.headline}</td>" in explorer.summary.value
    headline = explorer.figs.layout.select_one({"name": figures.LIFETIME_HEADLINE})
    assert headline.text.replace("\n", " ") == life.headline  # under the figure's title
    assert explorer.engine_picker.layout.display != "none"  # hiding device hides only device
    # split: the device stays the user's when the drive changes
    explorer.split_device.value = True
    assert device.layout.display == ""
    device.value = "nvme-dc-p4500"
    explorer.drive_picker.value = "wd-black-sn850x-2tb"
    assert device.value == "nvme-dc-p4500" and explorer.setting.drive.name == "wd-black-sn850x-2tb"
    explorer.split_device.value = False  # unsplit: it follows the drive again
    assert device.value == "nvme-pcie4"
    # hours a day: the lifetime only, the run's series kept
    run = explorer.run
    explorer.hours.value = 12
    assert explorer.run.series is run.series
    assert explorer.lifetime().years == pytest.approx(2 * explorer.lifetime(run).years)
    assert explorer.sources["ssd_now"].data["label"][0].endswith("12 hours a day")
    assert headline.text.endswith("12 hours a day")
    explorer.hours.value = 24


def test_explorer_unknown_control_names_the_controls(explorer):
    with pytest.raises(ValueError, match="innodb_io_capacity"):
        explorer.set(innodb_flush_neighbours=1)


def test_explorer_frame_moves_the_player_and_lists_regimes_reached(explorer):
    explorer.frame(0)
    assert explorer.figs.clock.value == 0
    assert list(explorer.figs.curtain.data["left"]) == [0]
    early = explorer.figs.regimes_text.text.count("<li>")
    end = explorer.run.series.height
    explorer.frame(end)
    assert explorer.figs.clock.value == end == explorer.figs.clock.end
    reached = explorer.figs.regimes_text.text.count("<li>")
    assert reached == len(explorer.sources["regimes"].data["at"]) >= early


def test_frame_sends_the_second_even_when_python_already_had_it(explorer, monkeypatch):
    # The page's player moves its slider without telling Python (player._LOCAL_ONLY): the
    # page may show another second, so frame() must send its second anyway.
    import json

    explorer.frame(5)
    sent = []
    monkeypatch.setattr(explorer.bokeh, "send", lambda c, buffers=None: sent.append(c))
    explorer.frame(5)
    events = [e for c in sent for e in json.loads(c.get("payload", "{}")).get("events", [])]
    clock = explorer.figs.clock.id
    assert {"kind": "ModelChanged", "model": {"id": clock}, "attr": "value", "new": 5} in events


def test_regimes_html_escapes_and_filters_by_time():
    regimes = {"at": [3, 9], "text": ["a < b & c", "later"]}
    html = figures.regimes_html(regimes, 5)
    assert "a &lt; b &amp; c" in html and "later" not in html


def test_explorer_autoplay_starts_the_browser_player_on_a_rerun(monkeypatch):
    monkeypatch.setenv("FLUSHSIM_FAST", "1")
    ex = Explorer(autoplay=True)
    n = ex.run.series.height
    # the first run is shown whole and still: a player already running at first display
    # does not start in every front end
    assert ex.figs.play.active is False and ex.figs.clock.value == n
    ex.set(threads=32)
    assert ex.figs.play.active is True and ex.figs.clock.value == 0


def test_for_engine_drops_what_the_engine_lacks():
    from flushsim.scenario import for_engine

    sc, dropped = for_engine(fs.presets.get("seed001-lru-burst"), "mariadb-10.11")
    assert sc.engine == "mariadb-10.11"
    # a MySQL debug switch: its SET GLOBAL events go, the workload events stay
    assert "innodb_page_cleaner_disabled_debug" in dropped
    assert all(k != "innodb_page_cleaner_disabled_debug" for e in sc.timeline for k, _ in e.knobs)
    assert any(dict(e.knobs).get("write_pct") == 100 for e in sc.timeline)
    assert sc["innodb_lru_scan_depth"] == 2048  # set by the preset: kept
    same, none = for_engine(fs.presets.get("default"), "mysql-8.0")
    assert none == () and same.values == fs.presets.get("default").values


def test_explorer_engine_switch_enables_lru_flush_size_and_engine_defaults(monkeypatch):
    monkeypatch.setenv("FLUSHSIM_FAST", "1")
    ex = Explorer(autoplay=False)
    assert ex.flush_size.disabled
    ex.engine_picker.value = "mariadb-10.6"
    assert not ex.flush_size.disabled
    assert ex.run.scenario.engine == "mariadb-10.6"
    # the default preset does not set it: MariaDB's own default applies
    assert ex.controls["innodb_lru_scan_depth"].value == 1536
    assert "Innodb_checkpoint_age" in ex.run.series.columns
    before = ex.run
    ex.flush_size.value = 1024
    assert ex.run is not before and ex.run.scenario["innodb_lru_flush_size"] == 1024
    ex.preset_picker.value = "seed004-idle-flush"  # a MySQL preset brings its engine back
    assert ex.engine_picker.value == "mysql-8.0" and ex.flush_size.disabled
    ex.engine_picker.value = "mariadb-10.11"
    # the redo log has an equivalent there: translated, and said so
    assert (
        "translated: innodb_redo_log_capacity=8G is innodb_log_file_size=8G on mariadb-10.11"
        in ex.messages.value
    )
    assert ex.run.scenario["innodb_log_file_size"] == 8 * 1024**3
    assert "ready" in ex.status.value


def test_explorer_picks_the_mariadb_10_6_release(monkeypatch):
    monkeypatch.setenv("FLUSHSIM_FAST", "1")
    ex = Explorer(autoplay=False)
    assert ex.release.disabled  # MySQL has no such knob
    # greyed, it names no release: "10.6.17" under mysql-8.0 would read as the server's version
    assert ex.release.label == "(not a mysql-8.0 setting)" and len(ex.release.options) == 1
    ex.engine_picker.value = "mariadb-10.6"
    assert not ex.release.disabled and ex.run.scenario["version"] == "10.6.17"
    ex.release.value = "10.6.3"
    assert ex.run.scenario["version"] == "10.6.3"
    ex.preset_picker.value = "seed003-io-capacity"  # a preset sets it
    assert ex.release.value == "10.6.3" and ex.run.scenario["version"] == "10.6.3"
    ex.engine_picker.value = "mariadb-10.11"  # 10.11.8 and later: no release to pick
    assert ex.release.disabled and "version" not in ex.run.scenario.knobs
    assert ex.release.label == "(not a mariadb-10.11 setting)"
    ex.engine_picker.value = "mariadb-10.6"  # enabled again: every release, at the preset's
    assert not ex.release.disabled and ex.release.label == "10.6.3"
    assert "10.6.17" in ex.release.options and ex.run.scenario["version"] == "10.6.3"


def test_explorer_picks_percona_s_lsn_age_factor(monkeypatch):
    monkeypatch.setenv("FLUSHSIM_FAST", "1")
    ex = Explorer(autoplay=False)
    assert not ex.lsn_age.disabled and ex.lsn_age.value == "legacy"  # Oracle MySQL's formula
    ex.preset_picker.value = "seed004-hot-rows"  # the article's server: Percona Server
    assert ex.lsn_age.value == "high_checkpoint"
    assert ex.run.scenario["innodb_cleaner_lsn_age_factor"] == "high_checkpoint"
    ex.lsn_age.value = "legacy"
    assert ex.run.scenario["innodb_cleaner_lsn_age_factor"] == "legacy"
    ex.engine_picker.value = "mariadb-10.11"  # MariaDB has no such variable
    assert ex.lsn_age.disabled and ex.lsn_age.label == "(not a mariadb-10.11 setting)"
    assert "innodb_cleaner_lsn_age_factor" not in ex.run.scenario.knobs


def test_explorer_io_pickers_follow_the_engine(monkeypatch):
    monkeypatch.setenv("FLUSHSIM_FAST", "1")
    ex = Explorer(autoplay=False)
    method, commit = (
        ex.controls["innodb_flush_method"],
        ex.controls["innodb_flush_log_at_trx_commit"],
    )
    assert (method.value, list(commit.options)) == ("fsync", [0, 1, 2])  # MySQL 8.0's defaults
    ex.engine_picker.value = "mariadb-10.11"
    assert (method.value, list(commit.options)) == ("O_DIRECT", [0, 1, 2, 3])  # MariaDB's
    ex.set(innodb_flush_log_at_trx_commit=3, device="hdd-7200rpm", filesystem="ext4")
    sc = ex.run.scenario
    assert (sc["innodb_flush_log_at_trx_commit"], sc["device"], sc["filesystem"]) == (
        3,
        "hdd-7200rpm",
        "ext4",
    )
    fast = ex.run
    ex.set(device="nvme-pcie4")
    # the spinning disk's reads wait milliseconds, the NVMe drive's a fraction of one
    assert fast.series["r_await_ms"].mean() > 5 * ex.run.series["r_await_ms"].mean()
    ex.engine_picker.value = "mysql-8.0"  # 3 is MariaDB's only: the preset's value returns
    assert list(commit.options) == [0, 1, 2] and commit.value == 1
    assert ex.run.scenario["innodb_flush_log_at_trx_commit"] == 1


def test_preview_is_the_head_of_the_full_run():
    # the explorer sends a run's first seconds ahead of the rest: they must be the same numbers
    from flushsim.viz.explorer import PREVIEW_S

    for name in ("default", "seed001-lru-burst"):
        sc = fs.presets.get(name).replace(seconds=3 * PREVIEW_S)
        head = fs.simulate(sc.replace(seconds=PREVIEW_S)).series
        assert head.equals(fs.simulate(sc).series.head(PREVIEW_S)), name


def test_autoplay_rerun_ends_with_the_whole_run_drawn(monkeypatch):
    monkeypatch.setenv("FLUSHSIM_FAST", "1")
    ex = Explorer(autoplay=True)
    ex.set(innodb_io_capacity=400)
    n = ex.run.series.height
    assert n == 20  # FLUSHSIM_FAST: longer than two previews, so a preview was sent first
    assert len(ex.sources["pool"].data["time_s"]) == n == ex.figs.clock.end
    assert ex.figs.play.active and ex.figs.clock.value == 0
    # the whole run went on from the preview's state, itself from a copy of the warm server
    # made ahead: the same numbers as a run of the same settings at once
    assert ex.run.series.equals(simulate_warm(ex.scenario_now(), warm=ex.warm).series)
    np.testing.assert_array_equal(
        ex.sources["pool"].data["dirty"], ex.run.series["buffer_pool_pages_dirty"].to_numpy()
    )
    assert ex.sources["wa"].data["mb_s"] is not None and "ready" in ex.status.value


def test_a_shown_explorer_sends_a_rerun_as_two_messages_preview_and_whole(monkeypatch):
    import json

    monkeypatch.setenv("FLUSHSIM_FAST", "1")
    ex = Explorer(autoplay=True)
    assert ex.widget is not None  # shown: the figures and their BokehModel exist
    sent = []
    monkeypatch.setattr(
        ex.bokeh, "send", lambda content, buffers=None: sent.append((content, buffers))
    )
    ex.set(innodb_io_capacity=400)
    # one PATCH-DOC (header, metadata, content) for the preview, one for the whole run; plain
    # lists, so no binary buffers
    assert len(sent) == 6 and not any(buffers for _, buffers in sent)
    contents = [json.loads(c["payload"]) for c, _ in sent[2::3]]
    pool_id = ex.sources["pool"].id
    rows = [
        len(e["data"]["entries"][0][1])
        for c in contents
        for e in c["events"]
        if e["kind"] == "ColumnDataChanged" and e["model"]["id"] == pool_id
    ]
    assert rows == [8, 20]  # the preview's seconds, then the whole run's


def test_an_explorer_driven_from_code_builds_its_figures_only_when_shown(monkeypatch):
    monkeypatch.setenv("FLUSHSIM_FAST", "1")
    ex = Explorer(autoplay=True)
    ex.set(innodb_io_capacity=400)
    assert ex._figs is None and ex._bokeh is None  # nothing built, nothing serialised
    # built later, the figures show the current run as a view would have: the replay from 0
    assert ex.figs.clock.end == ex.run.series.height and ex.figs.clock.value == 0
    assert ex.figs.play.active
    bundle = ex._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "buffer_pool_pages_dirty" in str(ex.bokeh.render_bundle["docs_json"])


def test_explorer_figures_carry_no_glyph_copies_that_nothing_draws(explorer):
    from bokeh.models import GlyphRenderer

    renderers = list(explorer.figs.layout.select({"type": GlyphRenderer}))
    assert len(renderers) > 20
    assert all(r.nonselection_glyph is None and r.muted_glyph is None for r in renderers)
    assert len({id(r.view.filter) for r in renderers}) == 1


def test_every_value_axis_prints_plain_numbers(explorer, default_run):
    # Bokeh's default tick formatter prints 2.500e+6 from 10^5 on: a 35 GiB pool's pages
    from bokeh.models import LinearAxis, NumeralTickFormatter, Plot

    layouts = [
        explorer.figs.layout,
        figures.stall_timeline(default_run),
        figures.throughput({"default": default_run}),
    ]
    axes = [
        axis
        for layout in layouts
        for plot in layout.select({"type": Plot})
        for axis in (*plot.left, *plot.right)
        if isinstance(axis, LinearAxis)  # not the amplification chain's stage names
    ]
    assert len(axes) >= 12
    for axis in axes:
        assert isinstance(axis.formatter, NumeralTickFormatter), axis.axis_label
        assert axis.formatter.format == figures.NUMBER_FORMAT


def test_explorer_legends_reach_no_data_that_changes(explorer):
    """Legend items draw data-less copies of the renderers, which hide the real ones by id.

    BokehJS rebuilds a legend on any change to a model its items reach (figures._proxy_legends).
    """
    from bokeh.models import CustomJS, GlyphRenderer, Legend

    layout = explorer.figs.layout
    by_id = {r.id: r for r in layout.select({"type": GlyphRenderer})}
    changing = {id(s) for s in (*explorer.sources.values(), *explorer.base_sources.values())}
    legends = list(layout.select({"type": Legend}))
    assert len(legends) == 6
    for legend in legends:
        reached = set().union(*(item.references() for item in legend.items))
        assert not {id(m) for m in reached} & changing
        for item in legend.items:
            (proxy,) = item.renderers
            assert all(np.isnan(v).all() for v in proxy.data_source.data.values())
            (follow,) = proxy.js_property_callbacks["change:visible"]
            assert isinstance(follow, CustomJS)
            real = by_id[follow.args["targets"][proxy.id]]
            assert type(real.glyph) is type(proxy.glyph) and id(real.data_source) in changing


def test_stall_timeline_draws_the_four_parts():
    from bokeh.models import BoxAnnotation, ColumnDataSource, GridPlot

    run = fs.simulate(fs.presets.get("seed000-stall"), seconds=15)
    grid = figures.stall_timeline(run, warm_up_s=10, title="stall")
    assert isinstance(grid, GridPlot)
    figs = [child for child, _, _ in grid.children]
    assert [p.title.text for p in figs] == [
        "stall: Buffer pool",
        "stall: Throughput and worst transaction",
        "stall: Device (iostat)",
        "stall: fsyncs",
    ]
    assert len({id(p.x_range) for p in figs}) == 1 and figs[0].x_range.end == 15
    (src,) = {r.data_source for p in figs for r in p.renderers}
    assert isinstance(src, ColumnDataSource)
    for column in figures.STALL_COLUMNS:
        np.testing.assert_array_equal(
            src.data[column], run.series[column].cast(pl.Float64).to_numpy()
        )
    np.testing.assert_array_equal(
        src.data["worst_s"], run.series["sim_trx_latency_max_ms"].to_numpy() / 1000
    )
    for p in figs:
        (box,) = [a for a in p.center if isinstance(a, BoxAnnotation)]
        assert (box.left, box.right) == (0, 10)
    # a series works as well as a run; without a warm-up nothing is shaded
    bare = figures.stall_timeline(run.series)
    assert not [a for c, _, _ in bare.children for a in c.center if isinstance(a, BoxAnnotation)]
    with pytest.raises(ValueError, match="w_await_ms"):
        figures.stall_timeline(run.series.drop("w_await_ms"))


def _needs_unloaded_bundle(models) -> list[str]:
    """What in `models` needs a BokehJS bundle that flushsim's output_notebook leaves out."""
    from bokeh.models import Plot
    from bokeh.models.text import MathText

    delimiters = ("$$", "\\[", "\\(")  # BokehJS renders such labels with MathJax
    found = []
    for m in models:
        name = type(m).__name__
        if type(m).__module__.startswith("bokeh.models.widgets.tables"):
            found.append(f"{name}: bokeh-tables")
        if isinstance(m, MathText):
            found.append(f"{name}: bokeh-mathjax")
        if isinstance(m, Plot) and m.output_backend == "webgl":
            found.append(f"{name} with output_backend webgl: bokeh-gl")
        for prop in ("text", "axis_label", "title", "label"):
            value = getattr(m, prop, None)
            if isinstance(value, str) and any(d in value for d in delimiters):
                found.append(f"{name}.{prop} {value!r}: bokeh-mathjax")
    return found


def test_figures_need_only_the_bundles_output_notebook_loads(explorer, default_run):
    """flushsim.viz.output_notebook loads the `bokeh` and `bokeh-widgets` bundles only."""
    from flushsim.viz.notebook import BUNDLES

    assert BUNDLES == ("bokeh", "bokeh-widgets")
    layouts = [
        explorer.figs.layout,
        figures.standalone(default_run).layout,
        figures.throughput({"a": default_run}),
        figures.stall_timeline(default_run),
    ]
    models = set().union(*(layout.references() for layout in layouts))
    assert len(models) > 300
    assert _needs_unloaded_bundle(models) == []
    # the check itself finds what it looks for
    from bokeh.models import DataTable, Div, TeX

    assert len(_needs_unloaded_bundle([DataTable(), TeX(text="x"), Div(text="$$x$$")])) == 3


def test_output_notebook_publishes_the_two_bundles_then_the_page_patches(monkeypatch):
    import IPython.display

    from flushsim.viz import notebook

    loaded, shown = [], []
    monkeypatch.setattr(notebook, "_bokeh_output_notebook", lambda res, **kw: loaded.append(res))
    monkeypatch.setattr(IPython.display, "display", lambda obj: shown.append(obj))
    notebook.output_notebook()
    (resources,) = loaded
    assert resources.components == ["bokeh", "bokeh-widgets"]
    assert resources.js_files or resources.js_raw  # inline or CDN, BokehJS is there
    (script,) = shown
    assert "_get_css_value" in script.data and "_trigger_on_change" in script.data


def test_the_explorer_opens_on_the_classroom_preset(monkeypatch):
    monkeypatch.setenv("FLUSHSIM_FAST", "1")
    assert Explorer(autoplay=False).scenario.name == "classroom"


def test_the_explorer_notebooks_things_to_try_hold():
    """The numbers that notebooks/00-explorer.ipynb's "Things to try" 1-4 promise, in 60 s runs.

    As the explorer shows them: warm (auto warm-up); a dynamic knob resumes the kept warm
    server, a static one (the pool) or more threads than it warmed up with warm up again.
    """
    room = fs.presets.get("classroom")
    assert room.seconds == 60 and room["innodb_io_capacity"] == 200
    warm = warmup.warm_up(room, "auto")
    assert warm.seconds == 74
    series = warmup.simulate_warm(room, warm=warm).series
    waits = series["buffer_pool_wait_free"].sum()
    # 1. the pool decides: 1 GiB reads about 3,000 pages a second for about 520 trx/s;
    # 4 GiB holds the table (about 1,460 trx/s, no LRU batch); 64 MiB: about 390, 16,870 waits
    assert round(series["buffer_pool_reads"].mean(), -2) == 3_000
    assert round(series["sim_tps"].mean(), -1) == 520
    big = warmup.simulate_warm(room.replace(innodb_buffer_pool_size=4 * 2**30), "auto").series
    assert round(big["sim_tps"].mean(), -1) == 1_460
    assert big["buffer_LRU_batch_flush_total_pages"].sum() == 0
    small = warmup.simulate_warm(room.replace(innodb_buffer_pool_size=64 * 2**20), "auto").series
    assert round(small["sim_tps"].mean(), -1) == 390
    assert round(small["buffer_pool_wait_free"].sum(), -1) == 16_870
    # 2. cold: free falls under 5,000 pages in three seconds, threads wait about 25 times a
    # second; warm, innodb_lru_scan_depth 4096 cuts the run's waits from 880 to 314
    cold = fs.simulate(room).series
    free = cold["buffer_pool_pages_free"]
    assert free[0] > 40_000 and free[1] > 5_000 and free[2] < 5_000
    assert round(cold["buffer_pool_wait_free"][20:].mean()) == 25
    deeper = warmup.simulate_warm(room.replace(innodb_lru_scan_depth=4096), warm=warm).series
    assert (waits, deeper["buffer_pool_wait_free"].sum()) == (880, 314)
    # 3. io_capacity 200 -> 2000 moves the LRU batches' total by under 3 %: with the explorer's
    # io_capacity_max control left at 2000, and with the server's derived 4000
    lru = "buffer_LRU_batch_flush_total_pages"
    for io_max in (2000, None):
        change = {"innodb_io_capacity": 2000}
        if io_max is not None:
            change["innodb_io_capacity_max"] = io_max
        faster = warmup.simulate_warm(room.replace(**change), warm=warm)
        assert faster.scenario["innodb_io_capacity_max"] == (io_max or 4000)
        before, after = series[lru].sum(), faster.series[lru].sum()
        assert abs(after - before) < 0.03 * before, (io_max, before, after)
        assert faster.series["buffer_flush_adaptive_total_pages"].sum() != (
            series["buffer_flush_adaptive_total_pages"].sum()
        )
    # 4. 48 threads instead of 16 (more than it warmed up with: a new warm-up): throughput
    # stays near 520, waits rise to 3,716
    crowd = warmup.simulate_warm(room.replace(threads=48), "auto").series
    assert round(crowd["sim_tps"].mean(), -1) == 520
    assert crowd["buffer_pool_wait_free"].sum() == 3_716


# ---------------------------------------------------------------- texts follow the engine
ENGINES = ("mysql-8.0", "mariadb-10.6", "mariadb-10.11", "mysql-8.4")


@pytest.mark.parametrize("engine", ENGINES)
def test_every_controls_help_is_the_engines_own(monkeypatch, engine):
    monkeypatch.setenv("FLUSHSIM_FAST", "1")
    ex = Explorer(autoplay=False)
    ex.engine_picker.value = engine  # an engine switch refreshes every control's help
    for name in ("workload", "innodb_lru_scan_depth", "innodb_io_capacity_max", "threads"):
        p = fs.params.get(name, engine)
        help_ = ex.controls[name].tooltip
        assert p.doc in help_ and engine in help_
        default = p.default_doc or str(p.default)
        said = "Server default" if p.group == "server" else "Default"  # threads: flushsim's
        assert f"{said} {default};" in help_
    depth = ex.controls["innodb_lru_scan_depth"].tooltip
    iocap_max = ex.controls["innodb_io_capacity_max"].tooltip
    if engine in fs.params.MYSQL:
        assert "Per instance" in depth and "Server default 1024;" in depth
        assert "LRU flushing ignores it" in iocap_max
    else:  # MariaDB: one buffer pool, its own default, io_capacity_max sizes LRU passes
        assert "Per instance" not in depth and "Server default 1536;" in depth
        assert "LRU flushing ignores it" not in iocap_max
    assert ex.readouts["innodb_lru_scan_depth"].box.tooltip == depth
    # the page puts the help on the whole control from the document's "help" source
    page_help = dict(zip(*ex.sources["help"].data.values(), strict=True))
    assert page_help["innodb_lru_scan_depth"] == depth
    assert {"preset", "engine", "drive", "ssd_fill", "version"} <= set(page_help)
    assert all(page_help.values())


def test_a_small_pool_s_notes_say_what_each_engine_does_without_free_pages():
    from flushsim.viz.regimes import rule_text

    said = {}
    for engine in ENGINES:
        knobs = {"innodb_buffer_pool_size": 128 * 1024 * 1024, "threads": 64}
        if engine == "mariadb-10.6":
            # before MDEV-33053 (10.6.17), whose wake-ups keep this pool's free list from
            # running empty
            knobs["version"] = "10.6.16"
        sc = fs.Scenario(knobs=knobs, engine=engine, seconds=20)
        table = regime_changes(fs.simulate(sc))
        texts = table.filter(pl.col("regime") == "free_empty")["text"].to_list()
        assert texts, f"{engine}: the free list never ran empty"
        assert set(texts) == {rule_text("free_empty", engine)}
        said[engine] = texts[0]
    assert "flush pages themselves" in said["mysql-8.0"]
    assert "innodb_lru_flush_size" in said["mariadb-10.6"]
    # 10.11.8+ user threads no longer flush: they wait for the page cleaner
    assert "themselves" not in said["mariadb-10.11"]
    assert "wait for the page cleaner" in said["mariadb-10.11"]
    assert "innodb_idle_flush_pct" not in rule_text("idle", "mariadb-10.11")


def test_timeline_events_read_as_the_workload_and_the_server_say_them():
    sc = (
        fs.presets.get("default")
        .replace(seconds=14)
        .at(10, write_pct=100)
        .at(11.5, innodb_adaptive_flushing=False)
    )
    table = regime_changes(fs.simulate(sc))
    events = table.filter(pl.col("regime") == "set")
    assert events["text"].to_list() == [
        "the workload switches to 100 % writes",
        "SET GLOBAL innodb_adaptive_flushing = OFF",
    ]
    # one time per event: the list says "at <time_s> s", the words carry none
    assert events["time_s"].to_list() == [10, 12]
    assert events["x"].to_list() == [10.0, 11.5]
    html = figures.regimes_html(figures.regime_marks(fs.simulate(sc), table), 14)
    assert "at 10 s: the workload switches to 100 % writes" in html
    assert "True" not in html and "False" not in html


def test_every_hover_shows_one_box_of_columns_its_source_has(explorer):
    from bokeh.models import HoverTool

    hovers = list(explorer.figs.layout.select({"type": HoverTool}))
    assert len(hovers) == 6  # pool, flush, redo, work, write amplification, lifetime
    for hover in hovers:
        # one renderer: a vline hover over several renderers shows a box each ("???" where a
        # renderer's source lacks a field: the legends' copies, the regime marks, the curtain)
        assert len(hover.renderers) == 1
        columns = hover.renderers[0].data_source.data
        for _, field in hover.tooltips:
            for name in _fields(field):
                assert name in columns, f"{field} not in {sorted(columns)}"


def _fields(tooltip: str) -> list[str]:
    import re

    return [a or b for a, b in re.findall(r"@\{([^}]+)\}|@(\w+)", tooltip)]


def test_write_amplification_factors_name_what_they_are_relative_to(default_run):
    wa = figures.wear_data(default_run)["wa"]
    by = dict(zip(wa["label"], wa["factor"], strict=True))
    assert by["rows changed"] == ""
    assert by["data pages written"].endswith(" of rows changed")
    assert by["redo log"].endswith(" of data pages written")
    assert by["database writes"].endswith(" of rows changed")
    assert by["flash writes (FTL)"].endswith(" of database writes")


def test_a_typed_readout_value_runs_or_is_refused_and_reverts(monkeypatch):
    monkeypatch.setenv("FLUSHSIM_FAST", "1")
    ex = Explorer(autoplay=False)
    threads = ex.readouts["threads"].box
    assert ex.controls["threads"].readout is False  # ipywidgets' own ignores typing
    assert threads.value == "16"
    threads.value = "48"  # not a slider stop: added as one, and it runs
    assert ex.controls["threads"].value == 48 and ex.run.scenario["threads"] == 48
    threads.value = "5000"
    assert threads.value == "48" and ex.run.scenario["threads"] == 48
    assert "between 0 and 4,096" in ex.messages.value
    threads.value = ""  # never blank
    assert threads.value == "48"
    pool = ex.readouts["innodb_buffer_pool_size"].box
    assert pool.value == "1G"  # the default preset's, as in my.cnf
    pool.value = "256M"  # as in my.cnf
    assert ex.run.scenario["innodb_buffer_pool_size"] == 256 * 1024 * 1024
    iocap_max = ex.readouts["innodb_io_capacity_max"].box
    iocap_max.value = "abc"
    assert iocap_max.value == "2000" and "is not a whole number" in ex.messages.value
    ex.preset_picker.value = "seed004-idle-flush"  # a preset's values show, never blank
    for name, readout in ex.readouts.items():
        if not readout.box.disabled:
            assert readout.box.value == readout._show(ex.controls[name].value) != ""
    ex.engine_picker.value = "mariadb-10.11"
    assert ex.readouts["innodb_lru_scan_depth"].box.value == "1536"
    fill = ex.fill_readout.box
    fill.value = "99"
    assert fill.value == "50" and "between 0 and 95" in ex.messages.value
    fill.value = "80"
    assert ex.setting.fill == pytest.approx(0.8)
