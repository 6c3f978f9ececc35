// Lowering rules for synchronization (registry/cuda.def).  Target
// differences go through TargetHooks (barrierReduce, fence, nanosleep,
// gridSync, syncWarp).
#include "stdlib/lowering/CudaHelpers.h"

namespace pcj::stdlib::lowering {

using namespace types;

llvm::Value *lowerSyncthreadsPred(const LoweringRequest &R) {
  llvm::Value *Pred = R.cx.truth(R.args[0], R.argTypes[0]);
  R.cx.sanitizeSync(&R.instr);
  return R.cx.target.barrierReduce(R.cx.b, unsigned(R.info.idata), Pred,
                                   R.instr.loc.line);
}

llvm::Value *lowerSyncwarp(const LoweringRequest &R) {
  cudahelp::require(R, lower::TargetHooks::Feature::WarpSync);
  llvm::Value *Mask = R.args.empty() ? R.cx.b.getInt32(0xffffffffu) : R.args[0];
  R.cx.sanitizeSync(&R.instr);
  R.cx.target.syncWarp(R.cx.b, Mask);
  return R.cx.none();
}

llvm::Value *lowerFence(const LoweringRequest &R) {
  R.cx.target.fence(R.cx.b, unsigned(R.info.idata));
  return R.cx.none();
}

llvm::Value *lowerNanosleep(const LoweringRequest &R) {
  R.cx.target.nanosleep(R.cx.b, R.args[0]);
  return R.cx.none();
}

llvm::Value *lowerGridSync(const LoweringRequest &R) {
  R.cx.sanitizeSync(&R.instr);
  R.cx.target.gridSync(R.cx.b, R.instr.loc.line);
  return R.cx.none();
}

} // namespace pcj::stdlib::lowering
