#!/usr/bin/env python3
"""The cost of calling a CUDA C++ device function from a kernel.

A small function, v -> v * a + b (float32), is called 10**9 times in all
(2**20 threads, ~954 dependent calls each) three ways, side by side:

  python   the same function as a @cuda.jit(device=True) Python function
           (inlined by our compiler)
  c        cuda.declare_device + link= CUDA C++ (NVRTC -> PTX, linked by
           nvJitLink without link-time optimization: a real call)
  c-lto    the same with cuda.jit(lto=True): the kernel goes through the
           NVVM IR writer and libNVVM to LTO-IR, NVRTC compiles the C++
           with -dlto, and nvJitLink -lto inlines the call (the target: as
           fast as python).  The line says "lto: linked as LTO-IR" when the
           compile went that way (its codegen.nvvm stage), else why not.

Prints milliseconds (best of --reps, CUDA events) and each variant's time
as a ratio to python; checks that the results agree.  GPU only:

    PYTHONPATH=. python3 benchmarks/ffi.py [--calls 1e9] [--reps 5] [--json OUT]
"""
import argparse
import json
import sys

import numpy as np

from pycuda_jit import cuda

STEP_CU = cuda.CUSource("""
extern "C" __device__ int step(float *out, float v, float a, float b)
{
  *out = v * a + b;
  return 0;
}
""", name="step.cu")

step_c = cuda.declare_device("step", "float32(float32, float32, float32)", link=STEP_CU)


@cuda.jit(device=True)
def step_py(v, a, b):
    return v * a + b


def make_kernel(fn, **options):
    @cuda.jit(**options)
    def chain(out, iters, a, b):
        i = cuda.grid(1)
        if i < out.size:
            v = out[i]
            for _ in range(iters):
                v = fn(v, a, b)
            out[i] = v
    return chain


def timed(kernel, threads, iters, reps):
    start0 = np.linspace(0.0, 1.0, threads, dtype=np.float32)
    out = cuda.to_device(start0)
    a, b = np.float32(0.999), np.float32(0.0005)
    kernel[threads // 256, 256](out, iters, a, b)  # compile, load, warm up
    cuda.synchronize()
    best = float("inf")
    for _ in range(reps):
        out.copy_to_device(start0)
        e0, e1 = cuda.event(), cuda.event()
        e0.record()
        kernel[threads // 256, 256](out, iters, a, b)
        e1.record()
        e1.synchronize()
        best = min(best, cuda.event_elapsed_time(e0, e1))
    return best, out.copy_to_host()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=float, default=1e9)
    ap.add_argument("--threads", type=int, default=1 << 20)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args()
    if cuda.backend() != "cuda":
        print("benchmarks/ffi.py needs a GPU: foreign code runs on the GPU only")
        return 0
    iters = max(1, int(round(args.calls / args.threads)))
    variants = {"python": make_kernel(step_py), "c": make_kernel(step_c)}
    try:
        variants["c-lto"] = make_kernel(step_c, lto=True)
    except NotImplementedError as e:
        print(f"c-lto: skipped ({e})")
    results, outputs = {}, {}
    for name, k in variants.items():
        results[name], outputs[name] = timed(k, args.threads, iters, args.reps)
    if "c-lto" in variants:
        timings = variants["c-lto"].stats["timings_ms"]
        print("c-lto: linked as LTO-IR (libNVVM)" if "codegen.nvvm" in timings
              else f"c-lto: NOT linked as LTO-IR (stages: {sorted(timings)})")
    calls = args.threads * iters
    print(f"{calls:.3g} calls ({args.threads} threads x {iters}), best of {args.reps}:")
    for name, ms in results.items():
        print(f"  {name:6s} {ms:9.3f} ms   {ms / results['python']:.2f}x python   "
              f"{calls / ms / 1e6:.1f} Gcalls/s")
    ok = all(np.allclose(outputs[n], outputs["python"], rtol=1e-5) for n in outputs)
    print("results agree" if ok else "RESULTS DIFFER")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"calls": calls, "ms": results,
                       "device": cuda.get_current_device().name.decode()
                       if isinstance(cuda.get_current_device().name, bytes)
                       else str(cuda.get_current_device().name)}, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
