// Typing rules for synchronization (registry/cuda.def): syncthreads_count /
// _and / _or, syncwarp, the thread fences, nanosleep; grid sync's
// this_grid() lives in CudaRules.cpp.
#include "stdlib/typing/CudaHelpers.h"

namespace pcj::stdlib::rules {

using namespace cudahelp;

// syncthreads_count(pred) / _and / _or -> int32 (numba-cuda's i4).
TypingResult typeSyncthreadsPred(const TypingRequest &R) {
  expectArgs(R, 1, 1);
  noKeywords(R);
  predicateArg(R, 0);
  TypingResult Out{int32Ty()};
  Out.argTypes = {nullptr}; // the lowering takes the truth value
  return Out;
}

// syncwarp(mask=0xffffffff)
TypingResult typeSyncwarp(const TypingRequest &R) {
  expectArgs(R, 0, 1);
  if (R.args.size() == 1 && R.find(0, "mask") != 0)
    R.fail(name(R) + "() takes one argument, the lane mask");
  if (!R.args.empty())
    maskArg(R, 0);
  TypingResult Out{noneTy()};
  Out.argTypes.assign(R.args.size(), intTy(32, false));
  return Out;
}

TypingResult typeNoArgs(const TypingRequest &R) {
  expectArgs(R, 0, 0);
  return {noneTy()};
}

// nanosleep(ns): ns a uint32 count of nanoseconds.
TypingResult typeNanosleep(const TypingRequest &R) {
  expectArgs(R, 1, 1);
  noKeywords(R);
  intArg(R, 0, "duration");
  TypingResult Out{noneTy()};
  Out.argTypes = {intTy(32, false)};
  return Out;
}

} // namespace pcj::stdlib::rules
