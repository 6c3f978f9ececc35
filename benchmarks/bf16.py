"""bfloat16 arithmetic against float16 and float32 on the GPU: a compute-bound
kernel (per element, `--iters` dependent fused multiply-adds y = y * a + b
in registers, grid-stride loop) in each type -- cuda.bf16.hfma (fma.rn.bf16),
cuda.fp16.hfma (fma.rn.f16), float32 `y * a + b` (contracted to fma.rn.f32)
-- best of N launches (CUDA events), and the time ratio to float32.  The
bfloat16 results are checked bit for bit against a NumPy reference first
(each step rounded once, from float64), the others to a tolerance (the first
65,536 elements).

    PYTHONPATH=. python3 benchmarks/bf16.py [--repeat 20] [--n 16777216] [--iters 256]
    PYTHONPATH=. PYCUDA_JIT_BACKEND=cpu python3 benchmarks/bf16.py --smoke

On the CPU executor --smoke only checks the values (its timings mean
nothing: bfloat16 is computed in float32 there).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from pycuda_jit import cuda  # noqa: E402
from _timing import best_seconds  # noqa: E402
from pycuda_jit.cuda import bf16, fp16  # noqa: E402


def make_kernels(iters):
    @cuda.jit
    def fma_bf16(y, a, b):
        av = bf16.uint16_as_bfloat16(a)
        bv = bf16.uint16_as_bfloat16(b)
        for i in range(cuda.grid(1), y.size, cuda.gridsize(1)):
            v = bf16.uint16_as_bfloat16(y[i])
            for _ in range(iters):
                v = bf16.hfma(v, av, bv)
            y[i] = bf16.bfloat16_as_uint16(v)

    @cuda.jit
    def fma_f16(y, a, b):
        for i in range(cuda.grid(1), y.size, cuda.gridsize(1)):
            v = y[i]
            for _ in range(iters):
                v = fp16.hfma(v, a, b)
            y[i] = v

    @cuda.jit
    def fma_f32(y, a, b):
        for i in range(cuda.grid(1), y.size, cuda.gridsize(1)):
            v = y[i]
            for _ in range(iters):
                v = v * a + b
            y[i] = v

    return fma_bf16, fma_f16, fma_f32


def bf16_bits(x):
    """float64 -> bfloat16 bits, nearest even (through a float32 rounded to odd)."""
    f = x.astype(np.float32)
    back = f.astype(np.float64)
    bits = f.view(np.uint32).astype(np.int64)
    odd = np.where(np.abs(back) > np.abs(x), bits - 1, bits) | 1
    f = np.where((back == x) | np.isnan(x), bits, odd).astype(np.uint32)
    hi, lo = f >> 16, f & 0xFFFF
    hi = hi + ((lo > 0x8000) | ((lo == 0x8000) & (hi & 1 == 1)))
    return hi.astype(np.uint16)


def bf16_value(h):
    return (h.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--iters", type=int, default=256)
    ap.add_argument("--smoke", action="store_true", help="tiny size, 2 repeats")
    a = ap.parse_args()
    n = 1 << 12 if a.smoke else a.n
    iters = 8 if a.smoke else a.iters
    repeat = 2 if a.smoke else a.repeat
    gpu = cuda.backend() == "cuda"
    fma_bf16, fma_f16, fma_f32 = make_kernels(iters)
    rng = np.random.default_rng(0)
    y0 = rng.uniform(-1, 1, n)
    ca, cb = 0.5, 0.25  # y stays in [-0.5, 1]: no overflow in any type
    threads = 256
    blocks = 132 * 16 if gpu else 4

    # bfloat16: checked bit for bit (the product of two bfloat16s is exact
    # in float64, so rounding the float64 sum once is the fma's rounding)
    a16, b16 = bf16_bits(np.array([ca])), bf16_bits(np.array([cb]))
    yb = bf16_bits(y0)
    check = min(n, 1 << 16)  # the NumPy reference of all n would take minutes
    want = yb[:check].copy()
    for _ in range(iters):
        want = bf16_bits(bf16_value(want) * bf16_value(a16)[0] + bf16_value(b16)[0])
    d_b = cuda.to_device(yb)
    fma_bf16[blocks, threads](d_b, a16[0], b16[0])
    np.testing.assert_array_equal(d_b.copy_to_host()[:check], want)

    cases = [("float32", fma_f32, y0.astype(np.float32), np.float32(ca), np.float32(cb)),
             ("float16", fma_f16, y0.astype(np.float16), np.float16(ca), np.float16(cb)),
             ("bfloat16", fma_bf16, yb, a16[0], b16[0])]
    ref = y0[:check].copy()
    for _ in range(iters):
        ref = ref * ca + cb
    print(f"# {n} elements x {iters} dependent fmas; {'GPU' if gpu else 'CPU executor'}; "
          f"best of {repeat}")
    print(f"{'type':<10}{'ms':>10}{'Gfma/s':>10}{'vs float32':>12}")
    base = None
    for name, kernel, host, ka, kb in cases:
        d = cuda.to_device(host)
        kernel[blocks, threads](d, ka, kb)
        if name != "bfloat16":
            np.testing.assert_allclose(d.copy_to_host()[:check].astype(np.float64), ref,
                                       atol=1e-2)
        t = best_seconds(kernel, blocks, threads, (d, ka, kb), repeat, gpu)
        base = base or t
        print(f"{name:<10}{t * 1e3:>10.3f}{n * iters / t / 1e9:>10.1f}{base / t:>12.2f}")


if __name__ == "__main__":
    main()
