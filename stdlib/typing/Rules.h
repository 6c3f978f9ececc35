// Typing rules named in Registry.def's typing column.
#pragma once

#include "stdlib/Registry.h"

namespace pcj::stdlib::rules {

#define PCJ_INTRINSIC(Id, Key, Kind, Typing, Lowering, IData, SData, ...)      \
  TypingResult Typing(const TypingRequest &R);
#include "stdlib/Registry.def"
#undef PCJ_INTRINSIC

} // namespace pcj::stdlib::rules
