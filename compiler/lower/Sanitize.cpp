// Sanitize: the access announcements of sanitized kernels (LowerOptions::
// sanitize, the CPU executor's checker in runtime/cpu/Sanitizer.h).  Every
// array element load, store and atomic is preceded by a call the target
// emits (TargetHooks::memoryAccess) with a site naming the function, the
// source position, the array and its memory space:
//
//   x[i] = v        ==>   %p = getelementptr float, ptr %x.data, i64 %i
//                          call @pcj_san_access(%ctx, @san.site, %p, %x.data)
//                          store float %v, ptr %p
//
// Constant arrays are read-only and never announced.  Barriers and warp
// operations announce their site (sanitizeSync), which sync errors name.
// Lowering emits the calls where it emits the accesses, before any
// optimization, so every access the source makes is seen (at the price of
// vectorization).
#include "lower/LowerContext.h"

namespace pcj::lower {

using namespace types;

namespace {

// The parameter an array is (or is a view of), or null.
const ir::Instr *rootParam(const ir::Instr *A) {
  for (int Depth = 0; A && Depth < 16; ++Depth) {
    if (A->op == ir::Op::Arg)
      return A;
    if (A->op == ir::Op::GetItem && !A->operands.empty() &&
        A->operands[0]->type && A->operands[0]->type->isArray()) {
      A = A->operands[0]; // a view: a[1:], a[i] of a 2-D array
      continue;
    }
    if (A->op == ir::Op::Cast && !A->operands.empty()) {
      A = A->operands[0];
      continue;
    }
    return nullptr;
  }
  return nullptr;
}

// The array's name as the user wrote it, when the IR still knows it: a
// parameter (also through views of it).
std::string arrayName(const ir::Instr *A) {
  const ir::Instr *P = rootParam(A);
  return P ? P->str : "";
}

TargetHooks::AccessSite siteAt(const LowerContext &Cx, const ir::Instr *At,
                               TargetHooks::Access Op, AddrSpace Space,
                               uint64_t Bytes, const ir::Instr *ArrInstr) {
  TargetHooks::AccessSite S;
  S.kind = Op;
  S.space = Space;
  S.bytes = Bytes;
  S.function = Cx.fn.qualname;
  S.file = At->loc.fileName();
  S.line = At->loc.line;
  S.col = At->loc.col;
  S.endCol = At->loc.endCol;
  S.array = arrayName(ArrInstr);
  return S;
}

} // namespace

void LowerContext::sanitizeAccess(const ir::Instr *At, TargetHooks::Access Op,
                                  TypeRef ArrTy, llvm::Value *Arr,
                                  const ir::Instr *ArrInstr, llvm::Value *Ptr,
                                  uint64_t Bytes) {
  if (!opts.sanitize || ArrTy->addrSpace() == AddrSpace::Const)
    return;
  if (!Bytes)
    Bytes = ArrTy->dtype()->byteSize();
  TargetHooks::AccessSite S =
      siteAt(*this, At, Op, ArrTy->addrSpace(), Bytes, ArrInstr);
  // A read of a kernel parameter marked noalias + readonly (the launch
  // checked it overlaps no written array): it cannot race in the launch.
  const ir::Instr *P = rootParam(ArrInstr);
  const auto &RO = opts.noAliasReadOnly;
  S.readOnly = Op == TargetHooks::Access::Read && P && kernel &&
               kernel->getName() == opts.kernelName &&
               size_t(P->index) < RO.size() && RO[size_t(P->index)];
  target.memoryAccess(b, S, Ptr, arrayData(Arr));
}

void LowerContext::sanitizeRecord(const ir::Instr *At, TargetHooks::Access Op,
                                  TypeRef RecTy, llvm::Value *Rec,
                                  const ir::Instr *RecInstr, int Field) {
  if (!opts.sanitize)
    return;
  // A record reference comes from an element of an array (a[i]); its
  // memory space is not part of its type: announced as global memory.
  const ir::Instr *ArrInstr =
      RecInstr && RecInstr->op == ir::Op::GetItem && !RecInstr->operands.empty()
          ? RecInstr->operands[0]
          : nullptr;
  if (ArrInstr && ArrInstr->type && ArrInstr->type->isArray() &&
      ArrInstr->type->addrSpace() == AddrSpace::Const)
    return;
  AddrSpace Space = ArrInstr && ArrInstr->type && ArrInstr->type->isArray()
                        ? ArrInstr->type->addrSpace()
                        : AddrSpace::Global;
  uint64_t Bytes =
      Field < 0 ? RecTy->byteSize() : RecTy->elems()[Field]->byteSize();
  llvm::Value *Ptr = Field < 0 ? Rec : recordField(Rec, RecTy, Field);
  // No index for a record: its array's data pointer is not at hand.
  target.memoryAccess(b, siteAt(*this, At, Op, Space, Bytes, ArrInstr), Ptr,
                      llvm::ConstantPointerNull::get(b.getPtrTy()));
}

void LowerContext::sanitizeSync(const ir::Instr *At) {
  if (opts.sanitizeSync)
    target.syncPoint(b, siteAt(*this, At, TargetHooks::Access::Read,
                               AddrSpace::Global, 0, nullptr));
}

void LowerContext::sanitizeAtomicDone(TypeRef ArrTy) {
  if (opts.sanitize && ArrTy->addrSpace() == AddrSpace::Global)
    target.atomicDone(b);
}

} // namespace pcj::lower
