// CancelPoints: make every loop of optimized host code poll the CPU
// executor's stop word, so that a kernel that never ends can be stopped
// (Ctrl-C, a time limit, an error in another thread of the launch).
//
// Runs after the optimization pipeline, so vectorization and unrolling see
// loops without the poll (an atomic load and a call would block them); each
// loop that is left polls once per iteration in its header:
//
//   loop:                              loop:
//     %i = phi ...                       %i = phi ...
//     <body>                 ==>         %s = load atomic i32
//     @pcj_cpu_stop_requests monotonic br %c, %loop, %exit                %p =
//     icmp ne i32 %s, 0
//                                        br %p, %poll, %loop.body   ; !prof:
//                                        cold
//                                      poll:
//                                        call void @pcj_cpu_poll()  ; cold
//                                        br %loop.body
//                                      loop.body:
//                                        <body>
//                                        br %c, %loop, %exit
//
// The word is non-zero only while some launch is being stopped;
// pcj_cpu_poll (runtime/cpu) then ends the calling CUDA thread if its own
// launch is the one, and returns otherwise.
#include "codegen/CancelPoints.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"

#include <vector>

namespace pcj::codegen {

unsigned insertCancelPoints(llvm::Module &M) {
  llvm::LLVMContext &C = M.getContext();
  llvm::Type *I32 = llvm::Type::getInt32Ty(C);
  llvm::GlobalVariable *Word = nullptr;
  llvm::FunctionCallee Poll;
  unsigned Count = 0;
  for (llvm::Function &F : M) {
    if (F.isDeclaration())
      continue;
    llvm::DominatorTree DT(F);
    llvm::LoopInfo LI(DT);
    std::vector<llvm::BasicBlock *> Headers;
    for (llvm::Loop *L : LI.getLoopsInPreorder())
      Headers.push_back(L->getHeader());
    if (Headers.empty())
      continue;
    if (!Word) {
      Word = new llvm::GlobalVariable(M, I32, /*isConstant=*/false,
                                      llvm::GlobalValue::ExternalLinkage,
                                      nullptr, "pcj_cpu_stop_requests");
      Poll = M.getOrInsertFunction(
          "pcj_cpu_poll",
          llvm::FunctionType::get(llvm::Type::getVoidTy(C), false));
      if (auto *PF = llvm::dyn_cast<llvm::Function>(Poll.getCallee())) {
        PF->addFnAttr(llvm::Attribute::Cold);
        PF->addFnAttr(llvm::Attribute::NoUnwind);
      }
    }
    llvm::MDNode *Cold = llvm::MDBuilder(C).createBranchWeights(1, 1 << 20);
    for (llvm::BasicBlock *H : Headers) {
      llvm::BasicBlock *Body =
          H->splitBasicBlock(H->getFirstInsertionPt(), H->getName() + ".body");
      auto *PollBB =
          llvm::BasicBlock::Create(C, H->getName() + ".poll", &F, Body);
      H->getTerminator()->eraseFromParent();
      llvm::IRBuilder<> B(H);
      llvm::LoadInst *S =
          B.CreateAlignedLoad(I32, Word, llvm::Align(4), "stop");
      S->setAtomic(llvm::AtomicOrdering::Monotonic);
      B.CreateCondBr(B.CreateICmpNE(S, B.getInt32(0)), PollBB, Body, Cold);
      B.SetInsertPoint(PollBB);
      B.CreateCall(Poll);
      B.CreateBr(Body);
      ++Count;
    }
  }
  return Count;
}

} // namespace pcj::codegen
