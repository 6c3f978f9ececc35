// The kernel parameter ABI: how the Python-level arguments of a kernel are
// flattened into the parameters of the compiled kernel.  One definition,
// used by lowering (to declare and read parameters) and by the runtime glue
// (to pack arguments for cuLaunchKernel / the CPU executor).
//
//   scalar        -> one parameter of its type (bool: 1 byte)
//   CPointer(T)   -> one 8-byte parameter, the address
//   array(ndim)   -> data pointer, ndim x int64 shape, ndim x int64 strides
//                    (strides in bytes); a single record is a 0-d array
//   tuple         -> its elements, flattened in order -- up to
//                    kMaxFlatTupleSlots of them; a larger tuple argument is
//                    ONE aggregate parameter holding the same slots at the
//                    offsets of a C struct of its elements (LLVM's layout of
//                    the tuple's in-memory type, bools as bytes), which the
//                    kernel indexes in place: thousands of parameters and SSA
//                    values would make compile time grow superlinearly
//
//   saxpy(a: float32, x: array(float32, 1d, C))
//     -> [f32 a] [ptr x.data] [i64 x.shape0] [i64 x.stride0]
//   k(t: UniTuple(float32 x 5000))
//     -> [aggregate of 5000 f32 at offsets 0, 4, ..., 19996]
#pragma once

#include "types/Type.h"

#include <string>
#include <vector>

namespace pcj::types {

// Tuple arguments with more flattened slots than this are passed as one
// aggregate parameter.
constexpr unsigned kMaxFlatTupleSlots = 32;

struct AbiSlot {
  enum class Kind : uint8_t { Scalar, Data, Shape, Stride };
  Kind kind = Kind::Scalar;
  unsigned arg = 0;             // which Python-level argument
  std::vector<unsigned> path;   // tuple element path within the argument
  unsigned dim = 0;             // Shape / Stride: which dimension
  TypeRef scalar = nullptr;     // Scalar: its type; Data: the array type
  unsigned size = 8, align = 8; // bytes of the value, its alignment
  unsigned param = 0;           // the kernel parameter that holds it
  unsigned offset = 0;          // byte offset within that parameter
};

// A kernel parameter: one slot, or the aggregate of a large tuple argument.
struct AbiParam {
  unsigned firstSlot = 0, numSlots = 1; // its slots, consecutive
  unsigned size = 8, align = 8;
  bool aggregate = false;
};

std::vector<AbiSlot> flattenKernelParams(const std::vector<TypeRef> &Args);

// The argument types a kernel is compiled for, from a signature's: a single
// record (numba's Record parameter) arrives as a 0-d array of its dtype, as
// an np.void argument does, and the kernel uses it as the record.
std::vector<TypeRef> kernelArgTypes(std::vector<TypeRef> Args);

// The kernel parameters the slots make up, in order.
std::vector<AbiParam> kernelParams(const std::vector<AbiSlot> &Slots);

// Total bytes and the offset of each slot in a packed parameter buffer
// (each parameter aligned to its own alignment; a slot of an aggregate at
// its parameter's offset plus its own).
size_t layoutParamBuffer(const std::vector<AbiSlot> &Slots,
                         std::vector<size_t> &Offsets);

// Size and alignment of a value of type T in memory as the kernel ABI lays
// it out (tuples as C structs of their elements; None takes no space).
void abiSizeAlign(TypeRef T, unsigned &Size, unsigned &Align);

} // namespace pcj::types
