// Torch tensors and CuPy arrays read through their attributes (see
// ForeignArrays.h).
//
// Attribute names are interned str objects made once: a lookup with one
// hits CPython's per-type attribute cache, while a name made from a C string
// on each call misses it (measured on the H200 machine: 3x slower per
// attribute of a torch tensor).  The caches below are only touched with the
// GIL held, which serializes them.
#include "ForeignArrays.h"

#include "PyExecutor.h"

#include <cstring>
#include <map>
#include <tuple>
#include <unordered_map>

namespace pcj::py {

using namespace types;

namespace {

struct AttrNames {
  PyObject *dtype, *shape, *strides, *stride, *data, *ptr, *dataPtr, *getDevice,
      *isCuda, *requiresGrad, *cai;
};
const AttrNames &names() {
  static const AttrNames N = [] {
    auto I = [](const char *S) { return PyUnicode_InternFromString(S); };
    return AttrNames{I("dtype"),
                     I("shape"),
                     I("strides"),
                     I("stride"),
                     I("data"),
                     I("ptr"),
                     I("data_ptr"),
                     I("get_device"),
                     I("is_cuda"),
                     I("requires_grad"),
                     I("__cuda_array_interface__")};
  }();
  return N;
}

// O.<Name> / O.<Name>() (null, error cleared, when it fails).
Ref attr(PyObject *O, PyObject *Name) {
  Ref R(PyObject_GetAttr(O, Name));
  if (!R)
    PyErr_Clear();
  return R;
}
Ref callMethod(PyObject *O, PyObject *Name) {
  Ref M = attr(O, Name);
  Ref R(M ? PyObject_CallNoArgs(M.get()) : nullptr);
  if (!R)
    PyErr_Clear();
  return R;
}

// What is known about one Python type.
struct ForeignType {
  Foreign kind = Foreign::None;
  // Its interface's "stream" field: present (the launch waits on the
  // producer's current stream) or not; set by the first comparison.
  bool exportsStream = false;
  bool streamKnown = false;
  // The producer's current-stream query (owned; resolved on first use).
  PyObject *streamFn = nullptr;
};

// A (type, dtype object, ndim, layout) whose first object agreed with its
// interface, and the array type it has.
struct CheckedArray {
  PyTypeObject *pytype = nullptr;
  PyObject *dtype = nullptr;
  int ndim = -1;
  Layout layout = Layout::A;
  TypeRef type = nullptr;
};

struct ForeignCache {
  PyTypeObject *lastType = nullptr; // the last type looked up, and its entry
  ForeignType *last = nullptr;
  std::unordered_map<PyTypeObject *, ForeignType> types; // keys kept alive
  std::unordered_map<PyObject *, TypeRef> dtypes; // dtype objects, kept alive
  // The most recent checks, searched first; every check ever passed (keys
  // bounded by the types, kMaxDtypes, ndims and layouts), so that a program
  // cycling through more combinations than the ring holds compares each
  // with its interface once, not again at every launch.
  CheckedArray arrays[16];
  unsigned nextArray = 0;
  std::map<std::tuple<PyTypeObject *, PyObject *, int, Layout>, TypeRef>
      checked;
};
ForeignCache &cache() {
  static auto *C = new ForeignCache(); // lives as long as the process
  return *C;
}

// Distinct dtype objects remembered at most (a program making new dtype
// objects per array would otherwise grow the map without end).
constexpr size_t kMaxDtypes = 256;

const char *packageOf(Foreign K) {
  return K == Foreign::Torch ? "torch" : "cupy";
}

Foreign kindOf(PyObject *O) {
  Ref Mod = getAttrOpt(reinterpret_cast<PyObject *>(Py_TYPE(O)), "__module__");
  std::string M = Mod ? str(Mod.get()) : "";
  Foreign K = Foreign::None;
  if (M.rfind("torch", 0) == 0 && getAttrOpt(O, "data_ptr") &&
      getAttrOpt(O, "get_device"))
    K = Foreign::Torch;
  else if (M.rfind("cupy", 0) == 0 && getAttrOpt(O, "data") &&
           getAttrOpt(O, "__cuda_array_interface__"))
    K = Foreign::Cupy;
  PyErr_Clear();
  return K;
}

ForeignType &typeEntry(PyObject *O) {
  ForeignCache &C = cache();
  PyTypeObject *T = Py_TYPE(O);
  if (T == C.lastType)
    return *C.last;
  auto [It, New] = C.types.try_emplace(T);
  // A reference, not the iterator: kindOf runs Python code, during which
  // another thread may add types (a rehash moves no node).
  ForeignType &FT = It->second;
  if (New) {
    Py_INCREF(reinterpret_cast<PyObject *>(T));
    FT.kind = kindOf(O);
  }
  C.lastType = T;
  C.last = &FT;
  return FT;
}

// A dtype object -> element type, through its name (null: none kernels
// take); Kept: the object is remembered (alive as long as the process).
TypeRef elementOf(PyObject *DT, Foreign K, bool &Kept) {
  ForeignCache &C = cache();
  auto It = C.dtypes.find(DT);
  Kept = It != C.dtypes.end();
  if (Kept)
    return It->second;
  TypeRef T = nullptr;
  if (K == Foreign::Torch) { // "torch.float32"
    std::string N = str(DT);
    if (N.rfind("torch.", 0) == 0)
      T = scalarFromName(N.substr(6));
  } else if (Ref S = getAttrOpt(DT, "str")) { // numpy typestr "<f4"
    T = scalarFromTypestr(str(S.get()));
  }
  PyErr_Clear();
  // str() above ran Python code: another thread may have added DT since.
  if (C.dtypes.size() < kMaxDtypes) {
    if (C.dtypes.emplace(DT, T).second)
      Py_INCREF(DT);
    Kept = true;
  }
  return T;
}

bool tupleToDims(PyObject *Tup, int64_t *Out, int &N) {
  if (!Tup || !PyTuple_Check(Tup) || PyTuple_Size(Tup) > kMaxDims)
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

// What the attributes say, normalized as the interface states it.
struct AttrView {
  uint64_t ptr = 0;
  int ndim = 0;
  int64_t shape[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};
  Ref dtype;              // the dtype object
  bool dtypeKept = false; // remembered by elementOf (a stable key)
  TypeRef elem = nullptr;
  Layout layout = Layout::A;
};

// Reads O's pointer, shape, byte strides and dtype; false: anything unusual
// (the interface decides).
bool readAttributes(PyObject *O, Foreign K, AttrView &V) {
  const AttrNames &A = names();
  bool Torch = K == Foreign::Torch;
  Ref Ptr, Strides;
  if (Torch) {
    // CUDA tensors only (is_cuda: not CPU, MPS, XPU...).  A tensor that
    // requires grad: its interface raises RuntimeError (numba-cuda's
    // behaviour too), so it takes that path.
    if (attr(O, A.isCuda).get() != Py_True ||
        attr(O, A.requiresGrad).get() != Py_False)
      return false;
    Ptr = callMethod(O, A.dataPtr);
    Strides = callMethod(O, A.stride);
  } else {
    if (Ref Mem = attr(O, A.data))
      Ptr = attr(Mem.get(), A.ptr);
    Strides = attr(O, A.strides);
  }
  V.dtype = attr(O, A.dtype);
  Ref Shape = attr(O, A.shape);
  int NS = -1;
  if (!V.dtype || !Ptr || !tupleToDims(Shape.get(), V.shape, V.ndim) ||
      !tupleToDims(Strides.get(), V.strides, NS) || V.ndim != NS)
    return false;
  V.elem = elementOf(V.dtype.get(), K, V.dtypeKept);
  if (!V.elem)
    return false;
  int64_t Item = V.elem->byteSize();
  bool Empty = false;
  for (int J = 0; J < V.ndim; ++J) {
    if (V.shape[J] < 0)
      return false;
    Empty |= V.shape[J] == 0;
    if (Torch) // torch strides count elements
      V.strides[J] *= Item;
  }
  V.ptr = PyLong_AsUnsignedLongLong(Ptr.get());
  if (PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  V.layout = layoutOf(V.ndim, V.shape, V.strides, Item);
  // The interface omits the strides of a C-contiguous array (empty ones
  // included: both libraries call them contiguous), which then are the
  // canonical ones; and an empty array's pointer is 0.
  if (Empty || V.layout == Layout::C) {
    int64_t S = Item;
    for (int J = V.ndim - 1; J >= 0; --J) {
      V.strides[J] = S;
      S *= V.shape[J];
    }
    V.layout = Layout::C;
  }
  if (Empty)
    V.ptr = 0;
  return true;
}

// The stream field of O's __cuda_array_interface__ (0 if none).
uint64_t interfaceStream(PyObject *O) {
  Ref CAI = attr(O, names().cai);
  PyObject *S = CAI && PyDict_Check(CAI.get())
                    ? PyDict_GetItemString(CAI.get(), "stream")
                    : nullptr;
  uint64_t V = S && S != Py_None ? PyLong_AsUnsignedLongLong(S) : 0;
  PyErr_Clear();
  return V;
}

// The library's current-stream function: torch._C._cuda_getCurrentRawStream
// (takes a device), cupy.cuda.get_current_stream (gives a Stream).
PyObject *streamFunction(ForeignType &FT) {
  if (FT.streamFn)
    return FT.streamFn;
  Ref Pkg(PyImport_ImportModule(packageOf(FT.kind)));
  Ref Sub =
      Pkg ? getAttrOpt(Pkg.get(), FT.kind == Foreign::Torch ? "_C" : "cuda")
          : Ref();
  Ref Fn = Sub ? getAttrOpt(Sub.get(), FT.kind == Foreign::Torch
                                           ? "_cuda_getCurrentRawStream"
                                           : "get_current_stream")
               : Ref();
  PyErr_Clear();
  FT.streamFn = Fn.release();
  return FT.streamFn;
}

// The producer's current stream as an interface stream value (1: the
// legacy default): torch's on the device of tensor O, CuPy's.
uint64_t currentStream(ForeignType &FT, PyObject *O) {
  PyObject *Fn = streamFunction(FT);
  if (!Fn)
    return interfaceStream(O);
  Ref S;
  if (FT.kind == Foreign::Torch) {
    Ref Dev = callMethod(O, names().getDevice);
    S = Dev ? Ref(PyObject_CallFunctionObjArgs(Fn, Dev.get(), nullptr)) : Ref();
  } else {
    Ref Stream(PyObject_CallNoArgs(Fn));
    S = Stream ? attr(Stream.get(), names().ptr) : Ref();
  }
  uint64_t V = S ? PyLong_AsUnsignedLongLong(S.get()) : 0;
  bool Failed = !S || PyErr_Occurred();
  PyErr_Clear();
  if (Failed)
    return interfaceStream(O);
  return V ? V : 1;
}

// DtypeDisagree: only the element type differs (that dtype object is read
// through the interface from then on; the type's other arrays are not).
enum class Verdict { Agree, Disagree, DtypeDisagree, Unknown };

// Reads O's interface and compares it with V; Unknown: the interface
// refuses O (the caller's path raises its error).
Verdict compareWithInterface(PyObject *O, ForeignType &FT, const AttrView &V) {
  Ref CAI = attr(O, names().cai);
  if (!CAI)
    return Verdict::Unknown;
  InterfaceView I;
  try {
    readInterface(CAI.get(), I, "", O);
  } catch (const PythonError &) {
    PyErr_Clear();
    return Verdict::Unknown;
  }
  if (I.dtype != V.elem)
    return Verdict::DtypeDisagree;
  bool Same = I.ptr == V.ptr && I.ndim == V.ndim && !I.readonly;
  for (int K = 0; Same && K < V.ndim; ++K)
    Same = I.shape[K] == V.shape[K] && I.strides[K] == V.strides[K];
  if (Same && FT.streamKnown)
    Same = I.hasStream == FT.exportsStream;
  if (Same && I.hasStream)
    Same = currentStream(FT, O) == I.stream;
  if (!Same)
    return Verdict::Disagree;
  FT.exportsStream = I.hasStream;
  FT.streamKnown = true;
  return Verdict::Agree;
}

CheckedArray *findChecked(PyTypeObject *T, const AttrView &V) {
  ForeignCache &C = cache();
  for (CheckedArray &E : C.arrays)
    if (E.pytype == T && E.dtype == V.dtype.get() && E.ndim == V.ndim &&
        E.layout == V.layout)
      return &E;
  auto It = C.checked.find({T, V.dtype.get(), V.ndim, V.layout});
  if (It == C.checked.end())
    return nullptr;
  CheckedArray &E = C.arrays[C.nextArray++ % std::size(C.arrays)];
  E = {T, V.dtype.get(), V.ndim, V.layout, It->second};
  return &E;
}

// The last object fromForeign read in the current argument list and what
// it read: a launch that passes one array several times (saxpy(a, x, x, x),
// an in-place update k(a, a)) reads its attributes once.  Objects stay alive
// for the list's launch (the caller holds the arguments); startArgumentList
// forgets it, so nothing carries over to another launch.
struct LastRead {
  PyObject *obj = nullptr;
  TypeRef type = nullptr;
  uint64_t ptr = 0;
  int ndim = 0;
  int64_t shape[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};
  bool hasStream = false;
  uint8_t foreign = 0;
};
LastRead &lastRead() {
  static LastRead L; // GIL-serialized, as the cache
  return L;
}

} // namespace

void startArgumentList() { lastRead().obj = nullptr; }

bool isLastForeignType(PyObject *O) {
  const ForeignCache &C = cache();
  return Py_TYPE(O) == C.lastType && C.last->kind != Foreign::None;
}

bool fromForeign(PyObject *O, int Index, ArgValue &Out) {
  LastRead &L = lastRead();
  if (O == L.obj) {
    Out.type = L.type;
    Out.ptr = L.ptr;
    Out.ndim = L.ndim;
    std::memcpy(Out.shape, L.shape, sizeof(int64_t) * L.ndim);
    std::memcpy(Out.strides, L.strides, sizeof(int64_t) * L.ndim);
    Out.readonly = false;
    Out.hasStream = L.hasStream;
    Out.foreign = L.foreign;
    Out.object = O;
    return true;
  }
  ForeignType &FT = typeEntry(O);
  if (FT.kind == Foreign::None)
    return false;
  AttrView V;
  if (!readAttributes(O, FT.kind, V))
    return false;
  TypeRef Type;
  if (const CheckedArray *E = findChecked(Py_TYPE(O), V)) {
    Type = E->type;
  } else {
    Verdict R = compareWithInterface(O, FT, V);
    if (R == Verdict::Unknown)
      return false;
    if (R == Verdict::Disagree) { // this type's arrays: the interface's path
      FT.kind = Foreign::None;
      return false;
    }
    if (R == Verdict::DtypeDisagree) {
      if (V.dtypeKept)
        cache().dtypes[V.dtype.get()] = nullptr;
      return false;
    }
    Type = arrayTy(V.elem, unsigned(V.ndim), V.layout);
    if (V.dtypeKept) { // a stable key: remembered
      ForeignCache &C = cache();
      C.arrays[C.nextArray++ % std::size(C.arrays)] = {
          Py_TYPE(O), V.dtype.get(), V.ndim, V.layout, Type};
      C.checked.emplace(
          std::make_tuple(Py_TYPE(O), V.dtype.get(), V.ndim, V.layout), Type);
    }
  }
  if (executor().deviceMemoryIsHost) {
    // As the interface's path: host memory only on the CPU executor.
    InterfaceView H;
    H.ptr = V.ptr;
    H.ndim = V.ndim;
    H.itemsize = V.elem->byteSize();
    std::memcpy(H.shape, V.shape, sizeof(int64_t) * V.ndim);
    std::memcpy(H.strides, V.strides, sizeof(int64_t) * V.ndim);
    requireHostAccess(H, "kernel argument " + std::to_string(Index + 1) +
                             " (a " + typeName(O) + ")");
  }
  Out.type = Type;
  Out.ptr = V.ptr;
  Out.ndim = V.ndim;
  std::memcpy(Out.shape, V.shape, sizeof(int64_t) * V.ndim);
  std::memcpy(Out.strides, V.strides, sizeof(int64_t) * V.ndim);
  Out.readonly = false;
  Out.hasStream = FT.exportsStream && interfaceStreamSync();
  Out.foreign = uint8_t(FT.kind);
  Out.object = O;
  L.obj = O;
  L.type = Type;
  L.ptr = V.ptr;
  L.ndim = V.ndim;
  std::memcpy(L.shape, V.shape, sizeof(int64_t) * V.ndim);
  std::memcpy(L.strides, V.strides, sizeof(int64_t) * V.ndim);
  L.hasStream = Out.hasStream;
  L.foreign = Out.foreign;
  return true;
}

uint64_t foreignStream(const ArgValue &V) {
  return currentStream(typeEntry(V.object), V.object);
}

} // namespace pcj::py
