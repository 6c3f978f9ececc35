// Host callbacks on streams (numba-cuda's Stream.add_callback and
// Stream.async_done).  On a GPU, add_callback queues the callback with
// cuLaunchHostFunc: a driver thread calls callback(stream, 0, arg) (holding
// the GIL) once the work queued before it has completed, and later work on
// the stream waits for it.  On the CPU executor queued work is complete
// when queued, so the callback runs at once, in the calling thread: in the
// same order as on a GPU.  An exception from a callback goes to
// sys.unraisablehook on both (nothing else could receive it).  async_done()
// is pycuda_jit.streams.async_done(stream), built on add_callback.
//
//   s.add_callback(lambda stream, status, arg: print("done", arg), 42)
#pragma once

#include "Glue.h"

namespace pcj::py {

PyObject *streamAddCallback(PyObject *Self, PyObject *Args, PyObject *Kw);
PyObject *streamAsyncDone(PyObject *Self, PyObject *);

} // namespace pcj::py
