// A nested function or lambda in SSA form: one MakeFunction whose operands
// are the values it captures where it is defined (its code constant and
// closure tuple, which only the operand stack held, are removed):
//
//   LOAD_FAST x; BUILD_TUPLE 1; LOAD_CONST <code g>; MAKE_FUNCTION;
//   SET_FUNCTION_ATTRIBUTE 8
//   =>  %3 = makefunc "f.<locals>.g" %0
//
// Default values must be constants: `def g(v, w=2.0)` keeps (2.0,) in
// the MakeFunction's cval; type inference binds calls to them.
#include "ssa/NestedFunctions.h"

#include "support/Diagnostics.h"

#include <algorithm>

namespace pcj::ssa {

namespace {

// Removes a value that only the operand stack held.
void dropValue(ir::Instr *V) {
  auto &Ins = V->parent->instrs;
  auto It = std::find(Ins.begin(), Ins.end(), V);
  if (It != Ins.end())
    Ins.erase(It);
}

// The default values (a constant tuple, or a tuple display of constants)
// as one constant tuple.
bc::ConstValue defaultValues(ir::Instr *V, const SourceLoc &At) {
  if (V->op == ir::Op::Const && V->cval.kind == bc::ConstValue::Kind::Tuple)
    return V->cval;
  bc::ConstValue T;
  T.kind = bc::ConstValue::Kind::Tuple;
  bool AllConst = V->op == ir::Op::BuildTuple;
  for (ir::Instr *E : V->operands) {
    AllConst = AllConst && E->op == ir::Op::Const;
    if (AllConst)
      T.elems.push_back(E->cval);
  }
  if (!AllConst)
    throw CompileError(ErrorKind::Unsupported, At,
                       "default values of nested functions and lambdas must "
                       "be constants in kernels",
                       "pass the value as an argument");
  for (ir::Instr *E : V->operands)
    dropValue(E);
  return T;
}

} // namespace

void makeFunction(ir::Instr *Fn, ir::Instr *CodeValue,
                  const bc::ConstValue &Code, int Index) {
  dropValue(CodeValue);
  Fn->index = Index;
  Fn->str = Code.text;
}

void setFunctionAttribute(ir::Instr *Fn, ir::Instr *V, int Flag,
                          const SourceLoc &At) {
  if (Fn->op != ir::Op::MakeFunction)
    throw CompileError(ErrorKind::Bytecode, At,
                       "SET_FUNCTION_ATTRIBUTE without a function");
  if (Flag == 8) { // the closure: the captured values themselves
    if (V->op != ir::Op::BuildTuple)
      throw CompileError(ErrorKind::Bytecode, At,
                         "a closure that is not a tuple display");
    Fn->operands = V->operands;
    dropValue(V);
  } else if (Flag == 1) {
    Fn->cval = defaultValues(V, At);
    dropValue(V);
  } // annotations (4): nothing at run time
}

} // namespace pcj::ssa
