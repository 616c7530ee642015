"""Sweeps from Python: the same sweep file on the local machine, on Ray, or on Slurm.

Expansion, hashing, skipping complete runs and writing each run's directory are the Rust
core's (``numasim sweep``); an executor here only decides where each point runs, by calling
``numasim._native.sweep_run(sweep_file, index)`` there. So a worker needs the package
installed and the sweep file, base experiment and results root on a shared file system.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

from . import _native
from ._executors import EXECUTORS, dispatch
from ._result import collect_frame

PathLike = Union[str, "os.PathLike[str]"]


def plan(sweep_file: PathLike, out: Optional[PathLike] = None) -> Dict[str, Any]:
    """The expanded sweep: ``name``, ``out_dir``, ``axes`` and ``runs`` (id, dir, params,
    complete). Validates every run; raises :class:`numasim.NumasimError` naming the key."""
    return json.loads(_native.sweep_plan(os.fspath(sweep_file), None if out is None else os.fspath(out)))


def _run_point(sweep_file: str, out: Optional[str], index: int, threads: int = 1) -> bool:
    """One point, wherever an executor put it (module level, so Ray and submitit can pickle it)."""
    from numasim import _native as native

    return native.sweep_run(sweep_file, index, out, threads)


def sweep(
    sweep_file: PathLike,
    *,
    out: Optional[PathLike] = None,
    executor: str = "local",
    jobs: Optional[int] = None,
    address: Optional[str] = None,
    slurm: Optional[Dict[str, Any]] = None,
    cluster: Optional[str] = None,
) -> Dict[str, Any]:
    """Runs every pending point of a sweep and returns the plan (after the run).

    ``executor``: ``"local"`` (threads of this process, ``jobs`` at once, default all cores; the
    GIL is released while Rust simulates), ``"ray"`` (one task per point on the cluster at
    ``address``, or else a single-node Ray started here for the sweep; Ray 2.60 removed its old
    in-process ``local_mode``), or
    ``"submitit"`` (a Slurm job array; ``slurm`` holds submitit parameters such as
    ``{"slurm_partition": "x", "timeout_min": 60}``; ``cluster="local"`` uses submitit's local
    executor). Complete points are skipped; a failed point raises after the others finish.
    """
    sweep_file = os.fspath(sweep_file)
    out_s = None if out is None else os.fspath(out)
    p = json.loads(_native.sweep_plan(sweep_file, out_s, True))
    pending = [r["index"] for r in p["runs"] if not r["complete"]]
    if pending:
        # Paths as the workers see them: absolute, since a Slurm job may start elsewhere.
        sweep_abs = str(Path(sweep_file).resolve())
        out_abs = str(Path(out_s if out_s is not None else p["out_dir"]).resolve())
        calls = [(sweep_abs, out_abs, i) for i in pending]
        dispatch(_run_point, calls, executor, Path(out_abs), jobs=jobs, address=address, slurm=slurm, cluster=cluster)
    return plan(sweep_file, out)


def collect(results_root: PathLike, backend: str = "pandas"):
    """Every complete run under a sweep's results root as one table (``numasim sweep
    collect``): ``run``, the swept keys, then every scalar of results.json."""
    return collect_frame(_native.sweep_collect_csv(os.fspath(results_root)), backend)


def write_parquet(results_root: PathLike, path: PathLike) -> int:
    """Writes the collected table as Parquet under numasim's output policy (through a temporary
    file renamed into place; never onto a run's files, a link or a device); returns the row
    count."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = collect(results_root, backend="arrow")
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    _native.write_collected_bytes(os.fspath(results_root), os.fspath(path), sink.getvalue().to_pybytes())
    return table.num_rows


def write_csv(results_root: PathLike, path: PathLike) -> int:
    """Writes the CSV ``numasim sweep collect`` prints under numasim's output policy (as
    ``write_parquet``); returns the row count."""
    return _native.sweep_collect_write(os.fspath(results_root), os.fspath(path))
