// Type inference to a fixed point (see TypeInfer.h).
#include "typeinfer/TypeInfer.h"
#include "typeinfer/Inferrer.h"

#include "stdlib/Registry.h"
#include "support/Diagnostics.h"
#include "typeinfer/ConstTypes.h"
#include "typeinfer/FoldConstants.h"
#include "types/CharSeq.h"
#include "types/DateTime.h"
#include "types/Fp8.h"
#include "types/Overloads.h"
#include "types/Promotion.h"

#include <algorithm>
#include <map>
#include <optional>

namespace pcj::typeinfer {

using namespace types;
using ir::Instr;
using ir::Op;

namespace detail {

// The Inferrer class: typeinfer/Inferrer.h.

// The registry prefix for attributes of values of type T ("" if none).
std::string valueKindKey(TypeRef T) {
  switch (T->kind()) {
  case Kind::Array:
    return "array";
  case Kind::Complex:
    return "complex";
  case Kind::Float:
    return "float";
  case Kind::Int:
  case Kind::Bool:
    return "int";
  case Kind::Vector:
    return "vector";
  default:
    return "";
  }
}

void Inferrer::resolveOnce(Instr *I) {
  if (I->ct.kind != ir::CTValue::Kind::Invalid)
    return;
  std::string What;
  if (I->op == Op::Global) {
    I->ct = R.global(I->str);
    What = "global '" + I->str + "'";
  } else {
    I->ct = R.deref(I->str);
    What = "closure variable '" + I->str + "'";
  }
  if (I->ct.kind == ir::CTValue::Kind::Invalid)
    fail(I, "name '" + I->str + "' is not defined", "", ErrorKind::Name);
  Resolutions.push_back({What, I->ct});
}

InferredType Inferrer::applyIntrinsic(Instr *I,
                                      const stdlib::IntrinsicInfo &Info,
                                      size_t FirstArg) {
  stdlib::TypingRequest Req{Info, *I, {}, I->kwnames};
  for (size_t K = FirstArg; K < I->operands.size(); ++K) {
    Instr *A = I->operands[K];
    Req.args.push_back({A->type, A->weak, A});
  }
  stdlib::TypingResult Res = stdlib::isArrayUfuncCall(Info, Req.args)
                                 ? stdlib::typeArrayUfunc(Req)
                                 : Info.typing(Req);
  PCJ_ASSERT(Res.type,
             std::string("typing rule returned no type for ") + Info.key);
  I->intrinsic = Info.id;
  I->argTypes.assign(I->operands.size(), nullptr);
  for (size_t K = 0; K < Res.argTypes.size(); ++K)
    I->argTypes[FirstArg + K] = Res.argTypes[K];
  return {Res.type, Res.weak};
}

bool Inferrer::inferGetAttr(Instr *I, InferredType &Out) {
  Instr *Obj = I->operands[0];
  TypeRef T = Obj->type;
  const std::string &Attr = I->str;
  if (T->kind() == Kind::Module || T->kind() == Kind::Intrinsic) {
    std::string Key = T->name() + "." + Attr;
    if (const stdlib::IntrinsicInfo *Info = stdlib::lookupIntrinsic(Key)) {
      I->intrinsic = Info->id;
      if (Info->kind == stdlib::IntrinsicKind::Attr) {
        Out = applyIntrinsic(I, *Info, 1);
        I->argTypes.clear();
        return true;
      }
      Out = {intrinsicTy(Key), false};
      return true;
    }
    if (T->kind() == Kind::Intrinsic)
      fail(I, "'" + T->name() + "' has no attribute '" + Attr + "'", "",
           ErrorKind::Name);
    if (I->ct.kind == ir::CTValue::Kind::Invalid) {
      PCJ_ASSERT(Obj->ct.kind == ir::CTValue::Kind::Module,
                 "module value without a compile-time value");
      I->ct = R.attribute(Obj->ct, Attr);
      if (I->ct.kind == ir::CTValue::Kind::Invalid)
        fail(I, "module '" + T->name() + "' has no attribute '" + Attr + "'",
             "", ErrorKind::Name);
      Resolutions.push_back({T->name() + "." + Attr, I->ct});
    }
    Out = typeOfCompileTimeValue(I, I->ct, "'" + T->name() + "." + Attr + "'");
    return true;
  }
  // Fields of namedtuples and records.
  if ((T->isTuple() || T->kind() == Kind::Record) && !T->fields().empty()) {
    int Idx = T->fieldIndex(Attr);
    if (Idx < 0)
      fail(I, "'" + T->str() + "' has no field '" + Attr + "'", "",
           ErrorKind::Name);
    Out = {fieldValue(I, T, Idx), false};
    return true;
  }
  if (T->kind() == Kind::EnumMember)
    return inferEnumAttr(I, Out);
  // Attributes and methods of values: registry keys "<kind>.<attr>"
  // ("array.shape", "complex.real", "complex.conjugate").
  std::string KindKey = valueKindKey(T);
  const stdlib::IntrinsicInfo *Info =
      KindKey.empty() ? nullptr : stdlib::lookupIntrinsic(KindKey + "." + Attr);
  if (!Info && T->isArray() && T->dtype()->kind() == Kind::Record &&
      T->dtype()->fieldIndex(Attr) >= 0) {
    Out = {recordArrayField(I, T, T->dtype()->fieldIndex(Attr)), false};
    return true;
  }
  if (!Info)
    fail(I, "'" + T->str() + "' has no attribute '" + Attr + "' in kernels",
         T->isArray() ? "available: shape, strides, size, ndim, dtype, real, "
                        "imag, reshape(), view(), the reductions sum(), "
                        "prod(), min(), max(), mean(), var(), std(), all(), "
                        "any(), and a record array's fields"
                      : "",
         ErrorKind::Name);
  if (Info->kind == stdlib::IntrinsicKind::Func) {
    // A bound method: the call passes the object as its first argument.
    I->intrinsic = Info->id;
    I->boundMethod = true;
    Out = {intrinsicTy(Info->key), false};
    return true;
  }
  Out = applyIntrinsic(I, *Info, 0);
  I->argTypes.clear();
  return true;
}

// f(*t): the tuple's elements, read by tupleget instructions inserted
// before the call, become its last arguments (numba: a star argument must
// be a tuple, whose length typing knows).
void Inferrer::spreadStarArgs(Instr *I) {
  Instr *Tup = I->operands.back();
  TypeRef TT = Tup->type;
  if (!TT->isTuple())
    fail(I, "f(*args) in kernels takes a tuple, not " + origin(Tup) + " (" +
                TT->str() + ")");
  I->operands.pop_back();
  size_t N = TT->elems().size();
  for (size_t K = 0; K < N; ++K) {
    Instr *G = F.insert(I->parent, I, Op::TupleGet, I->loc, {Tup});
    G->index = int64_t(K);
    G->unpackCount = unsigned(N);
    G->type = TT->elems()[K];
    I->operands.push_back(G);
  }
  I->starArgs = false;
}

bool Inferrer::inferCall(Instr *I, InferredType &Out) {
  if (I->starArgs)
    spreadStarArgs(I);
  TypeRef T = I->operands[0]->type;
  Instr *Callee = I->operands[0];
  if (Callee->op == Op::GetAttr && Callee->boundMethod &&
      !I->receiverInserted) {
    // obj.method(args) -> method(obj, args), once.
    I->operands.insert(I->operands.begin() + 1, Callee->operands[0]);
    I->receiverInserted = true;
  }
  if (T->kind() == Kind::Intrinsic) {
    const stdlib::IntrinsicInfo *Info = stdlib::lookupIntrinsic(T->name());
    PCJ_ASSERT(Info, "unknown intrinsic " + T->name());
    if (Info->kind == stdlib::IntrinsicKind::Operator) {
      if (!rewriteOperatorCall(I, *Info))
        fail(I, T->name() + "() takes " + std::to_string(Info->idata) +
                    " positional argument" + (Info->idata == 1 ? "" : "s") +
                    " in kernels");
      return infer(I, Out);
    }
    if (Info->kind != stdlib::IntrinsicKind::Func)
      fail(I, "'" + T->name() + "' is not callable");
    Out = applyIntrinsic(I, *Info, 1);
    return true;
  }
  if (T->kind() == Kind::DType) {
    if (I->operands.size() != 2 || !I->kwnames.empty())
      fail(I, T->inner()->str() + "() takes exactly one argument in kernels");
    TypeRef A = I->operands[1]->type;
    TypeRef To = T->inner();
    // fp8 values convert to and from ints and floats only (lower/Fp8.cpp).
    bool Fp8Ok = isFp8(To)  ? (A->isIntegral() || A->isFloat())
                 : isFp8(A) ? (To->isIntegral() || To->isFloat())
                            : false;
    if (!To->isNumeric() && !isFp8(To))
      fail(I, "a structured dtype cannot be called in kernels",
           "use it as the dtype of cuda.local.array or cuda.shared.array");
    if (!Fp8Ok && (!A->isNumeric() || !To->isNumeric()))
      fail(I, "cannot convert " + A->str() + " to " + To->str(),
           isFp8(A) || isFp8(To)
               ? "fp8 values convert to and from int and float types"
               : "");
    Out = {T->inner(), false};
    // The argument converts to the type (InsertCasts), where
    // transforms/ConstantRanges sees a Python int that does not fit.
    I->argTypes = {nullptr, T->inner()};
    return true;
  }
  if (T->kind() == Kind::Function)
    return inferDeviceCall(I, Out);
  if (T->kind() == Kind::TupleClass) {
    // Point(1, y=2.0): bind to the fields, then build a named tuple.
    CalleeParams P;
    P.names = T->fields();
    if (!I->argsBound) {
      bindArguments(I, P);
      I->argsBound = true;
    }
    std::vector<TypeRef> Elems;
    for (size_t K = 1; K < I->operands.size(); ++K) {
      TypeRef E = I->operands[K]->type;
      if (!E->isRuntime())
        fail(I, "a namedtuple field cannot hold a " + E->str());
      Elems.push_back(E);
    }
    Out = {namedTupleTy(T->name(), T->fields(), Elems), false};
    I->argTypes.assign(I->operands.size(), nullptr);
    return true;
  }
  fail(I, "cannot call a value of type " + T->str() + " in a kernel",
       "kernels can call math/cuda functions, builtins such as range/len/min/"
       "max/abs, numpy scalar types and @cuda.jit(device=True) functions",
       ErrorKind::Unsupported);
}

// The truth value of a branch condition known at compile time: a constant
// (a literal, a frozen global, a constant a device function was called
// with), `x is None` (decided by x's type), and `not` of those.
bool Inferrer::knownCondition(const Instr *C, bool &Value) {
  bool Negate = false;
  while (C->op == Op::Truth || (C->op == Op::Unary && ir::UnaryKind(C->index) ==
                                                          ir::UnaryKind::Not)) {
    Negate ^= C->op == Op::Unary;
    C = C->operands[0];
  }
  if (!C->type)
    return false;
  bool T = false;
  if (C->op == Op::Is) { // the types decide, unless two values of one type
    TypeRef A = C->operands[0]->type, B = C->operands[1]->type;
    if (!A || !B || (A == B && A != noneTy()) || A->kind() == Kind::Optional ||
        B->kind() == Kind::Optional)
      return false; // an optional is None or not at run time
    T = (A == B) != (C->index != 0);
  } else {
    bc::ConstValue V;
    if (!stdlib::ArgInfo{C->type, C->weak, C}.constant(V))
      return false;
    using K = bc::ConstValue::Kind;
    switch (V.kind) {
    case K::None:
      T = false;
      break;
    case K::Bool:
      T = V.b;
      break;
    case K::Int:
      T = V.bigInt || V.i != 0;
      break;
    case K::Float:
      T = V.f != 0;
      break;
    case K::Complex:
      T = V.f != 0 || V.imag != 0;
      break;
    case K::Tuple:
      T = !V.elems.empty();
      break;
    default:
      return false;
    }
  }
  Value = T != Negate;
  return true;
}

// A branch whose condition is known takes one way only: it becomes a jump,
// and the code it skips is dropped untyped (as numba prunes branches on
// literal arguments), so a flag passed to a device function selects code
// (`if wrap: idx = ...` need not type when wrap is False).
bool Inferrer::pruneConstantBranch(Instr *I) {
  bool Value = false;
  if (!knownCondition(I->operands[0], Value))
    return false;
  ir::Block *Taken = I->succs[Value ? 0 : 1];
  I->op = Op::Jump;
  I->operands.clear();
  I->succs = {Taken};
  return true;
}

// Two types that join into numba's OptionalType: None and a number or
// bool, or an optional and None or a value of a type its own unifies with.
// Null when neither is optional nor exactly one is None, or the value is
// not a number (arrays, tuples... stay refused).
static TypeRef unifyOptional(InferredType A, InferredType B, bool *Weak) {
  auto Inner = [](TypeRef T) {
    return T->kind() == Kind::Optional ? T->inner() : T;
  };
  bool AOpt = A.type->kind() == Kind::Optional,
       BOpt = B.type->kind() == Kind::Optional;
  bool ANone = A.type == noneTy(), BNone = B.type == noneTy();
  if (!AOpt && !BOpt && ANone == BNone)
    return nullptr;
  if (ANone || BNone) {
    TypeRef V = Inner(ANone ? B.type : A.type);
    *Weak = false;
    return V->isNumeric() ? optionalTy(V) : nullptr;
  }
  TypeRef U = unify({Inner(A.type), A.weak}, {Inner(B.type), B.weak}, Weak);
  *Weak = false;
  return U && U->isNumeric() ? optionalTy(U) : nullptr;
}

bool Inferrer::infer(Instr *I, InferredType &Out) {
  for (Instr *Op : I->operands)
    if (!Op->type && Op->op != ir::Op::Undef && I->op != ir::Op::Phi)
      return false;   // operand not typed yet
  foldPythonIntOp(I); // exact Python int arithmetic on constants
  switch (I->op) {
  case Op::Arg:
    if (size_t(I->index) < O.argValues.size())
      I->ct = O.argValues[I->index]; // a compile-time value the caller passed
    Out = {Args.at(I->index), false};
    // A single record (NumPy's np.void, passed as a 0-d array of its
    // dtype) is used as the record itself: r.x, r['x'], b[i] = r.
    if (Out.type->isArray() && Out.type->ndim() == 0 &&
        Out.type->dtype()->kind() == Kind::Record)
      Out.type = Out.type->dtype();
    return true;
  case Op::Const:
    Out = typeOfConst(I, I->cval);
    return true;
  case Op::Global:
  case Op::Deref:
    resolveOnce(I);
    Out = typeOfCompileTimeValue(I, I->ct, "'" + I->str + "'");
    return true;
  case Op::MakeFunction:
    if (I->ct.kind == ir::CTValue::Kind::Invalid)
      I->ct = R.nested(I->str, (int)I->index);
    if (I->ct.kind != ir::CTValue::Kind::Function)
      fail(I, "nested functions and lambdas cannot be compiled here", "",
           ErrorKind::Unsupported);
    Out = typeOfCompileTimeValue(I, I->ct, "'" + I->str + "'");
    return true;
  case Op::Undef:
    return false;
  case Op::Phi: {
    bool Any = false;
    InferredType Acc;
    for (Instr *V : I->operands) {
      if (!V->type)
        continue;
      if (!Any) {
        Acc = {V->type, V->weak};
        Any = true;
        continue;
      }
      bool W = false;
      TypeRef U = unify({Acc.type, Acc.weak}, {V->type, V->weak}, &W);
      if (!U && (Acc.type->kind() == Kind::Optional ||
                 V->type->kind() == Kind::Optional))
        U = unifyOptional(Acc, {V->type, V->weak}, &W);
      if (!U) {
        const Instr *First = nullptr;
        for (Instr *X : I->operands)
          if (X->type && !First)
            First = X;
        fail(I,
             "a variable has incompatible types on different paths: " +
                 origin(First) + " and " + origin(V),
             "give the variable one type on every path");
      }
      Acc = {U, W};
    }
    if (!Any)
      return false;
    if (!Acc.type->isRuntime())
      mergeCompileTimeValues(I);
    Out = Acc;
    I->argTypes.assign(I->operands.size(), Acc.type);
    return true;
  }
  case Op::CheckBound: {
    Instr *V = I->operands[0];
    Out = {V->type, V->weak};
    I->ct = V->ct;
    I->argTypes = {nullptr};
    return true;
  }
  case Op::BinOp:
    return inferBinOp(I, Out);
  case Op::Unary: {
    Instr *A = I->operands[0];
    auto K = ir::UnaryKind(I->index);
    if (K == ir::UnaryKind::Not) {
      if (A->type->isArray())
        fail(I, "the truth value of an array is ambiguous");
      Out = {boolTy(), false};
      I->argTypes = {nullptr};
      return true;
    }
    if (!A->type->isNumeric())
      fail(I, std::string("bad operand type for unary ") + ir::unarySymbol(K) +
                  ": " + A->type->str());
    TypeRef T = A->type->isBool() ? int64Ty() : A->type;
    if (K == ir::UnaryKind::Invert && !T->isInt())
      fail(I, "bad operand type for unary ~: " + A->type->str());
    Out = {T, A->weak};
    I->argTypes = {T};
    return true;
  }
  case Op::Compare:
    return inferCompare(I, Out);
  case Op::Is:
    return inferIs(I, Out);
  case Op::Truth: {
    TypeRef A = I->operands[0]->type;
    if (A->isArray())
      fail(I, "the truth value of an array is ambiguous",
           "compare elements, e.g. a[i] != 0");
    if (!A->isNumeric() && A != noneTy() && !A->isTuple() &&
        !(A->kind() == Kind::Optional && A->inner()->isNumeric()))
      fail(I, "cannot use " + A->str() + " as a condition");
    Out = {boolTy(), false};
    return true;
  }
  case Op::Cast:
    // The casts typing makes -- an optional's value (unwrapOptionals), an
    // Enum member's .value (inferEnumAttr) -- convert to what their operand
    // holds: after a restart wiped their types they are typed from it again
    // (an operand no longer optional: the cast passes it on).
    if (TypeRef From = I->operands[0]->type;
        From->kind() == Kind::Optional || !I->type) {
      bool Holds =
          From->kind() == Kind::Optional || From->kind() == Kind::EnumMember;
      Out = {Holds ? From->inner() : From, false};
      return true;
    }
    Out = {I->type, I->weak};
    return true;
  case Op::GetAttr:
    return inferGetAttr(I, Out);
  case Op::Call:
    return inferCall(I, Out);
  case Op::GetItem:
    return inferGetItem(I, Out);
  case Op::SetItem:
    inferSetItem(I);
    Out = {noneTy(), false};
    return true;
  case Op::SetAttr: {
    TypeRef T = I->operands[0]->type;
    if (T->kind() != Kind::Record)
      fail(I,
           "assigning to attributes is not supported in kernels (only to "
           "fields of records)",
           T->isTuple() ? "namedtuples are immutable"
                        : "write results into an array element instead",
           ErrorKind::Unsupported);
    int F = T->fieldIndex(I->str);
    if (F < 0)
      fail(I, "'" + T->str() + "' has no field '" + I->str + "'", "",
           ErrorKind::Name);
    recordStore(I, T, F, I->operands[1], 1);
    Out = {noneTy(), false};
    return true;
  }
  case Op::BuildTuple: {
    std::vector<TypeRef> E;
    for (Instr *V : I->operands)
      E.push_back(V->type);
    Out = {tupleTy(E), false};
    return true;
  }
  case Op::BuildSlice: {
    unsigned Parts = 0;
    for (size_t K = 0; K < I->operands.size(); ++K) {
      TypeRef VT = I->operands[K]->type;
      if (VT == noneTy())
        continue;
      if (!VT->isIntegral())
        fail(I, "slice bounds must be integers or None, not " + VT->str());
      Parts |= 1u << K;
    }
    Out = {sliceTy(Parts), false};
    I->argTypes.assign(I->operands.size(), nullptr);
    for (size_t K = 0; K < I->operands.size(); ++K)
      if (I->operands[K]->type != noneTy())
        I->argTypes[K] = int64Ty();
    return true;
  }
  case Op::TupleGet: {
    TypeRef T = I->operands[0]->type;
    size_t Want = I->unpackCount;
    if (!T->isTuple())
      fail(I, "cannot unpack a value of type " + T->str() + " in a kernel");
    if (T->elems().size() != Want)
      fail(I, "cannot unpack " + std::to_string(T->elems().size()) +
                  " values into " + std::to_string(Want) + " variables");
    Out = {T->elems()[I->index], false};
    return true;
  }
  case Op::GetIter: {
    Instr *A = I->operands[0];
    if (A->type->kind() == Kind::Range) {
      Out = {rangeIterTy(A->type->inner()), A->weak};
      return true;
    }
    if (iterElementType(A->type)) {
      Out = {iteratorTy(A->type), false};
      return true;
    }
    fail(I, "iterating over " + A->type->str() + " is not supported in kernels",
         "iterate over range(...), arrays, tuples, enumerate() or zip()",
         ErrorKind::Unsupported);
  }
  case Op::ForIter: {
    Instr *A = I->operands[0];
    if (A->type->kind() == Kind::Iterator) {
      Out = {iterElementType(A->type->inner()), false};
      return true;
    }
    PCJ_ASSERT(A->type->kind() == Kind::RangeIter, "foriter over non-iterator");
    Out = {A->type->inner(), A->weak};
    return true;
  }
  case Op::Return: {
    TypeRef T = I->operands[0]->type;
    if (!O.isKernel && !T->isRuntime())
      fail(I, "a device function cannot return a " + T->str());
    if (O.isKernel && T != noneTy())
      fail(I, "a kernel must have void return type: it returns " + T->str(),
           "write results into an array argument");
    // A returned literal stays weak, so that `return 1` on one path and an
    // int32 on another join like a phi would (CPython duplicates small
    // return blocks in some versions and not in others).
    Out = {T, I->operands[0]->weak};
    return true;
  }
  case Op::Raise:
    // A builtin class by name, else a module-level class deriving from
    // Exception (I->ct: its key, which lowering raises).
    if (stdlib::isKernelException(I->str) ||
        I->ct.kind == ir::CTValue::Kind::ExceptionClass)
      return false;
    I->ct = R.global(I->str);
    if (I->ct.kind == ir::CTValue::Kind::Unsupported)
      fail(I,
           "'" + I->str + "' cannot be raised in a kernel: it is " + I->ct.name,
           I->ct.hint, ErrorKind::Unsupported);
    if (I->ct.kind != ir::CTValue::Kind::ExceptionClass)
      fail(I,
           "'" + I->str +
               "' cannot be raised in a kernel: only builtin "
               "exception classes (" +
               stdlib::kernelExceptionNames() +
               ") and module-level classes deriving from Exception can",
           "", ErrorKind::Unsupported);
    Resolutions.push_back({"global '" + I->str + "'", I->ct});
    return false;
  case Op::Branch:
  case Op::Jump:
    return false;
  }
  return false;
}

// Whether In is Outer or one of its members (tuple elements, deeply).
static bool containsType(TypeRef Outer, TypeRef In) {
  if (Outer == In)
    return true;
  for (TypeRef E : Outer->elems())
    if (containsType(E, In))
      return true;
  return false;
}

// The unified type of every return typed so far (null if none is).
TypeRef Inferrer::returnTypeSoFar() {
  TypeRef Ret = nullptr;
  bool RetWeak = false;
  for (ir::Block *B : F.blocks)
    for (Instr *I : B->instrs) {
      if (I->op != Op::Return || !I->type)
        continue;
      if (!Ret) {
        Ret = I->type;
        RetWeak = I->weak;
        continue;
      }
      bool W = false;
      TypeRef U = unify({Ret, RetWeak}, {I->type, I->weak}, &W);
      if (!U && !O.isKernel) // None on some paths: an OptionalType result
        U = unifyOptional({Ret, RetWeak}, {I->type, I->weak}, &W);
      if (!U && O.recursed && *O.recursed &&
          (containsType(I->type, Ret) || containsType(Ret, I->type)))
        fail(I,
             "Return type of recursive function does not converge: it "
             "returns " +
                 Ret->str() + " on one path and " + I->type->str() +
                 " here (one type nests the other)",
             "return one type on every path (a recursive call's result "
             "cannot be part of the value returned)");
      if (!U)
        fail(I,
             "the function returns " + Ret->str() + " on one path and " +
                 I->type->str() + " here",
             "return one type on every path");
      Ret = U;
      RetWeak = W;
    }
  return Ret;
}

static bool isDeviceCall(const Instr *I) {
  return I->op == Op::Call && I->operands[0]->type &&
         I->operands[0]->type->kind() == Kind::Function;
}

// An OptionalType value used where its value is needed -- any operation
// but `is` / `is not`, truth, a phi, a return, a device-function call and
// the unbound-local check, which take it as it is -- goes through a Cast to its
// value type, which raises TypeError at run time when it is None (numba's
// optional_to_any):
//
//   %3 = %2 + 1            (%2: OptionalType(int32))
// becomes
//   %4 = cast %2           (int32; TypeError when %2 is None)
//   %3 = %4 + 1
static void unwrapOptionals(ir::Function &F, ir::Block *B, Instr *I) {
  switch (I->op) {
  case Op::Phi:
  case Op::Return:
  case Op::Is:
  case Op::Truth:
  case Op::Cast:
  case Op::CheckBound: // passes the value on
    return;
  case Op::Unary: // `not r` (UNARY_NOT before 3.13): a truth test, None is
                  // false
    if (ir::UnaryKind(I->index) == ir::UnaryKind::Not)
      return;
    break;
  default:
    if (isDeviceCall(I))
      return;
  }
  for (Instr *&V : I->operands)
    if (V->type && V->type->kind() == Kind::Optional) {
      Instr *C = F.insert(B, I, Op::Cast, I->loc, {V});
      C->type = V->type->inner();
      V = C;
    }
}

std::vector<Resolution> Inferrer::run(const std::vector<TypeRef> &ArgTypes) {
  if (ArgTypes.size() != F.params.size())
    throw CompileError(
        ErrorKind::Signature, SourceLoc{F.file, F.firstLine, -1, -1},
        "'" + F.qualname + "' takes " + std::to_string(F.params.size()) +
            " arguments but the signature has " +
            std::to_string(ArgTypes.size()));
  Args = ArgTypes;
  for (size_t K = 0; K < Args.size(); ++K) {
    F.params[K].type = Args[K];
    bool Known = K < O.argValues.size() &&
                 O.argValues[K].kind != ir::CTValue::Kind::Invalid;
    if (!Args[K]->isRuntime() &&
        !Known) // compile-time values: device functions
      throw CompileError(
          ErrorKind::Signature, SourceLoc{F.file, F.firstLine, -1, -1},
          "argument '" + F.params[K].name + "' has type " + Args[K]->str() +
              ", which cannot be passed to a kernel");
  }
  // A first pass over a loop is a guess: a loop-carried variable is typed
  // from its entry value until its back edge is typed (`v = 0` is a weak
  // int64 then), and values derived from that guess flow around other
  // loops' back edges (int64 where the settled type is uint64; unified
  // with it: float64).  So errors wait until a round changes nothing, and
  // when a phi's type changes after its first round, inference starts over
  // with that type as the phi's lower bound (Seeds) instead of unifying
  // with stale types.
  std::map<const Instr *, InferredType> Seeds;
  std::optional<CompileError> Pending;
  int Restarts = 0;
  bool Changed = true;
  int Rounds = 0;
  while (Changed) {
    Changed = false;
    Pending.reset();
    PCJ_ASSERT(++Rounds < 1000, "type inference does not converge");
    const Instr *Restart = nullptr;
    bool Pruned = false;
    for (size_t BI = 0; BI < F.blocks.size() && !Restart && !Pruned; ++BI) {
      ir::Block *B = F.blocks[BI];
      for (size_t K = 0; K < B->instrs.size(); ++K) { // may insert constants
        Instr *I = B->instrs[K];
        if (I->op == Op::Branch && pruneConstantBranch(I)) {
          Pruned = true;
          break;
        }
        unwrapOptionals(F, B, I);
        InferredType T;
        try {
          if (!infer(I, T))
            continue;
        } catch (const CompileError &E) {
          // A device function's own errors (its typing is not retried: a
          // specialization that failed is not typed again) and compiler
          // bugs are raised at once.
          if (E.kind() == ErrorKind::Internal || isDeviceCall(I))
            throw;
          if (!Pending)
            Pending = E;
          continue;
        }
        if (I->op == Op::Phi) {
          auto S = Seeds.find(I);
          bool W = false;
          if (S != Seeds.end())
            if (TypeRef U = unify({S->second.type, S->second.weak},
                                  {T.type, T.weak}, &W))
              T = {U, W};
          if (I->type && (T.type != I->type || T.weak != I->weak) &&
              Restarts < 64) {
            Seeds[I] = T;
            Restart = I;
            break;
          }
        }
        if (T.type != I->type || T.weak != I->weak) {
          I->type = T.type;
          I->weak = T.weak;
          Changed = true;
        }
      }
    }
    if (Pruned) { // drop what became unreachable, then type again
      F.recomputeCFG();
      Changed = true;
      continue;
    }
    if (Restart) {
      ++Restarts;
      for (ir::Block *B : F.blocks)
        for (Instr *I : B->instrs) {
          I->type = nullptr;
          I->weak = false;
        }
      Changed = true;
      continue;
    }
    if (O.provisionalReturn) {
      TypeRef Before = *O.provisionalReturn;
      *O.provisionalReturn =
          O.declaredReturn ? O.declaredReturn : returnTypeSoFar();
      Changed = Changed || Before != *O.provisionalReturn;
    }
  }
  if (Pending)
    throw *Pending;
  TypeRef Ret = returnTypeSoFar();
  for (ir::Block *B : F.blocks)
    for (Instr *I : B->instrs) {
      if (I->op == Op::Return && !I->type)
        fail(I, "cannot type infer runaway recursion: the function has no "
                "return path that does not call the function itself, so "
                "nothing gives this value a type");
      if (!I->type && I->op == Op::CheckBound)
        fail(I,
             "local variable '" + I->str +
                 "' is used before any assignment to it can have run",
             "assign it before this line on every path", ErrorKind::Name);
    }
  for (ir::Block *B : F.blocks)
    for (Instr *I : B->instrs)
      if (!I->type && !I->isTerminator() && I->op != Op::Undef)
        fail(I, std::string("could not infer a type for this expression (") +
                    ir::opName(I->op) + ")");
  F.returnType = Ret ? Ret : noneTy();
  if (O.declaredReturn) { // an explicit signature's result type
    for (ir::Block *B : F.blocks)
      for (Instr *I : B->instrs)
        if (I->op == Op::Return &&
            conversion(I->type, O.declaredReturn) == Conversion::None)
          fail(I, "the function returns " + I->type->str() +
                      " but its signature declares " + O.declaredReturn->str());
    F.returnType = O.declaredReturn;
  }
  // Every return converts to the unified return type (InsertCasts).
  for (ir::Block *B : F.blocks)
    for (Instr *I : B->instrs)
      if (I->op == Op::Return)
        I->argTypes = {F.returnType};
  ir::verify(F, /*InferredType=*/true);
  return std::move(Resolutions);
}

} // namespace detail

using detail::Inferrer;

std::vector<Resolution> inferTypes(ir::Function &F,
                                   const std::vector<TypeRef> &ArgTypes,
                                   ir::Resolver &R, const Options &O) {
  return Inferrer(F, R, O).run(ArgTypes);
}

} // namespace pcj::typeinfer
