// Byte counts as people write and read them: "--max-memory 8G", "3.1 GiB".
#pragma once

#include <optional>
#include <string>

namespace attnlab::resources {

/// Parses a size: a non-negative number with an optional unit, binary as
/// ulimit, free and Slurm's --mem read them: B, K/KB/KiB (1024), M/MB/MiB,
/// G/GB/GiB, T/TB/TiB, any case; no unit means bytes ("8G", "512MiB",
/// "1.5g", "1000000"). Returns nullopt for anything else (empty, negative,
/// not finite, an unknown unit, trailing text).
std::optional<double> parse_byte_size(const std::string& text);

/// "812 B", "3.40 KiB", "25.6 MiB", "128 GiB": three significant figures at
/// most, binary units, for messages.
std::string format_bytes(double bytes);

}  // namespace attnlab::resources
