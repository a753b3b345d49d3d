// NSB_UNROLL: full unrolling of a fixed-size loop in host-device formulas, so that a register array is
// indexed by constants (device) and a CPU reference's loops are flattened alike (g++; nvcc's host pass
// knows neither pragma in host-device code).
#pragma once

#if defined(__CUDA_ARCH__)
#define NSB_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__)
#define NSB_UNROLL
#elif defined(__GNUC__) && !defined(__clang__)
#define NSB_UNROLL _Pragma("GCC unroll 16")
#else
#define NSB_UNROLL
#endif
