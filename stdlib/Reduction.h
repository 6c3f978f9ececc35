// NumPy reductions over a whole array (stdlib/registry/reduction.def): the
// operation a row's IData names and the types its typing and lowering rules
// share (stdlib/{typing,lowering}/ReductionRules.cpp).
//   np.sum(a: int8[:, :])  ->  Sum, accumulated and returned as int64
//   a.mean() of float32[:] ->  Mean, float32
#pragma once

#include "types/Type.h"

namespace pcj::stdlib {

enum class ReduceOp : int {
  Sum,
  Prod,
  All,
  Any,
  Min,
  Max,
  Mean,
  Var,
  Std,
  NanSum,
  NanProd,
  NanMin,
  NanMax,
  NanMean,
  CountNonzero,
};

// NumPy's name of the operation ("sum", "nanmin"), for messages.
const char *reduceOpName(ReduceOp Op);

// The type a reduction of elements of type DType computes in and returns
// (NumPy's): sums and products of bool and of integers narrower than 64
// bits give int64 (uint64 for unsigned ones); mean, var and std of bool
// and integers give float64, var and std of complex numbers their part's
// float; min/max keep the dtype; all/any give bool, count_nonzero int64.
// nullptr when the dtype is not one the operation takes.
types::TypeRef reductionType(ReduceOp Op, types::TypeRef DType);

} // namespace pcj::stdlib
