#include "plot/gnuplot.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "report/atomic_file.hpp"
#include "process/child_process.hpp"

namespace attnlab::plot {

namespace fs = std::filesystem;

namespace {

constexpr const char* kInstall = "install Debian's gnuplot-nox (apt-get install gnuplot-nox, or scripts/setup.sh)";

// A folder of our own for one gnuplot run, removed when this goes.
struct Scratch {
  fs::path path;
  Scratch() {
    std::error_code ec;
    fs::path tmp = fs::temp_directory_path(ec);
    if (ec) tmp = "/tmp";
    std::string templ = (tmp / "attnlab-plot.XXXXXX").string();
    if (!::mkdtemp(templ.data()))
      throw std::runtime_error("cannot make a scratch folder in " + tmp.string() + ": " + std::strerror(errno));
    path = templ;
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_plain(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
  if (!out.flush()) throw std::runtime_error("cannot write " + p.string());
}

}  // namespace

std::string find_gnuplot() {
  const std::string path = process::find_program("gnuplot");
  if (path.empty()) throw GnuplotMissing(std::string("gnuplot is not on PATH; ") + kInstall);
  Scratch scratch;
  const auto c = process::capture({path, "-e", "set terminal svg; set terminal pngcairo"}, scratch.path.string());
  if (!c.exit.success() || !c.err.empty())
    throw GnuplotMissing(fmt::format("{} cannot draw SVG and PNG (its svg or pngcairo terminal is missing: {}); {}",
                                     path, c.err.empty() ? c.exit.describe() : c.err.substr(0, c.err.find('\n')),
                                     kInstall));
  return path;
}

void prepare_dir(const std::string& dir) {
  if (dir.empty()) throw report::OutputRefused("the figures' folder needs a name");
  const fs::path p(dir);
  std::error_code ec;
  const auto st = fs::symlink_status(p, ec);
  if (st.type() == fs::file_type::symlink)
    throw report::OutputRefused("cannot write figures into " + dir + ": it is a symbolic link, not a folder");
  if (fs::exists(st) && !fs::is_directory(st))
    throw report::OutputRefused("cannot write figures into " + dir + ": it exists and is not a folder");
  if (!fs::exists(st)) {  // made with its missing parents, as mkdir -p and sweep --dir do
    fs::path existing = p.parent_path();
    while (!existing.empty() && !fs::exists(existing, ec)) existing = existing.parent_path();
    if (!existing.empty() && !fs::is_directory(existing, ec))
      throw report::OutputRefused("cannot make the figures' folder " + dir + ": " + existing.string() +
                                  " exists and is not a folder");
    if (!fs::create_directories(p, ec) && ec)
      throw report::OutputRefused("cannot make the figures' folder " + dir + ": " + ec.message());
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw report::OutputRefused("cannot write figures into " + dir + ": " + std::strerror(errno));
  report::check_folder_writable(dir);
}

namespace {

const std::vector<std::string> kFigureExtensions = {".dat", ".gp", ".svg", ".png"};

// KIND.*.dat, .gp, .svg or .png for one of `kinds`: a name a figure may take.
bool figure_slot(const std::string& name, const std::vector<std::string>& kinds) {
  const bool figure_like = std::any_of(kFigureExtensions.begin(), kFigureExtensions.end(), [&](const std::string& e) {
    return name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0;
  });
  return figure_like && std::any_of(kinds.begin(), kinds.end(), [&](const std::string& k) {
           return name.size() > k.size() + 1 && name.compare(0, k.size() + 1, k + ".") == 0;
         });
}

}  // namespace

void check_figure_files(const std::vector<Figure>& figures, const std::string& dir,
                        const std::vector<std::string>& inputs) {
  for (const auto& f : figures)
    for (const auto& e : kFigureExtensions) report::check_output_path((fs::path(dir) / (f.name + e)).string(), inputs);
}

void check_figure_slots(const std::string& dir, const std::vector<std::string>& kinds,
                        const std::vector<std::string>& inputs) {
  std::error_code ec;
  if (fs::symlink_status(dir, ec).type() != fs::file_type::directory) return;  // prepare_dir's to judge
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (figure_slot(entry.path().filename().string(), kinds)) report::check_output_path(entry.path().string(), inputs);
  // An input not written yet (the run's own -o file) named like a figure in this folder.
  const fs::path here = fs::weakly_canonical(dir, ec);
  for (const auto& in : inputs) {
    const fs::path p(in), folder = p.parent_path().empty() ? fs::path(".") : p.parent_path();
    if (figure_slot(p.filename().string(), kinds) && fs::weakly_canonical(folder, ec) == here)
      throw report::OutputRefused("cannot draw figures into " + dir + ": " + in +
                                  " is one of this run's inputs or its -o output, and a figure would be written "
                                  "over it; give it another name or the figures another folder");
  }
}

std::vector<std::string> draw(const std::vector<Figure>& figures, const std::string& dir, const std::string& gnuplot,
                              const std::vector<std::string>& inputs) {
  std::vector<std::string> warnings;
  const fs::path out(dir);
  check_figure_files(figures, dir, inputs);  // all before the first is written
  for (const auto& f : figures) {
    const std::string text = script(f);
    Scratch scratch;
    write_plain(scratch.path / (f.name + ".dat"), f.data);
    write_plain(scratch.path / (f.name + ".gp"), text);
    // gnuplot's own `cd`, so that the script runs exactly as a user runs it in the folder.
    const auto c = process::capture(
        {gnuplot, "-e", "cd " + quoted(scratch.path.string()), (scratch.path / (f.name + ".gp")).string()},
        scratch.path.string());
    if (!c.exit.success())
      throw std::runtime_error(fmt::format("gnuplot failed drawing {} ({}): {}", f.name, c.exit.describe(), c.err));
    if (!c.err.empty()) warnings.push_back(f.name + ": " + c.err);
    for (const auto& e : kFigureExtensions) {
      const fs::path drawn = scratch.path / (f.name + e);
      if (!fs::is_regular_file(drawn)) throw std::runtime_error("gnuplot wrote no " + drawn.filename().string());
      report::write_file_atomically((out / (f.name + e)).string(), slurp(drawn));
    }
  }
  return warnings;
}

}  // namespace attnlab::plot
