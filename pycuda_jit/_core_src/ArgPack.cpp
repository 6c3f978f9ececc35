// Argument classification and packing (see ArgPack.h).
#include "ArgPack.h"

#include "Backend.h"
#include "DLPack.h"

#include "runtime/Device.h"
#include "runtime/Stream.h"

#include <cstring>
#include <mutex>
#include <unordered_map>

namespace pcj::py {

using namespace types;

namespace {

[[noreturn]] void typeError(int Index, const std::string &Msg) {
  PyErr_Format(PyExc_TypeError, "kernel argument %d: %s", Index + 1, Msg.c_str());
  throw PythonError{};
}

// An array-interface dict (host or CUDA flavour) into Out.
void fromInterface(PyObject *Dict, int Index, ArgValue &Out, bool Cuda) {
  InterfaceView V;
  readInterface(Dict, V, "kernel argument " + std::to_string(Index + 1));
  int N = V.ndim;
  Out.ndim = N;
  std::memcpy(Out.shape, V.shape, sizeof(int64_t) * N);
  std::memcpy(Out.strides, V.strides, sizeof(int64_t) * N);
  TypeRef DT = scalarFromTypestr(V.typestr);
  int64_t Item = V.itemsize;
  Out.type = arrayTy(DT, unsigned(N), layoutOf(N, Out.shape, Out.strides, Item));
  if (Cuda) {
    Out.ptr = V.ptr;
    Out.hasStream = V.hasStream;
    Out.stream = V.stream;
    return;
  }
  // A host array.
  if (backend() == BackendKind::CPU) {
    Out.ptr = V.ptr;
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
      typeError(Index, "host arrays with negative strides cannot be passed to a "
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
  Out.hostReadonly = V.readonly;
}

// numpy scalar types seen so far -> their dtype, so that the launch path
// reads a numpy scalar with one map lookup and one number conversion instead
// of attribute lookups.  Type objects are kept alive by the references held.
struct ScalarTypeCache {
  std::mutex Mu;
  std::unordered_map<PyTypeObject *, TypeRef> Types;
};
ScalarTypeCache &scalarTypes() {
  static auto *C = new ScalarTypeCache(); // lives as long as the process
  return *C;
}

TypeRef cachedScalarType(PyObject *O) {
  ScalarTypeCache &C = scalarTypes();
  std::lock_guard<std::mutex> L(C.Mu);
  auto It = C.Types.find(Py_TYPE(O));
  return It == C.Types.end() ? nullptr : It->second;
}

void rememberScalarType(PyObject *O, TypeRef T) {
  ScalarTypeCache &C = scalarTypes();
  std::lock_guard<std::mutex> L(C.Mu);
  if (C.Types.emplace(Py_TYPE(O), T).second)
    Py_INCREF(reinterpret_cast<PyObject *>(Py_TYPE(O)));
}

// The value of a numpy scalar of known type, through the number protocol.
void readNumpyScalar(PyObject *O, TypeRef T, ArgValue &Out) {
  Out.type = T;
  if (T->isFloat()) {
    Out.f = PyFloat_AsDouble(O);
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

} // namespace

void classifyArg(PyObject *O, int Index, ArgValue &Out) {
  if (isDeviceArray(O)) {
    auto *D = reinterpret_cast<DeviceArrayObject *>(O);
    if (D->gen && rt::contextGeneration(D->device) != D->gen) [[unlikely]]
      requireAlive(D->device, D->gen,
                   ("kernel argument " + std::to_string(Index + 1)).c_str());
    Out.type = D->type;
    Out.ptr = D->ptr;
    Out.ndim = D->ndim;
    std::memcpy(Out.shape, D->shape, sizeof(int64_t) * D->ndim);
    std::memcpy(Out.strides, D->strides, sizeof(int64_t) * D->ndim);
    if (!Out.type)
      typeError(Index, "uninitialised device array");
    return;
  }
  if (PyBool_Check(O)) {
    Out.type = boolTy();
    Out.i = O == Py_True;
    return;
  }
  if (PyLong_Check(O)) {
    Out.type = int64Ty();
    int Overflow = 0;
    Out.i = PyLong_AsLongLongAndOverflow(O, &Overflow);
    if (Overflow)
      typeError(Index, "integer " + str(O) + " does not fit in int64");
    return;
  }
  if (PyFloat_Check(O)) {
    Out.type = float64Ty();
    Out.f = PyFloat_AsDouble(O);
    return;
  }
  if (PyComplex_Check(O)) {
    Out.type = complexTy(128);
    Out.f = PyComplex_RealAsDouble(O);
    Out.fi = PyComplex_ImagAsDouble(O);
    return;
  }
  if (TypeRef T = cachedScalarType(O)) {
    readNumpyScalar(O, T, Out);
    return;
  }
  if (PyTuple_Check(O)) {
    std::vector<TypeRef> Elems;
    Py_ssize_t N = PyTuple_Size(O);
    Out.elems.resize(N);
    for (Py_ssize_t K = 0; K < N; ++K) {
      classifyArg(PyTuple_GetItem(O, K), Index, Out.elems[K]);
      Elems.push_back(Out.elems[K].type);
    }
    Out.type = tupleTy(Elems);
    return;
  }
  if (Ref CAI = getAttrOpt(O, "__cuda_array_interface__")) {
    if (backend() != BackendKind::CUDA)
      typeError(Index, "a GPU array (" + typeName(O) +
                           ") cannot be used by the CPU executor");
    fromInterface(CAI.get(), Index, Out, true);
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
      if (!T || T->isComplex())
        typeError(Index, "numpy scalars of dtype " + str(Name.get()) +
                             " are not supported");
      readNumpyScalar(O, T, Out);
      rememberScalarType(O, T);
      return;
    }
    fromInterface(AI.get(), Index, Out, false);
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
    Out.type = arrayTy(scalarFromTypestr(V.typestr), unsigned(V.ndim),
                       layoutOf(V.ndim, V.shape, V.strides, V.itemsize));
    Out.keep = std::move(T.owner);
    return;
  }
  typeError(Index, "kernels cannot take a " + typeName(O) +
                       " (pass device arrays, numpy arrays, numbers or tuples)");
}

void syncArgStreams(const std::vector<ArgValue> &Args, rt::CUstream Stream) {
  for (const ArgValue &V : Args) {
    if (V.hasStream)
      rt::streamWaitStream(Stream,
                           reinterpret_cast<rt::CUstream>(uintptr_t(V.stream)));
    if (!V.elems.empty())
      syncArgStreams(V.elems, Stream);
  }
}

bool argFits(TypeRef Arg, TypeRef Param) {
  if (Arg == Param)
    return true;
  if (Param->isArray()) {
    return Arg->isArray() && Arg->dtype() == Param->dtype() &&
           Arg->ndim() == Param->ndim() &&
           (Param->layout() == Layout::A || Param->layout() == Arg->layout());
  }
  if (Param->isTuple()) {
    if (!Arg->isTuple() || Arg->elems().size() != Param->elems().size())
      return false;
    for (size_t K = 0; K < Arg->elems().size(); ++K)
      if (!argFits(Arg->elems()[K], Param->elems()[K]))
        return false;
    return true;
  }
  // Scalars convert (numba does the same for explicit signatures); complex
  // values only to complex parameters.
  return Arg->isNumeric() && Param->isNumeric() &&
         (!Arg->isComplex() || Param->isComplex());
}

namespace {

const ArgValue &at(const std::vector<ArgValue> &Args, const AbiSlot &S) {
  const ArgValue *V = &Args[S.arg];
  for (unsigned P : S.path)
    V = &V->elems[P];
  return *V;
}

void writeScalar(char *Dst, TypeRef Param, const ArgValue &V) {
  TypeRef From = V.type;
  // Read the source as double / int64 / uint64.
  bool FromFloat = From->isFloat();
  bool FromUnsigned = From->isInt() && !From->isSigned();
  auto AsF = [&] { return FromFloat ? V.f : FromUnsigned ? double(V.u) : double(V.i); };
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
  if (Param->isFloat()) {
    if (Param->bits() == 32) {
      float F = float(AsF());
      std::memcpy(Dst, &F, 4);
    } else if (Param->bits() == 64) {
      double D = AsF();
      std::memcpy(Dst, &D, 8);
    } else { // float16: round through float
      float F = float(AsF());
      uint32_t Bits;
      std::memcpy(&Bits, &F, 4);
      uint32_t Sign = (Bits >> 16) & 0x8000, Exp = (Bits >> 23) & 0xff,
               Man = Bits & 0x7fffff;
      uint16_t H;
      if (Exp == 0xff)
        H = uint16_t(Sign | 0x7c00 | (Man ? 0x200 : 0));
      else if (int(Exp) - 127 + 15 >= 0x1f)
        H = uint16_t(Sign | 0x7c00);
      else if (int(Exp) - 127 + 15 <= 0)
        H = uint16_t(Sign);
      else
        H = uint16_t(Sign | ((Exp - 127 + 15) << 10) | (Man >> 13));
      std::memcpy(Dst, &H, 2);
    }
    return;
  }
  int64_t I = AsI();
  std::memcpy(Dst, &I, Param->byteSize()); // little-endian truncation
}

} // namespace

void packArgs(const std::vector<AbiSlot> &Slots, const std::vector<size_t> &Offsets,
              const std::vector<TypeRef> &ParamTypes,
              const std::vector<ArgValue> &Args, char *Buf, void **Params) {
  for (size_t K = 0; K < Slots.size(); ++K) {
    const AbiSlot &S = Slots[K];
    const ArgValue &V = at(Args, S);
    char *Dst = Buf + Offsets[K];
    Params[K] = Dst;
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
