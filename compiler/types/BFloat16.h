// The bfloat16 scalar type (cuda.bf16): a Float of 16 bits named
// "bfloat16" -- IEEE float16 has no name.  8 exponent bits (float32's
// range) and 8 significant bits; printed "bfloat16".
#pragma once

#include "types/Type.h"

namespace pcj::types {

TypeRef bfloat16Ty();

inline bool isBFloat16(TypeRef T) { return T->isFloat() && !T->name().empty(); }

} // namespace pcj::types
