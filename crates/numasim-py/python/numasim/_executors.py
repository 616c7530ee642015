"""Where independent runs go: threads of this process, Ray tasks, or a Slurm job array.

Sweeps and studies both hand :func:`dispatch` a module-level function (so Ray and submitit can
pickle it) and one argument tuple per run; the function is called as ``fn(*args, threads)``
wherever the executor puts it. Every run writes its own results directory, so the results
are the same on every executor; the paths must be on a file system the workers share.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

EXECUTORS = ("local", "ray", "submitit")


def dispatch(
    fn: Callable[..., Any],
    calls: Sequence[Tuple[Any, ...]],
    executor: str,
    folder: Path,
    *,
    jobs: Optional[int] = None,
    address: Optional[str] = None,
    slurm: Optional[Dict[str, Any]] = None,
    cluster: Optional[str] = None,
) -> None:
    """Runs ``fn(*args, threads)`` for every ``args`` of ``calls``; raises
    :class:`numasim.NumasimError` listing the failures after the others finish. ``folder``:
    where submitit keeps its job files (``folder/.submitit``)."""
    if not calls:
        return
    if executor == "local":
        _local(fn, calls, jobs)
    elif executor == "ray":
        _ray(fn, calls, address)
    elif executor == "submitit":
        _submitit(fn, calls, folder, slurm or {}, cluster)
    else:
        raise ValueError(f"executor must be one of {', '.join(EXECUTORS)}, not {executor!r}")


def _raise_failures(failures: List[str], total: int) -> None:
    if failures:
        from ._native import NumasimError

        raise NumasimError(
            f"{len(failures)} of {total} runs failed (the others are complete; rerun to retry only "
            "the failed ones):\n  " + "\n  ".join(failures)
        )


def _local(fn: Callable[..., Any], calls: Sequence[Tuple[Any, ...]], jobs: Optional[int]) -> None:
    cores = os.cpu_count() or 1
    jobs = max(1, min(jobs or cores, len(calls)))
    threads = max(1, cores // jobs)
    failures = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(fn, *args, threads) for args in calls]
        for f in futures:
            try:
                f.result()
            except Exception as e:  # noqa: BLE001 - reported together below
                failures.append(str(e))
    _raise_failures(failures, len(calls))


def _ray(fn: Callable[..., Any], calls: Sequence[Tuple[Any, ...]], address: Optional[str]) -> None:
    try:
        import ray
    except ImportError as e:
        raise ImportError("executor='ray' needs Ray: pip install 'ray'") from e
    started_here = not ray.is_initialized()
    if started_here:
        kwargs: Dict[str, Any] = {"address": address} if address else {"include_dashboard": False}
        ray.init(**kwargs, log_to_driver=False)
    try:
        task = ray.remote(num_cpus=1)(fn)
        refs = [task.remote(*args, 1) for args in calls]
        failures = []
        for ref in refs:
            try:
                ray.get(ref)
            except Exception as e:  # noqa: BLE001
                failures.append(str(getattr(e, "cause", None) or e))
        _raise_failures(failures, len(calls))
    finally:
        if started_here:
            ray.shutdown()


def _submitit(
    fn: Callable[..., Any],
    calls: Sequence[Tuple[Any, ...]],
    folder: Path,
    params: Dict[str, Any],
    cluster: Optional[str],
) -> None:
    try:
        import submitit
    except ImportError as e:
        raise ImportError("executor='submitit' needs submitit: pip install submitit") from e
    ex = submitit.AutoExecutor(folder=str(folder / ".submitit"), cluster=cluster)
    defaults: Dict[str, Any] = {"timeout_min": 60, "cpus_per_task": 1}
    if ex.cluster == "slurm":
        defaults["slurm_array_parallelism"] = len(calls)
    ex.update_parameters(**{**defaults, **params})
    columns = [list(c) for c in zip(*calls)] + [[1] * len(calls)]
    jobs = ex.map_array(fn, *columns)
    failures = []
    for job in jobs:
        try:
            job.result()
        except Exception as e:  # noqa: BLE001
            failures.append(str(e))
    _raise_failures(failures, len(calls))
