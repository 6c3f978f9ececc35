// Lowering rules named in Registry.def's lowering column.
#pragma once

#include "lower/LowerContext.h"
#include "stdlib/Registry.h"

namespace pcj::stdlib {

struct LoweringRequest {
  lower::LowerContext &cx;
  const ir::Instr &instr;
  const IntrinsicInfo &info;
  // Arguments after InsertCasts (for Attr intrinsics: the object), with
  // their types; compile-time-only arguments have a null value.
  std::vector<llvm::Value *> args;
  std::vector<types::TypeRef> argTypes;
  std::vector<const ir::Instr *> argInstrs;
};

using LoweringFn = llvm::Value *(*)(const LoweringRequest &);

// The lowering rule of a registry entry.
LoweringFn loweringRule(IntrinsicId Id);

namespace lowering {
// A NumPy ufunc called on arrays (isArrayUfuncCall): a loop applying the
// row's scalar rule to every element of the output (UfuncRules.cpp).
llvm::Value *lowerArrayUfunc(const LoweringRequest &R);
} // namespace lowering

namespace lowering {
#define PCJ_INTRINSIC(Id, Key, Kind, Typing, Lowering, IData, SData, ...)      \
  llvm::Value *Lowering(const LoweringRequest &R);
#include "stdlib/Registry.def"
#undef PCJ_INTRINSIC
} // namespace lowering

} // namespace pcj::stdlib
