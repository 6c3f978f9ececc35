// ErrorRecord: the host side of a GPU kernel's failing `assert`, `raise` or
// checked error (the layout: runtime/ErrorRecordAbi.h).
//
// Each context has one record in pinned host memory mapped into the device.
// loadModule binds every module with error sites to it (attachErrorRecord)
// and keeps the module's site table here.  The first failing thread of any
// kernel fills the record and exits, without a trap, so the context stays
// usable.  Every call that knows the device's work (or a stream's) is
// complete checks the record (checkErrorRecord: one load from host memory
// when it is empty) and throws KernelRaised, freeing the record:
// synchronize(), Context::synchronize, Stream/Event::synchronize,
// synchronizeStream, a completed Event::query / queryStream, and the
// blocking copies to the host (copyDeviceToHost, blocking 2D copies).
//
//   std::shared_ptr<Module> M = loadModule(Image); // attachErrorRecord(*M)
//   launchKernel(...);  synchronize();  // throws KernelRaised if it failed
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace pcj::rt {

class Module;

/// One entry of a module's site table.
struct ErrorSite {
  std::string errorClass; ///< pycuda_jit.errors class, or "" for raise/assert
  std::string exception;  ///< raise/assert: the builtin exception class
  std::string message;    ///< the constant message ("" for none)
  std::string kernel;     ///< the kernel's Python name
  std::string file;
  int line = 0;
  int axis = -1; ///< index errors: the axis out of bounds
  int rank = 0;  ///< index errors: dimensions in the record (ErrorRecordAbi.h)
};

/// A kernel's error, found in the record by a synchronizing call.  what():
/// "<message> in kernel 'k' (file:line), thread (x, y, z) block (x, y, z)",
/// as the CPU executor words it.
class KernelRaised : public std::runtime_error {
public:
  KernelRaised(const ErrorSite &Site, const std::string &Message,
               const uint32_t Thread[3], const uint32_t Block[3]);
  /// Like ErrorSite::errorClass / exception.
  const std::string &errorClass() const noexcept { return Site.errorClass; }
  const std::string &exception() const noexcept { return Site.exception; }
  const std::string &file() const noexcept { return Site.file; }
  int line() const noexcept { return Site.line; }
  const uint32_t *thread() const noexcept { return Thread; }
  const uint32_t *block() const noexcept { return Block; }

private:
  ErrorSite Site;
  uint32_t Thread[3], Block[3];
};

/// Binds M (just loaded, in the current context) to the context's record
/// and reads its site table; nothing for a module without error sites.
void attachErrorRecord(Module &M);

/// Throws KernelRaised when a kernel of device Ordinal's context filled the
/// record, and frees the record; else returns (a load from host memory).
void checkErrorRecord(int Ordinal);

/// Parses a site table (pcj_error_sites' bytes); false if malformed.
bool parseErrorSites(const std::string &Table, std::vector<ErrorSite> &Sites);

struct ErrorRecord;
/// The error a filled record describes, given its module's site table
/// (null or too short: "a kernel failed at an unknown error site").
KernelRaised errorOfRecord(const ErrorRecord &R,
                           const std::vector<ErrorSite> *Table);

} // namespace pcj::rt
