// Lowering rules for the cache-hinted loads and stores (registry/cuda.def):
// the element's address as for a[i] (wrap-around, checked-mode bounds
// checks, sanitizer), then TargetHooks::cacheHintLoad / cacheHintStore with
// the row's cache operator.
//
//   cuda.ldcs(a, i)   NVPTX: ld.global.cs.b32 %r, [%rd];  host: load i32
//   cuda.stwt(a, i, v)  NVPTX: st.global.wt.b32 [%rd], %r;  host: store i32
//
// On a CPointer the element's address is p + i, made a global address.
#include "stdlib/lowering/CudaHelpers.h"

namespace pcj::stdlib::lowering {

using namespace types;
using namespace cudahelp;
using Access = lower::TargetHooks::Access;

namespace {

// p[i] of a CPointer: the generic address made a global one (cvta.to.global
// on NVPTX), as array elements are; no bounds are known.
llvm::Value *pointerElement(const LoweringRequest &R, TypeRef P) {
  auto &B = R.cx.b;
  llvm::Value *Elem =
      B.CreateGEP(R.cx.memoryType(P->inner()), R.args[0], R.args[1]);
  return B.CreateAddrSpaceCast(Elem, B.getPtrTy(1));
}

} // namespace

llvm::Value *lowerCacheLoad(const LoweringRequest &R) {
  auto &Cx = R.cx;
  TypeRef A = R.argTypes[0];
  if (A->kind() == Kind::Pointer)
    return Cx.target.cacheHintLoad(Cx.b, Cx.memoryType(A->inner()),
                                   pointerElement(R, A), R.info.sdata);
  llvm::Value *Ptr = Cx.elementPtr(&R.instr, A, R.args[0], indexList(R, 1));
  Cx.sanitizeAccess(&R.instr, Access::Read, A, R.args[0], R.argInstrs[0], Ptr);
  return Cx.target.cacheHintLoad(Cx.b, Cx.memoryType(A->dtype()), Ptr,
                                 R.info.sdata);
}

llvm::Value *lowerCacheStore(const LoweringRequest &R) {
  auto &Cx = R.cx;
  TypeRef A = R.argTypes[0];
  if (A->kind() == Kind::Pointer) {
    Cx.target.cacheHintStore(Cx.b, pointerElement(R, A), R.args[2],
                             R.info.sdata);
    return Cx.none();
  }
  llvm::Value *Ptr = Cx.elementPtr(&R.instr, A, R.args[0], indexList(R, 1));
  Cx.sanitizeAccess(&R.instr, Access::Write, A, R.args[0], R.argInstrs[0], Ptr);
  Cx.target.cacheHintStore(Cx.b, Ptr, R.args[2], R.info.sdata);
  return Cx.none();
}

} // namespace pcj::stdlib::lowering
