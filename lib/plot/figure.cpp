#include "plot/figure.hpp"

#include <fmt/format.h>

#include <cmath>

namespace attnlab::plot {

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string number(double v) { return std::isfinite(v) ? fmt::format("{:.6g}", v) : "NaN"; }

std::string tics(const std::string& axis, const std::vector<std::string>& labels) {
  std::string out = "set " + axis + "tics (";
  for (std::size_t i = 0; i < labels.size(); ++i) out += fmt::format("{}{} {}", i ? ", " : "", quoted(labels[i]), i);
  return out + ")\n";
}

std::string script(const Figure& f) {
  std::string body = f.body;
  const std::string data = "'" + f.name + ".dat'";
  for (std::size_t at; (at = body.find("DATA")) != std::string::npos;) body.replace(at, 4, data);
  std::string indented;
  for (std::size_t at = 0, end; at < body.size(); at = end + 1) {
    end = body.find('\n', at);
    if (end == std::string::npos) end = body.size();
    indented += (end > at ? "  " : "") + body.substr(at, end - at) + "\n";
  }
  // noenhanced: labels are data ("attention_map", "@0"), not gnuplot's markup
  // for subscripts and phantom boxes. The loop draws the same commands once per terminal, so the SVG and the
  // PNG cannot disagree; `reset` between them keeps no state from the first.
  return fmt::format(
      "# {name}: {caption}\n"
      "# Drawn by attnlab from {source}. To redraw it (after restyling, say), in this folder:\n"
      "#   gnuplot {name}.gp\n"
      "# reads {name}.dat and writes {name}.svg and {name}.png.\n"
      "set encoding utf8\n"
      "do for [out in \"svg png\"] {{\n"
      "  reset\n"
      "  if (out eq \"svg\") {{\n"
      "    set terminal svg size {w},{h} noenhanced font \"DejaVu Sans,12\" background rgb \"white\"\n"
      "  }} else {{\n"
      "    set terminal pngcairo size {w},{h} noenhanced font \"DejaVu Sans,11\" background rgb \"white\"\n"
      "  }}\n"
      "  set output '{name}.'.out\n"
      "{body}"
      "  unset output\n"
      "}}\n",
      fmt::arg("name", f.name), fmt::arg("caption", f.caption), fmt::arg("source", f.source.empty() ? std::string("a result") : f.source), fmt::arg("w", f.width),
      fmt::arg("h", f.height), fmt::arg("body", indented));
}

}  // namespace attnlab::plot
