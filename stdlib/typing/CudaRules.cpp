// Typing rules for the cuda namespace (registry/cuda.def).
#include "stdlib/typing/CudaHelpers.h"

#include "support/Diagnostics.h"

namespace pcj::stdlib::rules {

TypingResult typeNone(const TypingRequest &R) {
  return {intrinsicTy(R.info.key)};
}

// threadIdx/blockDim/blockIdx/gridDim.x etc. are int64 (the registers are
// 32-bit and never negative; lowering zero-extends them), so index
// arithmetic built from them cannot wrap at 2**31, as in numba (whose int32
// registers promote to int64 in arithmetic).  LLVM narrows what fits back
// to 32 bits (mul.wide.u32 for blockIdx.x * blockDim.x).
TypingResult typeSpecialReg(const TypingRequest &R) { return {int64Ty()}; }

TypingResult typeGrid(const TypingRequest &R) {
  expectArgs(R, 1, 1);
  noKeywords(R);
  bc::ConstValue V;
  if (!R.args[0].constant(V) || !V.isSmallInt() || V.i < 1 || V.i > 3)
    R.fail(name(R) + "() takes a constant number of dimensions: 1, 2 or 3");
  if (V.i == 1)
    return {int64Ty()};
  return {tupleTy(std::vector<TypeRef>(V.i, int64Ty()))};
}

// The alignment= of a shared or local array: None, or a constant power of
// two that is a multiple of the pointer size (8), as numba-cuda checks.
// Returns 0 for none.
static int64_t arrayAlignmentArg(const TypingRequest &R, int K) {
  bc::ConstValue V;
  if (K < 0)
    return 0;
  if (!R.args[K].constant(V) || (V.kind != bc::ConstValue::Kind::None &&
                                 V.kind != bc::ConstValue::Kind::Int))
    R.fail(name(R) + "() alignment must be a constant integer, not " +
           R.args[K].type->str());
  if (V.kind == bc::ConstValue::Kind::None)
    return 0;
  if (!V.isSmallInt() || V.i <= 0 || (V.i & (V.i - 1)) != 0 || V.i % 8 != 0 ||
      V.i > (int64_t(1) << 16))
    throw CompileError(ErrorKind::Value, R.instr.loc,
                       "Alignment must be a power of two and a multiple of "
                       "the pointer size (8), at most 65536; got " +
                           V.repr());
  return V.i;
}

// cuda.shared.array(shape, dtype, alignment=None) /
// cuda.local.array(shape, dtype, alignment=None): a C array of constant
// shape, its first element aligned to `alignment` bytes when given (else 16).
// cuda.shared.array(0, dtype) is the launch's dynamic shared memory (1-D,
// sized by the launch's shared-memory bytes).
TypingResult typeLocalArray(const TypingRequest &R) {
  int S = R.find(0, "shape"), D = R.find(1, "dtype"),
      A = R.find(2, "alignment");
  if (S < 0 || D < 0 || R.args.size() != 2u + (A >= 0))
    R.fail(name(R) + "(shape, dtype, alignment=None) takes a shape, a dtype "
                     "and an optional alignment");
  int64_t Align = arrayAlignmentArg(R, A);
  std::vector<int64_t> Dims = constShape(R, S);
  TypeRef DT = cudahelp::dtypeArg(R, D);
  bool Shared = R.info.idata == 1;
  for (int64_t X : Dims) {
    if (X != 0)
      continue;
    if (Align > 16)
      R.fail("alignment= above 16 is not supported for dynamic shared "
             "arrays (cuda.shared.array(0, dtype))",
             "dynamic shared memory starts 16-byte aligned");
    if (!Shared)
      R.fail(name(R) + "() of size 0: local arrays need a positive size");
    if (Dims.size() != 1)
      R.fail("dynamic shared arrays are 1-D: use cuda.shared.array(0, dtype)",
             "a dimension of size 0 asks for the launch's dynamic shared "
             "memory; index it as a 1-D array");
  }
  AddrSpace Space = Shared ? AddrSpace::Shared : AddrSpace::Local;
  return {arrayTy(DT, unsigned(Dims.size()), Layout::C, Space)};
}

// cuda.const.array_like(host_array): the array (a module global or closure
// variable, frozen when the kernel compiles) copied into constant memory.
TypingResult typeConstArrayLike(const TypingRequest &R) {
  expectArgs(R, 1, 1);
  noKeywords(R);
  const ir::Instr *A = R.args[0].instr;
  if (!A || A->ct.kind != ir::CTValue::Kind::ConstArray)
    R.fail(name(R) +
               "() takes a NumPy array that is a module global or a "
               "closure variable, not a value of type " +
               R.args[0].type->str(),
           "the array's contents are copied into constant memory when the "
           "kernel compiles; kernel arguments cannot be made constant");
  // The global is already typed as its constant-memory array (TypeInfer
  // checked its size and shape).
  return {R.args[0].type};
}

// cuda.cg.this_grid(): a compile-time handle whose methods are registry rows.
TypingResult typeThisGrid(const TypingRequest &R) {
  expectArgs(R, 0, 0);
  return {intrinsicTy("cuda.cg.grid_group")};
}

TypingResult typeSyncthreads(const TypingRequest &R) {
  expectArgs(R, 0, 0);
  return {noneTy()};
}

} // namespace pcj::stdlib::rules
