// tridiag/contiguous/cusparse_strided: cuSPARSE gtsv2StridedBatch (cyclic reduction + PCR, no pivoting),
// the library the paper's ADI-Y calls (as gtsv_nopivot). Its buffer comes from the call's work array.
#include "tridiag/cusparse_call.cuh"
#include "registry.hpp"
#include "tridiag/stage_call.hpp"

namespace nsb {
namespace {

template <class T>
void run(const TridiagCall<T>& c) {
  check_tridiag_call(c);
  const TridiagLayout& l = c.layout;
  if (l.inner != 1) throw std::invalid_argument("tridiag: gtsv2StridedBatch needs contiguous systems");
  if (l.n < 3) throw std::invalid_argument("tridiag: gtsv2StridedBatch needs at least 3 unknowns a system");
  const cusparseHandle_t h = cusparse_handle(static_cast<cudaStream_t>(c.exec.stream));
  size_t bytes = 0;
  cusparse_check(gtsv2_strided_buffer(h, l.n, c.a, c.b, c.c, c.x, l.batch, l.n, &bytes), "gtsv2StridedBatch_bufferSizeExt");
  if (bytes > c.work_bytes)
    throw std::invalid_argument("tridiag: gtsv2StridedBatch wants " + std::to_string(bytes) + " bytes of buffer, the work array has " +
                                std::to_string(c.work_bytes));
  cusparse_check(gtsv2_strided(h, l.n, c.a, c.b, c.c, c.x, l.batch, l.n, c.work), "gtsv2StridedBatch");
}

const Registrar reg{Variant{
    .stage = "tridiag/contiguous",
    .name = "cusparse_strided",
    .backend = Backend::cuda,
    .tags = {{"memory", "library"}, {"method", "cr_pcr"}, {"mapping", "library"}},
    .tunings = {parse_tuning("default")},
    .status = "library: cuSPARSE gtsv2StridedBatch (the paper's gtsv_nopivot family)",
    .run_float = &run<float>,
    .run_double = &run<double>,
}};

}  // namespace
}  // namespace nsb
