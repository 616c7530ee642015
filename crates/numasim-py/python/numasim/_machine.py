"""``numasim.Machine``: a preset or machine file, its derived latency matrix as numpy."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Union

import numpy as np
import pyarrow as pa

from . import _native
from ._result import to_frame


class Machine:
    """A machine as numasim derives it (``numasim machine show --json``).

    ``latency_ns[s, n]`` is the unloaded load latency from socket ``s`` to memory node ``n``
    (rows follow :attr:`sockets`, columns :attr:`memory_nodes`); it is derived from the link
    graph by the Rust core, never typed.
    """

    def __init__(self, name_or_path: Union[str, "os.PathLike[str]"]):
        self.summary: Dict[str, Any] = json.loads(_native.machine_json(os.fspath(name_or_path)))
        self.name: str = self.summary["name"]
        self.sockets: List[str] = list(self.summary["sockets"])
        self.memory_nodes: List[str] = [n["name"] for n in self.summary["memory_nodes"]]
        self.latency_ns: np.ndarray = np.asarray(self.summary["load_latency_ns"], dtype=np.float64).reshape(
            len(self.sockets), len(self.memory_nodes)
        )

    def __repr__(self) -> str:
        return f"<numasim.Machine {self.name!r}: {len(self.sockets)} sockets, {len(self.memory_nodes)} memory nodes>"

    def links(self, backend: str = "pandas"):
        """One row per link: endpoints, per-direction bandwidth (GB/s) and latency (ns)."""
        return to_frame(pa.Table.from_pylist(self.summary["links"]), backend)

    def latency_frame(self):
        """The latency matrix as a pandas DataFrame labelled by socket and memory node."""
        import pandas as pd

        return pd.DataFrame(self.latency_ns, index=self.sockets, columns=self.memory_nodes)
