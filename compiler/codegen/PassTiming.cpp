// PassTiming: per-pass self times of the optimisation pipeline (see
// PassTiming.h).
#include "codegen/PassTiming.h"

#include "support/Env.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/PassInstrumentation.h"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace pcj::codegen::detail {

bool passTimingRequested() { return env::text(env::Var::Timing) == "passes"; }

void PassTimer::begin(llvm::StringRef Name, bool Analysis) {
  // Without blanks (PassManager<Loop, ...>), so the report splits on them.
  std::string Key = Analysis ? "analysis:" : "";
  for (char C : Name)
    if (C != ' ')
      Key += C;
  Stack.push_back({std::move(Key), Clock::now(), 0.0});
}

void PassTimer::end() {
  // An unbalanced callback (none is expected) is ignored, not a crash.
  if (Stack.empty())
    return;
  Frame F = std::move(Stack.back());
  Stack.pop_back();
  double Ms = msSince(F.start);
  Self[F.name] += std::max(0.0, Ms - F.children);
  if (!Stack.empty())
    Stack.back().children += Ms;
}

void PassTimer::registerCallbacks(llvm::PassInstrumentationCallbacks &PIC) {
  PIC.registerBeforeNonSkippedPassCallback(
      [this](llvm::StringRef Pass, llvm::Any) { begin(Pass, false); });
  PIC.registerAfterPassCallback(
      [this](llvm::StringRef, llvm::Any, const llvm::PreservedAnalyses &) {
        end();
      });
  PIC.registerAfterPassInvalidatedCallback(
      [this](llvm::StringRef, const llvm::PreservedAnalyses &) { end(); });
  PIC.registerBeforeAnalysisCallback(
      [this](llvm::StringRef Analysis, llvm::Any) { begin(Analysis, true); });
  PIC.registerAfterAnalysisCallback(
      [this](llvm::StringRef, llvm::Any) { end(); });
}

std::string PassTimer::report(const std::string &Name, size_t Shown) const {
  std::vector<std::pair<double, std::string>> ByCost;
  double Total = 0;
  for (const auto &[Pass, Ms] : Self) {
    ByCost.push_back({-Ms, Pass});
    Total += Ms;
  }
  std::sort(ByCost.begin(), ByCost.end());
  char Buf[64];
  std::snprintf(Buf, sizeof Buf, "%.2fms", Total);
  std::string Out = "pycuda_jit passes [" + Name + "]: total=" + Buf;
  // Names under 0.005 ms (printed as 0.00) join the rest's sum, which
  // keeps the line short.
  double Rest = 0;
  size_t Left = 0;
  for (size_t I = 0; I < ByCost.size(); ++I) {
    if (I >= Shown || -ByCost[I].first < 0.005) {
      Rest -= ByCost[I].first;
      ++Left;
      continue;
    }
    std::snprintf(Buf, sizeof Buf, "=%.2f", -ByCost[I].first);
    Out += " " + ByCost[I].second + Buf;
  }
  if (Left) {
    std::snprintf(Buf, sizeof Buf, " %.2f)", Rest);
    Out += " (+" + std::to_string(Left) + " more" + Buf;
  }
  return Out;
}

} // namespace pcj::codegen::detail
