# Cross-compiling pycuda_jit for aarch64 Linux (Arm hosts: Grace in GH200/GB200)
# from an x86-64 Debian 12 machine.  Used by .ci/aarch64, which makes the
# sysroot: the arm64 .debs (LLVM, glibc, libstdc++, zlib, zstd, GoogleTest,
# CPython headers) unpacked with dpkg -x into build-aarch64/sysroot.
#   PCJ_AARCH64_SYSROOT (environment) overrides where the sysroot is.
#   PCJ_LLVM_VERSION    (environment) which llvm-N-dev of the sysroot to use
#                       (default: the one there is).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

if(DEFINED ENV{PCJ_AARCH64_SYSROOT})
  set(pcj_sysroot "$ENV{PCJ_AARCH64_SYSROOT}")
else()
  get_filename_component(pcj_sysroot "${CMAKE_CURRENT_LIST_DIR}/../build-aarch64/sysroot" ABSOLUTE)
endif()
if(DEFINED ENV{PCJ_LLVM_VERSION})
  set(pcj_llvm_version "$ENV{PCJ_LLVM_VERSION}")
else() # the one LLVM the sysroot holds (.ci/aarch64 sets the variable)
  file(GLOB pcj_llvm_dirs LIST_DIRECTORIES true "${pcj_sysroot}/usr/lib/llvm-*")
  list(GET pcj_llvm_dirs 0 pcj_llvm_dir)
  string(REGEX REPLACE ".*/llvm-" "" pcj_llvm_version "${pcj_llvm_dir}")
endif()

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_SYSROOT "${pcj_sysroot}")
set(CMAKE_FIND_ROOT_PATH "${pcj_sysroot}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)  # cmake, python3, ninja: the host's
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# try_run and the GoogleTest discovery run aarch64 binaries through qemu.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L "${pcj_sysroot}")

# LLVM's CMake package of the sysroot (static libraries, AArch64 + NVPTX).
set(LLVM_DIR "${pcj_sysroot}/usr/lib/llvm-${pcj_llvm_version}/lib/cmake/llvm" CACHE PATH "" FORCE)
# The extension builds against the sysroot's CPython headers (the stable ABI:
# one _core.abi3.so for 3.10+); the interpreter is the host's, for its version.
set(Python3_INCLUDE_DIR "${pcj_sysroot}/usr/include/python3.11" CACHE PATH "")
