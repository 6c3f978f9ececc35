// Lowering rules for cuda.atomic.* (registry/cuda.def).
//
//   add/sub/and_/or_/xor/inc/dec/exch, integer max/min
//       -> TargetHooks::atomicRMW (LLVM atomicrmw, relaxed; NVPTX: atom.*,
//          or red.* when the old value is unused)
//   float max/min/nanmax/nanmin
//       -> a CAS loop in an always-inlined module helper, with numba-cuda's
//          NaN rules: max/min leave the element alone when it or the value
//          is NaN; nanmax/nanmin treat NaN as missing (a NaN element is
//          replaced, a NaN value ignored)
//   cas / compare_and_swap -> cmpxchg
// Every cmpxchg is syncscope("device"), the scope of CUDA's atomicCAS (PTX
// atom.cas without a scope is .gpu); LLVM 22's NVPTX backend emits
// system scope (atom.relaxed.sys.cas) for one without a scope.
#include "stdlib/AtomicOp.h"
#include "stdlib/lowering/CudaHelpers.h"

namespace pcj::stdlib::lowering {

using namespace types;
using namespace cudahelp;
using BinOp = llvm::AtomicRMWInst::BinOp;

namespace {

llvm::SyncScope::ID deviceScope(llvm::IRBuilder<> &B) {
  return B.getContext().getOrInsertSyncScopeID("device");
}

using namespace atomicop;

// T atomic_<op>(ptr p, T v): returns the element before the operation.
llvm::Function *floatMinMaxHelper(llvm::Module &M, AtomicOp Op,
                                  llvm::Type *PtrTy, llvm::Type *T) {
  static const char *const Names[] = {"max", "min", "nanmax", "nanmin"};
  const char *OpName = Names[Op - Max];
  std::string Name = std::string("pcj_atomic_") + OpName +
                     (T->isFloatTy() ? "_f32" : "_f64") + "_as" +
                     std::to_string(PtrTy->getPointerAddressSpace());
  auto *FT = llvm::FunctionType::get(T, {PtrTy, T}, false);
  return moduleHelper(M, Name, FT, [&](llvm::Function *F) {
    llvm::LLVMContext &C = M.getContext();
    llvm::Value *P = F->getArg(0), *V = F->getArg(1);
    auto *Entry = llvm::BasicBlock::Create(C, "entry", F);
    auto *Check = llvm::BasicBlock::Create(C, "check", F);
    auto *Attempt = llvm::BasicBlock::Create(C, "attempt", F);
    auto *Done = llvm::BasicBlock::Create(C, "done", F);
    llvm::IRBuilder<> B(Entry);
    llvm::Type *IT = B.getIntNTy(T->getPrimitiveSizeInBits());
    unsigned Bytes = T->getPrimitiveSizeInBits() / 8;
    llvm::Value *Old0 =
        B.CreateAlignedLoad(T, P, llvm::Align(Bytes), true, "old");
    bool Nan = Op == NanMax || Op == NanMin;
    // max/min: nothing to do when the value or the element is NaN;
    // nanmax/nanmin: nothing to do when the value is NaN.
    llvm::Value *Early = B.CreateFCmpUNO(V, Nan ? V : Old0);
    B.CreateCondBr(Early, Done, Check);

    B.SetInsertPoint(Check);
    llvm::PHINode *Cur = B.CreatePHI(T, 2, "cur");
    Cur->addIncoming(Old0, Entry);
    llvm::Value *Better;
    switch (Op) {
    case Max:
      Better = B.CreateFCmpOLT(Cur, V);
      break;
    case Min:
      Better = B.CreateFCmpOGT(Cur, V);
      break;
    case NanMax: // also replaces a NaN element
      Better = B.CreateFCmpULT(Cur, V);
      break;
    default:
      Better = B.CreateFCmpUGT(Cur, V);
      break;
    }
    B.CreateCondBr(Better, Attempt, Done);

    B.SetInsertPoint(Attempt);
    auto *Pair = B.CreateAtomicCmpXchg(
        P, B.CreateBitCast(Cur, IT), B.CreateBitCast(V, IT), llvm::Align(Bytes),
        llvm::AtomicOrdering::Monotonic, llvm::AtomicOrdering::Monotonic,
        deviceScope(B));
    llvm::Value *Seen = B.CreateBitCast(B.CreateExtractValue(Pair, {0}), T);
    Cur->addIncoming(Seen, Attempt);
    B.CreateCondBr(B.CreateExtractValue(Pair, {1}), Done, Check);

    B.SetInsertPoint(Done);
    llvm::PHINode *Ret = B.CreatePHI(T, 3, "prev");
    Ret->addIncoming(Old0, Entry);
    Ret->addIncoming(Cur, Check);
    Ret->addIncoming(Cur, Attempt); // swapped: the element was Cur
    B.CreateRet(Ret);
  });
}

// The read-modify-write of element Ptr; returns the old value.
llvm::Value *atomicUpdate(const LoweringRequest &R, llvm::Value *Ptr) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  TypeRef A = R.argTypes[0], DT = A->dtype();
  llvm::Value *Val = R.args[2];
  AtomicOp Op = AtomicOp(R.info.idata);
  bool Float = DT->isFloat(), Signed = DT->isSigned();
  if (Float && Op >= Max) {
    llvm::Function *F =
        floatMinMaxHelper(Cx.module, Op, Ptr->getType(), Val->getType());
    return B.CreateCall(F, {Ptr, Val});
  }
  BinOp K;
  switch (Op) {
  case Add:
    K = Float ? BinOp::FAdd : BinOp::Add;
    break;
  case Sub: // x - v is exactly x + (-v): floats use the native add
    K = Float ? BinOp::FAdd : BinOp::Sub;
    if (Float)
      Val = B.CreateFNeg(Val);
    break;
  case And:
    K = BinOp::And;
    break;
  case Or:
    K = BinOp::Or;
    break;
  case Xor:
    K = BinOp::Xor;
    break;
  case Inc: // old >= v ? 0 : old + 1
    K = BinOp::UIncWrap;
    break;
  case Dec: // old == 0 || old > v ? v : old - 1
    K = BinOp::UDecWrap;
    break;
  case Exch:
    K = BinOp::Xchg;
    break;
  case Max:
  case NanMax: // integers have no NaN
    K = Signed ? BinOp::Max : BinOp::UMax;
    break;
  case Min:
  case NanMin:
    K = Signed ? BinOp::Min : BinOp::UMin;
    break;
  }
  if (Float && K == BinOp::Xchg) { // exchange the bits
    llvm::Type *IT = B.getIntNTy(DT->bits());
    llvm::Value *Old = Cx.target.atomicRMW(B, K, Ptr, B.CreateBitCast(Val, IT),
                                           A->addrSpace(), resultUsed(R));
    return B.CreateBitCast(Old, Val->getType());
  }
  return Cx.target.atomicRMW(B, K, Ptr, Val, A->addrSpace(), resultUsed(R));
}

} // namespace

llvm::Value *lowerAtomic(const LoweringRequest &R) {
  auto &Cx = R.cx;
  TypeRef A = R.argTypes[0];
  llvm::Value *Ptr = Cx.elementPtr(&R.instr, A, R.args[0], indexList(R, 1));
  Cx.sanitizeAccess(&R.instr, lower::TargetHooks::Access::Atomic, A, R.args[0],
                    R.argInstrs[0], Ptr);
  llvm::Value *Old = atomicUpdate(R, Ptr);
  Cx.sanitizeAtomicDone(A);
  return Old;
}

llvm::Value *lowerAtomicCas(const LoweringRequest &R) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  bool Indexed = R.info.idata == 1;
  TypeRef A = R.argTypes[0];
  std::vector<lower::LowerContext::Index> Idx =
      Indexed ? indexList(R, 1)
              : std::vector<lower::LowerContext::Index>{
                    {B.getInt64(0), int64Ty(), true}};
  llvm::Value *Ptr = Cx.elementPtr(&R.instr, A, R.args[0], Idx);
  Cx.sanitizeAccess(&R.instr, lower::TargetHooks::Access::Atomic, A, R.args[0],
                    R.argInstrs[0], Ptr);
  size_t N = R.args.size();
  auto *Pair =
      B.CreateAtomicCmpXchg(Ptr, R.args[N - 2], R.args[N - 1],
                            llvm::MaybeAlign(), llvm::AtomicOrdering::Monotonic,
                            llvm::AtomicOrdering::Monotonic, deviceScope(B));
  Cx.sanitizeAtomicDone(A);
  return B.CreateExtractValue(Pair, {0});
}

} // namespace pcj::stdlib::lowering
