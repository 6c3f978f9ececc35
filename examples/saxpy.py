"""saxpy with pycuda_jit: out = a * x + y.

On a machine with a CUDA GPU the kernel runs there.  Without one it is still
compiled to PTX and linked to a cubin (no GPU needed for that), the files are
written next to the build, and the kernel runs on the CPU executor, which
executes the same compiled code on the host.
"""
import os
import sys
import time

import numpy as np

from pycuda_jit import cuda


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]


SIG = "void(float32, float32[::1], float32[::1], float32[::1])"


def write_artifacts(outdir):
    """PTX and an sm_90 cubin for saxpy, written to outdir."""
    os.makedirs(outdir, exist_ok=True)
    ptx, _ = cuda.compile_ptx(saxpy.py_func, SIG, cc=(9, 0))
    ptx_path = os.path.join(outdir, "saxpy.sm_90.ptx")
    with open(ptx_path, "w") as f:
        f.write(ptx)
    print(f"PTX   -> {ptx_path} ({len(ptx)} bytes)")
    try:
        cubin = cuda.link_ptx(ptx, cc=(9, 0))
    except RuntimeError as e:
        print(f"cubin -> not produced: {e}")
        return
    cubin_path = os.path.join(outdir, "saxpy.sm_90.cubin")
    with open(cubin_path, "wb") as f:
        f.write(cubin)
    print(f"cubin -> {cubin_path} ({len(cubin)} bytes, linked by nvJitLink)")


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 20
    rng = np.random.default_rng(42)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    a = np.float32(2.5)

    outdir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "examples")
    write_artifacts(os.path.normpath(outdir))

    if cuda.is_available():
        print("CUDA GPU found: running on the GPU")
    else:
        print("No CUDA GPU found: running on the CPU executor (same compiled code, on the host)")

    d_x, d_y = cuda.to_device(x), cuda.to_device(y)
    d_out = cuda.to_device(np.full(n, np.nan, np.float32))  # poisoned
    threads = 256
    blocks = (n + threads - 1) // threads
    t0 = time.perf_counter()
    saxpy[blocks, threads](a, d_x, d_y, d_out)
    cuda.synchronize()
    t1 = time.perf_counter()
    out = d_out.copy_to_host()
    expect = a * x + y
    ok = np.allclose(out, expect, rtol=1e-6, atol=1e-6)
    info = saxpy.stats
    print(f"backend={info['backend']} n={n} first call {1e3 * (t1 - t0):.1f} ms "
          f"(compile {info['compile_ms']:.1f} ms, load path {info['load_path']})")
    print("result matches numpy" if ok else "RESULT MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
