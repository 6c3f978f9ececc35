// Type inference of device-function calls: arguments bound to parameters,
// the callee specialized per argument types and compile-time values (see
// Inferrer.h).
#include "typeinfer/Inferrer.h"

#include <algorithm>

namespace pcj::typeinfer::detail {

// Rewrites a device-function call's operands to (callee, arg per parameter):
// keyword arguments moved to their parameter, missing ones filled from the
// callee's defaults (as constants inserted before the call); for a callee
// with *args, the positional arguments after the named parameters packed
// into one tuple (a tuple instruction inserted before the call).
void Inferrer::bindArguments(Instr *I, const CalleeParams &P) {
  size_t NKw = I->kwnames.size();
  size_t NPos = I->operands.size() - 1 - NKw;
  std::string Name = I->operands[0]->type->str();
  size_t Named = P.names.size() - (P.varargs ? 1 : 0);
  if (NPos > Named && !P.varargs)
    fail(I, Name + " takes " + std::to_string(P.names.size()) +
                " positional arguments but " + std::to_string(NPos) +
                " were given");
  std::vector<Instr *> Bound(P.names.size(), nullptr);
  for (size_t K = 0; K < NPos && K < Named; ++K)
    Bound[K] = I->operands[1 + K];
  if (P.varargs) {
    std::vector<Instr *> Rest;
    std::vector<TypeRef> RestTypes;
    for (size_t K = Named; K < NPos; ++K) {
      Rest.push_back(I->operands[1 + K]);
      RestTypes.push_back(Rest.back()->type);
    }
    Instr *T = F.insert(I->parent, I, Op::BuildTuple, I->loc, Rest);
    T->type = tupleTy(RestTypes);
    Bound[Named] = T;
  }
  for (size_t K = 0; K < NKw; ++K) {
    auto It =
        std::find(P.names.begin(), P.names.begin() + Named, I->kwnames[K]);
    if (It == P.names.begin() + Named)
      fail(I, Name + " got an unexpected keyword argument '" + I->kwnames[K] +
                  "'");
    size_t Idx = It - P.names.begin();
    if (Bound[Idx])
      fail(I,
           Name + " got multiple values for argument '" + I->kwnames[K] + "'");
    Bound[Idx] = I->operands[1 + NPos + K];
  }
  size_t FirstDefault = Named - P.defaults.size();
  for (size_t K = 0; K < Bound.size(); ++K) {
    if (Bound[K])
      continue;
    if (K < FirstDefault)
      fail(I, Name + " missing required argument '" + P.names[K] + "'");
    const ir::CTValue &D = P.defaults[K - FirstDefault];
    if (D.kind != ir::CTValue::Kind::Const)
      fail(I, "the default value of '" + P.names[K] + "' (" + D.repr() +
                  ") cannot be used in kernels; pass the argument explicitly");
    Instr *C = F.insert(I->parent, I, Op::Const, I->loc);
    C->cval = D.value;
    InferredType CT = typeOfConst(C, C->cval);
    C->type = CT.type;
    C->weak = CT.weak;
    Bound[K] = C;
  }
  std::vector<Instr *> Ops{I->operands[0]};
  Ops.insert(Ops.end(), Bound.begin(), Bound.end());
  I->operands = Ops;
  I->kwnames.clear();
}

bool Inferrer::inferDeviceCall(Instr *I, InferredType &Out) {
  if (!O.callees)
    fail(I, "device functions cannot be called here", "",
         ErrorKind::Unsupported);
  const ir::CTValue &Fn = I->operands[0]->ct;
  PCJ_ASSERT(Fn.kind == ir::CTValue::Kind::Function,
             "function-typed value without its compile-time value");
  if (!I->argsBound) {
    CalleeParams P = O.callees->parameters(Fn, I->loc);
    // A nested function's captured values are its leading parameters:
    // bind the call's arguments to the rest, then pass the captures.
    const Instr *Made = I->operands[0];
    while (Made->op == Op::CheckBound)
      Made = Made->operands[0];
    // A nested function passed in (numba's escaping closures) brings its
    // captured constants and default values with it (passedNestedFunction).
    bool Passed = Made->op != Op::MakeFunction;
    if (P.captures && Passed && Fn.items.size() != P.captures)
      fail(I,
           "'" + Fn.name +
               "' captures variables of the function that "
               "defines it, so only that function can call it",
           "call it where it is defined, or pass the captured values as "
           "arguments");
    P.names.erase(P.names.begin(), P.names.begin() + P.captures);
    const bc::ConstValue &Defaults = Passed ? Fn.value : Made->cval;
    if (Defaults.kind == bc::ConstValue::Kind::Tuple) {
      P.defaults.clear();
      for (const bc::ConstValue &D : Defaults.elems)
        P.defaults.push_back(ir::CTValue::constant(D));
    }
    bindArguments(I, P);
    if (P.captures && !Passed)
      I->operands.insert(I->operands.begin() + 1, Made->operands.begin(),
                         Made->operands.end());
    for (size_t K = 0; P.captures && Passed && K < Fn.items.size(); ++K) {
      Instr *C = F.insert(I->parent, I, Op::Const, I->loc);
      C->cval = Fn.items[K].value;
      InferredType CT = typeOfConst(C, C->cval);
      C->type = CT.type;
      C->weak = CT.weak;
      I->operands.insert(I->operands.begin() + 1 + K, C);
    }
    I->argsBound = true;
  }
  std::vector<TypeRef> ArgTypes;
  std::vector<ir::CTValue> Values;
  for (size_t K = 1; K < I->operands.size(); ++K) {
    TypeRef T = I->operands[K]->type;
    if (!T)
      return false;
    const Instr *A = I->operands[K];
    while (A->op == Op::CheckBound)
      A = A->operands[0];
    if (A->op == Op::MakeFunction)
      Values.push_back(passedNestedFunction(I, A));
    else
      Values.push_back(compileTimeArg(I->operands[K]));
    if (!T->isRuntime() && Values.back().kind == ir::CTValue::Kind::Invalid)
      fail(I, "cannot pass a " + T->str() + " to a device function",
           "device functions take numbers, arrays, tuples, and values known "
           "at compile time (constants, dtypes, intrinsics, device functions)");
    ArgTypes.push_back(T);
  }
  CallSpec Spec = O.callees->specialize(Fn, ArgTypes, Values, I->loc);
  if (!Spec.ret)
    return false; // recursion still being inferred
  I->calleeSymbol = Spec.symbol;
  I->argTypes.assign(I->operands.size(), nullptr);
  for (size_t K = 0; K < Spec.params.size(); ++K) // explicit signature
    I->argTypes[K + 1] = Spec.params[K];
  Out = {Spec.ret, false};
  return true;
}

// A phi of a compile-time value (a module, a device function, a dtype...)
// names what every path names; a local naming different things on
// different paths cannot be compiled.
void Inferrer::mergeCompileTimeValues(Instr *Phi) {
  const Instr *First = nullptr;
  for (const Instr *V : Phi->operands) {
    if (!V->type)
      continue;
    if (!First) {
      First = V;
      continue;
    }
    if (V->ct.repr() != First->ct.repr())
      fail(Phi,
           "a variable names different compile-time values on different "
           "paths: " +
               First->ct.repr() + " and " + V->ct.repr(),
           "assign it the same function, module or type on every path");
  }
  Phi->ct = First->ct;
}

// A device-function argument's value when the compiler knows it: a
// constant (literal, frozen global, tuple of those), or a compile-time-only
// value (a dtype, an intrinsic, a device function, a module, a namedtuple
// class).  Invalid for run-time values and for what cannot be passed.
// A nested function passed to a device function (numba-cuda's escaping
// closures, which capture constants only): its compile-time value with
// the constants it captures (`items`) and its default values (`value`),
// which calls of it in the callee pass.
ir::CTValue Inferrer::passedNestedFunction(const Instr *Call,
                                           const Instr *Made) {
  ir::CTValue V = Made->ct;
  V.value = Made->cval;
  for (const Instr *C : Made->operands) {
    bc::ConstValue K;
    if (!stdlib::ArgInfo{C->type, C->weak, C}.constant(K))
      fail(Call,
           "Cannot capture the non-constant value associated with " +
               origin(C) + ": cannot pass the nested function '" + Made->str +
               "' to a device function: it captures " + origin(C) +
               ", which is not a constant",
           "numba-cuda too passes only nested functions that capture "
           "constants; pass the captured values as arguments");
    V.items.push_back(ir::CTValue::constant(K));
  }
  return V;
}

ir::CTValue Inferrer::compileTimeArg(const Instr *A) {
  bc::ConstValue C;
  if (stdlib::ArgInfo{A->type, A->weak, A}.constant(C))
    return ir::CTValue::constant(C);
  if (A->type->isRuntime())
    return ir::CTValue::invalid();
  if (A->ct.kind != ir::CTValue::Kind::Invalid &&
      A->ct.kind != ir::CTValue::Kind::Unsupported)
    return A->ct;
  switch (A->type->kind()) { // registry names (cuda.atomic.add) carry no ct
  case Kind::Intrinsic:
    return ir::CTValue::intrinsic(A->type->name());
  case Kind::DType:
    return ir::CTValue::dtype(A->type->inner());
  case Kind::TupleClass:
    return ir::CTValue::tupleClass(A->type->name(), A->type->fields());
  default:
    return ir::CTValue::invalid();
  }
}

} // namespace pcj::typeinfer::detail
