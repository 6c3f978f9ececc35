// The intrinsic registry (Registry.def) as C++: ids, kinds, lookup by key,
// and the typing side.  The lowering side lives in stdlib/lowering and is
// linked only by compiler/lower, so typing never depends on LLVM.
#pragma once

#include "ir/IR.h"
#include "stdlib/IntrinsicId.h"
#include "types/Type.h"

#include <string>
#include <string_view>
#include <vector>

namespace pcj::stdlib {

// Operator: a function that is a Python operator (operator.add): type
// inference turns its calls into the operator's instruction (IData: arity,
// SData: the operator's symbol, "+", "<", "~"); its rules are never called.
enum class IntrinsicKind : uint8_t { Namespace, Attr, Func, Operator };

// One argument of an intrinsic call (for Attr intrinsics: the object).
struct ArgInfo {
  types::TypeRef type = nullptr;
  bool weak = false;
  const ir::Instr *instr = nullptr;
  // The argument's value when it is a compile-time constant (a literal, a
  // frozen global, a constant a device function was called with, or a
  // tuple of those), else false.
  bool constant(bc::ConstValue &Out) const;
};

struct IntrinsicInfo;

// isinstance(v, cls) for a value of type Value and a class argument of type
// Class (a dtype, the builtins int/float/bool/complex, or a tuple of those),
// answered from the types as numba-cuda does: 1 or 0, -1 if Class is not a
// class kernels know.
int isInstanceAnswer(types::TypeRef Value, types::TypeRef Class);

// cuda.threadIdx, cuda.blockIdx, cuda.blockDim, cuda.gridDim: the namespaces
// that are also values (numba-cuda's dim3: print() shows "(x, y, z)").
inline bool isDim3Namespace(std::string_view Key) {
  return Key == "cuda.threadIdx" || Key == "cuda.blockIdx" ||
         Key == "cuda.blockDim" || Key == "cuda.gridDim";
}

struct TypingRequest {
  const IntrinsicInfo &info;
  const ir::Instr &instr; // the Call / GetAttr being typed (for locations)
  std::vector<ArgInfo> args;
  std::vector<std::string> kwnames; // names of the trailing args

  // Positional-or-keyword argument lookup: index into args, or -1.
  int find(size_t Pos, const std::string &Name) const;
  [[noreturn]] void fail(const std::string &Msg,
                         const std::string &Hint = {}) const;
};

struct TypingResult {
  types::TypeRef type = nullptr;
  bool weak = false;
  std::vector<types::TypeRef> argTypes; // conversions of the args (optional)
};

using TypingFn = TypingResult (*)(const TypingRequest &);

struct IntrinsicInfo {
  IntrinsicId id;
  const char *key;
  IntrinsicKind kind;
  TypingFn typing;
  int idata;
  const char *sdata;
};

const IntrinsicInfo *lookupIntrinsic(std::string_view Key);
const IntrinsicInfo &intrinsicInfo(IntrinsicId Id);
// Every key (for the Python package's `cuda` namespace and docs).
std::vector<std::string> intrinsicKeys();

// NumPy ufuncs called on arrays in kernels (numba-cuda's `np.sin(x, out)`):
// every "np." row but the WholeArray ones (reductions) is a ufunc; a call with
// an array argument is computed element by element into the output array `out`
// (the argument after the inputs, or out=), which the call returns.
bool isArrayUfuncCall(const IntrinsicInfo &Info,
                      const std::vector<ArgInfo> &Args);
struct UfuncCall {
  size_t inputs = 1; // the ufunc's nin
  size_t out = 0;    // index of the output array in the call's arguments
};
// Where the inputs and the output are in a lifted call (fails R otherwise).
UfuncCall ufuncCall(const TypingRequest &R);
// The element-wise typing of a lifted call: the row's own typing rule on
// the element types of InputTypes (arrays) and the scalars.
// Weak: which inputs are Python literals (NEP 50 weak scalars).
TypingResult typeUfuncElement(const IntrinsicInfo &Info, const ir::Instr &At,
                              const std::vector<types::TypeRef> &InputTypes,
                              const std::vector<bool> &Weak);
TypingResult typeArrayUfunc(const TypingRequest &R);

// The builtin exception classes `raise`/`assert` may raise in a kernel
// (registry/exceptions.def), and their names for messages ("A, B, ...").
bool isKernelException(std::string_view Name);
std::string kernelExceptionNames();

} // namespace pcj::stdlib
