// The kernel parameter ABI: how the Python-level arguments of a kernel are
// flattened into the parameters of the compiled kernel.  One definition,
// used by lowering (to declare and read parameters) and by the runtime glue
// (to pack arguments for cuLaunchKernel / the CPU executor).
//
//   scalar        -> one parameter of its type (bool: 1 byte)
//   array(ndim)   -> data pointer, ndim x int64 shape, ndim x int64 strides
//                    (strides in bytes)
//   tuple         -> its elements, flattened in order
//
//   saxpy(a: float32, x: array(float32, 1d, C))
//     -> [f32 a] [ptr x.data] [i64 x.shape0] [i64 x.stride0]
#pragma once

#include "types/Type.h"

#include <string>
#include <vector>

namespace pcj::types {

struct AbiSlot {
  enum class Kind : uint8_t { Scalar, Data, Shape, Stride };
  Kind kind = Kind::Scalar;
  unsigned arg = 0;            // which Python-level argument
  std::vector<unsigned> path;  // tuple element path within the argument
  unsigned dim = 0;            // Shape / Stride: which dimension
  TypeRef scalar = nullptr;    // Scalar: its type; Data: the array type
  unsigned size = 8, align = 8; // bytes in the parameter buffer
};

std::vector<AbiSlot> flattenKernelParams(const std::vector<TypeRef> &Args);

// Total bytes and the offset of each slot in a packed parameter buffer
// (each slot aligned to its own alignment).
size_t layoutParamBuffer(const std::vector<AbiSlot> &Slots,
                         std::vector<size_t> &Offsets);

} // namespace pcj::types
