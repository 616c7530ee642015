"""Shared set-up of the Python tests: the numasim binary to compare with, small configs.

The tests never install anything: `scripts/test` builds the wheel into .venv first. Run them
through it, or with `NUMASIM_BIN=target/debug/numasim .venv/bin/pytest crates/numasim-py/tests`.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]

SMALL = """\
machine = "starnuma16-pool"
seed = 5
phase_instructions = 2000

[workload]
kind = "synthetic"
threads = 4
pattern = "shared-hot"
accesses_per_thread = 4000

[placement]
policy = "first-touch"
"""


def _binary():
    env = os.environ.get("NUMASIM_BIN")
    if env:
        return Path(env)
    for profile in ("debug", "release"):
        p = REPO / "target" / profile / "numasim"
        if p.is_file():
            return p
    return None


@pytest.fixture(scope="session")
def numasim_bin():
    b = _binary()
    if b is None or not b.is_file():
        pytest.fail("no numasim binary: run scripts/test (or cargo build -p numasim-cli) first, or set NUMASIM_BIN")
    return b


@pytest.fixture
def cli(numasim_bin, tmp_path):
    def run(*args, check=True):
        p = subprocess.run([str(numasim_bin), *map(str, args)], cwd=tmp_path, capture_output=True, text=True)
        if check and p.returncode != 0:
            raise AssertionError(f"numasim {' '.join(map(str, args))} failed:\n{p.stderr}")
        return p

    return run


@pytest.fixture
def small_toml(tmp_path):
    p = tmp_path / "small.toml"
    p.write_text(SMALL)
    return p


def have(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def require(module, why):
    """Skips with a clear message when an optional package is absent, except in CI
    (NUMASIM_REQUIRE_PY_EXTRAS=1, set by .ci/run after its set-up installed them)."""
    if have(module):
        return
    msg = f"{module} is not installed ({why}); scripts/setup installs it"
    if os.environ.get("NUMASIM_REQUIRE_PY_EXTRAS") == "1":
        pytest.fail(msg)
    pytest.skip(msg)


__all__ = ["SMALL", "REPO", "require", "have", "shutil"]
