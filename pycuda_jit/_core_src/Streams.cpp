// Stream and Event extension types (see Streams.h).
#include "Streams.h"

#include "PyExecutor.h"
#include "StreamCallbacks.h"

#include "runtime/Errors.h"
#include "runtime/Executor.h"

#include <cstdio>
#include <cstring>

namespace pcj::py {

namespace {

PyTypeObject *StreamType = nullptr;
PyTypeObject *EventType = nullptr;

const char *kindName(StreamKind K) {
  switch (K) {
  case StreamKind::Default:
    return "default";
  case StreamKind::Legacy:
    return "legacy_default";
  case StreamKind::PerThread:
    return "per_thread_default";
  case StreamKind::User:
    return "user";
  case StreamKind::External:
    return "external";
  }
  return "?";
}

template <typename T> T *allocObject(PyTypeObject *Type) {
  auto *Alloc = reinterpret_cast<PyObject *(*)(PyTypeObject *, Py_ssize_t)>(
      PyType_GetSlot(Type, Py_tp_alloc));
  return reinterpret_cast<T *>(Alloc(Type, 0));
}

void freeObject(PyObject *O) {
  PyTypeObject *T = Py_TYPE(O);
  auto *Free = reinterpret_cast<freefunc>(PyType_GetSlot(T, Py_tp_free));
  Free(O);
  Py_DECREF(T);
}

void requireStreamAlive(const StreamObject *S) {
  if (streamAlive(S)) [[likely]]
    return;
  requireAlive(S->device, S->gen, "this stream");
}

// ---- Stream
// --------------------------------------------------------------------

// Stream(kind="user", handle=0)
PyObject *streamNew(PyTypeObject *T, PyObject *Args, PyObject *Kw) {
  return guard([&]() -> PyObject * {
    const char *Kind = "user";
    unsigned long long Handle = 0;
    static const char *Names[] = {"kind", "handle", nullptr};
    if (!PyArg_ParseTupleAndKeywords(
            Args, Kw, "|sK", const_cast<char **>(Names), &Kind, &Handle))
      return nullptr;
    StreamKind K;
    std::string Name = Kind;
    if (Name == "user")
      K = StreamKind::User;
    else if (Name == "default")
      K = StreamKind::Default;
    else if (Name == "legacy_default")
      K = StreamKind::Legacy;
    else if (Name == "per_thread_default")
      K = StreamKind::PerThread;
    else if (Name == "external")
      K = StreamKind::External;
    else {
      PyErr_Format(PyExc_ValueError, "unknown stream kind '%s'", Kind);
      return nullptr;
    }
    if (K == StreamKind::External && Handle == 0) {
      PyErr_SetString(PyExc_ValueError,
                      "external_stream needs a non-null stream handle (use "
                      "default_stream() for the default stream)");
      return nullptr;
    }
    rt::Executor &E = executor();
    std::unique_ptr<rt::ExecutorStream> Owned;
    int Device = 0;
    uint64_t Gen = 0, Value = 0;
    switch (K) {
    case StreamKind::Default:
      Value = 0;
      break;
    case StreamKind::Legacy:
      Value = 1;
      break;
    case StreamKind::PerThread:
      Value = 2;
      break;
    case StreamKind::External:
      Value = Handle;
      break;
    case StreamKind::User:
      // Blocking (CU_STREAM_DEFAULT) like numba's streams: work on the
      // legacy default stream (synchronous copies) orders with it.
      Owned = E.createStream(/*NonBlocking=*/false);
      Device = Owned->device();
      Gen = Owned->generation();
      Value = Owned->value();
      break;
    }
    auto *S = allocObject<StreamObject>(T);
    if (!S)
      return nullptr;
    S->owned = Owned.release();
    S->kind = K;
    S->device = Device;
    S->gen = Gen;
    S->value = Value;
    S->handle = E.streamOfHandle(Value);
    return reinterpret_cast<PyObject *>(S);
  });
}

void streamDealloc(PyObject *O) {
  auto *S = reinterpret_cast<StreamObject *>(O);
  delete S->owned; // never throws; skips streams of a reset context
  S->owned = nullptr;
  freeObject(O);
}

PyObject *streamSynchronize(PyObject *O, PyObject *) {
  return guard([&]() -> PyObject * {
    auto *S = reinterpret_cast<StreamObject *>(O);
    requireStreamAlive(S);
    rt::Executor &E = executor();
    rt::CUstream H = S->handle;
    std::exception_ptr Err;
    Py_BEGIN_ALLOW_THREADS try { E.synchronizeStream(H); } catch (...) {
      Err = std::current_exception();
    }
    Py_END_ALLOW_THREADS if (Err) std::rethrow_exception(Err);
    Py_RETURN_NONE;
  });
}

PyObject *streamQuery(PyObject *O, PyObject *) {
  return guard([&]() -> PyObject * {
    auto *S = reinterpret_cast<StreamObject *>(O);
    requireStreamAlive(S);
    return PyBool_FromLong(executor().queryStream(S->handle));
  });
}

PyObject *streamSelf(PyObject *O, PyObject *) {
  Py_INCREF(O);
  return O;
}

PyObject *streamExit(PyObject *O, PyObject *) {
  PyObject *R = streamSynchronize(O, nullptr);
  if (!R)
    return nullptr;
  Py_DECREF(R);
  Py_RETURN_FALSE;
}

PyObject *streamCudaStream(PyObject *O, PyObject *) {
  auto *S = reinterpret_cast<StreamObject *>(O);
  return Py_BuildValue("(iK)", 0, (unsigned long long)S->value);
}

PyObject *streamGetHandle(PyObject *O, void *) {
  return PyLong_FromUnsignedLongLong(
      reinterpret_cast<StreamObject *>(O)->value);
}

PyObject *streamGetKind(PyObject *O, void *) {
  return PyUnicode_FromString(
      kindName(reinterpret_cast<StreamObject *>(O)->kind));
}

PyObject *streamGetDevice(PyObject *O, void *) {
  return PyLong_FromLong(reinterpret_cast<StreamObject *>(O)->device);
}

PyObject *streamInt(PyObject *O) { return streamGetHandle(O, nullptr); }

PyObject *streamRepr(PyObject *O) {
  auto *S = reinterpret_cast<StreamObject *>(O);
  char Buf[96];
  std::snprintf(Buf, sizeof Buf, "<pycuda_jit stream %s handle=0x%llx>",
                kindName(S->kind), (unsigned long long)S->value);
  return PyUnicode_FromString(Buf);
}

Py_hash_t streamHash(PyObject *O) {
  auto *S = reinterpret_cast<StreamObject *>(O);
  Py_hash_t H =
      Py_hash_t(S->value * 1000003u ^ S->gen ^ (uint64_t(S->kind) << 56));
  return H == -1 ? -2 : H;
}

PyObject *streamRichCompare(PyObject *A, PyObject *B, int Op) {
  if ((Op != Py_EQ && Op != Py_NE) || !isStream(B))
    Py_RETURN_NOTIMPLEMENTED;
  auto *X = reinterpret_cast<StreamObject *>(A);
  auto *Y = reinterpret_cast<StreamObject *>(B);
  bool Eq = X->kind == Y->kind && X->value == Y->value && X->gen == Y->gen;
  return PyBool_FromLong(Op == Py_EQ ? Eq : !Eq);
}

PyMethodDef StreamMethods[] = {
    {"synchronize", streamSynchronize, METH_NOARGS,
     "Wait until all work queued on the stream has completed."},
    {"query", streamQuery, METH_NOARGS,
     "True when all work queued on the stream has completed."},
    {"auto_synchronize", streamSelf, METH_NOARGS,
     "Context manager: `with stream.auto_synchronize():` synchronizes the "
     "stream on exit."},
    {"__enter__", streamSelf, METH_NOARGS, nullptr},
    {"__exit__", streamExit, METH_VARARGS, nullptr},
    {"__cuda_stream__", streamCudaStream, METH_NOARGS,
     "(version, handle): the CUDA stream protocol."},
    {"add_callback",
     reinterpret_cast<PyCFunction>(
         reinterpret_cast<void (*)()>(streamAddCallback)),
     METH_VARARGS | METH_KEYWORDS,
     "add_callback(callback, arg=None): callback(stream, status, arg) once "
     "the work queued before it has completed (StreamCallbacks.h)."},
    {"async_done", streamAsyncDone, METH_NOARGS,
     "An asyncio future done (with the stream) once the work queued so far "
     "has completed."},
    {nullptr, nullptr, 0, nullptr}};

PyGetSetDef StreamGetSet[] = {
    {"handle", streamGetHandle, nullptr, "The CUstream handle as an int.",
     nullptr},
    {"kind", streamGetKind, nullptr, nullptr, nullptr},
    {"device_id", streamGetDevice, nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyType_Slot StreamSlots[] = {
    {Py_tp_new, reinterpret_cast<void *>(streamNew)},
    {Py_tp_dealloc, reinterpret_cast<void *>(streamDealloc)},
    {Py_tp_methods, StreamMethods},
    {Py_tp_getset, StreamGetSet},
    {Py_tp_repr, reinterpret_cast<void *>(streamRepr)},
    {Py_tp_hash, reinterpret_cast<void *>(streamHash)},
    {Py_tp_richcompare, reinterpret_cast<void *>(streamRichCompare)},
    {Py_nb_int, reinterpret_cast<void *>(streamInt)},
    {Py_nb_index, reinterpret_cast<void *>(streamInt)},
    {Py_tp_doc, const_cast<char *>("A CUDA stream (cuda.stream(), "
                                   "cuda.default_stream(), ...).")},
    {0, nullptr}};

PyType_Spec StreamSpec = {"pycuda_jit._core.Stream", sizeof(StreamObject), 0,
                          Py_TPFLAGS_DEFAULT, StreamSlots};

// ---- Event
// ---------------------------------------------------------------------

void requireEventAlive(const EventObject *E) {
  if (!E->ev->alive())
    rt::throwDriverError(rt::CUDA_ERROR_CONTEXT_IS_DESTROYED, "pycuda_jit",
                         "this event belongs to a CUDA context that "
                         "cuda.close() destroyed");
}

PyObject *eventNew(PyTypeObject *T, PyObject *Args, PyObject *Kw) {
  return guard([&]() -> PyObject * {
    int Timing = 1;
    static const char *Names[] = {"timing", nullptr};
    if (!PyArg_ParseTupleAndKeywords(Args, Kw, "|p", const_cast<char **>(Names),
                                     &Timing))
      return nullptr;
    std::unique_ptr<rt::ExecutorEvent> Ev = executor().createEvent(Timing != 0);
    auto *E = allocObject<EventObject>(T);
    if (!E)
      return nullptr;
    E->ev = Ev.release();
    return reinterpret_cast<PyObject *>(E);
  });
}

void eventDealloc(PyObject *O) {
  auto *E = reinterpret_cast<EventObject *>(O);
  delete E->ev;
  E->ev = nullptr;
  freeObject(O);
}

PyObject *streamArg(PyObject *Args, PyObject *Kw, rt::CUstream &Out) {
  PyObject *S = nullptr;
  static const char *Names[] = {"stream", nullptr};
  if (!PyArg_ParseTupleAndKeywords(Args, Kw, "|O", const_cast<char **>(Names),
                                   &S))
    return nullptr;
  Out = streamHandle(S);
  return Py_None;
}

PyObject *eventRecord(PyObject *O, PyObject *Args, PyObject *Kw) {
  return guard([&]() -> PyObject * {
    auto *E = reinterpret_cast<EventObject *>(O);
    rt::CUstream S = nullptr;
    if (!streamArg(Args, Kw, S))
      return nullptr;
    requireEventAlive(E);
    E->ev->record(S);
    Py_RETURN_NONE;
  });
}

PyObject *eventSynchronize(PyObject *O, PyObject *) {
  return guard([&]() -> PyObject * {
    auto *E = reinterpret_cast<EventObject *>(O);
    requireEventAlive(E);
    rt::ExecutorEvent *Ev = E->ev;
    std::exception_ptr Err;
    Py_BEGIN_ALLOW_THREADS try { Ev->synchronize(); } catch (...) {
      Err = std::current_exception();
    }
    Py_END_ALLOW_THREADS if (Err) std::rethrow_exception(Err);
    Py_RETURN_NONE;
  });
}

PyObject *eventWait(PyObject *O, PyObject *Args, PyObject *Kw) {
  return guard([&]() -> PyObject * {
    auto *E = reinterpret_cast<EventObject *>(O);
    rt::CUstream S = nullptr;
    if (!streamArg(Args, Kw, S))
      return nullptr;
    requireEventAlive(E);
    E->ev->waitOn(S);
    Py_RETURN_NONE;
  });
}

PyObject *eventQuery(PyObject *O, PyObject *) {
  return guard([&]() -> PyObject * {
    auto *E = reinterpret_cast<EventObject *>(O);
    requireEventAlive(E);
    return PyBool_FromLong(E->ev->query());
  });
}

PyObject *eventElapsed(PyObject *O, PyObject *End) {
  return guard([&]() -> PyObject * {
    auto *A = reinterpret_cast<EventObject *>(O);
    if (!PyObject_TypeCheck(End, EventType)) {
      PyErr_SetString(PyExc_TypeError, "elapsed_time() needs another event");
      return nullptr;
    }
    auto *B = reinterpret_cast<EventObject *>(End);
    requireEventAlive(A);
    requireEventAlive(B);
    return PyFloat_FromDouble(executor().elapsedMs(*A->ev, *B->ev));
  });
}

PyObject *eventGetHandle(PyObject *O, void *) {
  auto *E = reinterpret_cast<EventObject *>(O);
  return PyLong_FromUnsignedLongLong(E->ev->handle());
}

PyObject *eventGetTiming(PyObject *O, void *) {
  return PyBool_FromLong(reinterpret_cast<EventObject *>(O)->ev->timing());
}

PyMethodDef EventMethods[] = {
    {"record",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(eventRecord)),
     METH_VARARGS | METH_KEYWORDS,
     "record(stream=0): record the event on a stream."},
    {"synchronize", eventSynchronize, METH_NOARGS,
     "Wait until the work before the last record() has completed."},
    {"wait",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(eventWait)),
     METH_VARARGS | METH_KEYWORDS,
     "wait(stream=0): make later work on the stream wait for this event."},
    {"query", eventQuery, METH_NOARGS,
     "True when the work before the last record() has completed."},
    {"elapsed_time", eventElapsed, METH_O,
     "elapsed_time(end): milliseconds from this event to `end`."},
    {nullptr, nullptr, 0, nullptr}};

PyGetSetDef EventGetSet[] = {
    {"handle", eventGetHandle, nullptr, nullptr, nullptr},
    {"timing", eventGetTiming, nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyType_Slot EventSlots[] = {
    {Py_tp_new, reinterpret_cast<void *>(eventNew)},
    {Py_tp_dealloc, reinterpret_cast<void *>(eventDealloc)},
    {Py_tp_methods, EventMethods},
    {Py_tp_getset, EventGetSet},
    {Py_tp_doc, const_cast<char *>("A CUDA event (cuda.event(timing=True)).")},
    {0, nullptr}};

PyType_Spec EventSpec = {"pycuda_jit._core.Event", sizeof(EventObject), 0,
                         Py_TPFLAGS_DEFAULT, EventSlots};

// A foreign handle attribute: an int, or a ctypes pointer (numba) with .value.
bool handleFromValue(PyObject *V, uint64_t &Out) {
  if (V == Py_None) {
    Out = 0;
    return true;
  }
  if (PyLong_Check(V)) {
    Out = PyLong_AsUnsignedLongLong(V);
    if (PyErr_Occurred())
      throw PythonError{};
    return true;
  }
  if (Ref Inner = getAttrOpt(V, "value"))
    return handleFromValue(Inner.get(), Out);
  return false;
}

} // namespace

bool addStreamTypes(PyObject *Module) {
  StreamType = reinterpret_cast<PyTypeObject *>(PyType_FromSpec(&StreamSpec));
  EventType = reinterpret_cast<PyTypeObject *>(PyType_FromSpec(&EventSpec));
  if (!StreamType || !EventType)
    return false;
  Py_INCREF(StreamType);
  Py_INCREF(EventType);
  return PyModule_AddObject(Module, "Stream",
                            reinterpret_cast<PyObject *>(StreamType)) == 0 &&
         PyModule_AddObject(Module, "Event",
                            reinterpret_cast<PyObject *>(EventType)) == 0;
}

bool isStream(PyObject *O) { return PyObject_TypeCheck(O, StreamType); }

bool isDefaultStreamArg(PyObject *O) {
  if (!O || O == Py_None)
    return true;
  if (!PyLong_Check(O))
    return false;
  int Overflow = 0;
  long long V = PyLong_AsLongLongAndOverflow(O, &Overflow);
  if (V == -1 && PyErr_Occurred())
    PyErr_Clear();
  return !Overflow && V == 0;
}

bool streamAlive(const StreamObject *S) {
  return !S->owned || S->owned->alive();
}

rt::CUstream streamHandle(PyObject *O, StreamObject **Ours) {
  if (Ours)
    *Ours = nullptr;
  if (!O || O == Py_None)
    return nullptr;
  if (isStream(O)) {
    auto *S = reinterpret_cast<StreamObject *>(O);
    requireStreamAlive(S);
    if (Ours)
      *Ours = S;
    return S->handle;
  }
  uint64_t H = 0;
  bool Found = false;
  if (PyLong_Check(O)) {
    Found = handleFromValue(O, H);
  } else if (Ref F = getAttrOpt(O, "__cuda_stream__")) {
    Ref R = check(PyObject_CallObject(F.get(), nullptr));
    if (!PyTuple_Check(R.get()) || PyTuple_Size(R.get()) != 2) {
      PyErr_SetString(PyExc_TypeError,
                      "__cuda_stream__() must return (version, handle)");
      throw PythonError{};
    }
    Found = handleFromValue(PyTuple_GetItem(R.get(), 1), H);
  } else {
    for (const char *Attr : {"cuda_stream", "ptr", "handle"})
      if (Ref V = getAttrOpt(O, Attr)) {
        Found = handleFromValue(V.get(), H);
        if (Found)
          break;
      }
  }
  if (!Found) {
    PyErr_Format(
        PyExc_TypeError,
        "a stream must be 0, None, a pycuda_jit stream (cuda.stream()) "
        "or another library's CUDA stream object, not %s",
        typeName(O).c_str());
    throw PythonError{};
  }
  return executor().streamOfHandle(H);
}

PyObject *streamFieldValue(PyObject *O) {
  if (!O || O == Py_None)
    Py_RETURN_NONE;
  uint64_t V = 0;
  if (isStream(O))
    V = reinterpret_cast<StreamObject *>(O)->value;
  else
    V = uint64_t(reinterpret_cast<uintptr_t>(streamHandle(O)));
  // The CPU executor's streams are no handles (None, as the default's).
  if (V == 0 || !executor().streamOfHandle(V))
    Py_RETURN_NONE;
  return PyLong_FromUnsignedLongLong(V);
}

} // namespace pcj::py
