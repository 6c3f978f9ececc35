// The state of lowering one function, and the helpers lowering rules use
// (stdlib/lowering/Rules.cpp).  Value representation in LLVM:
//
//   bool            i1 (i8 in memory and parameters)
//   intN / floatN   iN / half, float, double
//   array           { ptr addrspace(AS) data, [N x i64] shape, [N x i64]
//   strides } tuple           literal struct of the elements (a large tuple
//   argument:
//                   read in place from its parameter, see tupleAddress)
//   range           { iN start, iN stop, iN step }
//   range_iter      ptr to an alloca holding { iN cur, iN stop, iN step }
//   none            {} (empty struct)
//   record          ptr (generic) to the record in memory: a reference; its
//                   nested-array fields read as array views in place
//   namedtuple      like a tuple
//   compile-time-only values (modules, intrinsics, dtypes, str): no LLVM value
#pragma once

#include "ir/IR.h"
#include "lower/Lower.h"
#include "lower/TargetHooks.h"

#include <llvm/IR/IRBuilder.h>

#include <map>

namespace pcj::lower {

class LowerContext;

// While it lives, the float operations built by Cx.b are source arithmetic:
// they carry `contract` when contraction is on (fmad=True), so codegen's
// FuseMultiplyAdd may fuse them by the rule of docs/language.md.  Everything
// a lowering builds outside such a scope (the steps of %, //, complex
// division, round(), cmath, ...) carries no `contract` and is never fused:
//   { SourceArithmetic S(Cx); return Cx.b.CreateFMul(A, B); }   // a * b
class SourceArithmetic {
public:
  explicit SourceArithmetic(LowerContext &Cx);

private:
  llvm::IRBuilder<>::FastMathFlagGuard Saved;
};

class LowerContext {
public:
  LowerContext(const ir::Function &F, llvm::Module &M, TargetHooks &T,
               const LowerOptions &O);

  const ir::Function &fn;
  llvm::Module &module;
  llvm::LLVMContext &ctx;
  TargetHooks &target;
  const LowerOptions &opts;
  llvm::IRBuilder<> b;
  llvm::Function *kernel = nullptr;
  llvm::BasicBlock *allocaBlock = nullptr;

  // ---- types ----
  llvm::Type *valueType(types::TypeRef T);  // nullptr: compile-time only
  llvm::Type *memoryType(types::TypeRef T); // element type in memory

  // ---- values ----
  llvm::Value *value(const ir::Instr *I); // the lowered value of an operand
  void setValue(const ir::Instr *I, llvm::Value *V) { Values[I] = V; }
  bool hasValue(const ir::Instr *I) const {
    return Values.count(I) || TupleAddrs.count(I);
  }
  llvm::Value *none();
  llvm::Value *intConst(types::TypeRef T, int64_t V);
  llvm::Value *intConstant(const bc::ConstValue &C, types::TypeRef T);
  llvm::Value *constant(const ir::Instr *At, const bc::ConstValue &C,
                        types::TypeRef T);
  llvm::Value *cast(llvm::Value *V, types::TypeRef From, types::TypeRef To);
  llvm::Value *truth(llvm::Value *V, types::TypeRef T);
  // To / from the in-memory representation (bool <-> i8).
  llvm::Value *toMemory(llvm::Value *V, types::TypeRef T);
  llvm::Value *fromMemory(llvm::Value *V, types::TypeRef T);
  // ---- tuples in memory ----
  // A large tuple argument stays in its kernel parameter (KernelABI.h):
  // `Addr` points at its in-memory form (memoryType: a struct of the
  // elements, bools as bytes).  Elements are read in place; value() loads
  // the whole tuple (in the entry block) only for an operation that needs
  // it as one value.
  void setTupleAddress(const ir::Instr *I, llvm::Value *Addr);
  llvm::Value *tupleAddress(const ir::Instr *I) const; // nullptr: none
  // Element K of the tuple of type TupT in memory at Addr, as a value.
  llvm::Value *loadTupleElement(llvm::Value *Addr, types::TypeRef TupT,
                                unsigned K);
  // A value of type T from its in-memory form at Addr (alignment Align).
  llvm::Value *loadValue(llvm::Value *Addr, types::TypeRef T, unsigned Align);
  // An alloca in the entry block.
  llvm::AllocaInst *entryAlloca(llvm::Type *T, const std::string &Name,
                                uint64_t Count = 1);

  // ---- arrays ----
  llvm::Value *makeArray(types::TypeRef T, llvm::Value *Data,
                         const std::vector<llvm::Value *> &Shape,
                         const std::vector<llvm::Value *> &Strides);
  // A global NumPy array (ir::CTValue::Kind::ConstArray) as an array of
  // type T in constant memory.
  llvm::Value *constArray(const ir::CTValue &C, types::TypeRef T);
  // A captured device array (ir::CTValue::Kind::DeviceArray): its address,
  // shape and strides as constants.
  llvm::Value *capturedArray(const ir::CTValue &C, types::TypeRef T);
  // A global or closure value (a constant, an array, a tuple of those) of
  // type T; nullptr for one that exists only at compile time.
  llvm::Value *compileTimeValue(const ir::Instr *At, const ir::CTValue &C,
                                types::TypeRef T);
  llvm::Value *arrayData(llvm::Value *A);
  llvm::Value *arrayShape(llvm::Value *A, unsigned Dim);
  llvm::Value *arrayStride(llvm::Value *A, unsigned Dim);
  // One index of an array access; NonNeg: known >= 0 (no wrap-around).
  struct Index {
    llvm::Value *value;
    types::TypeRef type;
    bool nonNeg = false;
  };
  // Address of a[idx...] with Python negative-index wrap-around and, in
  // checked mode, bounds checks.  `Idx` holds one value per dimension.
  llvm::Value *elementPtr(const ir::Instr *At, types::TypeRef ArrTy,
                          llvm::Value *A, const std::vector<Index> &Idx);

  // Sanitized kernels (opts.sanitize): announces an access to the element
  // at Ptr of the array Arr (value of ArrInstr, type ArrTy) for At's line;
  // `Bytes` 0 means the element's size.  sanitizeRecord does the same for a
  // record reference (a field, or the whole record when Field < 0).
  void sanitizeAccess(const ir::Instr *At, TargetHooks::Access Kind,
                      types::TypeRef ArrTy, llvm::Value *Arr,
                      const ir::Instr *ArrInstr, llvm::Value *Ptr,
                      uint64_t Bytes = 0);
  void sanitizeRecord(const ir::Instr *At, TargetHooks::Access Kind,
                      types::TypeRef RecTy, llvm::Value *Rec,
                      const ir::Instr *RecInstr, int Field);
  // After an atomic on an array of type ArrTy.
  void sanitizeAtomicDone(types::TypeRef ArrTy);
  // Before a barrier or warp operation at At (opts.sanitizeSync): the
  // thread's current synchronization site, named by sync errors.
  void sanitizeSync(const ir::Instr *At);

  // Stores Mem (memory form) at Ptr aligned to Align; a float (or a
  // complex's parts) below its own alignment goes as its bits through
  // TargetHooks::opaqueBits (packed record fields).
  void storeField(llvm::Value *Mem, llvm::Value *Ptr, unsigned Align);

  // Field F of the record reference Rec (of type RecTy, the value of
  // RecInstr): a scalar's value, or a nested array's view in place
  // (RecordFields.cpp).  storeRecordField stores Val (of type ValTy, already
  // cast to a scalar field's type) into it: into a nested array, an array of
  // its shape (elements copied and converted) or one number for every element.
  llvm::Value *loadRecordField(const ir::Instr *At, types::TypeRef RecTy,
                               llvm::Value *Rec, const ir::Instr *RecInstr,
                               int F);
  void storeRecordField(const ir::Instr *At, types::TypeRef RecTy,
                        llvm::Value *Rec, const ir::Instr *RecInstr, int F,
                        llvm::Value *Val, types::TypeRef ValTy);

  // Field F of every record of the array A (type ArrTy): a view of type
  // View, the records' shape and strides from the field's offset.
  llvm::Value *recordArrayField(types::TypeRef ArrTy, llvm::Value *A, int F,
                                types::TypeRef View);

  // Address of field `Field` of a record reference.
  llvm::Value *recordField(llvm::Value *Rec, types::TypeRef RecTy,
                           unsigned Field);

  // Checked mode: where Cond holds, raise Kind with Message at At's line
  // (TargetHooks::raiseError); lowering continues in the block after the
  // test.
  void raiseIf(const ir::Instr *At, llvm::Value *Cond,
               TargetHooks::RaisedError Kind, const std::string &Message);

  [[noreturn]] void fail(const ir::Instr *I, const std::string &Msg) const;

  // ---- the device heap (Heap.cpp; transforms/HeapOwnership) ----
  // A heap block is [next block: ptr][8 bytes][data], malloc'd; a heap
  // slot (an entry alloca) holds a list of blocks chained by `next`.
  // At the function's entry: its slots, empty.
  void heapBegin();
  // A new block of Bytes (i64) of data for the allocation At, in At's slot
  // (replacing the slot's blocks, or added to them when At->heapKeep); a
  // full heap raises MemoryError.  Returns the data's address, 16-byte
  // aligned, in the global address space.
  llvm::Value *heapAllocate(const ir::Instr *At, llvm::Value *Bytes);
  // The list of blocks a device-function call At returned goes to At's slot.
  void heapAdopt(const ir::Instr *At, llvm::Value *Blocks);
  // Before a return: frees the blocks of the slots that do not escape and
  // returns the others as one list (a null pointer when there are none).
  llvm::Value *heapRelease();
  // This function returns its escaping blocks beside its result (a device
  // function returning arrays, transforms::returnsHeapBlocks).
  bool heapReturnsBlocks = false;

private:
  std::vector<llvm::AllocaInst *> HeapSlots;
  llvm::Function *heapHelper(bool Splice);
  std::map<const ir::Instr *, llvm::Value *> Values;
  std::map<const ir::Instr *, llvm::Value *> TupleAddrs;
};

// Foreign.cpp: the wrapper through which calls reach a foreign function.
void defineForeignWrapper(const ForeignFunction &FF, LowerContext &Types,
                          TargetHooks &T);

} // namespace pcj::lower
