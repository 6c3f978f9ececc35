// Which executor runs kernels: the CUDA driver or the CPU executor, chosen
// once per process from PYCUDA_JIT_BACKEND (cuda | cpu | auto; auto = the
// GPU when a CUDA device is present, else the CPU with one warning).  Device
// memory operations go through here so device arrays behave the same on
// both (on the CPU "device memory" is host memory).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace pcj::py {

enum class BackendKind : uint8_t { CUDA, CPU };

// Resolves the backend on first call (may raise a Python warning / error).
BackendKind backend();
const char *backendName(BackendKind K);
// Why auto chose the CPU ("" if it did not).
const std::string &backendFallbackReason();

uint64_t deviceAlloc(size_t Bytes);
void deviceFree(uint64_t Ptr);
void copyToDevice(uint64_t Dst, const void *Src, size_t Bytes);
void copyToHost(void *Dst, uint64_t Src, size_t Bytes);
void copyDeviceToDevice(uint64_t Dst, uint64_t Src, size_t Bytes);
void deviceMemset(uint64_t Dst, unsigned char Value, size_t Bytes);
void deviceSynchronize();

} // namespace pcj::py
