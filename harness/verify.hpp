// `nsbench verify`: every registered variant x tuning x precision against the serial CPU reference,
// one stage call on random (never zero) inputs on odd-sized grids. Every array is compared after the
// call, the ones a stage must not touch included, so stray writes are caught too.
#pragma once

#include <string>
#include <vector>

#include "grid.hpp"
#include "registry.hpp"
#include "stage_kind.hpp"

namespace nsb {

struct VerifyResult {
  std::string id, tuning, precision, grid;
  std::string scheme;  // the stage kind's workload (momentum: its time scheme), "" where it has one
  bool pass = false;
  double max_rel_diff = 0, tolerance = 0;
  bool deterministic_checked = false, bitwise_repeatable = false;
  std::string message;  // failure reason or note
};

struct VerifyOptions {
  std::string solver;     // "" = every solver
  std::string stage;      // "" = every stage ("pressure" or "projection/pressure")
  std::string variant;    // "" = every variant
  bool include_cpu = false;  // also check cpu_omp against cpu_serial
  bool gpu = true;           // check the GPU variants (false: no usable GPU here)
  bool allow_no_gpu = false; // `nsbench verify` without a GPU: skip (exit 0) instead of failing
  unsigned seed = 12345;
};

std::vector<VerifyResult> verify_variants(const VerifyOptions& o);

// The grids verify checks every variant on: odd sizes that divide by no block shape.
extern const Grid kVerifyGrids[2];

// One variant x tuning in precision T against the kind's serial CPU reference on each of kVerifyGrids, as
// verify_variants checks it: the first failing result, else the one with the largest difference.
template <class T>
VerifyResult verify_candidate(const StageKind& k, const Variant& v, const Tuning& t, const std::string& workload,
                              unsigned seed = 12345);

// The filters of `verify` and `stages` ("" = all) must name something registered, on any backend: a
// typo would otherwise select nothing and pass. Throws std::runtime_error naming the unknown word and
// the known ones (a variant or tuning: those of the stages the other filters select).
void check_variant_filters(const std::string& solver, const std::string& stage, const std::string& variant,
                           const std::string& tuning);
// The same for filters that name several stages or variants (`stages --stage A --stage B`): each must name
// something; a variant, something of the selected stages ({} = all).
void check_variant_filters(const std::string& solver, const std::vector<std::string>& stages,
                           const std::vector<std::string>& variants, const std::string& tuning);

// Whether variant v is of a stage the filter names ("pressure" or "projection/pressure"), of one of the
// stages listed (none: every stage), answers to one of the variant names listed (none: every variant).
bool stage_filter_matches(const std::string& stage, const Variant& v);
bool any_stage_matches(const std::vector<std::string>& stages, const Variant& v);
bool any_variant_matches(const std::vector<std::string>& variants, const Variant& v);

}  // namespace nsb
