"""fp8 fake quantization on the GPU: out[i] = float32(fp8_e4m3(x[i])) and
the same through e5m2 (pycuda_jit's conversions are integer code on the
bits, no cvt.*.e4m3x2 instruction), against a plain float32 copy and a
float16 round trip (cvt.rn.f16.f32 / cvt.f32.f16), grid-stride loop, best of
N launches (CUDA events), as time ratios to the copy.  The fp8 results are
checked first: e4m3 and e5m2 against ml_dtypes' float8_e4m3fn / float8_e5m2
(round to nearest even; the inputs stay in range, where those agree with
cuda_fp8.h) when ml_dtypes is installed.

    PYTHONPATH=. python3 benchmarks/fp8.py [--repeat 20] [--n 67108864]
    PYTHONPATH=. PYCUDA_JIT_BACKEND=cpu python3 benchmarks/fp8.py --smoke
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from pycuda_jit import cuda, float16, float32  # noqa: E402
from pycuda_jit.cuda.fp8 import fp8_e4m3, fp8_e5m2  # noqa: E402
from _timing import best_seconds  # noqa: E402


@cuda.jit
def copy(x, out):
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        out[i] = x[i]


@cuda.jit
def via_f16(x, out):
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        out[i] = float32(float16(x[i]))


@cuda.jit
def via_e4m3(x, out):
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        out[i] = float32(fp8_e4m3(x[i]))


@cuda.jit
def via_e5m2(x, out):
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        out[i] = float32(fp8_e5m2(x[i]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--n", type=int, default=1 << 26)
    ap.add_argument("--smoke", action="store_true", help="tiny size, 2 repeats")
    a = ap.parse_args()
    n = 1 << 12 if a.smoke else a.n
    repeat = 2 if a.smoke else a.repeat
    gpu = cuda.backend() == "cuda"
    threads, blocks = 256, (132 * 16 if gpu else 4)
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(n) * 20).astype(np.float32)  # |x| < 448: no saturation
    d_x, d_out = cuda.to_device(x), cuda.device_array(n, np.float32)
    check = min(n, 1 << 16)
    try:
        import ml_dtypes
    except ImportError:
        ml_dtypes = None
        print("# ml_dtypes not installed: fp8 values not checked")
    for kernel, ml in ((via_e4m3, "float8_e4m3fn"), (via_e5m2, "float8_e5m2")):
        kernel[blocks, threads](d_x, d_out)
        if ml_dtypes is not None:
            want = x[:check].astype(getattr(ml_dtypes, ml)).astype(np.float32)
            np.testing.assert_array_equal(d_out.copy_to_host()[:check], want)
    print(f"# {n} float32 elements; {'GPU' if gpu else 'CPU executor'}; best of {repeat}")
    print(f"{'kernel':<12}{'ms':>10}{'GB/s':>10}{'vs copy':>10}")
    base = None
    for name, kernel in (("copy", copy), ("float16", via_f16), ("e4m3", via_e4m3),
                         ("e5m2", via_e5m2)):
        t = best_seconds(kernel, blocks, threads, (d_x, d_out), repeat, gpu)
        base = base or t
        print(f"{name:<12}{t * 1e3:>10.3f}{8 * n / t / 1e9:>10.1f}{t / base:>10.2f}")


if __name__ == "__main__":
    main()
