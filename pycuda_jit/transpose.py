"""``cuda.transpose(a, b=None)``: b = a.T for a 2-d device array of any
dtype (numbers, bool, records with array fields), computed on the device.

The element is moved as a whole number of unsigned words (the widest of 8,
4, 2 or 1 bytes that divides the item size, the strides and the
addresses), so one kernel per word size serves every dtype: the arrays are
seen as (rows, cols, words) of that word type.  Each block of 16 x 16
threads stages a 16 x 16 tile in shared memory (one padding column against
bank conflicts), so that both the reads and the writes of a warp touch
consecutive addresses.
"""
import numpy as np

from . import cuda

__all__ = ["transpose"]

_TILE = 16
_kernels = {}


def _kernel(word):
    """The transpose kernel for words of numpy type ``word``:
    kernel(src (R, C, W), dst (C, R, W))."""
    kernel = _kernels.get(word)
    if kernel is not None:
        return kernel
    TILE = _TILE

    @cuda.jit
    def transpose_words(src, dst):
        tile = cuda.shared.array((TILE, TILE + 1), word)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        col0 = cuda.blockIdx.x * TILE
        row0 = cuda.blockIdx.y * TILE
        rows = src.shape[0]
        cols = src.shape[1]
        for w in range(src.shape[2]):
            if row0 + ty < rows and col0 + tx < cols:
                tile[ty, tx] = src[row0 + ty, col0 + tx, w]
            cuda.syncthreads()
            # dst[col0 + ty, row0 + tx] = src[row0 + tx, col0 + ty]
            if col0 + ty < cols and row0 + tx < rows:
                dst[col0 + ty, row0 + tx, w] = tile[tx, ty]
            cuda.syncthreads()

    return _kernels.setdefault(word, transpose_words)


def _word_size(*arrays):
    for size in (8, 4, 2, 1):
        if all(a.dtype.itemsize % size == 0 and a.device_ctypes_pointer_value % size == 0
               and all(s % size == 0 for s in a.strides) for a in arrays):
            return size
    return 1


def _as_words(array, word):
    from .devicearray import DeviceNDArray
    size = np.dtype(word).itemsize
    return DeviceNDArray(tuple(array.shape) + (array.dtype.itemsize // size,),
                         tuple(array.strides) + (size,), word, array._owner,
                         array.device_ctypes_pointer_value, array.stream)


def transpose(a, b=None):
    """Write the transpose of the 2-d device array ``a`` into ``b`` (a new
    device array on ``a``'s stream when None) and return ``b``; the launch
    is asynchronous on ``a``'s stream."""
    from .devicearray import DeviceNDArray, device_array
    if not isinstance(a, DeviceNDArray):
        a = cuda.as_cuda_array(a)
    if a.ndim != 2:
        raise ValueError(f"transpose needs a 2-d array, not {a.ndim}-d")
    if b is None:
        b = device_array(a.shape[::-1], a.dtype, stream=a.stream)
    elif not isinstance(b, DeviceNDArray):
        b = cuda.as_cuda_array(b)
    if tuple(b.shape) != tuple(a.shape[::-1]):
        raise ValueError(f"transpose: the output's shape {tuple(b.shape)} is not "
                         f"{tuple(a.shape[::-1])}")
    if b.dtype != a.dtype:
        raise TypeError(f"transpose: the output's dtype {b.dtype} is not {a.dtype}")
    if a.size == 0:
        return b
    word = np.dtype(f"u{_word_size(a, b)}").type
    rows, cols = a.shape
    grid = ((cols + _TILE - 1) // _TILE, (rows + _TILE - 1) // _TILE)
    _kernel(word)[grid, (_TILE, _TILE), a.stream](_as_words(a, word), _as_words(b, word))
    return b
