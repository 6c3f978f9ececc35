// Choosing among explicit signatures (see Overloads.h).
#include "types/Overloads.h"

#include "types/Promotion.h"

#include <algorithm>
#include <array>

namespace pcj::types {

namespace {

// Whether every value of integer type I is exactly a float of `Bits` bits
// (its significand holds the integer's magnitude bits).
bool intFitsFloat(TypeRef I, unsigned Bits) {
  unsigned Significand = Bits == 16 ? 11 : Bits == 32 ? 24 : 53;
  return I->bits() - (I->isSigned() ? 1 : 0) <= Significand;
}

Conversion numeric(TypeRef From, TypeRef To) {
  if (From->isComplex() && !To->isComplex())
    return Conversion::None;
  if (From->isBool()) // every number holds False and True
    return Conversion::Safe;
  if (To->isBool())
    return Conversion::Unsafe;
  bool SameKind = From->kind() == To->kind() &&
                  (!From->isInt() || From->isSigned() == To->isSigned());
  if (SameKind)
    return To->bits() > From->bits() ? Conversion::Promote : Conversion::Unsafe;
  if (From->isInt() && !To->isInt()) { // to a float, or a complex's parts
    unsigned Bits = To->isComplex() ? To->bits() / 2 : To->bits();
    return intFitsFloat(From, Bits) ? Conversion::Safe : Conversion::Unsafe;
  }
  return canCastSafely(From, To) ? Conversion::Safe : Conversion::Unsafe;
}

} // namespace

Conversion conversion(TypeRef From, TypeRef To) {
  if (From == To)
    return Conversion::Exact;
  // OptionalType(T): None or a T become one; one converts as its T does,
  // unsafely (None raises TypeError at run time).
  if (To->kind() == Kind::Optional)
    return From == noneTy()
               ? Conversion::Safe
               : conversion(From->kind() == Kind::Optional ? From->inner()
                                                           : From,
                            To->inner());
  if (From->kind() == Kind::Optional)
    return conversion(From->inner(), To) == Conversion::None
               ? Conversion::None
               : Conversion::Unsafe;
  if (From->isNumeric() && To->isNumeric())
    return numeric(From, To);
  if (From->isArray() && To->isArray()) {
    bool Fits = From->dtype() == To->dtype() && From->ndim() == To->ndim() &&
                From->addrSpace() == To->addrSpace() &&
                (To->layout() == Layout::A || To->layout() == From->layout());
    return Fits ? Conversion::Safe : Conversion::None;
  }
  if (From->isTuple() && To->isTuple() &&
      From->elems().size() == To->elems().size()) {
    // A tuple converts as its least safe element does.
    Conversion Worst = Conversion::Exact;
    for (size_t K = 0; K < From->elems().size(); ++K)
      Worst = std::max(Worst, conversion(From->elems()[K], To->elems()[K]));
    return Worst;
  }
  return Conversion::None;
}

OverloadChoice
chooseOverload(const std::vector<TypeRef> &Args,
               const std::vector<std::vector<TypeRef>> &Candidates) {
  using Rank = std::array<size_t, 3>; // unsafe, safe, promote
  OverloadChoice Out;
  Rank Best{};
  for (size_t C = 0; C < Candidates.size(); ++C) {
    const std::vector<TypeRef> &P = Candidates[C];
    if (P.size() != Args.size())
      continue;
    Rank R{};
    bool Ok = true;
    for (size_t K = 0; K < Args.size() && Ok; ++K) {
      switch (conversion(Args[K], P[K])) {
      case Conversion::Exact:
        break;
      case Conversion::Promote:
        ++R[2];
        break;
      case Conversion::Safe:
        ++R[1];
        break;
      case Conversion::Unsafe:
        ++R[0];
        break;
      case Conversion::None:
        Ok = false;
        break;
      }
    }
    if (!Ok)
      continue;
    if (Out.best.empty() || R < Best) {
      Out.best = {C};
      Best = R;
    } else if (R == Best) {
      Out.best.push_back(C);
    }
  }
  return Out;
}

} // namespace pcj::types
