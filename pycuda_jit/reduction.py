"""``cuda.reduce`` / ``cuda.Reduce``: reduce a 1-d array with a binary
device function, on the device.

``cuda.Reduce(lambda a, b: a + b)(arr)`` computes ``op(...op(op(init, a0),
a1)..., an)`` (``init`` 0 unless given), like ``functools.reduce(op, arr,
init)`` but in parallel, so ``op`` must be associative; it need not be
commutative: every combination keeps the elements' order.

The kernel (written in the kernel language, generated per dtype with the
user's function as a device function) splits the array into tiles of 256
elements; each warp takes a contiguous run of tiles.  A warp loads a tile
with coalesced loads into shared memory, each lane combines its 8
consecutive elements, then the 32 lane values are combined in a tree that
pairs neighbours (lane 0 ends with the tile's value, in order), and lane 0
folds the tile into the warp's running value.  Thread 0 of a block
combines its warps' values in order into one value per block; a second
launch of the same kernel with one block combines the blocks' values and
``init``.  The per-block values and the result (one element of mapped host
memory, read in place after the stream synchronizes) are buffers reused
by later reductions of the same host thread on the default stream.
"""
import threading

import numpy as np

from . import cuda
from . import devices as _devices

__all__ = ["Reduce", "reduce"]

_WARPS = 8            # warps per block
_PER_LANE = 8         # consecutive elements each lane combines per tile
_TILE = 32 * _PER_LANE
_THREADS = 32 * _WARPS


def _reduce_kernel(op, dtype):
    """The reduction kernel for a binary device function and a dtype:
    kernel(arr, out, init, use_init) writes block b's value to out[b]
    (combined with init first when use_init and there is one block)."""
    T = dtype.type
    WARPS, K, TILE = _WARPS, _PER_LANE, _TILE
    assert K == 8, "the full-tile loads below are written out for 8 per lane"
    PADDED = TILE + K  # one padding element per 32 avoids bank conflicts

    @cuda.jit(device=True, inline="always")
    def combine(a, b):
        return T(op(a, b))

    @cuda.jit(device=True, inline="always")
    def warp_tree(lanes, warp, lane, count):
        """Combine lanes[warp, 0:count] in order into lanes[warp, 0]."""
        off = 1
        while off < 32:
            if (lane & (2 * off - 1)) == 0 and lane + off < count:
                lanes[warp, lane] = combine(lanes[warp, lane], lanes[warp, lane + off])
            cuda.syncwarp()
            off *= 2
        return lanes[warp, 0]

    @cuda.jit
    def reduce_kernel(arr, out, init, use_init):
        n = arr.shape[0]
        lane = cuda.threadIdx.x & 31
        warp = cuda.threadIdx.x >> 5
        stage = cuda.shared.array((WARPS, PADDED), T)
        lanes = cuda.shared.array((WARPS, 32), T)
        warp_value = cuda.shared.array(WARPS, T)
        warp_has = cuda.shared.array(WARPS, np.int32)

        tiles = (n + TILE - 1) // TILE
        full_tiles = n // TILE
        warps = cuda.gridDim.x * WARPS
        me = cuda.blockIdx.x * WARPS + warp
        t = tiles * me // warps
        stop = tiles * (me + 1) // warps
        acc = T(0)
        has = False
        while t < stop:
            base = t * TILE
            count = n - base
            if t < full_tiles:
                # Eight loads in flight before the first store.
                src = base + lane
                x0 = arr[src]
                x1 = arr[src + 32]
                x2 = arr[src + 64]
                x3 = arr[src + 96]
                x4 = arr[src + 128]
                x5 = arr[src + 160]
                x6 = arr[src + 192]
                x7 = arr[src + 224]
                stage[warp, lane] = x0
                stage[warp, lane + 33] = x1
                stage[warp, lane + 66] = x2
                stage[warp, lane + 99] = x3
                stage[warp, lane + 132] = x4
                stage[warp, lane + 165] = x5
                stage[warp, lane + 198] = x6
                stage[warp, lane + 231] = x7
                cuda.syncwarp()
                row = lane * K + (lane >> 2)  # element lane * K, padded
                v = stage[warp, row]
                for k in range(1, K):
                    v = combine(v, stage[warp, row + k])
                lanes[warp, lane] = v
                cuda.syncwarp()
                v = warp_tree(lanes, warp, lane, 32)
            else:
                for j in range(K):
                    if j * 32 + lane < count:
                        stage[warp, j * 33 + lane] = arr[base + j * 32 + lane]
                cuda.syncwarp()
                first = lane * K
                mine = min(K, count - first)
                v = T(0)
                if mine > 0:
                    row = first + (lane >> 2)
                    v = stage[warp, row]
                    for k in range(1, mine):
                        v = combine(v, stage[warp, row + k])
                lanes[warp, lane] = v
                cuda.syncwarp()
                v = warp_tree(lanes, warp, lane, (count + K - 1) // K)
            if lane == 0:
                acc = combine(acc, v) if has else v
                has = True
            t += 1
        if lane == 0:
            warp_value[warp] = acc
            warp_has[warp] = 1 if has else 0
        cuda.syncthreads()
        if cuda.threadIdx.x == 0:
            result = T(0)
            got = False
            for w in range(WARPS):
                if warp_has[w] != 0:
                    result = combine(result, warp_value[w]) if got else warp_value[w]
                    got = True
            if use_init and cuda.gridDim.x == 1:
                result = combine(T(init), result)
            out[cuda.blockIdx.x] = result

    return reduce_kernel


_blocks_per_device = {}


def _max_blocks():
    """Blocks of the first pass: as many as the device keeps resident (on
    the CPU executor its "multiprocessors" are the worker threads)."""
    dev = cuda.get_current_device()
    blocks = _blocks_per_device.get(dev.id)
    if blocks is None:
        per_sm = max(1, dev.MAX_THREADS_PER_MULTIPROCESSOR // _THREADS)
        blocks = _blocks_per_device[dev.id] = dev.MULTIPROCESSOR_COUNT * per_sm
    return blocks


def _device_input(arr, stream):
    """(device array, True) for anything a kernel reads in place; a host
    array is copied to the device."""
    from .devicearray import DeviceNDArray
    if isinstance(arr, DeviceNDArray):
        return arr
    if cuda.is_cuda_array(arr):
        return cuda.as_cuda_array(arr)
    return cuda.to_device(np.asarray(arr), stream=stream)


class Reduce:
    """A reduction with a binary function: ``Reduce(op)(arr, size=None,
    res=None, init=0, stream=0)``.  ``op`` (a Python function or a device
    function, compiled as a device function for the array's dtype) must be
    associative; the result is ``op(...op(op(init, arr[0]), arr[1])...)``.
    The compiled kernels are kept in the object."""

    def __init__(self, functor):
        if not callable(functor):
            raise TypeError(f"Reduce needs a binary function, not {functor!r}")
        self._functor = functor
        self._op = functor if hasattr(functor, "_pcj_device_function_") \
            else cuda.jit(device=True, inline="always")(functor)
        self._kernels = {}

    def _kernel(self, dtype):
        k = self._kernels.get(dtype)
        if k is None:
            if dtype.fields is not None or dtype.kind not in "biufc":
                raise TypeError(f"cannot reduce arrays of dtype {dtype}")
            k = self._kernels[dtype] = _reduce_kernel(self._op, dtype)
        return k

    def __call__(self, arr, size=None, res=None, init=0, stream=0):
        """Reduce the 1-d host or device array ``arr`` (its first ``size``
        elements).  Returns the result, or writes it to ``res[0]`` (a device
        array: nothing is copied to the host) and returns None."""
        if len(arr.shape) != 1:
            raise TypeError("only support 1D array")
        dev = _device_input(arr if size is None else arr[:size], stream)
        dtype = np.dtype(dev.dtype)
        init = dtype.type(init)
        return _run(self._kernel(dtype), dev, res, init, True, stream)


def _run(kernel, arr, res, init, use_init, stream):
    n = arr.shape[0]
    # Launches take no complex64 scalars: init goes in as complex128 (exact)
    # and the kernel converts it back.
    arg_init = np.complex128(init) if init.dtype == np.complex64 else init
    if n == 0:
        if res is not None:
            res[:1] = init
            return None
        return init
    blocks = min(-(-n // _TILE), _max_blocks())
    if stream:  # fresh buffers: work on two streams may overlap
        out = res if res is not None else cuda.device_array(1, arr.dtype, stream=stream)
        partials = cuda.device_array(blocks, arr.dtype, stream=stream) if blocks > 1 else None
    else:
        scratch = _scratch(arr.dtype, blocks)
        out = res if res is not None else scratch.result
        partials = scratch.partials[:blocks] if blocks > 1 else None
    if blocks == 1:
        kernel[1, _THREADS, stream](arr, out, arg_init, use_init)
    else:
        kernel[blocks, _THREADS, stream](arr, partials, arg_init, False)
        kernel[1, _THREADS, stream](partials, out, arg_init, use_init)
    if res is not None:
        return None
    if stream:
        host = np.empty(1, arr.dtype)
        out.copy_to_host(host, stream=stream)
        stream.synchronize()
        return host[0]
    # The result lies in mapped (page-locked, device-visible) host memory:
    # once the stream is done it is read in place, without a copy.
    cuda.default_stream().synchronize()
    return out[0]


class _Scratch:
    """The default stream's buffers of one host thread and dtype: room for
    the first pass's per-block values (device memory) and the result (one
    element of mapped host memory)."""

    def __init__(self, dtype, blocks):
        self.partials = cuda.device_array(blocks, dtype)
        self.result = cuda.mapped_array(1, dtype)


_scratch_cache = {}
_devices._close_hooks.append(_scratch_cache.clear)


def _scratch(dtype, blocks):
    """Buffers for a reduction on the default stream, kept per (device,
    host thread, dtype) and reused: the launches of one thread on that
    stream run in order, so a reuse cannot overlap the previous reduction
    (whose result was read before it returned).  They grow to the largest
    number of blocks seen (at most the device's resident blocks)."""
    key = (cuda.get_current_device().id, threading.get_ident(), dtype)
    buffers = _scratch_cache.get(key)
    if buffers is None or buffers.partials.shape[0] < blocks:
        buffers = _scratch_cache[key] = _Scratch(dtype, max(blocks, 1))
    return buffers


reduce = Reduce
