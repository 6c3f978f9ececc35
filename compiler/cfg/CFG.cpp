// Basic-block formation (see CFG.h).
#include "cfg/CFG.h"

#include "support/Diagnostics.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace pcj::cfg {

CFG buildCFG(const bc::DecodedCode &Code) {
  const auto &Is = Code.instrs;
  int N = int(Is.size());
  PCJ_ASSERT(N > 0, "empty instruction list for " + Code.qualname);
  std::set<int> Leaders{0};
  for (int K = 0; K < N; ++K) {
    const bc::Instr &I = Is[K];
    if (I.isJump()) {
      PCJ_ASSERT(I.target >= 0 && I.target < N, "jump target out of range");
      Leaders.insert(I.target);
    }
    if ((I.isJump() || I.isTerminator()) && K + 1 < N)
      Leaders.insert(K + 1);
  }
  CFG G;
  G.blockOfInstr.assign(N, -1);
  std::vector<int> Starts(Leaders.begin(), Leaders.end());
  for (size_t B = 0; B < Starts.size(); ++B) {
    BasicBlock BB;
    BB.index = int(B);
    BB.begin = Starts[B];
    BB.end = B + 1 < Starts.size() ? Starts[B + 1] : N;
    for (int K = BB.begin; K < BB.end; ++K)
      G.blockOfInstr[K] = int(B);
    G.blocks.push_back(BB);
  }
  for (BasicBlock &BB : G.blocks) {
    const bc::Instr &Last = Is[BB.end - 1];
    if (Last.isJump())
      BB.jump = G.blockOfInstr[Last.target];
    if (!Last.isTerminator() && BB.end < N)
      BB.fallthrough = G.blockOfInstr[BB.end];
  }
  for (const BasicBlock &BB : G.blocks)
    for (int S : {BB.fallthrough, BB.jump})
      if (S >= 0)
        G.blocks[S].preds.push_back(BB.index);
  for (BasicBlock &BB : G.blocks) {
    std::sort(BB.preds.begin(), BB.preds.end());
    BB.preds.erase(std::unique(BB.preds.begin(), BB.preds.end()),
                   BB.preds.end());
  }
  return G;
}

std::string CFG::dump(const bc::DecodedCode &Code) const {
  std::ostringstream OS;
  for (const BasicBlock &BB : blocks) {
    OS << "B" << BB.index << " [" << BB.begin << ", " << BB.end << ")";
    if (BB.fallthrough >= 0)
      OS << " fallthrough B" << BB.fallthrough;
    if (BB.jump >= 0)
      OS << " jump B" << BB.jump;
    OS << " preds";
    for (int P : BB.preds)
      OS << " B" << P;
    OS << "\n";
  }
  return OS.str();
}

} // namespace pcj::cfg
