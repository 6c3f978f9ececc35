// Torch tensors and CuPy arrays as kernel arguments, read through their own
// attributes instead of `__cuda_array_interface__` (torch builds that dict
// in Python code, CuPy builds a new one per access).
//
//   torch.Tensor  -> data_ptr(), shape, stride() (elements), dtype, is_cuda,
//                    requires_grad
//   cupy.ndarray  -> data.ptr, shape, strides (bytes), dtype
//
// What the launch sees is exactly what the interface says: the same
// pointer (0 for an empty array), shape, byte strides (canonical C strides
// for a C-contiguous array, where the interface omits them), element type,
// read-only flag (false) and stream field (torch's interface has none; CuPy's
// is its current stream, 1 for the legacy default).  The first object of
// every (type, dtype, ndim, layout) is read both ways and compared; a type
// whose attributes disagree with its interface is read through the
// interface from then on.  An object the interface would refuse (a torch
// tensor that requires grad, a CPU tensor) goes to the interface path too.
#pragma once

#include "ArgPack.h"

namespace pcj::py {

// ArgValue::foreign: which library's array the fast path read.
enum class Foreign : uint8_t { None, Torch, Cupy };

// Fills Out from a torch tensor or CuPy array through its attributes;
// false: not one, or one to read through the interface (the caller's
// path).  On the CPU executor the memory must be host memory (as for the
// interface path: raises ValueError otherwise).
bool fromForeign(PyObject *O, int Index, ArgValue &Out);

// A new argument list begins (classifyArg's first argument): fromForeign
// reads an object passed several times in one list once; nothing read
// before this call is reused.
void startArgumentList();

// True when O's type is the one fromForeign read last (a pointer compare,
// for classifyArg's check ahead of the numeric types).
bool isLastForeignType(PyObject *O);

// The stream field O's interface would have now, for a fast-path argument
// with hasStream (the producer's current stream; 1: the legacy default).
uint64_t foreignStream(const ArgValue &V);

} // namespace pcj::py
