// Lowering rules for cuda.fp8 (registry/fp8.def): numba-cuda's cvt_*
// functions on the integer conversions of compiler/lower/Fp8.cpp, the same
// IR on every target.  saturation_t: 1 (SATFINITE) saturates, anything else
// does not; fp8_interpretation_t: 0 is e4m3, anything else e5m2 (as
// cuda_fp8.h's software path); the x2 forms convert .x into the low byte and
// .y into the high byte.
//
//   before:  cuda.fp8.cvt_e8m0_to_bf16raw(code)
//   after:   { select(code == 0xff, 0x7fff, select(code == 0, 0x40, code << 7))
//   }
#include "stdlib/lowering/CudaHelpers.h"

#include "lower/Fp8.h"
#include "support/Diagnostics.h"

#include <sstream>

namespace pcj::stdlib {
namespace rules {
int fp8RoundingConstant(const ArgInfo &A); // typing/Fp8Rules.cpp
}

namespace lowering {

llvm::Value *lowerFp8(const LoweringRequest &R) {
  auto &B = R.cx.b;
  const std::vector<llvm::Value *> &A = R.args;
  std::istringstream Words(R.info.sdata);
  std::string From, To;
  Words >> From >> To;
  if (To == "bf16raw") {
    llvm::Value *Raw = llvm::UndefValue::get(R.cx.valueType(R.instr.type));
    return B.CreateInsertValue(Raw, lower::e8m0ToBf16Bits(B, A[0]), {0});
  }
  llvm::Value *Sat = B.CreateICmpEQ(A[1], B.getInt32(1));
  auto Convert = [&](llvm::Value *X) -> llvm::Value * {
    if (To == "fp8")
      return lower::fp8FromFloat(B, X, Sat,
                                 B.CreateICmpNE(A[2], B.getInt32(0)));
    int Mode = rules::fp8RoundingConstant(
        ArgInfo{R.argTypes[2], false, R.argInstrs[2]});
    PCJ_ASSERT(Mode > 0, "the e8m0 rounding is checked in typing");
    return lower::e8m0FromFloat(B, X, Sat, /*RoundUp=*/Mode == 2);
  };
  if (From == "bf16raw") {
    llvm::Value *Bits =
        B.CreateZExt(B.CreateExtractValue(A[0], {0}), B.getInt32Ty());
    return Convert(B.CreateBitCast(B.CreateShl(Bits, 16), B.getFloatTy()));
  }
  if (From == "float32x2" || From == "float64x2") {
    llvm::Value *Lo =
        B.CreateZExt(Convert(B.CreateExtractValue(A[0], {0})), B.getInt16Ty());
    llvm::Value *Hi =
        B.CreateZExt(Convert(B.CreateExtractValue(A[0], {1})), B.getInt16Ty());
    return B.CreateOr(B.CreateShl(Hi, 8), Lo);
  }
  return Convert(A[0]);
}

llvm::Value *lowerFp8Vector(const LoweringRequest &R) {
  auto &B = R.cx.b;
  types::TypeRef V = R.instr.type;
  llvm::Value *Out = llvm::Constant::getNullValue(R.cx.valueType(V));
  if (R.args.empty())
    return Out;
  types::TypeRef From = R.argTypes[0];
  for (unsigned K = 0; K < V->elems().size(); ++K)
    Out = B.CreateInsertValue(Out,
                              R.cx.cast(B.CreateExtractValue(R.args[0], {K}),
                                        From->inner(), V->inner()),
                              {K});
  return Out;
}

llvm::Value *lowerVectorStorage(const LoweringRequest &R) {
  auto &B = R.cx.b;
  types::TypeRef V = R.argTypes[0];
  unsigned Lanes = unsigned(V->elems().size());
  llvm::Type *Packed = B.getIntNTy(8 * Lanes);
  llvm::Value *Out = llvm::ConstantInt::get(Packed, 0);
  for (unsigned K = 0; K < Lanes; ++K) {
    llvm::Value *Code =
        B.CreateZExt(B.CreateExtractValue(R.args[0], {K}), Packed);
    Out = B.CreateOr(Out, B.CreateShl(Code, 8 * K));
  }
  return Out;
}

} // namespace lowering
} // namespace pcj::stdlib
