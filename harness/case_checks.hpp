// Checks of a case's generic options that several solvers share (harness/solver.hpp's CaseOptions).
#pragma once

#include <string>
#include <vector>

#include "solver.hpp"

namespace nsb {

// Refuses the generic case options a solver has no use for ("re", "dt", "safety", "gamma") where they differ
// from their defaults (CaseOptions cannot say whether an option was given): std::invalid_argument
// "the <solver> solver does not use --safety: <why>". An option ignored in silence makes a run other than the
// one asked for.
void refuse_unused_case_options(const CaseOptions& o, const std::string& solver, const std::vector<std::string>& unused,
                                const std::string& why);

}  // namespace nsb
