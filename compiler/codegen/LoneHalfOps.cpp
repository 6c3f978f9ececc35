// LoneHalfOps (NVPTX only, after optimisation): a float16 add, subtract or
// multiply that cannot be half of a multiply-add is emitted as NVVM spells
// it, `add.f16` instead of `add.rn.f16`, with the same value.
//
// FuseMultiplyAdd decided every contraction and removed the `contract`
// flags, so NVPTX writes `.rn` on each remaining operation: PTX lets ptxas
// fuse a mul and an add that both lack a rounding modifier, and `.rn` on
// either forbids it.  The default rounding is round-to-nearest-even, so a
// lone operation rounds the same without it.  This pass gives back the
// plain form where no pair can form:
//  - a multiply none of whose uses (through phi, select, fneg) is an add,
//    a subtract or anything else than a store, a compare or a conversion;
//  - an add or subtract none of whose operands (through phi, select,
//    fneg) is a multiply.
// A multiply feeding an add keeps `.rn` on both.
//
//   %p = fmul half %a, %b            ; used by a store      -> mul.f16
//   %s = fadd half %x, %y            ; operands no products -> add.f16
// become
//   %p = fmul contract half %a, %b
//   %s = fadd contract half %x, %y
// (the backend fuses two `contract` operations only when both are).
#include "codegen/LoneHalfOps.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

#include <vector>

namespace pcj::codegen {

namespace {

bool isHalfArith(const llvm::Instruction &I) {
  unsigned Op = I.getOpcode();
  return (Op == llvm::Instruction::FAdd || Op == llvm::Instruction::FSub ||
          Op == llvm::Instruction::FMul) &&
         I.getType()->getScalarType()->isHalfTy();
}

// Values that pass a float on unchanged (or negated) to their users.
bool passesOn(const llvm::Value *V) {
  if (llvm::isa<llvm::PHINode>(V) || llvm::isa<llvm::SelectInst>(V) ||
      llvm::isa<llvm::FreezeInst>(V))
    return true;
  auto *U = llvm::dyn_cast<llvm::UnaryOperator>(V);
  return U && U->getOpcode() == llvm::Instruction::FNeg;
}

// A use that ends the value's life as an operand of float arithmetic.
bool endsArithmetic(const llvm::User *U) {
  return llvm::isa<llvm::StoreInst>(U) || llvm::isa<llvm::FCmpInst>(U) ||
         llvm::isa<llvm::FPExtInst>(U) || llvm::isa<llvm::FPTruncInst>(U) ||
         llvm::isa<llvm::FPToSIInst>(U) || llvm::isa<llvm::FPToUIInst>(U);
}

// Every use of the product P, looked through phis, selects and negations,
// ends its arithmetic.
bool productStandsAlone(llvm::Instruction *P) {
  llvm::SmallVector<llvm::Value *, 8> Work{P};
  llvm::SmallPtrSet<llvm::Value *, 8> Seen{P};
  while (!Work.empty()) {
    llvm::Value *V = Work.pop_back_val();
    for (llvm::User *U : V->users()) {
      if (passesOn(U)) {
        if (Seen.insert(U).second)
          Work.push_back(U);
        continue;
      }
      if (!endsArithmetic(U))
        return false;
    }
  }
  return true;
}

// No operand of the sum S, looked through phis, selects and negations, is
// a product.
bool sumOfNoProduct(llvm::Instruction *S) {
  llvm::SmallVector<llvm::Value *, 8> Work(S->operands());
  llvm::SmallPtrSet<llvm::Value *, 8> Seen(Work.begin(), Work.end());
  while (!Work.empty()) {
    llvm::Value *V = Work.pop_back_val();
    auto *I = llvm::dyn_cast<llvm::Instruction>(V);
    if (!I)
      continue;
    if (I->getOpcode() == llvm::Instruction::FMul)
      return false;
    if (!passesOn(I))
      continue;
    for (llvm::Value *Op : I->operands())
      if (Seen.insert(Op).second)
        Work.push_back(Op);
  }
  return true;
}

} // namespace

unsigned markLoneHalfOps(llvm::Module &M) {
  // Decide on the unmarked module, then mark.
  std::vector<llvm::Instruction *> Lone;
  for (llvm::Function &F : M)
    for (llvm::BasicBlock &BB : F)
      for (llvm::Instruction &I : BB) {
        if (!isHalfArith(I) || I.hasAllowContract())
          continue;
        bool Mul = I.getOpcode() == llvm::Instruction::FMul;
        if (Mul ? productStandsAlone(&I) : sumOfNoProduct(&I))
          Lone.push_back(&I);
      }
  for (llvm::Instruction *I : Lone)
    I->setHasAllowContract(true);
  return Lone.size();
}

} // namespace pcj::codegen
