// What every stage call of every solver carries besides its fields: the backend it runs on, the
// tuning (block shape, work per thread, pipeline depth) and the execution context.
//
// A solver defines its own call structure (its fields and step parameters, e.g. projection's
// StageCall<T>) and embeds these; the generic core never looks inside a solver's call.
#pragma once

#include <cstddef>
#include <string>
#include <typeindex>
#include <typeinfo>
#include <vector>

namespace nsb {

enum class Backend { cpu_serial, cpu_omp, cuda };
const char* backend_name(Backend b);
// Throws std::runtime_error naming the known backends.
Backend parse_backend(const std::string& s);

// Time-stepping schemes of explicit predictors (the solver's choice, a run option).
enum class TimeScheme : int { euler = 0, adams_bashforth2 = 1 };

struct TuningInstance;

// Same code, another parameter. The axes are generic; a stage kind declares which it accepts, and a
// tuning name spells the values in a fixed order: "bx16_by8_sz2", "bx128_by4_sz32_pf2_mb2", "b256".
struct Tuning {
  std::string name = "default";
  int bx = 0, by = 0;  // 2D thread block (bx x by); 1D variants use bx alone
  int sz = 0;          // z levels per thread (thesis SIZE_Z); 0 = whole column
  int pf = 0;          // levels a copy pipeline loads ahead of the one being computed (bulk-copy variants)
  int mb = 0;          // blocks per SM the kernel is compiled to fit (__launch_bounds__); 0 = no request
  int w = 0;           // a relaxation factor in hundredths (SOR's omega: w190 = 1.90); 0 = none
  int co = -1;         // shared-memory carve-out preference, % of the unified L1/shared memory (co0: most L1,
                       // co100: most shared); -1 = none, the driver's choice
  // Where some of these values are template parameters (a block shape, a copy depth, a register cap),
  // the compiled instance this tuning runs, chosen once at registration; null where the variant reads
  // every value at run time. Every copy of the tuning (a recipe's, a call's) carries it.
  const TuningInstance* instance = nullptr;
};

// A variant's entry point for one precision, whatever its solver's call structure: `void f(const Call&)`.
// The call type is kept, so that a variant registered for the wrong stage kind is refused by name.
class StageFn {
 public:
  StageFn() = default;
  template <class Call>
  StageFn(void (*f)(const Call&)) : fn_(reinterpret_cast<void (*)()>(f)), call_type_(typeid(Call)) {}
  template <class Call>
  void operator()(const Call& c) const {
    reinterpret_cast<void (*)(const Call&)>(fn_)(c);
  }
  explicit operator bool() const { return fn_ != nullptr; }
  std::type_index call_type() const { return call_type_; }

 private:
  void (*fn_)() = nullptr;
  std::type_index call_type_ = typeid(void);
};

// The entry point of calls of type Call: run_float or run_double by Call::value_type.
template <class Call, class Entries>
const StageFn& entry_for(const Entries& e) {
  if constexpr (sizeof(typename Call::value_type) == sizeof(float)) return e.run_float;
  else return e.run_double;
}

// A compiled kernel of a variant, for its register / shared / local-memory report.
struct KernelRef {
  std::string name;
  const void* fn;
  int elem_bytes;  // 4: the float instance, 8: the double one
  const TuningInstance* instance = nullptr;  // the tuning instance it belongs to; null: every tuning runs it

  // Whether a call with tuning t runs this kernel.
  bool runs(const Tuning& t) const { return instance == t.instance; }
};

// A compiled instance of a variant's code, for the tunings whose values are its template parameters:
// an entry point per precision that launches exactly this instance (no look-up of the tuning at run
// time) and its kernels. Built once, where the variant registers its tunings; the variant's own entry
// point, run_tuning_instance (registry.hpp), calls the one of the call's tuning.
struct TuningInstance {
  StageFn run_float;
  StageFn run_double;
  std::vector<KernelRef> kernels;  // Registry::add lists them among the variant's kernels, marked as its
};

// The axes a tuning name may use, in their spelling order.
inline constexpr const char* kTuningAxes[] = {"bx", "by", "sz", "pf", "mb", "b", "w", "co"};

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
