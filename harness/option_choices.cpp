#include "option_choices.hpp"

#include <map>

namespace nsb {

std::vector<std::string>& option_choices(const std::string& option) {
  static std::map<std::string, std::vector<std::string>> choices;  // a function's static: safe at static init
  return choices[option];
}

std::string option_choices_text(const std::string& option) {
  std::string text;
  for (const std::string& v : option_choices(option)) text += (text.empty() ? "" : " ") + v;
  return text;
}

}  // namespace nsb
