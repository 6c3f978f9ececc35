"""PYCUDA_JIT_DISABLE_CUDA=1 (numba's NUMBA_DISABLE_CUDA=1 too) turns the
device side off: device arrays, launches and device queries raise
CudaSupportError naming the variable, on the GPU and the CPU executor
alike; cuda.is_available() is False; compiling to PTX still works.  Each
case runs in a fresh process (the backend is chosen once per process)."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PROBE = textwrap.dedent("""
    import json
    import numpy as np
    from pycuda_jit import cuda, errors

    def k(x):
        x[0] = 1.0

    out = {"available": cuda.is_available()}
    try:
        cuda.device_array(1)
        out["device_array"] = "ok"
    except errors.CudaSupportError as e:
        out["device_array"] = e.msg
        out["msg_is_str"] = e.msg == str(e)
    try:
        cuda.jit(k)[1, 1](np.zeros(1))
        out["launch"] = "ok"
    except errors.CudaSupportError as e:
        out["launch"] = str(e)
    err = cuda.cuda_error()
    out["cuda_error"] = None if err is None else str(err)
    out["ptx"] = ".entry" in cuda.compile_ptx(k, "void(float64[:])")[0]
    print(json.dumps(out))
""")


def probe(**env):
    full = {k: v for k, v in os.environ.items()
            if k not in ("PYCUDA_JIT_DISABLE_CUDA", "NUMBA_DISABLE_CUDA")}
    full.update(env)
    full["PYTHONPATH"] = ROOT + os.pathsep + full.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                       env=full, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("var", ["PYCUDA_JIT_DISABLE_CUDA", "NUMBA_DISABLE_CUDA"])
def test_disabled(var):
    got = probe(**{var: "1"})
    want = f"CUDA is disabled due to setting {var}=1 in the environment"
    assert got["available"] is False
    assert want in got["device_array"] and got["msg_is_str"]
    assert want in got["launch"]
    assert want in got["cuda_error"]
    assert got["ptx"] is True


def test_zero_leaves_it_on():
    got = probe(PYCUDA_JIT_DISABLE_CUDA="0", NUMBA_DISABLE_CUDA="0")
    assert got["device_array"] == "ok" and got["launch"] == "ok"
    assert got["ptx"] is True


def test_ours_wins_over_numbas():
    got = probe(PYCUDA_JIT_DISABLE_CUDA="0", NUMBA_DISABLE_CUDA="1")
    assert got["device_array"] == "ok"
