"""Host API: streams and events (numba-cuda names).

The objects are C++ types (_core.Stream, _core.Event; see
pycuda_jit/_core_src/Streams.cpp).  ``kernel[grid, block, stream]`` takes
them, as well as other libraries' stream objects (__cuda_stream__,
CuPy's ``.ptr``, torch's ``.cuda_stream``, numba's ``.handle``).  On the CPU
executor they exist and work: operations complete before returning, events
record a host timestamp.
"""
from ._lazy import core

__all__ = [
    "stream", "default_stream", "legacy_default_stream", "per_thread_default_stream",
    "external_stream", "event", "event_elapsed_time",
]


def _core():
    from . import cuda
    cuda.backend()
    return core()


def stream():
    """A new CUDA stream (blocking with respect to the legacy default stream,
    like numba's)."""
    return _core().Stream()


def default_stream():
    """The default stream (handle 0: the legacy default stream)."""
    return _core().Stream("default")


def legacy_default_stream():
    """The legacy default stream (handle 1, CU_STREAM_LEGACY)."""
    return _core().Stream("legacy_default")


def per_thread_default_stream():
    """The per-thread default stream (handle 2, CU_STREAM_PER_THREAD)."""
    return _core().Stream("per_thread_default")


def external_stream(ptr):
    """Wrap a stream created elsewhere (an int CUstream handle); it is never
    destroyed by pycuda_jit."""
    return _core().Stream("external", int(ptr))


def event(timing=True):
    """A CUDA event; ``timing=False`` events cannot be timed."""
    return _core().Event(timing)


def event_elapsed_time(evtstart, evtend):
    """Milliseconds between two recorded, completed events."""
    return evtstart.elapsed_time(evtend)


def async_done(stream):
    """``stream.async_done()``: an asyncio future, of the running event loop
    (else the current one), that completes with ``stream`` once the work
    queued on it so far has completed (``await stream.async_done()``)."""
    import asyncio
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        loop = asyncio.get_event_loop_policy().get_event_loop()
    future = loop.create_future()

    def finish():
        if not future.done():
            future.set_result(stream)

    def on_done(_stream, _status, _arg):
        loop.call_soon_threadsafe(finish)

    stream.add_callback(on_done)
    return future
