// Choosing among explicit signatures, numba's way.
//
// Each argument converts to its parameter exactly, by a promotion (same
// kind, wider: int16 -> int32, float32 -> float64), by a safe conversion
// (no information lost: int32 -> float64, uint8 -> int16, a C array to an
// 'A' one), by an unsafe one (int64 -> float64, float64 -> int32), or not at
// all (complex -> float, array -> scalar).  A signature's rank is its count
// of unsafe, then safe, then promoting conversions (fewer is better, in that
// order); the best rank wins, and a tie is ambiguous:
//
//   (int64, float64) with void(float32, float32): 2 unsafe
//                    with void(float64, float64): 1 unsafe  <- chosen
#pragma once

#include "types/Type.h"

#include <vector>

namespace pcj::types {

enum class Conversion : uint8_t { Exact, Promote, Safe, Unsafe, None };

Conversion conversion(TypeRef From, TypeRef To);

struct OverloadChoice {
  std::vector<size_t> best; // candidates with the best rank (1: a choice)
};

// Args against each candidate's parameter types; `best` is empty when no
// candidate accepts the arguments, and has several entries when ambiguous.
OverloadChoice
chooseOverload(const std::vector<TypeRef> &Args,
               const std::vector<std::vector<TypeRef>> &Candidates);

} // namespace pcj::types
