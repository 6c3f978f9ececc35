// numba-cuda's launch-configuration attributes on _core.Launcher (what
// kernel[grid, block, stream, shared] returns): griddim, blockdim, stream,
// sharedmem, dispatcher; and pickling, as the kernel with its grid and
// block (kernel[5, 8] unpickles as the receiver's kernel[5, 8]).
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
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMethodDef LauncherMethods[] = {{"__reduce__", launcherReduce, METH_NOARGS,
                                  "Pickles as kernel[grid, block]."},
                                 {nullptr, nullptr, 0, nullptr}};

} // namespace pcj::py
