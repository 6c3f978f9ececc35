// Reading and writing fields of records (structured dtypes).  A record is a
// reference (a generic pointer to its bytes); a scalar field is a load or a
// store at its offset, a nested record a reference at its offset (stored:
// copied whole), and a nested-array field (a NumPy subarray,
// types::Kind::NestedArray) reads as an array view of the bytes in place:
//
//   r.h      (h: nestedarray(float32, (3, 2)) @4)
//     -> { ptr (r + 4), shape [3, 2], strides [8, 4] }
//        : array(float32, 2d, C, generic)
//   r.h = src    (an array of 2 dimensions: shape checked, elements copied;
//                 a number: stored into every element)
//   a.x      (a: array of records, x: float64 @8)
//     -> { ptr (a.data + 8), shape a.shape, strides a.strides }
//        : array(float64, nd, A)
#include "lower/LowerContext.h"

#include "support/Diagnostics.h"

namespace pcj::lower {

using namespace types;

namespace {

// Where field F's bytes are known to be aligned, capped at the natural
// alignment of what is stored there (a packed NumPy dtype guarantees less).
unsigned storedAlign(TypeRef Rec, int F) {
  TypeRef FT = Rec->elems()[F];
  TypeRef Elem = FT->kind() == Kind::NestedArray ? FT->dtype() : FT;
  unsigned Natural =
      Elem->kind() == Kind::Record ? Elem->recordAlign() : scalarAlign(Elem);
  return std::min(Natural, fieldAddressAlign(Rec, F));
}

// The C-order strides in bytes of a nested array.
std::vector<uint64_t> nestedStrides(TypeRef Nested) {
  std::vector<uint64_t> S(Nested->ndim());
  uint64_t Step = Nested->dtype()->byteSize();
  for (unsigned D = Nested->ndim(); D-- > 0;) {
    S[D] = Step;
    Step *= Nested->shape()[D];
  }
  return S;
}

} // namespace

llvm::Value *LowerContext::loadRecordField(const ir::Instr *At, TypeRef RecTy,
                                           llvm::Value *Rec,
                                           const ir::Instr *RecInstr, int F) {
  TypeRef FT = RecTy->elems()[F];
  llvm::Value *Ptr = recordField(Rec, RecTy, F);
  if (FT->kind() == Kind::Record) // a nested record: a reference in place
    return Ptr;
  if (FT->kind() == Kind::NestedArray) {
    // A view: its element accesses are sanitized and bounds-checked as
    // those of any array.
    std::vector<llvm::Value *> Shape, Strides;
    for (uint64_t D : FT->shape())
      Shape.push_back(b.getInt64(D));
    for (uint64_t S : nestedStrides(FT))
      Strides.push_back(b.getInt64(S));
    TypeRef View = nestedArrayView(FT);
    llvm::Value *Data = b.CreateAddrSpaceCast(
        Ptr, b.getPtrTy(target.addrSpace(View->addrSpace())));
    return makeArray(View, Data, Shape, Strides);
  }
  sanitizeRecord(At, TargetHooks::Access::Read, RecTy, Rec, RecInstr, F);
  auto *L = b.CreateAlignedLoad(memoryType(FT), Ptr,
                                llvm::Align(storedAlign(RecTy, F)));
  return fromMemory(L, FT);
}

void LowerContext::storeRecordField(const ir::Instr *At, TypeRef RecTy,
                                    llvm::Value *Rec, const ir::Instr *RecInstr,
                                    int F, llvm::Value *Val, TypeRef ValTy) {
  TypeRef FT = RecTy->elems()[F];
  sanitizeRecord(At, TargetHooks::Access::Write, RecTy, Rec, RecInstr, F);
  llvm::Value *Ptr = recordField(Rec, RecTy, F);
  if (FT->kind() == Kind::Record) { // a nested record: its bytes
    b.CreateMemCpy(Ptr, llvm::MaybeAlign(storedAlign(RecTy, F)), Val,
                   llvm::MaybeAlign(FT->recordAlign()), FT->byteSize());
    return;
  }
  if (FT->kind() != Kind::NestedArray) {
    storeField(toMemory(Val, FT), Ptr, storedAlign(RecTy, F));
    return;
  }
  // Every element of the field, in C order: a loop over the flat position
  // K, split into one index per dimension (constant extents).
  TypeRef Elem = FT->dtype();
  unsigned N = FT->ndim();
  bool FromArray = ValTy->isArray();
  if (FromArray) {
    llvm::Value *Differs = b.getFalse();
    for (unsigned D = 0; D < N; ++D)
      Differs = b.CreateOr(Differs, b.CreateICmpNE(arrayShape(Val, D),
                                                   b.getInt64(FT->shape()[D])));
    std::string Shape;
    for (uint64_t D : FT->shape())
      Shape += (Shape.empty() ? "" : ", ") + std::to_string(D);
    raiseIf(At, Differs, TargetHooks::RaisedError::ValueError,
            "the array stored into record field '" + RecTy->fields()[F] +
                "' does not have its shape (" + Shape + (N == 1 ? ",)" : ")"));
  }
  uint64_t Count = 1;
  for (uint64_t D : FT->shape())
    Count *= D;
  if (Count == 0)
    return;
  unsigned Align = storedAlign(RecTy, F);
  llvm::Type *ElemMem = memoryType(Elem);
  // An array source may overlap the field (r.b = r.b[::-1]): its elements
  // go to a temporary first and then into the field, as NumPy copies
  // overlapping operands.
  llvm::AllocaInst *Tmp =
      FromArray ? entryAlloca(ElemMem, "field.tmp", Count) : nullptr;
  llvm::Function *Fn = b.GetInsertBlock()->getParent();
  llvm::BasicBlock *Pre = b.GetInsertBlock();
  auto *Body = llvm::BasicBlock::Create(ctx, "field.copy", Fn);
  auto *Done = llvm::BasicBlock::Create(ctx, "field.done", Fn);
  b.CreateBr(Body);
  b.SetInsertPoint(Body);
  llvm::PHINode *K = b.CreatePHI(b.getInt64Ty(), 2, "k");
  K->addIncoming(b.getInt64(0), Pre);
  llvm::Value *X = Val;
  if (FromArray) {
    // The source element: its index per dimension from K, then its address
    // from the source's strides (in bytes).
    llvm::Value *Rest = K, *Off = b.getInt64(0);
    for (unsigned D = N; D-- > 0;) {
      llvm::Value *Ext = b.getInt64(FT->shape()[D]);
      llvm::Value *Idx = D ? b.CreateURem(Rest, Ext) : Rest;
      Rest = D ? b.CreateUDiv(Rest, Ext) : Rest;
      Off = b.CreateAdd(Off, b.CreateMul(Idx, arrayStride(Val, D)));
    }
    llvm::Value *Src =
        b.CreateInBoundsGEP(b.getInt8Ty(), arrayData(Val), Off, "field.src");
    TypeRef SrcElem = ValTy->dtype();
    X = fromMemory(b.CreateAlignedLoad(memoryType(SrcElem), Src,
                                       llvm::Align(scalarAlign(SrcElem))),
                   SrcElem);
    X = cast(X, SrcElem, Elem);
  }
  llvm::Value *Dst =
      b.CreateInBoundsGEP(ElemMem, Tmp ? Tmp : Ptr, K, "field.dst");
  if (Tmp)
    b.CreateStore(toMemory(X, Elem), Dst);
  else
    storeField(toMemory(X, Elem), Dst, Align);
  llvm::Value *Next = b.CreateAdd(K, b.getInt64(1));
  K->addIncoming(Next, b.GetInsertBlock());
  b.CreateCondBr(b.CreateICmpULT(Next, b.getInt64(Count)), Body, Done);
  b.SetInsertPoint(Done);
  if (Tmp)
    b.CreateMemCpy(Ptr, llvm::MaybeAlign(Align), Tmp, Tmp->getAlign(),
                   Count * module.getDataLayout().getTypeAllocSize(ElemMem));
}

llvm::Value *LowerContext::recordArrayField(TypeRef ArrTy, llvm::Value *A,
                                            int F, TypeRef View) {
  std::vector<llvm::Value *> Shape, Strides;
  for (unsigned D = 0; D < ArrTy->ndim(); ++D) {
    Shape.push_back(arrayShape(A, D));
    Strides.push_back(arrayStride(A, D));
  }
  llvm::Value *Data = b.CreateInBoundsGEP(
      b.getInt8Ty(), arrayData(A), b.getInt64(ArrTy->dtype()->offsets()[F]));
  return makeArray(View, Data, Shape, Strides);
}

} // namespace pcj::lower
