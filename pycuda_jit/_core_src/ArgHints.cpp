// Launches with cuda.In / Out / InOut arguments (see ArgHints.h).  Only the
// launch path's error branch comes here: an argument that is not a kernel
// value made classifyArg fail, and if it is a hint the launch is redone in
// Python with the hint's device array; ordinary launches never pay for it.
#include "ArgHints.h"

namespace pcj::py {

bool launchWithHints(PyObject *Launcher, PyObject *Stream,
                     PyObject *const *Argv, Py_ssize_t N, PyObject *&Result) {
  // The classify error stays pending unless a hint takes over.
  PyObject *Type, *Value, *Trace;
  PyErr_Fetch(&Type, &Value, &Trace);
  bool AnyHint = false;
  for (Py_ssize_t K = 0; K < N && !AnyHint; ++K)
    AnyHint = getAttrOpt(Argv[K], "_pcj_arg_hint_").get() != nullptr;
  if (!AnyHint) {
    PyErr_Restore(Type, Value, Trace);
    return false;
  }
  Py_XDECREF(Type);
  Py_XDECREF(Value);
  Py_XDECREF(Trace);
  Result = nullptr;
  Ref Args(PyTuple_New(N));
  if (!Args)
    return true;
  for (Py_ssize_t K = 0; K < N; ++K) {
    Py_INCREF(Argv[K]);
    PyTuple_SetItem(Args.get(), K, Argv[K]);
  }
  Ref Module(PyImport_ImportModule("pycuda_jit.args"));
  Ref Fn(Module ? PyObject_GetAttrString(Module.get(), "launch_with_hints")
                : nullptr);
  if (Fn)
    Result = PyObject_CallFunctionObjArgs(
        Fn.get(), Launcher, Stream ? Stream : Py_None, Args.get(), nullptr);
  return true;
}

} // namespace pcj::py
