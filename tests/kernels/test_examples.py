"""The example programs of the libraries run (small sizes) and check their
own results: examples/monte_carlo_pi.py (cuda.random) and examples/ufuncs.py
(vectorize, guvectorize, cuda.reduce).  They run in a subprocess, on the
backend this test session uses."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.parametrize("name", ["monte_carlo_pi.py", "ufuncs.py"])
def test_example_runs(name, backend):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PYCUDA_JIT_BACKEND=backend)
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "examples", name), "--small"],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip(), "the example prints its result"


def test_library_benchmark_smoke_run(backend):
    """benchmarks/library.py --smoke: every variant runs and checks its result."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PYCUDA_JIT_BACKEND=backend)
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "library.py"),
                           "--smoke"], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "checks: hand-written True, vectorize True" in proc.stdout
