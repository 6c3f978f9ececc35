// Loop-unrolling policy for lowered back edges (see LoopHints.h).
#include "lower/LoopHints.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Metadata.h>

#include <set>
#include <vector>

namespace pcj::lower {

using ir::Instr;
using ir::Op;
using types::AddrSpace;

namespace {

// The step of the `for ... in range(start, stop, step)` loop whose header
// is Header (looking through casts); nullptr for other blocks and loops.
const Instr *rangeLoopStep(const ir::Block *Header) {
  const Instr *T = Header->terminator();
  if (!T || T->op != Op::ForIter || T->operands[0]->op != Op::GetIter)
    return nullptr;
  const Instr *Rg = T->operands[0]->operands[0];
  if (Rg->op != Op::Call ||
      Rg->intrinsic != stdlib::IntrinsicId::builtin_range ||
      Rg->operands.size() != 4)
    return nullptr;
  const Instr *Step = Rg->operands[3];
  while (Step->op == Op::Cast)
    Step = Step->operands[0];
  return Step;
}

// A block-stride loop: range(tid, n, cuda.blockDim.x) (or y, z).
bool blockStrideLoop(const ir::Block *Header) {
  const Instr *Step = rangeLoopStep(Header);
  using stdlib::IntrinsicId;
  return Step && (Step->intrinsic == IntrinsicId::cuda_blockDim_x ||
                  Step->intrinsic == IntrinsicId::cuda_blockDim_y ||
                  Step->intrinsic == IntrinsicId::cuda_blockDim_z);
}

// The jump from Latch to Header is the back edge of a grid-stride loop
// (`range(start, stop, cuda.gridsize(n))`) whose body stores to a global
// array.
bool gridStrideStoreLoop(const ir::Block *Latch, const ir::Block *Header) {
  const Instr *Step = rangeLoopStep(Header);
  if (!Step || Step->intrinsic != stdlib::IntrinsicId::cuda_gridsize)
    return false;
  // The natural loop: blocks that reach the latch without the header.  If
  // the walk reaches the entry block, the header does not dominate the
  // jump: it enters the loop rather than closing it.
  std::vector<const ir::Block *> Work{Latch};
  std::set<const ir::Block *> Seen{Header, Latch};
  bool Stores = false;
  while (!Work.empty()) {
    const ir::Block *Bl = Work.back();
    Work.pop_back();
    if (Bl->preds.empty())
      return false;
    for (const Instr *X : Bl->instrs)
      Stores |= X->op == Op::SetItem && X->operands[0]->type->isArray() &&
                X->operands[0]->type->addrSpace() == AddrSpace::Global;
    for (const ir::Block *P : Bl->preds)
      if (Seen.insert(P).second)
        Work.push_back(P);
  }
  return Stores;
}

// Loop metadata (`!llvm.loop`) with one hint on a back-edge branch.
void setLoopHint(llvm::BranchInst *Br, llvm::Metadata *Name,
                 llvm::Metadata *Value) {
  llvm::LLVMContext &C = Br->getContext();
  std::vector<llvm::Metadata *> Hint{Name};
  if (Value)
    Hint.push_back(Value);
  llvm::MDNode *Loop =
      llvm::MDNode::getDistinct(C, {nullptr, llvm::MDNode::get(C, Hint)});
  Loop->replaceOperandWith(0, Loop);
  Br->setMetadata(llvm::LLVMContext::MD_loop, Loop);
}

} // namespace

void setUnrollHint(llvm::BranchInst *Br, const ir::Block *Latch,
                   const ir::Block *Header) {
  llvm::LLVMContext &C = Br->getContext();
  if (gridStrideStoreLoop(Latch, Header)) {
    // A grid-stride loop that writes global memory: unrolled, each warp
    // streams to k places a grid apart at once (measured on the H200:
    // triad_gs 0.95x nvcc unrolled 4x, 0.55x at 8x, 1.00x not unrolled).
    // Loops that only read or accumulate (reductions, histograms) keep
    // the unroller's choice: they gain from more loads in flight.
    setLoopHint(Br, llvm::MDString::get(C, "llvm.loop.unroll.disable"),
                nullptr);
  } else if (blockStrideLoop(Header)) {
    // A block-stride loop (`range(tid, n, cuda.blockDim.x)`: one block
    // walks a row) runs n / blockDim iterations per thread -- many.  The
    // default NVPTX partial-unroll budget unrolls a body with an expf
    // only 2x; 4x (what nvcc does) keeps more loads in flight.
    setLoopHint(Br, llvm::MDString::get(C, "llvm.loop.unroll.count"),
                llvm::ConstantAsMetadata::get(
                    llvm::ConstantInt::get(llvm::Type::getInt32Ty(C), 4)));
  }
}

} // namespace pcj::lower
