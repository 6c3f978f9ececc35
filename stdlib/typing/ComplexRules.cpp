// Typing rules for complex numbers and cmath (registry/complex.def).
// complex64 stays complex64; Python complex literals are weak complex128.
#include "stdlib/typing/RuleHelpers.h"

namespace pcj::stdlib::rules {

namespace {

// The complex type a cmath call computes in.
TypeRef complexFor(const TypingRequest &R, size_t K) {
  TypeRef T = numericArg(R, K);
  if (T->isComplex())
    return R.args[K].weak ? complexTy(128) : T;
  if (T->isFloat() && T->bits() <= 32 && !R.args[K].weak)
    return complexTy(64);
  return complexTy(128);
}

} // namespace

// complex(), complex(re), complex(re, im)
TypingResult typeComplexCtor(const TypingRequest &R) {
  expectArgs(R, 0, 2);
  int Re = R.find(0, "real"), Im = R.find(1, "imag");
  TypingResult Out{complexTy(128), true};
  Out.argTypes.assign(R.args.size(), nullptr);
  for (int K : {Re, Im}) {
    if (K < 0)
      continue;
    TypeRef T = numericArg(R, size_t(K));
    if (T->isComplex())
      R.fail("complex() arguments must be real numbers in kernels");
    Out.argTypes[K] = float64Ty();
  }
  return Out;
}

// .real / .imag of any number: the float part type (ints stay ints).
TypingResult typeRealImag(const TypingRequest &R) {
  TypeRef T = R.args[0].type;
  if (T->isComplex())
    return {floatTy(T->bits() / 2), R.args[0].weak};
  return {T->isBool() ? int64Ty() : T, R.args[0].weak};
}

TypingResult typeConjugate(const TypingRequest &R) {
  expectArgs(R, 1, 1);
  TypeRef T = R.args[0].type;
  return {T->isBool() ? int64Ty() : T, R.args[0].weak};
}

TypingResult typeCmath(const TypingRequest &R) {
  bool Log = std::string_view(R.info.key) == "cmath.log"; // log(z, base)
  expectArgs(R, 1, Log ? 2 : 1);
  noKeywords(R);
  TypeRef C = complexFor(R, 0);
  bool Weak = R.args[0].weak;
  if (R.args.size() == 2) { // a weak (literal) part adapts to the other
    TypeRef B = complexFor(R, 1);
    if (R.args[0].weak)
      C = R.args[1].weak ? complexTy(128) : B;
    else if (!R.args[1].weak && B->bits() > C->bits())
      C = B;
    Weak = Weak && R.args[1].weak;
  }
  TypingResult Out{C, Weak};
  Out.argTypes.assign(R.args.size(), C);
  return Out;
}

// phase -> float, polar -> (float, float), isnan/isinf/isfinite -> bool.
TypingResult typeCmathReal(const TypingRequest &R) {
  expectArgs(R, 1, 1);
  noKeywords(R);
  TypeRef C = complexFor(R, 0);
  TypeRef F = floatTy(C->bits() / 2);
  TypingResult Out;
  switch (R.info.idata) {
  case 0:
    Out.type = F;
    break;
  case 1:
    Out.type = tupleTy({F, F});
    break;
  default:
    Out.type = boolTy();
  }
  Out.argTypes = {C};
  return Out;
}

// rect(r, phi) -> complex
TypingResult typeCmathRect(const TypingRequest &R) {
  expectArgs(R, 2, 2);
  noKeywords(R);
  for (size_t K = 0; K < 2; ++K)
    if (numericArg(R, K)->isComplex())
      R.fail("cmath.rect() takes real arguments");
  bool Single = true;
  for (size_t K = 0; K < 2; ++K)
    if (R.args[K].weak ||
        !(R.args[K].type->isFloat() && R.args[K].type->bits() <= 32))
      Single = false;
  TypeRef F = Single ? float32Ty() : float64Ty();
  TypingResult Out{complexTy(2 * F->bits())};
  Out.argTypes = {F, F};
  return Out;
}

} // namespace pcj::stdlib::rules
