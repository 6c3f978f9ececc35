// DLPack export and import (see DLPack.h).
#include "DLPack.h"

#include "PyExecutor.h"
#include "Streams.h"

#include "types/BFloat16.h"

#include "runtime/Device.h"
#include "runtime/Stream.h"

#include <cstring>

namespace pcj::py {

namespace {

// ---- dlpack.h v1.0
// ------------------------------------------------------------------
enum : int32_t {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLCUDAManaged = 13
};
enum : uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6
};
struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides; // elements; NULL: compact row-major
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(DLManagedTensor *self);
};
struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void *manager_ctx;
  void (*deleter)(DLManagedTensorVersioned *self);
  uint64_t flags;
  DLTensor dl_tensor;
};
constexpr uint64_t kDLReadOnly = 1;

constexpr const char *kCapsule = "dltensor";
constexpr const char *kCapsuleUsed = "used_dltensor";
constexpr const char *kCapsuleV = "dltensor_versioned";
constexpr const char *kCapsuleVUsed = "used_dltensor_versioned";

[[noreturn]] void bufferError(const std::string &Msg) {
  PyErr_SetString(PyExc_BufferError, Msg.c_str());
  throw PythonError{};
}

[[noreturn]] void typeError(const std::string &Msg) {
  PyErr_SetString(PyExc_TypeError, Msg.c_str());
  throw PythonError{};
}

// ---- export
// -------------------------------------------------------------------------

struct ExportCtx {
  PyObject *array; // strong reference to the exported DeviceArray
  int64_t shape[kMaxDims];
  int64_t strides[kMaxDims];
  DLManagedTensor legacy;
  DLManagedTensorVersioned versioned;
};

void releaseExport(ExportCtx *C) {
  // A consumer (torch, CuPy) may free its tensor from its own static
  // destructors after Python finalized: taking the GIL then crashes.  The
  // exported array is gone with the interpreter; only the context is freed.
  if (Py_IsInitialized()) {
    PyGILState_STATE G = PyGILState_Ensure();
    Py_XDECREF(C->array);
    PyGILState_Release(G);
  }
  delete C;
}

void legacyDeleter(DLManagedTensor *T) {
  releaseExport(static_cast<ExportCtx *>(T->manager_ctx));
}

void versionedDeleter(DLManagedTensorVersioned *T) {
  releaseExport(static_cast<ExportCtx *>(T->manager_ctx));
}

// An unconsumed capsule still owns its tensor.
void capsuleDestructor(PyObject *Cap) {
  PyObject *Type, *Value, *Trace;
  PyErr_Fetch(&Type, &Value, &Trace);
  if (PyCapsule_IsValid(Cap, kCapsule)) {
    auto *T =
        static_cast<DLManagedTensor *>(PyCapsule_GetPointer(Cap, kCapsule));
    if (T && T->deleter)
      T->deleter(T);
  } else if (PyCapsule_IsValid(Cap, kCapsuleV)) {
    auto *T = static_cast<DLManagedTensorVersioned *>(
        PyCapsule_GetPointer(Cap, kCapsuleV));
    if (T && T->deleter)
      T->deleter(T);
  }
  PyErr_Restore(Type, Value, Trace);
}

// The DLPack dtype of an element type; false for types DLPack has no code
// for (records, strings, datetimes, fp8), which must not be exported as
// numbers.
bool dtypeOf(types::TypeRef E, DLDataType &T) {
  T = DLDataType{kDLFloat, uint8_t(E->byteSize() * 8), 1};
  if (E == types::bfloat16Ty())
    T.code = kDLBfloat;
  else if (E->isBool())
    T.code = kDLBool;
  else if (E->kind() == types::Kind::Int)
    T.code = E->isSigned() ? kDLInt : kDLUInt;
  else if (E->isComplex())
    T.code = kDLComplex;
  else if (!E->isFloat())
    return false;
  return true;
}

int32_t deviceOf(const DeviceArrayObject *D) {
  return D->gen ? D->device : executor().currentDevice();
}

// The stream value a consumer passed: nullptr for no synchronization.
bool consumerStream(PyObject *S, rt::CUstream &Out) {
  if (!S || S == Py_None) {
    Out = nullptr; // the legacy default stream: the spec's default for CUDA
    return true;
  }
  long long V = PyLong_AsLongLong(S);
  if (PyErr_Occurred())
    throw PythonError{};
  if (V == -1)
    return false;
  // 0 is disallowed by the protocol; read it as the legacy default stream.
  Out = reinterpret_cast<rt::CUstream>(uintptr_t(V));
  return true;
}

// ---- import
// -------------------------------------------------------------------------

struct DLPackOwnerObject {
  PyObject_HEAD void *tensor;
  bool versioned;
};

PyTypeObject *DLPackOwnerType = nullptr;

void ownerDealloc(PyObject *O) {
  auto *W = reinterpret_cast<DLPackOwnerObject *>(O);
  if (W->tensor) {
    if (W->versioned) {
      auto *T = static_cast<DLManagedTensorVersioned *>(W->tensor);
      if (T->deleter)
        T->deleter(T);
    } else {
      auto *T = static_cast<DLManagedTensor *>(W->tensor);
      if (T->deleter)
        T->deleter(T);
    }
  }
  PyTypeObject *T = Py_TYPE(O);
  auto *Free = reinterpret_cast<freefunc>(PyType_GetSlot(T, Py_tp_free));
  Free(O);
  Py_DECREF(T);
}

PyType_Slot OwnerSlots[] = {
    {Py_tp_dealloc, reinterpret_cast<void *>(ownerDealloc)},
    {Py_tp_doc, const_cast<char *>("Keeps memory imported through DLPack "
                                   "alive; calls the producer's deleter.")},
    {0, nullptr}};

PyType_Spec OwnerSpec = {"pycuda_jit._core.DLPackOwner",
                         sizeof(DLPackOwnerObject), 0, Py_TPFLAGS_DEFAULT,
                         OwnerSlots};

Ref makeOwner(void *Tensor, bool Versioned) {
  auto *Alloc = reinterpret_cast<PyObject *(*)(PyTypeObject *, Py_ssize_t)>(
      PyType_GetSlot(DLPackOwnerType, Py_tp_alloc));
  PyObject *O = Alloc(DLPackOwnerType, 0);
  if (!O)
    throw PythonError{};
  auto *W = reinterpret_cast<DLPackOwnerObject *>(O);
  W->tensor = Tensor;
  W->versioned = Versioned;
  return Ref(O);
}

std::string typestrOf(const DLDataType &T, const std::string &What) {
  if (T.lanes != 1)
    typeError(What + ": vector dtypes (lanes != 1) are not supported");
  int Bytes = T.bits / 8;
  if (T.bits % 8 || Bytes == 0)
    typeError(What + ": a " + std::to_string(T.bits) +
              "-bit dtype is not supported");
  char Kind = 0;
  switch (T.code) {
  case kDLBool:
    Kind = 'b';
    break;
  case kDLInt:
    Kind = 'i';
    break;
  case kDLUInt:
    Kind = 'u';
    break;
  case kDLFloat:
    Kind = 'f';
    break;
  case kDLComplex:
    Kind = 'c';
    break;
  case kDLBfloat:
    if (Bytes == 2)
      return kBfloat16Typestr;
    [[fallthrough]];
  default:
    typeError(What + ": DLPack dtype code " + std::to_string(T.code) +
              (T.code == kDLBfloat ? " (bfloat16)" : "") + " is not supported");
  }
  std::string S;
  S += Bytes == 1 ? '|' : '<';
  S += Kind;
  S += std::to_string(Bytes);
  return S;
}

// Calls obj.__dlpack__ with the keywords the consumer protocol allows,
// falling back for producers that predate them.
Ref callDlpack(PyObject *Obj, bool Cuda) {
  Ref Fn = getAttr(Obj, "__dlpack__");
  Ref Empty(PyTuple_New(0));
  Ref Stream = Cuda ? Ref(PyLong_FromLong(1)) : Ref::borrow(Py_None);
  {
    Ref Kw(Py_BuildValue("{s:O,s:(ii)}", "stream", Stream.get(), "max_version",
                         1, 0));
    if (PyObject *R = PyObject_Call(Fn.get(), Empty.get(), Kw.get()))
      return Ref(R);
    if (!PyErr_ExceptionMatches(PyExc_TypeError))
      throw PythonError{};
    PyErr_Clear();
  }
  {
    Ref Kw(Py_BuildValue("{s:O}", "stream", Stream.get()));
    if (PyObject *R = PyObject_Call(Fn.get(), Empty.get(), Kw.get()))
      return Ref(R);
    if (!PyErr_ExceptionMatches(PyExc_TypeError) || Cuda)
      throw PythonError{};
    PyErr_Clear();
  }
  return check(PyObject_CallObject(Fn.get(), nullptr));
}

} // namespace

bool addDLPackTypes(PyObject *Module) {
  DLPackOwnerType =
      reinterpret_cast<PyTypeObject *>(PyType_FromSpec(&OwnerSpec));
  if (!DLPackOwnerType)
    return false;
  Py_INCREF(DLPackOwnerType);
  return PyModule_AddObject(Module, "DLPackOwner",
                            reinterpret_cast<PyObject *>(DLPackOwnerType)) == 0;
}

PyObject *deviceArrayDlpack(PyObject *Self, PyObject *Args, PyObject *Kw) {
  return guard([&]() -> PyObject * {
    auto *D = reinterpret_cast<DeviceArrayObject *>(Self);
    PyObject *Stream = nullptr, *MaxVersion = nullptr, *DlDevice = nullptr,
             *Copy = nullptr;
    static const char *Names[] = {"stream", "max_version", "dl_device", "copy",
                                  nullptr};
    if (!PyArg_ParseTupleAndKeywords(Args, Kw, "|$OOOO",
                                     const_cast<char **>(Names), &Stream,
                                     &MaxVersion, &DlDevice, &Copy))
      return nullptr;
    requireAlive(D->device, D->gen, "this device array");
    bool Cuda = backend() == Backend::CUDA;
    int32_t DevType = Cuda ? kDLCUDA : kDLCPU;
    int32_t DevId = Cuda ? deviceOf(D) : 0;
    if (Copy && PyObject_IsTrue(Copy) == 1)
      bufferError("__dlpack__(copy=True): device arrays are only exported "
                  "without a copy");
    if (DlDevice && DlDevice != Py_None) {
      int T = 0, I = 0;
      if (!PyArg_ParseTuple(DlDevice, "ii", &T, &I))
        return nullptr;
      if (T != DevType || I != DevId)
        bufferError("__dlpack__: the array lives on device (" +
                    std::to_string(DevType) + ", " + std::to_string(DevId) +
                    "), not (" + std::to_string(T) + ", " + std::to_string(I) +
                    ")");
    }
    if (Cuda) { // the CPU executor orders everything already: no wait
      rt::CUstream Consumer;
      if (consumerStream(Stream, Consumer))
        executor().streamWaitStream(Consumer, streamHandle(D->stream));
    }
    bool Versioned = false;
    if (MaxVersion && MaxVersion != Py_None) {
      if (!PyTuple_Check(MaxVersion) || PyTuple_Size(MaxVersion) < 1)
        typeError("__dlpack__: max_version must be a (major, minor) tuple");
      long Major = PyLong_AsLong(PyTuple_GetItem(MaxVersion, 0));
      if (PyErr_Occurred())
        return nullptr;
      Versioned = Major >= 1;
    }
    auto *C = new ExportCtx();
    for (int K = 0; K < D->ndim; ++K) {
      C->shape[K] = D->shape[K];
      if (D->strides[K] % D->itemsize) {
        delete C;
        bufferError("__dlpack__: a stride is not a multiple of the item size");
      }
      C->strides[K] = D->strides[K] / D->itemsize;
    }
    DLTensor T{};
    if (!dtypeOf(D->type->dtype(), T.dtype)) {
      delete C;
      bufferError("__dlpack__: DLPack has no dtype for " +
                  D->type->dtype()->str());
    }
    T.data = reinterpret_cast<void *>(D->ptr);
    T.device = {DevType, DevId};
    T.ndim = D->ndim;
    T.shape = C->shape;
    T.strides = C->strides;
    T.byte_offset = 0;
    Py_INCREF(Self);
    C->array = Self;
    PyObject *Cap;
    if (Versioned) {
      C->versioned.version = {1, 0};
      C->versioned.manager_ctx = C;
      C->versioned.deleter = versionedDeleter;
      C->versioned.flags = 0;
      C->versioned.dl_tensor = T;
      Cap = PyCapsule_New(&C->versioned, kCapsuleV, capsuleDestructor);
    } else {
      C->legacy.dl_tensor = T;
      C->legacy.manager_ctx = C;
      C->legacy.deleter = legacyDeleter;
      Cap = PyCapsule_New(&C->legacy, kCapsule, capsuleDestructor);
    }
    if (!Cap) {
      Py_DECREF(Self);
      delete C;
    }
    return Cap;
  });
}

PyObject *deviceArrayDlpackDevice(PyObject *Self, PyObject *) {
  return guard([&]() -> PyObject * {
    auto *D = reinterpret_cast<DeviceArrayObject *>(Self);
    if (backend() == Backend::CUDA)
      return Py_BuildValue("(ii)", int(kDLCUDA), int(deviceOf(D)));
    return Py_BuildValue("(ii)", int(kDLCPU), 0);
  });
}

void importDlpack(PyObject *Obj, ImportedTensor &Out, const std::string &What) {
  bool Cuda = backend() == Backend::CUDA;
  Ref DevFn = getAttrOpt(Obj, "__dlpack_device__");
  if (!DevFn)
    typeError(What + ": " + typeName(Obj) +
              " has __dlpack__ but no __dlpack_device__");
  Ref Dev = check(PyObject_CallObject(DevFn.get(), nullptr));
  int DevType = 0, DevId = 0;
  if (!PyArg_ParseTuple(Dev.get(), "ii", &DevType, &DevId))
    throw PythonError{};
  bool Ok = Cuda ? (DevType == kDLCUDA || DevType == kDLCUDAManaged)
                 : DevType == kDLCPU;
  if (!Ok)
    typeError(What + ": a DLPack tensor on device type " +
              std::to_string(DevType) +
              (Cuda ? " is not CUDA memory (copy it to the GPU first, e.g. "
                      "cuda.to_device(numpy.from_dlpack(x)))"
                    : " cannot be used by the CPU executor (it needs host "
                      "memory, DLPack device type 1)"));
  Ref Cap = callDlpack(Obj, Cuda);
  DLTensor *T = nullptr;
  if (PyCapsule_IsValid(Cap.get(), kCapsuleV)) {
    auto *M = static_cast<DLManagedTensorVersioned *>(
        PyCapsule_GetPointer(Cap.get(), kCapsuleV));
    if (M->version.major > 1)
      bufferError(What + ": DLPack version " +
                  std::to_string(M->version.major) +
                  " is newer than this consumer (1.x)");
    if (PyCapsule_SetName(Cap.get(), kCapsuleVUsed) < 0)
      throw PythonError{};
    Out.owner = makeOwner(M, true);
    Out.view.readonly = (M->flags & kDLReadOnly) != 0;
    T = &M->dl_tensor;
  } else if (PyCapsule_IsValid(Cap.get(), kCapsule)) {
    auto *M = static_cast<DLManagedTensor *>(
        PyCapsule_GetPointer(Cap.get(), kCapsule));
    if (PyCapsule_SetName(Cap.get(), kCapsuleUsed) < 0)
      throw PythonError{};
    Out.owner = makeOwner(M, false);
    T = &M->dl_tensor;
  } else {
    typeError(What + ": __dlpack__() did not return an unused DLPack capsule");
  }
  if (T->ndim < 0 || T->ndim > kMaxDims)
    typeError(What + ": arrays of more than 8 dimensions are not supported");
  InterfaceView &V = Out.view;
  V.typestr = typestrOf(T->dtype, What);
  V.itemsize = T->dtype.bits / 8;
  V.ndim = T->ndim;
  V.ptr = uint64_t(reinterpret_cast<uintptr_t>(T->data)) + T->byte_offset;
  int64_t S = V.itemsize;
  for (int K = V.ndim; K-- > 0;) {
    V.shape[K] = T->shape[K];
    V.strides[K] = T->strides ? T->strides[K] * V.itemsize : S;
    S *= T->shape[K];
  }
}

PyObject *pyFromDlpack(PyObject *, PyObject *Obj) {
  return guard([&]() -> PyObject * {
    ImportedTensor I;
    importDlpack(Obj, I, "from_dlpack");
    const InterfaceView &V = I.view;
    Ref Shape(PyTuple_New(V.ndim)), Strides(PyTuple_New(V.ndim));
    for (int K = 0; K < V.ndim; ++K) {
      PyTuple_SetItem(Shape.get(), K, PyLong_FromLongLong(V.shape[K]));
      PyTuple_SetItem(Strides.get(), K, PyLong_FromLongLong(V.strides[K]));
    }
    return Py_BuildValue("(OKOOs)", I.owner.get(), (unsigned long long)V.ptr,
                         Shape.get(), Strides.get(), V.typestr.c_str());
  });
}

} // namespace pcj::py
