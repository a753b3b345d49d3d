// tridiag/interleaved/cusparse_lu: cuSPARSE gtsvInterleavedBatch, algo 1 (LU with partial pivoting):
// the library's pivoting solver, the counterpart of the diagonal-pivoting solver the paper's Poisson
// y-systems use.
#include "tridiag/interleaved/cusparse_interleaved.cuh"

namespace nsb {
namespace {

const Registrar reg{Variant{
    .stage = "tridiag/interleaved",
    .name = "cusparse_lu",
    .backend = Backend::cuda,
    .tags = {{"memory", "library"}, {"method", "lu_pivoting"}, {"mapping", "library"}},
    .tunings = {parse_tuning("default")},
    .status = "library: cuSPARSE gtsvInterleavedBatch algo 1 (LU, partial pivoting); copies a, b, c first",
    .run_float = &run_cusparse_interleaved<float, 1>,
    .run_double = &run_cusparse_interleaved<double, 1>,
}};

}  // namespace
}  // namespace nsb
