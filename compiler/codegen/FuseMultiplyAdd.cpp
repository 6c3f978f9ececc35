// FuseMultiplyAdd: turns float multiply-adds into explicit llvm.fma calls by
// one fixed rule, before any target-specific optimisation, and then removes
// LLVM's `contract` flags so that no backend fuses anything else (see
// FuseMultiplyAdd.h; the rule is documented for users in docs/language.md,
// "Floating-point contraction").
//
// The lowering marks every float operation of the kernel language with
// `contract` when contraction is allowed (fmad=True, the default).  The rule,
// applied to each function as lowered (plus its inline="always" callees):
//
//   an fadd or fsub with `contract` whose operand is an fmul with `contract`
//   becomes one llvm.fma; the product may be negated (fneg) and may pass
//   through tuples and complex numbers (extractvalue of insertvalue):
//
//     (a*b) + c,  c + (a*b)   ->  fma(a, b, c)
//     (a*b) - c               ->  fma(a, b, -c)
//     c - (a*b)               ->  fma(-a, b, c)
//     -(a*b) + c              ->  fma(-a, b, c)
//
//   When both operands are products, the left one is fused:
//   a*b + c*d -> fma(a, b, c*d).  A product with several uses is fused into
//   every sum that uses it (NVPTX's "aggressive" fusion) and stays a plain
//   multiply only for its other uses.  A product that reaches the sum
//   through a phi (a branch merge, a loop), a conversion, memory or a call
//   result is not fused.  The result of a fusion is not a product, so
//   a*b + c*d + e*f -> fma(e, f, fma(a, b, c*d)).
//
// Decisions depend only on each sum's own operands, so they do not depend
// on the order the instructions are visited in.
//
//   before:  %p = fmul contract float %a, %b
//            %s = fsub contract float %c, %p
//   after:   %n = fneg float %a
//            %s = call float @llvm.fma.f32(float %n, float %b, float %c)
#include "codegen/FuseMultiplyAdd.h"

#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/IPO/AlwaysInliner.h"
#include "llvm/Transforms/Utils/Local.h"

#include <optional>

namespace pcj::codegen {

namespace {

using namespace llvm::PatternMatch;

bool hasFusableType(const llvm::Value *V) {
  const llvm::Type *T = V->getType()->getScalarType();
  return T->isHalfTy() || T->isFloatTy() || T->isDoubleTy();
}

// The value an extractvalue reads when the insertvalues that built its
// aggregate are in sight (the lowering's tuples and complex numbers).
llvm::Value *seeThrough(llvm::Value *V) {
  while (auto *EV = llvm::dyn_cast<llvm::ExtractValueInst>(V)) {
    llvm::Value *Inserted =
        llvm::FindInsertedValue(EV->getAggregateOperand(), EV->getIndices());
    if (!Inserted || Inserted == V)
      break;
    V = Inserted;
  }
  return V;
}

struct Product {
  llvm::Value *A, *B;
  bool Negated; // -(A*B)
};

// V as a contractable product, if it is one.
std::optional<Product> productOf(llvm::Value *V) {
  V = seeThrough(V);
  bool Negated = false;
  llvm::Value *Inner;
  if (match(V, m_FNeg(m_Value(Inner)))) {
    Negated = true;
    V = seeThrough(Inner);
  }
  auto *Mul = llvm::dyn_cast<llvm::BinaryOperator>(V);
  if (!Mul || Mul->getOpcode() != llvm::Instruction::FMul ||
      !Mul->hasAllowContract())
    return std::nullopt;
  return Product{Mul->getOperand(0), Mul->getOperand(1), Negated};
}

// Rewrites Sum into an fma if the rule says so; returns the operand that
// held the product (for clean-up), or null.
llvm::Value *fuseSum(llvm::BinaryOperator &Sum) {
  const bool IsSub = Sum.getOpcode() == llvm::Instruction::FSub;
  if ((!IsSub && Sum.getOpcode() != llvm::Instruction::FAdd) ||
      !Sum.hasAllowContract() || !hasFusableType(&Sum))
    return nullptr;
  llvm::Value *X = Sum.getOperand(0), *Y = Sum.getOperand(1);
  llvm::IRBuilder<> B(&Sum);
  llvm::Value *A, *Mul2, *Addend, *Used;
  if (std::optional<Product> P = productOf(X)) {
    // (+-a*b) + y -> fma(+-a, b, y);  (+-a*b) - y -> fma(+-a, b, -y)
    A = P->Negated ? B.CreateFNeg(P->A) : P->A;
    Mul2 = P->B;
    Addend = IsSub ? B.CreateFNeg(Y) : Y;
    Used = X;
  } else if (std::optional<Product> P = productOf(Y)) {
    // x + (+-a*b) -> fma(+-a, b, x);  x - (+-a*b) -> fma(-+a, b, x)
    A = P->Negated != IsSub ? B.CreateFNeg(P->A) : P->A;
    Mul2 = P->B;
    Addend = X;
    Used = Y;
  } else {
    return nullptr;
  }
  llvm::CallInst *Fma = B.CreateIntrinsic(llvm::Intrinsic::fma, {Sum.getType()},
                                          {A, Mul2, Addend});
  Fma->copyFastMathFlags(&Sum);
  Fma->setDebugLoc(Sum.getDebugLoc());
  Fma->takeName(&Sum);
  Sum.replaceAllUsesWith(Fma);
  Sum.eraseFromParent();
  return Used;
}

// Inlines every call to an alwaysinline function (what every optimisation
// pipeline does first, O0 included).
void inlineAlwaysInlineCallees(llvm::Module &M) {
  bool Any = false;
  for (const llvm::Function &F : M)
    Any |= !F.isDeclaration() &&
           F.hasFnAttribute(llvm::Attribute::AlwaysInline) && !F.use_empty();
  if (!Any)
    return;
  llvm::LoopAnalysisManager LAM;
  llvm::FunctionAnalysisManager FAM;
  llvm::CGSCCAnalysisManager CGAM;
  llvm::ModuleAnalysisManager MAM;
  llvm::PassBuilder PB;
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  llvm::ModulePassManager MPM;
  MPM.addPass(llvm::AlwaysInlinerPass(/*InsertLifetime=*/true));
  MPM.run(M, MAM);
}

void removeContractFlags(llvm::Function &F) {
  for (llvm::Instruction &I : llvm::instructions(F))
    if (llvm::isa<llvm::FPMathOperator>(&I) && I.hasAllowContract())
      I.setHasAllowContract(false);
}

} // namespace

FuseStats fuseMultiplyAdds(llvm::Module &M, Contraction Mode) {
  FuseStats Stats;
  if (Mode != Contraction::Off)
    inlineAlwaysInlineCallees(M);
  for (llvm::Function &F : M) {
    if (F.isDeclaration())
      continue;
    if (Mode != Contraction::Off) {
      llvm::SmallVector<llvm::WeakTrackingVH, 16> Products;
      for (llvm::BasicBlock &BB : F)
        for (llvm::Instruction &I : llvm::make_early_inc_range(BB))
          if (auto *Sum = llvm::dyn_cast<llvm::BinaryOperator>(&I))
            if (llvm::Value *Used = fuseSum(*Sum)) {
              Products.push_back(Used);
              ++Stats.fused;
            }
      // Products used only by sums that are now fmas.
      for (llvm::WeakTrackingVH &P : Products)
        if (P)
          llvm::RecursivelyDeleteTriviallyDeadInstructions(P);
    }
    if (Mode != Contraction::RuleKeepFlags)
      removeContractFlags(F);
  }
  return Stats;
}

} // namespace pcj::codegen
