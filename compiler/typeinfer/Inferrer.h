// Inferrer: the state and the per-instruction rules of type inference
// (TypeInfer.h's inferTypes).  Internal to compiler/typeinfer: the rules
// live in TypeInfer.cpp, the subscript and record-field rules in
// InferItems.cpp, the device-function call rules in InferCalls.cpp.
#pragma once

#include "stdlib/Registry.h"
#include "support/Diagnostics.h"
#include "typeinfer/ConstTypes.h"
#include "typeinfer/TypeInfer.h"
#include "types/Overloads.h"

#include <string>
#include <vector>

namespace pcj::typeinfer::detail {

using namespace types;
using ir::Instr;
using ir::Op;

class Inferrer {
public:
  Inferrer(ir::Function &F, ir::Resolver &R, const Options &O)
      : F(F), R(R), O(O) {}

  std::vector<Resolution> run(const std::vector<TypeRef> &ArgTypes);

private:
  ir::Function &F;
  ir::Resolver &R;
  const Options &O;
  std::vector<Resolution> Resolutions;
  std::vector<TypeRef> Args;

  [[noreturn]] void fail(const Instr *I, const std::string &Msg,
                         const std::string &Hint = {},
                         ErrorKind K = ErrorKind::Typing) {
    throw CompileError(K, I->loc, Msg, Hint);
  }

  bool infer(Instr *I, InferredType &Out);
  void resolveOnce(Instr *I);
  bool inferGetAttr(Instr *I, InferredType &Out);
  bool inferCall(Instr *I, InferredType &Out);
  bool inferDeviceCall(Instr *I, InferredType &Out);
  ir::CTValue passedNestedFunction(const Instr *Call, const Instr *Made);
  ir::CTValue compileTimeArg(const Instr *A);
  bool rewriteOperatorCall(Instr *I, const stdlib::IntrinsicInfo &Info);
  bool knownCondition(const Instr *C, bool &Value);
  bool pruneConstantBranch(Instr *I);
  void bindArguments(Instr *I, const CalleeParams &P);
  bool inferBinOp(Instr *I, InferredType &Out);
  bool inferIs(Instr *I, InferredType &Out);
  void spreadStarArgs(Instr *I);
  bool inferCompare(Instr *I, InferredType &Out);
  bool inferConstStrCompare(Instr *I, InferredType &Out);
  // DateTimeOps.cpp: datetime64/timedelta64 and fixed-width strings.
  bool inferDateTimeBinOp(Instr *I, InferredType &Out);
  bool inferOpaqueCompare(Instr *I, InferredType &Out);
  // EnumOps.cpp: members of plain Enum classes (==, !=, is, .value).
  bool inferEnumCompare(Instr *I, InferredType &Out);
  bool inferEnumIs(Instr *I, InferredType &Out);
  bool inferEnumAttr(Instr *I, InferredType &Out);
  // A store of Val into Dest (Where names it) when either is a datetime or
  // a string: false when neither is; a TypingError when NumPy would not
  // store it.  The caller casts the value to Dest.
  bool storeOpaque(const Instr *I, TypeRef Dest, const Instr *Val,
                   const std::string &Where);
  bool inferGetItem(Instr *I, InferredType &Out);
  bool inferSetItem(Instr *I);
  void recordStore(Instr *I, TypeRef Rec, int F, const Instr *Val, size_t K);
  void sliceStore(Instr *I, TypeRef Target, const Instr *Val);
  void zeroDimIndex(Instr *I);
  TypeRef recordArrayField(const Instr *I, TypeRef Arr, int F);
  TypeRef fieldValue(const Instr *I, TypeRef T, int F);
  int recordFieldIndex(const Instr *I, TypeRef Rec, const Instr *Idx);
  TypeRef returnTypeSoFar();
  void mergeCompileTimeValues(Instr *Phi);
  InferredType applyIntrinsic(Instr *I, const stdlib::IntrinsicInfo &Info,
                              size_t FirstArg);
  TypeRef arrayIndexResult(const Instr *I, TypeRef Arr, TypeRef Idx);
  TypeRef pointerElement(Instr *I, TypeRef Ptr, const Instr *Idx);
};

inline std::string describe(TypeRef T) { return T ? T->str() : "?"; }

// Where a value's type comes from, for error messages:
// "float32 (argument 'a')", "float64 (the literal 2.5)", "int64 (line 12)".
inline std::string origin(const Instr *V) {
  std::string T = describe(V->type);
  switch (V->op) {
  case Op::Arg:
    return T + " (argument '" + V->str + "')";
  case Op::Const:
    return T + " (the literal " + V->cval.repr() + ")";
  case Op::Global:
    return T + " (global '" + V->str + "')";
  case Op::Deref:
    return T + " (closure variable '" + V->str + "')";
  default:
    return V->loc.known()
               ? T + " (from line " + std::to_string(V->loc.line) + ")"
               : T;
  }
}

} // namespace pcj::typeinfer::detail
