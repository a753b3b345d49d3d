// fracstep/adi_x/thread_per_line: (1 - beta Lx)^-1 of du, dv, dw, a thread a x line running the shared
// line solve (formulas.hpp: adi_line, the tridiag family's Thomas and Sherman-Morrison formulas).
#include "fracstep/fracstep_kernels.cuh"

namespace nsb {
namespace {

const Registrar reg{adi_thread_per_line_variant<0>("fracstep/adi_x", "baseline: a thread an x line (each thread walks its own contiguous row: uncoalesced; the paper transposes first), Sherman-Morrison")};

}  // namespace
}  // namespace nsb
