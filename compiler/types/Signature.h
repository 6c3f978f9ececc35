// Kernel signatures: "void(float32[:], float32[:], float32)".
//
// Grammar (numba-compatible subset):
//   sig     := [rettype] '(' [arg (',' arg)* [',']] ')'   ("void(int64,)" too)
//   arg     := scalar | scalar '[' dims ']' | '(' arg, ... ')' (tuple)
//            | 'CPointer(' arg ')' | 'voidptr'  (foreign functions only)
//   dims    := dim (',' dim)*     dim := ':' | '::1'
//   '::1' on the last dim -> C layout, on the first -> F, else A.
#pragma once

#include "types/Type.h"

#include <string>
#include <vector>

namespace pcj::types {

struct Signature {
  TypeRef ret = nullptr; // nullptr: not given (infer), void for kernels
  std::vector<TypeRef> args;
  std::string str() const; // "(array(float32, 1d, A), float32) -> none"
};

// Throws CompileError(ErrorKind::Signature) with the offending position.
Signature parseSignature(const std::string &Text);
// One type, e.g. "float32[:, ::1]".
TypeRef parseType(const std::string &Text);

} // namespace pcj::types
