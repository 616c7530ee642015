"""Sweeps: the CLI's local executor, the Python executors (local threads, Ray, submitit's local
executor) on one sweep file give the same run directories and results; collect has the swept
keys as columns."""

import json
import os
from pathlib import Path

import pytest

import numasim
from numasim import sweeps
from conftest import SMALL, require

SWEEP = """\
base = "small.toml"
name = "t"
[set]
max_phases = 3
[grid]
migration.policy = ["none", "starnuma"]
[[zip]]
workload.threads = [2, 4]
seed = [1, 2]
"""


@pytest.fixture
def sweep_file(tmp_path):
    (tmp_path / "small.toml").write_text(SMALL)
    p = tmp_path / "sweep.toml"
    p.write_text(SWEEP)
    return p


def results_without_perf(run_dir):
    d = json.loads((Path(run_dir) / "results.json").read_text())
    d.pop("perf")
    return d


def test_cli_sweep_runs_skips_and_collects(cli, sweep_file, tmp_path):
    cli("sweep", sweep_file, "-o", "out", "-j", "2")
    out = tmp_path / "out"
    plan = sweeps.plan(sweep_file, out)
    assert plan["axes"] == ["migration.policy", "seed", "workload.threads"]
    assert len(plan["runs"]) == 4 and all(r["complete"] for r in plan["runs"])
    for r in plan["runs"]:
        resolved = (Path(r["dir"]) / "experiment.resolved.toml").read_text()
        assert f'policy = "{r["params"]["migration.policy"]}"' in resolved
        assert f"seed = {r['params']['seed']}" in resolved
    mtimes = {r["name"]: (Path(r["dir"]) / "results.json").stat().st_mtime_ns for r in plan["runs"]}
    # A rerun skips every complete run.
    p = cli("sweep", sweep_file, "-o", "out")
    assert "4 already complete, 0 to run" in p.stderr
    assert mtimes == {r["name"]: (Path(r["dir"]) / "results.json").stat().st_mtime_ns for r in plan["runs"]}
    # An interrupted sweep: remove one run (as if it was in flight) and leave a partial.
    victim = plan["runs"][1]
    import shutil

    shutil.rmtree(victim["dir"])
    partial = out / f"{victim['name']}.partial-999999"  # what a run killed by SIGKILL leaves
    partial.mkdir()
    (partial / ".numasim-results").write_text("numasim results directory v1\nrun_id 999999-1\nfile results.json\n")
    (partial / "results.json").write_text("{")
    p = cli("sweep", sweep_file, "-o", "out")
    assert "3 already complete, 1 to run" in p.stderr
    assert not (out / f"{victim['name']}.partial-999999").exists()

    csv = cli("sweep", "collect", "out").stdout
    df = numasim.collect(out)
    assert list(df.columns[:4]) == ["run", "migration.policy", "seed", "workload.threads"]
    assert len(df) == 4 and csv.count("\n") == 5
    row = df[(df["migration.policy"] == "starnuma") & (df["workload.threads"] == 4)].iloc[0]
    assert row["seed"] == 2
    # results.json's own `migration.policy` would repeat the swept key's name: it is prefixed.
    assert row["results.migration.policy"] == "starnuma"
    d = results_without_perf(out / row["run"])
    assert row["totals.llc_misses"] == d["totals"]["llc_misses"]
    assert row["threads"] == 4


def test_bad_sweep_names_the_key(cli, sweep_file, tmp_path):
    sweep_file.write_text(SWEEP.replace("seed = [1, 2]", "seedz = [1, 2]"))
    p = cli("sweep", sweep_file, "-o", "out", check=False)
    assert p.returncode != 0 and "seedz" in p.stderr, p.stderr
    with pytest.raises(numasim.NumasimError, match="seedz"):
        sweeps.plan(sweep_file)
    assert not (tmp_path / "out").exists(), "nothing runs when a point is invalid"


def test_python_local_executor_matches_cli(cli, sweep_file, tmp_path):
    cli("sweep", sweep_file, "-o", "cli")
    plan = numasim.sweep(sweep_file, out=tmp_path / "py", jobs=2)
    assert all(r["complete"] for r in plan["runs"])
    for r in plan["runs"]:
        assert results_without_perf(r["dir"]) == results_without_perf(tmp_path / "cli" / r["name"])


def test_parquet_and_csv(cli, sweep_file, tmp_path):
    cli("sweep", sweep_file, "-o", "out")
    from numasim.__main__ import main

    assert main(["sweep", "collect", str(tmp_path / "out"), "--parquet", str(tmp_path / "t.parquet"),
                 "--csv", str(tmp_path / "t.csv")]) == 0
    import pyarrow.parquet as pq

    t = pq.read_table(tmp_path / "t.parquet")
    assert t.num_rows == 4 and "migration.policy" in t.column_names
    assert (tmp_path / "t.csv").read_text() == cli("sweep", "collect", "out").stdout


def test_python_writers_never_replace_a_runs_results(cli, sweep_file, tmp_path):
    # The writers must never replace ROOT/<id>/results.json with a table.
    cli("sweep", sweep_file, "-o", "out")
    run = next(p for p in (tmp_path / "out").iterdir() if p.is_dir())
    results = run / "results.json"
    before = results.read_bytes()
    for write in (sweeps.write_csv, sweeps.write_parquet):
        with pytest.raises(numasim.NumasimError):
            write(tmp_path / "out", results)
    assert results.read_bytes() == before
    link = tmp_path / "link.csv"
    link.symlink_to(tmp_path / "real.csv")
    (tmp_path / "real.csv").write_text("old")
    assert sweeps.write_csv(tmp_path / "out", link) == 4
    assert link.is_symlink() and (tmp_path / "real.csv").read_text().startswith("run,")


def test_ray_executor(cli, sweep_file, tmp_path):
    require("ray", "the Ray executor")
    cli("sweep", sweep_file, "-o", "cli")
    plan = numasim.sweep(sweep_file, out=tmp_path / "ray", executor="ray")
    assert len(plan["runs"]) == 4 and all(r["complete"] for r in plan["runs"])
    for r in plan["runs"]:
        assert results_without_perf(r["dir"]) == results_without_perf(tmp_path / "cli" / r["name"])


def test_submitit_local_executor(cli, sweep_file, tmp_path):
    require("submitit", "the Slurm executor")
    cli("sweep", sweep_file, "-o", "cli")
    plan = numasim.sweep(sweep_file, out=tmp_path / "slurm", executor="submitit", cluster="local",
                         slurm={"timeout_min": 10})
    assert len(plan["runs"]) == 4 and all(r["complete"] for r in plan["runs"])
    for r in plan["runs"]:
        assert results_without_perf(r["dir"]) == results_without_perf(tmp_path / "cli" / r["name"])
    # submitit's job folder is kept apart from the run directories, so collect sees 4 runs.
    assert len(numasim.collect(tmp_path / "slurm")) == 4
