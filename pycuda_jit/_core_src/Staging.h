// Host (NumPy) array arguments staged through device memory for one launch
// (CUDA backend): copied in before it, copied back after it.
//
//   k[g, b](a, a)       ->  one device copy of a; both parameters point at it
//   k[g, b](a[1:], a[:-1]) -> one copy of a's bytes, two offsets into it
#pragma once

#include "ArgPack.h"

#include <vector>

namespace pcj::py {

// Host arrays staged through device memory for one launch (CUDA backend).
// Arguments whose host bytes overlap (one array passed twice, two views of
// one array, a tuple member that is also a plain argument) share one device
// copy of the union of their ranges, so they alias on the device as on the
// host; each range is copied in once and back once (unless every argument
// in it is read-only).
struct Staging {
  struct Range {
    uint64_t host = 0;
    size_t nbytes = 0;
    uint64_t dev = 0;
    bool writeBack = false;
  };
  std::vector<Range> ranges;
  ~Staging(); // frees the device copies
};

// Allocates and fills the device copies of Vals' host arrays (tuples
// searched) and points each at its copy; nothing on the CPU backend.
void stageIn(std::vector<ArgValue> &Vals, Staging &S);
// After the launch: waits for the device and copies written ranges back.
void stageOut(Staging &S);

} // namespace pcj::py
