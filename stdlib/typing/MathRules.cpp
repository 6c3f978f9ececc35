// Typing rules for math functions (registry/math.def).
//
// float32 (and float16) arguments stay single precision; ints, bools and
// float64 compute in float64.  A Python literal argument is weak: it adapts
// to the other arguments and yields a weak result.
#include "stdlib/typing/RuleHelpers.h"

namespace pcj::stdlib::rules {

namespace {

void noComplex(const TypingRequest &R, size_t K) {
  if (R.args[K].type->isComplex())
    R.fail(name(R) + "() does not accept complex numbers", "use cmath");
}

// The float type a math call computes in (see the file comment).
TypeRef floatFor(const TypingRequest &R, size_t N, bool *Weak) {
  bool AllWeak = true, Single = true, AnyStrong = false;
  for (size_t K = 0; K < N; ++K) {
    numericArg(R, K);
    noComplex(R, K);
    const ArgInfo &A = R.args[K];
    AllWeak = AllWeak && A.weak;
    if (A.weak)
      continue;
    AnyStrong = true;
    if (!(A.type->isFloat() && A.type->bits() <= 32))
      Single = false;
  }
  *Weak = AllWeak;
  return AnyStrong && Single ? float32Ty() : float64Ty();
}

} // namespace

// Bf16Rules.cpp: the cuda.bf16 row behind math.NAME(bfloat16), or null.
const IntrinsicInfo *bf16MathVariant(const TypingRequest &R);

// The row a math call of these arguments is: R's own, or the cuda.bf16 row.
static TypingResult typeVariant(const IntrinsicInfo &V,
                                const TypingRequest &R) {
  return V.typing(TypingRequest{V, R.instr, R.args, R.kwnames});
}

// The cmath row computing NumPy function R for a complex argument
// (np.sin(z) is cmath.sin(z)), or null.
const IntrinsicInfo *complexVariant(const TypingRequest &R) {
  if (std::string_view(R.info.key).rfind("np.", 0) != 0 || R.args.size() != 1 ||
      !R.args[0].type->isComplex())
    return nullptr;
  return lookupIntrinsic(std::string("cmath.") + R.info.sdata);
}

TypingResult typeFloatMath(const TypingRequest &R) {
  if (const IntrinsicInfo *C = complexVariant(R))
    return C->typing(TypingRequest{*C, R.instr, R.args, R.kwnames});
  if (const IntrinsicInfo *V = bf16MathVariant(R))
    return typeVariant(*V, R);
  size_t N = size_t(R.info.idata);
  expectArgs(R, N, N);
  noKeywords(R);
  bool Weak = false;
  TypeRef Res = floatFor(R, N, &Weak);
  TypingResult Out{Res, Weak};
  Out.argTypes.assign(N, Res);
  return Out;
}

// math.log(x) or math.log(x, base).
TypingResult typeLog(const TypingRequest &R) {
  if (const IntrinsicInfo *V = bf16MathVariant(R))
    return typeVariant(*V, R);
  expectArgs(R, 1, 2);
  noKeywords(R);
  bool Weak = false;
  TypeRef Res = floatFor(R, R.args.size(), &Weak);
  TypingResult Out{Res, Weak};
  Out.argTypes.assign(R.args.size(), Res);
  return Out;
}

// math.floor/ceil/trunc return Python ints (int64) for floats.
TypingResult typeRoundToInt(const TypingRequest &R) {
  if (const IntrinsicInfo *V = bf16MathVariant(R))
    return typeVariant(*V, R);
  expectArgs(R, 1, 1);
  noKeywords(R);
  TypeRef T = numericArg(R, 0);
  noComplex(R, 0);
  if (T->isIntegral())
    return {T->isBool() ? int64Ty() : T, R.args[0].weak};
  return {int64Ty(), R.args[0].weak};
}

TypingResult typeFloatClass(const TypingRequest &R) {
  expectArgs(R, 1, 1);
  noKeywords(R);
  numericArg(R, 0);
  noComplex(R, 0);
  return {boolTy()};
}

// frexp(x) -> (mantissa: float, exponent: int64)
TypingResult typeFrexp(const TypingRequest &R) {
  expectArgs(R, 1, 1);
  noKeywords(R);
  bool Weak = false;
  TypeRef F = floatFor(R, 1, &Weak);
  TypingResult Out{tupleTy({F, int64Ty()})};
  Out.argTypes = {F};
  return Out;
}

// ldexp(x, i) -> float
TypingResult typeLdexp(const TypingRequest &R) {
  expectArgs(R, 2, 2);
  noKeywords(R);
  bool Weak = false;
  TypeRef F = floatFor(R, 1, &Weak);
  if (!R.args[1].type->isIntegral())
    R.fail("ldexp() exponent must be an integer, not " + R.args[1].type->str());
  TypingResult Out{F, Weak};
  Out.argTypes = {F, int32Ty()};
  return Out;
}

// modf(x) -> (fractional part, integral part), both floats.
TypingResult typeModf(const TypingRequest &R) {
  expectArgs(R, 1, 1);
  noKeywords(R);
  bool Weak = false;
  TypeRef F = floatFor(R, 1, &Weak);
  TypingResult Out{tupleTy({F, F})};
  Out.argTypes = {F};
  return Out;
}

// np.minimum / np.maximum / np.fmin / np.fmax: NumPy promotion of the two.
TypingResult typeNpMinMax(const TypingRequest &R) {
  expectArgs(R, 2, 2);
  noKeywords(R);
  numericArg(R, 0);
  numericArg(R, 1); // complex: NumPy's lexicographic order
  bool W = false;
  TypeRef T = promote({R.args[0].type, R.args[0].weak},
                      {R.args[1].type, R.args[1].weak}, &W);
  TypingResult Out{T, W};
  Out.argTypes = {T, T};
  return Out;
}

// np.sign / np.square: same type as the argument.
TypingResult typeNpUnary(const TypingRequest &R) {
  expectArgs(R, 1, 1);
  noKeywords(R);
  TypeRef T = numericArg(R, 0);
  noComplex(R, 0);
  if (T->isBool())
    T = int64Ty();
  TypingResult Out{T, R.args[0].weak};
  Out.argTypes = {T};
  return Out;
}

} // namespace pcj::stdlib::rules
