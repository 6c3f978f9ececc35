"""Shared pytest setup: make the in-tree package importable."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

# numba-cuda's performance warnings are on by default (a grid of fewer than
# 128 blocks, a host array copied at a launch); the tests launch small grids
# with NumPy arrays on purpose, so they are off here unless a test turns them
# on (tests/kernels/test_performance_warnings.py).
os.environ.setdefault("PYCUDA_JIT_LOW_OCCUPANCY_WARNINGS", "0")
os.environ.setdefault("PYCUDA_JIT_WARN_ON_IMPLICIT_COPY", "0")
