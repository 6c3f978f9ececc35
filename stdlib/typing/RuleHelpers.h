// Helpers shared by the typing rules (stdlib/typing/*Rules.cpp).
#pragma once

#include "stdlib/typing/Rules.h"

#include "types/Promotion.h"

namespace pcj::stdlib::rules {

using namespace types;

namespace detail {

inline std::string name(const TypingRequest &R) { return R.info.key; }

inline void expectArgs(const TypingRequest &R, size_t Min, size_t Max) {
  size_t N = R.args.size();
  if (N >= Min && N <= Max)
    return;
  std::string Want = Min == Max
                         ? std::to_string(Min)
                         : std::to_string(Min) + " to " + std::to_string(Max);
  R.fail(name(R) + "() takes " + Want + " argument" + (Max == 1 ? "" : "s") +
         ", got " + std::to_string(N));
}

inline void noKeywords(const TypingRequest &R) {
  if (!R.kwnames.empty())
    R.fail(name(R) + "() takes no keyword arguments");
}

inline TypeRef numericArg(const TypingRequest &R, size_t K) {
  TypeRef T = R.args[K].type;
  if (!T->isNumeric())
    R.fail(name(R) + "() argument " + std::to_string(K + 1) +
           " must be a number, not " + T->str());
  return T;
}

// Shape argument of shared/local arrays: a positive int or tuple of them,
// known at compile time.
inline std::vector<int64_t> constShape(const TypingRequest &R, int Idx) {
  bc::ConstValue V;
  if (Idx < 0 || !R.args[Idx].constant(V))
    R.fail(
        name(R) + "() needs a shape known at compile time",
        "use an integer literal, a module-level constant, or a tuple of them");
  std::vector<int64_t> Dims;
  auto Add = [&](const bc::ConstValue &D) {
    if (!D.isSmallInt() || D.i < 0)
      R.fail(name(R) + "() shape entries must be non-negative integers, got " +
             D.repr());
    Dims.push_back(D.i);
  };
  if (V.kind == bc::ConstValue::Kind::Tuple) {
    for (const auto &E : V.elems)
      Add(E);
  } else {
    Add(V);
  }
  if (Dims.empty() || Dims.size() > 3 + 5)
    R.fail(name(R) + "() shape must have 1 to 8 dimensions");
  return Dims;
}

} // namespace detail

using namespace detail;

} // namespace pcj::stdlib::rules
