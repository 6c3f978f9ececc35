// Stream: cuStream* / cuEvent* wrappers. See Stream.h.
#include "runtime/Stream.h"

#include "runtime/Device.h"
#include "runtime/Errors.h"

namespace pcj::rt {

Stream::Stream(bool NonBlocking) {
  check(currentContext().api().cuStreamCreate(
            &Handle, NonBlocking ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT),
        "cuStreamCreate");
}

Stream::~Stream() {
  if (Handle)
    CudaDriver::process().fns().cuStreamDestroy(Handle);
}

void Stream::synchronize() {
  check(CudaDriver::process().fns().cuStreamSynchronize(Handle),
        "cuStreamSynchronize");
}

Event::Event(bool Timing) {
  check(currentContext().api().cuEventCreate(
            &Handle, Timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING),
        "cuEventCreate");
}

Event::~Event() {
  if (Handle)
    CudaDriver::process().fns().cuEventDestroy(Handle);
}

void Event::record(CUstream Stream) {
  check(CudaDriver::process().fns().cuEventRecord(Handle, Stream),
        "cuEventRecord");
}

void Event::synchronize() {
  check(CudaDriver::process().fns().cuEventSynchronize(Handle),
        "cuEventSynchronize");
}

float elapsedMs(const Event &Start, const Event &End) {
  float Ms = 0;
  check(CudaDriver::process().fns().cuEventElapsedTime(&Ms, Start.handle(),
                                                       End.handle()),
        "cuEventElapsedTime");
  return Ms;
}

} // namespace pcj::rt
