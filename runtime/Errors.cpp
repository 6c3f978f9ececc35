// Errors: DriverError construction and the CUresult tables. See Errors.h.
#include "runtime/Errors.h"

#include "runtime/CudaDriver.h"

namespace pcj::rt {

bool isStickyError(CUresult Code) {
  switch (Code) {
#define PCJ_X(Name, Value, Sticky)                                             \
  case Name:                                                                   \
    return Sticky;
    PCJ_CU_RESULTS(PCJ_X)
#undef PCJ_X
  }
  return false;
}

const char *cuResultName(CUresult Code) {
  switch (Code) {
#define PCJ_X(Name, Value, Sticky)                                             \
  case Name:                                                                   \
    return #Name;
    PCJ_CU_RESULTS(PCJ_X)
#undef PCJ_X
  }
  return nullptr;
}

namespace {

std::string formatMessage(CUresult Code, const std::string &Call,
                          const std::string &Name, const std::string &Text,
                          const std::string &Detail) {
  std::string M = Call + " failed: " + Name + " (" + std::to_string(Code) + ")";
  if (!Text.empty())
    M += ": " + Text;
  if (isStickyError(Code))
    M += " [the CUDA context is no longer usable, and the driver keeps this "
         "error for the rest of the process: save what you can and restart the "
         "process (cuda.close() cannot clear it)]";
  if (!Detail.empty())
    M += "\n" + Detail;
  return M;
}

} // namespace

DriverError::DriverError(CUresult Code, std::string Call, std::string Name,
                         std::string Text, std::string Detail)
    : std::runtime_error(formatMessage(Code, Call, Name, Text, Detail)),
      Code(Code), Call(std::move(Call)), Name(std::move(Name)),
      Text(std::move(Text)), Detail(std::move(Detail)) {}

DriverError::DriverError(CUresult Code, std::string Message, bool NoDriver)
    : std::runtime_error(std::move(Message)), Code(Code), NoDriver(NoDriver) {}

DriverError DriverError::noDriver(CUresult Code, const char *Call,
                                  const std::string &Reason) {
  DriverError E(Code, Reason, /*NoDriver=*/true);
  const char *Known = cuResultName(Code);
  E.Call = Call;
  E.Name = Known ? Known : "CUDA_ERROR_" + std::to_string(Code);
  return E;
}

void throwDriverError(CUresult Code, const char *Call, std::string Detail) {
  auto [Name, Text] = CudaDriver::process().describe(Code);
  throw DriverError(Code, Call, std::move(Name), std::move(Text),
                    std::move(Detail));
}

} // namespace pcj::rt
