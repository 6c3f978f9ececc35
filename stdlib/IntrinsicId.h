// The registry's ids, keys and property column (Registry.def), without its
// rules: what the IR (an instruction's intrinsic id) and the transforms (the
// facts they may assume about a call) need, free of typing and LLVM.
//
//   PCJ_INTRINSIC(builtin_len, "len", Func, typeLen, lowerLen, 0, "",
//                 NonNegResult | ReadsArgsOnly)
//   -> IntrinsicId::builtin_len, intrinsicKey(..) == "len",
//      hasProp(.., NonNegResult) == true
#pragma once

#include <cstddef>
#include <cstdint>

namespace pcj::stdlib {

enum class IntrinsicId : uint16_t {
#define PCJ_INTRINSIC(Id, Key, Kind, Typing, Lowering, IData, SData, ...) Id,
#include "stdlib/Registry.def"
#undef PCJ_INTRINSIC
  Count
};

// The property column: facts passes may rely on, one bit each.  A row
// names none, one, or several joined by `|`; no name means "nothing
// known" (the safe default: any result, may write its arguments).
namespace props {
enum : uint32_t {
  // Integer results (or every integer of a tuple result) are >= 0.
  NonNegResult = 1u << 0,
  // The result is >= 0 when every argument is.
  NonNegIfAllArgs = 1u << 1,
  // The result is >= 0 when any argument is (max).
  NonNegIfAnyArg = 1u << 2,
  // Reads, never writes, memory its arguments refer to (it may return a
  // view of them: ArrayEffects follows results back to their roots).
  ReadsArgsOnly = 1u << 3,
  // Takes arrays whole (a reduction, np.sum): an np. row that is not a
  // ufunc, so a call with an array argument is never lifted element-wise.
  WholeArray = 1u << 4,
  // Returns a new array on the heap, owned by the calling function
  // (transforms/HeapOwnership decides when its block is freed).
  Allocates = 1u << 5,
};
} // namespace props

namespace detail {
using namespace props;
inline constexpr const char *IntrinsicKeys[] = {
#define PCJ_INTRINSIC(Id, Key, Kind, Typing, Lowering, IData, SData, ...) Key,
#include "stdlib/Registry.def"
#undef PCJ_INTRINSIC
};
inline constexpr uint32_t IntrinsicProps[] = {
#define PCJ_INTRINSIC(Id, Key, Kind, Typing, Lowering, IData, SData, ...)      \
  uint32_t(0u __VA_OPT__(| __VA_ARGS__)),
#include "stdlib/Registry.def"
#undef PCJ_INTRINSIC
};
static_assert(sizeof(IntrinsicKeys) / sizeof(IntrinsicKeys[0]) ==
              size_t(IntrinsicId::Count));
} // namespace detail

// The row's key ("cuda.threadIdx.x", "len", "array.shape").
constexpr const char *intrinsicKey(IntrinsicId Id) {
  return detail::IntrinsicKeys[size_t(Id)];
}
constexpr uint32_t intrinsicProps(IntrinsicId Id) {
  return detail::IntrinsicProps[size_t(Id)];
}
constexpr bool hasProp(IntrinsicId Id, uint32_t Prop) {
  return (intrinsicProps(Id) & Prop) != 0;
}

} // namespace pcj::stdlib
