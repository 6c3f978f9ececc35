// The choice of the process's executor (Executor.h), from
// PYCUDA_JIT_BACKEND, made once.
#include "runtime/Executor.h"
#include "runtime/CudaDriver.h"
#include "runtime/Device.h"
#include "runtime/cpu/Sanitizer.h"
#include "support/Env.h"

#include <atomic>
#include <mutex>

namespace pcj::rt {

namespace {

struct Choice {
  Executor *chosen = nullptr;
  std::string fallbackReason; // why auto chose the CPU
  std::string failure;        // why PYCUDA_JIT_BACKEND cannot be served
};

// PYCUDA_JIT_SANITIZE: freed device memory is quarantined from the start
// (a kernel compiled with sanitize= arms it later).
void armSanitizerFromEnvironment() {
  const char *Env = env::raw(env::Var::Sanitize);
  if (Env && cpu::san::parseChecks(Env) > 0)
    cpu::san::arm();
}

// The variable that turns the device side off (PYCUDA_JIT_DISABLE_CUDA,
// else numba's NUMBA_DISABLE_CUDA), or null.
const char *disabledBy() {
  if (env::isSet(env::Var::DisableCuda))
    return env::flag(env::Var::DisableCuda) ? env::name(env::Var::DisableCuda)
                                            : nullptr;
  return env::flag(env::Var::NumbaDisableCuda)
             ? env::name(env::Var::NumbaDisableCuda)
             : nullptr;
}

Choice choose() {
  Choice C;
  if (const char *Var = disabledBy()) {
    C.failure = std::string("CUDA is disabled due to setting ") + Var +
                "=1 in the environment";
    return C;
  }
  const char *Env = env::raw(env::Var::Backend);
  std::string Want = Env && *Env ? Env : "auto";
  if (Want == "cpu") {
    C.chosen = &cpuExecutor();
    armSanitizerFromEnvironment();
    return C;
  }
  if (Want != "cuda" && Want != "auto") {
    C.failure =
        "PYCUDA_JIT_BACKEND must be cuda, cpu or auto, not '" + Want + "'";
    return C;
  }
  std::string Why;
  int Count = 0;
  try {
    Count = deviceCount();
    if (Count == 0)
      Why = CudaDriver::process().available()
                ? "no CUDA device found"
                : CudaDriver::process().loadError();
  } catch (const std::exception &E) {
    Why = E.what();
  }
  if (Count > 0) {
    C.chosen = &cudaExecutor();
    return C;
  }
  if (Want == "cuda") {
    C.failure = "PYCUDA_JIT_BACKEND=cuda but " + Why;
    return C;
  }
  C.chosen = &cpuExecutor();
  C.fallbackReason = Why;
  armSanitizerFromEnvironment();
  return C;
}

// Set once the choice is made (chosen or failed).
std::atomic<Choice *> Made{nullptr};

Choice &theChoice() {
  static std::once_flag Once;
  std::call_once(Once, [] { Made.store(new Choice(choose())); });
  return *Made.load(std::memory_order_acquire);
}

} // namespace

Executor &executor() {
  // Made first: std::call_once costs every call (libstdc++ sets thread-local
  // state and calls pthread_once even when done), and this is per launch.
  Choice *Done = Made.load(std::memory_order_acquire);
  Choice &C = Done ? *Done : theChoice();
  if (!C.chosen) [[unlikely]]
    throw BackendUnavailable(C.failure);
  return *C.chosen;
}

Executor *executorIfChosen() {
  Choice *C = Made.load(std::memory_order_acquire);
  return C ? C->chosen : nullptr;
}

const std::string &executorFallbackReason() {
  return theChoice().fallbackReason;
}

} // namespace pcj::rt
