// The lowering column of Registry.def.
#include "stdlib/lowering/Rules.h"

namespace pcj::stdlib {

LoweringFn loweringRule(IntrinsicId Id) {
  static const LoweringFn Table[] = {
#define PCJ_INTRINSIC(Id, Key, Kind, Typing, Lowering, IData, SData, ...)      \
  &lowering::Lowering,
#include "stdlib/Registry.def"
#undef PCJ_INTRINSIC
  };
  static_assert(sizeof(Table) / sizeof(Table[0]) == size_t(IntrinsicId::Count));
  return Table[size_t(Id)];
}

} // namespace pcj::stdlib
