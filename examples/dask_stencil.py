"""A dask.array computation whose blocks are processed by a pycuda_jit kernel
on dask.distributed worker processes.

    python examples/dask_stencil.py [--workers 4] [--size 2000] [--check]

The kernel is defined here, in __main__: Dask ships it to the workers by
value (cloudpickle), and each worker builds it once and compiles it once --
or, with the disk cache (cache=True), the workers of a machine compile it
once between them (the others wait for the entry and load it).

Each block is a 5-point Jacobi smoothing step over the block plus a halo of
one cell that `map_overlap` attaches.  On a GPU machine the blocks are
CuPy arrays when CuPy is installed (the kernel takes them zero-copy),
otherwise NumPy arrays, copied to the worker's GPU for the launch; without a
GPU they run on the CPU executor.  Workers spread NumPy blocks over the
GPUs: worker k uses device k % len(cuda.gpus) (on the CPU executor, its
virtual devices, PYCUDA_JIT_CPU_DEVICES); a CuPy block is processed on the
device CuPy allocated it on (give each worker its own GPU with dask-cuda's
LocalCUDACluster, which sets CUDA_VISIBLE_DEVICES per worker).
"""
import argparse
import os
import sys
import warnings

import numpy as np

from pycuda_jit import cuda


@cuda.jit(cache=True)
def jacobi_step(src, dst):
    i, j = cuda.grid(2)
    n, m = src.shape
    if i < n and j < m:
        if 0 < i < n - 1 and 0 < j < m - 1:
            dst[i, j] = 0.25 * (src[i - 1, j] + src[i + 1, j] + src[i, j - 1] + src[i, j + 1])
        else:
            dst[i, j] = src[i, j]  # the halo: map_overlap trims it afterwards


def _worker_device():
    """This worker's device: its position among the workers, modulo the
    devices (select once per worker thread)."""
    try:
        from distributed import get_worker
        name = get_worker().name
        index = int(name) if isinstance(name, int) or str(name).isdigit() else 0
    except (ImportError, ValueError):
        index = 0
    return index % len(cuda.gpus)


def smooth_block(block):
    """One block (with its halo) through the kernel; same array type back."""
    warnings.simplefilter("ignore", RuntimeWarning)  # the no-GPU notice, once per worker
    if isinstance(block, np.ndarray):
        cuda.select_device(_worker_device())
    else:  # a CuPy block runs on the device CuPy put it on
        cuda.select_device(block.device.id)
    block = np.ascontiguousarray(block) if isinstance(block, np.ndarray) else block
    out = np.empty_like(block) if isinstance(block, np.ndarray) else block.copy()
    threads = (16, 16)
    blocks = ((block.shape[0] + 15) // 16, (block.shape[1] + 15) // 16)
    jacobi_step[blocks, threads](block, out)
    return out


def reference(field, steps):
    """The same computation with NumPy on the whole array."""
    a = field.copy()
    for _ in range(steps):
        b = a.copy()
        b[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
        a = b
    return a


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--size", type=int, default=1000)
    ap.add_argument("--chunk", type=int, default=250)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--check", action="store_true", help="compare with NumPy")
    args = ap.parse_args(argv)

    import dask.array as da
    from distributed import Client, LocalCluster

    warnings.simplefilter("ignore", RuntimeWarning)
    gpu = cuda.backend() == "cuda"
    rng = np.random.default_rng(2024)
    field = rng.standard_normal((args.size, args.size))
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        x = da.from_array(field, chunks=args.chunk)
        if gpu:
            try:
                import cupy  # type: ignore[import-not-found]  # optional
                x = x.map_blocks(cupy.asarray)
            except ImportError:
                pass
        for _ in range(args.steps):
            # The outer boundary stays fixed: `boundary="none"` gives edge
            # blocks no halo there, and the kernel copies block edges.
            x = x.map_overlap(smooth_block, depth=1, boundary="none")
        result = x.compute()
        if not isinstance(result, np.ndarray):
            result = result.get()
        # Where the workers ran, and how they got the kernel.
        info = client.run(lambda: (os.getpid(), cuda.backend(), jacobi_step.stats["cache"]
                                   if jacobi_step.signatures else "not run"))
    print(f"{len(info)} workers ({'GPU' if gpu else 'CPU executor'}): "
          f"{args.size}x{args.size}, chunks {args.chunk}, {args.steps} steps")
    for addr, (pid, backend, cache) in sorted(info.items()):
        print(f"  worker pid {pid}: backend {backend}, kernel cache {cache}")
    # Dask may run the function once here, on a small array, to learn the
    # type of its result (its "meta").
    print(f"  client pid {os.getpid()}: kernel cache "
          f"{jacobi_step.stats['cache'] if jacobi_step.signatures else 'not run'}")
    if args.check:
        want = reference(field, args.steps)
        err = np.max(np.abs(result - want))
        print(f"max |dask - numpy| = {err:.3g}")
        if not err < 1e-12:
            print("MISMATCH", file=sys.stderr)
            return 1
        print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
