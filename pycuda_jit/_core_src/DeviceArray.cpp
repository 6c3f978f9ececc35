// Allocation, HostAllocation and DeviceArray extension types (see
// DeviceArray.h).
#include "DeviceArray.h"

#include "types/BFloat16.h"

#include "DLPack.h"
#include "PyExecutor.h"
#include "Streams.h"

#include "runtime/Device.h"
#include "runtime/Memory.h"
#include "runtime/StridedCopy.h"

#include <structmember.h>

#include <cstring>

namespace pcj::py {

namespace {

// Replaces *Slot with New (a new reference), releasing the old one.
void setRef(PyObject *&Slot, PyObject *New) {
  PyObject *Old = Slot;
  Slot = New;
  Py_XDECREF(Old);
}

PyTypeObject *AllocationType = nullptr;
PyTypeObject *HostAllocationType = nullptr;
PyTypeObject *DeviceArrayType = nullptr;

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

PyObject *tupleOf(const int64_t *V, int N) {
  PyObject *T = PyTuple_New(N);
  for (int K = 0; T && K < N; ++K)
    PyTuple_SetItem(T, K, PyLong_FromLongLong(V[K]));
  return T;
}

// Runs Body with the GIL released, rethrowing its exception afterwards.
template <typename F> void withoutGil(F Body) {
  std::exception_ptr Err;
  Py_BEGIN_ALLOW_THREADS try { Body(); } catch (...) {
    Err = std::current_exception();
  }
  Py_END_ALLOW_THREADS if (Err) std::rethrow_exception(Err);
}

// ---- Allocation
// ------------------------------------------------------------------

// Allocation(nbytes, managed=False, attach_global=True)
PyObject *allocationNew(PyTypeObject *T, PyObject *Args, PyObject *Kw) {
  return guard([&]() -> PyObject * {
    Py_ssize_t N = 0;
    int Managed = 0, AttachGlobal = 1;
    static const char *Names[] = {"nbytes", "managed", "attach_global",
                                  nullptr};
    if (!PyArg_ParseTupleAndKeywords(Args, Kw, "n|pp",
                                     const_cast<char **>(Names), &N, &Managed,
                                     &AttachGlobal))
      return nullptr;
    if (N < 0) {
      PyErr_SetString(PyExc_ValueError, "negative allocation size");
      return nullptr;
    }
    DeviceBlock B = allocDevice(size_t(N), Managed != 0, AttachGlobal != 0);
    auto *A = allocObject<AllocationObject>(T);
    if (!A) {
      releaseDevice(B, size_t(N));
      return nullptr;
    }
    A->ptr = B.ptr;
    A->nbytes = size_t(N);
    A->device = B.device;
    A->gen = B.gen;
    A->managed = Managed != 0;
    return reinterpret_cast<PyObject *>(A);
  });
}

void allocationDealloc(PyObject *O) {
  auto *A = reinterpret_cast<AllocationObject *>(O);
  try {
    releaseDevice({A->ptr, A->device, A->gen}, A->nbytes);
  } catch (...) {
    // A dead context (after cuda.close() or a sticky error) frees nothing.
  }
  freeObject(O);
}

PyMemberDef AllocationMembers[] = {
    {"ptr", T_ULONGLONG, offsetof(AllocationObject, ptr), READONLY, nullptr},
    {"nbytes", T_PYSSIZET, offsetof(AllocationObject, nbytes), READONLY,
     nullptr},
    {"device_id", T_INT, offsetof(AllocationObject, device), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

PyType_Slot AllocationSlots[] = {
    {Py_tp_new, reinterpret_cast<void *>(allocationNew)},
    {Py_tp_dealloc, reinterpret_cast<void *>(allocationDealloc)},
    {Py_tp_members, AllocationMembers},
    {Py_tp_doc, const_cast<char *>("Device memory owned by Python; released "
                                   "(deferred, batched) when collected.")},
    {0, nullptr}};

PyType_Spec AllocationSpec = {"pycuda_jit._core.Allocation",
                              sizeof(AllocationObject), 0, Py_TPFLAGS_DEFAULT,
                              AllocationSlots};

// ---- HostAllocation
// -----------------------------------------------------------------

// HostAllocation(nbytes, kind="pinned", portable=False, wc=False,
//                attach_global=True)
PyObject *hostAllocationNew(PyTypeObject *T, PyObject *Args, PyObject *Kw) {
  return guard([&]() -> PyObject * {
    Py_ssize_t N = 0;
    const char *Kind = "pinned";
    int Portable = 0, Wc = 0, AttachGlobal = 1;
    static const char *Names[] = {"nbytes", "kind",          "portable",
                                  "wc",     "attach_global", nullptr};
    if (!PyArg_ParseTupleAndKeywords(Args, Kw, "n|sppp",
                                     const_cast<char **>(Names), &N, &Kind,
                                     &Portable, &Wc, &AttachGlobal))
      return nullptr;
    if (N < 0) {
      PyErr_SetString(PyExc_ValueError, "negative allocation size");
      return nullptr;
    }
    std::string K = Kind;
    HostKind HK;
    if (K == "pinned")
      HK = HostKind::Pinned;
    else if (K == "mapped")
      HK = HostKind::Mapped;
    else if (K == "managed")
      HK = HostKind::Managed;
    else {
      PyErr_Format(PyExc_ValueError, "unknown host memory kind '%s'", Kind);
      return nullptr;
    }
    HostBlock B = allocHost(size_t(N), HK, Portable, Wc, AttachGlobal);
    auto *H = allocObject<HostAllocationObject>(T);
    if (!H) {
      releaseHost(B);
      return nullptr;
    }
    H->block = B;
    H->block.bytes = size_t(N) ? size_t(N) : B.bytes;
    return reinterpret_cast<PyObject *>(H);
  });
}

void hostAllocationDealloc(PyObject *O) {
  auto *H = reinterpret_cast<HostAllocationObject *>(O);
  try {
    releaseHost(H->block);
  } catch (...) {
  }
  freeObject(O);
}

// A 1-d uint8 view of the whole buffer for numpy (np.asarray(alloc)).
PyObject *hostAllocationInterface(PyObject *O, void *) {
  auto *H = reinterpret_cast<HostAllocationObject *>(O);
  return Py_BuildValue(
      "{s:(n),s:s,s:(K,O),s:i}", "shape", Py_ssize_t(H->block.bytes), "typestr",
      "|u1", "data", (unsigned long long)H->block.ptr, Py_False, "version", 3);
}

PyObject *hostAllocationPtr(PyObject *O, void *) {
  return PyLong_FromUnsignedLongLong(
      reinterpret_cast<HostAllocationObject *>(O)->block.ptr);
}
PyObject *hostAllocationDevicePtr(PyObject *O, void *) {
  return PyLong_FromUnsignedLongLong(
      reinterpret_cast<HostAllocationObject *>(O)->block.devPtr);
}
PyObject *hostAllocationKind(PyObject *O, void *) {
  static const char *Names[] = {"pinned", "mapped", "managed"};
  return PyUnicode_FromString(
      Names[int(reinterpret_cast<HostAllocationObject *>(O)->block.kind)]);
}

PyGetSetDef HostAllocationGetSet[] = {
    {"__array_interface__", hostAllocationInterface, nullptr, nullptr, nullptr},
    {"ptr", hostAllocationPtr, nullptr, nullptr, nullptr},
    {"device_ptr", hostAllocationDevicePtr, nullptr, nullptr, nullptr},
    {"kind", hostAllocationKind, nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyType_Slot HostAllocationSlots[] = {
    {Py_tp_new, reinterpret_cast<void *>(hostAllocationNew)},
    {Py_tp_dealloc, reinterpret_cast<void *>(hostAllocationDealloc)},
    {Py_tp_getset, HostAllocationGetSet},
    {Py_tp_doc, const_cast<char *>("Pinned, mapped or managed host memory; "
                                   "freed when collected.")},
    {0, nullptr}};

PyType_Spec HostAllocationSpec = {"pycuda_jit._core.HostAllocation",
                                  sizeof(HostAllocationObject), 0,
                                  Py_TPFLAGS_DEFAULT, HostAllocationSlots};

// ---- DeviceArray
// -----------------------------------------------------------------

DeviceArrayObject *self(PyObject *O) {
  return reinterpret_cast<DeviceArrayObject *>(O);
}

int64_t elementCount(const DeviceArrayObject *D) {
  int64_t N = 1;
  for (int K = 0; K < D->ndim; ++K)
    N *= D->shape[K];
  return N;
}

// DeviceArray(owner, ptr, shape, strides, typestr, stream=None, descr=None)
int deviceArrayInit(PyObject *Self, PyObject *Args, PyObject *Kw) {
  auto *D = self(Self);
  PyObject *Owner, *Shape, *Strides, *Stream = Py_None, *Descr = Py_None;
  unsigned long long Ptr;
  const char *Typestr;
  static const char *Names[] = {"owner",   "ptr",    "shape", "strides",
                                "typestr", "stream", "descr", nullptr};
  if (!PyArg_ParseTupleAndKeywords(Args, Kw, "OKOOs|OO",
                                   const_cast<char **>(Names), &Owner, &Ptr,
                                   &Shape, &Strides, &Typestr, &Stream, &Descr))
    return -1;
  std::string Why;
  types::TypeRef DT = nullptr;
  try {
    DT = elementTypeOf(Typestr, Descr, Why);
  } catch (const PythonError &) {
    return -1;
  }
  if (!DT) {
    PyErr_SetString(PyExc_TypeError, Why.c_str());
    return -1;
  }
  if (!PyTuple_Check(Shape) || !PyTuple_Check(Strides)) {
    PyErr_SetString(PyExc_TypeError, "shape and strides must be tuples");
    return -1;
  }
  Py_ssize_t N = PyTuple_Size(Shape);
  if (N > kMaxDims || PyTuple_Size(Strides) != N) {
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
  setRef(D->owner, Owner);
  if (isDefaultStreamArg(Stream)) {
    Py_CLEAR(D->stream);
  } else {
    Py_INCREF(Stream);
    setRef(D->stream, Stream);
  }
  D->ptr = Ptr;
  D->ndim = int(N);
  std::memset(D->typestr, 0, sizeof D->typestr);
  // bfloat16 shows as ml_dtypes' NumPy arrays do (a 2-byte void)
  std::strncpy(D->typestr, DT == types::bfloat16Ty() ? "<V2" : Typestr,
               sizeof D->typestr - 1);
  D->itemsize = DT->byteSize();
  if (PyObject_TypeCheck(Owner, AllocationType)) {
    auto *A = reinterpret_cast<AllocationObject *>(Owner);
    D->device = A->device;
    D->gen = A->gen;
  } else { // another library's memory: its device is not checked
    D->device = -1;
    D->gen = 0;
  }
  D->type = types::arrayTy(DT, unsigned(N),
                           layoutOf(int(N), D->shape, D->strides, D->itemsize));
  return 0;
}

void deviceArrayDealloc(PyObject *O) {
  auto *D = self(O);
  PyObject_GC_UnTrack(O);
  Py_CLEAR(D->owner);
  Py_CLEAR(D->stream);
  freeObject(O);
}

int deviceArrayTraverse(PyObject *O, visitproc visit, void *arg) {
  Py_VISIT(self(O)->owner);
  Py_VISIT(self(O)->stream);
  Py_VISIT(Py_TYPE(O));
  return 0;
}

int deviceArrayClear(PyObject *O) {
  Py_CLEAR(self(O)->owner);
  Py_CLEAR(self(O)->stream);
  return 0;
}

PyObject *getShape(PyObject *O, void *) {
  return tupleOf(self(O)->shape, self(O)->ndim);
}
PyObject *getStrides(PyObject *O, void *) {
  return tupleOf(self(O)->strides, self(O)->ndim);
}
PyObject *getSize(PyObject *O, void *) {
  return PyLong_FromLongLong(elementCount(self(O)));
}
PyObject *getNbytes(PyObject *O, void *) {
  return PyLong_FromLongLong(elementCount(self(O)) * self(O)->itemsize);
}
PyObject *getItemsize(PyObject *O, void *) {
  return PyLong_FromLongLong(self(O)->itemsize);
}
PyObject *getTypestr(PyObject *O, void *) {
  return PyUnicode_FromString(self(O)->typestr);
}
PyObject *getLayout(PyObject *O, void *) {
  auto *D = self(O);
  if (!D->type)
    Py_RETURN_NONE;
  static const char *Names[] = {"C", "F", "A"};
  return PyUnicode_FromString(Names[int(D->type->layout())]);
}
PyObject *getKernelType(PyObject *O, void *) {
  auto *D = self(O);
  if (!D->type)
    Py_RETURN_NONE;
  return PyUnicode_FromString(D->type->str().c_str());
}
PyObject *getStream(PyObject *O, void *) {
  PyObject *S = self(O)->stream;
  if (!S)
    return PyLong_FromLong(0);
  Py_INCREF(S);
  return S;
}
int setStream(PyObject *O, PyObject *V, void *) {
  auto *D = self(O);
  if (isDefaultStreamArg(V)) {
    Py_CLEAR(D->stream);
    return 0;
  }
  Py_INCREF(V);
  setRef(D->stream, V);
  return 0;
}
PyObject *getDeviceId(PyObject *O, void *) {
  auto *D = self(O);
  return PyLong_FromLong(D->device >= 0 ? D->device : backendCurrentDevice());
}

// __cuda_array_interface__ (version 3).
PyObject *getCai(PyObject *O, void *) {
  return guard([&]() -> PyObject * {
    auto *D = self(O);
    requireAlive(D->device, D->gen, "this device array");
    Ref Shape(tupleOf(D->shape, D->ndim));
    Ref Strides = isContiguous(D, true) ? Ref::borrow(Py_None)
                                        : Ref(tupleOf(D->strides, D->ndim));
    Ref Stream(streamFieldValue(D->stream));
    if (!Stream)
      return nullptr;
    unsigned long long Ptr = elementCount(D) ? D->ptr : 0;
    Ref CAI(Py_BuildValue("{s:O,s:O,s:s,s:(K,O),s:i,s:O}", "shape", Shape.get(),
                          "strides", Strides.get(), "typestr", D->typestr,
                          "data", Ptr, Py_False, "version", 3, "stream",
                          Stream.get()));
    if (CAI && D->type->dtype()->kind() == types::Kind::Record) {
      Ref Descr(descrOf(D->type->dtype()));
      if (!Descr || PyDict_SetItemString(CAI.get(), "descr", Descr.get()) != 0)
        return nullptr;
    }
    return CAI.release();
  });
}

PyGetSetDef DeviceArrayGetSet[] = {
    {"shape", getShape, nullptr, nullptr, nullptr},
    {"strides", getStrides, nullptr, nullptr, nullptr},
    {"size", getSize, nullptr, "Number of elements.", nullptr},
    {"nbytes", getNbytes, nullptr, "Bytes of the elements.", nullptr},
    {"itemsize", getItemsize, nullptr, nullptr, nullptr},
    {"stream", getStream, setStream, "The array's stream (0: default).",
     nullptr},
    {"device_id", getDeviceId, nullptr, nullptr, nullptr},
    {"__cuda_array_interface__", getCai, nullptr, nullptr, nullptr},
    {"_typestr", getTypestr, nullptr, nullptr, nullptr},
    {"_layout", getLayout, nullptr, nullptr, nullptr},
    {"_kernel_type", getKernelType, nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyObject *isCContig(PyObject *O, PyObject *) {
  return PyBool_FromLong(isContiguous(self(O), true));
}
PyObject *isFContig(PyObject *O, PyObject *) {
  return PyBool_FromLong(isContiguous(self(O), false));
}

Py_ssize_t deviceArrayLength(PyObject *O) {
  auto *D = self(O);
  if (D->ndim == 0) {
    PyErr_SetString(PyExc_TypeError,
                    "len() of unsized object (a 0-d device array)");
    return -1;
  }
  return Py_ssize_t(D->shape[0]);
}

// _index(key) -> (ptr, shape, strides, is_scalar): the view a numpy-style
// basic index selects (ints, slices, None, Ellipsis).
PyObject *deviceArrayIndex(PyObject *O, PyObject *Key) {
  return guard([&]() -> PyObject * {
    auto *D = self(O);
    Ref Items =
        PyTuple_Check(Key) ? Ref::borrow(Key) : Ref(PyTuple_Pack(1, Key));
    if (!Items)
      return nullptr;
    Py_ssize_t N = PyTuple_Size(Items.get());
    int Consuming = 0, Ellipses = 0;
    for (Py_ssize_t K = 0; K < N; ++K) {
      PyObject *I = PyTuple_GetItem(Items.get(), K);
      if (I == Py_Ellipsis)
        ++Ellipses;
      else if (I != Py_None)
        ++Consuming;
    }
    if (Ellipses > 1) {
      PyErr_SetString(PyExc_IndexError,
                      "an index can only have a single ellipsis ('...')");
      return nullptr;
    }
    if (Consuming > D->ndim) {
      PyErr_Format(
          PyExc_IndexError,
          "too many indices for device array: array is %d-dimensional, "
          "but %d were indexed",
          D->ndim, Consuming);
      return nullptr;
    }
    uint64_t Ptr = D->ptr;
    int64_t Shape[kMaxDims], Strides[kMaxDims];
    int Out = 0, Dim = 0;
    auto Push = [&](int64_t Extent, int64_t Stride) {
      if (Out == kMaxDims) {
        PyErr_Format(PyExc_IndexError,
                     "device arrays have at most %d dimensions", kMaxDims);
        throw PythonError{};
      }
      Shape[Out] = Extent;
      Strides[Out] = Stride;
      ++Out;
    };
    for (Py_ssize_t K = 0; K < N; ++K) {
      PyObject *I = PyTuple_GetItem(Items.get(), K);
      if (I == Py_Ellipsis) {
        for (int R = D->ndim - Consuming; R > 0; --R, ++Dim)
          Push(D->shape[Dim], D->strides[Dim]);
      } else if (I == Py_None) {
        Push(1, 0);
      } else if (PySlice_Check(I)) {
        Py_ssize_t Start, Stop, Step;
        if (PySlice_Unpack(I, &Start, &Stop, &Step) < 0)
          return nullptr;
        Py_ssize_t Len = PySlice_AdjustIndices(Py_ssize_t(D->shape[Dim]),
                                               &Start, &Stop, Step);
        Ptr += uint64_t(int64_t(Start) * D->strides[Dim]);
        Push(Len, D->strides[Dim] * Step);
        ++Dim;
      } else if (!PyBool_Check(I) && PyIndex_Check(I)) {
        Py_ssize_t V = PyNumber_AsSsize_t(I, PyExc_IndexError);
        if (V == -1 && PyErr_Occurred())
          return nullptr;
        Py_ssize_t Ext = Py_ssize_t(D->shape[Dim]);
        if (V < -Ext || V >= Ext) {
          PyErr_Format(PyExc_IndexError,
                       "index %zd is out of bounds for axis %d with size %zd",
                       V, Dim, Ext);
          return nullptr;
        }
        if (V < 0)
          V += Ext;
        Ptr += uint64_t(int64_t(V) * D->strides[Dim]);
        ++Dim;
      } else {
        PyErr_Format(PyExc_IndexError,
                     "only integers, slices (`:`), ellipsis (`...`) and None "
                     "are valid indices of device arrays, not %s",
                     typeName(I).c_str());
        return nullptr;
      }
    }
    for (; Dim < D->ndim; ++Dim)
      Push(D->shape[Dim], D->strides[Dim]);
    bool Scalar = Out == 0 && Ellipses == 0;
    Ref S(tupleOf(Shape, Out)), T(tupleOf(Strides, Out));
    return Py_BuildValue("(KOOO)", (unsigned long long)Ptr, S.get(), T.get(),
                         Scalar ? Py_True : Py_False);
  });
}

// _read_bytes(ptr) -> the item at ptr as bytes (a scalar element read).
PyObject *deviceArrayReadBytes(PyObject *O, PyObject *Arg) {
  return guard([&]() -> PyObject * {
    auto *D = self(O);
    requireAlive(D->device, D->gen, "this device array");
    unsigned long long P = PyLong_AsUnsignedLongLong(Arg);
    if (PyErr_Occurred())
      return nullptr;
    char Buf[32];
    copyToHost(Buf, P, size_t(D->itemsize));
    return PyBytes_FromStringAndSize(Buf, Py_ssize_t(D->itemsize));
  });
}

// _reshape(shape, order) -> (shape, strides) of the contiguous reshaped view.
PyObject *deviceArrayReshape(PyObject *O, PyObject *Args) {
  return guard([&]() -> PyObject * {
    auto *D = self(O);
    PyObject *NewShape;
    const char *OrderS = "C";
    if (!PyArg_ParseTuple(Args, "O|s", &NewShape, &OrderS))
      return nullptr;
    char Order = OrderS[0];
    if (Order != 'C' && Order != 'F' && Order != 'A') {
      PyErr_SetString(PyExc_ValueError, "order must be 'C', 'F' or 'A'");
      return nullptr;
    }
    Ref Items = PyTuple_Check(NewShape) ? Ref::borrow(NewShape)
                                        : Ref(PyTuple_Pack(1, NewShape));
    Py_ssize_t N = PyTuple_Size(Items.get());
    if (N > kMaxDims) {
      PyErr_Format(PyExc_ValueError, "device arrays have at most %d dimensions",
                   kMaxDims);
      return nullptr;
    }
    int64_t Shape[kMaxDims], Known = 1;
    int Unknown = -1;
    for (Py_ssize_t K = 0; K < N; ++K) {
      long long V = PyLong_AsLongLong(PyTuple_GetItem(Items.get(), K));
      if (V == -1 && PyErr_Occurred())
        return nullptr;
      if (V == -1) {
        if (Unknown >= 0) {
          PyErr_SetString(PyExc_ValueError,
                          "can only specify one unknown dimension");
          return nullptr;
        }
        Unknown = int(K);
        continue;
      }
      if (V < 0) {
        PyErr_SetString(PyExc_ValueError, "negative dimensions not allowed");
        return nullptr;
      }
      Shape[K] = V;
      Known *= V;
    }
    int64_t Size = elementCount(D);
    if (Unknown >= 0)
      Shape[Unknown] = Known ? Size / Known : 0;
    int64_t Total = 1;
    for (Py_ssize_t K = 0; K < N; ++K)
      Total *= Shape[K];
    if (Total != Size) {
      Ref Given(tupleOf(Shape, int(N)));
      PyErr_Format(PyExc_ValueError,
                   "cannot reshape device array of size %lld into shape %S",
                   (long long)Size, Given.get());
      return nullptr;
    }
    bool C = isContiguous(D, true), F = isContiguous(D, false);
    if (Order == 'A')
      Order = F && !C ? 'F' : 'C';
    if ((Order == 'C' && !C) || (Order == 'F' && !F)) {
      PyErr_Format(PyExc_NotImplementedError,
                   "reshaping a device array that is not %s-contiguous needs a "
                   "copy; copy it into a contiguous array first",
                   Order == 'C' ? "C" : "F");
      return nullptr;
    }
    int64_t Strides[kMaxDims], S = D->itemsize;
    for (Py_ssize_t I = 0; I < N; ++I) {
      Py_ssize_t K = Order == 'C' ? N - 1 - I : I;
      Strides[K] = S;
      S *= Shape[K];
    }
    Ref Sh(tupleOf(Shape, int(N))), St(tupleOf(Strides, int(N)));
    return Py_BuildValue("(OO)", Sh.get(), St.get());
  });
}

// The other side of a copy must have the device array's dtype and shape.
void requireSameLayout(DeviceArrayObject *D, const InterfaceView &V,
                       const char *What) {
  if (V.dtype != D->type->dtype()) {
    PyErr_Format(PyExc_TypeError,
                 "%s: dtype '%s' does not match the device array's '%s'", What,
                 V.typestr.c_str(), D->typestr);
    throw PythonError{};
  }
  bool Same = V.ndim == D->ndim;
  for (int K = 0; Same && K < V.ndim; ++K)
    Same = V.shape[K] == D->shape[K];
  if (!Same) {
    Ref A(tupleOf(V.shape, V.ndim)), B(tupleOf(D->shape, D->ndim));
    PyErr_Format(PyExc_ValueError,
                 "%s: shape %S does not match the device array's %S", What,
                 A.get(), B.get());
    throw PythonError{};
  }
}

// The numpy array (or other __array_interface__ object) Host as a region;
// typestr and shape must match the device array.
void hostRegion(DeviceArrayObject *D, PyObject *Host, bool Writable,
                InterfaceView &V, const char *What) {
  Ref AI = getAttrOpt(Host, "__array_interface__");
  if (!AI || !PyDict_Check(AI.get())) {
    PyErr_Format(PyExc_TypeError, "%s: expected a numpy array, got %s", What,
                 typeName(Host).c_str());
    throw PythonError{};
  }
  readInterface(AI.get(), V, What, Host);
  requireSameLayout(D, V, What);
  if (Writable && V.readonly) {
    PyErr_Format(PyExc_ValueError, "%s: the target array is read-only", What);
    throw PythonError{};
  }
}

rt::StridedRegion deviceRegion(DeviceArrayObject *D) {
  return {D->ptr, D->ndim, D->shape, D->strides, true};
}

// A copy between self and the numpy array ary, either way.
PyObject *copyWithHost(PyObject *O, PyObject *Args, bool ToHost) {
  return guard([&]() -> PyObject * {
    auto *D = self(O);
    PyObject *Host, *Stream = nullptr;
    if (!PyArg_ParseTuple(Args, "O|O", &Host, &Stream))
      return nullptr;
    requireAlive(D->device, D->gen, "this device array");
    InterfaceView V;
    hostRegion(D, Host, ToHost, V, ToHost ? "copy_to_host" : "copy_to_device");
    rt::CUstream S = streamHandle(Stream);
    bool Async = !isDefaultStreamArg(Stream);
    rt::StridedRegion HostR{V.ptr, V.ndim, V.shape, V.strides, false};
    rt::StridedRegion DevR = deviceRegion(D);
    size_t Item = size_t(D->itemsize);
    withoutGil([&] {
      copyRegion(ToHost ? HostR : DevR, ToHost ? DevR : HostR, Item, S, Async);
    });
    Py_RETURN_NONE;
  });
}

// _copy_to_host(ary, stream=0): self -> the numpy array ary.
PyObject *deviceArrayCopyToHost(PyObject *O, PyObject *Args) {
  return copyWithHost(O, Args, true);
}

// _copy_from_host(ary, stream=0): the numpy array ary -> self.
PyObject *deviceArrayCopyFromHost(PyObject *O, PyObject *Args) {
  return copyWithHost(O, Args, false);
}

// _copy_from_device(other, stream=0): another device array (ours or any
// __cuda_array_interface__ object) -> self.
PyObject *deviceArrayCopyFromDevice(PyObject *O, PyObject *Args) {
  return guard([&]() -> PyObject * {
    auto *D = self(O);
    PyObject *Other, *Stream = nullptr;
    if (!PyArg_ParseTuple(Args, "O|O", &Other, &Stream))
      return nullptr;
    requireAlive(D->device, D->gen, "this device array");
    InterfaceView V;
    if (isDeviceArray(Other)) {
      auto *E = self(Other);
      requireAlive(E->device, E->gen, "the source device array");
      V.ptr = E->ptr;
      V.ndim = E->ndim;
      std::memcpy(V.shape, E->shape, sizeof(int64_t) * E->ndim);
      std::memcpy(V.strides, E->strides, sizeof(int64_t) * E->ndim);
      V.typestr = E->typestr;
      V.dtype = E->type->dtype();
    } else {
      Ref CAI = getAttr(Other, "__cuda_array_interface__");
      readInterface(CAI.get(), V, "copy_to_device", Other);
    }
    requireSameLayout(D, V, "copy_to_device");
    rt::CUstream S = streamHandle(Stream);
    bool Async = !isDefaultStreamArg(Stream);
    int From = isDeviceArray(Other) ? self(Other)->device : -1;
    if (From >= 0 && D->device >= 0 && From != D->device &&
        !executor().deviceMemoryIsHost) {
      // Between two GPUs' memories (the Python layer sends other layouts
      // through the host).
      if (!isContiguous(D, true) || !isContiguous(self(Other), true)) {
        PyErr_SetString(
            PyExc_ValueError,
            "copy_to_device between devices needs C-contiguous arrays");
        return nullptr;
      }
      size_t Bytes = size_t(elementCount(D) * D->itemsize);
      uint64_t Dst = D->ptr, SrcPtr = V.ptr;
      int To = D->device;
      withoutGil([&] { rt::copyPeer(Dst, To, SrcPtr, From, Bytes, S, Async); });
      Py_RETURN_NONE;
    }
    rt::StridedRegion Src{V.ptr, V.ndim, V.shape, V.strides, true};
    rt::StridedRegion Dst = deviceRegion(D);
    size_t Item = size_t(D->itemsize);
    withoutGil([&] { copyRegion(Dst, Src, Item, S, Async); });
    Py_RETURN_NONE;
  });
}

PyMethodDef DeviceArrayMethods[] = {
    {"is_c_contiguous", isCContig, METH_NOARGS, "True if C-contiguous."},
    {"is_f_contiguous", isFContig, METH_NOARGS, "True if Fortran-contiguous."},
    {"_index", deviceArrayIndex, METH_O, nullptr},
    {"_read_bytes", deviceArrayReadBytes, METH_O, nullptr},
    {"_reshape", deviceArrayReshape, METH_VARARGS, nullptr},
    {"_copy_to_host", deviceArrayCopyToHost, METH_VARARGS, nullptr},
    {"_copy_from_host", deviceArrayCopyFromHost, METH_VARARGS, nullptr},
    {"_copy_from_device", deviceArrayCopyFromDevice, METH_VARARGS, nullptr},
    {"__dlpack__",
     reinterpret_cast<PyCFunction>(
         reinterpret_cast<void (*)()>(deviceArrayDlpack)),
     METH_VARARGS | METH_KEYWORDS,
     "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)"},
    {"__dlpack_device__", deviceArrayDlpackDevice, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

PyMemberDef DeviceArrayMembers[] = {
    {"device_ctypes_pointer_value", T_ULONGLONG,
     offsetof(DeviceArrayObject, ptr), READONLY, nullptr},
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
    {Py_tp_methods, DeviceArrayMethods},
    {Py_mp_length, reinterpret_cast<void *>(deviceArrayLength)},
    {Py_tp_doc, const_cast<char *>("A strided array in device memory.")},
    {0, nullptr}};

PyType_Spec DeviceArraySpec = {
    "pycuda_jit._core.DeviceArray", sizeof(DeviceArrayObject), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    DeviceArraySlots};

} // namespace

bool isContiguous(const DeviceArrayObject *D, bool COrder) {
  if (elementCount(D) <= 1)
    return true;
  int64_t Expect = D->itemsize;
  for (int K = 0; K < D->ndim; ++K) {
    int Dim = COrder ? D->ndim - 1 - K : K;
    if (D->shape[Dim] == 1)
      continue;
    if (D->strides[Dim] != Expect)
      return false;
    Expect *= D->shape[Dim];
  }
  return true;
}

bool addDeviceArrayTypes(PyObject *Module) {
  AllocationType =
      reinterpret_cast<PyTypeObject *>(PyType_FromSpec(&AllocationSpec));
  HostAllocationType =
      reinterpret_cast<PyTypeObject *>(PyType_FromSpec(&HostAllocationSpec));
  DeviceArrayType =
      reinterpret_cast<PyTypeObject *>(PyType_FromSpec(&DeviceArraySpec));
  if (!AllocationType || !HostAllocationType || !DeviceArrayType)
    return false;
  Py_INCREF(AllocationType);
  Py_INCREF(HostAllocationType);
  Py_INCREF(DeviceArrayType);
  return PyModule_AddObject(Module, "Allocation",
                            reinterpret_cast<PyObject *>(AllocationType)) ==
             0 &&
         PyModule_AddObject(Module, "HostAllocation",
                            reinterpret_cast<PyObject *>(HostAllocationType)) ==
             0 &&
         PyModule_AddObject(Module, "DeviceArray",
                            reinterpret_cast<PyObject *>(DeviceArrayType)) == 0;
}

PyTypeObject *deviceArrayType() { return DeviceArrayType; }

bool isDeviceArray(PyObject *O) {
  return PyObject_TypeCheck(O, DeviceArrayType);
}

} // namespace pcj::py
