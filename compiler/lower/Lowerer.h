// The lowering pass's walker, shared by the files that lower one kind of
// instruction each: Lower.cpp (the walk, calls, the per-op dispatch) and
// Subscripts.cpp (subscripts and iteration).  Private to compiler/lower.
#pragma once

#include "lower/DebugInfo.h"
#include "lower/Lower.h"
#include "lower/LowerContext.h"

#include <map>
#include <set>
#include <vector>

namespace pcj::lower::detail {

using ir::Instr;
using types::AbiSlot;
using types::TypeRef;

class Lowerer {
public:
  Lowerer(const ir::Function &F, llvm::Module &M, TargetHooks &T,
          const LowerOptions &O, DebugInfo *DI)
      : F(F), Cx(F, M, T, O), DI(DI) {}

  // The kernel entry (parameters flattened per the kernel ABI).
  void lowerKernel(LowerResult &Out);
  // A device function declared earlier with declareDeviceFunction;
  // HeapBlocks: it returns { result, heap blocks } (lower/Heap.cpp).
  void lowerDeviceFunction(llvm::Function *LF, bool HeapBlocks);

private:
  const ir::Function &F;
  LowerContext Cx;
  DebugInfo *DI; // null: no line info
  llvm::DISubprogram *SP = nullptr;
  std::map<const ir::Block *, llvm::BasicBlock *> BB;
  // (IR pred, IR succ) -> the LLVM block whose terminator takes that edge
  // (lowering may split a block: bounds checks, loops for **, iterators).
  std::map<std::pair<const ir::Block *, const ir::Block *>, llvm::BasicBlock *>
      EdgeFrom;
  void recordEdges(const Instr *Term) {
    for (const ir::Block *S : Term->succs)
      EdgeFrom.try_emplace({Term->parent, S}, Cx.b.GetInsertBlock());
  }
  std::vector<std::pair<const Instr *, llvm::PHINode *>> Phis;
  // Checked mode: for each phi a read of a possibly unassigned local may
  // see, an i1 phi "the local is assigned" (false where an Undef flows in).
  std::map<const Instr *, llvm::PHINode *> BoundFlag;
  std::set<const Instr *> NeedsBoundFlag;
  void findBoundFlags();
  llvm::Value *boundFlagOf(const Instr *V);

  void lowerBody();
  void lowerInstr(const Instr *I); // dispatches per op to the functions below
  llvm::Value *lowerCall(const Instr *I);
  llvm::Value *lowerGetItem(const Instr *I);
  void lowerSetItem(const Instr *I);
  llvm::Value *lowerGetIter(const Instr *I);
  void lowerForIter(const Instr *I);
  llvm::Value *lowerIntrinsic(const Instr *I, size_t FirstArg);
  std::vector<LowerContext::Index> indices(const Instr *Idx);
  void buildParams(const std::vector<llvm::Value *> &Params,
                   const std::vector<AbiSlot> &Slots);
  llvm::Value *tupleElement(const Instr *Tup, unsigned K);
  llvm::Value *tupleAsArray(const Instr *Tup, TypeRef Elem);
};

// Alignment of an array element (numpy aligns complex to its parts, a
// string to its characters).
unsigned elementAlign(types::TypeRef T);
// I without the casts InsertCasts put around it.
const ir::Instr *uncast(const ir::Instr *I);
// True, with the value, when I is an integer constant.
bool constInt(const ir::Instr *I, int64_t &Out);

} // namespace pcj::lower::detail
