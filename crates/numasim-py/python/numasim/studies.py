"""Paper studies (``numasim repro``) from Python, their runs on this machine, Ray or Slurm.

A study is a Rust program whose runs come in batches (a later batch may be sized from an earlier
one's results). :func:`repro` asks the Rust core for the study's next batch of missing runs,
hands them to an executor, and asks again; finished runs are reused, so the study reads exactly
the results a local ``numasim repro`` would, and an interrupted study resumes where it stopped.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, Optional, Union

from . import _native
from ._executors import dispatch

PathLike = Union[str, "os.PathLike[str]"]


def _run_one(run_id: str, config: str, run_dir: str, threads: int = 1) -> None:
    """One run of a study, wherever an executor put it (module level, so it pickles)."""
    from numasim import _native as native

    native.repro_run(run_id, config, run_dir, threads)


def repro(
    study: str,
    *,
    out: Optional[PathLike] = None,
    quick: bool = False,
    executor: str = "local",
    jobs: Optional[int] = None,
    address: Optional[str] = None,
    slurm: Optional[Dict[str, Any]] = None,
    cluster: Optional[str] = None,
    resume: bool = False,
) -> Dict[str, Any]:
    """Runs a paper's study into ``out`` (default ``results/repro-<study>[-quick]``) and returns
    ``{"comparison_csv", "report", "scorecard"}``. ``executor`` and its options are those of
    :func:`numasim.sweep`; every executor gives byte-identical results. ``resume``: reuse runs
    already finished in ``out`` with the same config. Ray and submitit always resume (that is
    how the study goes from batch to batch), so give them an empty ``out`` for a fresh study."""
    out_dir = Path(out if out is not None else Path("results") / f"repro-{study}{'-quick' if quick else ''}")
    out_abs = out_dir.resolve()
    cores = os.cpu_count() or 1
    while True:
        step = json.loads(
            _native.repro_step(study, out_abs, quick, jobs or cores, executor != "local", resume)
        )
        pending = step.pop("pending")
        if not pending:
            return step
        calls = [(r["id"], r["config"], r["dir"]) for r in pending]
        dispatch(_run_one, calls, executor, out_abs, jobs=jobs, address=address, slurm=slurm, cluster=cluster)
