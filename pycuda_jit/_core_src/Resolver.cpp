// Python objects -> compile-time values (see Resolver.h).
#include "Resolver.h"

#include "CodeReader.h"
#include "DeviceArray.h"
#include "EnumMembers.h"
#include "PyExecutor.h"

#include "stdlib/Registry.h"
#include "support/Diagnostics.h"
#include "typeinfer/ConstTypes.h"
#include "types/Signature.h"
#include "types/Type.h"

#include <cstdio>

namespace pcj::py {

using ir::CTValue;

namespace {

// Canonical module names used by registry keys.
std::string canonicalModule(const std::string &Name) {
  if (Name == "pycuda_jit.cuda" || Name == "numba.cuda")
    return "cuda";
  if (Name == "pycuda_jit.cuda.libdevice")
    return "cuda.libdevice";
  if (Name == "pycuda_jit.cuda.bf16")
    return "cuda.bf16";
  if (Name == "numpy")
    return "np";
  if (Name == "_operator") // where operator.add & co. say they live
    return "operator";
  return Name;
}

// The modules whose functions kernels know by name (math.sin, np.sqrt,
// operator.add): "NumPy", "math", "cmath" or "operator" for a module of
// theirs, else empty.
std::string libraryOf(const std::string &Module) {
  if (Module == "numpy" || Module.rfind("numpy.", 0) == 0)
    return "NumPy";
  if (Module == "math" || Module == "cmath")
    return Module;
  if (Module == "operator" || Module == "_operator")
    return "operator";
  return "";
}

// A function (or class) of NumPy, math or cmath that is not in the registry.
CTValue unsupportedLibraryName(const std::string &Library,
                               const std::string &Module,
                               const std::string &Name, bool IsClass) {
  std::string Full = canonicalModule(Module) + "." + Name;
  if (Library == "NumPy")
    Full = Module + "." + Name;
  std::string What = (Library == "NumPy"      ? "a NumPy "
                      : Library == "operator" ? "an operator "
                                              : "a " + Library + " ") +
                     (IsClass ? "class" : "function");
  if (Library != "NumPy")
    return CTValue::unsupported(
        What, Full + " is not supported in kernels; the " + Library +
                  " functions kernels support are "
                  "listed in docs/language.md");
  // (np.empty, np.zeros, np.arange, ... are registry rows: alloc.def.)
  static const char *Creators[] = {"array", "asarray", "linspace", "ndarray"};
  for (const char *C : Creators)
    if (Name == C)
      return CTValue::unsupported(
          What, Full +
                    " and the other NumPy array functions are not supported in "
                    "kernels: make arrays with np.empty, np.zeros, np.arange, "
                    "a.copy() ... (on the device heap), cuda.local.array or "
                    "cuda.shared.array, or pass them in as arguments, and loop "
                    "over their elements");
  return CTValue::unsupported(
      What, Full + " and the other NumPy array functions (np.dot, np.cumsum, "
                   "np.sort, ...) are not supported in kernels: loop over the "
                   "elements instead; NumPy's scalar math functions (np.sqrt, "
                   "np.sin, ...) and whole-array reductions (np.sum, np.max, "
                   "np.mean, ...) work");
}

// numba's @jit / @njit functions (numba.core.registry.CPUDispatcher).
bool isNumbaJitFunction(PyObject *O) {
  Ref Mod = getAttrOpt(reinterpret_cast<PyObject *>(Py_TYPE(O)), "__module__");
  return typeName(O) == "CPUDispatcher" && Mod &&
         str(Mod.get()).rfind("numba", 0) == 0;
}

// The Python function behind something kernels call as a device function:
// a @cuda.jit(device=True) function (_pcj_device_function_), a kernel
// (_pcj_kernel_function_; numba-cuda lets kernels call kernels) or a numba
// @jit function (its py_func, compiled for the device as numba-cuda does).
// Null for anything else.
Ref calleeFunction(PyObject *O) {
  if (Ref F = getAttrOpt(O, "_pcj_device_function_"))
    return F;
  if (Ref F = getAttrOpt(O, "_pcj_kernel_function_"))
    return F;
  if (isNumbaJitFunction(O))
    return getAttrOpt(O, "py_func");
  return {};
}

CTValue fromBuiltinName(const std::string &Name) {
  if (stdlib::lookupIntrinsic(Name))
    return CTValue::intrinsic(Name);
  return CTValue::unsupported("the builtin '" + Name + "'");
}

// numpy scalar type (np.float32), dtype object, or our own type objects.
types::TypeRef dtypeOf(PyObject *O) {
  if (Ref N = getAttrOpt(O, "_pcj_dtype_"))
    return types::scalarFromName(str(N.get()));
  bool IsType = PyType_Check(O);
  Ref Mod = getAttrOpt(O, "__module__");
  if (IsType && Mod && str(Mod.get()) == "numpy") {
    Ref N = getAttrOpt(O, "__name__");
    return N ? types::scalarFromName(str(N.get())) : nullptr;
  }
  // numpy.dtype instances: class "dtype[float32]" in NumPy 1.20+, classes
  // of the module numpy.dtypes ("Float32DType") in NumPy 2.
  auto IsDTypeInstance = [&] {
    if (IsType || !getAttrOpt(O, "itemsize") || !getAttrOpt(O, "kind"))
      return false;
    if (typeName(O).rfind("dtype", 0) == 0)
      return true;
    Ref TypeMod =
        getAttrOpt(reinterpret_cast<PyObject *>(Py_TYPE(O)), "__module__");
    return TypeMod && str(TypeMod.get()).rfind("numpy", 0) == 0;
  };
  if (IsDTypeInstance()) {
    Ref Fields = getAttrOpt(O, "fields");
    if (Fields && Fields.get() != Py_None) { // a structured dtype: a record
      Ref TS = getAttrOpt(O, "str"), Descr = getAttrOpt(O, "descr");
      std::string Why;
      return TS && Descr ? elementTypeOf(str(TS.get()), Descr.get(), Why)
                         : nullptr;
    }
    Ref N = getAttrOpt(O, "name");
    return N ? types::scalarFromName(str(N.get())) : nullptr;
  }
  // A record type object (types.from_dtype(dtype)): its dtype.
  if (Ref RD = getAttrOpt(O, "_pcj_record_dtype_"))
    return RD.get() != Py_None ? dtypeOf(RD.get()) : nullptr;
  return nullptr;
}

// A host array (numpy or anything with __array_interface__ and tobytes()):
// its dtype, shape and elements in C order, frozen into constant memory
// (used directly, or through cuda.const.array_like).
CTValue hostArray(PyObject *O, PyObject *AI) {
  auto Unsupported = [](const std::string &Why) {
    return CTValue::unsupported("an array " + Why);
  };
  if (!PyDict_Check(AI))
    return Unsupported("with an unreadable __array_interface__");
  PyObject *Typestr = PyDict_GetItemString(AI, "typestr"); // borrowed
  PyObject *Shape = PyDict_GetItemString(AI, "shape");
  if (!Typestr || !Shape || !PyTuple_Check(Shape))
    return Unsupported("with an unreadable __array_interface__");
  std::string TS = str(Typestr), Why;
  types::TypeRef DT = elementTypeOf(TS, PyDict_GetItemString(AI, "descr"), Why);
  if (!DT)
    return Unsupported("of element type '" + TS + "' (" + Why + ")");
  std::vector<int64_t> Dims;
  for (Py_ssize_t K = 0; K < PyTuple_Size(Shape); ++K) {
    long long D = PyLong_AsLongLong(PyTuple_GetItem(Shape, K));
    if (D < 0 && PyErr_Occurred()) {
      PyErr_Clear();
      return Unsupported("with an unreadable shape");
    }
    Dims.push_back(D);
  }
  Ref ToBytes = getAttrOpt(O, "tobytes");
  Ref Bytes(ToBytes ? PyObject_CallObject(ToBytes.get(), nullptr) : nullptr);
  char *Data = nullptr;
  Py_ssize_t Len = 0;
  if (!Bytes || PyBytes_AsStringAndSize(Bytes.get(), &Data, &Len) != 0) {
    PyErr_Clear();
    return Unsupported("whose contents cannot be read (no tobytes())");
  }
  int64_t Count = 1;
  for (int64_t D : Dims)
    Count *= D;
  if (Len != Count * int64_t(DT->byteSize()))
    return Unsupported("whose tobytes() size does not match its shape");
  return CTValue::constArray(DT, std::move(Dims),
                             std::string(Data, size_t(Len)));
}

// The type of a tuple holding numpy scalars (directly or in nested
// tuples): each keeps its dtype, other elements are typed as constants.
// Null when it holds none (typed from its value) or cannot be typed here
// (type inference then reports it at its use).
types::TypeRef tupleOfScalars(const std::vector<CTValue> &Elems) {
  bool Any = false;
  for (const CTValue &E : Elems)
    Any = Any || E.type;
  if (!Any)
    return nullptr;
  std::vector<types::TypeRef> Types;
  try {
    for (const CTValue &E : Elems)
      Types.push_back(E.type ? E.type
                             : typeinfer::typeOfConst(nullptr, E.value).type);
  } catch (const CompileError &) {
    return nullptr;
  }
  return types::tupleTy(Types);
}

// Whether a tuple global may hold E: constants, arrays frozen into constant
// memory, captured device arrays, and tuples of those.
bool canBeTupleElement(const CTValue &E) {
  switch (E.kind) {
  case CTValue::Kind::Const:
  case CTValue::Kind::ConstArray:
  case CTValue::Kind::DeviceArray:
  case CTValue::Kind::Tuple:
    return true;
  default:
    return false;
  }
}

} // namespace

PyResolver::PyResolver(PyObject *Func)
    : Func(Func), Uses(std::make_shared<CompileUses>()) {}

PyResolver::PyResolver(PyObject *Func, std::shared_ptr<CompileUses> Uses)
    : Func(Func), Uses(std::move(Uses)) {}

namespace {

// A device array captured by reference (numba-cuda's global device arrays):
// the kernel's code holds its address, shape and strides, so it sees later
// writes to the array's contents; the array object is kept alive with the
// compiled code.
CTValue capturedDeviceArray(PyObject *O, PyObject *CAI,
                            std::vector<Ref> &Captures) {
  InterfaceView V;
  readInterface(CAI, V, "the global device array (" + typeName(O) + ")", O);
  if (executor().deviceMemoryIsHost)
    requireHostAccess(V, "the global device array (" + typeName(O) + ")");
  Captures.push_back(Ref::borrow(O));
  return CTValue::deviceArray(
      V.dtype, std::vector<int64_t>(V.shape, V.shape + V.ndim),
      std::vector<int64_t>(V.strides, V.strides + V.ndim), V.ptr);
}

} // namespace

// A member of a plain Enum class: its value (a number, bool or a tuple of
// those) typed as a member of its class.
CTValue PyResolver::enumMember(PyObject *O, PyObject *Cls) {
  std::string What = "the member " + typeName(O) + "." +
                     str(getAttr(O, "_name_").get()) + " of an Enum class";
  Ref V = getAttr(O, "_value_");
  CTValue C = classify(V.get());
  types::TypeRef T = nullptr;
  if (C.kind == CTValue::Kind::Const) {
    try {
      T = C.type ? C.type : typeinfer::typeOfConst(nullptr, C.value).type;
    } catch (const CompileError &) {
      T = nullptr;
    }
  }
  if (!enumValueType(T))
    return CTValue::unsupported(
        What + ", whose value " + str(V.get()) + " kernels cannot hold",
        "kernels take Enum members whose values are numbers, bools or tuples "
        "of those");
  C.type = types::enumMemberTy(enumClassKey(Cls), T);
  C.fields.clear();
  C.name.clear();
  return C;
}

CTValue PyResolver::classify(PyObject *O, std::vector<Ref> *Captures) {
  // Python scalars are weak (NEP 50).  np.float64 and np.complex128 are
  // subclasses of float and complex but strong: they take the numpy-scalar
  // path below, as every other numpy scalar does.
  if (O == Py_None || PyBool_Check(O) || PyLong_Check(O) ||
      PyFloat_CheckExact(O) || PyComplex_CheckExact(O) || PyUnicode_Check(O))
    return CTValue::constant(readConst(O));
  if (PyTuple_Check(O)) {
    bc::ConstValue T;
    T.kind = bc::ConstValue::Kind::Tuple;
    std::vector<CTValue> Elems;
    bool AllConst = true;
    for (Py_ssize_t K = 0; K < PyTuple_Size(O); ++K) {
      CTValue E = classify(PyTuple_GetItem(O, K), Captures);
      if (!canBeTupleElement(E))
        return CTValue::unsupported("a tuple holding " + E.repr());
      AllConst = AllConst && E.kind == CTValue::Kind::Const;
      T.elems.push_back(E.value);
      Elems.push_back(std::move(E));
    }
    // A tuple holding arrays keeps each element's compile-time value.
    CTValue C =
        AllConst ? CTValue::constant(T) : CTValue::tuple(std::move(Elems));
    if (AllConst)
      C.type = tupleOfScalars(Elems);
    // A namedtuple instance keeps its class and field names.
    if (Py_TYPE(O) != &PyTuple_Type &&
        namedTupleFields(reinterpret_cast<PyObject *>(Py_TYPE(O)), C.fields))
      C.name = str(
          getAttr(reinterpret_cast<PyObject *>(Py_TYPE(O)), "__name__").get());
    return C;
  }
  // The builtin tuple class: tuple(t) (registry row "tuple").
  if (O == reinterpret_cast<PyObject *>(&PyTuple_Type))
    return fromBuiltinName("tuple");
  // A namedtuple class (called in kernels to build one).
  if (PyType_Check(O) &&
      PyType_IsSubtype(reinterpret_cast<PyTypeObject *>(O), &PyTuple_Type)) {
    std::vector<std::string> Fields;
    if (namedTupleFields(O, Fields))
      return CTValue::tupleClass(str(getAttr(O, "__name__").get()),
                                 std::move(Fields));
    return CTValue::unsupported("the tuple subclass '" +
                                str(getAttr(O, "__name__").get()) + "'");
  }
  // A user-defined exception class (builtin ones are raised by name).
  if (PyType_Check(O) &&
      PyType_IsSubtype(reinterpret_cast<PyTypeObject *>(O),
                       reinterpret_cast<PyTypeObject *>(PyExc_Exception))) {
    Ref Mod = getAttrOpt(O, "__module__");
    if (!Mod || str(Mod.get()) != "builtins") {
      Ref Fn = getAttr(errorsModule(), "register_kernel_exception");
      Ref Key = check(PyObject_CallFunctionObjArgs(Fn.get(), O, nullptr));
      if (Key.get() == Py_None)
        return CTValue::unsupported(
            "the exception class '" + str(getAttr(O, "__qualname__").get()) +
            "', which cannot be combined with pycuda_jit.errors.KernelError "
            "(making the subclass of both failed)");
      return CTValue::exceptionClass(str(Key.get()));
    }
  }
  if (PyModule_Check(O)) {
    const char *N = PyModule_GetName(O);
    if (!N) {
      PyErr_Clear();
      return CTValue::unsupported("a module without a name");
    }
    return CTValue::module(canonicalModule(N), uintptr_t(O));
  }
  // Enum classes are namespaces of their members (RequestError.not_found);
  // IntEnum members are ints (the PyLong case above), other members are
  // constants of their class's member type, holding their value.
  if (PyType_Check(O) && isEnumClass(O))
    return CTValue::module("enum " + str(getAttr(O, "__qualname__").get()),
                           uintptr_t(O));
  if (PyObject *Cls = plainEnumClassOf(O))
    return enumMember(O, Cls);
  std::string TN = typeName(O);
  if (Ref Key = getAttrOpt(O, "_pcj_intrinsic_"))
    return CTValue::intrinsic(str(Key.get()));
  // @cuda.jit(device=True) functions (pycuda_jit.cuda.DeviceFunction), and
  // kernels, which other kernels call as device functions.
  // cuda.declare_device(...): a foreign function, called by symbol.
  if (Ref Decl = getAttrOpt(O, "_pcj_foreign_")) {
    Ref Name = getAttrOpt(O, "name");
    return CTValue::function(Name ? str(Name.get()) : "?", uintptr_t(O));
  }
  // A numba @jit function with explicit signatures cannot compile anew
  // (numba-cuda refuses it too).
  if (isNumbaJitFunction(O)) {
    Ref CanCompile = getAttrOpt(O, "_can_compile");
    if (CanCompile && !PyObject_IsTrue(CanCompile.get()))
      return CTValue::unsupported(
          "a numba @jit function with explicit signatures (a CPU function: "
          "using cpu function on device)",
          "numba compiles it for the CPU only; drop its signatures, or make it "
          "@cuda.jit(device=True)");
  }
  if (Ref PyFunc = calleeFunction(O)) {
    Ref Qual = getAttrOpt(PyFunc.get(), "__qualname__");
    return CTValue::function(Qual ? str(Qual.get()) : "?", uintptr_t(O));
  }
  if (types::TypeRef T = dtypeOf(O))
    return CTValue::dtype(T);
  // Builtins and functions of known modules (math.sin, numpy.sqrt ...);
  // NumPy's array functions are plain Python functions (np.sum) or its own
  // callables (np.empty), never candidates for @cuda.jit(device=True).
  Ref Name = getAttrOpt(O, "__name__");
  Ref Mod = getAttrOpt(O, "__module__");
  std::string M = Mod && Mod.get() != Py_None ? str(Mod.get()) : "";
  if (TN == "ufunc")
    M = "numpy";
  if (Name && PyCallable_Check(O)) {
    std::string N = str(Name.get());
    if (M == "builtins" && (TN == "builtin_function_or_method" || TN == "type"))
      return fromBuiltinName(N);
    if (std::string Lib = libraryOf(M); !Lib.empty()) {
      std::string Key = canonicalModule(M) + "." + N;
      if (stdlib::lookupIntrinsic(Key))
        return CTValue::intrinsic(Key);
      return unsupportedLibraryName(Lib, M, N, PyType_Check(O));
    }
  }
  if (TN == "function" && getAttrOpt(O, "__code__"))
    return CTValue::unsupported(
        "the plain Python function '" + str(getAttr(O, "__qualname__").get()) +
        "' (decorate it with @cuda.jit(device=True) to call it from kernels)");
  // numpy scalars (np.float32(0.5)): their value with their dtype.
  if (Ref Shape = getAttrOpt(O, "shape");
      Shape && PyTuple_Check(Shape.get()) && PyTuple_Size(Shape.get()) == 0 &&
      !getAttrOpt(O, "__len__") && getAttrOpt(O, "item")) {
    Ref DT = getAttrOpt(O, "dtype");
    Ref Name = DT ? getAttrOpt(DT.get(), "name") : Ref();
    types::TypeRef T = Name ? types::scalarFromName(str(Name.get())) : nullptr;
    Ref V(PyObject_CallMethod(O, "item", nullptr));
    if (!V)
      PyErr_Clear();
    if (T && V) {
      CTValue C = classify(V.get());
      if (C.kind == CTValue::Kind::Const) {
        C.type = T;
        return C;
      }
    }
  }
  // Other subclasses of float and complex: their value, weak.
  if (PyFloat_Check(O) || PyComplex_Check(O))
    return CTValue::constant(readConst(O));
  if (Ref CAI = getAttrOpt(O, "__cuda_array_interface__")) {
    if (Captures)
      return capturedDeviceArray(O, CAI.get(), *Captures);
    return CTValue::unsupported("a device array (here only global and "
                                "closure variables capture device arrays; "
                                "pass it as an argument)");
  }
  if (Ref AI = getAttrOpt(O, "__array_interface__"))
    return hostArray(O, AI.get());
  // cffi's FFI object: kernels call its from_buffer (registry "cffi.ffi").
  if (TN == "FFI") {
    Ref TM = getAttrOpt(reinterpret_cast<PyObject *>(Py_TYPE(O)), "__module__");
    if (TM && str(TM.get()) == "cffi.api")
      return CTValue::intrinsic("cffi.ffi");
  }
  return CTValue::unsupported("a " + TN + " object");
}

CTValue PyResolver::global(const std::string &Name) {
  Ref Globals = getAttr(Func, "__globals__");
  PyObject *V = PyDict_GetItemString(Globals.get(), Name.c_str()); // borrowed
  if (V)
    return classify(V, &Uses->arrays);
  PyObject *B = PyDict_GetItemString(Globals.get(), "__builtins__");
  Ref Builtins;
  if (B && PyModule_Check(B)) {
    Builtins = Ref::borrow(PyModule_GetDict(B));
  } else if (B) {
    Builtins = Ref::borrow(B);
  } else {
    Ref M = check(PyImport_ImportModule("builtins"));
    Builtins = Ref::borrow(PyModule_GetDict(M.get()));
  }
  V = PyDict_Check(Builtins.get())
          ? PyDict_GetItemString(Builtins.get(), Name.c_str())
          : nullptr;
  if (!V)
    return CTValue::invalid();
  return classify(V);
}

CTValue PyResolver::deref(const std::string &Name) {
  Ref Code = getAttr(Func, "__code__");
  Ref Free = getAttr(Code.get(), "co_freevars");
  Ref Closure = getAttr(Func, "__closure__");
  for (Py_ssize_t K = 0; K < PyTuple_Size(Free.get()); ++K) {
    if (utf8(PyTuple_GetItem(Free.get(), K)) != Name)
      continue;
    if (Closure.get() == Py_None)
      break;
    Ref Contents =
        getAttrOpt(PyTuple_GetItem(Closure.get(), K), "cell_contents");
    if (!Contents)
      return CTValue::unsupported("an empty closure cell");
    return classify(Contents.get(), &Uses->arrays);
  }
  return CTValue::invalid();
}

// A cuda.declare_device object: its `_pcj_foreign_()` gives (symbol,
// signature text, "numba" | "c", [(kind, name, bytes), ...], cooperative),
// the link items read now, so that an edited file changes the cache key.
static ir::CalleeInfo foreignCallee(PyObject *Dev, PyObject *Describe) {
  Ref D(PyObject_CallNoArgs(Describe));
  if (!D)
    throw PythonError();
  ir::CalleeInfo Info;
  Info.isForeign = true;
  PyObject *T = D.get();
  if (!PyTuple_Check(T) || PyTuple_Size(T) != 5)
    throw CompileError(ErrorKind::Internal, SourceLoc{},
                       "_pcj_foreign_() must return a 5-tuple");
  Info.foreign.symbol = utf8(PyTuple_GetItem(T, 0));
  Info.foreign.signature = types::parseSignature(utf8(PyTuple_GetItem(T, 1)));
  Info.foreign.cAbi = utf8(PyTuple_GetItem(T, 2)) == "c";
  Info.foreign.cooperative = PyTuple_GetItem(T, 4) == Py_True;
  PyObject *Links = PyTuple_GetItem(T, 3);
  for (Py_ssize_t K = 0; K < PyList_Size(Links); ++K) {
    PyObject *L = PyList_GetItem(Links, K);
    char *Data = nullptr;
    Py_ssize_t N = 0;
    if (PyBytes_AsStringAndSize(PyTuple_GetItem(L, 2), &Data, &N) != 0)
      throw PythonError();
    Info.foreign.links.push_back({utf8(PyTuple_GetItem(L, 0)),
                                  utf8(PyTuple_GetItem(L, 1)),
                                  std::string(Data, size_t(N))});
  }
  Info.identity = "foreign " + Info.foreign.symbol;
  return Info;
}

// A nested function or lambda of the function being compiled: a Python
// function over its code object, the enclosing function's globals and
// empty cells (the compiler passes the captured values as arguments), made
// once per enclosing function and kept on it (`_pcj_nested_`), so that its
// identity -- and the specializations of it -- stay the same.
CTValue PyResolver::nested(const std::string &Qualname, int ConstIndex) {
  Ref Code = getAttr(Func, "__code__");
  Ref Consts = getAttr(Code.get(), "co_consts");
  if (ConstIndex < 0 || ConstIndex >= PyTuple_Size(Consts.get()))
    return CTValue::invalid();
  PyObject *Co = PyTuple_GetItem(Consts.get(), ConstIndex); // borrowed
  if (typeName(Co) != "code")
    return CTValue::invalid();
  Ref Made = getAttrOpt(Func, "_pcj_nested_");
  if (!Made) {
    Made = check(PyDict_New());
    if (PyObject_SetAttrString(Func, "_pcj_nested_", Made.get()) != 0)
      throw PythonError();
  }
  PyObject *Fn = PyDict_GetItem(Made.get(), Co); // borrowed
  if (!Fn) {
    Ref Types = check(PyImport_ImportModule("types"));
    Ref CellType = getAttr(Types.get(), "CellType");
    Ref Free = getAttr(Co, "co_freevars");
    Py_ssize_t N = PyTuple_Size(Free.get());
    Ref Cells = check(PyTuple_New(N));
    for (Py_ssize_t K = 0; K < N; ++K)
      PyTuple_SetItem(Cells.get(), K,
                      check(PyObject_CallNoArgs(CellType.get())).release());
    Ref FnType = getAttr(Types.get(), "FunctionType");
    Ref Globals = getAttr(Func, "__globals__");
    Ref New = check(PyObject_CallFunction(FnType.get(), "OOOOO", Co,
                                          Globals.get(), Py_None, Py_None,
                                          N ? Cells.get() : Py_None));
    if (PyObject_SetAttrString(New.get(), "_pcj_lifted_", Py_True) != 0 ||
        PyDict_SetItem(Made.get(), Co, New.get()) != 0)
      throw PythonError();
    Fn = New.get();
  }
  return CTValue::function(Qualname, uintptr_t(Fn));
}

ir::CalleeInfo PyResolver::callee(const CTValue &Fn) {
  // The DeviceFunction object is alive: a global or closure cell of a
  // function being compiled refers to it.
  PyObject *Dev = reinterpret_cast<PyObject *>(Fn.handle);
  if (Ref Decl = getAttrOpt(Dev, "_pcj_foreign_")) {
    bool Seen = false;
    for (const Ref &F : Uses->foreign)
      Seen = Seen || F.get() == Dev;
    if (!Seen) // the object, for its link items' module-load callbacks
      Uses->foreign.push_back(Ref::borrow(Dev));
    return foreignCallee(Dev, Decl.get());
  }
  if (getAttrOpt(Dev, "_pcj_lifted_")) { // PyResolver::nested
    ir::CalleeInfo Info;
    Info.code = readCode(Dev);
    Info.code.freevarsAsParams = true;
    Info.resolver = std::make_unique<PyResolver>(Dev, Uses);
    char Id[32];
    std::snprintf(Id, sizeof Id, "@%llx", (unsigned long long)uintptr_t(Dev));
    Info.identity = Info.code.qualname + Id;
    return Info;
  }
  Ref PyFunc = calleeFunction(Dev);
  PCJ_ASSERT(PyFunc, "a device function without its Python function");
  ir::CalleeInfo Info;
  Info.code = readCode(PyFunc.get());
  Info.resolver = std::make_unique<PyResolver>(PyFunc.get(), Uses);
  Ref Defaults = getAttrOpt(PyFunc.get(), "__defaults__");
  if (Defaults && PyTuple_Check(Defaults.get()))
    for (Py_ssize_t K = 0; K < PyTuple_Size(Defaults.get()); ++K)
      Info.defaults.push_back(classify(PyTuple_GetItem(Defaults.get(), K)));
  Ref Sigs = getAttrOpt(Dev, "_pcj_signatures_");
  if (Sigs && PyTuple_Check(Sigs.get()))
    for (Py_ssize_t K = 0; K < PyTuple_Size(Sigs.get()); ++K)
      Info.signatures.push_back(
          types::parseSignature(utf8(PyTuple_GetItem(Sigs.get(), K))));
  Ref Inline = getAttrOpt(Dev, "_pcj_inline_");
  if (Inline && !PyUnicode_Check(Inline.get())) {
    // numba's cost model (_inline.py): asked for this caller; it raises
    // through to the user as any Python error would.
    Ref Mod = check(PyImport_ImportModule("pycuda_jit._inline"));
    Ref Decide = getAttr(Mod.get(), "decide");
    Ref Yes = check(PyObject_CallFunctionObjArgs(Decide.get(), Inline.get(),
                                                 Func, Dev, nullptr));
    Info.inlineAlways = Yes.get() == Py_True;
  } else {
    Info.inlineAlways = Inline && str(Inline.get()) == "always";
  }
  char Id[32];
  std::snprintf(Id, sizeof Id, "@%llx",
                (unsigned long long)uintptr_t(PyFunc.get()));
  Info.identity = Info.code.qualname + Id;
  return Info;
}

CTValue PyResolver::attribute(const CTValue &Module, const std::string &Attr) {
  if (!Module.handle)
    return CTValue::invalid();
  Ref V = getAttrOpt(reinterpret_cast<PyObject *>(Module.handle), Attr.c_str());
  if (!V)
    return CTValue::invalid();
  return classify(V.get(), &Uses->arrays);
}

} // namespace pcj::py
