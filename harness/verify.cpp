#include "verify.hpp"

#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>

#include "device.hpp"
#include "projection/solver.hpp"

namespace nsb {
namespace {

constexpr int kFields = 12;  // u v w us vs ws hu hv hw p p_new div

template <class T>
FieldPtrs<T> pointers(std::vector<T*> a) {
  FieldPtrs<T> f;
  f.u = a[0], f.v = a[1], f.w = a[2], f.us = a[3], f.vs = a[4], f.ws = a[5];
  f.hu = a[6], f.hv = a[7], f.hw = a[8], f.p = a[9], f.p_new = a[10], f.div = a[11];
  return f;
}

// A boundary set that exercises every rule: walls (one moving), free-slip, periodic.
BoundarySpec mixed_boundaries() {
  BoundarySpec b;
  b.face[0][0].type = b.face[0][1].type = FaceType::wall;
  b.face[0][1].wall_velocity[1] = 0.7;
  b.face[0][1].wall_velocity[2] = -0.3;
  b.face[1][0].type = b.face[1][1].type = FaceType::periodic;
  b.face[2][0].type = FaceType::free_slip;
  b.face[2][1].type = FaceType::wall;
  b.face[2][1].wall_velocity[0] = 1.0;
  return b;
}

template <class T>
T tolerance_for(StageKind s) {
  // Rounding differences only (FMA contraction, operation order): a few ulps of the field scale, more
  // for momentum's ~90 operations per component. Reductions sum in double whatever T is.
  if (s == StageKind::reduce) return T(1e-10);
  const double eps = sizeof(T) == 4 ? 1.2e-7 : 2.2e-16;
  return T((s == StageKind::momentum ? 256 : 32) * eps);
}

template <class T>
void verify_one(const Variant& v, const Tuning& t, const Grid& g, TimeScheme scheme, unsigned seed,
                std::vector<VerifyResult>& out) {
  VerifyResult r;
  r.id = v.id();
  r.tuning = t.name;
  r.precision = sizeof(T) == 4 ? "float" : "double";
  r.grid = std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" + std::to_string(g.nz);
  r.scheme = v.stage == StageKind::momentum ? (scheme == TimeScheme::euler ? "euler" : "ab2") : "";
  const std::size_t n = g.padded_points();

  // Random inputs in +-[0.5, 1.5]: never zero, mixed signs.
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> mag(0.5, 1.5);
  std::vector<std::vector<T>> host(kFields, std::vector<T>(n));
  for (auto& f : host)
    for (T& x : f) x = T((rng() & 1 ? 1 : -1) * mag(rng));

  StageCall<T> call;
  call.grid = g;
  call.zr = ZRange::interior(g);
  call.bc = BoundaryRules<T>::make(mixed_boundaries());
  call.tuning = t;
  call.prm.dt = T(0.01), call.prm.nu = T(0.1), call.prm.gamma = T(0.3);
  call.prm.force[0] = T(0.2), call.prm.force[1] = T(-0.1), call.prm.force[2] = T(0.05);
  call.prm.scheme = scheme;
  call.prm.first_step = false;
  call.prm.coef = make_grid_coef<T>(g);

  // Reference: the serial CPU variant on host copies.
  std::vector<std::vector<T>> ref = host;
  std::vector<T*> rp;
  for (auto& f : ref) rp.push_back(f.data());
  StageCall<T> rc = call;
  rc.f = pointers<T>(rp);
  rc.exec.backend = Backend::cpu_serial;
  double ref_sum = 0;
  rc.reduce_a = rc.f.p_new, rc.reduce_b = rc.f.p, rc.reduce_out = &ref_sum;
  Registry::instance().get(v.stage, "cpu_serial").fn<T>()(rc);

  std::vector<std::vector<T>> got = host;
  double got_sum = 0, got_sum2 = 0;
  if (v.backend == Backend::cuda) {
    std::vector<Buffer<T>> dev;
    dev.reserve(kFields);
    std::vector<T*> dp;
    for (int i = 0; i < kFields; ++i) {
      dev.emplace_back(n, true, "verify field");
      dev.back().upload(host[i]);
      dp.push_back(dev.back().get());
    }
    void* stream = device::stream_create();
    const std::size_t scratch_bytes = std::size_t(16) << 20;
    void* scratch = device::alloc(scratch_bytes, "verify scratch");
    double* d_out = static_cast<double*>(device::alloc(sizeof(double), "verify result"));
    StageCall<T> gc = call;
    gc.f = pointers<T>(dp);
    gc.exec = Exec{Backend::cuda, 0, stream, scratch, scratch_bytes};
    gc.reduce_a = gc.f.p_new, gc.reduce_b = gc.f.p, gc.reduce_out = d_out;
    try {
      v.fn<T>()(gc);
      device::stream_sync(stream);
      device::copy_to_host(&got_sum, d_out, sizeof(double));
      if (v.stage == StageKind::reduce) {  // a second call: is it bitwise repeatable?
        v.fn<T>()(gc);
        device::stream_sync(stream);
        device::copy_to_host(&got_sum2, d_out, sizeof(double));
      }
    } catch (const std::exception& e) {
      r.message = e.what();
    }
    for (int i = 0; i < kFields; ++i) got[i] = dev[i].download();
    device::free(scratch);
    device::free(d_out);
    device::stream_destroy(stream);
  } else {
    std::vector<T*> gp;
    for (auto& f : got) gp.push_back(f.data());
    StageCall<T> cc = call;
    cc.f = pointers<T>(gp);
    cc.exec.backend = v.backend;
    cc.exec.threads = 0;
    cc.reduce_a = cc.f.p_new, cc.reduce_b = cc.f.p, cc.reduce_out = &got_sum;
    v.fn<T>()(cc);
    cc.reduce_out = &got_sum2;
    if (v.stage == StageKind::reduce) v.fn<T>()(cc);
  }

  r.tolerance = double(tolerance_for<T>(v.stage));
  if (v.stage == StageKind::reduce) {
    r.max_rel_diff = std::abs(got_sum - ref_sum) / std::abs(ref_sum);
    r.deterministic_checked = true;
    r.bitwise_repeatable = std::memcmp(&got_sum, &got_sum2, sizeof(double)) == 0;
    if (v.determinism == Determinism::deterministic && !r.bitwise_repeatable && r.message.empty())
      r.message = "declared deterministic but two calls gave different bits";
  } else {
    for (int i = 0; i < kFields; ++i) {
      double scale = 0, diff = 0;
      for (std::size_t m = 0; m < n; ++m) {
        scale = std::max(scale, std::abs(double(ref[i][m])));
        const double d = std::abs(double(got[i][m]) - double(ref[i][m]));
        diff = std::isfinite(double(got[i][m])) ? std::max(diff, d) : INFINITY;
      }
      r.max_rel_diff = std::max(r.max_rel_diff, diff / scale);
    }
  }
  r.pass = r.message.empty() && r.max_rel_diff <= r.tolerance;
  if (!r.pass && r.message.empty()) r.message = "difference above tolerance";
  out.push_back(r);
}

}  // namespace

std::vector<VerifyResult> verify_variants(const VerifyOptions& o) {
  std::vector<VerifyResult> out;
  // Odd sizes that divide by no block shape; the second is flat in y and tall in z.
  const Grid grids[] = {Grid{37, 23, 19, 3.7, 2.3, 1.9}, Grid{45, 3, 29, 4.5, 0.3, 2.9}};
  for (const Variant& v : Registry::instance().all()) {
    if (v.backend == Backend::cpu_serial) continue;
    if (v.backend == Backend::cpu_omp && !o.include_cpu) continue;
    if (!o.stage.empty() && o.stage != stage_name(v.stage)) continue;
    if (!o.variant.empty() && o.variant != v.name) continue;
    for (const Tuning& t : v.tunings)
      for (const Grid& g : grids) {
        const TimeScheme schemes[] = {TimeScheme::euler, TimeScheme::adams_bashforth2};
        const int n_schemes = v.stage == StageKind::momentum ? 2 : 1;
        for (int s = 0; s < n_schemes; ++s) {
          verify_one<float>(v, t, g, schemes[s], o.seed, out);
          verify_one<double>(v, t, g, schemes[s], o.seed + 1, out);
        }
      }
  }
  return out;
}

}  // namespace nsb
