// Allocation and DeviceArray extension types (see DeviceArray.h).
#include "DeviceArray.h"

#include "Backend.h"

#include <structmember.h>

#include <cstring>

namespace pcj::py {

namespace {

PyTypeObject *AllocationType = nullptr;
PyTypeObject *DeviceArrayType = nullptr;

// ---- Allocation ------------------------------------------------------------------

PyObject *allocationNew(PyTypeObject *T, PyObject *Args, PyObject *Kw) {
  return guard([&]() -> PyObject * {
    Py_ssize_t N = 0;
    static const char *Names[] = {"nbytes", nullptr};
    if (!PyArg_ParseTupleAndKeywords(Args, Kw, "n", const_cast<char **>(Names), &N))
      return nullptr;
    if (N < 0) {
      PyErr_SetString(PyExc_ValueError, "negative allocation size");
      return nullptr;
    }
    uint64_t P = deviceAlloc(size_t(N));
    auto *Alloc = reinterpret_cast<PyObject *(*)(PyTypeObject *, Py_ssize_t)>(
        PyType_GetSlot(T, Py_tp_alloc));
    PyObject *O = Alloc(T, 0);
    if (!O) {
      deviceFree(P);
      return nullptr;
    }
    auto *A = reinterpret_cast<AllocationObject *>(O);
    A->ptr = P;
    A->nbytes = size_t(N);
    return O;
  });
}

void allocationDealloc(PyObject *O) {
  auto *A = reinterpret_cast<AllocationObject *>(O);
  PyTypeObject *T = Py_TYPE(O);
  try {
    deviceFree(A->ptr);
  } catch (...) {
    // A dead context (after cuda.close() or a sticky error) frees nothing.
  }
  auto *Free = reinterpret_cast<freefunc>(PyType_GetSlot(T, Py_tp_free));
  Free(O);
  Py_DECREF(T);
}

PyMemberDef AllocationMembers[] = {
    {"ptr", T_ULONGLONG, offsetof(AllocationObject, ptr), READONLY, nullptr},
    {"nbytes", T_PYSSIZET, offsetof(AllocationObject, nbytes), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

PyType_Slot AllocationSlots[] = {
    {Py_tp_new, reinterpret_cast<void *>(allocationNew)},
    {Py_tp_dealloc, reinterpret_cast<void *>(allocationDealloc)},
    {Py_tp_members, AllocationMembers},
    {Py_tp_doc, const_cast<char *>("Device memory owned by Python; freed when collected.")},
    {0, nullptr}};

PyType_Spec AllocationSpec = {"pycuda_jit._core.Allocation",
                              sizeof(AllocationObject), 0, Py_TPFLAGS_DEFAULT,
                              AllocationSlots};

// ---- DeviceArray -----------------------------------------------------------------

// DeviceArray(owner, ptr, shape, strides, typestr)
int deviceArrayInit(PyObject *Self, PyObject *Args, PyObject *Kw) {
  auto *D = reinterpret_cast<DeviceArrayObject *>(Self);
  PyObject *Owner, *Shape, *Strides;
  unsigned long long Ptr;
  const char *Typestr;
  static const char *Names[] = {"owner", "ptr", "shape", "strides", "typestr",
                                nullptr};
  if (!PyArg_ParseTupleAndKeywords(Args, Kw, "OKOOs", const_cast<char **>(Names),
                                   &Owner, &Ptr, &Shape, &Strides, &Typestr))
    return -1;
  types::TypeRef DT = types::scalarFromTypestr(Typestr);
  if (!DT) {
    PyErr_Format(PyExc_TypeError,
                 "arrays of dtype '%s' cannot be used with pycuda_jit yet",
                 Typestr);
    return -1;
  }
  Py_ssize_t N = PyTuple_Size(Shape);
  if (N < 0 || N > kMaxDims || PyTuple_Size(Strides) != N) {
    PyErr_Clear();
    PyErr_Format(PyExc_ValueError,
                 "shape and strides must be tuples of the same length <= %d",
                 kMaxDims);
    return -1;
  }
  for (Py_ssize_t K = 0; K < N; ++K) {
    D->shape[K] = PyLong_AsLongLong(PyTuple_GetItem(Shape, K));
    D->strides[K] = PyLong_AsLongLong(PyTuple_GetItem(Strides, K));
    if (PyErr_Occurred())
      return -1;
    if (D->shape[K] < 0) {
      PyErr_SetString(PyExc_ValueError, "negative dimension");
      return -1;
    }
  }
  Py_INCREF(Owner);
  PyObject *Old = D->owner;
  D->owner = Owner;
  Py_XDECREF(Old);
  D->ptr = Ptr;
  D->ndim = int(N);
  std::strncpy(D->typestr, Typestr, sizeof D->typestr - 1);
  D->type = types::arrayTy(
      DT, unsigned(N), layoutOf(int(N), D->shape, D->strides, DT->byteSize()));
  return 0;
}

void deviceArrayDealloc(PyObject *O) {
  auto *D = reinterpret_cast<DeviceArrayObject *>(O);
  PyTypeObject *T = Py_TYPE(O);
  PyObject_GC_UnTrack(O);
  Py_CLEAR(D->owner);
  auto *Free = reinterpret_cast<freefunc>(PyType_GetSlot(T, Py_tp_free));
  Free(O);
  Py_DECREF(T);
}

int deviceArrayTraverse(PyObject *O, visitproc visit, void *arg) {
  Py_VISIT(reinterpret_cast<DeviceArrayObject *>(O)->owner);
  Py_VISIT(Py_TYPE(O));
  return 0;
}

int deviceArrayClear(PyObject *O) {
  Py_CLEAR(reinterpret_cast<DeviceArrayObject *>(O)->owner);
  return 0;
}

PyObject *tupleOf(const int64_t *V, int N) {
  PyObject *T = PyTuple_New(N);
  for (int K = 0; T && K < N; ++K)
    PyTuple_SetItem(T, K, PyLong_FromLongLong(V[K]));
  return T;
}

PyObject *getShape(PyObject *O, void *) {
  auto *D = reinterpret_cast<DeviceArrayObject *>(O);
  return tupleOf(D->shape, D->ndim);
}
PyObject *getStrides(PyObject *O, void *) {
  auto *D = reinterpret_cast<DeviceArrayObject *>(O);
  return tupleOf(D->strides, D->ndim);
}
PyObject *getTypestr(PyObject *O, void *) {
  return PyUnicode_FromString(reinterpret_cast<DeviceArrayObject *>(O)->typestr);
}
PyObject *getLayout(PyObject *O, void *) {
  auto *D = reinterpret_cast<DeviceArrayObject *>(O);
  if (!D->type)
    Py_RETURN_NONE;
  static const char *Names[] = {"C", "F", "A"};
  return PyUnicode_FromString(Names[int(D->type->layout())]);
}
PyObject *getKernelType(PyObject *O, void *) {
  auto *D = reinterpret_cast<DeviceArrayObject *>(O);
  if (!D->type)
    Py_RETURN_NONE;
  return PyUnicode_FromString(D->type->str().c_str());
}

PyGetSetDef DeviceArrayGetSet[] = {
    {"shape", getShape, nullptr, nullptr, nullptr},
    {"strides", getStrides, nullptr, nullptr, nullptr},
    {"_typestr", getTypestr, nullptr, nullptr, nullptr},
    {"_layout", getLayout, nullptr, nullptr, nullptr},
    {"_kernel_type", getKernelType, nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMemberDef DeviceArrayMembers[] = {
    {"device_ctypes_pointer_value", T_ULONGLONG, offsetof(DeviceArrayObject, ptr),
     READONLY, nullptr},
    {"_owner", T_OBJECT, offsetof(DeviceArrayObject, owner), READONLY, nullptr},
    {"ndim", T_INT, offsetof(DeviceArrayObject, ndim), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

PyType_Slot DeviceArraySlots[] = {
    {Py_tp_new, reinterpret_cast<void *>(PyType_GenericNew)},
    {Py_tp_init, reinterpret_cast<void *>(deviceArrayInit)},
    {Py_tp_dealloc, reinterpret_cast<void *>(deviceArrayDealloc)},
    {Py_tp_traverse, reinterpret_cast<void *>(deviceArrayTraverse)},
    {Py_tp_clear, reinterpret_cast<void *>(deviceArrayClear)},
    {Py_tp_getset, DeviceArrayGetSet},
    {Py_tp_members, DeviceArrayMembers},
    {Py_tp_doc, const_cast<char *>("A strided array in device memory.")},
    {0, nullptr}};

PyType_Spec DeviceArraySpec = {
    "pycuda_jit._core.DeviceArray", sizeof(DeviceArrayObject), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    DeviceArraySlots};

} // namespace

types::Layout layoutOf(int NDim, const int64_t *Shape, const int64_t *Strides,
                       int64_t ItemSize) {
  auto Contig = [&](bool C) {
    int64_t Expect = ItemSize;
    for (int K = 0; K < NDim; ++K) {
      int D = C ? NDim - 1 - K : K;
      if (Shape[D] == 1)
        continue;
      if (Strides[D] != Expect)
        return false;
      Expect *= Shape[D];
    }
    return true;
  };
  if (Contig(true))
    return types::Layout::C;
  if (Contig(false))
    return types::Layout::F;
  return types::Layout::A;
}

bool addDeviceArrayTypes(PyObject *Module) {
  AllocationType = reinterpret_cast<PyTypeObject *>(PyType_FromSpec(&AllocationSpec));
  DeviceArrayType = reinterpret_cast<PyTypeObject *>(PyType_FromSpec(&DeviceArraySpec));
  if (!AllocationType || !DeviceArrayType)
    return false;
  Py_INCREF(AllocationType);
  Py_INCREF(DeviceArrayType);
  return PyModule_AddObject(Module, "Allocation",
                            reinterpret_cast<PyObject *>(AllocationType)) == 0 &&
         PyModule_AddObject(Module, "DeviceArray",
                            reinterpret_cast<PyObject *>(DeviceArrayType)) == 0;
}

PyTypeObject *deviceArrayType() { return DeviceArrayType; }

bool isDeviceArray(PyObject *O) {
  return PyObject_TypeCheck(O, DeviceArrayType);
}

} // namespace pcj::py
