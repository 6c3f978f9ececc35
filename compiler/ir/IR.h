// The SSA IR shared by every stage from SSA construction to lowering.
//
// A Function owns Blocks and Instrs.  Each Instr is one SSA value (values
// and instructions are the same thing; terminators produce a value only for
// ForIter).  Before type inference `type` is null; after it every value that
// reaches lowering has a type.  Every Instr keeps the SourceLoc of the Python
// code it came from.
//
//   func saxpy(a: float32, x: array(float32, 1d, C), ...) {
//   bb0:                                  ; line 3
//     %0 = arg 0 "a"                      : float32
//     %4 = global "cuda"                  : module(cuda)
//     %5 = getattr %4, "grid"             : intrinsic(cuda.grid)
//     %7 = call %5(%6)                    : int64        ; line 4
//     ...
#pragma once

#include "bytecode/Instr.h"
#include "ir/CompileTimeValue.h"
#include "stdlib/IntrinsicId.h"
#include "support/SourceLoc.h"
#include "types/Type.h"

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pcj::ir {

enum class Op : uint8_t {
#define PCJ_IR_OP(Name, Text, Term) Name,
#include "ir/Opcodes.def"
#undef PCJ_IR_OP
};
const char *opName(Op O);
bool isTerminator(Op O);

enum class UnaryKind : uint8_t { Neg, Pos, Not, Invert };
const char *unarySymbol(UnaryKind K);

struct Block;
struct Function;

struct Instr {
  Op op;
  unsigned id = 0; // unique within the function, in creation order
  Block *parent = nullptr;
  std::vector<Instr *> operands;
  SourceLoc loc;

  // Payload (meaning per op, see Opcodes.def).
  int64_t index = 0;
  // A Python name, the only kind of text it holds: a parameter's or local's
  // (Arg, Undef, Phi, CheckBound), a global's or free variable's (Global,
  // Deref), an attribute's or record field's (GetAttr, SetAttr), the raised
  // class's (Raise), a nested function's qualname (MakeFunction).
  std::string str;
  // TupleGet of an unpacking (`a, b = t`): how many values it expects
  // (checked in typing); 0 for other element reads.
  unsigned unpackCount = 0;
  bc::ConstValue cval;
  std::vector<std::string> kwnames; // Call: names of the trailing keyword args
  bool starArgs = false;         // Call: f(*t), the last operand a tuple whose
                                 // elements are the arguments (until typing)
  std::vector<Block *> incoming; // Phi
  std::vector<Block *> succs;    // terminators

  // Filled by type inference.
  types::TypeRef type = nullptr;
  bool weak = false;        // a Python literal (NEP 50 weak scalar)
  bool nonNegative = false; // an integer known >= 0 (transforms/NonNegative)
  // Global/Deref/GetAttr of a module, and phis and checkbounds of those:
  // what it names; Arg of a device function: the compile-time value its
  // caller passed (Invalid: known at run time).
  CTValue ct;
  // The registry row when this op is an intrinsic use (a Call of one, a
  // GetAttr reading or naming one); lowering dispatches on it.
  std::optional<stdlib::IntrinsicId> intrinsic;
  // A Call of a device function: the specialization's symbol (the LLVM
  // function it calls).
  std::string calleeSymbol;
  // GetAttr of a method (`a.reshape`): a call passes the object first.
  bool boundMethod = false;
  // A Call's progress through typing (which revisits it until nothing
  // changes): the method's object was made the first argument; the
  // arguments were bound to the callee's parameters (keywords, defaults).
  bool receiverInserted = false;
  bool argsBound = false;
  // The types operands are converted to before the operation (one per
  // operand; null = as is).  Filled by type inference, made explicit as
  // Cast instructions by transforms/InsertCasts.
  std::vector<types::TypeRef> argTypes;
  // transforms/HeapOwnership: an instruction that hands this function heap
  // blocks (an allocating intrinsic, a device-function call returning
  // arrays) records them in the function's heap slot `heapSlot` (-1: none).
  // heapKeep: the slot keeps the blocks of earlier executions (a phi may
  // still hold their arrays) instead of freeing them when it runs again.
  int heapSlot = -1;
  bool heapKeep = false;

  bool isTerminator() const { return ir::isTerminator(op); }
  Instr *operand(size_t I) const { return operands[I]; }
};

struct Block {
  unsigned id = 0;
  Function *parent = nullptr;
  std::vector<Instr *> instrs; // phis first, terminator last
  std::vector<Block *> preds;  // in a deterministic order

  Instr *terminator() const {
    return !instrs.empty() && instrs.back()->isTerminator() ? instrs.back()
                                                            : nullptr;
  }
  const std::vector<Block *> &succs() const;
};

struct Param {
  std::string name;
  types::TypeRef type = nullptr; // from the signature being compiled
};

// A Python local taking a value (`x = ...`, a `for` target): recorded by
// the SSA builder for debug information only (DebugInfo.cpp: a variable
// and its llvm.dbg.value).  `value` holds from just after `after` in
// `block` (null: from the block's start, after its phis).  Passes that
// replace a value (replaceAllUses) update `value`; an `after` no longer in
// `block` means the block's start.
struct LocalBinding {
  std::string name;
  Instr *value = nullptr;
  Block *block = nullptr;
  Instr *after = nullptr;
  SourceLoc loc;
};

struct Function {
  std::string name, qualname;
  std::shared_ptr<const std::string> file;
  int firstLine = 0;
  std::vector<Param> params;
  std::vector<LocalBinding> bindings; // in bytecode order
  std::vector<Block *> blocks;        // blocks[0] is the entry; kept in RPO
  types::TypeRef returnType = nullptr;
  // transforms/HeapOwnership: one entry per heap slot: whether a block of
  // the slot may be reachable from the returned value (the slot's blocks
  // then go to the caller instead of being freed at the return).
  std::vector<bool> heapSlotEscapes;

  Block *newBlock();
  Instr *create(Op O, SourceLoc Loc, std::vector<Instr *> Operands = {});
  // Inserts a new instruction into `B` before `Before` (nullptr: at the end,
  // or before the terminator if `B` has one).
  Instr *insert(Block *B, Instr *Before, Op O, SourceLoc Loc,
                std::vector<Instr *> Operands = {});
  // Replaces every use of `Old` by `New` (operands of all instructions).
  void replaceAllUses(Instr *Old, Instr *New);
  // Recomputes preds from terminators and orders blocks in reverse
  // post-order; unreachable blocks are dropped.
  void recomputeCFG();

  // Deterministic text form (the `ir` and `typed` dumps).
  std::string print(bool WithTypes) const;

private:
  std::deque<std::unique_ptr<Block>> OwnedBlocks;
  std::deque<std::unique_ptr<Instr>> OwnedInstrs;
  unsigned NextInstrId = 0, NextBlockId = 0;
};

// The value of a Python int the kernel names (a literal, or a global,
// closure variable or module attribute holding a Python int, not a numpy
// scalar): a NEP 50 weak scalar whose exact value matters where it is
// converted.  Null for anything else.
const bc::ConstValue *pythonIntValue(const Instr *I);
// The field of record type Rec a constant index names: a field name, or a
// position (negative from the end); -1 when none.
int recordFieldOf(types::TypeRef Rec, const bc::ConstValue &C);
// Whether a Python int fits integer type T (bool: any value).
bool pythonIntFits(const bc::ConstValue &V, types::TypeRef T);

// Checks structural invariants (terminators, phi arity, operand dominance in
// the simple sense of "defined in this function"); throws InternalError.
void verify(const Function &F, bool Typed);

} // namespace pcj::ir
