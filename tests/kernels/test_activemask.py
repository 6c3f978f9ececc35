"""cuda.activemask(): the lanes of the warp that execute the call together.

On the GPU these are the converged lanes; the CPU executor emulates
convergence (docs/compiler.md, CPU executor): a lane calling activemask waits
until every other live lane of its warp reached the same call, waits
elsewhere or returned, and the mask is the lanes at the same call."""
import numpy as np
import pytest

from pycuda_jit import cuda
from gpu_util import poisoned

FULL = 0xFFFFFFFF


def lanes_of_warps(tpb):
    """Per thread of a block: the mask of the lanes its warp has."""
    return np.array([(1 << min(32, tpb - t // 32 * 32)) - 1 for t in range(tpb)], np.uint64)


def bits_below(n):
    """The mask of lanes 0 .. n-1."""
    return np.uint64((1 << min(int(n), 32)) - 1)


@cuda.jit
def k_branch(out, cut):
    i = cuda.grid(1)
    if cuda.laneid < cut:
        out[i] = cuda.activemask()
    else:
        out[i] = cuda.activemask()


@pytest.mark.parametrize("tpb", [32, 80, 200])
@pytest.mark.parametrize("cut", [1, 5, 31])
def test_divergent_branches(backend, tpb, cut):
    out = poisoned(2 * tpb, np.uint32)
    k_branch[2, tpb](out, cut)
    warp = np.tile(lanes_of_warps(tpb), 2)
    lane = np.arange(2 * tpb) % tpb % 32
    low = bits_below(cut) & warp
    expect = np.where(lane < cut, low, warp & ~low & np.uint64(FULL))
    np.testing.assert_array_equal(out, expect.astype(np.uint32))


@cuda.jit
def k_one_sided(out):
    i = cuda.grid(1)
    if cuda.laneid < 5:
        out[i] = cuda.activemask()


def test_if_lane_below_five(backend):
    out = poisoned(64, np.uint32)
    k_one_sided[1, 64](out)
    lane = np.arange(64) % 32
    np.testing.assert_array_equal(out[lane < 5], 0x1F)
    assert (out[lane >= 5] == np.iinfo(np.uint32).min + 7).all()


@cuda.jit
def k_loop(out):
    i = cuda.grid(1)
    for k in range(cuda.laneid):
        out[i, k] = cuda.activemask()


@pytest.mark.parametrize("tpb", [32, 50, 96])
def test_loop_with_per_lane_trip_counts(backend, tpb):
    out = poisoned((tpb, 32), np.uint32)
    k_loop[1, tpb](out)
    warp = lanes_of_warps(tpb)
    for t in range(tpb):
        lane = t % 32
        for k in range(32):
            if k < lane:
                # iteration k runs on the lanes with more than k iterations
                expect = int(warp[t]) & ~int(bits_below(k + 1)) & FULL
                assert out[t, k] == expect, (t, k, hex(int(out[t, k])), hex(expect))
            else:
                assert out[t, k] == np.iinfo(np.uint32).min + 7


@cuda.jit
def k_after_votes(x, ballots, alls, masks):
    i = cuda.grid(1)
    p = x[i] > 0
    ballots[i] = cuda.ballot_sync(0xFFFFFFFF, p)
    alls[i] = cuda.all_sync(0xFFFFFFFF, p)
    masks[i] = cuda.activemask()


@pytest.mark.parametrize("tpb", [64, 96])
def test_after_votes_in_full_warps(backend, rng, tpb):
    x = rng.standard_normal(2 * tpb)
    ballots = poisoned(2 * tpb, np.uint32)
    alls = poisoned(2 * tpb, np.int32)
    masks = poisoned(2 * tpb, np.uint32)
    k_after_votes[2, tpb](x, ballots, alls, masks)
    np.testing.assert_array_equal(masks, FULL)
    bits = (x > 0).reshape(-1, 32) * (1 << np.arange(32, dtype=np.uint64))
    np.testing.assert_array_equal(ballots.reshape(-1, 32),
                                  np.repeat(bits.sum(1)[:, None], 32, 1).astype(np.uint32))
    np.testing.assert_array_equal(alls.reshape(-1, 32),
                                  np.repeat((x > 0).reshape(-1, 32).all(1)[:, None], 32, 1))


@cuda.jit
def k_vote_in_branch(x, ballots, masks):
    i = cuda.grid(1)
    if cuda.laneid < 20:
        ballots[i] = cuda.ballot_sync(0xFFFFF, x[i] > 0)
        masks[i] = cuda.activemask()


def test_after_vote_in_a_branch(backend, rng):
    tpb = 64
    x = rng.standard_normal(tpb)
    ballots = poisoned(tpb, np.uint32)
    masks = poisoned(tpb, np.uint32)
    k_vote_in_branch[1, tpb](x, ballots, masks)
    lane = np.arange(tpb) % 32
    np.testing.assert_array_equal(masks[lane < 20], 0xFFFFF)
    for w in range(2):
        sel = slice(w * 32, w * 32 + 20)
        expect = sum(1 << k for k in range(20) if x[w * 32 + k] > 0)
        np.testing.assert_array_equal(ballots[sel], expect)


@cuda.jit
def k_after_return(out, keep):
    if cuda.laneid >= keep:
        return
    out[cuda.grid(1)] = cuda.activemask()


@pytest.mark.parametrize("tpb, keep", [(64, 8), (40, 3), (40, 20)])
def test_returned_lanes_are_not_active(backend, tpb, keep):
    out = poisoned(tpb, np.uint32)
    k_after_return[1, tpb](out, keep)
    lane = np.arange(tpb) % 32
    expect = bits_below(keep) & lanes_of_warps(tpb)
    np.testing.assert_array_equal(out[lane < keep], expect[lane < keep].astype(np.uint32))
