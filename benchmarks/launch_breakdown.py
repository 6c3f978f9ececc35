"""Where a launch with CuPy arrays / torch tensors spends its time.

1. On any machine (the CPU executor too): the argument classification alone
   (`_core.classify_seconds`: what a launch does with its arguments before
   packing them; no compile, no launch), for saxpy's (a, x, y, out) with our
   device arrays, and with the CuPy / torch stand-ins of
   tests/python/foreign_fakes.py read through their attributes (the fast
   path) and through their `__cuda_array_interface__` alone (the generic
   path).  The stand-ins are Python classes, so their attributes cost more
   than the real libraries' C getters: the ratios, not the microseconds,
   carry over.
2. On the GPU machine, one run side by side: saxpy launches with our device
   arrays, CuPy arrays and torch tensors, CuPy's own RawKernel of the same
   saxpy, and the C cuLaunchKernel floor (benchmarks/launch_floor.c on our
   PTX), as differences from the floor; then the per-call cost of each
   attribute the fast path reads, and the Python-level calls one launch
   makes.

    PYTHONPATH=. python3 benchmarks/launch_breakdown.py [--host-only]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from pycuda_jit import cuda
from pycuda_jit._lazy import core

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "python"))


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


def classify_us(args, rounds=20000):
    c = core()
    c.classify_seconds(args, 1000)
    return statistics.median(c.classify_seconds(args, rounds) / rounds * 1e6 for _ in range(7))


def host_classification():
    import foreign_fakes as ff

    mod = ff.fake_cupy_module()
    sys.modules.setdefault("cupy", mod)  # the stand-in's current stream
    cp, th = ff.cupy_type(), ff.torch_type()
    cp.cupy_module = sys.modules["cupy"] if hasattr(sys.modules["cupy"], "cuda") else mod
    a = np.float32(2.0)
    m = cuda.mapped_array(256, np.float32)
    d = cuda.device_array(256, np.float32)
    c, t = cp(m), th(m)
    m2, m3 = cuda.mapped_array(256, np.float32), cuda.mapped_array(256, np.float32)
    cs, ts = (cp(m), cp(m2), cp(m3)), (th(m), th(m2), th(m3))
    assert core().arg_view(c)["path"] == "foreign" and core().arg_view(t)["path"] == "foreign"
    ci, ti = ff.InterfaceOnly(c), ff.InterfaceOnly(t)

    class LiveInterface:  # the interface built per access, as the libraries do
        def __init__(self, obj):
            self.obj = obj

        @property
        def __cuda_array_interface__(self):
            return self.obj.__cuda_array_interface__

    rows = [
        ("device arrays", (a, d, d, d)),
        ("CuPy stand-ins, attributes", (a, c, c, c)),
        ("CuPy stand-ins, attributes, 3 distinct", (a,) + cs),
        ("CuPy stand-ins, interface built per access", (a,) + (LiveInterface(c),) * 3),
        ("CuPy stand-ins, interface dict ready", (a, ci, ci, ci)),
        ("torch stand-ins, attributes", (a, t, t, t)),
        ("torch stand-ins, attributes, 3 distinct", (a,) + ts),
        ("torch stand-ins, interface built per access", (a,) + (LiveInterface(t),) * 3),
        ("torch stand-ins, interface dict ready", (a, ti, ti, ti)),
    ]
    print(f"argument classification of saxpy(a, x, y, out), backend {cuda.backend()}, "
          "median of 7 x 20000:")
    base = None
    for name, args in rows:
        us = classify_us(args)
        base = base or us
        print(f"  {name:46s} {us:7.3f} us  ({us / base:5.1f}x device arrays)")


def floor_us(ptx, name, argspec, block):
    out = tempfile.mkdtemp()
    exe = os.path.join(out, "launch_floor")
    subprocess.run(["gcc", "-O2", os.path.join(HERE, "launch_floor.c"), "-ldl", "-o", exe],
                   check=True)
    path = os.path.join(out, "k.ptx")
    with open(path, "w") as f:
        f.write(ptx)
    r = subprocess.run([exe, path, name, "--args", argspec, "--grid", "1", "--block", str(block)],
                       capture_output=True, text=True)
    for tok in r.stdout.split():
        if tok.startswith("us_per_launch="):
            return float(tok.split("=")[1])
    print("launch_floor failed:", r.stdout, r.stderr)
    return None


RAW_SAXPY = r"""
extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* out, long n) {
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}
"""


def gpu_launches():
    @cuda.jit
    def saxpy(a, x, y, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = a * x[i] + y[i]

    a = np.float32(2.0)
    d = cuda.device_array(256, np.float32)
    k = saxpy[1, 256]
    side = [("ours, device arrays", per_call(lambda: k(a, d, d, d), 20000))]
    attrs = []
    foreign = {}
    try:
        import cupy
        c = cupy.zeros(256, cupy.float32)
        foreign["cupy"] = c
        side.append(("ours, CuPy arrays", per_call(lambda: k(a, c, c, c), 20000)))
        c2, c3 = cupy.zeros(256, cupy.float32), cupy.zeros(256, cupy.float32)
        side.append(("ours, 3 distinct CuPy arrays", per_call(lambda: k(a, c, c2, c3), 20000)))
        raw = cupy.RawKernel(RAW_SAXPY, "saxpy")
        n = np.int64(256)
        side.append(("CuPy RawKernel, CuPy arrays",
                     per_call(lambda: raw((1,), (256,), (a, c, c, c, n)), 20000)))
        side.append(("CuPy RawKernel, 3 distinct CuPy arrays",
                     per_call(lambda: raw((1,), (256,), (a, c, c2, c3, n)), 20000)))
        gs = cupy.cuda.get_current_stream
        attrs += [
            ("cupy c.dtype", per_call(lambda: c.dtype)),
            ("cupy c.shape", per_call(lambda: c.shape)),
            ("cupy c.strides", per_call(lambda: c.strides)),
            ("cupy c.data.ptr", per_call(lambda: c.data.ptr)),
            ("cupy get_current_stream().ptr", per_call(lambda: gs().ptr)),
            ("cupy __cuda_array_interface__", per_call(lambda: c.__cuda_array_interface__)),
            ("launch, cupy x + 2 device arrays", per_call(lambda: k(a, c, d, d), 20000)),
        ]
    except Exception as e:
        print("cupy:", repr(e)[:200])
    try:
        import torch
        t = torch.zeros(256, dtype=torch.float32, device="cuda")
        foreign["torch"] = t
        side.append(("ours, torch tensors", per_call(lambda: k(a, t, t, t), 20000)))
        t2, t3 = torch.zeros_like(t), torch.zeros_like(t)
        side.append(("ours, 3 distinct torch tensors", per_call(lambda: k(a, t, t2, t3), 20000)))
        attrs += [
            ("torch t.is_cuda", per_call(lambda: t.is_cuda)),
            ("torch t.requires_grad", per_call(lambda: t.requires_grad)),
            ("torch t.dtype", per_call(lambda: t.dtype)),
            ("torch t.shape", per_call(lambda: t.shape)),
            ("torch t.stride()", per_call(lambda: t.stride())),
            ("torch t.data_ptr()", per_call(lambda: t.data_ptr())),
            ("torch __cuda_array_interface__", per_call(lambda: t.__cuda_array_interface__)),
            ("launch, torch x + 2 device arrays", per_call(lambda: k(a, t, d, d), 20000)),
        ]
    except Exception as e:
        print("torch:", repr(e)[:200])
    fl = floor_us(saxpy.inspect_asm(saxpy.signatures[0]), saxpy.stats["name"],
                  "f32=2.0," + ",".join(["ptr,i64=256,i64=4"] * 3), 256)
    print("saxpy launch, one run (us; difference from the C cuLaunchKernel floor):")
    if fl:
        print(f"  {'C cuLaunchKernel floor':40s} {fl:8.3f}")
    for name, us in side:
        extra = f"  {us - fl:+6.2f} us  ({us / fl:4.2f}x)" if fl else ""
        print(f"  {name:40s} {us:8.3f}{extra}")
    for name, us in attrs:
        print(f"  {name:40s} {us:8.3f} us")
    for name, obj in foreign.items():
        seen = []
        sys.setprofile(lambda fr, ev, arg: seen.append(
            f"{ev} {fr.f_code.co_filename.split('/')[-1]}:{fr.f_code.co_name}"
            + (f" {getattr(arg, '__qualname__', arg)}" if ev.startswith("c_") else "")))
        k(a, obj, obj, obj)
        sys.setprofile(None)
        print(f"Python-level calls during one launch with {name}:", seen[:40])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host-only", action="store_true", help="the classification part only")
    args = ap.parse_args()
    host_classification()
    if not args.host_only and cuda.backend() == "cuda":
        gpu_launches()


if __name__ == "__main__":
    main()
