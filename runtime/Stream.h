// Stream: RAII CUDA streams and events (for timing and ordering), and the
// operations on stream handles that we do not own (the legacy and
// per-thread default streams, streams of other libraries).
//
// Streams and events are created in the calling thread's current context and
// destroyed with it; destructors never throw, and do nothing when the
// context was reset since (resetDevice: the handle may name something new).
//
//   Event Start, End;
//   Start.record();  launchKernel(...);  End.record();
//   End.synchronize();
//   float Ms = elapsedMs(Start, End);
#pragma once

#include "runtime/CudaTypes.h"

#include <cstdint>

namespace pcj::rt {

class Context;

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
  /// The device whose context holds the stream.
  int device() const;
  /// False once that context has been reset.
  bool alive() const;

private:
  CUstream Handle = nullptr;
  Context *Ctx = nullptr;
  uint64_t Generation = 0;
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
  /// True when the work before the last record() has completed
  /// (cuEventQuery: CUDA_ERROR_NOT_READY is false, other errors throw).
  bool query();
  /// Makes future work on Stream wait for this event (cuStreamWaitEvent).
  void waitOn(CUstream Stream);
  bool alive() const;

private:
  CUevent Handle = nullptr;
  Context *Ctx = nullptr;
  uint64_t Generation = 0;
};

/// Milliseconds between two completed, timing-enabled events.
float elapsedMs(const Event &Start, const Event &End);

/// cuStreamSynchronize / cuStreamQuery on any stream handle (nullptr, the
/// legacy and per-thread default handles included).
void synchronizeStream(CUstream Stream);
bool queryStream(CUstream Stream);
/// Queues Fn(Data) on Stream (cuLaunchHostFunc): it runs on a driver thread
/// once the work queued before it has completed, and work queued after it
/// waits for it.  Fn may not call the CUDA API.
void launchHostFunc(CUstream Stream, CUhostFn Fn, void *Data);

/// Orders Consumer after the work queued so far on Producer, without
/// blocking the host: an event recorded on Producer, waited on by Consumer.
/// Nothing when they are the same stream (the null handle and
/// kStreamLegacy are the same stream).
void streamWaitStream(CUstream Consumer, CUstream Producer);

} // namespace pcj::rt
