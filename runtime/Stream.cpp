// Stream: cuStream* / cuEvent* wrappers. See Stream.h.
#include "runtime/Stream.h"

#include "runtime/Device.h"
#include "runtime/ErrorRecord.h"
#include "runtime/Errors.h"

namespace pcj::rt {

Stream::Stream(bool NonBlocking) {
  Context &C = currentContext();
  check(C.api().cuStreamCreate(&Handle, NonBlocking ? CU_STREAM_NON_BLOCKING
                                                    : CU_STREAM_DEFAULT),
        "cuStreamCreate");
  Ctx = &C;
  Generation = C.generation();
}

Stream::~Stream() {
  if (Handle && alive())
    CudaDriver::process().fns().cuStreamDestroy(Handle);
}

int Stream::device() const { return Ctx->device(); }

bool Stream::alive() const { return Ctx->generation() == Generation; }

void Stream::synchronize() {
  check(CudaDriver::process().fns().cuStreamSynchronize(Handle),
        "cuStreamSynchronize");
  checkErrorRecord(Ctx->device());
}

Event::Event(bool Timing) {
  Context &C = currentContext();
  check(C.api().cuEventCreate(&Handle, Timing ? CU_EVENT_DEFAULT
                                              : CU_EVENT_DISABLE_TIMING),
        "cuEventCreate");
  Ctx = &C;
  Generation = C.generation();
}

Event::~Event() {
  if (Handle && alive())
    CudaDriver::process().fns().cuEventDestroy(Handle);
}

bool Event::alive() const { return Ctx->generation() == Generation; }

void Event::record(CUstream Stream) {
  check(CudaDriver::process().fns().cuEventRecord(Handle, Stream),
        "cuEventRecord");
}

void Event::synchronize() {
  check(CudaDriver::process().fns().cuEventSynchronize(Handle),
        "cuEventSynchronize");
  checkErrorRecord(Ctx->device());
}

bool Event::query() {
  CUresult R = CudaDriver::process().fns().cuEventQuery(Handle);
  if (R == CUDA_ERROR_NOT_READY)
    return false;
  check(R, "cuEventQuery");
  checkErrorRecord(Ctx->device());
  return true;
}

void Event::waitOn(CUstream Stream) {
  check(CudaDriver::process().fns().cuStreamWaitEvent(Stream, Handle, 0),
        "cuStreamWaitEvent");
}

float elapsedMs(const Event &Start, const Event &End) {
  float Ms = 0;
  check(CudaDriver::process().fns().cuEventElapsedTime(&Ms, Start.handle(),
                                                       End.handle()),
        "cuEventElapsedTime");
  return Ms;
}

void synchronizeStream(CUstream S) {
  Context &C = currentContext();
  check(C.api().cuStreamSynchronize(S), "cuStreamSynchronize");
  checkErrorRecord(C.device());
}

void launchHostFunc(CUstream S, CUhostFn Fn, void *Data) {
  Context &C = currentContext();
  check(C.api().cuLaunchHostFunc(S, Fn, Data), "cuLaunchHostFunc");
}

bool queryStream(CUstream S) {
  Context &C = currentContext();
  CUresult R = C.api().cuStreamQuery(S);
  if (R == CUDA_ERROR_NOT_READY)
    return false;
  check(R, "cuStreamQuery");
  checkErrorRecord(C.device());
  return true;
}

void streamWaitStream(CUstream Consumer, CUstream Producer) {
  auto Canon = [](CUstream S) { return S == kStreamLegacy ? nullptr : S; };
  if (Canon(Consumer) == Canon(Producer))
    return;
  Context &C = currentContext();
  CUevent E = C.orderingEvent();
  // cuStreamWaitEvent waits for the record made before it, so one event per
  // context serves every call.
  check(C.api().cuEventRecord(E, Producer), "cuEventRecord");
  check(C.api().cuStreamWaitEvent(Consumer, E, 0), "cuStreamWaitEvent");
}

} // namespace pcj::rt
