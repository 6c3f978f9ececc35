// Typing rules for cuda.fp16 (registry/cuda.def): float16 operands (Python
// number literals convert to float16), a float16 result, bool for the
// comparisons heq/hne/hlt/hle/hgt/hge.
#include "stdlib/typing/CudaHelpers.h"

namespace pcj::stdlib::rules {

using namespace cudahelp;

TypingResult typeFp16(const TypingRequest &R) {
  size_t N = size_t(R.info.idata);
  expectArgs(R, N, N);
  noKeywords(R);
  TypeRef H = floatTy(16);
  for (size_t K = 0; K < N; ++K) {
    TypeRef T = R.args[K].type;
    if (T == H || (R.args[K].weak && T->isNumeric() && !T->isComplex()))
      continue;
    R.fail(name(R) + "() takes float16 values, argument " +
               std::to_string(K + 1) + " is " + T->str(),
           "convert with np.float16(x), or use float16 arrays");
  }
  std::string Op = R.info.sdata;
  bool Compare = Op == "eq" || Op == "ne" || Op == "lt" || Op == "le" ||
                 Op == "gt" || Op == "ge";
  TypingResult Out{Compare ? boolTy() : H};
  Out.argTypes.assign(N, H);
  return Out;
}

} // namespace pcj::stdlib::rules
