"""What the CPU executor's sanitizer costs: the suite's 5-point stencil and
tiled SGEMM (benchmarks/kernels.py, the same Python source) on the CPU
executor plain and with ``sanitize=True`` (race, init, bounds, sync), best
of N launches each, and the ratio sanitized / plain (issue 17's target:
at most 10x).

    PYTHONPATH=. python3 benchmarks/sanitizer_overhead.py [--repeat 5] [--scale 1]

Both results are checked against NumPy first.  Machine-dependent: quote the
machine with the figures (benchmarks/README.md has the last run).
"""
import argparse
import os
import sys

os.environ.setdefault("PYCUDA_JIT_BACKEND", "cpu")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from pycuda_jit import cuda  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernels  # noqa: E402
from cpu_boundscheck import best_of  # noqa: E402  (the same timing as that benchmark)


def cases(scale, rng):
    n = 1024 * scale
    u = rng.random((n, n), dtype=np.float32)
    out = np.zeros_like(u)
    c0, c1 = np.float32(0.5), np.float32(0.125)

    def stencil_ok():
        ref = u.copy()
        ref[1:-1, 1:-1] = c0 * u[1:-1, 1:-1] + c1 * (u[:-2, 1:-1] + u[2:, 1:-1]
                                                     + u[1:-1, :-2] + u[1:-1, 2:])
        np.testing.assert_allclose(out, ref, rtol=1e-5)
    yield ("stencil5", kernels.stencil5, ((n // 16, n // 16), (16, 16)),
           (u, out, c0, c1), stencil_ok)
    m = 256 * scale
    t = kernels.SGEMM_TILE
    a = rng.random((m, m), dtype=np.float32)
    b = rng.random((m, m), dtype=np.float32)
    c = np.zeros((m, m), np.float32)
    yield ("sgemm", kernels.sgemm, ((m // t, m // t), (t, t)), (a, b, c),
           lambda: np.testing.assert_allclose(c, a @ b, rtol=1e-4))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--scale", type=int, default=1)
    opts = ap.parse_args()
    if cuda.backend() != "cpu":
        sys.exit("run with PYCUDA_JIT_BACKEND=cpu")
    rng = np.random.default_rng(1)
    print(f"CPU executor, {os.cpu_count()} CPUs, best of {opts.repeat}")
    print(f"{'kernel':9} {'plain ms':>10} {'sanitized ms':>13} {'ratio':>6}")
    worst = 0.0
    for name, kern, config, args, check in cases(opts.scale, rng):
        plain = cuda.jit(sanitize=False)(kern.py_func)
        checked = cuda.jit(sanitize=True)(kern.py_func)
        plain[config](*args)
        check()
        checked[config](*args)
        check()
        t_plain = best_of(plain, config, args, opts.repeat)
        t_san = best_of(checked, config, args, opts.repeat)
        ratio = t_san / t_plain
        worst = max(worst, ratio)
        print(f"{name:9} {t_plain * 1e3:10.2f} {t_san * 1e3:13.2f} {ratio:6.2f}")
    print(f"worst ratio {worst:.2f} (target <= 10)")
    report = cuda.sanitizer_report()
    if report:
        sys.exit(f"unexpected sanitizer findings:\n{report}")


if __name__ == "__main__":
    main()
