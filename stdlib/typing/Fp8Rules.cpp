// Typing rules for cuda.fp8 (registry/fp8.def): numba-cuda's cvt_*
// functions.  The value converts to the row's argument type (any int or
// float to float32/float64, as numba-cuda's bindings convert; the
// bfloat16_raw and the x2 vector arguments must have their type); the
// saturation and interpretation operands are ints (saturation_t,
// fp8_interpretation_t members, or run-time values); the rounding of the
// e8m0 forms must be a constant cudaRoundZero or cudaRoundPosInf (the two
// cuda_fp8.h implements).  Results: uint8 codes, uint16 for the x2 forms,
// bfloat16_raw (uint16x1, its bits in .x).
//
//   cvt_float_to_fp8(x, saturation_t.NOSAT, fp8_interpretation_t.E5M2)
//     x: float64 -> float32 (converted), result uint8
#include "stdlib/typing/CudaHelpers.h"
#include "types/Fp8.h"

#include <sstream>

namespace pcj::stdlib::rules {

namespace {

TypeRef fp8ArgType(const std::string &Name) {
  if (Name == "bf16raw")
    return vectorTy(intTy(16, false), 1);
  if (Name == "e8m0")
    return intTy(8, false);
  if (Name == "float32x2" || Name == "float64x2")
    return vectorTy(floatTy(Name == "float32x2" ? 32 : 64), 2);
  return scalarFromName(Name);
}

} // namespace

// cudaRoundMode's values (cuda_runtime_api.h): cudaRoundZero, cudaRoundPosInf.
int fp8RoundingConstant(const ArgInfo &A) {
  bc::ConstValue C;
  if (!A.constant(C) || C.kind != bc::ConstValue::Kind::Int || C.bigInt)
    return -1;
  return C.i == 1 || C.i == 2 ? int(C.i) : -1;
}

TypingResult typeFp8(const TypingRequest &R) {
  size_t N = size_t(R.info.idata);
  expectArgs(R, N, N);
  noKeywords(R);
  std::istringstream Words(R.info.sdata);
  std::string From, To;
  Words >> From >> To;
  TypeRef Arg = fp8ArgType(From), Got = R.args[0].type;
  bool Scalar = Arg->isNumeric();
  if (Scalar ? !(Got->isIntegral() || Got->isFloat()) : Got != Arg)
    R.fail(name(R) + "() converts a " + Arg->str() + ", not a " + Got->str(),
           From == "bf16raw"
               ? "make one with cuda.fp8.cvt_e8m0_to_bf16raw(code)"
               : "");
  TypingResult Out;
  Out.argTypes = {Arg};
  if (To == "bf16raw") {
    Out.type = fp8ArgType("bf16raw");
    return Out;
  }
  Out.type = intTy(Scalar || From == "bf16raw" ? 8 : 16, false);
  cudahelp::intArg(R, 1, "saturation (a saturation_t)");
  Out.argTypes.push_back(int32Ty());
  if (To == "fp8") {
    cudahelp::intArg(R, 2, "interpretation (an fp8_interpretation_t)");
    Out.argTypes.push_back(int32Ty());
    return Out;
  }
  if (fp8RoundingConstant(R.args[2]) < 0)
    R.fail(name(R) +
               "() rounds toward zero or up: its rounding must be the constant "
               "cudaRoundMode.cudaRoundZero or cudaRoundMode.cudaRoundPosInf",
           "cuda_fp8.h implements only these two");
  Out.argTypes.push_back(nullptr);
  return Out;
}

// cuda.fp8.fp8x2_e4m3() ... fp8x4_e8m0(v): every code 0, or a
// float32/float64 vector of as many lanes, each converted as
// fp8_e4m3(x) converts a float (round to nearest even, saturate; e8m0:
// up to a power of two), which is what cuda_fp8.h's constructors do.
TypingResult typeFp8Vector(const TypingRequest &R) {
  noKeywords(R);
  expectArgs(R, 0, 1);
  unsigned Lanes = unsigned(R.info.idata);
  std::string Elem = R.info.sdata;
  TypeRef E = fp8Ty(Elem == "fp8_e4m3"   ? Fp8Format::E4M3
                    : Elem == "fp8_e5m2" ? Fp8Format::E5M2
                                         : Fp8Format::E8M0);
  TypingResult Out{vectorTy(E, Lanes)};
  if (R.args.empty())
    return Out;
  TypeRef T = R.args[0].type;
  std::string N = std::to_string(Lanes);
  if (T->kind() != Kind::Vector || T->elems().size() != Lanes ||
      !T->inner()->isFloat() ||
      (T->inner()->bits() != 32 && T->inner()->bits() != 64))
    R.fail(name(R) + "() takes a float32x" + N + " or float64x" + N +
               " (or nothing), not " + T->str(),
           "build one with cuda.float32x" + N + "(...)");
  Out.argTypes = {nullptr};
  return Out;
}

// v.__x of an fp8 vector: its codes packed into a uint16 (x2) or uint32
// (x4), .x in the low byte, as cuda_fp8.h's __nv_fp8x2_storage_t holds them.
TypingResult typeVectorStorage(const TypingRequest &R) {
  TypeRef V = R.args[0].type;
  if (!isFp8(V->inner()))
    R.fail("'" + V->str() + "' has no attribute '__x'",
           "__x is the packed storage of the fp8x2/fp8x4 types");
  return TypingResult{intTy(unsigned(8 * V->elems().size()), false)};
}

} // namespace pcj::stdlib::rules
