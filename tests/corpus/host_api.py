"""Corpus: bad host API calls (allocations, copies, indexing, streams,
events, devices, interop, use after cuda.close()).  The call marked
`# <- error` must raise the expected exception."""
import numpy as np

from pycuda_jit import cuda, errors

from tests.corpus.cases import host


@cuda.jit
def double(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] *= 2


# ---- allocations ----------------------------------------------------------------------------

@host(ValueError)
def device_array_negative_size():
    cuda.device_array(-1, np.float32)  # <- error


@host(ValueError)
def device_array_negative_dim():
    cuda.device_array((2, -3), np.float32)  # <- error


@host(TypeError)
def device_array_object_dtype():
    cuda.device_array(8, dtype=object)  # <- error


@host(TypeError)
def device_array_big_endian_datetime_dtype():
    cuda.device_array(8, dtype=">M8[s]")  # <- error


@host(TypeError)
def device_array_big_endian_string_dtype():
    cuda.device_array(8, dtype=">U4")  # <- error


@host(TypeError)
def device_array_bad_dtype_name():
    cuda.device_array(8, dtype="floaty")  # <- error


@host(TypeError)
def device_array_float_shape():
    cuda.device_array(2.5, np.float32)  # <- error


@host((MemoryError, ValueError, OverflowError))
def device_array_size_overflows():
    cuda.device_array((2 ** 40, 2 ** 40), np.float64)  # <- error


@host(MemoryError)
def device_array_too_big():
    cuda.device_array(1 << 50, np.uint8)  # <- error


@host(TypeError)
def to_device_object_array():
    cuda.to_device(np.array([object(), 1]))  # <- error


@host(TypeError)
def to_device_big_endian_strings():
    cuda.to_device(np.array(["text"], ">U4"))  # <- error


@host(TypeError)
def to_device_none():
    cuda.to_device(None)  # <- error


@host(TypeError)
def to_device_big_endian_datetime_array():
    cuda.to_device(np.zeros(4, ">M8[D]"))  # <- error


@host(TypeError)
def device_array_like_number():
    cuda.device_array_like(42)  # <- error


@host(ValueError)
def pinned_array_negative():
    cuda.pinned_array(-5, np.float32)  # <- error


@host(TypeError)
def mapped_array_object_dtype():
    cuda.mapped_array(4, dtype=object)  # <- error


@host(TypeError)
def pinned_array_structured_object_field():
    cuda.pinned_array(4, dtype=[("a", "f8"), ("o", "O")])  # <- error


@host(TypeError)
def pinned_array_like_of_list():
    cuda.pinned_array_like([1.0, 2.0])  # <- error


@host(TypeError)
def as_cuda_array_of_host_array():
    cuda.as_cuda_array(np.ones(3))  # <- error


@host(TypeError)
def from_dlpack_of_int():
    cuda.from_dlpack(42)  # <- error


# ---- copies ---------------------------------------------------------------------------------

@host(ValueError, match="shape")
def copy_to_host_wrong_shape():
    d = cuda.to_device(np.zeros(8, np.float32))
    d.copy_to_host(np.zeros(7, np.float32))  # <- error


@host((TypeError, ValueError), match="dtype|type")
def copy_to_host_wrong_dtype():
    d = cuda.to_device(np.zeros(8, np.float32))
    d.copy_to_host(np.zeros(8, np.float64))  # <- error


@host(ValueError, match="shape")
def copy_to_device_wrong_shape():
    d = cuda.to_device(np.zeros(8, np.float32))
    d.copy_to_device(np.zeros((2, 4), np.float32))  # <- error


@host(ValueError)
def copy_to_device_from_smaller_device_array():
    d = cuda.to_device(np.zeros(8, np.float32))
    d.copy_to_device(cuda.to_device(np.zeros(4, np.float32)))  # <- error


@host((TypeError, ValueError))
def copy_to_device_from_string():
    d = cuda.to_device(np.zeros(8, np.float32))
    d.copy_to_device("abc")  # <- error


@host(ValueError)
def copy_to_host_read_only_destination():
    d = cuda.to_device(np.zeros(8, np.float32))
    dst = np.zeros(8, np.float32)
    dst.flags.writeable = False
    d.copy_to_host(dst)  # <- error


# ---- indexing and views -------------------------------------------------------------------------

@host(IndexError)
def index_out_of_range():
    d = cuda.to_device(np.zeros(8, np.float32))
    d[100]  # <- error


@host(IndexError)
def store_out_of_range():
    d = cuda.to_device(np.zeros(8, np.float32))
    d[-9] = 1.0  # <- error


@host(IndexError)
def too_many_indices():
    d = cuda.to_device(np.zeros(8, np.float32))
    d[0, 0]  # <- error


@host(ValueError)
def reshape_incompatible():
    d = cuda.to_device(np.zeros(8, np.float32))
    d.reshape(7)  # <- error


@host(ValueError)
def slice_step_zero():
    d = cuda.to_device(np.zeros(8, np.float32))
    d[::0]  # <- error


@host((TypeError, ValueError))
def setitem_string():
    d = cuda.to_device(np.zeros(8, np.float32))
    d[0] = "text"  # <- error


@host((TypeError, IndexError))
def index_with_float():
    d = cuda.to_device(np.zeros(8, np.float32))
    d[1.5]  # <- error


# ---- streams, events, devices -------------------------------------------------------------------

@host((TypeError, ValueError))
def copy_with_bad_stream():
    d = cuda.to_device(np.zeros(8, np.float32))
    d.copy_to_host(stream="stream")  # <- error


@host(TypeError)
def to_device_bad_stream():
    cuda.to_device(np.zeros(4), stream=object())  # <- error


@host(TypeError)
def event_wait_on_bad_stream():
    e = cuda.event()
    e.wait("stream")  # <- error


@host((ValueError, RuntimeError, errors.CudaDriverError))
def elapsed_time_unrecorded_events():
    a, b = cuda.event(), cuda.event()
    a.elapsed_time(b)  # <- error


@host((ValueError, IndexError, errors.CudaSupportError, errors.CudaDriverError))
def select_missing_device():
    cuda.select_device(99)  # <- error


@host(IndexError)
def gpus_index_out_of_range():
    cuda.gpus[99]  # <- error


@host(TypeError)
def synchronize_with_argument():
    cuda.synchronize(1)  # <- error


@host((TypeError, RuntimeError))
def device_function_called_on_host():
    f = cuda.jit(device=True)(lambda v: v)
    f(1.0)  # <- error


@host((TypeError, RuntimeError, AttributeError))
def intrinsic_called_on_host():
    cuda.syncthreads()  # <- error


# ---- after cuda.close() ---------------------------------------------------------------------------

@host((ValueError, RuntimeError, errors.CudaDriverError))
def array_after_close():
    d = cuda.to_device(np.arange(8, dtype=np.float32))
    cuda.close()
    d.copy_to_host()  # <- error


@host((ValueError, RuntimeError, errors.CudaDriverError))
def launch_with_array_from_closed_context():
    d = cuda.to_device(np.arange(8, dtype=np.float32))
    cuda.close()
    double[1, 8](d)  # <- error


@host((ValueError, RuntimeError, errors.CudaDriverError))
def stream_after_close():
    s = cuda.stream()
    cuda.close()
    s.synchronize()  # <- error


@host((ValueError, RuntimeError, errors.CudaDriverError))
def event_after_close():
    e = cuda.event()
    e.record()
    cuda.close()
    e.synchronize()  # <- error


@host((ValueError, RuntimeError, errors.CudaDriverError))
def setitem_after_close():
    d = cuda.to_device(np.arange(8, dtype=np.float32))
    cuda.close()
    d[0] = 1.0  # <- error


@host((ValueError, RuntimeError, errors.CudaDriverError))
def copy_into_array_after_close():
    d = cuda.to_device(np.arange(8, dtype=np.float32))
    cuda.close()
    d.copy_to_device(np.zeros(8, np.float32))  # <- error


@host((ValueError, RuntimeError, errors.CudaDriverError))
def launch_on_stream_after_close():
    s = cuda.stream()
    cuda.close()
    d = cuda.to_device(np.arange(8, dtype=np.float32))
    double[1, 8, s](d)  # <- error
