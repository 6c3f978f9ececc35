// Lowering rules for warp-level intrinsics (registry/cuda.def), through
// TargetHooks (NVPTX: llvm.nvvm.shfl.sync.* / vote.sync / match.*.sync;
// host: the pcj_cpu_* functions of runtime/cpu, which run the block's
// threads as fibers).
#include "stdlib/lowering/CudaHelpers.h"

namespace pcj::stdlib::lowering {

using namespace types;
using cudahelp::require;
using Feature = lower::TargetHooks::Feature;

llvm::Value *lowerLaneReg(const LoweringRequest &R) {
  auto &B = R.cx.b;
  if (R.info.idata == 1)
    return B.getInt64(32); // warpsize
  return B.CreateZExt(R.cx.target.laneId(B), B.getInt64Ty(), "",
                      /*IsNonNeg=*/true);
}

llvm::Value *lowerLaneMask(const LoweringRequest &R) {
  if (R.info.idata == 0)
    require(R, Feature::ActiveMask);
  return R.info.idata == 0 ? R.cx.target.activeMask(R.cx.b)
                           : R.cx.target.laneMaskLt(R.cx.b);
}

llvm::Value *lowerShfl(const LoweringRequest &R) {
  require(R, Feature::WarpSync);
  R.cx.sanitizeSync(&R.instr);
  return R.cx.target.shuffle(R.cx.b, unsigned(R.info.idata), R.args[0],
                             R.args[1], R.args[2]);
}

llvm::Value *lowerVote(const LoweringRequest &R) {
  auto &Cx = R.cx;
  require(R, Feature::WarpSync);
  llvm::Value *Pred = Cx.truth(R.args[1], R.argTypes[1]);
  Cx.sanitizeSync(&R.instr);
  llvm::Value *V =
      Cx.target.vote(Cx.b, unsigned(R.info.idata), R.args[0], Pred);
  if (R.info.idata == 3)
    return V; // ballot: the mask as int32
  return Cx.b.CreateICmpNE(V, Cx.b.getInt32(0));
}

// Floats are matched by their bits; 32-bit values as i32, 64-bit as i64.
llvm::Value *lowerMatch(const LoweringRequest &R) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  require(R, Feature::MatchSync);
  llvm::Value *V = R.args[1];
  unsigned Bits = V->getType()->getPrimitiveSizeInBits();
  V = B.CreateBitCast(V, B.getIntNTy(Bits));
  Cx.sanitizeSync(&R.instr);
  if (R.info.idata == 0)
    return Cx.target.matchAny(B, R.args[0], V);
  return Cx.target.matchAll(B, R.args[0], V);
}

} // namespace pcj::stdlib::lowering
