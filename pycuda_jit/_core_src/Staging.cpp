// Host array staging for one launch: see Staging.h.
#include "Staging.h"

#include "PyExecutor.h"

#include <algorithm>

namespace pcj::py {

namespace {
// The host arrays of Vals, tuples searched.
void collectStaged(std::vector<ArgValue> &Vals, std::vector<ArgValue *> &Out) {
  for (ArgValue &V : Vals) {
    if (!V.elems.empty())
      collectStaged(V.elems, Out);
    if (V.host)
      Out.push_back(&V);
  }
}

} // namespace

Staging::~Staging() {
  for (const Range &R : ranges)
    if (R.dev) {
      try {
        deviceFree(R.dev);
      } catch (...) {
      }
    }
}

void stageIn(std::vector<ArgValue> &Vals, Staging &S) {
  if (executor().deviceMemoryIsHost)
    return; // kernels use host arrays in place
  std::vector<ArgValue *> Host;
  collectStaged(Vals, Host);
  if (Host.empty())
    return;
  std::sort(Host.begin(), Host.end(),
            [](ArgValue *A, ArgValue *B) { return A->hostPtr < B->hostPtr; });
  // Merge overlapping [hostPtr, hostPtr + nbytes) ranges (sorted by start);
  // Member[K] is the range Host[K] lies in.
  std::vector<size_t> Member(Host.size());
  for (size_t K = 0; K < Host.size(); ++K) {
    ArgValue *V = Host[K];
    Staging::Range *Last = S.ranges.empty() ? nullptr : &S.ranges.back();
    if (Last && V->hostPtr < Last->host + Last->nbytes) {
      Last->nbytes =
          std::max<size_t>(Last->nbytes, V->hostPtr + V->nbytes - Last->host);
      Last->writeBack |= !V->readonly;
    } else {
      S.ranges.push_back({V->hostPtr, V->nbytes, 0, !V->readonly});
    }
    Member[K] = S.ranges.size() - 1;
  }
  for (Staging::Range &R : S.ranges) {
    R.dev = deviceAlloc(R.nbytes);
    noteStagedArgument();
    copyToDevice(R.dev, reinterpret_cast<const void *>(R.host), R.nbytes);
  }
  for (size_t K = 0; K < Host.size(); ++K) {
    const Staging::Range &R = S.ranges[Member[K]];
    Host[K]->ptr = R.dev + (Host[K]->hostPtr - R.host);
  }
}

void stageOut(Staging &S) {
  if (S.ranges.empty())
    return;
  deviceSynchronize();
  for (const Staging::Range &R : S.ranges)
    if (R.writeBack)
      copyToHost(reinterpret_cast<void *>(R.host), R.dev, R.nbytes);
}

} // namespace pcj::py
