#include "resources/byte_size.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <regex>

namespace attnlab::resources {

std::optional<double> parse_byte_size(const std::string& text) {
  // Decimal digits only (no hex, no sign, no spaces), then the unit.
  static const std::regex form(R"(((?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)([A-Za-z]*))");
  std::smatch m;
  if (!std::regex_match(text, m, form)) return std::nullopt;
  const double value = std::strtod(m[1].str().c_str(), nullptr);
  std::string unit = m[2].str();
  std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return std::tolower(c); });
  static const std::pair<const char*, double> units[] = {
      {"", 1},       {"b", 1},           {"k", 0x1p10},  {"kb", 0x1p10}, {"kib", 0x1p10}, {"m", 0x1p20},
      {"mb", 0x1p20}, {"mib", 0x1p20},   {"g", 0x1p30},  {"gb", 0x1p30}, {"gib", 0x1p30}, {"t", 0x1p40},
      {"tb", 0x1p40}, {"tib", 0x1p40}};
  for (const auto& [name, scale] : units)
    if (unit == name) {
      const double bytes = value * scale;
      if (!std::isfinite(bytes)) return std::nullopt;
      return bytes;
    }
  return std::nullopt;
}

std::string format_bytes(double bytes) {
  static const char* names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) {
    bytes /= 1024;
    ++u;
  }
  if (u == 0) return fmt::format("{:.0f} B", bytes);
  const int decimals = bytes < 10 ? 2 : bytes < 100 ? 1 : 0;
  return fmt::format("{:.{}f} {}", bytes, decimals, names[u]);
}

}  // namespace attnlab::resources
