"""Type stubs of the compiled module (crates/numasim-py/src/lib.rs)."""

from typing import List, Optional

__version__: str

class NumasimError(Exception):
    """An error numasim reports; the message is the CLI's (after `error: `)."""

def run(
    path: Optional[str] = None,
    text: Optional[str] = None,
    base_dir: Optional[str] = None,
    sets: List[str] = ...,
    out: Optional[str] = None,
    force: bool = False,
    threads: Optional[int] = None,
) -> str:
    """Runs an experiment (a file, or TOML text); returns the results directory."""

def machine_json(name_or_path: str) -> str:
    """The machine summary as JSON (`numasim machine show --json`)."""

def sweep_plan(path: str, out: Optional[str] = None, prepare: bool = False) -> str:
    """The expanded sweep as JSON; with `prepare`, writes the manifest at the results root."""

def sweep_run(path: str, index: int, out: Optional[str] = None, threads: int = 1) -> bool:
    """Runs point `index` unless complete; returns whether it ran."""

def sweep_collect_csv(dir: str) -> bytes:
    """`numasim sweep collect DIR` as CSV bytes."""

def sweep_collect_write(dir: str, out: str) -> int:
    """Writes the collected CSV of `dir` to `out` under numasim's output policy; returns the rows."""

def write_collected_bytes(dir: str, out: str, data: bytes) -> None:
    """Writes `data`, a table collected from `dir`, to `out` under numasim's output policy."""

def repro_step(
    study: str, out: str, quick: bool = False, jobs: int = 1, external: bool = True, resume: bool = True
) -> str:
    """One step of a study: JSON with the runs still `pending`, or the finished study's files and scorecard."""

def repro_run(id: str, config: str, dir: str, threads: int = 1) -> None:
    """Runs one run a study listed as pending."""
