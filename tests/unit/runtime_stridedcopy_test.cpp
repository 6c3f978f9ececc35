// StridedCopy without a GPU: the copy plans (span copies, cuMemcpy2D rows,
// flipped and merged dims, staging) run against CopyOps whose "device" is
// host memory, on random strided views; results are checked element by
// element against a direct reference, and device bytes outside the
// destination view must stay untouched. The GPU runs the same plans through
// the driver (tests/kernels/test_host_arrays.py).
#include "runtime/StridedCopy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

using namespace pcj::rt;

namespace {

// "Device" memory is host memory; 2-D copies are checked for the driver's
// rules (pitches >= width) and counted.
struct HostOps final : CopyOps {
  mutable int Copies1D = 0, Copies2D = 0, Syncs = 0;
  void toDevice(uint64_t Dst, const void *Src, size_t Bytes, CUstream,
                bool) const override {
    ++Copies1D;
    std::memcpy(reinterpret_cast<void *>(Dst), Src, Bytes);
  }
  void toHost(void *Dst, uint64_t Src, size_t Bytes, CUstream,
              bool) const override {
    ++Copies1D;
    std::memcpy(Dst, reinterpret_cast<const void *>(Src), Bytes);
  }
  void deviceToDevice(uint64_t Dst, uint64_t Src, size_t Bytes, CUstream,
                      bool) const override {
    ++Copies1D;
    std::memmove(reinterpret_cast<void *>(Dst),
                 reinterpret_cast<const void *>(Src), Bytes);
  }
  void copy2D(const CUDA_MEMCPY2D &P, CUstream, bool) const override {
    ++Copies2D;
    EXPECT_GE(P.srcPitch, P.WidthInBytes);
    EXPECT_GE(P.dstPitch, P.WidthInBytes);
    const char *S = P.srcMemoryType == CU_MEMORYTYPE_HOST
                        ? static_cast<const char *>(P.srcHost)
                        : reinterpret_cast<const char *>(P.srcDevice);
    char *D = P.dstMemoryType == CU_MEMORYTYPE_HOST
                  ? static_cast<char *>(P.dstHost)
                  : reinterpret_cast<char *>(P.dstDevice);
    for (size_t R = 0; R < P.Height; ++R)
      std::memcpy(D + R * P.dstPitch, S + R * P.srcPitch, P.WidthInBytes);
  }
  void synchronize(CUstream) const override { ++Syncs; }
  int SpanMode = -1; // -1: the default choice, 0: never, 1: always
  bool copySpan(uint64_t Span, uint64_t Bytes) const override {
    return SpanMode < 0 ? CopyOps::copySpan(Span, Bytes) : SpanMode == 1;
  }
};

// A random strided view of a buffer of Base elements of Item bytes.
struct View {
  std::vector<int64_t> Shape, Strides;
  int64_t Offset = 0; // bytes from the buffer start to element [0...]
};

View randomView(std::mt19937 &R, std::vector<int64_t> BaseShape, size_t Item,
                bool AllowReverse) {
  int N = int(BaseShape.size());
  std::vector<int64_t> BaseStrides(N);
  int64_t S = int64_t(Item);
  for (int D = N - 1; D >= 0; --D) {
    BaseStrides[D] = S;
    S *= BaseShape[D];
  }
  View V;
  for (int D = 0; D < N; ++D) {
    int64_t Ext = BaseShape[D];
    int64_t Step = 1 + int64_t(R() % 3);
    bool Rev = AllowReverse && R() % 3 == 0;
    int64_t Start = int64_t(R() % std::max<int64_t>(1, Ext / 3));
    int64_t Count = (Ext - Start + Step - 1) / Step;
    if (Rev) {
      V.Offset += (Ext - 1 - Start) * BaseStrides[D];
      V.Strides.push_back(-Step * BaseStrides[D]);
    } else {
      V.Offset += Start * BaseStrides[D];
      V.Strides.push_back(Step * BaseStrides[D]);
    }
    V.Shape.push_back(Count);
  }
  // Sometimes a transpose.
  if (N >= 2 && R() % 2) {
    std::swap(V.Shape[0], V.Shape[N - 1]);
    std::swap(V.Strides[0], V.Strides[N - 1]);
  }
  return V;
}

// Dst[i] = Src[i] element by element (the reference).
void reference(char *Dst, const View &DV, const char *Src, const View &SV,
               size_t Item) {
  int N = int(SV.Shape.size());
  std::vector<int64_t> Idx(N, 0);
  int64_t Total = 1;
  for (int64_t E : SV.Shape)
    Total *= E;
  for (int64_t K = 0; K < Total; ++K) {
    int64_t DO = DV.Offset, SO = SV.Offset;
    for (int D = 0; D < N; ++D) {
      DO += Idx[D] * DV.Strides[D];
      SO += Idx[D] * SV.Strides[D];
    }
    std::memcpy(Dst + DO, Src + SO, Item);
    for (int D = N - 1; D >= 0; --D) {
      if (++Idx[D] < SV.Shape[D])
        break;
      Idx[D] = 0;
    }
  }
}

// A view of exactly Shape over a fresh buffer Buf: every dim strided by 1
// or 2 of the buffer's, some reversed.
View viewWithShape(std::mt19937 &R, const std::vector<int64_t> &Shape,
                   size_t Item, std::vector<char> &Buf) {
  int N = int(Shape.size());
  std::vector<int64_t> Factor(N), Base(N);
  for (int D = 0; D < N; ++D) {
    Factor[D] = 1 + int64_t(R() % 2);
    Base[D] = Shape[D] * Factor[D];
  }
  View V;
  V.Shape = Shape;
  V.Strides.resize(N);
  int64_t S = int64_t(Item), Total = int64_t(Item);
  for (int D = N - 1; D >= 0; --D) {
    bool Rev = R() % 3 == 0;
    V.Strides[D] = (Rev ? -1 : 1) * S * Factor[D];
    if (Rev)
      V.Offset += (Shape[D] - 1) * S * Factor[D];
    S *= Base[D];
  }
  Total = S;
  Buf.resize(size_t(Total));
  for (char &C : Buf)
    C = char(R());
  return V;
}

std::vector<char> randomBytes(std::mt19937 &R, size_t N) {
  std::vector<char> B(N);
  for (char &C : B)
    C = char(R());
  return B;
}

View packed(const std::vector<int64_t> &Shape, size_t Item) {
  View V;
  V.Shape = Shape;
  V.Strides.resize(Shape.size());
  int64_t S = int64_t(Item);
  for (int D = int(Shape.size()) - 1; D >= 0; --D) {
    V.Strides[D] = S;
    S *= Shape[D];
  }
  return V;
}

StridedRegion region(std::vector<char> &Buf, const View &V, bool OnDevice) {
  return {uint64_t(reinterpret_cast<uintptr_t>(Buf.data())) +
              uint64_t(V.Offset),
          int(V.Shape.size()), V.Shape.data(), V.Strides.data(), OnDevice};
}

std::vector<int64_t> randomShape(std::mt19937 &R) {
  int N = 1 + int(R() % 4);
  std::vector<int64_t> S;
  for (int D = 0; D < N; ++D)
    S.push_back(1 + int64_t(R() % (N == 1 ? 300 : 13)));
  return S;
}

size_t bytesOf(const std::vector<int64_t> &S, size_t Item) {
  size_t N = Item;
  for (int64_t E : S)
    N *= size_t(E);
  return N;
}

} // namespace

TEST(RuntimeStridedCopy, DeviceViewsToPackedHost) {
  std::mt19937 R(1234);
  HostOps Ops;
  for (int Trial = 0; Trial < 600; ++Trial) {
    Ops.SpanMode = Trial % 3 - 1; // default, rows, span
    size_t Item = size_t(1) << (R() % 4);
    std::vector<int64_t> Base = randomShape(R);
    std::vector<char> Dev = randomBytes(R, bytesOf(Base, Item));
    View SV = randomView(R, Base, Item, true);
    std::vector<char> Got;
    View DV = Trial % 2 ? packed(SV.Shape, Item)
                        : viewWithShape(R, SV.Shape, Item, Got);
    Got.resize(std::max(Got.size(), bytesOf(SV.Shape, Item)));
    std::vector<char> Want(Got);
    reference(Want.data(), DV, Dev.data(), SV, Item);
    copyStrided(region(Got, DV, false), region(Dev, SV, true), Item,
                Trial % 2 ? reinterpret_cast<CUstream>(7) : nullptr, Trial % 2,
                Ops);
    ASSERT_EQ(Got, Want) << "trial " << Trial;
  }
  EXPECT_GT(Ops.Copies2D, 0); // the row plan ran, not only span copies
}

TEST(RuntimeStridedCopy, HostToDeviceViewsLeaveTheGapsAlone) {
  std::mt19937 R(99);
  HostOps Ops;
  for (int Trial = 0; Trial < 400; ++Trial) {
    size_t Item = size_t(1) << (R() % 4);
    std::vector<int64_t> Base = randomShape(R);
    std::vector<char> Dev = randomBytes(R, bytesOf(Base, Item));
    std::vector<char> Want = Dev;
    View DV = randomView(R, Base, Item, true);
    std::vector<char> Host;
    View SV = viewWithShape(R, DV.Shape, Item, Host);
    reference(Want.data(), DV, Host.data(), SV, Item);
    copyStrided(region(Dev, DV, true), region(Host, SV, false), Item, nullptr,
                false, Ops);
    ASSERT_EQ(Dev, Want) << "trial " << Trial;
  }
}

TEST(RuntimeStridedCopy, DeviceToDeviceAcrossLayouts) {
  std::mt19937 R(7);
  HostOps Ops;
  for (int Trial = 0; Trial < 300; ++Trial) {
    size_t Item = size_t(1) << (R() % 4);
    std::vector<int64_t> Base = randomShape(R);
    std::vector<char> Src = randomBytes(R, bytesOf(Base, Item));
    View SV = randomView(R, Base, Item, true);
    std::vector<char> Dst;
    View DV = Trial % 3 ? viewWithShape(R, SV.Shape, Item, Dst)
                        : (Dst.resize(bytesOf(SV.Shape, Item)),
                           packed(SV.Shape, Item));
    std::vector<char> Want = Dst;
    reference(Want.data(), DV, Src.data(), SV, Item);
    copyStrided(region(Dst, DV, true), region(Src, SV, true), Item, nullptr,
                false, Ops);
    ASSERT_EQ(Dst, Want) << "trial " << Trial;
  }
}

TEST(RuntimeStridedCopy, DenseSameLayoutIsOneCopy) {
  HostOps Ops;
  std::vector<int64_t> Shape = {40, 30};
  std::vector<char> Dev(40 * 30 * 8), Host(40 * 30 * 8, 0);
  for (size_t I = 0; I < Dev.size(); ++I)
    Dev[I] = char(I * 7);
  View V = packed(Shape, 8);
  copyStrided(region(Host, V, false), region(Dev, V, true), 8,
              reinterpret_cast<CUstream>(3), true, Ops);
  EXPECT_EQ(Host, Dev);
  EXPECT_EQ(Ops.Copies1D, 1);
  EXPECT_EQ(Ops.Copies2D, 0);
  EXPECT_EQ(Ops.Syncs, 0); // an asynchronous dense copy does not wait
  // A transposed (F-order) view is dense too.
  View T = V;
  std::swap(T.Shape[0], T.Shape[1]);
  std::swap(T.Strides[0], T.Strides[1]);
  std::vector<char> Host2(Dev.size(), 0);
  copyStrided(region(Host2, T, false), region(Dev, T, true), 8, nullptr, false,
              Ops);
  EXPECT_EQ(Host2, Dev);
  EXPECT_EQ(Ops.Copies1D, 2);
}

TEST(RuntimeStridedCopy, ColumnOfALargeArrayUsesRowsNotTheSpan) {
  HostOps Ops;
  std::vector<int64_t> Base = {4000, 1000};
  std::vector<char> Dev(bytesOf(Base, 8));
  for (size_t I = 0; I < Dev.size(); I += 8)
    std::memcpy(&Dev[I], &I, 8);
  View Col;
  Col.Shape = {4000};
  Col.Strides = {8000};
  Col.Offset = 3 * 8;
  View Out = packed(Col.Shape, 8);
  std::vector<char> Got(4000 * 8), Want(4000 * 8);
  reference(Want.data(), Out, Dev.data(), Col, 8);
  copyStrided(region(Got, Out, false), region(Dev, Col, true), 8, nullptr,
              false, Ops);
  EXPECT_EQ(Got, Want);
  EXPECT_EQ(Ops.Copies2D, 1); // one cuMemcpy2D: 4000 rows of 8 bytes
  EXPECT_EQ(Ops.Copies1D, 0);
}

TEST(RuntimeStridedCopy, OverlappingDeviceDestinationIsRejected) {
  HostOps Ops;
  std::vector<char> Dev(64), Host(64);
  int64_t Shape[] = {4, 4}, Zero[] = {0, 4}, Packed[] = {16, 4};
  StridedRegion D{uint64_t(reinterpret_cast<uintptr_t>(Dev.data())), 2, Shape,
                  Zero, true};
  StridedRegion H{uint64_t(reinterpret_cast<uintptr_t>(Host.data())), 2, Shape,
                  Packed, false};
  EXPECT_THROW(copyStrided(D, H, 4, nullptr, false, Ops),
               std::invalid_argument);
  // Reading a broadcast (zero-stride) device view is fine.
  for (int I = 0; I < 16; ++I)
    Dev[I] = char(I);
  copyStrided(H, D, 4, nullptr, false, Ops);
  for (int R = 0; R < 4; ++R)
    EXPECT_EQ(std::memcmp(&Host[R * 16], &Dev[0], 16), 0);
}

TEST(RuntimeStridedCopy, HelpersDescribeRegions) {
  int64_t Shape[] = {3, 4}, C[] = {32, 8}, F[] = {8, 24}, Gap[] = {64, 8},
          Neg[] = {-32, 8};
  EXPECT_TRUE(isDenseRegion(2, Shape, C, 8));
  EXPECT_TRUE(isDenseRegion(2, Shape, F, 8));
  EXPECT_FALSE(isDenseRegion(2, Shape, Gap, 8));
  EXPECT_TRUE(isDenseRegion(2, Shape, Neg, 8));
  StridedRegion R{1000, 2, Shape, Neg, true};
  EXPECT_EQ(regionLowest(R), 1000u - 64u);
  EXPECT_EQ(regionSpan(R, 8), 96u);
}
