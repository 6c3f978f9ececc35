// numba-cuda's launch-configuration attributes on _core.Launcher (what
// kernel[grid, block, stream, shared] returns): griddim, blockdim, stream,
// sharedmem, dispatcher, pre_launch_callbacks (host callables run before
// each launch with (overload, configuration)); and pickling, as the kernel
// with its grid and block (kernel[5, 8] unpickles as the receiver's
// kernel[5, 8]).
//
//   cfg = kernel[(4, 2), 128]
//   cfg.griddim    -> (4, 2, 1)
//   cfg.blockdim   -> (128, 1, 1)
//   pickle.loads(pickle.dumps(cfg)).griddim -> (4, 2, 1)
#include "LauncherObject.h"

#include "Glue.h"

namespace pcj::py {

namespace {

LauncherObject *self(PyObject *O) {
  return reinterpret_cast<LauncherObject *>(O);
}

PyObject *dimTuple(const rt::Dim3 &D) {
  return Py_BuildValue("(III)", D.x, D.y, D.z);
}

PyObject *getGriddim(PyObject *O, void *) { return dimTuple(self(O)->grid); }
PyObject *getBlockdim(PyObject *O, void *) { return dimTuple(self(O)->block); }
PyObject *getSharedmem(PyObject *O, void *) {
  return PyLong_FromUnsignedLong(self(O)->shared);
}

PyObject *getStream(PyObject *O, void *) {
  PyObject *S = self(O)->streamObj;
  if (!S)
    return PyLong_FromLong(0);
  Py_INCREF(S);
  return S;
}

PyObject *getDispatcher(PyObject *O, void *) {
  auto *D = reinterpret_cast<PyObject *>(self(O)->disp);
  Py_INCREF(D);
  return D;
}

// kernel[grid, block] hands out one cached Launcher per configuration; one
// whose callback list is used leaves that cache, so that the callbacks stay
// its own (numba-cuda makes a new configuration at every indexing).
void leaveCache(LauncherObject *L) {
  DispatcherObject *D = L->disp;
  auto *Me = reinterpret_cast<PyObject *>(L);
  if (D->lastLauncher == Me) {
    PyObject *OldKey = D->lastKey, *OldL = D->lastLauncher;
    D->lastKey = nullptr;
    D->lastLauncher = nullptr;
    Py_XDECREF(OldKey);
    Py_XDECREF(OldL);
  }
  PyObject *K, *V;
  Py_ssize_t Pos = 0;
  while (PyDict_Next(D->launchers, &Pos, &K, &V))
    if (V == Me) {
      Ref Key(K);
      Py_INCREF(K);
      if (PyDict_DelItem(D->launchers, K) < 0)
        PyErr_Clear();
      return;
    }
}

PyObject *getCallbacks(PyObject *O, void *) {
  LauncherObject *L = self(O);
  if (!L->callbacks) {
    if (!(L->callbacks = PyList_New(0)))
      return nullptr;
    leaveCache(L);
  }
  Py_INCREF(L->callbacks);
  return L->callbacks;
}

int setCallbacks(PyObject *O, PyObject *V, void *) {
  if (!V || !PyList_Check(V)) {
    PyErr_SetString(PyExc_TypeError,
                    "pre_launch_callbacks must be a list of callables "
                    "f(kernel, launch_config)");
    return -1;
  }
  if (!self(O)->callbacks)
    leaveCache(self(O));
  Py_INCREF(V);
  PyObject *Old = self(O)->callbacks;
  self(O)->callbacks = V;
  Py_XDECREF(Old);
  return 0;
}

bool hasCallbacks(const LauncherObject *L) {
  return L->callbacks && PyList_Size(L->callbacks) > 0;
}

// (operator.getitem, (kernel, (grid, block, 0, shared))): the kernel
// pickles by its own rules (serialize.py). A stream is a handle of this
// process, so a configuration with one does not pickle.
PyObject *launcherReduce(PyObject *O, PyObject *) {
  return guard([&]() -> PyObject * {
    LauncherObject *L = self(O);
    bool DefaultStream =
        !L->streamObj || L->streamObj == Py_None ||
        (PyLong_Check(L->streamObj) && PyLong_AsLong(L->streamObj) == 0);
    PyErr_Clear();
    if (hasCallbacks(L)) {
      Ref Pickle(PyImport_ImportModule("pickle"));
      Ref Err = Pickle ? getAttr(Pickle.get(), "PicklingError") : Ref();
      PyErr_SetString(Err ? Err.get() : PyExc_TypeError,
                      "Cannot pickle configured launches with pre-launch "
                      "callbacks: they are functions of this process; pickle "
                      "the kernel and register them again there");
      return nullptr;
    }
    if (!DefaultStream) {
      Ref Pickle(PyImport_ImportModule("pickle"));
      Ref Err = Pickle ? getAttr(Pickle.get(), "PicklingError") : Ref();
      PyErr_SetString(
          Err ? Err.get() : PyExc_TypeError,
          "a launch configuration with a stream cannot be pickled: streams "
          "belong to one process; pickle the kernel and configure it there");
      return nullptr;
    }
    Ref Op(PyImport_ImportModule("operator"));
    if (!Op)
      return nullptr;
    Ref GetItem = getAttr(Op.get(), "getitem");
    Ref Grid(dimTuple(L->grid)), Block(dimTuple(L->block));
    if (!Grid || !Block)
      return nullptr;
    return Py_BuildValue("(O(O(OOiI)))", GetItem.get(),
                         reinterpret_cast<PyObject *>(L->disp), Grid.get(),
                         Block.get(), 0, L->shared);
  });
}

} // namespace

void runPreLaunchCallbacks(LauncherObject *L, const std::string &Signature) {
  if (!hasCallbacks(L))
    return;
  // The list may change while it runs (a callback appending another): a
  // copy is called.
  Ref Calls(check(PyList_GetSlice(L->callbacks, 0, PY_SSIZE_T_MAX)));
  Ref Api(check(PyImport_ImportModule("pycuda_jit._kernel_api")));
  Ref Overload(check(PyObject_CallMethod(Api.get(), "Overload", "(Os)",
                                         reinterpret_cast<PyObject *>(L->disp),
                                         Signature.c_str())));
  for (Py_ssize_t K = 0; K < PyList_Size(Calls.get()); ++K)
    check(PyObject_CallFunctionObjArgs(
        PyList_GetItem(Calls.get(), K), Overload.get(),
        reinterpret_cast<PyObject *>(L), nullptr));
}

PyGetSetDef LauncherGetSet[] = {
    {"griddim", getGriddim, nullptr, "The grid's dimensions (x, y, z).",
     nullptr},
    {"blockdim", getBlockdim, nullptr, "The block's dimensions (x, y, z).",
     nullptr},
    {"sharedmem", getSharedmem, nullptr,
     "Dynamic shared memory bytes per block.", nullptr},
    {"stream", getStream, nullptr,
     "The launch's stream (0: the default stream).", nullptr},
    {"dispatcher", getDispatcher, nullptr, "The kernel.", nullptr},
    {"pre_launch_callbacks", getCallbacks, setCallbacks,
     "Callables f(kernel, launch_config) run before each launch of this "
     "configuration (kernel: the specialization's Overload).",
     nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMethodDef LauncherMethods[] = {{"__reduce__", launcherReduce, METH_NOARGS,
                                  "Pickles as kernel[grid, block]."},
                                 {nullptr, nullptr, 0, nullptr}};

} // namespace pcj::py
