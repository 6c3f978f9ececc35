// Typing rules for cuda.bf16 (registry/bf16.def): bfloat16 operands (any
// int or float converts, as numba-cuda's C++ bindings convert implicitly),
// a bfloat16 result, bool for the comparisons and hisnan, int32 for
// hisinf; conversions "from T", "to T", "as T", "bits T" (SData) take and
// give the types they name.  Also the bfloat16 variants of math functions
// (math.sqrt(x) of a bfloat16 is cuda.bf16.hsqrt(x), as in numba-cuda).
#include "stdlib/typing/CudaHelpers.h"
#include "types/BFloat16.h"

#include <sstream>

namespace pcj::stdlib::rules {

namespace {

void numberArg(const TypingRequest &R, size_t K) {
  TypeRef T = R.args[K].type;
  if (T->isNumeric() && !T->isComplex())
    return;
  R.fail(R.info.key + std::string("() takes bfloat16 values, argument ") +
             std::to_string(K + 1) + " is " + T->str(),
         "convert with cuda.bf16.bfloat16(x)");
}

} // namespace

TypingResult typeBf16(const TypingRequest &R) {
  size_t N = size_t(R.info.idata);
  expectArgs(R, N, N);
  noKeywords(R);
  for (size_t K = 0; K < N; ++K)
    numberArg(R, K);
  TypeRef BF = bfloat16Ty();
  std::istringstream Words(R.info.sdata);
  std::string Op, Other;
  Words >> Op >> Other;
  if (Op == "from" || Op == "bits") { // T -> bfloat16
    TypingResult Out{BF};
    Out.argTypes = {scalarFromName(Other)};
    return Out;
  }
  if (Op == "to" || Op == "as") { // bfloat16 -> T
    TypingResult Out{scalarFromName(Other)};
    Out.argTypes = {BF};
    return Out;
  }
  bool Predicate = Op == "eq" || Op == "ne" || Op == "lt" || Op == "le" ||
                   Op == "gt" || Op == "ge" || Op == "equ" || Op == "neu" ||
                   Op == "ltu" || Op == "leu" || Op == "gtu" || Op == "geu" ||
                   Op == "isnan";
  TypingResult Out{Predicate ? boolTy() : Op == "isinf" ? int32Ty() : BF};
  Out.argTypes.assign(N, BF);
  return Out;
}

// math.NAME(x) for a bfloat16 x: numba-cuda's overloads for these names
// compute in bfloat16 (cuda.bf16.hNAME); null for anything else.
const IntrinsicInfo *bf16MathVariant(const TypingRequest &R) {
  static const char *Bound[] = {"math.trunc", "math.ceil", "math.floor",
                                "math.sqrt",  "math.log",  "math.log10",
                                "math.cos",   "math.sin",  "math.tanh",
                                "math.exp",   "math.exp2"};
  if (R.args.size() != 1 || !types::isBFloat16(R.args[0].type))
    return nullptr;
  for (const char *K : Bound)
    if (std::string_view(R.info.key) == K)
      return lookupIntrinsic(std::string("cuda.bf16.h") + (K + 5));
  return nullptr;
}

} // namespace pcj::stdlib::rules
