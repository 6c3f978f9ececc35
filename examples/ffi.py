"""Calling a CUDA C++ device function from a Python kernel.

examples/ffi_polyval.cu defines `polyval3(double *result, double x, const
double *c)` with numba's foreign-function ABI; `cuda.declare_device` tells
the compiler its name and signature and which file defines it.  When a
kernel that calls it is first launched, NVRTC compiles the .cu file for the
GPU and nvJitLink links it with the kernel; on the CPU executor (no GPU) the
system's C++ compiler builds it for the host instead.  The coefficient array is passed
where the declaration says CPointer(float64): the C function gets its data
pointer.

Without a GPU and without a C++ compiler, the launch raises BackendError,
which this program prints before running the same kernel with a Python
device function in place of the C one, so the rest of the program (and its
check against NumPy) still runs.

    python examples/ffi.py [n]
"""
import os
import sys

import numpy as np

from pycuda_jit import cuda, errors, types

HERE = os.path.dirname(os.path.abspath(__file__))

polyval3_c = cuda.declare_device(
    "polyval3", types.float64(types.float64, types.CPointer(types.float64)),
    link=os.path.join(HERE, "ffi_polyval.cu"))


@cuda.jit(device=True)
def polyval3_py(x, c):
    return ((c[3] * x + c[2]) * x + c[1]) * x + c[0]


@cuda.jit
def eval_c(out, x, coeffs):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = polyval3_c(x[i], coeffs)


@cuda.jit
def eval_py(out, x, coeffs):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = polyval3_py(x[i], coeffs)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    rng = np.random.default_rng(3)
    x = rng.uniform(-2.0, 2.0, n)
    coeffs = np.array([0.5, -1.0, 0.25, 2.0])
    out = np.full(n, np.nan)
    blocks = (n + 127) // 128
    try:
        eval_c[blocks, 128](out, x, coeffs)
        which = "CUDA C++ polyval3 (ffi_polyval.cu)"
    except (errors.UnsupportedError, errors.BackendError) as e:
        print("the foreign code cannot run here:", str(e).splitlines()[0])
        print("running the Python device function instead")
        eval_py[blocks, 128](out, x, coeffs)
        which = "Python polyval3_py"
    expected = np.polynomial.polynomial.polyval(x, coeffs)
    err = float(np.max(np.abs(out - expected)))
    print(f"{which}: {n} points, max |kernel - NumPy| = {err:.2e}")
    if not np.allclose(out, expected, rtol=1e-12, atol=1e-12):
        print("MISMATCH")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
