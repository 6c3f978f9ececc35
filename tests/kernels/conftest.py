"""tests/kernels: kernels checked for computed values on the GPU, or on the CPU
executor (PYCUDA_JIT_BACKEND=cpu), which runs the same compiled code.

Tests that genuinely need hardware use the `hardware` fixture, which skips
with the reason on the CPU executor.
"""
import os
import warnings
import zlib

import numpy as np
import pytest

# The CPU executor presents four virtual devices here, so the multi-device
# tests (test_multi_device.py) run without GPUs; GPUs are what they are.
os.environ.setdefault("PYCUDA_JIT_CPU_DEVICES", "4")

from pycuda_jit import cuda  # noqa: E402


@pytest.fixture(scope="session")
def backend():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cuda.backend()


@pytest.fixture
def rng(request):
    # Seeded per test by a stable hash of its name (str hashes change per
    # process), so a failure reproduces on the next run.
    return np.random.default_rng(zlib.crc32(request.node.name.encode()))


@pytest.fixture
def hardware(backend):
    if backend != "cuda":
        pytest.skip("needs a CUDA GPU (runs on the H200 machine)")


# PCJ_NVVM_SWEEP=<file>, on the CPU executor: after each test, every kernel
# specialization it made is compiled for the GPU once more through the NVVM
# IR writer and libNVVM (PYCUDA_JIT_VIA_NVVM=1, inspect_asm(cc=(9, 0))); one
# JSON line per specialization goes to <file>: the test, the kernel, and
# "ok" or the error (a coverage sweep of the writer; values are the GPU
# run's, PYCUDA_JIT_VIA_NVVM=1 on the H200).
if os.environ.get("PCJ_NVVM_SWEEP"):
    import gc
    import json

    _swept = set()

    @pytest.fixture(autouse=True)
    def _nvvm_sweep(request):
        yield
        kernel_class = getattr(cuda, "_Kernel", None)
        if kernel_class is None:
            return
        with open(os.environ["PCJ_NVVM_SWEEP"], "a") as out:
            # type(), not isinstance: a dead weak proxy raises on the latter.
            for k in [o for o in gc.get_objects() if issubclass(type(o), kernel_class)]:
                for sig in list(k.signatures):
                    key = (id(k), str(sig))
                    if key in _swept:
                        continue
                    _swept.add(key)
                    os.environ["PYCUDA_JIT_VIA_NVVM"] = "1"
                    try:
                        ptx = k.inspect_asm(sig, cc=(9, 0))
                        result = "ok" if "NVVM Compiler" in ptx else "not through NVVM"
                    except Exception as e:  # noqa: BLE001 -- recorded, not raised
                        result = f"{type(e).__name__}: {' | '.join(str(e).splitlines()[:4])[:400]}"
                    finally:
                        del os.environ["PYCUDA_JIT_VIA_NVVM"]
                    out.write(json.dumps({"test": request.node.nodeid,
                                          "kernel": k.py_func.__qualname__,
                                          "sig": str(sig), "result": result}) + "\n")
