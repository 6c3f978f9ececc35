// Argument classification and packing (see ArgPack.h).
#include "ArgPack.h"

#include "DLPack.h"
#include "PyExecutor.h"

#include "runtime/Device.h"
#include "runtime/Stream.h"
#include "types/BFloat16.h"
#include "types/DateTime.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

namespace pcj::py {

using namespace types;

namespace {

[[noreturn]] void typeError(int Index, const std::string &Msg) {
  PyErr_Format(PyExc_TypeError, "kernel argument %d: %s", Index + 1,
               Msg.c_str());
  throw PythonError{};
}

// An array-interface dict (host or CUDA flavour) into Out.  On the CPU
// executor "device" memory is host memory: a CUDA-flavoured interface is
// used in place once its range is known to be host memory.
void fromInterface(PyObject *Dict, int Index, ArgValue &Out, bool Cuda,
                   PyObject *Owner) {
  InterfaceView V;
  readInterface(Dict, V, "kernel argument " + std::to_string(Index + 1), Owner);
  int N = V.ndim;
  Out.ndim = N;
  std::memcpy(Out.shape, V.shape, sizeof(int64_t) * N);
  std::memcpy(Out.strides, V.strides, sizeof(int64_t) * N);
  TypeRef DT = V.dtype;
  int64_t Item = V.itemsize;
  Out.type =
      arrayTy(DT, unsigned(N), layoutOf(N, Out.shape, Out.strides, Item));
  Out.readonly = V.readonly;
  if (Cuda && backend() == Backend::CPU)
    requireHostAccess(V, "kernel argument " + std::to_string(Index + 1) +
                             " (a " + typeName(Owner) + ")");
  if (Cuda) {
    Out.ptr = V.ptr;
    Out.hasStream = V.hasStream;
    Out.stream = V.stream;
    return;
  }
  // A host array.
  if (backend() == Backend::CPU) {
    Out.ptr = V.ptr;
    Out.hostInPlace = true;
    return;
  }
  // Extent in bytes of the strided region (non-negative strides only).
  int64_t Span = Item;
  for (int K = 0; K < N; ++K) {
    if (Out.shape[K] == 0) {
      Span = 0;
      break;
    }
    if (Out.strides[K] < 0)
      typeError(Index,
                "host arrays with negative strides cannot be passed to a "
                "kernel; make a copy with numpy.ascontiguousarray");
    Span += (Out.shape[K] - 1) * Out.strides[K];
  }
  // Mapped and managed memory is used in place.
  if (uint64_t Dev = deviceAddressOfHost(V.ptr, size_t(Span))) {
    Out.ptr = Dev;
    return;
  }
  Out.hostPtr = V.ptr;
  Out.nbytes = size_t(Span);
}

// numpy scalar types seen so far -> their dtype, so that the launch path
// reads a numpy scalar with a type lookup instead of attribute lookups.
// A numpy scalar object holds its value right after the object header
// (PyFloatScalarObject and friends, numpy/arrayscalars.h); `direct` says a
// read there was checked against the number protocol when the type was
// first seen, so later reads skip the conversion through a Python object.
// Only touched with the GIL held, which serializes it; type objects are kept
// alive by the references held.
struct ScalarKind {
  TypeRef type = nullptr;
  bool direct = false;
};
struct ScalarTypeCache {
  PyTypeObject *lastType = nullptr;
  ScalarKind last;
  std::unordered_map<PyTypeObject *, ScalarKind> types;
};
ScalarTypeCache &scalarTypes() {
  static auto *C = new ScalarTypeCache(); // lives as long as the process
  return *C;
}

const ScalarKind *cachedScalarType(PyObject *O) {
  ScalarTypeCache &C = scalarTypes();
  PyTypeObject *T = Py_TYPE(O);
  if (T == C.lastType)
    return &C.last;
  auto It = C.types.find(T);
  if (It == C.types.end())
    return nullptr;
  C.lastType = T;
  C.last = It->second;
  return &C.last;
}

// The value stored in a numpy scalar object of type T (see ScalarKind);
// false for types read only through the number protocol (float16, complex).
bool readStoredScalar(PyObject *O, TypeRef T, ArgValue &Out) {
  const char *P = reinterpret_cast<const char *>(O) + sizeof(PyObject);
  auto Load = [P](auto V) {
    std::memcpy(&V, P, sizeof V);
    return V;
  };
  if (T->isFloat() && T->bits() == 32)
    Out.f = Load(float());
  else if (T->isFloat() && T->bits() == 64)
    Out.f = Load(double());
  else if (T->isBool())
    Out.i = Load(uint8_t()) != 0;
  else if (T->isInt() && T->isSigned())
    Out.i = T->bits() == 8    ? Load(int8_t())
            : T->bits() == 16 ? Load(int16_t())
            : T->bits() == 32 ? Load(int32_t())
                              : Load(int64_t());
  else if (T->isInt())
    Out.u = T->bits() == 8    ? Load(uint8_t())
            : T->bits() == 16 ? Load(uint16_t())
            : T->bits() == 32 ? Load(uint32_t())
                              : Load(uint64_t());
  else
    return false;
  Out.type = T;
  return true;
}

// The value of a numpy scalar of known type, through the number protocol.
void readNumpyScalar(PyObject *O, TypeRef T, ArgValue &Out) {
  Out.type = T;
  if (T->isComplex()) { // complex(O): numpy's complex64 (complex128 is a
                        // complex)
    Ref C = check(PyObject_CallFunctionObjArgs(
        reinterpret_cast<PyObject *>(&PyComplex_Type), O, nullptr));
    Out.f = PyComplex_RealAsDouble(C.get());
    Out.fi = PyComplex_ImagAsDouble(C.get());
  } else if (T->isFloat()) {
    Out.f = PyFloat_AsDouble(O);
  } else if (types::isDateLike(T)) { // its int64 count: x.view("i8")
    Ref I = check(PyObject_CallMethod(O, "view", "s", "i8"));
    Ref N = check(PyNumber_Index(I.get()));
    Out.i = PyLong_AsLongLong(N.get());
  } else if (T->isBool()) {
    int B = PyObject_IsTrue(O);
    if (B < 0)
      throw PythonError{};
    Out.i = B;
  } else {
    Ref I = check(PyNumber_Index(O));
    if (T->isSigned())
      Out.i = PyLong_AsLongLong(I.get());
    else
      Out.u = PyLong_AsUnsignedLongLong(I.get());
  }
  if (PyErr_Occurred())
    throw PythonError{};
}

// Records O's type as a numpy scalar of dtype T; `Read` holds O's value
// read through the number protocol, to check that the stored value is where
// numpy's layout puts it (and its object size matches) before trusting it.
// Only numpy's own scalar types are remembered (`DType.type is type(O)`):
// their dtype and layout are fixed per type, unlike a subclass's or another
// object's that merely has a 0-d array interface.
void rememberScalarType(PyObject *O, PyObject *DType, TypeRef T,
                        const ArgValue &Read) {
  Ref Exact = getAttrOpt(DType, "type");
  if (Exact.get() != reinterpret_cast<PyObject *>(Py_TYPE(O)))
    return;
  ScalarKind K{T, false};
  ArgValue Stored;
  Ref Size =
      getAttrOpt(reinterpret_cast<PyObject *>(Py_TYPE(O)), "__basicsize__");
  long Basic = Size ? PyLong_AsLong(Size.get()) : 0;
  PyErr_Clear();
  if (Basic >= long(sizeof(PyObject)) + long(T->byteSize()) &&
      Basic <= long(sizeof(PyObject)) + 8 && readStoredScalar(O, T, Stored))
    K.direct = std::memcmp(&Stored.i, &Read.i, sizeof Read.i) == 0 &&
               std::memcmp(&Stored.u, &Read.u, sizeof Read.u) == 0 &&
               std::memcmp(&Stored.f, &Read.f, sizeof Read.f) == 0;
  ScalarTypeCache &C = scalarTypes();
  if (C.types.emplace(Py_TYPE(O), K).second)
    Py_INCREF(reinterpret_cast<PyObject *>(Py_TYPE(O)));
}

// ---- fast paths for torch tensors and CuPy arrays
// ---------------------------------
//
// Their __cuda_array_interface__ builds a dict on every access (torch's in
// Python, ~3 us); reading the few fields directly costs a fraction of that.
// The semantics are the interface's: the data pointer, shape, byte strides,
// dtype, and the producer's current stream (waited on when it is not the
// launch stream).  Anything unusual falls back to the interface.
//
// Attribute names are interned str objects made once: a lookup with one
// hits CPython's per-type attribute cache, while a name made from a C string
// on each call misses it (measured on the H200 machine: 3x slower per
// attribute of a torch tensor).  The caches below are only touched with the
// GIL held, which serializes them.

enum class Foreign : uint8_t { None, Torch, Cupy };

struct AttrNames {
  PyObject *dtype, *shape, *strides, *stride, *data, *ptr, *dataPtr, *getDevice,
      *isCuda;
};
const AttrNames &names() {
  static const AttrNames N = [] {
    auto I = [](const char *S) { return PyUnicode_InternFromString(S); };
    return AttrNames{I("dtype"),    I("shape"),      I("strides"),
                     I("stride"),   I("data"),       I("ptr"),
                     I("data_ptr"), I("get_device"), I("is_cuda")};
  }();
  return N;
}

// A call of O.<Name>() (null, error cleared, when it fails).
Ref callMethod(PyObject *O, PyObject *Name) {
  Ref M(PyObject_GetAttr(O, Name));
  Ref R(M ? PyObject_CallNoArgs(M.get()) : nullptr);
  if (!R)
    PyErr_Clear();
  return R;
}
Ref attr(PyObject *O, PyObject *Name) {
  Ref R(PyObject_GetAttr(O, Name));
  if (!R)
    PyErr_Clear();
  return R;
}

struct ForeignCache {
  PyTypeObject *lastType = nullptr; // the last type classified, and its kind
  Foreign lastKind = Foreign::None;
  std::unordered_map<PyTypeObject *, Foreign> kinds; // types kept alive
  std::unordered_map<PyObject *, TypeRef> dtypes; // dtype objects (kept alive)
  // (dtype object, ndim, layout) -> array type, for the last few seen
  struct ArrayEntry {
    PyObject *dtype = nullptr;
    int ndim = -1;
    Layout layout = Layout::A;
    TypeRef type = nullptr;
  } arrays[8];
  unsigned nextArray = 0;
  PyObject *torchStream = nullptr; // torch._C._cuda_getCurrentRawStream
  PyObject *cupyStream = nullptr;  // cupy.cuda.get_current_stream
};
ForeignCache &foreign() {
  static auto *C = new ForeignCache(); // lives as long as the process
  return *C;
}

Foreign foreignKind(PyObject *O) {
  ForeignCache &C = foreign();
  PyTypeObject *T = Py_TYPE(O);
  if (T == C.lastType)
    return C.lastKind;
  Foreign K = Foreign::None;
  auto It = C.kinds.find(T);
  if (It != C.kinds.end()) {
    K = It->second;
  } else {
    Ref Mod = getAttrOpt(reinterpret_cast<PyObject *>(T), "__module__");
    std::string M = Mod ? str(Mod.get()) : "";
    if (M.rfind("torch", 0) == 0 && getAttrOpt(O, "data_ptr") &&
        getAttrOpt(O, "get_device"))
      K = Foreign::Torch;
    else if (M.rfind("cupy", 0) == 0 && getAttrOpt(O, "data") &&
             getAttrOpt(O, "__cuda_array_interface__"))
      K = Foreign::Cupy;
    PyErr_Clear();
    if (C.kinds.emplace(T, K).second)
      Py_INCREF(reinterpret_cast<PyObject *>(T));
  }
  C.lastType = T;
  C.lastKind = K;
  return K;
}

// A dtype object -> scalar type, through its name (cached per object).
TypeRef foreignDType(PyObject *DT, bool Torch) {
  ForeignCache &C = foreign();
  auto It = C.dtypes.find(DT);
  if (It != C.dtypes.end())
    return It->second;
  TypeRef T = nullptr;
  if (Torch) { // "torch.float32"
    std::string N = str(DT);
    if (N.rfind("torch.", 0) == 0)
      T = scalarFromName(N.substr(6));
  } else if (Ref S = getAttrOpt(DT, "str")) { // numpy typestr "<f4"
    T = scalarFromTypestr(str(S.get()));
  }
  if (C.dtypes.emplace(DT, T).second)
    Py_INCREF(DT);
  return T;
}

// The array type of a foreign array (null: a dtype kernels cannot take).
TypeRef foreignArrayType(PyObject *DT, bool Torch, int NDim, Layout L) {
  ForeignCache &C = foreign();
  for (const auto &E : C.arrays)
    if (E.dtype == DT && E.ndim == NDim && E.layout == L)
      return E.type;
  TypeRef D = foreignDType(DT, Torch); // keeps DT alive
  if (!D)
    return nullptr;
  auto &E = C.arrays[C.nextArray++ % std::size(C.arrays)];
  E = {DT, NDim, L, arrayTy(D, unsigned(NDim), L)};
  return E.type;
}

bool tupleToDims(PyObject *Tup, int64_t *Out, int &N) {
  if (!PyTuple_Check(Tup) || PyTuple_Size(Tup) > kMaxDims)
    return false;
  N = int(PyTuple_Size(Tup));
  for (int K = 0; K < N; ++K)
    Out[K] = PyLong_AsLongLong(PyTuple_GetItem(Tup, K));
  if (N && PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  return true;
}

// The stream field of O's __cuda_array_interface__ (0 if none).
uint64_t interfaceStream(PyObject *O) {
  Ref CAI = getAttrOpt(O, "__cuda_array_interface__");
  PyObject *S = CAI && PyDict_Check(CAI.get())
                    ? PyDict_GetItemString(CAI.get(), "stream")
                    : nullptr;
  uint64_t V = S && S != Py_None ? PyLong_AsUnsignedLongLong(S) : 0;
  PyErr_Clear();
  return V;
}

// The producer's current stream as a CAI stream value (1: legacy default):
// torch's on the device of tensor O, CuPy's.
uint64_t currentStream(Foreign K, PyObject *O) {
  ForeignCache &C = foreign();
  Ref S;
  if (K == Foreign::Torch) {
    Ref Dev = callMethod(O, names().getDevice);
    if (!Dev)
      return interfaceStream(O);
    if (!C.torchStream) {
      Ref Mod(PyImport_ImportModule("torch._C"));
      Ref Fn = Mod ? getAttrOpt(Mod.get(), "_cuda_getCurrentRawStream") : Ref();
      PyErr_Clear();
      if (!Fn)
        return interfaceStream(O);
      C.torchStream = Fn.release();
    }
    S = Ref(PyObject_CallFunctionObjArgs(C.torchStream, Dev.get(), nullptr));
  } else {
    if (!C.cupyStream) {
      Ref Mod(PyImport_ImportModule("cupy.cuda"));
      Ref Fn = Mod ? getAttrOpt(Mod.get(), "get_current_stream") : Ref();
      PyErr_Clear();
      if (!Fn)
        return interfaceStream(O);
      C.cupyStream = Fn.release();
    }
    Ref Stream(PyObject_CallNoArgs(C.cupyStream));
    S = Stream ? attr(Stream.get(), names().ptr) : Ref();
  }
  uint64_t V = S ? PyLong_AsUnsignedLongLong(S.get()) : 0;
  PyErr_Clear();
  return V ? V : 1;
}

// Fills Out for a CUDA torch tensor or CuPy array; false: use the interface.
bool fromForeign(PyObject *O, ArgValue &Out) {
  Foreign K = foreignKind(O);
  if (K == Foreign::None || backend() != Backend::CUDA)
    return false;
  const AttrNames &A = names();
  bool Torch = K == Foreign::Torch;
  Ref Ptr, Strides;
  if (Torch) {
    // CUDA tensors only (is_cuda: not CPU, MPS, XPU...); the others take the
    // interface path, which rejects them.
    Ref IsCuda = attr(O, A.isCuda);
    if (IsCuda.get() != Py_True)
      return false;
    Ptr = callMethod(O, A.dataPtr);
    Strides = callMethod(O, A.stride);
  } else {
    if (Ref Mem = attr(O, A.data))
      Ptr = attr(Mem.get(), A.ptr);
    Strides = attr(O, A.strides);
  }
  Ref DT = attr(O, A.dtype);
  Ref Shape = attr(O, A.shape);
  int N = 0, NS = 0;
  if (!DT || !Shape || !Strides || !Ptr ||
      !tupleToDims(Shape.get(), Out.shape, N) ||
      !tupleToDims(Strides.get(), Out.strides, NS) || N != NS)
    return false;
  TypeRef D = foreignDType(DT.get(), Torch);
  if (!D)
    return false;
  int64_t Item = D->byteSize();
  if (Torch) // torch strides count elements
    for (int J = 0; J < N; ++J)
      Out.strides[J] *= Item;
  Out.ptr = PyLong_AsUnsignedLongLong(Ptr.get());
  if (PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  Out.ndim = N;
  Out.type = foreignArrayType(DT.get(), Torch, N,
                              layoutOf(N, Out.shape, Out.strides, Item));
  Out.hasStream = true;
  Out.foreign = uint8_t(K);
  Out.object = O;
  return true;
}

} // namespace

void classifyArg(PyObject *O, int Index, ArgValue &Out) {
  if (isDeviceArray(O)) {
    auto *D = reinterpret_cast<DeviceArrayObject *>(O);
    if (D->gen && !blockAlive(D->device, D->gen)) [[unlikely]]
      requireAlive(D->device, D->gen,
                   ("kernel argument " + std::to_string(Index + 1)).c_str());
    Out.type = D->type;
    Out.ptr = D->ptr;
    Out.device = D->device;
    Out.ndim = D->ndim;
    std::memcpy(Out.shape, D->shape, sizeof(int64_t) * D->ndim);
    std::memcpy(Out.strides, D->strides, sizeof(int64_t) * D->ndim);
    if (!Out.type)
      typeError(Index, "uninitialised device array");
    return;
  }
  // numpy scalars and torch/CuPy arrays of a type seen before: a type
  // compare or two, ahead of the subtype checks below (each walks the MRO).
  PyTypeObject *T = Py_TYPE(O);
  if (T != &PyFloat_Type && T != &PyLong_Type && T != &PyBool_Type) {
    if (const ScalarKind *K = cachedScalarType(O)) {
      if (!K->direct || !readStoredScalar(O, K->type, Out))
        readNumpyScalar(O, K->type, Out);
      return;
    }
    if (T == foreign().lastType && foreign().lastKind != Foreign::None &&
        fromForeign(O, Out))
      return;
  }
  static const TypeRef Bool = boolTy(), Int64 = int64Ty(),
                       Float64 = float64Ty();
  if (PyBool_Check(O)) {
    Out.type = Bool;
    Out.i = O == Py_True;
    return;
  }
  if (PyLong_Check(O)) {
    Out.type = Int64;
    int Overflow = 0;
    Out.i = PyLong_AsLongLongAndOverflow(O, &Overflow);
    if (Overflow)
      typeError(Index, "integer " + str(O) + " does not fit in int64");
    return;
  }
  if (PyFloat_Check(O)) {
    Out.type = Float64;
    Out.f = PyFloat_AsDouble(O);
    return;
  }
  if (PyComplex_Check(O)) {
    Out.type = complexTy(128);
    Out.f = PyComplex_RealAsDouble(O);
    Out.fi = PyComplex_ImagAsDouble(O);
    return;
  }
  if (PyTuple_Check(O)) {
    std::vector<TypeRef> Elems;
    Py_ssize_t N = PyTuple_Size(O);
    Out.elems.resize(N);
    for (Py_ssize_t K = 0; K < N; ++K) {
      // A NumPy array inside is staged through device memory like a
      // top-level one (copied in, and back unless read-only).
      classifyArg(PyTuple_GetItem(O, K), Index, Out.elems[K]);
      Elems.push_back(Out.elems[K].type);
    }
    std::vector<std::string> Fields;
    PyObject *Class = reinterpret_cast<PyObject *>(Py_TYPE(O));
    if (Py_TYPE(O) != &PyTuple_Type && namedTupleFields(Class, Fields) &&
        Fields.size() == Elems.size())
      Out.type =
          namedTupleTy(str(getAttr(Class, "__name__").get()), Fields, Elems);
    else
      Out.type = tupleTy(Elems);
    return;
  }
  if (fromForeign(O, Out))
    return;
  if (Ref CAI = getAttrOpt(O, "__cuda_array_interface__")) {
    fromInterface(CAI.get(), Index, Out, true, O);
    return;
  }
  if (Ref AI = getAttrOpt(O, "__array_interface__")) {
    Ref Shape = getAttrOpt(O, "shape");
    // numpy scalars have an array interface with shape (): treat as scalars.
    if (Shape && PyTuple_Check(Shape.get()) && PyTuple_Size(Shape.get()) == 0 &&
        !getAttrOpt(O, "__len__")) {
      Ref DT = getAttr(O, "dtype");
      Ref Name = getAttr(DT.get(), "name");
      TypeRef T = scalarFromName(str(Name.get()));
      if (!T)
        typeError(Index, "numpy scalars of dtype " + str(Name.get()) +
                             " are not supported");
      readNumpyScalar(O, T, Out);
      rememberScalarType(O, DT.get(), T, Out);
      return;
    }
    fromInterface(AI.get(), Index, Out, false, O);
    // A record (numpy.void) viewing a writable array: NumPy 2.5 marks every
    // scalar's array interface read-only, but numba-cuda writes a record
    // argument back (its flags say whether the memory may be written).
    if (Out.readonly && Out.ndim == 0 && Out.type && Out.type->dtype() &&
        Out.type->dtype()->kind() == types::Kind::Record)
      if (Ref Flags = getAttrOpt(O, "flags"))
        if (Ref W = getAttrOpt(Flags.get(), "writeable"))
          Out.readonly = PyObject_IsTrue(W.get()) != 1;
    if (Out.hostPtr)
      Out.host = O;
    return;
  }
  if (getAttrOpt(O, "__dlpack__")) {
    ImportedTensor T;
    importDlpack(O, T, "kernel argument " + std::to_string(Index + 1));
    const InterfaceView &V = T.view;
    Out.ndim = V.ndim;
    std::memcpy(Out.shape, V.shape, sizeof(int64_t) * V.ndim);
    std::memcpy(Out.strides, V.strides, sizeof(int64_t) * V.ndim);
    Out.ptr = V.ptr;
    Out.readonly = V.readonly;
    std::string Why;
    Out.type = arrayTy(elementTypeOf(V.typestr, nullptr, Why), unsigned(V.ndim),
                       layoutOf(V.ndim, V.shape, V.strides, V.itemsize));
    Out.keep = std::move(T.owner);
    return;
  }
  typeError(Index,
            "kernels cannot take a " + typeName(O) +
                " (pass device arrays, numpy arrays, numbers or tuples)");
}

namespace {
// The first array in V (tuples searched) that lives on another device.
const ArgValue *foreignDeviceArray(const ArgValue &V, int Device) {
  if (V.device >= 0 && V.device != Device)
    return &V;
  for (const ArgValue &E : V.elems)
    if (const ArgValue *F = foreignDeviceArray(E, Device))
      return F;
  return nullptr;
}
} // namespace

void checkArgDevices(const std::vector<ArgValue> &Args, int Device) {
  for (size_t K = 0; K < Args.size(); ++K) {
    const ArgValue *F = foreignDeviceArray(Args[K], Device);
    if (!F)
      continue;
    std::string Msg = "kernel argument " + std::to_string(K + 1) +
                      " is an array on device " + std::to_string(F->device) +
                      ", but the kernel is launched on device " +
                      std::to_string(Device) +
                      " (the current device): launch it under `with "
                      "cuda.gpus[" +
                      std::to_string(F->device) +
                      "]:`, or copy the array to "
                      "device " +
                      std::to_string(Device) +
                      " first (cuda.device_array_like(a) "
                      "then .copy_to_device(a) there)";
    Ref Cls(errorsModule()
                ? PyObject_GetAttrString(errorsModule(), "DeviceMismatchError")
                : nullptr);
    PyErr_Clear();
    PyErr_SetString(Cls ? Cls.get() : PyExc_ValueError, Msg.c_str());
    throw PythonError{};
  }
}

namespace {
void syncStreams(const std::vector<ArgValue> &Args, rt::CUstream Stream,
                 uint64_t Producer[3]) {
  for (const ArgValue &V : Args) {
    if (V.hasStream) {
      uint64_t S = V.stream;
      if (V.foreign) { // one query per kind and launch
        uint64_t &P = Producer[V.foreign];
        if (!P)
          P = currentStream(Foreign(V.foreign), V.object);
        S = P;
      }
      if (S)
        rt::streamWaitStream(Stream,
                             reinterpret_cast<rt::CUstream>(uintptr_t(S)));
    }
    if (!V.elems.empty())
      syncStreams(V.elems, Stream, Producer);
  }
}
} // namespace

void syncArgStreams(const std::vector<ArgValue> &Args, rt::CUstream Stream) {
  uint64_t Producer[3] = {0, 0, 0};
  syncStreams(Args, Stream, Producer);
}

namespace {

const ArgValue &at(const std::vector<ArgValue> &Args, const AbiSlot &S) {
  const ArgValue *V = &Args[S.arg];
  for (unsigned P : S.path)
    V = &V->elems[P];
  return *V;
}

// A number as bfloat16 bits, rounded once to nearest even (NaN: 0x7fff):
// through a float32 rounded to odd, which keeps the information the final
// rounding needs (long double holds every int64/uint64 and double exactly).
uint16_t bfloat16Bits(long double X) {
  if (X != X)
    return 0x7FFF;
  float F = float(X); // nearest even; only its inexactness matters below
  uint32_t U;
  std::memcpy(&U, &F, 4);
  if ((long double)F != X) {
    if (std::fabs((long double)F) > std::fabs(X))
      --U; // toward zero (inf -> the largest float)
    U |= 1;
  }
  uint32_t Hi = U >> 16, Lo = U & 0xFFFF;
  if (Lo > 0x8000 || (Lo == 0x8000 && (Hi & 1)))
    ++Hi;
  return uint16_t(Hi);
}

// A number as IEEE float16 bits, rounded once to nearest even, subnormals
// kept (NaN: 0x7e00 with the sign): |X| = N * 2**(E - 10) with N rounded.
uint16_t float16Bits(long double X) {
  uint16_t Sign = std::signbit(X) ? 0x8000 : 0;
  if (X != X)
    return Sign | 0x7E00;
  long double A = std::fabs(X);
  if (A >=
      65520.0L) // the largest finite value plus half its ulp: a tie to infinity
    return Sign | 0x7C00;
  if (A == 0)
    return Sign;
  int E;
  std::frexp(A, &E); // A = m * 2**E, 0.5 <= m < 1: the leading bit is 2**(E-1)
  E = std::max(E - 1, -14);
  long double Scaled = std::ldexp(A, 10 - E); // exact: a power-of-two scaling
  long double N = std::floor(Scaled), Rem = Scaled - N;
  uint32_t Q = uint32_t(N);
  if (Rem > 0.5L || (Rem == 0.5L && (Q & 1)))
    ++Q; // a carry steps the exponent (subnormal -> normal, binade -> next)
  return Sign | uint16_t(((E + 14) << 10) + Q);
}

void writeScalar(char *Dst, TypeRef Param, const ArgValue &V) {
  TypeRef From = V.type;
  // Read the source as double / int64 / uint64.
  bool FromFloat = From->isFloat();
  bool FromUnsigned = From->isInt() && !From->isSigned();
  auto AsF = [&] {
    return FromFloat ? V.f : FromUnsigned ? double(V.u) : double(V.i);
  };
  auto AsI = [&] {
    return FromFloat ? int64_t(V.f) : FromUnsigned ? int64_t(V.u) : V.i;
  };
  if (Param->isComplex()) {
    double Re = From->isComplex() ? V.f : AsF();
    double Im = From->isComplex() ? V.fi : 0.0;
    if (Param->bits() == 64) {
      float P[2] = {float(Re), float(Im)};
      std::memcpy(Dst, P, 8);
    } else {
      double P[2] = {Re, Im};
      std::memcpy(Dst, P, 16);
    }
    return;
  }
  if (Param->isBool()) {
    uint8_t B = FromFloat ? V.f != 0 : AsI() != 0;
    std::memcpy(Dst, &B, 1);
    return;
  }
  if (types::isBFloat16(Param)) {
    uint16_t H = bfloat16Bits(FromFloat      ? (long double)V.f
                              : FromUnsigned ? (long double)V.u
                                             : (long double)V.i);
    std::memcpy(Dst, &H, 2);
    return;
  }
  if (Param->isFloat()) {
    if (Param->bits() == 32) {
      float F = float(AsF());
      std::memcpy(Dst, &F, 4);
    } else if (Param->bits() == 64) {
      double D = AsF();
      std::memcpy(Dst, &D, 8);
    } else { // float16
      uint16_t H = float16Bits(FromFloat      ? (long double)V.f
                               : FromUnsigned ? (long double)V.u
                                              : (long double)V.i);
      std::memcpy(Dst, &H, 2);
    }
    return;
  }
  int64_t I = AsI();
  std::memcpy(Dst, &I, Param->byteSize()); // little-endian truncation
}

} // namespace

void packArgs(const std::vector<AbiSlot> &Slots,
              const std::vector<size_t> &Offsets,
              const std::vector<TypeRef> &ParamTypes,
              const std::vector<ArgValue> &Args, char *Buf, void **Params) {
  for (size_t K = 0; K < Slots.size(); ++K) {
    const AbiSlot &S = Slots[K];
    const ArgValue &V = at(Args, S);
    char *Dst = Buf + Offsets[K];
    Params[S.param] = Dst - S.offset; // an aggregate: its first byte
    switch (S.kind) {
    case AbiSlot::Kind::Data:
      std::memcpy(Dst, &V.ptr, 8);
      break;
    case AbiSlot::Kind::Shape:
      std::memcpy(Dst, &V.shape[S.dim], 8);
      break;
    case AbiSlot::Kind::Stride:
      std::memcpy(Dst, &V.strides[S.dim], 8);
      break;
    case AbiSlot::Kind::Scalar:
      writeScalar(Dst, S.scalar, V);
      break;
    }
  }
}

} // namespace pcj::py
