"""Stub for ``pycuda_jit.cuda.random`` (numba-cuda's ``numba.cuda.random``):
xoroshiro128+ states and the device functions that draw from them."""
from typing import Any

import numpy as np

xoroshiro128p_dtype: np.dtype[Any]

def create_xoroshiro128p_states(n: int, seed: int, subsequence_start: int = 0,
                                stream: Any = 0) -> Any:
    """A device array of ``n`` generator states, state ``i`` at subsequence
    ``subsequence_start + i`` of the stream seeded by ``seed``."""

def init_xoroshiro128p_states(states: Any, seed: int, subsequence_start: int = 0,
                              stream: Any = 0) -> None:
    """Initialize ``states`` in place, as create_xoroshiro128p_states does."""

# Device functions (inside kernels only).
def init_xoroshiro128p_state(states: Any, index: Any, seed: Any) -> None: ...
def xoroshiro128p_next(states: Any, index: Any) -> Any: ...
def xoroshiro128p_jump(states: Any, index: Any) -> None: ...
def xoroshiro128p_uniform_float32(states: Any, index: Any) -> Any: ...
def xoroshiro128p_uniform_float64(states: Any, index: Any) -> Any: ...
def xoroshiro128p_normal_float32(states: Any, index: Any) -> Any: ...
def xoroshiro128p_normal_float64(states: Any, index: Any) -> Any: ...
