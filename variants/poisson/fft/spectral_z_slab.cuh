// fft2_tridiag on a real z-slab GPU rank (fracstep V1 on GPU ranks, PoissonZSlab; the threads driver, a GPU a
// rank): the cuFFT solve of spectral_lines.cuh split at its transposes, as the host split does it
// (reference_cpu/poisson/fft_cpu.cpp solve_z_slab), every pass the one-GPU solve's kernel:
//   on the z-slab (nx x ny x nz_r)     pack; forward x (gather, cuFFT batched over the rank's rows and planes, scatter)
//   z -> x (P1)                         the complex field to the rank's x-slab (columns x ny x nz, x fastest),
//                                       transpose/transpose_peer.cuh's peer pulls, 2 words a point
//   on the x-slab                       forward z; the y Thomas solve of each (kx, kz) line with the GLOBAL kx's
//                                       eigenvalue (EigShift::x0; the null-space line (0, 0) is whole on the rank
//                                       holding kx = 0); inverse z
//   x -> z (P4), on the z-slab          inverse x; unpack (1 / (nx nz)); p's ghosts by the faces (the cut z
//                                       planes' are the caller's: fracstep exchanges them before correct)
// The transposes are timed in section z_slab.all_to_all (inside the transforms' section), as on the host.
#pragma once

#include <memory>

#include "fields.hpp"
#include "transpose/transpose_peer.cuh"
#include "peer_ranks.hpp"
#include "poisson/fft/spectral_lines.cuh"

namespace nsb {

template <class T>
class SpectralZSlab final : public DirectSolveState {
 public:
  explicit SpectralZSlab(const PoissonDirectCall<T>& c)
      : g_(c.grid), faces_(c.faces), z_(c.z_slab), shape_{c.grid.nx, c.grid.ny, c.z_slab.planes, c.z_slab.comm->size(), 2} {
    check_transpose_shape(shape_);
    if (shape_.nzs(z_.rank) != g_.nz || shape_.z0(z_.rank) != z_.first_plane)
      throw std::logic_error("poisson/fft2_tridiag: a z-slab rank's planes are not its block of the whole z");
    refuse_past_point_index(g_);
    columns_ = shape_.nxs(z_.rank), x0_ = shape_.x0(z_.rank);
    const int len[3] = {g_.nx, g_.ny, z_.planes};  // the whole axes' (the eigenvalues of the global kx and kz)
    const double h[3] = {g_.dx(), g_.dy(), z_.dz};
    for (int a = 0; a < 3; ++a) t_[a] = axis_transform(faces_, a, nullptr);
    const std::vector<T> eig = axis_eigenvalues<T>(t_, len, h);
    const std::vector<T> rows = tridiagonal_row_table<T>(g_.ny, h[1], faces_, c.y_faces);
    const std::size_t zpoints = g_.interior_points(), xpoints = std::size_t(columns_) * g_.ny * z_.planes;
    w_ = Buffer<T>(2 * zpoints, true, "poisson fft2_tridiag z-slab: spectral array"), e_ = Buffer<T>(2 * zpoints, true, "poisson fft: line array");
    wx_ = Buffer<T>(2 * xpoints, true, "poisson fft2_tridiag x-slab: spectral array"), ex_ = Buffer<T>(2 * xpoints, true, "poisson fft: line array");
    blocks_ = Buffer<T>(2 * zpoints, true, "poisson fft2_tridiag z-slab: transpose blocks");
    scratch_ = Buffer<T>(xpoints, true, "poisson fft2_tridiag: Thomas scratch");
    eig_ = Buffer<T>(eig.size(), true, "poisson fft: eigenvalues"), eig_.upload(eig);
    rows_ = Buffer<T>(rows.size(), true, "poisson fft2_tridiag: rows"), rows_.upload(rows);
    try {
      if (g_.nx > 1) plan_x_ = line_plan<T>(g_.nx, zpoints), planned_x_ = true;
      if (z_.planes > 1) plan_z_ = line_plan<T>(z_.planes, xpoints), planned_z_ = true;
    } catch (...) {
      release_plans();
      throw;
    }
    int device = 0;
    NSB_CUDA(cudaGetDevice(&device));
    peers_ = std::make_unique<PeerRanks>(*z_.comm, device, c.exec.stream);  // collective: every rank's first solve
  }
  ~SpectralZSlab() override { release_plans(); }
  SpectralZSlab(const SpectralZSlab&) = delete;
  SpectralZSlab& operator=(const SpectralZSlab&) = delete;

  void solve(const PoissonDirectCall<T>& c) {
    const cudaStream_t stream = static_cast<cudaStream_t>(c.exec.stream);
    const int block = c.tuning.bx > 0 ? c.tuning.bx : 256;
    const AxisGeometry along_x{{g_.nx, g_.ny, g_.nz}, 0, t_[0], g_.interior_points()};
    const AxisGeometry along_z{{columns_, g_.ny, z_.planes}, 2, t_[2], std::size_t(columns_) * g_.ny * z_.planes};
    double scale = 1;  // 1 / the product of the transformed lengths, in the one-GPU solve's order (x, then z)
    if (planned_x_) scale /= g_.nx;
    if (planned_z_) scale /= z_.planes;
    const PassEnds<T> none{g_};

    c.phases.begin(c.phases.transforms);
    pack_kernel<<<spectral_blocks(g_.interior_points(), block), block, 0, stream>>>(w(), c.rhs, c.rhs_scale, g_);
    NSB_LAUNCHED("pack_kernel");
    if (planned_x_) transform_through_lines(w(), e(), along_x, plan_x_, CUFFT_FORWARD, stream, block, none);
    all_to_all(c, TransposeDirection::z_to_x, stream);
    if (planned_z_) transform_through_lines(wx(), ex(), along_z, plan_z_, CUFFT_FORWARD, stream, block, none);
    c.phases.end(c.phases.transforms);

    c.phases.begin(c.phases.tridiagonal);
    const EigShift<T> eig{eig_.get(), g_.nx, g_.ny, t_[0], t_[2], faces_.face[1][0] == PoissonFace::neumann, x0_};
    const std::size_t lines = std::size_t(columns_) * z_.planes;
    thomas_kernel<<<spectral_blocks(lines, 128), 128, 0, stream>>>(wx(), scratch_.get(), eig, rows_.get(), columns_, g_.ny, z_.planes, 1,
                                                                  true);
    NSB_LAUNCHED("thomas_kernel");
    c.phases.end(c.phases.tridiagonal);

    c.phases.begin(c.phases.transforms);
    if (planned_z_) transform_through_lines(wx(), ex(), along_z, plan_z_, CUFFT_INVERSE, stream, block, none);
    all_to_all(c, TransposeDirection::x_to_z, stream);
    if (planned_x_) transform_through_lines(w(), e(), along_x, plan_x_, CUFFT_INVERSE, stream, block, none);
    unpack_kernel<<<spectral_blocks(g_.interior_points(), block), block, 0, stream>>>(c.p, w(), T(scale), g_);
    NSB_LAUNCHED("unpack_kernel");
    launch_ghost_axes(c.p, g_, faces_, stream, block);
    c.phases.end(c.phases.transforms);
  }

 private:
  Complex<T>* w() const { return reinterpret_cast<Complex<T>*>(w_.get()); }
  Complex<T>* e() const { return reinterpret_cast<Complex<T>*>(e_.get()); }
  Complex<T>* wx() const { return reinterpret_cast<Complex<T>*>(wx_.get()); }
  Complex<T>* ex() const { return reinterpret_cast<Complex<T>*>(ex_.get()); }
  // The complex field between the rank's z-slab (W, compact) and its x-slab, timed where the caller asks.
  void all_to_all(const PoissonDirectCall<T>& c, TransposeDirection d, cudaStream_t stream) {
    if (z_.all_to_all >= 0) c.phases.begin(z_.all_to_all);
    transpose_on_gpu_rank(*peers_, shape_, z_.rank, compact_z_slab(shape_, w_.get()), wx_.get(), blocks_.get(), d, kTransposeThreads,
                          stream);
    if (z_.all_to_all >= 0) c.phases.end(z_.all_to_all);
  }
  void release_plans() {
    if (planned_x_) cufftDestroy(plan_x_), planned_x_ = false;
    if (planned_z_) cufftDestroy(plan_z_), planned_z_ = false;
  }

  static constexpr int kTransposeThreads = 256;  // the transpose stages' default block
  Grid g_;                // the rank's z-slab
  PoissonFaces faces_;
  PoissonZSlab z_;
  TransposeShape shape_;  // the whole field's points over the ranks, a complex value (2 words) a point
  int columns_ = 0, x0_ = 0;  // the rank's x-slab: columns x0_ .. x0_ + columns_
  AxisTransform t_[3] = {};
  Buffer<T> w_, e_;       // the z-slab's spectral and line arrays (complex: 2 words a point)
  Buffer<T> wx_, ex_;     // the x-slab's
  Buffer<T> blocks_;      // the transposes' send (z -> x) or receive (x -> z) blocks
  Buffer<T> scratch_;     // Thomas's c', a word an x-slab point
  Buffer<T> eig_, rows_;  // the whole axes' eigenvalues, the y rows
  cufftHandle plan_x_ = 0, plan_z_ = 0;
  bool planned_x_ = false, planned_z_ = false;
  std::unique_ptr<PeerRanks> peers_;
};

// The tridiagonal variants' solve: on a real z-slab GPU rank (fracstep V1) the split one above, else
// spectral_lines.cuh's (fused: pack and unpack folded into the transforms; the split solve runs every pass
// as its own kernel, the same numbers).
template <class T>
void solve_spectral_tridiagonal(const PoissonDirectCall<T>& c, const char* variant, bool fused) {
  if (!c.z_slab.comm) return solve_spectral(c, variant, true, fused);
  direct_solve_state<SpectralZSlab<T>>(c, variant, true, [&] { return std::make_unique<SpectralZSlab<T>>(c); }).solve(c);
}

}  // namespace nsb
