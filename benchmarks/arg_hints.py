"""What a launch with cuda.In / InOut hints or a kernel extension costs next
to the same launch with a plain host array (C++ staging) and with a device
array: host wall time per launch, synchronized, median of N, as ratios to
the plain host-array launch.  Values are checked first.

    PYTHONPATH=$PWD python3 benchmarks/arg_hints.py [--n 1024] [--repeat 300]

Hinted launches and kernels with extensions go through pycuda_jit/args.py
(a few Python calls per launch); ordinary launches stay in C++.
"""
import argparse
import statistics
import time

import numpy as np

from pycuda_jit import cuda


def add_one(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] += 1


class _NoOp:
    def prepare_args(self, ty, val, **kwargs):
        return ty, val


def _median_us(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1024)
    ap.add_argument("--repeat", type=int, default=300)
    a = ap.parse_args()
    plain = cuda.jit(add_one)
    extended = cuda.jit(add_one)
    extended.extensions.append(_NoOp())
    threads = 128
    blocks = (a.n + threads - 1) // threads

    host = np.zeros(a.n, np.int32)
    dev = cuda.to_device(host)
    # Values first: every variant adds one where it should.
    plain[blocks, threads](host)
    plain[blocks, threads](cuda.InOut(host))
    extended[blocks, threads](host)
    plain[blocks, threads](cuda.In(host))  # dropped
    plain[blocks, threads](dev)
    assert (host == 3).all() and (dev.copy_to_host() == 1).all()

    cases = {
        "host array (C++ staging)": lambda: plain[blocks, threads](host),
        "cuda.InOut(host)": lambda: plain[blocks, threads](cuda.InOut(host)),
        "cuda.In(host)": lambda: plain[blocks, threads](cuda.In(host)),
        "host array, kernel with a no-op extension":
            lambda: extended[blocks, threads](host),
        "device array": lambda: plain[blocks, threads](dev),
    }
    for fn in cases.values():  # warm up
        fn()
    results = {name: _median_us(fn, a.repeat) for name, fn in cases.items()}
    base = results["host array (C++ staging)"]
    print(f"backend {cuda.backend()}, {a.n} int32, median of {a.repeat} synchronized launches")
    for name, us in results.items():
        print(f"  {name:<45} {us:9.1f} us  {us / base:5.2f}x")


if __name__ == "__main__":
    main()
