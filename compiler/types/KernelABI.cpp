// Kernel parameter flattening (see KernelABI.h).
#include "types/KernelABI.h"

#include "support/Diagnostics.h"

namespace pcj::types {

static void flattenOne(TypeRef T, unsigned Arg, std::vector<unsigned> &Path,
                       std::vector<AbiSlot> &Out) {
  if (T->isTuple()) {
    for (unsigned K = 0; K < T->elems().size(); ++K) {
      Path.push_back(K);
      flattenOne(T->elems()[K], Arg, Path, Out);
      Path.pop_back();
    }
    return;
  }
  if (T->isArray()) {
    Out.push_back({AbiSlot::Kind::Data, Arg, Path, 0, T, 8, 8});
    for (unsigned D = 0; D < T->ndim(); ++D)
      Out.push_back({AbiSlot::Kind::Shape, Arg, Path, D, int64Ty(), 8, 8});
    for (unsigned D = 0; D < T->ndim(); ++D)
      Out.push_back({AbiSlot::Kind::Stride, Arg, Path, D, int64Ty(), 8, 8});
    return;
  }
  if (T->isBool() || T->isInt() || T->isFloat()) {
    unsigned Size = T->byteSize();
    Out.push_back({AbiSlot::Kind::Scalar, Arg, Path, 0, T, Size, Size});
    return;
  }
  if (T->isComplex()) { // two floats
    unsigned Half = T->bits() / 16;
    Out.push_back({AbiSlot::Kind::Scalar, Arg, Path, 0, T, 2 * Half, Half});
    return;
  }
  if (T->kind() == Kind::None)
    return; // None takes no space
  PCJ_ASSERT(false, "type " + T->str() + " cannot be a kernel parameter");
}

std::vector<AbiSlot> flattenKernelParams(const std::vector<TypeRef> &Args) {
  std::vector<AbiSlot> Out;
  std::vector<unsigned> Path;
  for (unsigned A = 0; A < Args.size(); ++A)
    flattenOne(Args[A], A, Path, Out);
  return Out;
}

size_t layoutParamBuffer(const std::vector<AbiSlot> &Slots,
                         std::vector<size_t> &Offsets) {
  size_t Off = 0;
  Offsets.clear();
  for (const AbiSlot &S : Slots) {
    Off = (Off + S.align - 1) / S.align * S.align;
    Offsets.push_back(Off);
    Off += S.size;
  }
  return Off;
}

} // namespace pcj::types
