#include "attnlab/serialize/state_dict.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <stdexcept>
#include <system_error>

#include <unistd.h>

#include <xtensor/xarray.hpp>
#include <xtensor/xnpy.hpp>

namespace attnlab {

namespace fs = std::filesystem;

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// The .npy files of a folder, by key (file name without .npy).
std::set<std::string> npy_keys(const fs::path& folder) {
  std::set<std::string> keys;
  for (const auto& entry : fs::directory_iterator(folder)) {
    const fs::path p = entry.path();
    if (p.extension() == ".npy") keys.insert(p.stem().string());
  }
  return keys;
}

}  // namespace

std::vector<nn::NamedParameter> state_dict(kernels::Parameters& params) {
  std::vector<nn::NamedParameter> out;
  for (std::size_t i = 0; i < params.info().size(); ++i) {
    const kernels::ParamInfo& info = params.info()[i];
    out.push_back({info.name, std::vector<std::size_t>(info.shape.begin(), info.shape.end()), params.value(i),
                   params.grad(i)});
  }
  return out;
}

void save_state_dict(const std::vector<nn::NamedParameter>& state, const fs::path& folder) {
  std::error_code ec;
  if (fs::exists(folder, ec) && !fs::is_directory(folder, ec))
    throw std::invalid_argument("save_state_dict: " + folder.string() + " exists and is not a folder");
  if (fs::is_directory(folder, ec)) {
    std::set<std::string> names;
    for (const auto& p : state) names.insert(p.name);
    std::vector<std::string> foreign;
    for (const auto& k : npy_keys(folder))
      if (!names.count(k)) foreign.push_back(k + ".npy");
    if (!foreign.empty())
      throw std::invalid_argument("save_state_dict: " + folder.string() + " already holds " + join(foreign) +
                                  ", which are not keys of this state_dict; save into an empty folder");
  }
  fs::create_directories(folder);
  for (const auto& p : state) {
    std::size_t n = 1;
    for (std::size_t d : p.shape) n *= d;
    const auto view = xt::adapt(p.value, n, xt::no_ownership(), p.shape);
    const std::string bytes = xt::dump_npy(view);
    const fs::path target = folder / (p.name + ".npy");
    const fs::path tmp = folder / ("." + p.name + ".npy.tmp." + std::to_string(::getpid()));
    {
      std::ofstream f(tmp, std::ios::binary);
      f.write(bytes.data(), std::streamsize(bytes.size()));
      f.flush();
      if (!f) {
        fs::remove(tmp, ec);
        throw std::runtime_error("save_state_dict: could not write " + target.string());
      }
    }
    fs::rename(tmp, target, ec);
    if (ec) {
      fs::remove(tmp, ec);
      throw std::runtime_error("save_state_dict: could not write " + target.string());
    }
  }
}

void load_state_dict(const std::vector<nn::NamedParameter>& state, const fs::path& folder) {
  const std::string where = "load_state_dict: " + folder.string() + ": ";
  std::error_code ec;
  if (!fs::is_directory(folder, ec))
    throw std::invalid_argument(where + "not a folder (expected one <key>.npy file per state_dict key)");
  const std::set<std::string> present = npy_keys(folder);
  std::set<std::string> names;
  std::vector<std::string> missing, extra;
  for (const auto& p : state) {
    names.insert(p.name);
    if (!present.count(p.name)) missing.push_back(p.name);
  }
  for (const auto& k : present)
    if (!names.count(k)) extra.push_back(k);
  if (!missing.empty() || !extra.empty()) {
    std::string msg = where;
    if (!missing.empty()) msg += "missing key(s) " + join(missing) + " (no <key>.npy file)";
    if (!extra.empty()) msg += std::string(missing.empty() ? "" : "; ") + "unexpected key(s) " + join(extra);
    throw std::invalid_argument(msg);
  }
  // read and check everything first: a refused load changes nothing
  std::vector<xt::xarray<float>> loaded;
  for (const auto& p : state) {
    const fs::path file = folder / (p.name + ".npy");
    std::ifstream f(file, std::ios::binary);
    if (!f) throw std::invalid_argument(where + "cannot read " + file.filename().string());
    xt::xarray<float> a;
    try {
      auto raw = xt::detail::load_npy_file(f);
      if (raw.m_typestring != "<f4")
        throw std::invalid_argument(where + p.name + " holds dtype '" + raw.m_typestring +
                                    "', expected float32 ('<f4'): save it as v.float().numpy()");
      a = std::move(raw).cast<float>();
    } catch (const std::invalid_argument&) {
      throw;
    } catch (const std::exception& e) {
      throw std::invalid_argument(where + file.filename().string() + " is not a readable .npy file (" + e.what() +
                                  ")");
    }
    const std::vector<std::size_t> got(a.shape().begin(), a.shape().end());
    if (got != p.shape)
      throw std::invalid_argument(where + p.name + " has shape " + shape_string(got) + ", expected " +
                                  shape_string(p.shape));
    loaded.push_back(std::move(a));
  }
  for (std::size_t i = 0; i < state.size(); ++i) {
    // element by element: a Fortran-order file lands in our C order
    auto dst = xt::adapt(state[i].value, loaded[i].size(), xt::no_ownership(), state[i].shape);
    dst = loaded[i];
  }
}

void save_state_dict(kernels::Parameters& params, const fs::path& folder) { save_state_dict(state_dict(params), folder); }
void save_state_dict(const nn::Module& module, const fs::path& folder) {
  save_state_dict(module.named_parameters(), folder);
}
void load_state_dict(kernels::Parameters& params, const fs::path& folder) { load_state_dict(state_dict(params), folder); }
void load_state_dict(const nn::Module& module, const fs::path& folder) {
  load_state_dict(module.named_parameters(), folder);
}

}  // namespace attnlab
