// NumPy's fixed-width string dtypes in kernels: Kind::CharSeq, 'S<n>' (n
// bytes, numba's [char x n]) and 'U<n>' (n UCS4 code points, numba's
// [unichr x n]).  A value is its characters, zero-padded; kernels copy
// them, store str/bytes constants into them (truncated or zero-padded, as
// NumPy does) and compare them with == and !=.
#pragma once

#include "types/Type.h"

namespace pcj::types {

// CharBits 8 ('S') or 32 ('U'); Count characters.
TypeRef charSeqTy(unsigned CharBits, uint64_t Count);
inline bool isCharSeq(TypeRef T) { return T->kind() == Kind::CharSeq; }
inline uint64_t charCount(TypeRef T) { return T->shape()[0]; }
// The compile-time type of a bytes constant (b"XYZ"); strTy() is str's.
TypeRef bytesTy();

} // namespace pcj::types
