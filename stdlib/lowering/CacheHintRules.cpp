// Lowering rules for the cache-hinted loads and stores (registry/cuda.def):
// the element's address as for a[i] (wrap-around, checked-mode bounds
// checks, sanitizer), then TargetHooks::cacheHintLoad / cacheHintStore with
// the row's cache operator.
//
//   cuda.ldcs(a, i)   NVPTX: ld.global.cs.b32 %r, [%rd];  host: load i32
//   cuda.stwt(a, i, v)  NVPTX: st.global.wt.b32 [%rd], %r;  host: store i32
#include "stdlib/lowering/CudaHelpers.h"

namespace pcj::stdlib::lowering {

using namespace types;
using namespace cudahelp;
using Access = lower::TargetHooks::Access;

llvm::Value *lowerCacheLoad(const LoweringRequest &R) {
  auto &Cx = R.cx;
  TypeRef A = R.argTypes[0];
  llvm::Value *Ptr = Cx.elementPtr(&R.instr, A, R.args[0], indexList(R, 1));
  Cx.sanitizeAccess(&R.instr, Access::Read, A, R.args[0], R.argInstrs[0], Ptr);
  return Cx.target.cacheHintLoad(Cx.b, Cx.memoryType(A->dtype()), Ptr,
                                 R.info.sdata);
}

llvm::Value *lowerCacheStore(const LoweringRequest &R) {
  auto &Cx = R.cx;
  TypeRef A = R.argTypes[0];
  llvm::Value *Ptr = Cx.elementPtr(&R.instr, A, R.args[0], indexList(R, 1));
  Cx.sanitizeAccess(&R.instr, Access::Write, A, R.args[0], R.argInstrs[0], Ptr);
  Cx.target.cacheHintStore(Cx.b, Ptr, R.args[2], R.info.sdata);
  return Cx.none();
}

} // namespace pcj::stdlib::lowering
