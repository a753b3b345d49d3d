// tridiag/* on the CPU: the serial Thomas solver (Sherman-Morrison for cyclic systems), the correctness
// reference of every GPU variant. cpu_serial and cpu_omp are the same loops with the OpenMP region off
// or on; each system is solved alone, so the two agree bit for bit.
#include <omp.h>

#include <stdexcept>

#include "registry.hpp"
#include "tridiag/pdd.hpp"
#include "tridiag/stage_call.hpp"
#include "tridiag/systems.hpp"

namespace nsb {
namespace {

template <class T>
void solve(const TridiagCall<T>& c) {
  const TridiagLayout& l = c.layout;
  check_tridiag_call(c);
  T* const cp = c.work;
  T* const z = c.work + l.points();  // cyclic: Sherman-Morrison's column; PDD: v
  T* const w = c.work + 2 * l.points();
  const bool parallel = c.exec.backend == Backend::cpu_omp;
  const int threads = c.exec.threads > 0 ? c.exec.threads : omp_get_max_threads();
#pragma omp parallel for schedule(static) num_threads(threads) if (parallel)
  for (int s = 0; s < l.batch; ++s) {
    if (c.ranks > 1 && c.ppt) ppt_system(l, s, c.ranks, c.a, c.b, c.c, c.x, PddScratch<T>{z, w, cp});
    else if (c.ranks > 1) pdd_system(l, s, c.ranks, c.a, c.b, c.c, c.x, PddScratch<T>{z, w, cp});
    else if (c.cyclic) cyclic_system(l, s, c.a, c.b, c.c, c.x, cp, z);
    else thomas_system(l, s, c.a, c.b, c.c, c.x, cp);
  }
}

void register_cpu(const char* stage) {
  for (Backend b : {Backend::cpu_serial, Backend::cpu_omp}) {
    Variant v = cpu_reference_variant(stage, b, &solve<float>, &solve<double>);
    const std::string id = stage;
    v.tags = {{"method", id == "tridiag/cyclic" ? "sherman_morrison" : id == "tridiag/pdd" ? "pdd" : id == "tridiag/ppt" ? "ppt" : "thomas"}};
    Registry::instance().add(std::move(v));
  }
}

const bool registered = [] {
  for (const char* stage : {"tridiag/contiguous", "tridiag/interleaved", "tridiag/cyclic", "tridiag/lines_y", "tridiag/pdd", "tridiag/ppt"}) register_cpu(stage);
  return true;
}();

}  // namespace
}  // namespace nsb
