// GNU build ids: the hash of a linked binary's contents that the linker
// (ld --build-id=sha1) stores in an ELF note, NT_GNU_BUILD_ID.  The disk
// cache keys kernels on the build ids of the compiler's two shared objects,
// so a rebuild that changes any of their code changes every key.
//
// Both readers are cheap: a loaded image's notes are in memory, and a file's
// are found through its ELF and program headers (a few small reads; the
// file is never loaded or read whole).
#pragma once

#include <string>

namespace pcj {

// The build id (lowercase hex) of the loaded executable or shared object
// that contains Address; "" if it has none.
std::string buildIdOfLoadedImage(const void *Address);

// The build id of the ELF file at Path; "" if it cannot be read or has none.
std::string buildIdOfFile(const std::string &Path);

} // namespace pcj
