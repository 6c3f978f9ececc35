"""The engines users already run: examples/dask_stencil.py on a
dask.distributed cluster of 4 worker processes, examples/mpi_halo.py on 2
and 4 mpi4py ranks; each compares its result with NumPy (--check).

They run on the CPU executor (two virtual devices, so that workers and
ranks select different devices), with a fresh disk cache shared by the
processes; with PYCUDA_JIT_BACKEND=cuda set, on the GPUs (as the GPU
machine runs them: PYCUDA_JIT_BACKEND=cuda python3 -m pytest
tests/python/test_engines.py)."""
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BACKEND = "cuda" if os.environ.get("PYCUDA_JIT_BACKEND") == "cuda" else "cpu"


def _devices():
    """How many devices the examples' processes see."""
    if BACKEND == "cpu":
        return 2
    from pycuda_jit import cuda
    return len(cuda.gpus)


def _env(tmp_path):
    env = dict(os.environ)
    env.update(PYCUDA_JIT_BACKEND=BACKEND, PYCUDA_JIT_CPU_DEVICES="2",
               PYCUDA_JIT_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""),
               OMPI_MCA_rmaps_base_oversubscribe="1")
    return env


def test_dask_stencil_on_four_worker_processes(tmp_path):
    pytest.importorskip("dask.array")
    pytest.importorskip("distributed")
    pytest.importorskip("cloudpickle")
    r = subprocess.run([sys.executable, str(ROOT / "examples/dask_stencil.py"),
                        "--workers", "4", "--size", "400", "--chunk", "100",
                        "--steps", "3", "--check"],
                       env=_env(tmp_path), capture_output=True, text=True, timeout=300,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines[-1] == "ok", r.stdout
    workers = [l for l in lines if l.startswith("  worker pid")]
    assert len(workers) == 4, r.stdout
    # The workers ran the kernel on the backend (the scheduler spreads
    # the blocks; a worker may get none); between them and the client (where
    # Dask may call the function to learn its result type) it was compiled
    # once: the other statuses are disk-cache hits.
    assert all(f"backend {BACKEND}" in w for w in workers), r.stdout
    ran = [w for w in workers if "not run" not in w]
    assert len(ran) >= 2, r.stdout
    client = [l for l in lines if l.startswith("  client pid")]
    statuses = [l.split("kernel cache ")[1] for l in ran + client if "not run" not in l]
    assert sum(s.startswith("miss") for s in statuses) == 1, r.stdout
    assert all(s.startswith(("miss", "hit")) for s in statuses), r.stdout


def _mpirun():
    pytest.importorskip("mpi4py")
    exe = shutil.which("mpirun") or shutil.which("mpiexec")
    if exe is None:
        pytest.skip("no mpirun")
    return exe


@pytest.mark.parametrize("ranks", [2, 4])
def test_mpi_halo_exchange(tmp_path, ranks):
    cmd = [_mpirun(), "-n", str(ranks)]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    cmd += ["--oversubscribe", sys.executable, str(ROOT / "examples/mpi_halo.py"),
            "--size", "96", "--steps", "20", "--check"]
    r = subprocess.run(cmd, env=_env(tmp_path), capture_output=True, text=True,
                       timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines[-1] == "ok", r.stdout
    rank_lines = [l for l in lines if l.startswith("  rank ")]
    assert len(rank_lines) == ranks
    # Ranks take devices round-robin.
    n = _devices()
    for k, line in enumerate(rank_lines):
        assert line.startswith(f"  rank {k}: {BACKEND} device {k % n},"), line
