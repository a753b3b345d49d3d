// The values a family or solver offers for one run option (e.g. --poisson's methods), registered by the family
// from its own files and read by the command line's help and `nsbench list --json`: the core names no family and
// includes none of its headers.
#pragma once

#include <string>
#include <vector>

namespace nsb {

// The registered values of `option` (its name without "--"), in registration order; empty for an unknown one.
std::vector<std::string>& option_choices(const std::string& option);
// The same, space-separated (help texts, messages).
std::string option_choices_text(const std::string& option);

}  // namespace nsb
