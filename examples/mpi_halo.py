"""A 2-D Jacobi stencil split over MPI ranks, one rank per GPU, with a halo
exchange between neighbouring ranks every step.

    mpirun -n 4 python examples/mpi_halo.py [--size 512] [--steps 50] [--check]

Rank r owns a band of rows of the grid, kept in device memory with one halo
row above and below.  Each step it sends its first and last rows to its
neighbours (through host buffers: no CUDA-aware MPI is assumed), receives
their rows into its halo, and runs the stencil kernel.  Rank r uses device
r % len(cuda.gpus); without GPUs the ranks run on the CPU executor (with
PYCUDA_JIT_CPU_DEVICES=N each rank takes one of N virtual devices).
--check gathers the grid on rank 0 and compares it with NumPy.
"""
import argparse
import sys
import warnings

import numpy as np

from pycuda_jit import cuda


@cuda.jit(cache=True)
def jacobi_rows(src, dst, first_row, last_row):
    """dst = the 5-point average of src on rows [first_row, last_row) and
    columns 1..m-2; everything else copied."""
    i, j = cuda.grid(2)
    n, m = src.shape
    if i < n and j < m:
        if first_row <= i < last_row and 0 < j < m - 1:
            dst[i, j] = 0.25 * (src[i - 1, j] + src[i + 1, j] + src[i, j - 1] + src[i, j + 1])
        else:
            dst[i, j] = src[i, j]


def band(size, ranks, rank):
    """The rows [lo, hi) rank owns."""
    per, extra = divmod(size, ranks)
    lo = rank * per + min(rank, extra)
    return lo, lo + per + (1 if rank < extra else 0)


def reference(field, steps):
    a = field.copy()
    for _ in range(steps):
        b = a.copy()
        b[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
        a = b
    return a


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)

    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    rank, ranks = comm.Get_rank(), comm.Get_size()
    warnings.simplefilter("ignore", RuntimeWarning)  # the no-GPU notice
    device = rank % len(cuda.gpus)
    cuda.select_device(device)

    n = args.size
    if n < 2 * ranks:
        raise SystemExit(f"--size {n} is too small for {ranks} ranks")
    field = np.random.default_rng(7).standard_normal((n, n))  # same on every rank
    lo, hi = band(n, ranks, rank)
    # Local rows: the band plus a halo row on each side (zeros at the grid's
    # edges, where there is no neighbour: those rows are never updated).
    local = np.zeros((hi - lo + 2, n))
    local[1:-1] = field[lo:hi]
    if rank > 0:
        local[0] = field[lo - 1]
    if rank < ranks - 1:
        local[-1] = field[hi]
    a, b = cuda.to_device(local), cuda.to_device(local)
    # Rows of `local` to update: all owned rows except the grid's own
    # first and last rows.
    first = 2 if rank == 0 else 1
    last = hi - lo if rank == ranks - 1 else hi - lo + 1
    up, down = rank - 1 if rank > 0 else MPI.PROC_NULL, rank + 1 if rank < ranks - 1 else MPI.PROC_NULL
    threads = (8, 32)
    blocks = ((local.shape[0] + 7) // 8, (n + 31) // 32)
    send, recv = np.empty(n), np.empty(n)
    t0 = MPI.Wtime()
    for _ in range(args.steps):
        # Halo exchange: my first owned row goes up, the row below comes up.
        a[1].copy_to_host(send)
        comm.Sendrecv(send, dest=up, recvbuf=recv, source=down)
        if down != MPI.PROC_NULL:
            a[-1].copy_to_device(recv)
        a[-2].copy_to_host(send)
        comm.Sendrecv(send, dest=down, recvbuf=recv, source=up)
        if up != MPI.PROC_NULL:
            a[0].copy_to_device(recv)
        jacobi_rows[blocks, threads](a, b, first, last)
        a, b = b, a
    cuda.synchronize()
    elapsed = comm.reduce(MPI.Wtime() - t0, op=MPI.MAX)
    mine = a.copy_to_host()[1:-1]
    parts = comm.gather(mine, root=0)
    devices = comm.gather((rank, cuda.backend(), device, jacobi_rows.stats["cache"]), root=0)
    if rank != 0:
        return 0
    assert parts is not None and devices is not None and elapsed is not None  # the root's
    grid = np.concatenate(parts)
    print(f"{ranks} ranks, {n}x{n} grid, {args.steps} steps: {elapsed * 1e3:.1f} ms")
    for r, backend, dev, cache in devices:
        print(f"  rank {r}: {backend} device {dev}, kernel cache {cache}")
    if args.check:
        err = np.max(np.abs(grid - reference(field, args.steps)))
        print(f"max |mpi - numpy| = {err:.3g}")
        if not err < 1e-12:
            print("MISMATCH", file=sys.stderr)
            return 1
        print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
