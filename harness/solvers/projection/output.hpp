// The projection solver's output for people: cell-centred flow (VTK image data) and the cavity's
// centre lines (CSV). Returns the paths written.
#pragma once

#include <string>
#include <vector>

#include "projection/cases.hpp"

namespace nsb {

template <class T>
std::vector<std::string> write_projection_output(const Case& c, const HostState<T>& s, const std::string& dir,
                                                 const std::string& tag);

}  // namespace nsb
