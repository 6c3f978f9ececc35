// Stage dumps and timings on stderr (see CompileReport.h).
#include "CompileReport.h"
#include "support/Env.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace pcj::py {

namespace {

std::string stageList() {
  std::string S;
  for (const char *Name : driver::kStageNames)
    S += std::string(S.empty() ? "" : ", ") + Name;
  return S;
}

bool isStage(const std::string &Name) {
  for (const char *S : driver::kStageNames)
    if (Name == S)
      return true;
  return false;
}

} // namespace

std::set<std::string> envDumps() {
  std::set<std::string> S;
  const char *Env = env::raw(env::Var::Dump);
  if (!Env)
    return S;
  std::stringstream SS(Env);
  std::string Item;
  while (std::getline(SS, Item, ',')) {
    if (Item.empty())
      continue;
    if (Item != "all" && !isStage(Item)) {
      PyErr_Format(
          PyExc_ValueError,
          "PYCUDA_JIT_DUMP names an unknown stage '%s'; the stages are %s "
          "(or all)",
          Item.c_str(), stageList().c_str());
      throw PythonError{};
    }
    S.insert(Item);
  }
  return S;
}

bool envTiming() { return env::flag(env::Var::Timing); }

void checkStageName(const std::string &Stage) {
  if (isStage(Stage))
    return;
  PyErr_Format(PyExc_ValueError, "unknown stage '%s'; the stages are %s",
               Stage.c_str(), stageList().c_str());
  throw PythonError{};
}

void printDumps(const driver::CompileResult &R) {
  std::set<std::string> Want = envDumps();
  for (const char *Stage : driver::kStageNames) {
    if (!Want.count(Stage) && !Want.count("all"))
      continue;
    auto It = R.dumps.find(Stage);
    if (It == R.dumps.end())
      continue;
    std::fprintf(stderr, "---- pycuda_jit %s: %s %s ----\n%s\n", Stage,
                 R.kernelName.c_str(), R.signature.c_str(), It->second.c_str());
  }
}

void printTimings(const driver::CompileResult &R, const char *How) {
  if (!envTiming())
    return;
  std::string Line = "pycuda_jit timing " + R.kernelName + " " + R.signature +
                     " [" + How + "]:";
  double Total = 0;
  char Buf[64];
  for (const auto &T : R.timings) {
    std::snprintf(Buf, sizeof Buf, " %s=%.2fms", T.stage.c_str(), T.ms);
    Line += Buf;
    if (T.stage.find('.') == std::string::npos ||
        T.stage.rfind("load.", 0) == 0 || T.stage.rfind("cache.", 0) == 0)
      Total += T.ms;
  }
  std::snprintf(Buf, sizeof Buf, " total=%.2fms\n", Total);
  Line += Buf;
  std::fputs(Line.c_str(), stderr);
  std::fflush(stderr);
}

} // namespace pcj::py
