// fracstep/adi_z/thread_per_line: (1 - beta Lz)^-1 of du, dv, dw, a thread a z line running the shared
// line solve (formulas.hpp: adi_line, the tridiag family's Thomas and Sherman-Morrison formulas).
#include "fracstep/fracstep_kernels.cuh"

namespace nsb {
namespace {

const Registrar reg{adi_thread_per_line_variant<2>("fracstep/adi_z", "baseline: a thread a z line, neighbouring threads neighbouring in x (coalesced rows), Sherman-Morrison")};

}  // namespace
}  // namespace nsb
