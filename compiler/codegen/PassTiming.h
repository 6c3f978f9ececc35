// PassTiming (private to codegen): where the optimisation pipeline's time
// goes, pass by pass, for PYCUDA_JIT_TIMING=passes.
//
// A PassTimer hooks the new pass manager's instrumentation callbacks and
// charges each pass and analysis its self time (its wall time less that of
// the passes and analyses it ran inside it: adaptors and pass managers keep
// only their own overhead), summed per name over the run.  Its report is
// one line, the costliest names first, those under 0.005 ms summed:
//
//   pycuda_jit passes [k0]: total=8.12ms InstCombinePass=2.90 GVNPass=0.41
//     ... analysis:LoopAnalysis=0.03 ... (+52 more 0.09)
//
// Each compile has its own timer, so compiles on several threads never mix.
#pragma once

#include "codegen/Pipeline.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace llvm {
class PassInstrumentationCallbacks;
class StringRef;
} // namespace llvm

namespace pcj::codegen::detail {

// Whether PYCUDA_JIT_TIMING asks for per-pass times ("passes").
bool passTimingRequested();

class PassTimer {
public:
  // Registers the callbacks on PIC, which must outlive the pipeline run.
  void registerCallbacks(llvm::PassInstrumentationCallbacks &PIC);

  // Milliseconds per pass name ("analysis:" before analyses; no blanks),
  // self time.
  const std::map<std::string, double> &selfTimes() const { return Self; }
  // The report line for module Name: the names of at least 0.005 ms (Shown
  // at most), the others counted and summed in "(+N more MS)".
  std::string report(const std::string &Name, size_t Shown = SIZE_MAX) const;

private:
  struct Frame {
    std::string name;
    Clock::time_point start;
    double children = 0; // ms spent in nested passes and analyses
  };
  void begin(llvm::StringRef Name, bool Analysis);
  void end();

  std::vector<Frame> Stack;
  std::map<std::string, double> Self;
};

} // namespace pcj::codegen::detail
