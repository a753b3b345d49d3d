// The real-to-complex direct solve (poisson/fft/cufft_r2c; the numerics are fft_real.hpp's): five
// passes on the call's stream, against 6 to 8 a transformed axis for the complex path of
// spectral_lines.cuh:
//   real_pack    R = the reordered, sign-flipped rhs_scale * rhs (real, one word a point each way)
//   cuFFT R2C    one 3D real-to-complex plan over the axes of more than one cell: R -> half spectrum C
//   orbit        C in place: every cosine/sine axis's post-twiddle, the division, every pre-twiddle
//   cuFFT C2R    C -> R (unnormalised)
//   real_unpack  p = the reordering undone, / (nx ny nz); then p's ghosts by the faces
// The plans and buffers are the call's workspace state, built on its first call (as SpectralLines).
#pragma once

#include "poisson/fft/spectral_lines.cuh"
#include "poisson/fft_real.hpp"

namespace nsb {

template <class T>
struct CufftReal;
template <>
struct CufftReal<float> {
  static constexpr cufftType forward = CUFFT_R2C, inverse = CUFFT_C2R;
  static cufftResult exec_forward(cufftHandle p, float* r, Complex<float>* c) {
    return cufftExecR2C(p, r, reinterpret_cast<cufftComplex*>(c));
  }
  static cufftResult exec_inverse(cufftHandle p, Complex<float>* c, float* r) {
    return cufftExecC2R(p, reinterpret_cast<cufftComplex*>(c), r);
  }
};
template <>
struct CufftReal<double> {
  static constexpr cufftType forward = CUFFT_D2Z, inverse = CUFFT_Z2D;
  static cufftResult exec_forward(cufftHandle p, double* r, Complex<double>* c) {
    return cufftExecD2Z(p, r, reinterpret_cast<cufftDoubleComplex*>(c));
  }
  static cufftResult exec_inverse(cufftHandle p, Complex<double>* c, double* r) {
    return cufftExecZ2D(p, reinterpret_cast<cufftDoubleComplex*>(c), r);
  }
};

// The pack and unpack passes: a point's value moves between the padded field and its reordered place in R.
template <class T>
__global__ void real_pack_kernel(T* R, const T* rhs, T scale, Grid g, RealSpectrumShape s) {
  NSB_POINTS_LOOP(w, g.interior_points()) {
    const CompactPoint q = compact_point(w, g.nx, g.ny);
    bool flip;
    const std::size_t m = s.real_index(q.c, &flip);
    const T v = scale * rhs[g.idx(q.c[0] + 1, q.c[1] + 1, q.c[2] + 1)];
    R[m] = flip ? -v : v;
  }
}
template <class T>
__global__ void real_unpack_kernel(T* p, const T* R, T scale, Grid g, RealSpectrumShape s) {
  NSB_POINTS_LOOP(w, g.interior_points()) {
    const CompactPoint q = compact_point(w, g.nx, g.ny);
    bool flip;
    const T v = scale * R[s.real_index(q.c, &flip)];
    p[g.idx(q.c[0] + 1, q.c[1] + 1, q.c[2] + 1)] = flip ? -v : v;
  }
}
template <class T>
__global__ void orbit_kernel(Complex<T>* C, RealSpectrumShape s, RealSpectrumTables<T> tables) {
  NSB_POINTS_LOOP(o, s.orbits()) solve_spectral_orbit(C, s, tables, o);
}

template <class T>
class RealSpectrum final : public DirectSolveState {
 public:
  explicit RealSpectrum(const PoissonDirectCall<T>& c) : g_(c.grid), faces_(c.faces) {
    try {
      build();
    } catch (...) {
      release();
      throw;
    }
  }
  ~RealSpectrum() override { release(); }
  RealSpectrum(const RealSpectrum&) = delete;
  RealSpectrum& operator=(const RealSpectrum&) = delete;

  void solve(const PoissonDirectCall<T>& c) {
    const cudaStream_t stream = static_cast<cudaStream_t>(c.exec.stream);
    const int block = c.tuning.bx > 0 ? c.tuning.bx : 256;
    const unsigned grid = spectral_blocks(g_.interior_points(), block);
    real_pack_kernel<<<grid, block, 0, stream>>>(r_, c.rhs, c.rhs_scale, g_, shape_);
    NSB_LAUNCHED("real_pack_kernel");
    cufft_check(cufftSetStream(forward_, stream), "cufftSetStream");
    cufft_check(CufftReal<T>::exec_forward(forward_, r_, c_), "cufftExec (forward, real to complex)");
    orbit_kernel<<<spectral_blocks(shape_.orbits(), block), block, 0, stream>>>(c_, shape_, RealSpectrumTables<T>{eig_, tw_});
    NSB_LAUNCHED("orbit_kernel");
    cufft_check(cufftSetStream(inverse_, stream), "cufftSetStream");
    cufft_check(CufftReal<T>::exec_inverse(inverse_, c_, r_), "cufftExec (inverse, complex to real)");
    const T scale = T(1.0 / double(g_.interior_points()));  // the unnormalised inverse, every axis
    real_unpack_kernel<<<grid, block, 0, stream>>>(c.p, r_, scale, g_, shape_);
    NSB_LAUNCHED("real_unpack_kernel");
    launch_ghost_axes(c.p, g_, faces_, stream, block);
  }

 private:
  void build() {
    const std::size_t points = g_.interior_points();
    refuse_past_point_index(g_);
    shape_ = {{g_.nx, g_.ny, g_.nz}, real_half_axis(g_), {}};
    for (int a = 0; a < 3; ++a) shape_.t[a] = axis_transform(faces_, a, nullptr);
    std::vector<T> eig;
    std::vector<Complex<T>> tw;
    build_real_tables(g_, shape_, eig, tw);
    eig_ = static_cast<T*>(device::alloc(eig.size() * sizeof(T), "poisson fft: eigenvalues"));
    device::copy_to_device(eig_, eig.data(), eig.size() * sizeof(T));
    tw_ = static_cast<Complex<T>*>(device::alloc(tw.size() * sizeof(Complex<T>), "poisson fft: twiddles"));
    device::copy_to_device(tw_, tw.data(), tw.size() * sizeof(Complex<T>));
    r_ = static_cast<T*>(device::alloc(points * sizeof(T), "poisson fft: real array"));
    c_ = static_cast<Complex<T>*>(device::alloc(shape_.complex_points() * sizeof(Complex<T>), "poisson fft: half spectrum"));
    // cuFFT's dimensions, slowest first, without the axes of one cell: its last is shape_.half.
    int n[3], rank = 0;
    for (int a = 2; a >= 0; --a)
      if (shape_.len[a] > 1) n[rank++] = shape_.len[a];
    if (rank == 0) throw std::invalid_argument("poisson fft: a grid of one cell has nothing to transform");
    cufft_check(cufftPlanMany(&forward_, rank, n, nullptr, 1, 0, nullptr, 1, 0, CufftReal<T>::forward, 1), "cufftPlanMany");
    planned_forward_ = true;
    cufft_check(cufftPlanMany(&inverse_, rank, n, nullptr, 1, 0, nullptr, 1, 0, CufftReal<T>::inverse, 1), "cufftPlanMany");
    planned_inverse_ = true;
  }
  void release() {
    if (planned_forward_) cufftDestroy(forward_), planned_forward_ = false;
    if (planned_inverse_) cufftDestroy(inverse_), planned_inverse_ = false;
    for (void* b : {(void*)r_, (void*)c_, (void*)eig_, (void*)tw_})
      if (b) device::free(b);
    r_ = nullptr, c_ = nullptr, eig_ = nullptr, tw_ = nullptr;
  }

  Grid g_;
  PoissonFaces faces_;
  RealSpectrumShape shape_{};
  cufftHandle forward_ = 0, inverse_ = 0;
  bool planned_forward_ = false, planned_inverse_ = false;
  T* r_ = nullptr;
  Complex<T>* c_ = nullptr;
  T* eig_ = nullptr;
  Complex<T>* tw_ = nullptr;
};

template <class T>
void solve_real_spectrum(const PoissonDirectCall<T>& c, const char* variant) {
  direct_solve_state<RealSpectrum<T>>(c, variant, false, [&] { return std::make_unique<RealSpectrum<T>>(c); }).solve(c);
}

}  // namespace nsb
