"""cuda.random: xoroshiro128+ states and streams equal numba-cuda's.

Known answers below were produced by numba-cuda 0.30.4's own functions
(init_xoroshiro128p_states_cpu and its @jit device functions run on the
host); the reference generator in this file is an independent plain-Python
statement of the algorithm.  When numba-cuda is importable, states are also
compared with it directly, and on a GPU the float streams (normals
included) are compared bit for bit with numba-cuda's kernels run in a
subprocess.
"""
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from pycuda_jit import cuda
from pycuda_jit.random import (
    create_xoroshiro128p_states, init_xoroshiro128p_states, init_xoroshiro128p_state,
    xoroshiro128p_dtype, xoroshiro128p_jump, xoroshiro128p_next,
    xoroshiro128p_normal_float32, xoroshiro128p_normal_float64,
    xoroshiro128p_uniform_float32, xoroshiro128p_uniform_float64)

from gpu_util import poisoned

M64 = (1 << 64) - 1

# (seed, subsequence_start) -> the first states, from numba-cuda.
KNOWN_STATES = {
    (1, 0): [(10451216379200822465, 10451216379200822465),
             (8341117667364343960, 7824662623250379246),
             (809817624983272012, 15258973161149853818),
             (4287641842676342503, 12987378992932203451)],
    (42, 5): [(9453079810665557108, 16242466236478186356),
              (2597645069605232943, 1167954634385444535),
              (6957967959162806577, 4501384021356308625)],
    (2**64 - 1, 0): [(16490336266968443936, 16490336266968443936),
                     (17324877810520127112, 6708399602603917828)],
    (2**64 - 7, 2): [(10101312653190538831, 3318276038005659615),
                     (4231179134057848908, 1948425985833551568)],
}
# Seed 1, from numba-cuda: three outputs of state 3, three float64 and
# float32 uniforms of state 2, three normals of state 1.
KNOWN_NEXT_3 = [17275020835608545954, 17117889445982215054, 15105879790927476298]
KNOWN_U64_2 = ["0x1.bdffa02af311dp-1", "0x1.d1039182fe51cp-2", "0x1.bbb4c935bf5b7p-1"]
KNOWN_U32_2 = ["0x1.bdffa00000000p-1", "0x1.d103920000000p-2", "0x1.bbb4ca0000000p-1"]
KNOWN_N32_1 = ["0x1.03e2960000000p-3", "0x1.272e420000000p+0", "0x1.0f4a0c0000000p+0"]
KNOWN_N64_1 = ["0x1.03e298c7170d0p-3", "0x1.272e42a009c47p+0", "0x1.0f4a0c5fe5efcp+0"]


# ---- an independent reference ---------------------------------------------------------

def ref_next(state):
    s0, s1 = state
    result = (s0 + s1) & M64
    s1 ^= s0
    s0 = (((s0 << 55) | (s0 >> 9)) & M64) ^ s1 ^ ((s1 << 14) & M64)
    s1 = ((s1 << 36) | (s1 >> 28)) & M64
    return result, (s0, s1)


def ref_stream(state, count):
    out = []
    for _ in range(count):
        x, state = ref_next(state)
        out.append(x)
    return out


def ref_jump(state):
    acc0 = acc1 = 0
    for word in (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922):
        for b in range(64):
            if (word >> b) & 1:
                acc0 ^= state[0]
                acc1 ^= state[1]
            _, state = ref_next(state)
    return acc0, acc1


def ref_states(seed, start, n):
    z = (seed + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    z ^= z >> 31
    state = (z, z)
    for _ in range(start):
        state = ref_jump(state)
    out = []
    for _ in range(n):
        out.append(state)
        state = ref_jump(state)
    return out


def as_pairs(states):
    return [(int(a), int(b)) for a, b in states]


# ---- kernels: each draws `count` values of one kind per thread from fresh states -----

@cuda.jit
def next_kernel(states, out):
    i = cuda.grid(1)
    if i < states.shape[0]:
        for k in range(out.shape[1]):
            out[i, k] = xoroshiro128p_next(states, i)


@cuda.jit
def uniform64_kernel(states, out):
    i = cuda.grid(1)
    if i < states.shape[0]:
        for k in range(out.shape[1]):
            out[i, k] = xoroshiro128p_uniform_float64(states, i)


@cuda.jit
def uniform32_kernel(states, out):
    i = cuda.grid(1)
    if i < states.shape[0]:
        for k in range(out.shape[1]):
            out[i, k] = xoroshiro128p_uniform_float32(states, i)


@cuda.jit
def normal32_kernel(states, out):
    i = cuda.grid(1)
    if i < states.shape[0]:
        for k in range(out.shape[1]):
            out[i, k] = xoroshiro128p_normal_float32(states, i)


@cuda.jit
def normal64_kernel(states, out):
    i = cuda.grid(1)
    if i < states.shape[0]:
        for k in range(out.shape[1]):
            out[i, k] = xoroshiro128p_normal_float64(states, i)


def draw(kernel, dtype, n, count, seed):
    states = create_xoroshiro128p_states(n, seed=seed)
    out = poisoned((n, count), dtype)
    kernel[(n + 63) // 64, 64](states, out)
    return out


def unit64(x):
    return (x >> 11) * 2.0**-53


def unit32(x):
    return float(np.float32(unit64(x)))


# ---- states -----------------------------------------------------------------------------

@pytest.mark.parametrize("seed,start", sorted(KNOWN_STATES))
def test_states_equal_numba_cudas(seed, start):
    want = KNOWN_STATES[(seed, start)]
    got = create_xoroshiro128p_states(len(want), seed=seed, subsequence_start=start)
    assert got.dtype == xoroshiro128p_dtype
    assert as_pairs(got.copy_to_host()) == want
    assert as_pairs(got.copy_to_host()) == ref_states(seed, start, len(want))


def test_many_states_follow_the_jump_chain(rng):
    # Thread i of the initializer applies the jump polynomials of i's bits:
    # 300 states cover bit patterns up to 9 bits.
    seed = int(rng.integers(0, 2**63))
    got = as_pairs(create_xoroshiro128p_states(300, seed=seed, subsequence_start=3).copy_to_host())
    assert got == ref_states(seed, 3, 300)


def test_subsequence_start_shifts_the_states():
    s1 = create_xoroshiro128p_states(10, seed=1).copy_to_host()
    s2 = create_xoroshiro128p_states(10, seed=1, subsequence_start=3).copy_to_host()
    np.testing.assert_array_equal(s1[3:], s2[:-3])
    assert len(np.unique(s1)) == 10


def test_large_subsequence_starts_agree_with_later_states():
    # States of a run starting at S equal the first state of runs starting
    # at S + i: the host's polynomial for S and the kernel's per-thread
    # jumps must agree, whatever the size of S.
    for start in (2**40 + 3, 2**63 - 2, 2**64 - 3):
        run = as_pairs(create_xoroshiro128p_states(3, seed=9, subsequence_start=start)
                       .copy_to_host())
        for i in range(3):
            one = create_xoroshiro128p_states(1, seed=9, subsequence_start=start + i)
            assert as_pairs(one.copy_to_host()) == [run[i]], (start, i)


def test_init_into_an_existing_array_and_on_a_stream():
    stream = cuda.stream()
    states = cuda.device_array(4, dtype=xoroshiro128p_dtype)
    init_xoroshiro128p_states(states, 1, stream=stream)
    stream.synchronize()
    assert as_pairs(states.copy_to_host()) == KNOWN_STATES[(1, 0)]
    s = create_xoroshiro128p_states(4, seed=1, stream=stream)
    stream.synchronize()
    assert as_pairs(s.copy_to_host()) == KNOWN_STATES[(1, 0)]
    assert create_xoroshiro128p_states(0, seed=1).shape == (0,)


def test_bad_states_or_seed_are_type_errors():
    with pytest.raises(TypeError, match="xoroshiro128p_dtype"):
        init_xoroshiro128p_states(cuda.device_array(4, dtype=np.uint64), 1)
    with pytest.raises(TypeError, match="seed must be an integer"):
        create_xoroshiro128p_states(4, seed=1.5)


# ---- streams ------------------------------------------------------------------------------

def test_streams_equal_numba_cudas_known_answers():
    assert [int(x) for x in draw(next_kernel, np.uint64, 4, 3, 1)[3]] == KNOWN_NEXT_3
    assert [float(x).hex() for x in draw(uniform64_kernel, np.float64, 4, 3, 1)[2]] == KNOWN_U64_2
    assert [float(x).hex() for x in draw(uniform32_kernel, np.float32, 4, 3, 1)[2]] == KNOWN_U32_2


def test_uniform_streams_equal_the_reference_bit_for_bit(rng):
    n, count = 70, 6
    seed = int(rng.integers(0, 2**63))
    u64 = draw(next_kernel, np.uint64, n, count, seed)
    f64 = draw(uniform64_kernel, np.float64, n, count, seed)
    f32 = draw(uniform32_kernel, np.float32, n, count, seed)
    for i, state in enumerate(ref_states(seed, 0, n)):
        xs = ref_stream(state, count)
        assert [int(x) for x in u64[i]] == xs
        assert [float(x) for x in f64[i]] == [unit64(x) for x in xs]
        assert [float(x) for x in f32[i]] == [unit32(x) for x in xs]


def test_normals_are_box_muller_of_float32_uniforms():
    n, count = 40, 4
    n32 = draw(normal32_kernel, np.float32, n, count, 5)
    n64 = draw(normal64_kernel, np.float64, n, count, 5)
    for i, state in enumerate(ref_states(5, 0, n)):
        u = [unit32(x) for x in ref_stream(state, 2 * count)]
        want = [math.sqrt(-2.0 * math.log(np.float32(u[2 * k]))) *
                math.cos(2 * math.pi * u[2 * k + 1]) for k in range(count)]
        # Single-precision log and cos (libm on the CPU executor, libdevice
        # on the GPU): within a few float32 ulps of the exact values.
        np.testing.assert_allclose(n32[i], want, rtol=3e-6, atol=3e-6)
        np.testing.assert_allclose(n64[i], want, rtol=3e-6, atol=3e-6)
    got32 = draw(normal32_kernel, np.float32, 4, 3, 1)[1]
    got64 = draw(normal64_kernel, np.float64, 4, 3, 1)[1]
    np.testing.assert_allclose(got32, [float.fromhex(h) for h in KNOWN_N32_1], rtol=3e-6)
    np.testing.assert_allclose(got64, [float.fromhex(h) for h in KNOWN_N64_1], rtol=3e-6)


# ---- device functions on single states ----------------------------------------------------

@cuda.jit
def seed_and_jump_kernel(states, seeds, jumps):
    i = cuda.grid(1)
    if i < states.shape[0]:
        init_xoroshiro128p_state(states, i, seeds[i])
        for _ in range(jumps[i]):
            xoroshiro128p_jump(states, i)


def test_seed_and_jump_device_functions(rng):
    seeds = rng.integers(0, 2**63, size=5).astype(np.int64)
    jumps = np.array([0, 1, 2, 3, 5], np.int64)
    states = np.zeros(5, xoroshiro128p_dtype)
    seed_and_jump_kernel[1, 8](states, seeds, jumps)
    for i in range(5):
        assert as_pairs(states[i:i + 1]) == [ref_states(int(seeds[i]), int(jumps[i]), 1)[0]]


def test_kernels_reach_the_library_through_cuda_random():
    assert cuda.random.xoroshiro128p_dtype == xoroshiro128p_dtype

    @cuda.jit
    def k(states, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = cuda.random.xoroshiro128p_uniform_float64(states, i)

    states = cuda.random.create_xoroshiro128p_states(8, seed=1)
    out = poisoned(8, np.float64)
    k[1, 8](states, out)
    assert float(out[2]).hex() == KNOWN_U64_2[0]


# ---- against numba-cuda itself -----------------------------------------------------------

def numba_shim():
    # numba-cuda 0.30.4 uses numpy.row_stack, which NumPy 2.5 removed.
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack


def test_states_equal_numba_cuda_host_init(rng):
    numba_shim()
    nbr = pytest.importorskip("numba.cuda.random")
    for seed, start, n in [(0, 0, 5), (1, 4, 17), (int(rng.integers(0, 2**62)), 2, 130)]:
        want = np.empty(n, nbr.xoroshiro128p_dtype)
        nbr.init_xoroshiro128p_states_cpu(want, seed, start)
        got = create_xoroshiro128p_states(n, seed=seed, subsequence_start=start)
        np.testing.assert_array_equal(got.copy_to_host().view(np.uint64),
                                      want.view(np.uint64))


NUMBA_SCRIPT = r"""
import json, sys
import numpy as np
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack  # numba-cuda 0.30.4 on NumPy 2.5
from numba import cuda
from numba.cuda.random import (create_xoroshiro128p_states, xoroshiro128p_uniform_float32,
    xoroshiro128p_uniform_float64, xoroshiro128p_normal_float32, xoroshiro128p_normal_float64)

@cuda.jit
def k(states, f32, f64, n32, n64):
    i = cuda.grid(1)
    if i < states.shape[0]:
        for j in range(f32.shape[1]):
            f32[i, j] = xoroshiro128p_uniform_float32(states, i)
            f64[i, j] = xoroshiro128p_uniform_float64(states, i)
            n32[i, j] = xoroshiro128p_normal_float32(states, i)
            n64[i, j] = xoroshiro128p_normal_float64(states, i)

n, count, seed, start = json.loads(sys.argv[1])
states = create_xoroshiro128p_states(n, seed=seed, subsequence_start=start)
initial = states.copy_to_host().view(np.uint64)
outs = [np.zeros((n, count), t) for t in (np.float32, np.float64, np.float32, np.float64)]
k[(n + 127) // 128, 128](states, *outs)
np.savez(sys.argv[2], states=initial, f32=outs[0], f64=outs[1], n32=outs[2], n64=outs[3])
"""


@cuda.jit
def mixed_kernel(states, f32, f64, n32, n64):
    i = cuda.grid(1)
    if i < states.shape[0]:
        for j in range(f32.shape[1]):
            f32[i, j] = xoroshiro128p_uniform_float32(states, i)
            f64[i, j] = xoroshiro128p_uniform_float64(states, i)
            n32[i, j] = xoroshiro128p_normal_float32(states, i)
            n64[i, j] = xoroshiro128p_normal_float64(states, i)


def test_streams_bit_identical_to_numba_cuda_on_the_gpu(hardware, tmp_path):
    """numba-cuda's kernels in a subprocess (its own CUDA context) and ours:
    the same states and the same floats, normals included (libdevice's
    logf/cosf/log/cos on both sides)."""
    python = os.environ.get("PCJ_NUMBA_PYTHON", sys.executable)
    probe = subprocess.run([python, "-c", "import numpy as np; np.row_stack = np.vstack; "
                            "import numba.cuda.random"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("numba-cuda is not importable (set PCJ_NUMBA_PYTHON to a Python that has it)")
    n, count, seed, start = 4096, 16, 12345, 7
    path = tmp_path / "numba.npz"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([python, "-c", NUMBA_SCRIPT, json.dumps([n, count, seed, start]), str(path)],
                   check=True, env=env, timeout=300)
    want = np.load(path)
    states = create_xoroshiro128p_states(n, seed=seed, subsequence_start=start)
    np.testing.assert_array_equal(states.copy_to_host().view(np.uint64), want["states"])
    outs = [poisoned((n, count), t) for t in (np.float32, np.float64, np.float32, np.float64)]
    mixed_kernel[(n + 127) // 128, 128](states, *outs)
    for name, got in zip(("f32", "f64", "n32", "n64"), outs):
        np.testing.assert_array_equal(got.view(np.uint8), want[name].view(np.uint8), err_msg=name)
