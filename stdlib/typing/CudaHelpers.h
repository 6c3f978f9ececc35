// Helpers shared by the typing rules of the CUDA device intrinsics
// (stdlib/typing/{Cuda,Sync,Atomic,Warp,Bit,Fp16}Rules.cpp).
#pragma once

#include "stdlib/typing/RuleHelpers.h"

#include <cctype>
#include <initializer_list>

namespace pcj::stdlib::rules::cudahelp {

// "int32, int64 and float32"
inline std::string typeList(std::initializer_list<TypeRef> Ts) {
  std::string Out;
  size_t K = 0, N = Ts.size();
  for (TypeRef T : Ts) {
    if (K)
      Out += K + 1 == N ? " and " : ", ";
    Out += T->str();
    ++K;
  }
  return Out;
}

inline bool oneOf(TypeRef T, std::initializer_list<TypeRef> Ts) {
  for (TypeRef X : Ts)
    if (X == T)
      return true;
  return false;
}

// The argument at K as the type a weak Python literal takes when nothing
// else decides it (int64 / float64 / bool).
inline TypeRef concrete(const TypingRequest &R, size_t K) {
  TypeRef T = R.args[K].type;
  if (R.args[K].weak && T->isInt())
    return int64Ty();
  if (R.args[K].weak && T->isFloat())
    return float64Ty();
  return T;
}

// An integer argument (a mask, a lane, a count).  The message leads with
// numba-cuda's phrase ("Mask type must be an integer").
inline void intArg(const TypingRequest &R, size_t K, const char *What,
                   bool AllowBool = true) {
  TypeRef T = R.args[K].type;
  if (T->isIntegral() && (AllowBool || T->kind() != Kind::Bool))
    return;
  std::string Noun = What;
  Noun[0] =
      static_cast<char>(std::toupper(static_cast<unsigned char>(Noun[0])));
  R.fail(name(R) + "(): " + Noun + " type must be an integer, not " + T->str());
}

// A lane mask: an integer, not a bool (numba-cuda refuses one too).
inline void maskArg(const TypingRequest &R, size_t K) {
  intArg(R, K, "mask", false);
}

// A number or bool used as a predicate (syncthreads_count, selp).
inline void predicateArg(const TypingRequest &R, size_t K) {
  TypeRef T = R.args[K].type;
  if (!T->isNumeric() || T->isComplex())
    R.fail(name(R) + "() predicate must be a bool or a number, not " +
           T->str());
}

// A warp vote's predicate: an integer or bool, as numba-cuda types it (a
// float is refused there too).
inline void votePredicateArg(const TypingRequest &R, size_t K) {
  TypeRef T = R.args[K].type;
  if (!T->isIntegral())
    R.fail(name(R) + "(): Predicate must be an integer or boolean, not " +
               T->str(),
           "compare a float with 0 first (x != 0)");
}

// A dtype argument: np.float32, a package type name, or a string constant
// naming a scalar type ("float32").
inline TypeRef dtypeArg(const TypingRequest &R, int K) {
  TypeRef T = R.args[K].type;
  if (T->kind() == Kind::DType)
    return T->inner();
  bc::ConstValue C;
  if (T->kind() == Kind::Str && R.args[K].constant(C))
    if (TypeRef S = scalarFromName(C.text))
      return S;
  R.fail(name(R) + "() dtype must be a scalar type such as np.float32, not " +
             T->str(),
         "pass a NumPy scalar type (np.float32), np.dtype('float32') or a "
         "type name string ('float32')");
}

} // namespace pcj::stdlib::rules::cudahelp
