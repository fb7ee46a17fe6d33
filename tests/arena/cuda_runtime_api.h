// A stand-in for the CUDA runtime API, backed by host memory, so that the arena allocator
// (python/memplan_torch/arena/arena.cc) is built and tested on machines without CUDA. It declares only what
// the arena uses, and counts the calls the test checks.
#pragma once

#include <cstddef>
#include <cstdlib>

using cudaError_t = int;
constexpr cudaError_t cudaSuccess = 0;
constexpr cudaError_t cudaErrorMemoryAllocation = 2;
using cudaStream_t = struct CUstream_st*;

namespace host_cuda {
inline int mallocs = 0;  // cudaMalloc calls that succeeded
inline int frees = 0;    // cudaFree calls
}  // namespace host_cuda

inline cudaError_t cudaMalloc(void** ptr, size_t size) {
  // a device of 1 TiB: larger requests fail without asking the host (a sanitizer would abort on them)
  *ptr = size > (size_t{1} << 40) ? nullptr : std::malloc(size == 0 ? 1 : size);
  if (*ptr == nullptr) return cudaErrorMemoryAllocation;
  ++host_cuda::mallocs;
  return cudaSuccess;
}

inline cudaError_t cudaFree(void* ptr) {
  std::free(ptr);
  ++host_cuda::frees;
  return cudaSuccess;
}
