// Lowering rules for array attributes (registry/array.def).  They emit LLVM IR
// through LowerContext and reach target differences only via its TargetHooks.
#include "stdlib/lowering/Rules.h"

#include "support/Diagnostics.h"

#include <llvm/IR/Intrinsics.h>

namespace pcj::stdlib::lowering {

using namespace types;
using lower::SReg;

llvm::Value *lowerArrayAttr(const LoweringRequest &R) {
  auto &Cx = R.cx;
  TypeRef T = R.argTypes[0];
  llvm::Value *A = R.args[0];
  switch (R.info.idata) {
  case 0:
  case 1: {
    llvm::Value *Tup = llvm::UndefValue::get(Cx.valueType(R.instr.type));
    for (unsigned D = 0; D < T->ndim(); ++D)
      Tup = Cx.b.CreateInsertValue(
          Tup, R.info.idata == 0 ? Cx.arrayShape(A, D) : Cx.arrayStride(A, D),
          {D});
    return Tup;
  }
  case 2: {
    llvm::Value *N = Cx.b.getInt64(1);
    for (unsigned D = 0; D < T->ndim(); ++D)
      N = Cx.b.CreateMul(N, Cx.arrayShape(A, D));
    return N;
  }
  default:
    return Cx.b.getInt64(T->ndim());
  }
}

llvm::Value *lowerArrayReshape(const LoweringRequest &R) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  TypeRef From = R.argTypes[0], To = R.instr.type;
  llvm::Value *A = R.args[0];
  std::vector<llvm::Value *> Want;
  if (R.args.size() == 2 && R.argTypes[1]->isTuple()) {
    for (unsigned K = 0; K < To->ndim(); ++K)
      Want.push_back(Cx.cast(B.CreateExtractValue(R.args[1], {K}),
                             R.argTypes[1]->elems()[K], int64Ty()));
  } else {
    for (size_t K = 1; K < R.args.size(); ++K)
      Want.push_back(Cx.cast(R.args[K], R.argTypes[K], int64Ty()));
  }
  llvm::Value *Size = B.getInt64(1);
  for (unsigned D = 0; D < From->ndim(); ++D)
    Size = B.CreateMul(Size, Cx.arrayShape(A, D));
  // One extent may be -1: the size divided by the others' product.
  llvm::Value *Known = B.getInt64(1), *Unknowns = B.getInt64(0),
              *Bad = B.getFalse();
  for (llvm::Value *W : Want) {
    llvm::Value *Minus = B.CreateICmpEQ(W, B.getInt64(-1));
    Unknowns = B.CreateAdd(Unknowns, B.CreateZExt(Minus, B.getInt64Ty()));
    Known = B.CreateMul(Known, B.CreateSelect(Minus, B.getInt64(1), W));
    Bad = B.CreateOr(Bad, B.CreateICmpSLT(W, B.getInt64(-1)));
  }
  llvm::Value *SafeKnown = B.CreateSelect(B.CreateICmpEQ(Known, B.getInt64(0)),
                                          B.getInt64(1), Known);
  llvm::Value *Inferred = B.CreateSDiv(Size, SafeKnown);
  Bad = B.CreateOr(Bad, B.CreateICmpUGT(Unknowns, B.getInt64(1)));
  llvm::Value *One = B.CreateICmpEQ(Unknowns, B.getInt64(1));
  llvm::Value *Total = B.CreateSelect(One, B.CreateMul(Known, Inferred), Known);
  Bad = B.CreateOr(Bad, B.CreateICmpNE(Total, Size));
  Cx.raiseIf(
      &R.instr, Bad, lower::TargetHooks::RaisedError::ValueError,
      "cannot reshape the array into the requested shape (sizes differ, or "
      "more than one -1)");
  std::vector<llvm::Value *> Shape(To->ndim()), Strides(To->ndim());
  for (unsigned D = 0; D < To->ndim(); ++D)
    Shape[D] = B.CreateSelect(B.CreateICmpEQ(Want[D], B.getInt64(-1)), Inferred,
                              Want[D]);
  llvm::Value *Stride = B.getInt64(int64_t(From->dtype()->byteSize()));
  for (unsigned D = To->ndim(); D-- > 0;) {
    Strides[D] = Stride;
    Stride = B.CreateMul(Stride, Shape[D]);
  }
  return Cx.makeArray(To, Cx.arrayData(A), Shape, Strides);
}

// a.real / a.imag: a complex array's parts in place (the imaginary part
// `itemsize / 2` bytes on), same shape and strides; a real array's .real is
// itself.
llvm::Value *lowerArrayRealImag(const LoweringRequest &R) {
  auto &Cx = R.cx;
  TypeRef T = R.argTypes[0];
  llvm::Value *A = R.args[0];
  if (!T->dtype()->isComplex())
    return A;
  std::vector<llvm::Value *> Shape, Strides;
  for (unsigned D = 0; D < T->ndim(); ++D) {
    Shape.push_back(Cx.arrayShape(A, D));
    Strides.push_back(Cx.arrayStride(A, D));
  }
  llvm::Value *Data = Cx.arrayData(A);
  if (R.info.idata)
    Data = Cx.b.CreateInBoundsGEP(Cx.b.getInt8Ty(), Data,
                                  Cx.b.getInt64(T->dtype()->byteSize() / 2));
  return Cx.makeArray(R.instr.type, Data, Shape, Strides);
}

// a.view(dtype): NumPy's rule for another item size: the last axis must be
// contiguous (or of extent 1) and hold a whole number of new items; it is
// rescaled.  The data and the other strides must suit the new type's
// alignment (a misaligned load would fault on the GPU).
llvm::Value *lowerArrayView(const LoweringRequest &R) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  TypeRef From = R.argTypes[0], To = R.instr.type;
  llvm::Value *A = R.args[0];
  unsigned N = From->ndim();
  uint64_t Old = From->dtype()->byteSize(), New = To->dtype()->byteSize();
  std::vector<llvm::Value *> Shape, Strides;
  for (unsigned D = 0; D < N; ++D) {
    Shape.push_back(Cx.arrayShape(A, D));
    Strides.push_back(Cx.arrayStride(A, D));
  }
  if (Old != New && N > 0) {
    llvm::Value *Bytes = B.CreateMul(Shape[N - 1], B.getInt64(Old));
    llvm::Value *Bad = B.CreateOr(
        B.CreateAnd(B.CreateICmpUGT(Shape[N - 1], B.getInt64(1)),
                    B.CreateICmpNE(Strides[N - 1], B.getInt64(Old))),
        B.CreateICmpNE(B.CreateURem(Bytes, B.getInt64(New)), B.getInt64(0)));
    Shape[N - 1] = B.CreateUDiv(Bytes, B.getInt64(New));
    Strides[N - 1] = B.getInt64(New);
    Cx.raiseIf(&R.instr, Bad, lower::TargetHooks::RaisedError::ValueError,
               "view(): the last axis must be contiguous and hold a whole "
               "number of " +
                   To->dtype()->str() + " items");
  }
  uint64_t Align = scalarAlign(To->dtype());
  llvm::Value *Mask = B.getInt64(Align - 1);
  llvm::Value *Misaligned =
      B.CreateAnd(B.CreatePtrToInt(Cx.arrayData(A), B.getInt64Ty()), Mask);
  for (unsigned D = 0; D + 1 < N; ++D)
    Misaligned = B.CreateOr(
        Misaligned,
        B.CreateSelect(B.CreateICmpUGT(Shape[D], B.getInt64(1)),
                       B.CreateAnd(Strides[D], Mask), B.getInt64(0)));
  if (Align > scalarAlign(From->dtype()))
    Cx.raiseIf(&R.instr, B.CreateICmpNE(Misaligned, B.getInt64(0)),
               lower::TargetHooks::RaisedError::ValueError,
               "view(): the array's address or strides are not aligned for " +
                   To->dtype()->str());
  return Cx.makeArray(To, Cx.arrayData(A), Shape, Strides);
}

// carray / farray: the pointer as the data, the shape as given, the
// strides of a contiguous array in that order.
llvm::Value *lowerPointerArray(const LoweringRequest &R) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  TypeRef To = R.instr.type;
  const int S = 1; // typePointerArray: (ptr, shape[, dtype])
  std::vector<llvm::Value *> Shape(To->ndim()), Strides(To->ndim());
  for (unsigned D = 0; D < To->ndim(); ++D)
    Shape[D] = R.argTypes[S]->isTuple()
                   ? Cx.cast(B.CreateExtractValue(R.args[S], {D}),
                             R.argTypes[S]->elems()[D], int64Ty())
                   : Cx.cast(R.args[S], R.argTypes[S], int64Ty());
  llvm::Value *Stride = B.getInt64(int64_t(To->dtype()->byteSize()));
  bool C = R.info.idata == 0;
  for (unsigned K = 0; K < To->ndim(); ++K) {
    unsigned D = C ? To->ndim() - 1 - K : K;
    Strides[D] = Stride;
    Stride = B.CreateMul(Stride, Shape[D]);
  }
  return Cx.makeArray(To, R.args[0], Shape, Strides);
}

// ffi.from_buffer(a): the array's data address, as a generic pointer.
llvm::Value *lowerFromBuffer(const LoweringRequest &R) {
  llvm::Value *Data = R.cx.arrayData(R.args[0]);
  if (Data->getType()->getPointerAddressSpace() != 0)
    Data = R.cx.b.CreateAddrSpaceCast(Data, R.cx.b.getPtrTy(0));
  return Data;
}

} // namespace pcj::stdlib::lowering
