"""Where a launch with CuPy arrays / torch tensors spends its time: the
per-call cost of each attribute the dispatcher reads from them, beside
whole launches with our device arrays, CuPy arrays and torch tensors.

    PYTHONPATH=. python3 benchmarks/launch_breakdown.py
"""
import statistics
import sys
import time

import numpy as np

from pycuda_jit import cuda


def per_call(fn, n=100000):
    for _ in range(1000):
        fn()
    reps = []
    for _ in range(5):
        s = time.perf_counter()
        for _ in range(n):
            fn()
        reps.append((time.perf_counter() - s) / n * 1e6)
    cuda.synchronize()
    return statistics.median(reps)


def main():
    @cuda.jit
    def saxpy(a, x, y, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = a * x[i] + y[i]

    a = np.float32(2.0)
    d = cuda.device_array(256, np.float32)
    foreign = {}
    rows = [("empty lambda", per_call(lambda: None))]
    rows.append(("launch, device arrays", per_call(lambda: saxpy[1, 256](a, d, d, d), 20000)))
    k = saxpy[1, 256]
    rows.append(("launch, device arrays, config reused", per_call(lambda: k(a, d, d, d), 20000)))
    try:
        import cupy
        c = cupy.zeros(256, cupy.float32)
        foreign["cupy"] = c
        gs = cupy.cuda.get_current_stream
        rows += [
            ("cupy c.dtype", per_call(lambda: c.dtype)),
            ("cupy c.shape", per_call(lambda: c.shape)),
            ("cupy c.strides", per_call(lambda: c.strides)),
            ("cupy c.data.ptr", per_call(lambda: c.data.ptr)),
            ("cupy get_current_stream().ptr", per_call(lambda: gs().ptr)),
            ("cupy __cuda_array_interface__", per_call(lambda: c.__cuda_array_interface__)),
            ("launch, cupy", per_call(lambda: k(a, c, c, c), 20000)),
            ("launch, cupy x + 2 device arrays", per_call(lambda: k(a, c, d, d), 20000)),
        ]
    except Exception as e:
        print("cupy:", repr(e)[:200])
    try:
        import torch
        t = torch.zeros(256, dtype=torch.float32, device="cuda")
        foreign["torch"] = t
        tw = cuda.as_cuda_array(t)
        rows.append(("launch, torch wrapped by as_cuda_array", per_call(lambda: k(a, tw, tw, tw), 20000)))
        rs = torch._C._cuda_getCurrentRawStream
        rows += [
            ("torch t.is_cuda", per_call(lambda: t.is_cuda)),
            ("torch t.dtype", per_call(lambda: t.dtype)),
            ("torch t.shape", per_call(lambda: t.shape)),
            ("torch t.stride()", per_call(lambda: t.stride())),
            ("torch t.data_ptr()", per_call(lambda: t.data_ptr())),
            ("torch t.get_device()", per_call(lambda: t.get_device())),
            ("torch raw stream(0)", per_call(lambda: rs(0))),
            ("torch __cuda_array_interface__", per_call(lambda: t.__cuda_array_interface__)),
            ("launch, torch", per_call(lambda: k(a, t, t, t), 20000)),
            ("launch, torch x + 2 device arrays", per_call(lambda: k(a, t, d, d), 20000)),
        ]
    except Exception as e:
        print("torch:", repr(e)[:200])
    for name, us in rows:
        print(f"{name:40s} {us:8.3f} us")
    for name, obj in foreign.items():
        seen = []
        sys.setprofile(lambda fr, ev, arg: seen.append(
            f"{ev} {fr.f_code.co_filename.split('/')[-1]}:{fr.f_code.co_name}"
            + (f" {getattr(arg, '__qualname__', arg)}" if ev.startswith("c_") else "")))
        k(a, obj, obj, obj)
        sys.setprofile(None)
        print(f"Python-level calls during one launch with {name}:", seen[:40])


if __name__ == "__main__":
    main()
