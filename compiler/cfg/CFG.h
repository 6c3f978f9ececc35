// Stage 2: basic blocks over the decoded instruction list.
//
// A block is a maximal run [begin, end) of decoded instructions entered only
// at its first one.  Leaders are: instruction 0, every jump target, and every
// instruction following a jump or terminator.  For each block we record the
// block reached by falling through its last instruction and the block its
// jump targets, so the SSA builder knows which edge is which:
//
//   0 LOAD_FAST i; 1 LOAD_FAST n; 2 COMPARE_OP <; 3 POP_JUMP_IF_FALSE ->6
//   4 ...; 5 RETURN_VALUE; 6 ...
//   => B0 [0,4) fallthrough B1, jump B2;  B1 [4,6);  B2 [6,..)
#pragma once

#include "bytecode/Instr.h"

#include <string>
#include <vector>

namespace pcj::cfg {

struct BasicBlock {
  int index = 0;          // position in CFG::blocks
  int begin = 0, end = 0; // instruction range [begin, end)
  int fallthrough = -1;   // block index reached without jumping, or -1
  int jump = -1;          // block index of the last instruction's target, or -1
  std::vector<int> preds; // sorted block indices
};

struct CFG {
  std::vector<BasicBlock> blocks; // blocks[0] is the entry; ordered by begin
  std::vector<int> blockOfInstr;  // instruction index -> block index

  std::string dump(const bc::DecodedCode &Code) const;
};

CFG buildCFG(const bc::DecodedCode &Code);

} // namespace pcj::cfg
