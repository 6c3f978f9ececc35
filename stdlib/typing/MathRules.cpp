// Typing rules for math functions (registry/math.def).
#include "stdlib/typing/RuleHelpers.h"

namespace pcj::stdlib::rules {

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

} // namespace pcj::stdlib::rules
