// Typing rules for warp-level intrinsics (registry/cuda.def), with
// numba-cuda's types: shuffles return the value's type (32- and 64-bit ints
// and floats); all/any/eq_sync return bool, ballot_sync and match_any_sync
// int32, match_all_sync (int32 mask, bool); activemask and lanemask_lt
// uint32; laneid and warpsize int64 (as the thread indices).  Masks are
// converted to uint32.
#include "stdlib/typing/CudaHelpers.h"

namespace pcj::stdlib::rules {

using namespace cudahelp;

namespace {

// The warp-op operand types: 32- and 64-bit ints and floats.
TypeRef warpValue(const TypingRequest &R, size_t K, const char *What) {
  TypeRef T = concrete(R, K);
  TypeRef I32 = int32Ty(), I64 = int64Ty(), U32 = intTy(32, false),
          U64 = intTy(64, false), F32 = float32Ty(), F64 = float64Ty();
  if (!oneOf(T, {I32, I64, U32, U64, F32, F64}))
    R.fail(name(R) + "() cannot " + What + " values of type " + T->str() +
               "; supported: " + typeList({I32, I64, U32, U64, F32, F64}),
           "convert the value first, e.g. np.int32(x) or np.float32(x)");
  return T;
}

} // namespace

// laneid and warpsize are int64, like the other special registers
// (CudaRules.cpp: typeSpecialReg).
TypingResult typeLaneReg(const TypingRequest &R) { return {int64Ty()}; }

TypingResult typeLaneMask(const TypingRequest &R) {
  expectArgs(R, 0, 0);
  return {intTy(32, false)};
}

// shfl_sync(mask, value, src_lane), shfl_up_sync(mask, value, delta),
// shfl_down_sync(mask, value, delta), shfl_xor_sync(mask, value, lane_mask)
TypingResult typeShfl(const TypingRequest &R) {
  expectArgs(R, 3, 3);
  noKeywords(R);
  maskArg(R, 0);
  TypeRef T = warpValue(R, 1, "shuffle");
  intArg(R, 2,
         R.info.idata == 0   ? "source lane"
         : R.info.idata == 3 ? "lane mask"
                             : "delta");
  TypingResult Out{T};
  Out.argTypes = {intTy(32, false), T, int32Ty()};
  return Out;
}

// all_sync / any_sync / eq_sync / ballot_sync (mask, predicate)
TypingResult typeVote(const TypingRequest &R) {
  expectArgs(R, 2, 2);
  noKeywords(R);
  maskArg(R, 0);
  votePredicateArg(R, 1);
  TypingResult Out{R.info.idata == 3 ? int32Ty() : boolTy()};
  Out.argTypes = {intTy(32, false), nullptr};
  return Out;
}

// match_any_sync(mask, value) -> int32; match_all_sync -> (int32, bool)
TypingResult typeMatch(const TypingRequest &R) {
  expectArgs(R, 2, 2);
  noKeywords(R);
  maskArg(R, 0);
  TypeRef T = warpValue(R, 1, "match");
  TypingResult Out{R.info.idata == 0 ? int32Ty()
                                     : tupleTy({int32Ty(), boolTy()})};
  Out.argTypes = {intTy(32, false), T};
  return Out;
}

} // namespace pcj::stdlib::rules
