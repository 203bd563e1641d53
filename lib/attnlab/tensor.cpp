#include "attnlab/tensor.hpp"

#include <stdexcept>

namespace attnlab {

std::string shape_string(const std::vector<std::size_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

void check_shape(const std::string& where, const std::string& argument, const std::vector<std::size_t>& given,
                 const std::vector<long>& expected, const std::vector<std::string>& letters) {
  bool ok = given.size() == expected.size();
  for (std::size_t i = 0; ok && i < given.size(); ++i)
    ok = expected[i] < 0 || static_cast<long>(given[i]) == expected[i];
  if (ok) return;
  std::string want = "(";
  for (std::size_t i = 0; i < expected.size(); ++i) {
    want += i ? ", " : "";
    want += expected[i] >= 0 ? std::to_string(expected[i]) : (i < letters.size() ? letters[i] : std::string("*"));
  }
  want += expected.size() == 1 ? ",)" : ")";
  throw std::invalid_argument(where + ": " + argument + " has shape " + shape_string(given) + ", expected " + want);
}

}  // namespace attnlab
