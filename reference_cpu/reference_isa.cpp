// The instruction set the CPU reference was compiled for. This file is compiled with the reference's
// flags (CMakeLists.txt, NSB_CPU_NATIVE), so the compiler's predefined macros here are the reference's.
#include "cpu_bandwidth.hpp"

namespace nsb {

nlohmann::json cpu_reference_isa() {
  nlohmann::json simd = nlohmann::json::array();
#ifdef __SSE2__
  simd.push_back("sse2");
#endif
#ifdef __AVX__
  simd.push_back("avx");
#endif
#ifdef __AVX2__
  simd.push_back("avx2");
#endif
#ifdef __FMA__
  simd.push_back("fma");  // enabled, but -ffp-contract=off keeps a*b+c two roundings
#endif
#ifdef __AVX512F__
  simd.push_back("avx512f");
#endif
#ifdef __ARM_NEON
  simd.push_back("neon");
#endif
#ifdef NSB_CPU_NATIVE
  const char* target = "native (-march=native on the build host)";
#else
  const char* target = "portable (the compiler's default target)";
#endif
  return {{"target", target}, {"simd", simd}, {"fp_contract", "off"}};
}

}  // namespace nsb
