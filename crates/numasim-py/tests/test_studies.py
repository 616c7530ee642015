"""Studies (``numasim repro``) on the Python executors: Ray runs a study's batches and the
study reads the same results as the CLI's local run, byte for byte."""

import json
import sys
from pathlib import Path

from conftest import require


def runs_without_perf(study_dir):
    out = {}
    for r in sorted((Path(study_dir) / "runs").iterdir()):
        d = json.loads((r / "results.json").read_text())
        d.pop("perf")
        out[r.name] = d
    return out


def test_repro_on_ray_matches_the_local_study(cli, tmp_path, monkeypatch):
    require("ray", "the Ray executor")
    cli("repro", "hydm", "--quick", "-o", "local", "--jobs", "1")
    # The CLI hands --executor ray to `python -m numasim repro` in this interpreter.
    monkeypatch.setenv("NUMASIM_PYTHON", sys.executable)
    cli("repro", "hydm", "--quick", "-o", "ray", "--executor", "ray")
    local, ray = tmp_path / "local", tmp_path / "ray"
    assert (ray / "comparison.csv").read_bytes() == (local / "comparison.csv").read_bytes()
    assert runs_without_perf(ray) == runs_without_perf(local)
    assert len(runs_without_perf(ray)) >= 3
