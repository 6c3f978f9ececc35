// StridedCopy: element-wise copies between strided N-d regions of host and
// device memory (views such as a[::2, 1:], transposes, negative strides).
//
// Host-to-host copies need no driver (the CPU executor's "device memory" is
// host memory, so it uses hostStridedCopy for everything). Copies that touch
// the device go through the driver:
//   * both regions dense (no gaps, no overlap) with equal strides: one
//     cuMemcpy of the bytes, asynchronous on Stream when asked;
//   * device to host: the device region's byte span in one cuMemcpy when it
//     is at most about twice the data, else the device region's rows with
//     cuMemcpy2D, into a host staging buffer; then a host strided copy;
//   * host to device: a host strided copy packs the elements in the device
//     region's memory order, then cuMemcpy2D writes the device rows (never
//     the gaps between them, which other views may own);
//   * device to device: through host staging.
// Staged copies complete before returning (they synchronize Stream).
//
//   StridedRegion Dst{HostPtr, 2, Shape, HostStrides, /*OnDevice=*/false};
//   StridedRegion Src{DevPtr, 2, Shape, DevStrides, /*OnDevice=*/true};
//   copyStrided(Dst, Src, 4, nullptr, false);
#pragma once

#include "runtime/CudaTypes.h"

#include <cstddef>
#include <cstdint>

namespace pcj::rt {

struct StridedRegion {
  uint64_t Ptr = 0; // address of element [0, ..., 0]
  int NDim = 0;
  const int64_t *Shape = nullptr;
  const int64_t *Strides = nullptr; // bytes, any sign
  bool OnDevice = false;
};

/// The transfers copyStrided uses; the driver's by default (driverCopyOps).
/// Tests substitute host-memory versions to check the copy plans without a
/// GPU. "Device" addresses are whatever the implementation makes of them.
struct CopyOps {
  virtual ~CopyOps() = default;
  virtual void toDevice(uint64_t Dst, const void *Src, size_t Bytes,
                        CUstream Stream, bool Async) const = 0;
  virtual void toHost(void *Dst, uint64_t Src, size_t Bytes, CUstream Stream,
                      bool Async) const = 0;
  virtual void deviceToDevice(uint64_t Dst, uint64_t Src, size_t Bytes,
                              CUstream Stream, bool Async) const = 0;
  virtual void copy2D(const CUDA_MEMCPY2D &P, CUstream Stream,
                      bool Async) const = 0;
  virtual void synchronize(CUstream Stream) const = 0;
  /// Whether a device-to-host copy of a region spanning Span bytes with
  /// Bytes of data copies the whole span (one transfer) rather than rows.
  virtual bool copySpan(uint64_t Span, uint64_t Bytes) const {
    return Span <= 2 * Bytes + (uint64_t(1) << 20);
  }
};

/// The CUDA driver's copies (current context).
const CopyOps &driverCopyOps();

/// Copies every element of Src (Item bytes each) into Dst; both have the
/// shape of Src. Stream: nullptr is the legacy default stream; Async lets a
/// single dense copy return before it completes. Throws std::invalid_argument
/// for a device destination whose elements overlap (zero or overlapping
/// strides) and DriverError for driver failures.
void copyStrided(const StridedRegion &Dst, const StridedRegion &Src,
                 size_t Item, CUstream Stream, bool Async,
                 const CopyOps &Ops = driverCopyOps());

/// Host memory only: Dst[i...] = Src[i...] over Shape (strides in bytes).
void hostStridedCopy(char *Dst, const int64_t *DstStrides, const char *Src,
                     const int64_t *SrcStrides, const int64_t *Shape, int NDim,
                     size_t Item);

/// True when the region's elements exactly tile one block of memory
/// (Item * element count bytes, no gaps, no overlap), in any dim order.
bool isDenseRegion(int NDim, const int64_t *Shape, const int64_t *Strides,
                   size_t Item);

/// The lowest address the region touches (Ptr plus its negative-stride
/// extents) and the byte span up to the end of the highest element.
uint64_t regionLowest(const StridedRegion &R);
uint64_t regionSpan(const StridedRegion &R, size_t Item);

} // namespace pcj::rt
