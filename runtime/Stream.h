// Stream: RAII CUDA streams and events (for timing and ordering).
//
// Both are created in the calling thread's current context and destroyed
// with it; destructors never throw.
//
//   Event Start, End;
//   Start.record();  launchKernel(...);  End.record();
//   End.synchronize();
//   float Ms = elapsedMs(Start, End);
#pragma once

#include "runtime/CudaTypes.h"

namespace pcj::rt {

class Stream {
public:
  /// NonBlocking: does not synchronize with the legacy default stream.
  explicit Stream(bool NonBlocking = true);
  ~Stream();
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;

  CUstream handle() const { return Handle; }
  /// Waits for all work queued on this stream.
  void synchronize();

private:
  CUstream Handle = nullptr;
};

class Event {
public:
  /// Timing: the event records a timestamp (needed by elapsedMs).
  explicit Event(bool Timing = true);
  ~Event();
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;

  CUevent handle() const { return Handle; }
  /// Records the event on Stream (nullptr: the legacy default stream).
  void record(CUstream Stream = nullptr);
  /// Waits until the event has completed.
  void synchronize();

private:
  CUevent Handle = nullptr;
};

/// Milliseconds between two completed, timing-enabled events.
float elapsedMs(const Event &Start, const Event &End);

} // namespace pcj::rt
