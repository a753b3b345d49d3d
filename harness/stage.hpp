// What every stage call of every solver carries besides its fields: the backend it runs on, the
// tuning (block shape, work per thread, pipeline depth) and the execution context.
//
// A solver defines its own call structure (its fields and step parameters, e.g. projection's
// StageCall<T>) and embeds these; the generic core never looks inside a solver's call.
#pragma once

#include <cstddef>
#include <string>

namespace nsb {

enum class Backend { cpu_serial, cpu_omp, cuda };
const char* backend_name(Backend b);
// Throws std::runtime_error naming the known backends.
Backend parse_backend(const std::string& s);

// Time-stepping schemes of explicit predictors (the solver's choice, a run option).
enum class TimeScheme : int { euler = 0, adams_bashforth2 = 1 };

// Same code, another parameter. The axes are generic; a stage kind declares which it accepts, and a
// tuning name spells the values in a fixed order: "bx16_by8_sz2", "bx128_by4_sz32_pf2_mb2", "b256".
struct Tuning {
  std::string name = "default";
  int bx = 0, by = 0;  // 2D thread block (bx x by); 1D variants use bx alone
  int sz = 0;          // z levels per thread (thesis SIZE_Z); 0 = whole column
  int pf = 0;          // levels a copy pipeline loads ahead of the one being computed (bulk-copy variants)
  int mb = 0;          // blocks per SM the kernel is compiled to fit (__launch_bounds__); 0 = no request
};

// The axes a tuning name may use, in their spelling order.
inline constexpr const char* kTuningAxes[] = {"bx", "by", "sz", "pf", "mb", "b"};

// Device scratch every GPU solver and benchmark hands its reductions (per-block partials, CUB temp).
constexpr std::size_t kReduceScratchBytes = std::size_t(64) << 20;

struct Exec {
  Backend backend = Backend::cpu_serial;
  int threads = 1;             // cpu_omp
  void* stream = nullptr;      // cudaStream_t for cuda variants
  void* scratch = nullptr;     // device scratch for reductions (per-block partials, library temp storage)
  std::size_t scratch_bytes = 0;
};

}  // namespace nsb
