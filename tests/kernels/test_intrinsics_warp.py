"""Warp-level intrinsics: shuffles (32- and 64-bit ints and floats), votes,
match, activemask, lanemask_lt, laneid, warpsize."""
import numpy as np
import pytest

from pycuda_jit import cuda
from gpu_util import poisoned

FULL = 0xFFFFFFFF
DTYPES = [np.int32, np.int64, np.uint32, np.uint64, np.float32, np.float64]


@cuda.jit
def k_warp_sum(x, out):
    i = cuda.grid(1)
    v = x[i]
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(FULL, v, off)
        off //= 2
    if cuda.laneid == 0:
        out[i // 32] = v


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_warp_shuffle_reduction(backend, rng, dt):
    n = 32 * 24
    if np.dtype(dt).kind == "f":
        x = rng.standard_normal(n).astype(dt)
    else:
        x = rng.integers(0, 2**20, n).astype(dt)
        if np.dtype(dt).itemsize == 8:
            x = x * dt(2**33) + dt(3)  # use the high halves of 64-bit values
    out = poisoned(n // 32, dt)
    k_warp_sum[6, 128](x, out)
    expect = x.reshape(-1, 32).sum(axis=1, dtype=np.float64 if np.dtype(dt).kind == "f" else dt)
    if np.dtype(dt).kind == "f":
        np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-4)
    else:
        np.testing.assert_array_equal(out, expect)


@cuda.jit
def k_shuffles(x, idx_out, up_out, down_out, xor_out, src):
    i = cuda.grid(1)
    v = x[i]
    idx_out[i] = cuda.shfl_sync(FULL, v, src[i])
    up_out[i] = cuda.shfl_up_sync(FULL, v, 3)
    down_out[i] = cuda.shfl_down_sync(FULL, v, 5)
    xor_out[i] = cuda.shfl_xor_sync(FULL, v, 6)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_shuffle_modes(backend, rng, dt):
    n = 128
    x = (rng.random(n) * 1e6).astype(dt)
    if np.dtype(dt).itemsize == 8:
        x = x * dt(2**30)
    src = rng.integers(0, 40, n).astype(np.int32)  # lanes >= 32 wrap (% 32)
    outs = [poisoned(n, dt) for _ in range(4)]
    k_shuffles[2, 64](x, *outs, src)
    w = x.reshape(-1, 32)
    lane = np.arange(32)
    s = src.reshape(-1, 32) % 32
    np.testing.assert_array_equal(outs[0].reshape(-1, 32), np.take_along_axis(w, s, 1))
    up = np.where(lane >= 3, np.roll(w, 3, axis=1), w)
    np.testing.assert_array_equal(outs[1].reshape(-1, 32), up)
    down = np.where(lane + 5 < 32, np.roll(w, -5, axis=1), w)
    np.testing.assert_array_equal(outs[2].reshape(-1, 32), down)
    np.testing.assert_array_equal(outs[3].reshape(-1, 32), w[:, lane ^ 6])


@cuda.jit
def k_inclusive_scan(x, out):
    i = cuda.grid(1)
    v = x[i]
    d = 1
    while d < 32:
        u = cuda.shfl_up_sync(FULL, v, d)
        if cuda.laneid >= d:
            v += u
        d *= 2
    out[i] = v


def test_warp_inclusive_scan(backend, rng):
    x = rng.integers(-100, 100, 256).astype(np.int64)
    out = poisoned(256, np.int64)
    k_inclusive_scan[2, 128](x, out)
    np.testing.assert_array_equal(out, np.cumsum(x.reshape(-1, 32), axis=1).reshape(-1))


@cuda.jit
def k_votes(x, alls, anys, eqs, ballots, half):
    i = cuda.grid(1)
    p = x[i] > 0
    alls[i] = cuda.all_sync(FULL, p)
    anys[i] = cuda.any_sync(FULL, p)
    eqs[i] = cuda.eq_sync(FULL, p)
    ballots[i] = cuda.ballot_sync(FULL, p)
    if cuda.laneid < 16:  # only the low half-warp takes part
        half[i] = cuda.ballot_sync(0x0000FFFF, p)
    else:
        half[i] = -1


def test_votes(backend, rng):
    nw = 8
    x = rng.integers(-1, 2, nw * 32).astype(np.int32)
    xw = x.reshape(nw, 32)
    xw[0] = 1    # all true
    xw[1] = 0    # all false
    xw[2, :] = 1
    xw[2, 31] = 0  # the top lane decides the sign of the int32 ballot
    outs = [poisoned(nw * 32, np.bool_) for _ in range(3)]
    ballots = poisoned(nw * 32, np.int32)
    half = poisoned(nw * 32, np.int32)
    k_votes[2, 128](x, *outs, ballots, half)
    p = xw > 0
    bits = (p * (1 << np.arange(32, dtype=np.uint64))).sum(axis=1).astype(np.uint32)
    rep = lambda v: np.repeat(np.asarray(v)[:, None], 32, 1).reshape(-1)  # noqa: E731
    np.testing.assert_array_equal(outs[0], rep(p.all(1)))
    np.testing.assert_array_equal(outs[1], rep(p.any(1)))
    np.testing.assert_array_equal(outs[2], rep(p.all(1) | ~p.any(1)))
    np.testing.assert_array_equal(ballots, rep(bits.view(np.int32)))
    low = (bits & 0xFFFF).astype(np.int32)
    expect_half = np.where(np.arange(32) < 16, low[:, None], -1).reshape(-1)
    np.testing.assert_array_equal(half, expect_half)


@cuda.jit
def k_match(x, anys, alls, preds):
    i = cuda.grid(1)
    anys[i] = cuda.match_any_sync(FULL, x[i])
    m, p = cuda.match_all_sync(FULL, x[i])
    alls[i] = m
    preds[i] = p


@pytest.mark.parametrize("dt", [np.int32, np.int64, np.float32, np.float64],
                         ids=lambda d: np.dtype(d).name)
def test_match(backend, rng, dt):
    nw = 4
    x = rng.integers(0, 4, nw * 32).astype(dt)
    x[32:64] = 7  # warp 1: all equal
    anys = poisoned(nw * 32, np.int32)
    alls = poisoned(nw * 32, np.int32)
    preds = poisoned(nw * 32, np.bool_)
    k_match[1, 128](x, anys, alls, preds)
    xw = x.reshape(nw, 32)
    weights = (1 << np.arange(32, dtype=np.uint64))
    same = (xw[:, :, None] == xw[:, None, :])
    expect_any = (same * weights).sum(axis=2).astype(np.uint32).view(np.int32)
    np.testing.assert_array_equal(anys.reshape(nw, 32), expect_any)
    all_eq = (xw == xw[:, :1]).all(axis=1)
    np.testing.assert_array_equal(alls.reshape(nw, 32),
                                  np.where(all_eq, -1, 0)[:, None].repeat(32, 1))
    np.testing.assert_array_equal(preds.reshape(nw, 32), all_eq[:, None].repeat(32, 1))


@cuda.jit
def k_lanes(lanes, sizes, lt, active):
    i = cuda.grid(1)
    m = cuda.activemask()
    cuda.syncwarp()  # no lane returns before every lane read the mask
    lanes[i] = cuda.laneid
    sizes[i] = cuda.warpsize
    lt[i] = cuda.lanemask_lt()
    active[i] = m


def test_lane_registers(backend):
    tpb = 80  # the last warp has 16 lanes
    lanes = poisoned(tpb, np.int32)
    sizes = poisoned(tpb, np.int32)
    lt = poisoned(tpb, np.uint32)
    active = poisoned(tpb, np.uint32)
    k_lanes[1, tpb](lanes, sizes, lt, active)
    lane = np.arange(tpb) % 32
    np.testing.assert_array_equal(lanes, lane)
    np.testing.assert_array_equal(sizes, 32)
    np.testing.assert_array_equal(lt, (1 << lane.astype(np.uint64)) - 1)
    expect = np.where(np.arange(tpb) < 64, 0xFFFFFFFF, 0xFFFF).astype(np.uint32)
    np.testing.assert_array_equal(active, expect)
