// Compile-time values: what a global, a closure variable or a module
// attribute names when the kernel is compiled.  The kernel's meaning depends
// on them, so they are frozen into the compiled code (and into cache keys).
#pragma once

#include "bytecode/RawCode.h"
#include "types/Signature.h"
#include "types/Type.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pcj::ir {

// Constant memory holds 64 KiB; a constant array (a global NumPy array, or
// cuda.const.array_like) may use at most that.
constexpr size_t kMaxConstArrayBytes = 64 * 1024;

struct CTValue {
  enum class Kind : uint8_t {
    // not found
    Invalid,
    // a number / bool / None / str / tuple of those: `value`
    Const,
    // a module: `name` is its canonical name ("math", "cuda", "np")
    Module,
    // a stdlib registry entry: `name` is its key ("math.sqrt")
    Intrinsic,
    // a scalar type used as a value (np.float32): `type`
    DType,
    // a device function: `name` its qualname, `handle` the object; a nested
    // function passed to a device function also carries the constants it
    // captures (`items`) and its default values (`value`, a tuple)
    Function,
    // a host array frozen as constant data: `type` its dtype, `shape`, `bytes`
    // its elements in C order
    ConstArray,
    // a namedtuple class: `name` the class, `fields` its fields
    TupleClass,
    // a device array captured by reference (numba-cuda's global device
    // arrays): `type` its dtype, `shape`, `strides` (in bytes) and `address`
    // of its first element
    DeviceArray,
    // a user-defined exception class (a module global) a kernel may raise:
    // `name` its key ("module.Qualname"), which the host maps back to the
    // class
    ExceptionClass,
    // a tuple holding at least one array (a global or closure tuple of NumPy
    // arrays): `items` its elements (Const, ConstArray, DeviceArray or Tuple);
    // a namedtuple keeps `name` and `fields`.  Tuples of plain constants are
    // Const.
    Tuple,
    // some other Python object: `name` describes it, `hint` (if any) says what
    // to do instead
    Unsupported,
  };
  Kind kind = Kind::Invalid;
  bc::ConstValue value;
  std::string name;
  types::TypeRef type = nullptr;
  uintptr_t handle = 0; // opaque host object (modules), for attribute lookups
  std::vector<int64_t> shape;      // ConstArray, DeviceArray
  std::string bytes;               // ConstArray
  std::vector<int64_t> strides;    // DeviceArray
  uint64_t address = 0;            // DeviceArray
  std::vector<std::string> fields; // TupleClass
  std::string hint;                // Unsupported
  std::vector<CTValue> items;      // Tuple; Function (captured constants)

  static CTValue invalid() { return {}; }
  static CTValue constant(bc::ConstValue V) {
    CTValue C;
    C.kind = Kind::Const;
    C.value = std::move(V);
    return C;
  }
  static CTValue module(std::string Name, uintptr_t Handle) {
    CTValue C;
    C.kind = Kind::Module;
    C.name = std::move(Name);
    C.handle = Handle;
    return C;
  }
  static CTValue intrinsic(std::string Key) {
    CTValue C;
    C.kind = Kind::Intrinsic;
    C.name = std::move(Key);
    return C;
  }
  static CTValue dtype(types::TypeRef T) {
    CTValue C;
    C.kind = Kind::DType;
    C.type = T;
    return C;
  }
  static CTValue function(std::string Qualname, uintptr_t Handle) {
    CTValue C;
    C.kind = Kind::Function;
    C.name = std::move(Qualname);
    C.handle = Handle;
    return C;
  }
  static CTValue constArray(types::TypeRef DType, std::vector<int64_t> Shape,
                            std::string Bytes) {
    CTValue C;
    C.kind = Kind::ConstArray;
    C.type = DType;
    C.shape = std::move(Shape);
    C.bytes = std::move(Bytes);
    return C;
  }
  static CTValue deviceArray(types::TypeRef DType, std::vector<int64_t> Shape,
                             std::vector<int64_t> Strides, uint64_t Address) {
    CTValue C;
    C.kind = Kind::DeviceArray;
    C.type = DType;
    C.shape = std::move(Shape);
    C.strides = std::move(Strides);
    C.address = Address;
    return C;
  }
  static CTValue tupleClass(std::string Class,
                            std::vector<std::string> Fields) {
    CTValue C;
    C.kind = Kind::TupleClass;
    C.name = std::move(Class);
    C.fields = std::move(Fields);
    return C;
  }
  static CTValue exceptionClass(std::string Key) {
    CTValue C;
    C.kind = Kind::ExceptionClass;
    C.name = std::move(Key);
    return C;
  }
  static CTValue tuple(std::vector<CTValue> Items) {
    CTValue C;
    C.kind = Kind::Tuple;
    C.items = std::move(Items);
    return C;
  }
  static CTValue unsupported(std::string What, std::string Hint = {}) {
    CTValue C;
    C.kind = Kind::Unsupported;
    C.name = std::move(What);
    C.hint = std::move(Hint);
    return C;
  }

  // Deterministic description (dumps, cache keys): "const 3.5",
  // "module math", "intrinsic cuda.grid", "dtype float32".
  std::string repr() const;
  std::string namedTupleSuffix() const;
};

// Answers the compiler's questions about the kernel's environment.  The
// Python glue implements it over the function's __globals__/__closure__;
// tests implement it with tables.
class Resolver;

// Code linked with a kernel that calls a foreign function: `kind` is how
// the linker takes it ("cu" is CUDA C++ source, compiled by NVRTC at link
// time; "ptx", "ltoir", "cubin", "fatbin", "o", "a"), `name` the file (or
// "<CUSource>"), `data` its bytes (read at each compile, so the cache key
// sees edits).
struct LinkItem {
  std::string kind, name, data;
};

// cuda.declare_device(name, sig, link=..., abi=...): a device function
// written in CUDA C/C++ or PTX, called by symbol.  Numba's ABI:
// `int name(ret *, args...)` (the int a status, ignored); C ABI:
// `ret name(args...)`.
struct ForeignInfo {
  std::string symbol;
  bool cAbi = false;
  // declare_device(use_cooperative=True): the code syncs the grid, so a
  // kernel calling it is launched cooperatively.
  bool cooperative = false;
  types::Signature signature;
  std::vector<LinkItem> links;
};

// What the compiler needs to compile a call of a device function.
struct CalleeInfo {
  bc::RawCode code;
  std::unique_ptr<Resolver> resolver; // for the callee's own globals
  std::vector<CTValue> defaults;      // values of its trailing defaults
  bool inlineAlways = false;          // @cuda.jit(device=True, inline="always")
  // @cuda.jit("int64(int64, int64)", device=True): calls choose one (as
  // explicit kernel signatures do) and convert to its types; empty: one
  // specialization per argument types.
  std::vector<types::Signature> signatures;
  std::string identity;   // stable id within this process
  bool isForeign = false; // `foreign` describes it; no code
  ForeignInfo foreign;
};

class Resolver {
public:
  virtual ~Resolver() = default;
  // A global (module globals, then builtins).
  virtual CTValue global(const std::string &Name) = 0;
  // A closure (free) variable.
  virtual CTValue deref(const std::string &Name) = 0;
  // `Module.attr`, for modules that are not in the stdlib registry
  // (e.g. a user module holding constants, or `math.pi`).
  virtual CTValue attribute(const CTValue &Module, const std::string &Attr) = 0;
  // The code and environment of a device function (a Function value).
  virtual CalleeInfo callee(const CTValue &Function) = 0;
  // A nested function or lambda the function being compiled defines: the
  // code object consts[ConstIndex] (`Qualname`), as a Function value whose
  // callee() has RawCode::freevarsAsParams set.  Invalid where there is
  // none (test resolvers).
  virtual CTValue nested(const std::string &Qualname, int ConstIndex) {
    (void)Qualname;
    (void)ConstIndex;
    return CTValue::invalid();
  }
};

} // namespace pcj::ir
