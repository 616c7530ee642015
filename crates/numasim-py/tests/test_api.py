"""The Python API against the CLI: same results, same errors."""

import json
import os
from pathlib import Path

import numpy as np
import pytest

import numasim
from conftest import SMALL, require


def strip_perf(d):
    d = dict(d)
    d.pop("perf", None)
    return d


def test_run_from_python_equals_cli_results(cli, small_toml, tmp_path):
    cli("run", small_toml, "-o", "cli-out", "--quiet")
    expected = json.loads((tmp_path / "cli-out" / "results.json").read_text())
    r = numasim.run(small_toml, out=tmp_path / "py-out")
    assert isinstance(r, numasim.Result)
    got = json.loads((tmp_path / "py-out" / "results.json").read_text())
    assert strip_perf(got) == strip_perf(expected)
    # Every other file is byte-identical too.
    for f in ("phases.csv", "machine.json", "experiment.resolved.toml"):
        assert (tmp_path / "py-out" / f).read_bytes() == (tmp_path / "cli-out" / f).read_bytes(), f
    assert r.summary["totals"]["accesses"] == expected["totals"]["accesses"] > 0
    assert "phases" not in r.summary and r.results["phases"] == expected["phases"]


def test_text_dict_and_set_forms_agree_with_cli_set(cli, small_toml, tmp_path):
    cli("run", small_toml, "-o", "cli-set", "--quiet", "--set", "workload.threads=8", "--set", "seed=9")
    expected = strip_perf(json.loads((tmp_path / "cli-set" / "results.json").read_text()))
    as_set = numasim.run(small_toml, out=tmp_path / "a", set={"workload.threads": 8, "seed": 9})
    as_text = numasim.run(SMALL.replace("seed = 5", "seed = 9").replace("threads = 4", "threads = 8"),
                          out=tmp_path / "b")
    as_dict = numasim.run(
        {
            "machine": "starnuma16-pool",
            "seed": 9,
            "phase_instructions": 2000,
            "workload": {"kind": "synthetic", "threads": 8, "pattern": "shared-hot", "accesses_per_thread": 4000},
            "placement": {"policy": "first-touch"},
        },
        out=tmp_path / "c",
    )
    for r in (as_set, as_text, as_dict):
        got = strip_perf(r.results)
        # The run's name comes from the file stem for files and is `experiment` for text.
        got["name"] = expected["name"]
        assert got == expected
    assert "threads = 8" in (tmp_path / "cli-set" / "experiment.resolved.toml").read_text()


def test_errors_are_exceptions_with_the_cli_message(cli, small_toml, tmp_path):
    p = cli("run", small_toml, "-o", "x", "--set", "workload.threadz=3", check=False)
    assert p.returncode != 0
    cli_msg = p.stderr.strip().removeprefix("error: ")
    assert "workload.threadz" in cli_msg
    with pytest.raises(numasim.NumasimError) as e:
        numasim.run(small_toml, out=tmp_path / "y", set={"workload.threadz": 3})
    assert str(e.value) == cli_msg
    # A bad key in the file itself names file, line and key.
    bad = tmp_path / "bad.toml"
    bad.write_text(SMALL.replace("seed = 5", "sed = 5"))
    with pytest.raises(numasim.NumasimError, match=r"bad.toml:2: key `sed`"):
        numasim.run(bad, out=tmp_path / "z")
    # An existing directory is refused as by the CLI.
    numasim.run(small_toml, out=tmp_path / "once")
    with pytest.raises(numasim.NumasimError, match="already exists: pass --force"):
        numasim.run(small_toml, out=tmp_path / "once")
    numasim.run(small_toml, out=tmp_path / "once", force=True)


def test_load_and_tables(small_toml, tmp_path):
    numasim.run(small_toml, out=tmp_path / "r")
    r = numasim.load(tmp_path / "r")
    phases = r.phases()
    assert len(phases) == len(r.results["phases"]) > 1
    assert list(phases["accesses"]) == [p["accesses"] for p in r.results["phases"]]
    assert phases["accesses"].sum() == r.summary["totals"]["accesses"]
    pm = r.placement_map()
    first = r.results["phases"][0]["placement_map"]
    rows0 = pm[pm["phase"] == r.results["phases"][0]["index"]]
    assert list(rows0["first_vpage"]) == first["first_vpage"]
    assert list(rows0["bin"]) == list(range(len(first["first_vpage"])))
    nodes = r.summary["machine"]["memory_nodes"]
    assert list(rows0["home"]) == [nodes[h] for h in first["home"]]
    links = r.links()
    assert len(links) == len(r.machine_summary["links"]) > 0
    ppn = r.pages_per_node()
    assert "pages_pool" in ppn.columns
    with pytest.raises(numasim.NumasimError, match="not a complete results directory"):
        numasim.load(tmp_path)


def test_polars_backend(small_toml, tmp_path):
    require("polars", "DataFrames in polars")
    r = numasim.run(small_toml, out=tmp_path / "r")
    pl_df = r.phases(backend="polars")
    pd_df = r.phases()
    assert pl_df.shape == pd_df.shape
    assert pl_df["accesses"].to_list() == pd_df["accesses"].tolist()


def test_machine_latency_matrix_matches_cli(cli):
    shown = json.loads(cli("machine", "show", "starnuma16-pool", "--json").stdout)
    m = numasim.Machine("starnuma16-pool")
    assert m.latency_ns.shape == (len(shown["sockets"]), len(shown["memory_nodes"]))
    assert np.array_equal(m.latency_ns, np.array(shown["load_latency_ns"]))
    assert m.latency_ns.dtype == np.float64
    # Local memory is the nearest node of each socket.
    local = [m.memory_nodes.index(n["name"]) for n in shown["memory_nodes"] if n["attached_socket"] == m.sockets[0]]
    assert m.latency_ns[0, local[0]] == m.latency_ns[0].min()
    with pytest.raises(numasim.NumasimError, match="nope"):
        numasim.Machine("nope")


def test_plots_return_figures(small_toml, tmp_path):
    require("matplotlib", "plotting helpers")
    from matplotlib.figure import Figure

    from numasim import plot

    r = numasim.run(small_toml, out=tmp_path / "r")
    for fig in (
        plot.access_classes([r]),
        plot.phases(r, ["local_fraction"]),
        plot.placement(r),
        plot.latency_heatmap("starnuma16-pool"),
    ):
        assert isinstance(fig, Figure)
        assert fig.axes and fig.axes[0].has_data()
        fig.savefig(tmp_path / "f.png")
        assert (tmp_path / "f.png").stat().st_size > 1000
