// Errors: the exceptions the CUDA runtime layer throws.
//
// DriverError carries what a failed driver call returned: the CUresult code,
// the driver's name and text for it (cuGetErrorName / cuGetErrorString, or our
// own table when the driver cannot answer), and the API call that failed.
// Out-of-memory and "sticky" errors (the context is dead; see
// PCJ_CU_RESULTS in CudaTypes.h) are flagged so that the Python layer can
// raise distinct exception subclasses. A missing or unusable driver is a
// DriverError too (noDriver() is true), whose message says how to get one or
// how to use the CPU backend instead.
//
//   check(api().cuMemFree(Ptr), "cuMemFree");   // throws DriverError on error
#pragma once

#include "runtime/CudaTypes.h"

#include <stdexcept>
#include <string>

namespace pcj::rt {

/// True for errors after which the CUDA context cannot be used any more.
bool isStickyError(CUresult Code);

/// The enumerator name of Code from our table ("CUDA_ERROR_OUT_OF_MEMORY"),
/// or nullptr for a code the table does not list.
const char *cuResultName(CUresult Code);

class DriverError : public std::runtime_error {
public:
  /// Name and Text describe Code; Detail (a JIT log, a size...) is appended
  /// to the message on its own lines when non-empty.
  DriverError(CUresult Code, std::string Call, std::string Name,
              std::string Text, std::string Detail = {});

  /// The error for "there is no usable CUDA driver in this process".
  /// Code is what cuInit returned, or CUDA_ERROR_NOT_INITIALIZED when
  /// libcuda could not be loaded at all; Call is "dlopen", "dlsym" or
  /// "cuInit"; Reason becomes the whole message.
  static DriverError noDriver(CUresult Code, const char *Call,
                              const std::string &Reason);

  CUresult code() const { return Code; }
  const std::string &call() const { return Call; }
  const std::string &name() const { return Name; }
  const std::string &text() const { return Text; }
  const std::string &detail() const { return Detail; }
  bool isOutOfMemory() const { return Code == CUDA_ERROR_OUT_OF_MEMORY; }
  bool isSticky() const { return isStickyError(Code); }
  bool isNoDriver() const { return NoDriver; }

private:
  DriverError(CUresult Code, std::string Message, bool NoDriver);

  CUresult Code;
  std::string Call;
  std::string Name;
  std::string Text;
  std::string Detail;
  bool NoDriver = false;
};

/// Builds the DriverError for a failed call, asking the process's driver to
/// name the code, and throws it.
[[noreturn]] void throwDriverError(CUresult Code, const char *Call,
                                   std::string Detail = {});

/// Throws DriverError unless Code is CUDA_SUCCESS. Call is the API name.
inline void check(CUresult Code, const char *Call) {
  if (Code == CUDA_SUCCESS) [[likely]]
    return;
  throwDriverError(Code, Call);
}

} // namespace pcj::rt
