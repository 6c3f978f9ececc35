// Helpers shared by the lowering rules of the CUDA device intrinsics
// (stdlib/lowering/{Cuda,Sync,Atomic,Warp,Bit,Fp16}Rules.cpp).
#pragma once

#include "stdlib/lowering/Rules.h"

namespace pcj::stdlib::lowering::cudahelp {

// Positional-or-keyword argument lookup (like TypingRequest::find): index
// into R.args, or -1.
inline int findArg(const LoweringRequest &R, size_t Pos, const char *Name) {
  const std::vector<std::string> &Kw = R.instr.kwnames;
  size_t NPos = R.args.size() - Kw.size();
  if (Pos < NPos)
    return int(Pos);
  for (size_t K = 0; K < Kw.size(); ++K)
    if (Kw[K] == Name)
      return int(NPos + K);
  return -1;
}

// Whether any instruction of the function being lowered uses the value of
// R's instruction (an atomic whose old value is dropped can be a PTX `red`).
inline bool resultUsed(const LoweringRequest &R) {
  for (const ir::Block *B : R.cx.fn.blocks)
    for (const ir::Instr *I : B->instrs)
      for (const ir::Instr *Op : I->operands)
        if (Op == &R.instr)
          return true;
  return false;
}

// Fails at the intrinsic's line when the target lacks the feature.
inline void require(const LoweringRequest &R, lower::TargetHooks::Feature F) {
  std::string Why = R.cx.target.missing(F);
  if (!Why.empty())
    R.cx.fail(&R.instr, std::string(R.info.key) + "() " + Why);
}

// The element indices of an int or tuple index argument, for elementPtr
// (with what transforms/NonNegative proved about them).
inline std::vector<lower::LowerContext::Index>
indexList(const LoweringRequest &R, size_t K) {
  std::vector<lower::LowerContext::Index> Out;
  types::TypeRef T = R.argTypes[K];
  const ir::Instr *I = R.argInstrs[K];
  if (T->isTuple()) {
    bool Built = I->op == ir::Op::BuildTuple;
    for (unsigned E = 0; E < T->elems().size(); ++E)
      Out.push_back({R.cx.b.CreateExtractValue(R.args[K], {E}), T->elems()[E],
                     I->nonNegative || (Built && I->operands[E]->nonNegative)});
  } else {
    Out.push_back({R.args[K], T, I->nonNegative});
  }
  return Out;
}

// An internal, always-inlined helper function of the module, built once:
// lowering rules call it instead of splitting the block they lower into
// (loops such as CAS retries live in the helper).
template <typename BuildFn>
llvm::Function *moduleHelper(llvm::Module &M, const std::string &Name,
                             llvm::FunctionType *FT, BuildFn Build) {
  if (llvm::Function *F = M.getFunction(Name))
    return F;
  auto *F =
      llvm::Function::Create(FT, llvm::GlobalValue::InternalLinkage, Name, M);
  F->addFnAttr(llvm::Attribute::AlwaysInline);
  F->addFnAttr(llvm::Attribute::NoUnwind);
  Build(F);
  return F;
}

} // namespace pcj::stdlib::lowering::cudahelp
