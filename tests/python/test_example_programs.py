"""The example programs of examples/ run (on the CPU executor here, on the
GPU when one is present) and check their own results against NumPy: each
exits 0 only when they agree."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_example(name, *args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.setdefault("PYCUDA_JIT_BACKEND", "cpu")
    return subprocess.run([sys.executable, str(ROOT / "examples" / name), *map(str, args)],
                          env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("args", [(), (33, 90), (16, 5)])
def test_laplace_matches_numpy(args):
    r = run_example("laplace.py", *args)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "jacobi_shared" in r.stdout and "jacobi_global" in r.stdout


@pytest.mark.parametrize("args", [(), (16, 16, 16), (1, 70, 3)])
def test_matmul_matches_numpy(args):
    r = run_example("matmul.py", *args)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "max |GPU - NumPy|" in r.stdout


def test_ffi_example_runs_the_cuda_cpp_function():
    # On the GPU through NVRTC, on the CPU executor built by the host's C++
    # compiler (which CI has: it builds the extension).
    r = run_example("ffi.py", 3000)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "CUDA C++ polyval3" in r.stdout, r.stdout
