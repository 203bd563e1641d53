#include "startup/malloc_tunables.hpp"

#include <algorithm>

namespace attnlab::startup {

namespace {

std::string_view name_of(std::string_view item) { return item.substr(0, item.find('=')); }

// Whether GLIBC_TUNABLES's value (name=value items separated by ':') names `name`.
bool names(std::string_view current, std::string_view name) {
  while (!current.empty()) {
    const std::size_t colon = current.find(':');
    if (name_of(current.substr(0, colon)) == name) return true;
    if (colon == std::string_view::npos) break;
    current.remove_prefix(colon + 1);
  }
  return false;
}

}  // namespace

std::optional<std::string_view> malloc_tunables(std::string_view current, std::span<char> out) {
  std::size_t n = 0;
  const auto append = [&](std::string_view s) {
    if (s.size() > out.size() - n) return false;
    std::copy(s.begin(), s.end(), out.begin() + static_cast<std::ptrdiff_t>(n));
    n += s.size();
    return true;
  };
  if (!append(current)) return std::nullopt;
  for (const std::string_view ours : kMallocTunables) {
    if (names(current, name_of(ours))) continue;
    if (n > 0 && out[n - 1] != ':' && !append(":")) return std::nullopt;
    if (!append(ours)) return std::nullopt;
  }
  return std::string_view(out.data(), n);
}

std::string malloc_tunables(std::string_view current) {
  std::size_t most = current.size();
  for (const std::string_view ours : kMallocTunables) most += 1 + ours.size();
  std::string out(most, '\0');
  out.resize(malloc_tunables(current, out)->size());  // `most` always fits
  return out;
}

}  // namespace attnlab::startup
