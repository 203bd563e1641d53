#include "report/atomic_file.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace attnlab::report {

void write_file_atomically(const std::string& path, const std::string& content) {
  const std::filesystem::path target(path);
  std::filesystem::path tmp = target;
  tmp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + tmp.string());
    out << content;
    out.flush();
    if (!out) {
      std::filesystem::remove(tmp);
      throw std::runtime_error("cannot write " + tmp.string());
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, target, ec);
  if (ec) {
    std::filesystem::remove(tmp);
    throw std::runtime_error("cannot write " + path + ": " + ec.message());
  }
}

}  // namespace attnlab::report
