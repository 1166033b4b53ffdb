"""Runs every Python example (examples/python/*.py) as a user would; each exits non-zero when
its own checks fail."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python"
SCRIPTS = sorted(EXAMPLES.glob("*.py"))


def test_the_examples_are_there():
    assert {p.name for p in SCRIPTS} >= {"rlwe.py", "kem_roundtrip.py", "rns_bigint.py"}


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_example_runs_and_passes_its_checks(script, tmp_path):
    # From an empty folder, so that only the installed latpoly can be imported.
    env = dict(os.environ, PYTHONPATH="")
    r = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"{script.name} exited {r.returncode}\n{r.stdout}\n{r.stderr}"
    assert "OK" in r.stdout
