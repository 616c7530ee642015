"""Results directories as Python objects; tables through pyarrow (columnar, no per-row loops)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List, Union

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ._native import NumasimError

BACKENDS = ("pandas", "polars", "arrow")


def to_frame(table: pa.Table, backend: str = "pandas"):
    """An Arrow table as a pandas or polars DataFrame (or the Arrow table itself)."""
    if backend == "pandas":
        return table.to_pandas()
    if backend == "polars":
        try:
            import polars as pl
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise NumasimError("backend='polars' needs polars (pip install polars)") from e
        return pl.from_arrow(table)
    if backend == "arrow":
        return table
    raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")


def read_csv(data: Union[bytes, str, "os.PathLike[str]"]) -> pa.Table:
    """A numasim CSV (phases.csv, sweep collect) as an Arrow table; types inferred per column."""
    source = pa.BufferReader(data) if isinstance(data, bytes) else os.fspath(data)
    return pacsv.read_csv(source)


class Result:
    """A finished run: the results directory ``numasim run`` wrote.

    ``summary`` is results.json without its per-phase records (those are :meth:`phases`);
    ``results`` is the whole file.
    """

    def __init__(self, path: Union[str, "os.PathLike[str]"]):
        self.path = Path(path)
        results = self.path / "results.json"
        if not results.is_file():
            raise NumasimError(
                f"{self.path}: not a complete results directory (no results.json); "
                "numasim writes a directory only when the run has finished"
            )
        with open(results, encoding="utf-8") as f:
            self.results: Dict[str, Any] = json.load(f)
        self.summary: Dict[str, Any] = {k: v for k, v in self.results.items() if k != "phases"}

    def __repr__(self) -> str:
        s = self.summary
        return f"<numasim.Result {s.get('name')!r} on {s.get('machine', {}).get('name')!r} at {str(self.path)!r}>"

    @property
    def name(self) -> str:
        return self.summary["name"]

    @property
    def config_toml(self) -> str:
        """The resolved experiment (every default written out), as TOML text."""
        return (self.path / "experiment.resolved.toml").read_text(encoding="utf-8")

    @property
    def machine_summary(self) -> Dict[str, Any]:
        with open(self.path / "machine.json", encoding="utf-8") as f:
            return json.load(f)

    def phases(self, backend: str = "pandas"):
        """One row per phase (phases.csv): accesses, misses by class and node, pages per node,
        migration moves and costs, and in timing mode AMAT, IPC and utilisations."""
        return to_frame(read_csv(self.path / "phases.csv"), backend)

    def links(self, backend: str = "pandas"):
        """One row per link of the machine: endpoints, per-direction bandwidth and latency."""
        links = self.machine_summary.get("links", [])
        return to_frame(pa.Table.from_pylist(links), backend)

    def placement_map(self, backend: str = "pandas"):
        """Pages in virtual-address order, cut into at most 64 bins per phase (the report's
        placement map): ``phase``, ``bin``, ``first_vpage``, ``home`` (name of the node holding most of the bin),
        ``home_permille``, ``migrated``. results.json holds no per-page record, so this binned
        map is the finest page-level view a results directory has."""
        phases = self.results.get("phases", [])
        maps = [p.get("placement_map") or {} for p in phases]  # one entry per phase
        cols = {}
        for name, typ in (("first_vpage", pa.uint64()), ("home", pa.uint16()),
                          ("home_permille", pa.uint16()), ("migrated", pa.uint64())):
            cols[name] = pa.array([m.get(name, []) for m in maps], pa.list_(typ))
        lists = cols["home"]
        parents = pc.list_parent_indices(lists)
        index = pa.array([p.get("index", i) for i, p in enumerate(phases)], pa.int64())
        starts = pa.array(_exclusive_cumsum(pc.list_value_length(lists).to_pylist()), pa.int64())
        n = len(parents)
        position = pc.subtract(pa.array(range(n), pa.int64()), pc.take(starts, parents))
        nodes = pa.array(self.summary["machine"]["memory_nodes"], pa.string())
        home = pc.list_flatten(lists)
        table = pa.table({
            "phase": pc.take(index, parents),
            "bin": position,
            "first_vpage": pc.list_flatten(cols["first_vpage"]),
            "home": pc.take(nodes, home),
            "home_permille": pc.list_flatten(cols["home_permille"]),
            "migrated": pc.list_flatten(cols["migrated"]),
        })
        return to_frame(table, backend)

    def pages_per_node(self, backend: str = "pandas"):
        """Pages resident on each memory node at the end of each phase (columns by node)."""
        table = read_csv(self.path / "phases.csv")
        cols = ["phase"] + [c for c in table.column_names if c.startswith("pages_")]
        return to_frame(table.select(cols), backend)


def _exclusive_cumsum(xs: List[int]) -> List[int]:
    out, total = [], 0
    for x in xs:  # one entry per phase, not per row
        out.append(total)
        total += x
    return out


def load(results_dir: Union[str, "os.PathLike[str]"]) -> Result:
    """Reads a finished run's results directory."""
    return Result(results_dir)


def collect_frame(csv: bytes, backend: str = "pandas"):
    return to_frame(read_csv(csv), backend)


__all__ = ["Result", "load", "to_frame", "read_csv", "BACKENDS"]
