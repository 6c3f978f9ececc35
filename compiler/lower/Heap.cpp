// The device heap in lowering: the heap slots transforms/HeapOwnership
// assigned, made real.  Every slot is an entry alloca holding a list of
// blocks; each block starts with a 16-byte header whose first word links
// the next block:
//
//   %slot = alloca ptr                      ; heapBegin: null
//   a = np.empty(n)   ->  call @pcj_heap_free_list(load %slot)   ; not keep
//                         %p = malloc(16 + 8n) ; null: MemoryError
//                         store null, %p       ; (keep: the old list)
//                         store %p, %slot ; data = %p + 16
//   return x          ->  call @pcj_heap_free_list(load %slot) ; or, for an
//                         escaping slot, splice it into the returned list
//
// A device function returning arrays returns { result, ptr list } so the
// caller adopts the blocks (heapAdopt) into the call's own slot.
#include "lower/LowerContext.h"

#include "support/Diagnostics.h"

#include <llvm/IR/MDBuilder.h>

namespace pcj::lower {

namespace {
constexpr uint64_t HeaderBytes = 16;
} // namespace

// pcj_heap_free_list(ptr list): frees every block of the list.
// pcj_heap_splice(ptr front, ptr back) -> ptr: front's blocks followed by
// back's (back when front is empty).  Internal, one each per module.
llvm::Function *LowerContext::heapHelper(bool Splice) {
  const char *Name = Splice ? "pcj_heap_splice" : "pcj_heap_free_list";
  if (llvm::Function *F = module.getFunction(Name))
    return F;
  llvm::Type *Ptr = llvm::PointerType::get(ctx, 0);
  auto *FT = Splice ? llvm::FunctionType::get(Ptr, {Ptr, Ptr}, false)
                    : llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {Ptr},
                                              false);
  auto *F = llvm::Function::Create(FT, llvm::GlobalValue::InternalLinkage, Name,
                                   module);
  F->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> B(ctx);
  auto *Entry = llvm::BasicBlock::Create(ctx, "entry", F);
  auto *Loop = llvm::BasicBlock::Create(ctx, "loop", F);
  auto *Done = llvm::BasicBlock::Create(ctx, "done", F);
  llvm::Value *First = F->getArg(0);
  B.SetInsertPoint(Entry);
  llvm::Value *Null =
      llvm::ConstantPointerNull::get(llvm::cast<llvm::PointerType>(Ptr));
  if (!Splice) {
    B.CreateCondBr(B.CreateICmpEQ(First, Null), Done, Loop);
    B.SetInsertPoint(Loop);
    llvm::PHINode *P = B.CreatePHI(Ptr, 2);
    P->addIncoming(First, Entry);
    llvm::Value *Next = B.CreateAlignedLoad(Ptr, P, llvm::Align(8));
    target.heapFree(B, P);
    P->addIncoming(Next, Loop);
    B.CreateCondBr(B.CreateICmpEQ(Next, Null), Done, Loop);
    B.SetInsertPoint(Done);
    B.CreateRetVoid();
    return F;
  }
  // Walk to front's last block and link back after it.
  auto *Empty = llvm::BasicBlock::Create(ctx, "empty", F);
  B.CreateCondBr(B.CreateICmpEQ(First, Null), Empty, Loop);
  B.SetInsertPoint(Empty);
  B.CreateRet(F->getArg(1));
  B.SetInsertPoint(Loop);
  llvm::PHINode *P = B.CreatePHI(Ptr, 2);
  P->addIncoming(First, Entry);
  llvm::Value *Next = B.CreateAlignedLoad(Ptr, P, llvm::Align(8));
  P->addIncoming(Next, Loop);
  B.CreateCondBr(B.CreateICmpEQ(Next, Null), Done, Loop);
  B.SetInsertPoint(Done);
  B.CreateAlignedStore(F->getArg(1), P, llvm::Align(8));
  B.CreateRet(First);
  return F;
}

void LowerContext::heapBegin() {
  HeapSlots.clear();
  for (size_t K = 0; K < fn.heapSlotEscapes.size(); ++K) {
    llvm::AllocaInst *Slot =
        entryAlloca(b.getPtrTy(), "heap" + std::to_string(K));
    b.CreateStore(llvm::ConstantPointerNull::get(b.getPtrTy()), Slot);
    HeapSlots.push_back(Slot);
  }
}

llvm::Value *LowerContext::heapAllocate(const ir::Instr *At,
                                        llvm::Value *Bytes) {
  PCJ_ASSERT(At->heapSlot >= 0 && size_t(At->heapSlot) < HeapSlots.size(),
             "an allocation without a heap slot (transforms/HeapOwnership)");
  llvm::AllocaInst *Slot = HeapSlots[At->heapSlot];
  llvm::Value *Old = b.CreateLoad(b.getPtrTy(), Slot);
  // The earlier block is dead here (HeapOwnership.h): free it before
  // asking for the next, so a loop needs one block at a time.
  if (!At->heapKeep) {
    b.CreateCall(heapHelper(false), {Old});
    Old = llvm::ConstantPointerNull::get(b.getPtrTy());
  }
  // Sizes beyond 2**62 bytes (a product of extents that wrapped) are
  // refused like any request the heap cannot hold.
  llvm::Value *TooBig = b.CreateICmpUGT(Bytes, b.getInt64(uint64_t(1) << 62));
  llvm::Value *Ask =
      b.CreateSelect(TooBig, b.getInt64(~uint64_t(0) >> 1),
                     b.CreateAdd(Bytes, b.getInt64(HeaderBytes)));
  llvm::Value *Block = target.heapAlloc(b, Ask);
  llvm::Value *Failed = b.CreateOr(
      TooBig,
      b.CreateICmpEQ(Block, llvm::ConstantPointerNull::get(b.getPtrTy())));
  llvm::Function *Fn = b.GetInsertBlock()->getParent();
  auto *Bad = llvm::BasicBlock::Create(ctx, "heap.full", Fn);
  auto *Ok = llvm::BasicBlock::Create(ctx, "heap.ok", Fn);
  b.CreateCondBr(Failed, Bad, Ok,
                 llvm::MDBuilder(ctx).createBranchWeights(1, 1 << 20));
  b.SetInsertPoint(Bad);
  target.raiseException(b, "MemoryError",
                        "the device heap cannot hold this array (its size is "
                        "cuda.set_malloc_heap_size(), 8 MB by default)",
                        fn.qualname, At->loc.fileName(), At->loc.line);
  b.CreateUnreachable();
  b.SetInsertPoint(Ok);
  b.CreateAlignedStore(Old, Block, llvm::Align(8));
  b.CreateStore(Block, Slot);
  llvm::Value *Data =
      b.CreateInBoundsGEP(b.getInt8Ty(), Block, b.getInt64(HeaderBytes));
  unsigned AS = target.addrSpace(types::AddrSpace::Global);
  if (AS != 0)
    Data = b.CreateAddrSpaceCast(Data, b.getPtrTy(AS));
  return Data;
}

void LowerContext::heapAdopt(const ir::Instr *At, llvm::Value *Blocks) {
  PCJ_ASSERT(At->heapSlot >= 0 && size_t(At->heapSlot) < HeapSlots.size(),
             "a call returning arrays without a heap slot");
  llvm::AllocaInst *Slot = HeapSlots[At->heapSlot];
  llvm::Value *Old = b.CreateLoad(b.getPtrTy(), Slot);
  if (At->heapKeep) {
    b.CreateStore(b.CreateCall(heapHelper(true), {Blocks, Old}), Slot);
    return;
  }
  b.CreateCall(heapHelper(false), {Old});
  b.CreateStore(Blocks, Slot);
}

llvm::Value *LowerContext::heapRelease() {
  llvm::Value *Out = llvm::ConstantPointerNull::get(b.getPtrTy());
  for (size_t K = 0; K < HeapSlots.size(); ++K) {
    llvm::Value *List = b.CreateLoad(b.getPtrTy(), HeapSlots[K]);
    if (fn.heapSlotEscapes[K] && !heapReturnsBlocks)
      throw CompileError(
          ErrorKind::Unsupported, SourceLoc{fn.file, fn.firstLine},
          "'" + fn.qualname +
              "' returns an array made in it (np.empty, a.copy(), ...), "
              "which only a device function called from a kernel can do",
          "an exported device function (compile_ptx(device=True)) cannot "
          "hand heap memory to its caller: take an output array instead");
    if (fn.heapSlotEscapes[K])
      Out = b.CreateCall(heapHelper(true), {List, Out});
    else
      b.CreateCall(heapHelper(false), {List});
  }
  return Out;
}

} // namespace pcj::lower
