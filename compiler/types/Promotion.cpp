// NEP 50 promotion (see Promotion.h).
#include "types/Promotion.h"

#include "types/BFloat16.h"

#include <algorithm>

namespace pcj::types {

// Smallest float that holds every value of an integer of `Bits` bits exactly
// enough for NumPy's "safe" casting table.
static unsigned floatBitsForInt(unsigned Bits) {
  if (Bits <= 8)
    return 16;
  if (Bits <= 16)
    return 32;
  return 64;
}

static TypeRef promoteStrong(TypeRef A, TypeRef B) {
  if (A == B)
    return A->isBool() ? A : A;
  // Complex dominates.
  if (A->isComplex() || B->isComplex()) {
    unsigned Bits = 64;
    for (TypeRef T : {A, B}) {
      if (T->isComplex())
        Bits = std::max(Bits, T->bits());
      else if (T->isFloat())
        Bits = std::max(Bits, 2 * T->bits() < 64 ? 64u : 2 * T->bits());
      else if (T->isInt())
        Bits = std::max(Bits, 2 * floatBitsForInt(T->bits()) < 64
                                  ? 64u
                                  : 2 * floatBitsForInt(T->bits()));
    }
    return complexTy(Bits > 128 ? 128 : Bits);
  }
  if (A->isFloat() || B->isFloat()) {
    unsigned Bits = 16;
    for (TypeRef T : {A, B}) {
      if (T->isFloat())
        Bits = std::max(Bits, T->bits());
      else if (T->isInt())
        Bits = std::max(Bits, floatBitsForInt(T->bits()));
    }
    // bfloat16 holds bool, (u)int8 and itself exactly; with float16 (neither
    // holds the other) the result is float32, as ml_dtypes promotes.
    bool BF = isBFloat16(A) || isBFloat16(B);
    if (BF && Bits == 16)
      return (A->isFloat() && B->isFloat() && A != B) ? floatTy(32)
                                                      : bfloat16Ty();
    return floatTy(Bits);
  }
  // Integers (bool is the narrowest integer).
  if (A->isBool())
    return B->isBool() ? A : B;
  if (B->isBool())
    return A;
  if (A->isSigned() == B->isSigned())
    return intTy(std::max(A->bits(), B->bits()), A->isSigned());
  TypeRef S = A->isSigned() ? A : B;
  TypeRef U = A->isSigned() ? B : A;
  if (S->bits() > U->bits())
    return S;
  if (U->bits() < 64)
    return intTy(2 * U->bits(), true);
  return floatTy(64); // uint64 with any signed int: NumPy gives float64
}

// Category order for weak/strong mixing: bool < int < float < complex.
static int category(TypeRef T) {
  if (T->isBool())
    return 0;
  if (T->isInt())
    return 1;
  if (T->isFloat())
    return 2;
  return 3;
}

TypeRef promote(Operand A, Operand B, bool *ResultWeak) {
  if (!A.type || !B.type || !A.type->isNumeric() || !B.type->isNumeric())
    return nullptr;
  if (ResultWeak)
    *ResultWeak = A.weak && B.weak;
  // Two Python ints: a uint64 one (a value in [2**63, 2**64)) keeps the
  // result an integer (uint64 arithmetic wraps like int64's would),
  // rather than NumPy's float64 for uint64 with int64.
  if (A.weak && B.weak && A.type->isInt() && B.type->isInt() &&
      A.type->bits() == 64 && B.type->bits() == 64)
    return A.type->isSigned() ? B.type : A.type;
  if (A.weak == B.weak)
    return promoteStrong(A.type, B.type);
  Operand W = A.weak ? A : B; // the Python literal
  Operand S = A.weak ? B : A; // the typed value
  // A weak value of the same or lower category takes the strong type.
  if (category(W.type) <= category(S.type))
    return S.type;
  // A weak value of a higher category: its kind at the default precision,
  // widened to hold the strong operand (int32 * 2.5 -> float64,
  // float32 * 1j -> complex64).
  if (W.type->isFloat()) // strong is bool/int
    return floatTy(64);
  if (W.type->isComplex())
    return S.type->isFloat() ? complexTy(2 * std::max(32u, S.type->bits()))
                             : complexTy(128);
  return W.type; // weak int with strong bool
}

TypeRef unify(Operand A, Operand B, bool *ResultWeak) {
  if (A.type == B.type) {
    if (ResultWeak)
      *ResultWeak = A.weak && B.weak;
    return A.type;
  }
  return promote(A, B, ResultWeak);
}

bool canCastSafely(TypeRef From, TypeRef To) {
  if (From == To)
    return true;
  if (!From->isNumeric() || !To->isNumeric())
    return false;
  return promoteStrong(From, To) == To;
}

} // namespace pcj::types
