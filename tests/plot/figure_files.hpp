// What a drawn figure is, read back from its files: a PNG's signature and
// size from its IHDR chunk, and an SVG parsed as XML (libxml2) with the
// elements of each of gnuplot's plot groups counted.
#pragma once

#include <libxml/parser.h>
#include <libxml/tree.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/run_binary.hpp"

namespace attnlab::testing {

struct PngFacts {
  bool signature = false;
  std::uint32_t width = 0, height = 0;
  std::size_t bytes = 0;
};

/// PNG: the 8-byte signature, then the IHDR chunk with width and height (big-endian).
inline PngFacts read_png(const std::filesystem::path& p) {
  const std::string b = slurp(p);
  PngFacts f;
  f.bytes = b.size();
  f.signature = b.size() >= 24 && b.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0 && b.compare(12, 4, "IHDR") == 0;
  auto be32 = [&](std::size_t at) {
    return (std::uint32_t(std::uint8_t(b[at])) << 24) | (std::uint32_t(std::uint8_t(b[at + 1])) << 16) |
           (std::uint32_t(std::uint8_t(b[at + 2])) << 8) | std::uint32_t(std::uint8_t(b[at + 3]));
  };
  if (f.signature) {
    f.width = be32(16);
    f.height = be32(20);
  }
  return f;
}

/// One of gnuplot's plot groups (<g id="gnuplot_plot_N">, one per plotted
/// item, in order; a multiplot starts again at 1 for each panel, so the
/// groups are listed in document order).
struct PlotGroup {
  std::string id;
  std::map<std::string, int> elements;  // element name -> count, all depths
  std::vector<std::string> texts;       // the text of each <text>
  std::vector<std::string> paths;       // the d attribute of each <path>
  std::vector<std::string> polygons;    // each <polygon>'s fill and points: "rgb(r, g, b)|x,y x,y ..."
};

struct SvgFacts {
  int width = 0, height = 0;            // the root's width and height attributes
  std::vector<PlotGroup> plots;
  std::vector<std::string> texts;       // every <text>'s content, in document order
};

namespace detail {
inline std::string attr(xmlNode* n, const char* name) {
  xmlChar* v = xmlGetProp(n, reinterpret_cast<const xmlChar*>(name));
  if (!v) return "";
  std::string s(reinterpret_cast<const char*>(v));
  xmlFree(v);
  return s;
}
inline std::string content(xmlNode* n) {
  xmlChar* v = xmlNodeGetContent(n);
  std::string s = v ? reinterpret_cast<const char*>(v) : "";
  xmlFree(v);
  return s;
}
inline void walk(xmlNode* n, SvgFacts& f, int group) {  // group: index into f.plots, or -1
  for (; n; n = n->next) {
    if (n->type != XML_ELEMENT_NODE) continue;
    const std::string name = reinterpret_cast<const char*>(n->name);
    int g = group;
    if (name == "g" && attr(n, "id").rfind("gnuplot_plot_", 0) == 0) {
      f.plots.push_back({attr(n, "id"), {}, {}});
      g = static_cast<int>(f.plots.size()) - 1;
    } else if (g >= 0) {
      ++f.plots[g].elements[name];
      if (name == "path") f.plots[g].paths.push_back(attr(n, "d"));
      if (name == "polygon") f.plots[g].polygons.push_back(attr(n, "fill") + "|" + attr(n, "points"));
    }
    if (name == "text") {
      f.texts.push_back(content(n));
      if (g >= 0) f.plots[g].texts.push_back(f.texts.back());
    }
    walk(n->children, f, g);
  }
}
}  // namespace detail

/// Parses the SVG as XML; throws std::runtime_error naming the file when it
/// is not well-formed.
inline SvgFacts read_svg(const std::filesystem::path& p) {
  xmlDoc* doc = xmlReadFile(p.c_str(), nullptr, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (!doc) throw std::runtime_error(p.string() + " is not well-formed XML");
  SvgFacts f;
  xmlNode* root = xmlDocGetRootElement(doc);
  if (root && std::string(reinterpret_cast<const char*>(root->name)) == "svg") {
    f.width = std::atoi(detail::attr(root, "width").c_str());
    f.height = std::atoi(detail::attr(root, "height").c_str());
    detail::walk(root->children, f, -1);
  }
  xmlFreeDoc(doc);
  return f;
}

/// A filled polygon as drawn: its centre (SVG units, y down) and its fill's
/// brightness (r + g + b, 0 = black, 765 = white).
struct Cell {
  double x = 0, y = 0;
  int brightness = 0;
};

/// The cells of a heatmap's image plot, one per <polygon>, parsed from
/// gnuplot's `fill = 'rgb(r, g, b)' points = 'x,y x,y ...'`.
inline std::vector<Cell> cells(const PlotGroup& g) {
  std::vector<Cell> out;
  for (const auto& p : g.polygons) {
    const auto bar = p.find('|');
    int r = 0, gr = 0, b = 0;
    if (std::sscanf(p.c_str(), "rgb(%d, %d, %d)", &r, &gr, &b) != 3) throw std::runtime_error("fill: " + p);
    Cell c{.brightness = r + gr + b};
    std::istringstream pts(p.substr(bar + 1));
    int n = 0;
    for (std::string xy; pts >> xy; ++n) {
      double x = 0, y = 0;
      if (std::sscanf(xy.c_str(), "%lf,%lf", &x, &y) != 2) throw std::runtime_error("points: " + p);
      c.x += x;
      c.y += y;
    }
    if (n == 0) throw std::runtime_error("no points: " + p);
    c.x /= n;
    c.y /= n;
    out.push_back(c);
  }
  return out;
}

/// How many elements named `element` the group holds.
inline int count_in(const PlotGroup& g, const std::string& element) {
  auto it = g.elements.find(element);
  return it == g.elements.end() ? 0 : it->second;
}

}  // namespace attnlab::testing

namespace attnlab::testing {

/// How many subpaths ("M" commands) the group's paths draw. gnuplot's svg
/// terminal draws a yerrorlines plot as one path: the key's sample (a line
/// and its two caps: 3), the line through the points (1), and per point a
/// bar and its two caps (3).
inline int subpaths(const PlotGroup& g) {
  int n = 0;
  for (const auto& d : g.paths) n += static_cast<int>(std::count(d.begin(), d.end(), 'M'));
  return n;
}

}  // namespace attnlab::testing
