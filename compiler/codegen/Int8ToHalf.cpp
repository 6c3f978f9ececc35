// Int8ToHalf (NVPTX only, after optimisation): an int8 or uint8 converted
// to float16 is PTX's cvt.rn.f16.s8 / cvt.rn.f16.u8, as NVVM emits it.
//
// NVPTX has no 8-bit registers: LLVM widens the int8 to 16 bits and
// converts with cvt.rn.f16.s16.  Both are exact (every int8 and uint8 is a
// float16), so only the spelling changes; the cvt reads the low 8 bits of
// its 16-bit source register.  After optimisation, so constants still fold:
//
//   %h = sitofp i8 %x to half
// becomes
//   %w = sext i8 %x to i16
//   %c = call i16 asm "cvt.rn.f16.s8 $0, $1;", "=h,h"(i16 %w)
//   %h = bitcast i16 %c to half
#include "codegen/Int8ToHalf.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

#include <vector>

namespace pcj::codegen {

unsigned convertInt8ToHalf(llvm::Module &M) {
  std::vector<llvm::CastInst *> Work;
  for (llvm::Function &F : M)
    for (llvm::BasicBlock &BB : F)
      for (llvm::Instruction &I : BB) {
        auto *C = llvm::dyn_cast<llvm::CastInst>(&I);
        if (C &&
            (C->getOpcode() == llvm::Instruction::SIToFP ||
             C->getOpcode() == llvm::Instruction::UIToFP) &&
            C->getSrcTy()->isIntegerTy(8) && C->getDestTy()->isHalfTy())
          Work.push_back(C);
      }
  for (llvm::CastInst *C : Work) {
    llvm::IRBuilder<> B(C);
    bool Signed = C->getOpcode() == llvm::Instruction::SIToFP;
    llvm::Value *X = C->getOperand(0);
    llvm::Value *Wide = Signed ? B.CreateSExt(X, B.getInt16Ty())
                               : B.CreateZExt(X, B.getInt16Ty());
    auto *FT = llvm::FunctionType::get(B.getInt16Ty(), {B.getInt16Ty()}, false);
    auto *Asm = llvm::InlineAsm::get(
        FT, Signed ? "cvt.rn.f16.s8 $0, $1;" : "cvt.rn.f16.u8 $0, $1;", "=h,h",
        /*hasSideEffects=*/false);
    llvm::Value *R =
        B.CreateBitCast(B.CreateCall(FT, Asm, {Wide}), C->getDestTy());
    R->takeName(C);
    C->replaceAllUsesWith(R);
    C->eraseFromParent();
  }
  return Work.size();
}

} // namespace pcj::codegen
