// HeapOwnership: which function frees each array allocated in a kernel, and
// when -- reference counting made static.
//
// Arrays cannot be stored into other arrays, records or globals, so an
// array allocated in a function (np.empty, a.copy(), ..., a registry row
// with the Allocates property) can only be reached through SSA values
// computed from it: views, tuples, phis, iterators, nested functions and
// the results of device functions it is passed to.  The pass gives every
// instruction that hands the function heap blocks -- an allocation, or a
// call of a device function returning arrays, which hands over the blocks
// the callee's result may reach -- a slot (Instr::heapSlot) and decides:
//
//   escapes (Function::heapSlotEscapes): some value computed from the
//     blocks is returned.  Then the slot's blocks go to the caller with
//     the result, else they are freed at every return.
//   keep (Instr::heapKeep): some value computed from the blocks goes
//     through a phi, so when the instruction runs again (a loop) an
//     earlier block may still be in use: the slot keeps a list of them all
//     until the return.  Without a phi every value computed from the
//     blocks is dominated by the instruction, so when it runs again each
//     such value that can still be read has been computed again from the
//     new blocks: the old ones are freed there (a loop does not grow the
//     heap).
//
//   def f(n):                          def f(n):
//     for i in range(n):                 for i in range(n):
//       a = np.empty(4)          ==>       a = np.empty(4)   ; heap0: frees
//       use(a)                              use(a)           ; the previous a
//     b = np.zeros(n)                    b = np.zeros(n)     ; heap1 escapes
//     return b[1:]                       return b[1:]        ; heap0 freed,
//                                                            ; heap1 returned
//
// Lowering (lower/Heap.cpp) implements the slots; this pass only decides.
#pragma once

#include "ir/IR.h"

namespace pcj::transforms {

// Whether a value of type T may refer to array memory (an array, a tuple
// holding one, an iterator, a function value with captured values).
bool mayReferToArrays(types::TypeRef T);

// Whether a device function returning T hands its caller heap blocks with
// the result (lowering then returns them beside it): T holds an array.
bool returnsHeapBlocks(types::TypeRef T);

// Marks the heap slots of F; returns whether F has any.
bool assignHeapOwnership(ir::Function &F);

} // namespace pcj::transforms
