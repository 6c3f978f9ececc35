// Host callbacks on streams: see StreamCallbacks.h.
#include "StreamCallbacks.h"

#include "PyExecutor.h"
#include "Streams.h"

namespace pcj::py {

namespace {

struct PendingCallback {
  Ref callback, stream, arg;
};

// callback(stream, 0, arg); its exception goes to sys.unraisablehook.
void callNow(PyObject *Callback, PyObject *Stream, PyObject *Arg) {
  PyObject *R = PyObject_CallFunction(Callback, "OiO", Stream, 0, Arg);
  if (R) {
    Py_DECREF(R);
    return;
  }
  PyErr_WriteUnraisable(Callback);
}

// On a driver thread (cuLaunchHostFunc), which may not call CUDA; on the
// CPU executor in the thread that queued it.
void runQueued(void *Data) {
  auto *P = static_cast<PendingCallback *>(Data);
  if (!Py_IsInitialized())
    return; // the interpreter is gone: nothing to call, nothing to free
  PyGILState_STATE G = PyGILState_Ensure();
  callNow(P->callback.get(), P->stream.get(), P->arg.get());
  delete P;
  PyGILState_Release(G);
}

} // namespace

PyObject *streamAddCallback(PyObject *Self, PyObject *Args, PyObject *Kw) {
  return guard([&]() -> PyObject * {
    static const char *Names[] = {"callback", "arg", nullptr};
    PyObject *Callback, *Arg = Py_None;
    if (!PyArg_ParseTupleAndKeywords(Args, Kw, "O|O:add_callback",
                                     const_cast<char **>(Names), &Callback,
                                     &Arg))
      return nullptr;
    if (!PyCallable_Check(Callback)) {
      PyErr_Format(PyExc_TypeError,
                   "add_callback(callback, arg=None): callback must be "
                   "callable as callback(stream, status, arg), not %R",
                   Callback);
      return nullptr;
    }
    // Raises when the stream's context was closed.
    rt::CUstream Handle = streamHandle(Self);
    auto *P = new PendingCallback{Ref::borrow(Callback), Ref::borrow(Self),
                                  Ref::borrow(Arg)};
    try {
      // CUDA: on a driver thread later; the CPU executor: now, here (the
      // GIL is held: runQueued's PyGILState_Ensure nests).
      executor().launchHostFunc(Handle, runQueued, P);
    } catch (...) {
      delete P;
      throw;
    }
    Py_RETURN_NONE;
  });
}

PyObject *streamAsyncDone(PyObject *Self, PyObject *) {
  return guard([&]() -> PyObject * {
    Ref Mod(check(PyImport_ImportModule("pycuda_jit.streams")));
    Ref Fn = getAttr(Mod.get(), "async_done");
    return PyObject_CallFunctionObjArgs(Fn.get(), Self, nullptr);
  });
}

} // namespace pcj::py
