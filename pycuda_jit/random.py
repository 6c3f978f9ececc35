"""``cuda.random``: the xoroshiro128+ random number generator of numba-cuda.

The same streams as numba-cuda for the same seed, subsequence and thread:
the generator is xoroshiro128+ (Blackman and Vigna), a state is two uint64
words (``xoroshiro128p_dtype``, a record with fields ``s0`` and ``s1``),
seeded with one splitmix64 output in both words, and the state of thread
``i`` is the seed's state jumped ``subsequence_start + i`` times ahead by
2**64 steps.  Uniform floats take the top 53 bits of an output
(``(x >> 11) * 2**-53``; float32 is that float64 rounded), normals are
Box-Muller's first value from two float32 uniforms (also for float64, as in
numba-cuda).

The device functions are written in the kernel language
(``@cuda.jit(device=True)``), so kernels call them like any device function.

State initialization runs on the GPU (numba-cuda runs it on the host, one
state after the other): the generator's step is linear over GF(2), so
jumping ``k`` times by 2**64 steps is applying the polynomial
``x**(k * 2**64)`` modulo the step's characteristic polynomial ``P``.  The
host computes ``P`` once (Berlekamp-Massey on one output bit, checked
against the published jump polynomial), the seed's state advanced by
``subsequence_start`` jumps, and the 63 polynomials ``x**(2**(64 + j)) mod
P``; thread ``i`` of the initialization kernel applies those for the bits
set in ``i`` (about log2(n) / 2 applications of 128 steps each).
"""
import math

import numpy as np

from . import cuda

__all__ = [
    "xoroshiro128p_dtype", "create_xoroshiro128p_states", "init_xoroshiro128p_states",
    "init_xoroshiro128p_state", "xoroshiro128p_next", "xoroshiro128p_jump",
    "xoroshiro128p_uniform_float32", "xoroshiro128p_uniform_float64",
    "xoroshiro128p_normal_float32", "xoroshiro128p_normal_float64",
]

xoroshiro128p_dtype = np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)

_MASK64 = (1 << 64) - 1
# The jump polynomial (coefficient of x**b is bit b of JUMP0 | JUMP1 << 64):
# applying it advances a state by 2**64 steps.
_JUMP0 = 0xBEAC0467EBA5FACB
_JUMP1 = 0xD86B048B86AA9922
_SPLITMIX_GAMMA = 0x9E3779B97F4A7C15
_TWO_PI_F32 = np.float32(2 * math.pi)
_TWO_PI_F64 = np.float64(2 * math.pi)


def __getattr__(name):
    # numba-cuda's record type object, where pycuda_jit has type objects.
    if name == "xoroshiro128p_type":
        try:
            from .types import from_dtype
        except ImportError:
            raise AttributeError(name) from None
        return from_dtype(xoroshiro128p_dtype)
    raise AttributeError(f"module 'pycuda_jit.random' has no attribute '{name}'")


# ---- device functions (kernel language) ---------------------------------------------


@cuda.jit(device=True, inline="always")
def _splitmix64(seed):
    z = np.uint64(seed) + np.uint64(_SPLITMIX_GAMMA)
    z = (z ^ (z >> 30)) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> 27)) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> 31)


@cuda.jit(device=True, inline="always")
def _step(s0, s1):
    """One step of the generator's state (without the output)."""
    s1 ^= s0
    return ((s0 << 55) | (s0 >> 9)) ^ s1 ^ (s1 << 14), (s1 << 36) | (s1 >> 28)


@cuda.jit(device=True)
def init_xoroshiro128p_state(states, index, seed):
    """Set ``states[index]`` to the state numba-cuda makes from ``seed``
    (one splitmix64 output in both words)."""
    z = _splitmix64(seed)
    states[index].s0 = z
    states[index].s1 = z


@cuda.jit(device=True)
def xoroshiro128p_next(states, index):
    """The next uint64 of ``states[index]``'s stream; advances the state."""
    s0 = states[index].s0
    s1 = states[index].s1
    result = s0 + s1
    n0, n1 = _step(s0, s1)
    states[index].s0 = n0
    states[index].s1 = n1
    return result


@cuda.jit(device=True)
def xoroshiro128p_jump(states, index):
    """Advance ``states[index]`` by 2**64 steps (to the next subsequence)."""
    s0 = states[index].s0
    s1 = states[index].s1
    r0 = np.uint64(0)
    r1 = np.uint64(0)
    poly = np.uint64(_JUMP0)
    for w in range(2):
        for b in range(64):
            if poly & np.uint64(1):
                r0 ^= s0
                r1 ^= s1
            s0, s1 = _step(s0, s1)
            poly >>= np.uint64(1)
        poly = np.uint64(_JUMP1)
    states[index].s0 = r0
    states[index].s1 = r1


@cuda.jit(device=True, inline="always")
def _unit_float64(x):
    return np.float64(x >> 11) * (1.0 / 9007199254740992.0)


@cuda.jit(device=True)
def xoroshiro128p_uniform_float64(states, index):
    """A float64 in [0, 1) from ``states[index]`` (advances it)."""
    return _unit_float64(xoroshiro128p_next(states, index))


@cuda.jit(device=True)
def xoroshiro128p_uniform_float32(states, index):
    """A float32 in [0, 1] from ``states[index]`` (advances it): the float64
    uniform rounded to float32, so 1.0 is possible, as in numba-cuda."""
    return np.float32(_unit_float64(xoroshiro128p_next(states, index)))


@cuda.jit(device=True)
def xoroshiro128p_normal_float32(states, index):
    """A standard normal float32 (Box-Muller; advances ``states[index]`` by two)."""
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(np.float32(-2.0) * math.log(u1)) * math.cos(_TWO_PI_F32 * u2)


@cuda.jit(device=True)
def xoroshiro128p_normal_float64(states, index):
    """A standard normal float64 (Box-Muller from two float32 uniforms, as
    numba-cuda computes it; advances ``states[index]`` by two)."""
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(np.float64(-2.0) * math.log(u1)) * math.cos(_TWO_PI_F64 * u2)


# ---- host side: the jump polynomials ------------------------------------------------


def _step_py(s0, s1):
    s1 ^= s0
    rot55 = ((s0 << 55) | (s0 >> 9)) & _MASK64
    return rot55 ^ s1 ^ ((s1 << 14) & _MASK64), ((s1 << 36) | (s1 >> 28)) & _MASK64


def _seed_state_py(seed):
    z = (seed + _SPLITMIX_GAMMA) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    z ^= z >> 31
    return z, z


def _apply_py(poly, s0, s1):
    """The state poly(M) (s0, s1), M the generator's step."""
    r0 = r1 = 0
    while poly:
        if poly & 1:
            r0 ^= s0
            r1 ^= s1
        s0, s1 = _step_py(s0, s1)
        poly >>= 1
    return r0, r1


def _mulmod(a, b, p, degree):
    """a * b mod p over GF(2) (polynomials as ints, bit i = coefficient of x**i)."""
    prod = 0
    while b:
        if b & 1:
            prod ^= a
        a <<= 1
        b >>= 1
    return _reduce(prod, p, degree)


def _reduce(prod, p, degree):
    for i in range(prod.bit_length() - 1, degree - 1, -1):
        if (prod >> i) & 1:
            prod ^= p << (i - degree)
    return prod


def _squaremod(a, p, degree):
    """a * a mod p over GF(2): squaring spreads the bits (bit i to bit 2i)."""
    return _reduce(int("0".join(format(a, "b")), 2), p, degree)


def _characteristic_polynomial():
    """P with P(M) = 0, by Berlekamp-Massey on the low bit of s0 (the step
    has a primitive characteristic polynomial of degree 128)."""
    s0, s1 = _seed_state_py(1)
    bits = []
    for _ in range(300):
        bits.append(s0 & 1)
        s0, s1 = _step_py(s0, s1)
    conn, length, prev, shift = 1, 0, 1, 1
    for n, bit in enumerate(bits):
        d = bit
        for i in range(1, length + 1):
            d ^= (conn >> i) & bits[n - i]
        if not d:
            shift += 1
        elif 2 * length <= n:
            conn, prev, length, shift = conn ^ (prev << shift), conn, n + 1 - length, 1
        else:
            conn ^= prev << shift
            shift += 1
    # The connection polynomial's reversal is the characteristic polynomial.
    p = 0
    for i in range(length + 1):
        if (conn >> i) & 1:
            p |= 1 << (length - i)
    return p, length


_tables = None


def _jump_tables():
    """(P, degree, jumps): jumps[j] = x**(2**(64 + j)) mod P for j < 64."""
    global _tables
    if _tables is None:
        p, degree = _characteristic_polynomial()
        x_pow = 2  # x
        for _ in range(64):
            x_pow = _squaremod(x_pow, p, degree)
        # x**(2**64) mod P must be the published jump polynomial: this checks
        # P and the conventions above.
        assert degree == 128 and x_pow == _JUMP0 | _JUMP1 << 64, "xoroshiro128+ jump polynomial"
        jumps = []
        for _ in range(64):
            jumps.append(x_pow)
            x_pow = _squaremod(x_pow, p, degree)
        _tables = p, degree, jumps
    return _tables


def _start_state(seed, subsequence_start):
    """The state of generator 0: the seed's state jumped subsequence_start times."""
    p, degree, jumps = _jump_tables()
    poly, j, k = 1, 0, subsequence_start
    while k:
        if k & 1:
            poly = _mulmod(poly, jumps[j], p, degree)
        k >>= 1
        j += 1
    return _apply_py(poly, *_seed_state_py(seed))


def _uint64(value, what):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what} must be an integer, not {type(value).__name__}")
    return int(value) & _MASK64


# ---- host side: initialization on the device ---------------------------------------

_init_kernel = None


def _initializer():
    global _init_kernel
    if _init_kernel is None:
        table = np.array([[j & _MASK64, j >> 64] for j in _jump_tables()[2]], dtype=np.uint64)

        @cuda.jit(device=True, inline="always")
        def apply_jump(s0, s1, p0, p1):
            r0 = np.uint64(0)
            r1 = np.uint64(0)
            poly = p0
            for w in range(2):
                for b in range(64):
                    if poly & np.uint64(1):
                        r0 ^= s0
                        r1 ^= s1
                    s0, s1 = _step(s0, s1)
                    poly >>= np.uint64(1)
                poly = p1
            return r0, r1

        @cuda.jit
        def init_states(states, s0, s1):
            i = cuda.grid(1)
            if i < states.shape[0]:
                k = i
                j = 0
                while k != 0:
                    if k & 1:
                        s0, s1 = apply_jump(s0, s1, table[j, 0], table[j, 1])
                    k >>= 1
                    j += 1
                states[i].s0 = s0
                states[i].s1 = s1

        _init_kernel = init_states
    return _init_kernel


def init_xoroshiro128p_states(states, seed, subsequence_start=0, stream=0):
    """Initialize the 1-d array ``states`` (dtype ``xoroshiro128p_dtype``) on
    the device: ``states[i]`` starts subsequence ``subsequence_start + i`` of
    the stream of ``seed`` (subsequences are 2**64 steps apart, so the
    generators are independent while none draws more than 2**64 numbers).
    ``seed`` and ``subsequence_start`` are taken as uint64."""
    seed = _uint64(seed, "seed")
    subsequence_start = _uint64(subsequence_start, "subsequence_start")
    dtype = getattr(states, "dtype", None)
    if dtype != xoroshiro128p_dtype or len(states.shape) != 1:
        raise TypeError("states must be a 1-d array of dtype xoroshiro128p_dtype, not "
                        f"{len(getattr(states, 'shape', ()))}-d of {dtype}")
    n = states.shape[0]
    if n == 0:
        return
    s0, s1 = _start_state(seed, subsequence_start)
    threads = 256
    _initializer()[(n + threads - 1) // threads, threads, stream](
        states, np.uint64(s0), np.uint64(s1))


def create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0):
    """A new device array of ``n`` generator states, initialized on the device
    as ``init_xoroshiro128p_states`` does."""
    states = cuda.device_array(n, dtype=xoroshiro128p_dtype, stream=stream)
    init_xoroshiro128p_states(states, seed, subsequence_start, stream)
    return states
