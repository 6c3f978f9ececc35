// StridedCopy: strided N-d copies between host and device. See StridedCopy.h.
#include "runtime/StridedCopy.h"

#include "runtime/Device.h"
#include "runtime/Errors.h"
#include "runtime/Memory.h"
#include "runtime/Stream.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace pcj::rt {

namespace {

int64_t elementCount(int N, const int64_t *Shape) {
  int64_t C = 1;
  for (int D = 0; D < N; ++D)
    C *= Shape[D];
  return C;
}

int64_t absl(int64_t V) { return V < 0 ? -V : V; }

// Copies one innermost row of N elements.
inline void copyRow(char *D, int64_t DS, const char *S, int64_t SS, int64_t N,
                    size_t Item) {
  if (DS == int64_t(Item) && SS == int64_t(Item)) {
    std::memcpy(D, S, size_t(N) * Item);
    return;
  }
  switch (Item) {
  case 1:
    for (int64_t I = 0; I < N; ++I, D += DS, S += SS)
      *D = *S;
    return;
  case 2:
    for (int64_t I = 0; I < N; ++I, D += DS, S += SS)
      std::memcpy(D, S, 2);
    return;
  case 4:
    for (int64_t I = 0; I < N; ++I, D += DS, S += SS)
      std::memcpy(D, S, 4);
    return;
  case 8:
    for (int64_t I = 0; I < N; ++I, D += DS, S += SS)
      std::memcpy(D, S, 8);
    return;
  default:
    for (int64_t I = 0; I < N; ++I, D += DS, S += SS)
      std::memcpy(D, S, Item);
  }
}

// How the device side of a staged copy is walked: its elements, sorted by
// decreasing |stride| with adjacent mergeable dims merged, as rows of Width
// contiguous bytes, Height rows Pitch apart per 2-D copy, one 2-D copy per
// index of the Outer dims. The staging buffer holds the elements packed in
// that order; StageStrides/StageOffset describe it per original dim.
struct Dim {
  int64_t N, S; // extent, |stride| in bytes
};

struct Plan {
  uint64_t Base = 0; // lowest device address
  std::vector<int64_t> StageStrides;
  int64_t StageOffset = 0;
  size_t StageBytes = 0;
  size_t Width = 0;
  int64_t Height = 1;
  int64_t Pitch = 0;
  std::vector<Dim> Outer; // outermost first
};

Plan planRows(const StridedRegion &R, size_t Item, bool AllowBroadcast) {
  Plan P;
  P.StageStrides.assign(R.NDim, 0);
  std::vector<int> Ds;
  for (int D = 0; D < R.NDim; ++D) {
    if (R.Shape[D] <= 1)
      continue;
    if (R.Strides[D] == 0) {
      if (!AllowBroadcast)
        throw std::invalid_argument(
            "cannot copy into a device array whose elements overlap (a zero "
            "stride)");
      continue; // read once, repeated on the host
    }
    Ds.push_back(D);
  }
  P.Base = regionLowest(R);
  std::stable_sort(Ds.begin(), Ds.end(), [&](int A, int B) {
    return absl(R.Strides[A]) > absl(R.Strides[B]);
  });
  int64_t Packed = int64_t(Item);
  for (size_t K = Ds.size(); K-- > 0;) {
    int D = Ds[K];
    P.StageStrides[D] = R.Strides[D] < 0 ? -Packed : Packed;
    if (R.Strides[D] < 0)
      P.StageOffset += (R.Shape[D] - 1) * Packed;
    Packed *= R.Shape[D];
  }
  P.StageBytes = size_t(Packed);
  // Merge from the innermost dim outwards.
  std::vector<Dim> Inner; // innermost first
  for (size_t K = Ds.size(); K-- > 0;) {
    Dim C{R.Shape[Ds[K]], absl(R.Strides[Ds[K]])};
    if (!Inner.empty() && C.S == Inner.back().S * Inner.back().N)
      Inner.back().N *= C.N;
    else
      Inner.push_back(C);
  }
  size_t Row = 0;
  if (!Inner.empty() && Inner[0].S == int64_t(Item)) {
    P.Width = size_t(Inner[0].N) * Item;
    Row = 1;
  } else {
    P.Width = Item;
  }
  if (Row < Inner.size()) {
    P.Height = Inner[Row].N;
    P.Pitch = Inner[Row].S;
    for (size_t K = Inner.size(); K-- > Row + 1;)
      P.Outer.push_back(Inner[K]);
  } else {
    P.Height = 1;
    P.Pitch = int64_t(P.Width);
  }
  if (P.Height > 1 && P.Pitch < int64_t(P.Width))
    throw std::invalid_argument(
        "cannot copy a device array whose elements overlap (its strides make "
        "rows overlap)");
  return P;
}

// Runs Fn(deviceOffset, stagingOffset) for every 2-D block of the plan.
template <typename F> void forEachBlock(const Plan &P, F Fn) {
  size_t Block = P.Width * size_t(P.Height);
  std::vector<int64_t> Idx(P.Outer.size(), 0);
  size_t Stage = 0;
  while (true) {
    int64_t Off = 0;
    for (size_t K = 0; K < P.Outer.size(); ++K)
      Off += Idx[K] * P.Outer[K].S;
    Fn(Off, Stage);
    Stage += Block;
    size_t K = P.Outer.size();
    while (K > 0) {
      --K;
      if (++Idx[K] < P.Outer[K].N)
        break;
      Idx[K] = 0;
      if (K == 0)
        return;
    }
    if (P.Outer.empty())
      return;
  }
}

// Largest pitch cuMemcpy2D takes (CU_DEVICE_ATTRIBUTE_MAX_PITCH on current
// GPUs); above it, rows are copied one by one.
constexpr int64_t kMaxPitch = std::numeric_limits<int32_t>::max();

class DriverOps final : public CopyOps {
public:
  void toDevice(uint64_t Dst, const void *Src, size_t Bytes, CUstream Stream,
                bool Async) const override {
    if (Async)
      copyHostToDeviceAsync(Dst, Src, Bytes, Stream);
    else
      copyHostToDevice(Dst, Src, Bytes);
  }
  void toHost(void *Dst, uint64_t Src, size_t Bytes, CUstream Stream,
              bool Async) const override {
    if (Async)
      copyDeviceToHostAsync(Dst, Src, Bytes, Stream);
    else
      copyDeviceToHost(Dst, Src, Bytes);
  }
  void deviceToDevice(uint64_t Dst, uint64_t Src, size_t Bytes, CUstream Stream,
                      bool Async) const override {
    if (Async)
      copyDeviceToDeviceAsync(Dst, Src, Bytes, Stream);
    else
      copyDeviceToDevice(Dst, Src, Bytes);
  }
  void copy2D(const CUDA_MEMCPY2D &P, CUstream Stream,
              bool Async) const override {
    rt::copy2D(P, Stream, Async);
  }
  void synchronize(CUstream Stream) const override {
    synchronizeStream(Stream);
  }
};

void copyBlock(bool ToDevice, uint64_t Dev, int64_t DevPitch, char *Host,
               const Plan &P, CUstream Stream, bool Async, const CopyOps &Ops) {
  if (P.Height == 1) {
    if (ToDevice)
      Ops.toDevice(Dev, Host, P.Width, Stream, Async);
    else
      Ops.toHost(Host, Dev, P.Width, Stream, Async);
    return;
  }
  if (DevPitch > kMaxPitch) {
    Plan Row = P;
    Row.Height = 1;
    for (int64_t I = 0; I < P.Height; ++I)
      copyBlock(ToDevice, Dev + uint64_t(I * DevPitch), 0,
                Host + size_t(I) * P.Width, Row, Stream, Async, Ops);
    return;
  }
  CUDA_MEMCPY2D C{};
  C.WidthInBytes = P.Width;
  C.Height = size_t(P.Height);
  if (ToDevice) {
    C.srcMemoryType = CU_MEMORYTYPE_HOST;
    C.srcHost = Host;
    C.srcPitch = P.Width;
    C.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    C.dstDevice = Dev;
    C.dstPitch = size_t(DevPitch);
  } else {
    C.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    C.srcDevice = Dev;
    C.srcPitch = size_t(DevPitch);
    C.dstMemoryType = CU_MEMORYTYPE_HOST;
    C.dstHost = Host;
    C.dstPitch = P.Width;
  }
  Ops.copy2D(C, Stream, Async);
}

// Device region -> Dst host region, through a staging buffer.
void deviceToHostStaged(const StridedRegion &Dst, const StridedRegion &Src,
                        size_t Item, CUstream Stream, const CopyOps &Ops) {
  bool Async = Stream != nullptr;
  uint64_t Low = regionLowest(Src);
  uint64_t Span = regionSpan(Src, Item);
  uint64_t Bytes = uint64_t(elementCount(Src.NDim, Src.Shape)) * Item;
  std::vector<char> Stage;
  const char *From;
  const int64_t *FromStrides;
  std::vector<int64_t> Strides;
  if (Ops.copySpan(Span, Bytes)) {
    Stage.resize(Span);
    Ops.toHost(Stage.data(), Low, Span, Stream, Async);
    From = Stage.data() + (Src.Ptr - Low);
    FromStrides = Src.Strides;
  } else {
    Plan P = planRows(Src, Item, /*AllowBroadcast=*/true);
    Stage.resize(P.StageBytes);
    forEachBlock(P, [&](int64_t Off, size_t At) {
      copyBlock(false, P.Base + uint64_t(Off), P.Pitch, Stage.data() + At, P,
                Stream, Async, Ops);
    });
    Strides = P.StageStrides;
    From = Stage.data() + P.StageOffset;
    FromStrides = Strides.data();
  }
  if (Async)
    Ops.synchronize(Stream);
  hostStridedCopy(reinterpret_cast<char *>(Dst.Ptr), Dst.Strides, From,
                  FromStrides, Src.Shape, Src.NDim, Item);
}

// Src host region -> device region, through a staging buffer.
void hostToDeviceStaged(const StridedRegion &Dst, const StridedRegion &Src,
                        size_t Item, CUstream Stream, const CopyOps &Ops) {
  bool Async = Stream != nullptr;
  Plan P = planRows(Dst, Item, /*AllowBroadcast=*/false);
  std::vector<char> Stage(P.StageBytes);
  hostStridedCopy(Stage.data() + P.StageOffset, P.StageStrides.data(),
                  reinterpret_cast<const char *>(Src.Ptr), Src.Strides,
                  Src.Shape, Src.NDim, Item);
  forEachBlock(P, [&](int64_t Off, size_t At) {
    copyBlock(true, P.Base + uint64_t(Off), P.Pitch, Stage.data() + At, P,
              Stream, Async, Ops);
  });
  if (Async)
    Ops.synchronize(Stream); // the staging buffer must outlive the copy
}

bool sameStrides(const StridedRegion &A, const StridedRegion &B) {
  for (int D = 0; D < A.NDim; ++D)
    if (A.Shape[D] > 1 && A.Strides[D] != B.Strides[D])
      return false;
  return true;
}

} // namespace

uint64_t regionLowest(const StridedRegion &R) {
  int64_t Off = 0;
  for (int D = 0; D < R.NDim; ++D)
    if (R.Shape[D] > 1 && R.Strides[D] < 0)
      Off += (R.Shape[D] - 1) * R.Strides[D];
  return R.Ptr + uint64_t(Off);
}

uint64_t regionSpan(const StridedRegion &R, size_t Item) {
  if (elementCount(R.NDim, R.Shape) == 0)
    return 0;
  uint64_t Span = Item;
  for (int D = 0; D < R.NDim; ++D)
    if (R.Shape[D] > 1)
      Span += uint64_t((R.Shape[D] - 1) * absl(R.Strides[D]));
  return Span;
}

bool isDenseRegion(int NDim, const int64_t *Shape, const int64_t *Strides,
                   size_t Item) {
  std::vector<Dim> Ds;
  for (int D = 0; D < NDim; ++D) {
    if (Shape[D] == 0)
      return true;
    if (Shape[D] > 1)
      Ds.push_back({Shape[D], absl(Strides[D])});
  }
  std::sort(Ds.begin(), Ds.end(),
            [](const Dim &A, const Dim &B) { return A.S < B.S; });
  int64_t Expect = int64_t(Item);
  for (const Dim &D : Ds) {
    if (D.S != Expect)
      return false;
    Expect *= D.N;
  }
  return true;
}

void hostStridedCopy(char *Dst, const int64_t *DS, const char *Src,
                     const int64_t *SS, const int64_t *Shape, int NDim,
                     size_t Item) {
  // Keep the dims of extent > 1 (a 0 extent means nothing to copy).
  int64_t N[64], A[64], B[64];
  int K = 0;
  for (int D = 0; D < NDim; ++D) {
    if (Shape[D] == 0)
      return;
    if (Shape[D] == 1)
      continue;
    N[K] = Shape[D];
    A[K] = DS[D];
    B[K] = SS[D];
    ++K;
  }
  if (K == 0) {
    std::memcpy(Dst, Src, Item);
    return;
  }
  int64_t Idx[64] = {};
  while (true) {
    int64_t DO = 0, SO = 0;
    for (int D = 0; D + 1 < K; ++D) {
      DO += Idx[D] * A[D];
      SO += Idx[D] * B[D];
    }
    copyRow(Dst + DO, A[K - 1], Src + SO, B[K - 1], N[K - 1], Item);
    int D = K - 1;
    while (D > 0) {
      --D;
      if (++Idx[D] < N[D])
        break;
      Idx[D] = 0;
      if (D == 0)
        return;
    }
    if (K == 1)
      return;
  }
}

const CopyOps &driverCopyOps() {
  static const DriverOps Ops;
  return Ops;
}

void copyStrided(const StridedRegion &Dst, const StridedRegion &Src,
                 size_t Item, CUstream Stream, bool Async, const CopyOps &Ops) {
  int64_t Count = elementCount(Src.NDim, Src.Shape);
  if (Count == 0)
    return;
  if (!Dst.OnDevice && !Src.OnDevice) {
    hostStridedCopy(reinterpret_cast<char *>(Dst.Ptr), Dst.Strides,
                    reinterpret_cast<const char *>(Src.Ptr), Src.Strides,
                    Src.Shape, Src.NDim, Item);
    return;
  }
  size_t Bytes = size_t(Count) * Item;
  if (sameStrides(Dst, Src) &&
      isDenseRegion(Src.NDim, Src.Shape, Src.Strides, Item)) {
    uint64_t D = regionLowest(Dst), S = regionLowest(Src);
    bool UseAsync = Async && Stream;
    if (Dst.OnDevice && Src.OnDevice)
      Ops.deviceToDevice(D, S, Bytes, Stream, UseAsync);
    else if (Dst.OnDevice)
      Ops.toDevice(D, reinterpret_cast<const void *>(S), Bytes, Stream,
                   UseAsync);
    else
      Ops.toHost(reinterpret_cast<void *>(D), S, Bytes, Stream, UseAsync);
    return;
  }
  if (Src.OnDevice && !Dst.OnDevice) {
    deviceToHostStaged(Dst, Src, Item, Stream, Ops);
    return;
  }
  if (Dst.OnDevice && !Src.OnDevice) {
    hostToDeviceStaged(Dst, Src, Item, Stream, Ops);
    return;
  }
  // Device to device with different layouts: through a packed host copy.
  std::vector<int64_t> Packed(Src.NDim);
  int64_t S = int64_t(Item);
  for (int D = Src.NDim; D-- > 0;) {
    Packed[D] = S;
    S *= Src.Shape[D];
  }
  std::vector<char> Host(Bytes);
  StridedRegion Mid{uint64_t(reinterpret_cast<uintptr_t>(Host.data())),
                    Src.NDim, Src.Shape, Packed.data(), false};
  deviceToHostStaged(Mid, Src, Item, Stream, Ops);
  hostToDeviceStaged(Dst, Mid, Item, Stream, Ops);
}

} // namespace pcj::rt
