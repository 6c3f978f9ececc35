"""PYCUDA_JIT_NVTX=1: NVTX ranges around compiles and launches, seen by an
NVTX tool (tests/python/fixtures/nvtx_recorder.c, loaded the way Nsight
Systems loads its injection library)."""
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NVTX_INCLUDE = "/usr/local/cuda/include"

SCRIPT = """
import numpy as np
from pycuda_jit import cuda
@cuda.jit
def twice(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] *= 2
x = np.arange(8, dtype=np.float32)
twice[1, 8](x)
twice[1, 8](x)
assert (x == np.arange(8) * 4).all(), x
"""


@pytest.fixture(scope="module")
def recorder(tmp_path_factory):
    from pycuda_jit._lazy import core
    if not core().nvtx()[0]:
        pytest.fail("this build has no NVTX support (nvtx3 headers missing at build time)")
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc or not os.path.exists(os.path.join(NVTX_INCLUDE, "nvtx3", "nvToolsExt.h")):
        pytest.skip("needs a C compiler and the CUDA toolkit's nvtx3 headers")
    lib = tmp_path_factory.mktemp("nvtx") / "librecorder.so"
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-I", NVTX_INCLUDE, "-o", str(lib),
                    os.path.join(ROOT, "tests", "python", "fixtures", "nvtx_recorder.c")],
                   check=True)
    return lib


def run(recorder, log, nvtx):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYCUDA_JIT_")}
    env.update(PYTHONPATH=ROOT, PYCUDA_JIT_BACKEND="cpu", NVTX_INJECTION64_PATH=str(recorder),
               PCJ_NVTX_LOG=str(log))
    if nvtx:
        env["PYCUDA_JIT_NVTX"] = nvtx
    r = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return log.read_text().splitlines() if log.exists() else None


def test_ranges_around_compile_and_launches(recorder, tmp_path):
    lines = run(recorder, tmp_path / "on.log", "1")
    assert lines == ["push pycuda_jit launch twice",
                     "push pycuda_jit compile twice", "pop",  # the first launch compiles
                     "pop",
                     "push pycuda_jit launch twice", "pop"]


def test_no_nvtx_calls_unless_asked(recorder, tmp_path):
    # The tool is never even initialized: pycuda_jit made no NVTX call.
    assert run(recorder, tmp_path / "off.log", None) is None
    assert run(recorder, tmp_path / "zero.log", "0") is None
