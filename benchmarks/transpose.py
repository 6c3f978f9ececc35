"""cuda.transpose side by side: ours against a device-to-device copy of the
same bytes (the memory-bandwidth ceiling: a transpose reads and writes each
byte once, as a copy does) and numba-cuda's cuda.kernels.transpose.

    PYTHONPATH=. python3 benchmarks/transpose.py            # the H200 run
    PYTHONPATH=. PYCUDA_JIT_BACKEND=cpu python3 benchmarks/transpose.py --smoke

Shapes: 8192 x 8192 float32 (256 MiB), 8192 x 8192 float64, 4096 x 4096
complex128, 2048 x 2048 of a 28-byte record (numba-cuda's test dtype: an
int32 and a 3 x 2 float32 array).  Figures: median milliseconds of 20 runs
(each ending in a synchronization, after a warm-up that compiles), and the
ratios copy / ours (1.0 = at the copy's bandwidth) and numba / ours (> 1:
ours is faster).  Every result is checked against NumPy's transpose first.
"""
import argparse
import statistics
import time

import numpy as np

from pycuda_jit import cuda

RECORD = np.dtype([("i", np.int32), ("j", np.float32, (3, 2))])
SHAPES = [((8192, 8192), np.float32), ((8192, 8192), np.float64),
          ((4096, 4096), np.complex128), ((2048, 2048), RECORD)]
SMOKE = [((257, 130), np.float32), ((64, 33), RECORD)]


def median_ms(fn, repeat):
    fn()
    cuda.synchronize()
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        cuda.synchronize()
        runs.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(runs)


def numba_transpose():
    try:
        if not hasattr(np, "row_stack"):
            np.row_stack = np.vstack  # numba-cuda 0.30.4 on NumPy 2.5
        from numba.cuda.kernels.transpose import transpose
        from numba import cuda as ncuda
        return transpose, ncuda
    except Exception:  # not installed (or no GPU for it)
        return None, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--smoke", action="store_true", help="small shapes, 2 runs")
    args = ap.parse_args()
    shapes, repeat = (SMOKE, 2) if args.smoke else (SHAPES, 20)
    rng = np.random.default_rng(0)
    theirs, ncuda = numba_transpose() if cuda.backend() == "cuda" else (None, None)
    print(f"{'shape':>14} {'dtype':>10} {'ours ms':>9} {'copy ms':>9} {'copy/ours':>9} "
          f"{'numba ms':>9} {'numba/ours':>10}")
    for shape, dtype in shapes:
        a = np.zeros(shape, dtype)
        a.view(np.uint8)[...] = rng.integers(0, 256, a.view(np.uint8).shape)
        d = cuda.to_device(a)
        out = cuda.device_array(shape[::-1], dtype)
        cuda.transpose(d, out)
        assert out.copy_to_host().tobytes() == np.ascontiguousarray(a.T).tobytes()
        ours = median_ms(lambda: cuda.transpose(d, out), repeat)
        flat_src, flat_dst = d.reshape(-1), out.reshape(-1)
        copy = median_ms(lambda: flat_dst.copy_to_device(flat_src), repeat)
        line = (f"{str(shape):>14} {str(np.dtype(dtype))[:10]:>10} {ours:9.3f} {copy:9.3f} "
                f"{copy / ours:9.2f}")
        if theirs is not None:
            nd, nout = ncuda.to_device(a), ncuda.device_array(shape[::-1], dtype)
            theirs(nd, nout)
            assert nout.copy_to_host().tobytes() == np.ascontiguousarray(a.T).tobytes()
            nms = median_ms(lambda: (theirs(nd, nout), ncuda.synchronize()), repeat)
            line += f" {nms:9.3f} {nms / ours:10.2f}"
        else:
            line += f" {'skipped':>9} {'':>10}"
        print(line)


if __name__ == "__main__":
    main()
