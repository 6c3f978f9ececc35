// Typing rules for the registry's intrinsics (see Registry.def).
//
// Each rule receives the argument types (and, where it matters, their
// compile-time values) and returns the result type plus the types the
// arguments are converted to.  Errors name the call's source line.
#include "stdlib/typing/Rules.h"

#include "types/Promotion.h"

namespace pcj::stdlib::rules {

using namespace types;

namespace {

std::string name(const TypingRequest &R) { return R.info.key; }

void expectArgs(const TypingRequest &R, size_t Min, size_t Max) {
  size_t N = R.args.size();
  if (N >= Min && N <= Max)
    return;
  std::string Want = Min == Max ? std::to_string(Min)
                                : std::to_string(Min) + " to " + std::to_string(Max);
  R.fail(name(R) + "() takes " + Want + " argument" + (Max == 1 ? "" : "s") +
         ", got " + std::to_string(N));
}

void noKeywords(const TypingRequest &R) {
  if (!R.kwnames.empty())
    R.fail(name(R) + "() takes no keyword arguments");
}

TypeRef numericArg(const TypingRequest &R, size_t K) {
  TypeRef T = R.args[K].type;
  if (!T->isNumeric())
    R.fail(name(R) + "() argument " + std::to_string(K + 1) +
           " must be a number, not " + T->str());
  return T;
}

// Shape argument of shared/local arrays: a positive int or tuple of them,
// known at compile time.
std::vector<int64_t> constShape(const TypingRequest &R, int Idx) {
  bc::ConstValue V;
  if (Idx < 0 || !R.args[Idx].constant(V))
    R.fail(name(R) + "() needs a shape known at compile time",
           "use an integer literal, a module-level constant, or a tuple of them");
  std::vector<int64_t> Dims;
  auto Add = [&](const bc::ConstValue &D) {
    if (D.kind != bc::ConstValue::Kind::Int || D.i < 0)
      R.fail(name(R) + "() shape entries must be non-negative integers, got " +
             D.repr());
    Dims.push_back(D.i);
  };
  if (V.kind == bc::ConstValue::Kind::Tuple) {
    for (const auto &E : V.elems)
      Add(E);
  } else {
    Add(V);
  }
  if (Dims.empty() || Dims.size() > 3 + 5)
    R.fail(name(R) + "() shape must have 1 to 8 dimensions");
  return Dims;
}

} // namespace

TypingResult typeNone(const TypingRequest &R) {
  return {intrinsicTy(R.info.key)};
}

TypingResult typeSpecialReg(const TypingRequest &R) { return {int32Ty()}; }

TypingResult typeGrid(const TypingRequest &R) {
  expectArgs(R, 1, 1);
  noKeywords(R);
  bc::ConstValue V;
  if (!R.args[0].constant(V) || V.kind != bc::ConstValue::Kind::Int ||
      V.i < 1 || V.i > 3)
    R.fail(name(R) + "() takes a constant number of dimensions: 1, 2 or 3");
  if (V.i == 1)
    return {int64Ty()};
  return {tupleTy(std::vector<TypeRef>(V.i, int64Ty()))};
}

TypingResult typeLocalArray(const TypingRequest &R) {
  int S = R.find(0, "shape"), D = R.find(1, "dtype");
  if (S < 0 || D < 0 || R.args.size() != 2)
    R.fail(name(R) + "(shape, dtype) takes exactly a shape and a dtype");
  std::vector<int64_t> Dims = constShape(R, S);
  TypeRef DT = R.args[D].type;
  if (DT->kind() != Kind::DType)
    R.fail(name(R) + "() dtype must be a scalar type such as np.float32, not " +
           DT->str());
  int64_t Elems = 1;
  for (int64_t X : Dims)
    Elems *= X;
  if (Elems == 0)
    R.fail(name(R) + "() of size 0 is not supported yet",
           "dynamic shared memory is not available yet; give a fixed shape");
  AddrSpace Space = R.info.idata == 1 ? AddrSpace::Shared : AddrSpace::Local;
  return {arrayTy(DT->inner(), unsigned(Dims.size()), Layout::C, Space)};
}

TypingResult typeSyncthreads(const TypingRequest &R) {
  expectArgs(R, 0, 0);
  return {noneTy()};
}

TypingResult typeFloatMath(const TypingRequest &R) {
  size_t N = size_t(R.info.idata);
  expectArgs(R, N, N);
  noKeywords(R);
  TypeRef T = numericArg(R, 0);
  bool Weak = R.args[0].weak;
  for (size_t K = 1; K < N; ++K) {
    numericArg(R, K);
    Weak = Weak && R.args[K].weak;
  }
  if (T->isComplex())
    R.fail(name(R) + "() does not accept complex numbers", "use cmath");
  // float32 (and float16) stay single precision; ints and float64 -> float64.
  TypeRef Res = T->isFloat() && T->bits() <= 32 && !R.args[0].weak
                    ? float32Ty()
                    : float64Ty();
  for (size_t K = 1; K < N; ++K) {
    TypeRef A = R.args[K].type;
    if (!(A->isFloat() && A->bits() <= 32) && !R.args[K].weak)
      Res = float64Ty();
  }
  TypingResult Out{Res, Weak};
  Out.argTypes.assign(N, Res);
  return Out;
}

TypingResult typeRange(const TypingRequest &R) {
  expectArgs(R, 1, 3);
  noKeywords(R);
  Operand Acc{R.args[0].type, R.args[0].weak};
  bool Weak = true;
  for (size_t K = 0; K < R.args.size(); ++K) {
    TypeRef T = R.args[K].type;
    if (!T->isIntegral())
      R.fail("range() arguments must be integers, argument " +
             std::to_string(K + 1) + " is " + T->str());
    Weak = Weak && R.args[K].weak;
    bool RW = false;
    Acc.type = promote(Acc, {T, R.args[K].weak}, &RW);
    Acc.weak = RW;
  }
  TypeRef C = Acc.type;
  if (!C->isInt())
    C = int64Ty();
  if (!C->isInt())
    R.fail("range() arguments do not have a common integer type");
  TypingResult Out{rangeTy(C), Weak};
  Out.argTypes.assign(R.args.size(), C);
  return Out;
}

TypingResult typeLen(const TypingRequest &R) {
  expectArgs(R, 1, 1);
  TypeRef T = R.args[0].type;
  if (T->isArray()) {
    if (T->ndim() == 0)
      R.fail("len() of a 0-d array");
    return {int64Ty()};
  }
  if (T->isTuple())
    return {int64Ty()};
  R.fail("len() is not supported for " + T->str());
}

TypingResult typeScalarCtor(const TypingRequest &R) {
  expectArgs(R, 0, 1);
  noKeywords(R);
  TypeRef Target = scalarFromName(R.info.sdata);
  if (R.args.empty())
    return {Target, true};
  TypeRef T = R.args[0].type;
  if (!T->isNumeric())
    R.fail(name(R) + "() argument must be a number, not " + T->str());
  if (T->isComplex() && !Target->isBool())
    R.fail("can't convert complex to " + std::string(R.info.sdata));
  TypingResult Out{Target, true};
  Out.argTypes = {nullptr}; // converted by the lowering (truth / trunc)
  return Out;
}

TypingResult typeAbs(const TypingRequest &R) {
  expectArgs(R, 1, 1);
  noKeywords(R);
  TypeRef T = numericArg(R, 0);
  if (T->isBool())
    T = int64Ty();
  if (T->isComplex())
    T = floatTy(T->bits() / 2);
  TypingResult Out{T, R.args[0].weak};
  Out.argTypes = {R.args[0].type->isBool() ? int64Ty() : nullptr};
  return Out;
}

TypingResult typeMinMax(const TypingRequest &R) {
  if (R.args.size() < 2)
    R.fail(name(R) + "() takes 2 or more numbers in kernels");
  noKeywords(R);
  Operand Acc{numericArg(R, 0), R.args[0].weak};
  for (size_t K = 1; K < R.args.size(); ++K) {
    bool W = false;
    Acc.type = promote(Acc, {numericArg(R, K), R.args[K].weak}, &W);
    Acc.weak = W;
  }
  if (Acc.type->isComplex())
    R.fail(name(R) + "() of complex numbers");
  TypingResult Out{Acc.type, Acc.weak};
  Out.argTypes.assign(R.args.size(), Acc.type);
  return Out;
}

// print(a, b, ...): numbers, bools, None and string constants; printed with
// spaces between and a newline, through vprintf (numba-cuda's formats:
// %lld / %llu for integers, %f for floats).
TypingResult typePrint(const TypingRequest &R) {
  if (!R.kwnames.empty())
    R.fail("print() in kernels takes no keyword arguments (sep, end, file)",
           "print the values separated by spaces, one call per line");
  for (size_t K = 0; K < R.args.size(); ++K) {
    TypeRef T = R.args[K].type;
    bc::ConstValue C;
    if (T->kind() == Kind::Str && R.args[K].constant(C))
      continue;
    if ((T->isNumeric() && !T->isComplex()) || T->kind() == Kind::None)
      continue;
    R.fail("print() in kernels cannot print a " + T->str(),
           "print numbers, bools and string constants");
  }
  return {noneTy()};
}

TypingResult typeArrayAttr(const TypingRequest &R) {
  TypeRef A = R.args[0].type;
  switch (R.info.idata) {
  case 0:
  case 1:
    return {tupleTy(std::vector<TypeRef>(A->ndim(), int64Ty()))};
  default:
    return {int64Ty()};
  }
}

} // namespace pcj::stdlib::rules
