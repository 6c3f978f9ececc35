// Argument classification and packing (see ArgPack.h).
#include "ArgPack.h"
#include "EnumMembers.h"

#include "DLPack.h"
#include "ForeignArrays.h"
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
  if (Cuda && executor().deviceMemoryIsHost)
    requireHostAccess(V, "kernel argument " + std::to_string(Index + 1) +
                             " (a " + typeName(Owner) + ")");
  if (Cuda) {
    Out.ptr = V.ptr;
    Out.hasStream = V.hasStream && interfaceStreamSync();
    Out.stream = V.stream;
    return;
  }
  // A host array.
  if (executor().deviceMemoryIsHost) {
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

} // namespace

void classifyArg(PyObject *O, int Index, ArgValue &Out) {
  if (Index == 0)
    startArgumentList();
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
    if (isLastForeignType(O) && fromForeign(O, Index, Out))
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
  if (fromForeign(O, Index, Out))
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
  // A member of a plain Enum class: its value, typed with its class.
  if (PyObject *Cls = plainEnumClassOf(O)) {
    Ref V = getAttr(O, "_value_");
    auto Refuse = [&] {
      Ref R(PyObject_Repr(V.get()));
      PyErr_Clear();
      typeError(Index, "kernels cannot take the Enum member " + str(O) +
                           ", whose value " + (R ? str(R.get()) : "?") +
                           " is not a number, a bool or a tuple of those");
    };
    if (!PyNumber_Check(V.get()) && !PyTuple_Check(V.get()))
      Refuse();
    classifyArg(V.get(), Index, Out);
    if (!enumValueType(Out.type))
      Refuse();
    Out.type = enumMemberTy(enumClassKey(Cls), Out.type);
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
void syncStreams(rt::Executor &E, const std::vector<ArgValue> &Args,
                 rt::CUstream Stream, uint64_t Producer[3]) {
  for (const ArgValue &V : Args) {
    if (V.hasStream) {
      uint64_t S = V.stream;
      if (V.foreign) { // one query per kind and launch
        uint64_t &P = Producer[V.foreign];
        if (!P)
          P = foreignStream(V);
        S = P;
      }
      if (S)
        E.streamWaitStream(Stream, E.streamOfHandle(S));
    }
    if (!V.elems.empty())
      syncStreams(E, V.elems, Stream, Producer);
  }
}
} // namespace

namespace {
thread_local std::vector<ArgValue> ThreadArgList;
thread_local bool ThreadArgListInUse = false;
} // namespace

LaunchArgList::LaunchArgList(size_t N)
    : Vals(&Own), Reused(!ThreadArgListInUse) {
  if (Reused) {
    ThreadArgListInUse = true;
    Vals = &ThreadArgList;
  }
  Vals->resize(N); // empty before: value-initialized elements
}

LaunchArgList::~LaunchArgList() {
  if (Reused) {
    ThreadArgList.clear(); // keeps the capacity
    ThreadArgListInUse = false;
  }
}

void syncArgStreams(const std::vector<ArgValue> &Args, rt::CUstream Stream) {
  uint64_t Producer[3] = {0, 0, 0};
  syncStreams(executor(), Args, Stream, Producer);
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
