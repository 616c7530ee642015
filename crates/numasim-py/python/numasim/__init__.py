"""numasim from Python: run experiments, read results as DataFrames, sweep parameters.

The simulator is the Rust core (``numasim._native``, the same code as the ``numasim`` command);
this package only prepares inputs and reads results directories, through pyarrow, so tables
arrive as whole columns rather than row by row.

    import numasim
    r = numasim.run("configs/experiments/quickstart.toml", set={"workload.threads": 16})
    r.summary["totals"]["llc_misses"]
    r.phases()                      # pandas DataFrame, one row per phase
    numasim.Machine("starnuma16-pool").latency_ns   # numpy array, sockets x memory nodes
"""

from ._native import NumasimError, __version__
from ._result import Result, load
from ._machine import Machine
from ._run import run
from .studies import repro
from .sweeps import collect, sweep

__all__ = [
    "NumasimError",
    "Result",
    "Machine",
    "run",
    "load",
    "sweep",
    "repro",
    "collect",
    "__version__",
]
