// The operation a cuda.atomic.* registry row's IData names
// (stdlib/registry/cuda.def), shared by its typing and lowering rules
// (stdlib/{typing,lowering}/AtomicRules.cpp).
//   cuda.atomic.nanmax(a, i, v)  ->  IData NanMax
#pragma once

namespace pcj::stdlib::atomicop {

// Unscoped: the rules switch on it by plain names (`case Add:`).
enum AtomicOp {
  Add,
  Sub,
  And,
  Or,
  Xor,
  Inc,
  Dec,
  Exch,
  Max,
  Min,
  NanMax,
  NanMin
};

} // namespace pcj::stdlib::atomicop
