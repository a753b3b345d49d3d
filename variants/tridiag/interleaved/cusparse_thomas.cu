// tridiag/interleaved/cusparse_thomas: cuSPARSE gtsvInterleavedBatch, algo 0 (Thomas, no pivoting).
#include "tridiag/interleaved/cusparse_interleaved.cuh"

namespace nsb {
namespace {

const Registrar reg{Variant{
    .stage = "tridiag/interleaved",
    .name = "cusparse_thomas",
    .backend = Backend::cuda,
    .tags = {{"memory", "library"}, {"method", "thomas"}, {"mapping", "library"}},
    .tunings = {parse_tuning("default")},
    .status = "library: cuSPARSE gtsvInterleavedBatch algo 0 (Thomas); copies a, b, c first",
    .run_float = &run_cusparse_interleaved<float, 0>,
    .run_double = &run_cusparse_interleaved<double, 0>,
}};

}  // namespace
}  // namespace nsb
