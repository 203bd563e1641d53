#include "sweep/config_hash.hpp"

#include <fmt/format.h>

#include <cstdint>

namespace attnlab::sweep {

using nlohmann::json;

json canonical_spec(const experiments::LoadedSpec& loaded) {
  json spec = loaded.spec;
  for (const auto& p : loaded.experiment->params) {
    if (!spec.contains(p.name)) continue;
    json& v = spec[p.name];
    if (p.type == spec::Type::Number && v.is_number()) v = v.get<double>();
    if (p.type == spec::Type::NumberList && v.is_array())
      for (auto& item : v)
        if (item.is_number()) item = item.get<double>();
  }
  return spec;
}

std::string config_hash(const json& canonical) {
  // FNV-1a, 64 bits (offset basis and prime from the FNV reference).
  std::uint64_t h = 14695981039346656037ull;
  for (const unsigned char c : canonical.dump()) {
    h ^= c;
    h *= 1099511628211ull;
  }
  // MurmurHash3's fmix64 finaliser: FNV-1a alone changes few high bits when
  // specs differ only near their end, and folder names would look alike.
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return fmt::format("{:016x}", h);
}

}  // namespace attnlab::sweep
