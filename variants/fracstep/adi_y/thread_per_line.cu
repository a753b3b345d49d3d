// fracstep/adi_y/thread_per_line: (1 - beta Ly)^-1 of du, dv, dw, a thread a y line running the shared
// line solve (formulas.hpp: adi_line, the tridiag family's Thomas and Sherman-Morrison formulas).
#include "fracstep/fracstep_kernels.cuh"

namespace nsb {
namespace {

const Registrar reg{adi_thread_per_line_variant<1>("fracstep/adi_y", "baseline: a thread a y line, neighbouring threads neighbouring in x (coalesced rows), Thomas")};

}  // namespace
}  // namespace nsb
