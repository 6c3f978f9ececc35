// _core.Stream and _core.Event: CUDA streams and events for Python, and the
// one function that turns any stream-like Python value into a CUstream.
//
// A Stream is one of: a stream we created (cuda.stream(): blocking, like
// numba's, so that the legacy default stream orders with it), the default
// stream (handle 0), the legacy default stream (handle 1), the per-thread
// default stream (handle 2), or an external stream (a handle made by another
// library; not destroyed by us).  Streams and events remember the context
// generation they were made in: after cuda.close() using them raises a
// CudaDriverError instead of passing a stale handle to the driver.
//
// On the CPU executor streams and events exist and work: every operation is
// complete when it returns, so synchronize() does nothing and query() is
// True; events record a host timestamp (steady clock) for elapsed_time().
#pragma once

#include "Glue.h"

#include "runtime/CudaTypes.h"

#include <cstdint>

namespace pcj::rt {
class ExecutorStream;
class ExecutorEvent;
} // namespace pcj::rt

namespace pcj::py {

enum class StreamKind : int { Default, Legacy, PerThread, User, External };

struct StreamObject {
  PyObject_HEAD rt::CUstream handle; // what the stream operations get (the
                                     // executor's streamOfHandle; CPU: nullptr)
  rt::ExecutorStream *owned; // User streams (the executor's createStream)
  StreamKind kind;
  int device;
  uint64_t gen;   // context generation (User streams), else 0
  uint64_t value; // the handle as an int (a unique id for CPU User streams)
};

struct EventObject {
  PyObject_HEAD rt::ExecutorEvent *ev; // the executor's createEvent
};

bool addStreamTypes(PyObject *Module);
bool isStream(PyObject *O);

// The CUstream for a stream argument: None or 0 (the default stream), one of
// our Streams, an int handle, or another library's stream object
// (__cuda_stream__, .cuda_stream (torch), .ptr (CuPy), .handle (numba; an
// int or ctypes pointer)).  On the CPU executor the result is nullptr.
// Ours is set to our Stream object when O is one.  Throws PythonError
// (TypeError) for anything else and a CudaDriverError for a stream of a
// closed context.
rt::CUstream streamHandle(PyObject *O, StreamObject **Ours = nullptr);

// True for a stream argument meaning the default stream: absent (nullptr),
// None, or the int 0.
bool isDefaultStreamArg(PyObject *O);

// True when S is still usable (its context was not reset since).
bool streamAlive(const StreamObject *S);

// The value of O's handle as __cuda_array_interface__'s "stream" field
// wants it: None for the default stream (or None/0), else the int handle.
PyObject *streamFieldValue(PyObject *O);

} // namespace pcj::py
