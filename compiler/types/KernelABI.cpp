// Kernel parameter flattening (see KernelABI.h).
#include "types/KernelABI.h"

#include "support/Diagnostics.h"

namespace pcj::types {

namespace {

unsigned roundUp(unsigned X, unsigned A) { return (X + A - 1) / A * A; }

// Appends the slots of a value of type T at byte offset Base of parameter
// Param (Base is ignored for parameters of their own: each slot is then a
// parameter).
void flattenOne(TypeRef T, unsigned Arg, std::vector<unsigned> &Path,
                bool InAggregate, unsigned Base, unsigned &Param,
                std::vector<AbiSlot> &Out) {
  auto Add = [&](AbiSlot S, unsigned Offset) {
    S.arg = Arg;
    S.path = Path;
    S.param = InAggregate ? Param : Param++;
    S.offset = InAggregate ? Offset : 0;
    Out.push_back(std::move(S));
  };
  if (T->kind() == Kind::EnumMember) { // passed as its value
    flattenOne(T->inner(), Arg, Path, InAggregate, Base, Param, Out);
    return;
  }
  if (T->isTuple()) {
    unsigned Off = 0;
    for (unsigned K = 0; K < T->elems().size(); ++K) {
      unsigned Size, Align;
      abiSizeAlign(T->elems()[K], Size, Align);
      Off = roundUp(Off, Align);
      Path.push_back(K);
      flattenOne(T->elems()[K], Arg, Path, InAggregate, Base + Off, Param, Out);
      Path.pop_back();
      Off += Size;
    }
    return;
  }
  if (T->isArray()) {
    Add({AbiSlot::Kind::Data, 0, {}, 0, T, 8, 8}, Base);
    for (unsigned D = 0; D < T->ndim(); ++D)
      Add({AbiSlot::Kind::Shape, 0, {}, D, int64Ty(), 8, 8}, Base + 8 + 8 * D);
    for (unsigned D = 0; D < T->ndim(); ++D)
      Add({AbiSlot::Kind::Stride, 0, {}, D, int64Ty(), 8, 8},
          Base + 8 + 8 * (T->ndim() + D));
    return;
  }
  // A pointer: its address, 8 bytes; a datetime64/timedelta64: its count.
  if (T->isBool() || T->isInt() || T->isFloat() || T->isComplex() ||
      T->kind() == Kind::Pointer || T->kind() == Kind::Datetime ||
      T->kind() == Kind::Timedelta) {
    unsigned Size, Align;
    abiSizeAlign(T, Size, Align);
    Add({AbiSlot::Kind::Scalar, 0, {}, 0, T, Size, Align}, Base);
    return;
  }
  if (T->kind() == Kind::None)
    return; // None takes no space
  PCJ_ASSERT(false, "type " + T->str() + " cannot be a kernel parameter");
}

size_t countSlots(TypeRef T) {
  if (T->kind() == Kind::EnumMember)
    return countSlots(T->inner());
  if (T->isTuple()) {
    size_t N = 0;
    for (TypeRef E : T->elems())
      N += countSlots(E);
    return N;
  }
  if (T->isArray())
    return 1 + 2 * T->ndim();
  return T->kind() == Kind::None ? 0 : 1;
}

} // namespace

void abiSizeAlign(TypeRef T, unsigned &Size, unsigned &Align) {
  if (T->kind() == Kind::EnumMember) {
    abiSizeAlign(T->inner(), Size, Align);
    return;
  }
  if (T->isTuple()) {
    unsigned Off = 0, A = 1;
    for (TypeRef E : T->elems()) {
      unsigned ES, EA;
      abiSizeAlign(E, ES, EA);
      Off = roundUp(Off, EA) + ES;
      A = std::max(A, EA);
    }
    Size = roundUp(Off, A);
    Align = A;
    return;
  }
  if (T->isArray()) {
    Size = 8 + 16 * T->ndim();
    Align = 8;
    return;
  }
  if (T->kind() == Kind::None) {
    Size = 0;
    Align = 1;
    return;
  }
  Size = T->byteSize();
  // complex: two floats; a string: its characters
  Align = scalarAlign(T);
  PCJ_ASSERT(Size > 0, "type " + T->str() + " has no ABI size");
}

std::vector<TypeRef> kernelArgTypes(std::vector<TypeRef> Args) {
  for (TypeRef &T : Args)
    if (T->kind() == Kind::Record)
      T = arrayTy(T, 0, Layout::C);
  return Args;
}

std::vector<AbiSlot> flattenKernelParams(const std::vector<TypeRef> &Args) {
  std::vector<AbiSlot> Out;
  std::vector<unsigned> Path;
  unsigned Param = 0;
  for (unsigned A = 0; A < Args.size(); ++A) {
    bool Aggregate =
        Args[A]->isTuple() && countSlots(Args[A]) > kMaxFlatTupleSlots;
    flattenOne(Args[A], A, Path, Aggregate, 0, Param, Out);
    if (Aggregate)
      ++Param;
  }
  return Out;
}

std::vector<AbiParam> kernelParams(const std::vector<AbiSlot> &Slots) {
  std::vector<AbiParam> Out;
  for (unsigned K = 0; K < Slots.size(); ++K) {
    const AbiSlot &S = Slots[K];
    if (Out.empty() || S.param != Slots[K - 1].param) {
      PCJ_ASSERT(S.param == Out.size(), "kernel ABI slots out of order");
      AbiParam P;
      P.firstSlot = K;
      P.numSlots = 0;
      P.size = 0;
      P.align = 1;
      Out.push_back(P);
    }
    AbiParam &P = Out.back();
    ++P.numSlots;
    P.size = std::max(P.size, S.offset + S.size);
    P.align = std::max(P.align, S.align);
  }
  for (AbiParam &P : Out) {
    P.aggregate = P.numSlots > 1 || Slots[P.firstSlot].offset != 0;
    P.size = roundUp(P.size, P.align);
  }
  return Out;
}

size_t layoutParamBuffer(const std::vector<AbiSlot> &Slots,
                         std::vector<size_t> &Offsets) {
  size_t Off = 0;
  Offsets.clear();
  for (const AbiParam &P : kernelParams(Slots)) {
    Off = (Off + P.align - 1) / P.align * P.align;
    for (unsigned K = P.firstSlot; K < P.firstSlot + P.numSlots; ++K)
      Offsets.push_back(Off + Slots[K].offset);
    Off += P.size;
  }
  return Off;
}

} // namespace pcj::types
