"""Shared by the small side-by-side benchmarks (cache_hints.py, bf16.py)."""
import time

from pycuda_jit import cuda


def best_seconds(kernel, blocks, threads, args, repeat, gpu):
    """The fastest of `repeat` launches: CUDA events on the GPU, wall time
    on the CPU executor."""
    best = float("inf")
    for _ in range(repeat):
        if gpu:
            start, stop = cuda.event(), cuda.event()
            start.record()
            kernel[blocks, threads](*args)
            stop.record()
            stop.synchronize()
            best = min(best, cuda.event_elapsed_time(start, stop) / 1e3)
        else:
            t0 = time.perf_counter()
            kernel[blocks, threads](*args)
            best = min(best, time.perf_counter() - t0)
    return best
