#include "verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <stdexcept>

#include "device.hpp"
#include "run/result.hpp"
#include "stage_kind.hpp"

namespace nsb {

// Odd sizes that divide by no block shape; the second is flat in y and tall in z.
const Grid kVerifyGrids[2] = {Grid{37, 23, 19, 3.7, 2.3, 1.9}, Grid{45, 3, 29, 4.5, 0.3, 2.9}};

namespace {

// Largest difference of any array, relative to the reference array's largest value (compare_field:
// non-finite values count as infinitely far).
template <class T>
double max_relative_difference(const std::vector<std::pair<std::string, std::vector<T>>>& got,
                               const std::vector<std::pair<std::string, std::vector<T>>>& ref) {
  double worst = 0;
  for (std::size_t i = 0; i < ref.size(); ++i)
    worst = std::max(worst, compare_field(got[i].second, ref[i].second)["max_rel_diff"].template get<double>());
  return worst;
}

// One variant x tuning x grid x workload x precision against the kind's serial CPU reference, on a
// fixture of each filled from the same seed.
template <class T>
VerifyResult verify_one(const StageKind& k, const Variant& v, const Tuning& t, const Grid& g,
                        const std::string& workload, unsigned seed) {
  VerifyResult r;
  r.id = v.id();
  r.tuning = t.name;
  r.precision = sizeof(T) == 4 ? "float" : "double";
  r.grid = std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" + std::to_string(g.nz);
  r.scheme = workload;
  r.tolerance = k.tolerance<T>();
  const Variant& reference = Registry::instance().get(k.id(), "cpu_serial");
  FixtureSpec spec{k.name, g, Backend::cpu_serial, workload, seed, true};
  const auto ref = k.fixture<T>()(spec);
  ref->run(reference, reference.tunings.front());
  spec.backend = v.backend == Backend::cuda ? Backend::cuda : Backend::cpu_serial;
  const auto got = k.fixture<T>()(spec);
  double first = 0, second = 0;
  try {
    got->run(v, t);
    first = got->scalar();
    if (k.scalar_output) {  // a second call: is it bitwise repeatable?
      got->run(v, t);
      second = got->scalar();
    }
  } catch (const std::exception& e) {
    r.message = e.what();
  }
  if (k.scalar_output) {
    const double expected = ref->scalar();
    r.max_rel_diff = std::abs(first - expected) / std::abs(expected);
    r.deterministic_checked = true;
    r.bitwise_repeatable = std::memcmp(&first, &second, sizeof(double)) == 0;
    if (v.determinism == Determinism::deterministic && !r.bitwise_repeatable && r.message.empty())
      r.message = "declared deterministic but two calls gave different bits";
  } else {
    r.max_rel_diff = max_relative_difference(got->arrays(), ref->arrays());
  }
  r.pass = r.message.empty() && r.max_rel_diff <= r.tolerance;
  if (!r.pass && r.message.empty()) r.message = "difference above tolerance";
  return r;
}

}  // namespace

template <class T>
VerifyResult verify_candidate(const StageKind& k, const Variant& v, const Tuning& t, const std::string& workload,
                              unsigned seed) {
  VerifyResult worst;
  for (Grid g : kVerifyGrids) {
    g = k.verify_grid ? k.verify_grid(g) : g;
    VerifyResult r = verify_one<T>(k, v, t, g, workload, seed);
    if (!r.pass) return r;
    if (worst.id.empty() || r.max_rel_diff > worst.max_rel_diff) worst = r;
  }
  return worst;
}

template VerifyResult verify_candidate<float>(const StageKind&, const Variant&, const Tuning&, const std::string&, unsigned);
template VerifyResult verify_candidate<double>(const StageKind&, const Variant&, const Tuning&, const std::string&, unsigned);

namespace {

std::string joined(const std::set<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += " " + n;
  return s;
}

}  // namespace

bool stage_filter_matches(const std::string& stage, const Variant& v) { return stage == v.stage_name() || stage == v.stage; }

bool any_stage_matches(const std::vector<std::string>& stages, const Variant& v) {
  return stages.empty() ||
         std::any_of(stages.begin(), stages.end(), [&](const std::string& s) { return stage_filter_matches(s, v); });
}

bool any_variant_matches(const std::vector<std::string>& variants, const Variant& v) {
  return variants.empty() ||
         std::any_of(variants.begin(), variants.end(), [&](const std::string& n) { return v.answers_to(n); });
}

void check_variant_filters(const std::string& solver, const std::string& stage, const std::string& variant,
                           const std::string& tuning) {
  const auto listed = [](const std::string& filter) {
    return filter.empty() ? std::vector<std::string>{} : std::vector<std::string>{filter};
  };
  check_variant_filters(solver, listed(stage), listed(variant), tuning);
}

void check_variant_filters(const std::string& solver, const std::vector<std::string>& stages,
                           const std::vector<std::string>& variants, const std::string& tuning) {
  std::set<std::string> solvers, known_stages, known_variants, tunings;
  for (const StageKind& k : StageKindRegistry::instance().all()) solvers.insert(k.solver);
  if (!solver.empty() && !solvers.count(solver))
    throw std::runtime_error("unknown solver '" + solver + "'; solvers with stages:" + joined(solvers));
  std::set<std::string> stages_found, variants_found;  // the filters that named something
  for (const Variant& v : Registry::instance().all()) {
    if (!solver.empty() && v.solver() != solver) continue;
    known_stages.insert(v.stage);
    for (const std::string& s : stages)
      if (stage_filter_matches(s, v)) stages_found.insert(s);
    if (!any_stage_matches(stages, v)) continue;
    known_variants.insert(v.name);
    for (const std::string& n : variants)
      if (v.answers_to(n)) variants_found.insert(n);
    if (!any_variant_matches(variants, v)) continue;
    for (const Tuning& t : v.tunings) tunings.insert(t.name);
  }
  for (const std::string& s : stages)
    if (!stages_found.count(s))
      throw std::runtime_error("unknown stage '" + s + "'" + (solver.empty() ? "" : " of solver " + solver) +
                               "; known:" + joined(known_stages));
  for (const std::string& n : variants)
    if (!variants_found.count(n)) throw std::runtime_error("unknown variant '" + n + "'; known:" + joined(known_variants));
  if (!tuning.empty() && !tunings.count(tuning))
    throw std::runtime_error("unknown tuning '" + tuning + "' of the selected variants; known:" + joined(tunings));
}

std::vector<VerifyResult> verify_variants(const VerifyOptions& o) {
  check_variant_filters(o.solver, o.stage, o.variant, "");
  std::vector<VerifyResult> out;
  for (const Variant& v : Registry::instance().all()) {
    if (v.backend == Backend::cpu_serial) continue;
    if (v.backend == Backend::cpu_omp && !o.include_cpu) continue;
    if (v.backend == Backend::cuda && !o.gpu) continue;
    if (!o.solver.empty() && o.solver != v.solver()) continue;
    if (!o.stage.empty() && !stage_filter_matches(o.stage, v)) continue;
    if (!o.variant.empty() && !v.answers_to(o.variant)) continue;
    const StageKind& k = StageKindRegistry::instance().get(v.stage);
    for (const Tuning& t : v.tunings)
      for (Grid g : kVerifyGrids) {
        g = k.verify_grid ? k.verify_grid(g) : g;
        for (const std::string& workload : k.workloads) {
          if (!k.runs(v, workload)) continue;
          out.push_back(verify_one<float>(k, v, t, g, workload, o.seed));
          out.push_back(verify_one<double>(k, v, t, g, workload, o.seed + 1));
        }
      }
  }
  return out;
}

}  // namespace nsb
