// Loading the code generator and nvJitLink ahead of the first compile (see
// Prefetch.h).
#include "Prefetch.h"

#include "CodegenPlugin.h"
#include "Glue.h"
#include "PyExecutor.h"

#include "runtime/NvJitLink.h"
#include "runtime/jit/CompilePool.h"

#include <atomic>
#include <optional>

namespace pcj::py {

void prefetchCompiler() {
  // What was started: 0 nothing, 1 the code generator, 2 both.
  static std::atomic<int> Started{0};
  std::optional<Backend> B = backendIfChosen();
  int Want = B && *B == Backend::CUDA ? 2 : 1;
  int Had = Started.load(std::memory_order_relaxed);
  do {
    if (Had >= Want)
      return;
  } while (!Started.compare_exchange_weak(Had, Want));
  if (jit::CompilePool::configuredThreads() == 0)
    return; // everything in the foreground: nothing ahead of time
  // Python's exit waits for a load in progress, as for compiles.
  static const bool DrainAtExit =
      Py_AtExit(&jit::CompilePool::drainProcess) == 0;
  (void)DrainAtExit;
  // One job: glibc's dlopen holds one lock, so two loads at once would run
  // one after the other anyway, and the code generator is needed first.
  bool Plugin = Had < 1, Linker = Want == 2;
  jit::CompilePool::process().submit([Plugin, Linker] {
    if (Plugin) {
      try {
        (void)codegenPlugin();
      } catch (...) {
        // The compile that needs it raises the error.
      }
    }
    if (Linker)
      (void)rt::NvJitLink::process();
  });
}

} // namespace pcj::py
