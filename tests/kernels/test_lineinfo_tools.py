"""lineinfo=True as NVIDIA's tools see it: nvdisasm prints the Python file and
lines beside the SASS, and compute-sanitizer names the Python line of a bad
access.  Each test skips where its tool (or the GPU) is missing: the toolkit
of the development machine has neither tool, the H200 machine has both."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap

import pytest

from pycuda_jit import cuda
from pycuda_jit._lazy import core


def toolkit_tool(name):
    try:
        return core().toolkit_file(name)  # the project's toolkit search
    except FileNotFoundError:
        pytest.skip(f"{name} is not installed here")


def sanitizer_tool():
    # Not a piece the compiler uses, so not in the toolkit search: PATH, then
    # the toolkit's usual homes.
    homes = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    found = shutil.which("compute-sanitizer") or next(
        (p for h in homes if h for p in [os.path.join(h, "bin", "compute-sanitizer")]
         if os.access(p, os.X_OK)), None)
    if not found:
        pytest.skip("compute-sanitizer is not installed here")
    return found


def scale(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * 3.0


def test_nvdisasm_shows_the_python_lines():
    nvdisasm = toolkit_tool("nvdisasm")
    ptx, _ = cuda.compile_ptx(scale, "void(float32[::1], float32[::1])", lineinfo=True)
    cubin = cuda.link_ptx(ptx, lineinfo=True)
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        sass = subprocess.run([nvdisasm, "--print-line-info", f.name],
                              capture_output=True, text=True, check=True).stdout
    lines = {int(n) for n in re.findall(r'line (\d+)', sass)}
    first = scale.__code__.co_firstlineno
    assert os.path.basename(__file__) in sass
    assert {first + 2, first + 3} <= lines, sorted(lines)  # the if, the store


OUT_OF_BOUNDS = textwrap.dedent("""
    import numpy as np
    from pycuda_jit import cuda

    @cuda.jit(lineinfo=True)
    def past_the_end(out):
        i = cuda.grid(1)
        out[i + 1000000] = 1.0   # the bad store

    out = cuda.device_array(32, np.float32)
    past_the_end[1, 32](out)
    try:
        cuda.synchronize()
    except Exception as e:
        print("launch failed:", type(e).__name__)
""")


def test_compute_sanitizer_names_the_python_line(hardware, tmp_path):
    sanitizer = sanitizer_tool()
    script = tmp_path / "oob_kernel.py"
    script.write_text(OUT_OF_BOUNDS)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p),
               PYCUDA_JIT_CACHE="0")
    r = subprocess.run([sanitizer, "--tool", "memcheck", sys.executable, str(script)],
                       capture_output=True, text=True, env=env, timeout=300)
    report = r.stdout + r.stderr
    line = next(k + 1 for k, t in enumerate(OUT_OF_BOUNDS.splitlines())
                if "# the bad store" in t)
    assert "Invalid __global__ write" in report, report[-3000:]
    assert f"oob_kernel.py:{line}" in report, report[-3000:]
