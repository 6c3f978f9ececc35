// cuda.libdevice rows (registry/libdevice.def) as C++: the signature a row
// carries in its SData ("f32(f32, f32_out, f32_out)"), read once.  Typing
// and lowering both use it, so no function has a rule of its own.
#pragma once

#include "stdlib/Registry.h"

#include <string>
#include <vector>

namespace pcj::stdlib {

struct LibdeviceParam {
  types::TypeRef type; // int16/int32/int64 (signed), float32/float64
  bool out = false;    // written through a pointer, returned to Python
};

struct LibdeviceSignature {
  std::string name;   // "sincosf": the bitcode function is __nv_sincosf
  types::TypeRef ret; // null for void
  std::vector<LibdeviceParam> params;
  size_t inputs() const;  // the parameters Python passes
  size_t results() const; // ret (unless void) + the out parameters
};

// The signature of a cuda.libdevice.* registry row.
const LibdeviceSignature &libdeviceSignature(const IntrinsicInfo &Info);

} // namespace pcj::stdlib
