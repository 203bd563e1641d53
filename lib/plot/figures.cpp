#include "plot/figures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "plot/heatmap.hpp"
#include "plot/lines.hpp"

namespace attnlab::plot {

using nlohmann::json;

namespace {

const json& at(const json& j, const std::string& key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) throw std::invalid_argument(where + ": no \"" + key + "\"");
  return j.at(key);
}

// A number as attnlab's JSON writes one: null (no value) and the strings
// "nan", "inf", "-inf" (a diverged loss; JSON has no such numbers) are not
// finite, and .dat files write them as NaN, which gnuplot skips.
double num(const json& v, const std::string& where) {
  if (v.is_number()) return v.get<double>();
  if (v.is_null() || v == "nan") return std::nan("");
  if (v == "inf") return HUGE_VAL;
  if (v == "-inf") return -HUGE_VAL;
  throw std::invalid_argument(where + ": expected a number");
}

// "row 'LABEL' diverged at epoch E, step S (loss nan)" for a record whose
// status is "diverged" (trained_rows.hpp), else "".
std::string divergence(const json& r, const std::string& label) {
  if (!r.is_object() || r.value("status", "") != "diverged" || !r.contains("diverged")) return "";
  const json& d = r["diverged"];
  const json loss = d.value("loss", json("nan"));
  return fmt::format("{} diverged at epoch {}, step {} (loss {})", label, d.value("epoch", 0), d.value("step", 0),
                     loss.is_string() ? loss.get<std::string>() : loss.dump());
}

std::vector<double> vec(const json& j, const std::string& where) {
  if (!j.is_array()) throw std::invalid_argument(where + ": expected an array");
  std::vector<double> out;
  for (std::size_t i = 0; i < j.size(); ++i) out.push_back(num(j[i], fmt::format("{}/{}", where, i)));
  return out;
}

std::vector<std::vector<double>> matrix(const json& j, const std::string& where) {
  if (!j.is_array() || j.empty()) throw std::invalid_argument(where + ": expected a non-empty array of rows");
  std::vector<std::vector<double>> out;
  for (std::size_t i = 0; i < j.size(); ++i) out.push_back(vec(j[i], fmt::format("{}/{}", where, i)));
  return out;
}

std::vector<std::string> indices(std::size_t n, const std::string& prefix = "") {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

Heatmap weights_map(std::string title, std::vector<std::vector<double>> w) {
  Heatmap h{.title = std::move(title), .values = std::move(w)};
  h.row_labels = indices(h.values.size());
  h.column_labels = indices(h.values[0].size());
  return h;
}

// --- heatmaps, kind by kind ----------------------------------------------

void attention_map(const json& data, const std::string& p, std::vector<Figure>& out) {
  const std::string where = p + ": data";
  if (!divergence(data, p).empty()) return;  // a diverged model's weights are NaN: its learning curves say so
  Heatmap h = weights_map("", matrix(at(data, "weights", where), where + "/weights"));
  const auto seq = vec(at(data, "sequence", where), where + "/sequence");
  if (seq.size() != h.values.size()) throw std::invalid_argument(where + "/sequence: not one token per row");
  std::string digits;
  h.row_labels.clear();
  h.column_labels.clear();
  for (std::size_t t = 0; t < seq.size(); ++t) {
    const auto tok = fmt::format("{:.0f}", seq[t]);
    digits += tok;
    h.column_labels.push_back(tok + "\npos " + std::to_string(t));  // token over its position
    h.row_labels.push_back("pos " + std::to_string(t) + ": " + tok);
  }
  h.title = fmt::format("sequence {}, label {:.0f}: weights from each position", digits,
                        num(at(data, "label", where), where + "/label"));
  h.xlabel = "key: token and position";
  h.ylabel = "query: position and token";
  out.push_back(heatmap(p + ".weights", "the trained model's attention weights on one validation sequence", h));
}

void causal_mask(const json& data, const std::string& p, std::vector<Figure>& out) {
  Heatmap h = weights_map("attention weights after the causal mask (future keys blocked)",
                          matrix(at(data, "weights", p + ": data"), p + ": data/weights"));
  out.push_back(heatmap(p + ".weights", "softmax weights of random scores after a lower-triangular mask", h));
}

void padding_mask(const json& data, const std::string& p, std::vector<Figure>& out) {
  const std::string where = p + ": data";
  const auto lengths = vec(at(data, "lengths", where), where + "/lengths");
  Heatmap m{.title = "padding mask: 1 = a real token, 0 = padding",
            .values = matrix(at(data, "mask", where), where + "/mask")};
  for (std::size_t b = 0; b < m.values.size(); ++b)
    m.row_labels.push_back(fmt::format("sequence {} (length {:.0f})", b, b < lengths.size() ? lengths[b] : 0));
  m.column_labels = indices(m.values[0].size());
  m.ylabel = "";
  m.xlabel = "position";
  m.value_format = "%.0f";
  out.push_back(heatmap(p + ".mask", "which positions of each sequence are real tokens", m));
  const json& w = at(data, "weights", where);
  for (std::size_t b = 0; b < w.size(); ++b) {
    Heatmap h = weights_map("", matrix(w[b], fmt::format("{}/weights/{}", where, b)));
    // Said per sequence: "padded keys blocked" over a sequence without padding read as a missing mask.
    const std::size_t n = h.values[0].size(), len = b < lengths.size() ? static_cast<std::size_t>(lengths[b]) : n;
    h.title = len >= n ? fmt::format("sequence {} (length {}, no padding): weights", b, len)
                       : fmt::format("sequence {} (length {}): weights, padded {} blocked", b, len,
                                     len + 1 == n ? fmt::format("key {}", len) : fmt::format("keys {}-{}", len, n - 1));
    for (std::size_t j = 0; j < h.column_labels.size(); ++j)
      if (b < lengths.size() && static_cast<double>(j) >= lengths[b]) h.column_labels[j] += "\npad";
    out.push_back(heatmap(fmt::format("{}.weights_{}", p, b),
                          fmt::format("sequence {}'s softmax weights with its padded keys blocked", b), h));
  }
}

void attention_weights(const json& data, const std::string& p, std::vector<Figure>& out) {
  Heatmap h = weights_map("softmax(Q Kᵀ / √d): each row sums to one",
                          matrix(at(data, "weights", p + ": data"), p + ": data/weights"));
  out.push_back(heatmap(p + ".weights", "scaled dot-product attention weights of one random sequence", h));
}

void heads(const json& data, const std::string& p, std::vector<Figure>& out) {
  Heatmap h{.title = "untrained: what position 0 looks at, per head",
            .values = matrix(at(data, "untrained", p + ": data"), p + ": data/untrained")};
  h.row_labels = indices(h.values.size(), "head ");
  h.column_labels = indices(h.values[0].size());
  h.ylabel = "";
  out.push_back(heatmap(p + ".untrained", "each untrained head's weights from position 0", h));
}

void library_mha(const json& data, const std::string& p, std::vector<Figure>& out) {
  const std::string where = p + ": data";
  const json& ph = at(data, "per_head_weights", where);
  std::vector<Heatmap> panels;
  for (std::size_t k = 0; k < ph.size(); ++k) {
    panels.push_back(weights_map(fmt::format("head {}", k), matrix(ph[k], fmt::format("{}/per_head_weights/{}", where, k))));
    panels.back().value_format = panels.back().values[0].size() <= 8 ? "%.2f" : "";
  }
  out.push_back(heatmap_panels(p + ".per_head", "sequence 0's weights per head (average_attn_weights=False)",
                               "nn.MultiheadAttention, sequence 0: weights per head", panels));
  Heatmap c = weights_map("sequence 0, causal attn_mask: weights averaged over heads",
                          matrix(at(data, "causal_weights", where), where + "/causal_weights"));
  out.push_back(heatmap(p + ".causal", "sequence 0's head-averaged weights under a causal attn_mask", c));
}

void torch_mha(const json& data, const std::string& p, std::vector<Figure>& out) {
  const std::string where = p + ": data";
  const struct { const char* key; const char* figure; const char* title; } maps[] = {
      {"weights_key_padding", "key_padding", "key_padding_mask=[[False, True, False, True]]"},
      {"weights_attn_mask", "attn_mask", "attn_mask: -inf in the corners"}};
  for (const auto& m : maps) {
    const json& w = at(data, m.key, where);
    if (!w.is_array() || w.empty()) throw std::invalid_argument(where + "/" + m.key + ": expected (B, N, M)");
    Heatmap h = weights_map(m.title, matrix(w[0], where + "/" + m.key + "/0"));
    h.xlabel = "key";
    h.ylabel = "query";
    out.push_back(heatmap(p + "." + m.figure, std::string("the page's layer, weights with ") + m.title, h));
  }
}

void sinusoidal(const json& data, const std::string& p, std::vector<Figure>& out) {
  Heatmap h{.title = "sinusoidal positional encodings",
            .values = matrix(at(data, "encodings", p + ": data"), p + ": data/encodings")};
  h.row_labels = indices(h.values.size());
  h.column_labels = indices(h.values[0].size());
  h.xlabel = "dimension";
  h.ylabel = "position";
  h.low = -1;
  h.diverging = true;
  h.value_format = h.values[0].size() <= 16 ? "%+.2f" : "";
  out.push_back(heatmap(p + ".encodings", "the sinusoidal table: sin on even dimensions, cos on odd", h));
}

// --- translation (issue 13) ---------------------------------------------------

// The table's bucket headers ("4-7", "17-20*"), from its columns whose key is acc_A_B.
std::vector<std::string> bucket_names(const json& result, std::size_t n) {
  std::vector<std::string> names;
  if (result.contains("table") && result["table"].contains("columns"))
    for (const auto& c : result["table"]["columns"])
      if (c.value("key", "").rfind("acc_", 0) == 0) names.push_back(c.value("header", c.value("key", "")));
  if (names.size() != n) {
    names.clear();
    for (std::size_t i = 0; i < n; ++i) names.push_back("bucket " + std::to_string(i));
  }
  return names;
}

// Bahdanau et al.'s Figure 2: accuracy against source length, one line per
// model; and each model's alignment of one sentence (their Figure 3).
void translation(const json& result, const std::string& p, std::vector<Figure>& out) {
  const json& data = result.at("data");
  const json& rows = at(data, "rows", p + ": data");
  std::vector<Series> lines_by_model;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string where = fmt::format("{}: data/rows/{}", p, i);
    const json& r = rows[i];
    const std::string label = r.value("label", r.value("model", std::to_string(i)));
    const auto acc = vec(at(r, "bucket_accuracy", where), where + "/bucket_accuracy");
    if (names.empty()) names = bucket_names(result, acc.size());
    if (acc.size() != names.size()) throw std::invalid_argument(where + "/bucket_accuracy: not one per bucket");
    const std::string why = divergence(r, label);  // named in the line's title, drawn as no point
    Series s{.title = why.empty() ? label : label + " (diverged)"};
    for (std::size_t b = 0; b < acc.size(); ++b) {
      s.x.push_back(static_cast<double>(b));
      s.y.push_back(why.empty() ? acc[b] : std::nan(""));  // a diverged model's accuracies mean nothing
    }
    lines_by_model.push_back(std::move(s));
    if (r.contains("alignment") && why.empty()) {
      Heatmap h = weights_map(label + ": alignment of one validation sentence",
                              matrix(r["alignment"], where + "/alignment"));
      h.xlabel = "source position";
      h.ylabel = "output position (greedy)";
      // the tokens, when the result carries them (older results: positions only)
      if (r.contains("alignment_source") && r.contains("alignment_output")) {
        h.xlabel = "source: word and position";
        h.ylabel = "greedy output: position and word";
        const json &src = r["alignment_source"], &outp = r["alignment_output"];
        if (!src.is_array() || src.size() != h.values[0].size())
          throw std::invalid_argument(where + "/alignment_source: not one token per column");
        if (!outp.is_array() || outp.size() != h.values.size())
          throw std::invalid_argument(where + "/alignment_output: not one token per row");
        for (std::size_t j = 0; j < src.size(); ++j)
          h.column_labels[j] = fmt::format("{}\n{}", src[j].is_string() ? src[j].get<std::string>() : src[j].dump(), j);
        for (std::size_t t = 0; t < outp.size(); ++t)
          h.row_labels[t] = fmt::format("{}: {}", t, outp[t].is_string() ? outp[t].get<std::string>() : outp[t].dump());
      }
      h.value_format = h.values[0].size() <= 12 ? "%.2f" : "";
      out.push_back(heatmap(fmt::format("{}.alignment_{}", p, r.value("model", std::to_string(i))),
                            "where the decoder looked in the source for each output token", h));
    }
  }
  if (lines_by_model.empty()) return;
  Axes a{.title = p + ": exact-sentence accuracy by source length",
         .xlabel = "source length (words; * = longer than any training sentence)",
         .ylabel = "accuracy (fraction of sentences exactly right)",
         .x_names = names,
         .extra = "set yrange [0:1.02]\nset ytics 0, 0.1, 1\n"};
  out.push_back(lines(p + ".accuracy_by_length",
                      "accuracy by source-length bucket, one line per model (Bahdanau et al., Fig. 2)", a, lines_by_model));
}

// --- lines ------------------------------------------------------------------

void learning_curves(const json& result, const std::string& p, std::vector<Figure>& out) {
  const json& data = result.at("data");
  std::vector<std::pair<std::string, const json*>> rows;
  if (data.contains("epoch_losses")) rows.push_back({p, &data});
  if (data.contains("rows") && data["rows"].is_array()) {
    const json* table = result.contains("table") ? &result["table"] : nullptr;
    for (std::size_t i = 0; i < data["rows"].size(); ++i) {
      const json& r = data["rows"][i];
      if (!r.is_object() || !r.contains("epoch_losses")) continue;
      std::string label = std::to_string(i);
      if (table && table->contains("rows") && i < (*table)["rows"].size()) {
        label = (*table)["rows"][i].value("label", label);
        const std::string header = table->value("label", "");
        if (!header.empty()) label = header + " " + label;
      }
      if (r.contains("label") && r["label"].is_string()) label = r["label"].get<std::string>();  // the row's own name
      rows.push_back({label, &r});
    }
  }
  if (rows.empty()) return;
  std::vector<Series> loss, acc;
  std::vector<std::string> notes;  // what went wrong in training, one line each under the figure's title
  std::size_t last_epoch = 1;
  bool any_accuracy = false;  // some row measured validation accuracy per epoch
  for (const auto& [label, r] : rows) {
    const std::string where = p + ": " + label;
    const auto l = vec(at(*r, "epoch_losses", where), where + "/epoch_losses");
    // A kind whose fit records no validation accuracy per epoch gets an empty accuracy panel that says so.
    const auto a = r->contains("epoch_val_accuracies")
                       ? vec((*r)["epoch_val_accuracies"], where + "/epoch_val_accuracies")
                       : std::vector<double>(l.size(), std::nan(""));
    if (a.size() != l.size()) throw std::invalid_argument(where + ": epoch records of unequal length");
    any_accuracy = any_accuracy || r->contains("epoch_val_accuracies");
    const std::string why = divergence(*r, label);
    if (!why.empty()) {
      notes.push_back(why + ": training stopped there");
      last_epoch = std::max<std::size_t>(last_epoch, (*r)["diverged"].value("epoch", 1));
    } else if (l.empty()) {
      throw std::invalid_argument(where + ": no epoch recorded, and the row did not diverge");
    }
    if (why.empty() && r->value("loss_rose", false) && !l.empty())  // issue 9's warning, on the figure too
      notes.push_back(fmt::format("{}: the loss rose from {:.4g} (first step) to {:.4g} (epoch {})", label,
                                  num(r->value("first_loss", json()), where), l.back(), l.size()));
    if (l.empty()) continue;  // diverged in its first epoch: no point to draw, the title names it
    // A diverged row's line ends at its last completed epoch.
    Series s{.title = why.empty() ? label : label + " (diverged)"}, t{.title = s.title};
    for (std::size_t e = 0; e < l.size(); ++e) s.x.push_back(e + 1.0);
    s.y = l;
    t.x = s.x;
    t.y = a;
    last_epoch = std::max(last_epoch, l.size());
    loss.push_back(std::move(s));
    acc.push_back(std::move(t));
  }
  // Whole epochs, a margin so the first and last points are not cut by the
  // frame, and one left margin so the two panels' plot areas line up.
  const std::string integer_epochs =
      fmt::format("set xtics 1\nset mxtics 1\nset xrange [0.7:{}]\nset lmargin 12\n", number(last_epoch + 0.3));
  Axes top{.title = "training loss", .xlabel = "epoch", .ylabel = "mean cross-entropy per step", .extra = integer_epochs};
  // Accuracy on its whole range, 0 to 1: autoscaled, chance (0.5) looked like a fall and the axis ran past 1.
  Axes bottom{.title = "validation accuracy", .xlabel = "epoch", .ylabel = "accuracy (fraction correct)",
              .extra = integer_epochs + "set yrange [0:1.02]\nset ytics 0, 0.1, 1\n"};
  top.empty_note = bottom.empty_note = "no epoch completed: every row diverged in its first epoch";
  if (!loss.empty() && !any_accuracy)  // translation: exact-sentence accuracy once, after training
    bottom.empty_note = "these rows measure no validation accuracy per epoch, only once after training";
  std::string title = p + ": learning curves";
  // At most four lines, so that the panels keep their room; the result's JSON lists every row.
  const std::size_t shown = notes.size() > 4 ? 3 : notes.size();
  for (std::size_t i = 0; i < shown; ++i) title += "\n" + notes[i];
  if (shown < notes.size()) title += fmt::format("\n... and {} more rows (the result's JSON lists them)", notes.size() - shown);
  // A loss that grew by orders of magnitude flattens every other line: log axis then.
  double lo = HUGE_VAL, hi = 0;
  for (const auto& s : loss)
    for (double v : s.y)
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  top.log_y = lo > 0 && hi / lo > 100;
  if (top.log_y) top.ylabel += " (log scale)";
  out.push_back(two_panels(p + ".learning_curves", "training loss and validation accuracy after each epoch, per row",
                           title, top, loss, bottom, acc));
}

void timing(const json& data, const std::string& p, std::vector<Figure>& out) {
  const std::string where = p + ": data/rows";
  const json& rows = at(data, "rows", p + ": data");
  Series att{.title = "attention"}, lstm{.title = "LSTM"};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string w = fmt::format("{}/{}", where, i);
    const double T = num(at(rows[i], "length", w), w);
    att.x.push_back(T);
    lstm.x.push_back(T);
    att.y.push_back(1000 * num(at(rows[i], "attention_seconds", w), w));
    lstm.y.push_back(1000 * num(at(rows[i], "lstm_seconds", w), w));
  }
  if (att.x.empty()) return;
  // The crossover: where log(attention / lstm) changes sign, interpolated on log axes. The last change is
  // the one that holds to the longest length; at the shortest lengths the two are within noise of each
  // other and may swap back and forth (2 against 4 tokens swapped once in a measured run).
  std::string extra;
  for (std::size_t i = att.x.size() - 1; i-- > 0 && extra.empty();) {
    const double d0 = std::log(att.y[i] / lstm.y[i]), d1 = std::log(att.y[i + 1] / lstm.y[i + 1]);
    if (!(d0 * d1 < 0)) continue;
    const double lx = std::log(att.x[i]) + (std::log(att.x[i + 1]) - std::log(att.x[i])) * d0 / (d0 - d1);
    const double x = std::exp(lx);
    // The label on the side of the line with more room: right of it in the left half, else left of it.
    const bool left_half = lx < (std::log(att.x.front()) + std::log(att.x.back())) / 2;
    extra = fmt::format("set arrow from {0}, graph 0 to {0}, graph 1 nohead dt 2 lw 1.5 lc rgb \"#555555\"\n"
                        "set label {1} at {0}, graph 0.94 {2} tc rgb \"#333333\"\n",
                        number(x),
                        quoted(fmt::format("crossover ≈ length {:.0f}\n{} faster beyond it", x,
                                           d1 > 0 ? "the LSTM is" : "attention is")),
                        left_half ? "left offset 0.8,0" : "right offset -0.8,0");
  }
  if (extra.empty())
    extra = fmt::format("set label {} at graph 0.03, graph 0.94\n",
                        quoted(fmt::format("no crossover between lengths {:.0f} and {:.0f}: {} is faster throughout",
                                           att.x.front(), att.x.back(),
                                           att.y.front() < lstm.y.front() ? "attention" : "the LSTM")));
  // Ticks at the measured lengths, the range just around them.
  extra += "set xtics (";
  for (std::size_t i = 0; i < att.x.size(); ++i) extra += (i ? ", " : "") + number(att.x[i]);
  const auto [shortest, longest] = std::minmax_element(att.x.begin(), att.x.end());
  extra += fmt::format(")\nset xrange [{}:{}]\n", number(*shortest / 1.3), number(*longest * 1.3));
  Axes a{.title = p + ": forward time against sequence length", .xlabel = "sequence length (tokens)",
         .ylabel = "forward time (ms, mean per call)", .log_x = true, .log_y = true, .extra = extra};
  out.push_back(lines(p + ".log_log", "forward time of attention and the LSTM against length, log–log", a, {att, lstm}));
}

}  // namespace

std::vector<Figure> figures_of_result(const json& result, const std::string& prefix) {
  const std::string kind = at(result, "experiment", prefix).get<std::string>();
  const json& data = at(result, "data", prefix);
  std::vector<Figure> out;
  using Draw = void (*)(const json&, const std::string&, std::vector<Figure>&);
  static const std::map<std::string, Draw> maps = {
      {"attention_map", attention_map}, {"causal_mask", causal_mask}, {"padding_mask", padding_mask},
      {"attention_weights", attention_weights}, {"heads", heads}, {"library_mha", library_mha},
      {"torch_mha", torch_mha}, {"sinusoidal", sinusoidal}, {"timing", timing}};
  if (auto it = maps.find(kind); it != maps.end()) it->second(data, prefix, out);
  if (kind == "translation") translation(result, prefix, out);  // needs the table's bucket names too
  learning_curves(result, prefix, out);
  for (auto& f : out) f.source = result.value("file", "");
  return out;
}

std::vector<Figure> figures_of_sweep(const json& doc) {
  const std::string kind = at(doc, "experiment", "sweep").get<std::string>();
  const json& axes = at(doc, "axes", "sweep");
  std::string x_key;
  for (const auto& [key, values] : axes.items()) {
    if (key == "seed" || key == "data_seed" || !values.is_array() || values.size() < 2) continue;
    if (std::all_of(values.begin(), values.end(), [](const json& v) { return v.is_number(); })) {
      x_key = key;
      break;
    }
  }
  std::size_t seeds = 1;
  for (const char* s : {"seed", "data_seed"})
    if (axes.contains(s) && axes[s].is_array()) seeds *= std::max<std::size_t>(1, axes[s].size());
  const json& tables = at(doc, "tables", "sweep");
  if (!tables.is_array() || tables.empty()) return {};
  const json& columns = at(tables[0], "columns", "sweep: tables/0");
  auto describe = [&](const json& params) {
    std::string s;
    for (const auto& [k, v] : params.items())
      if (k != x_key) s += (s.empty() ? "" : ", ") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
    return s;
  };
  auto is_number = [](const std::string& s) {
    char* end = nullptr;
    std::strtod(s.c_str(), &end);
    return !s.empty() && end && *end == '\0';
  };
  std::vector<Figure> out;
  for (const auto& col : columns) {
    const std::string key = col.value("key", ""), header = col.value("header", key);
    std::vector<Series> series;
    std::map<std::string, std::size_t> by_title;
    Axes a;
    a.ylabel = header + " (mean ± std)";
    bool numeric_rows = true;
    for (const auto& t : tables)
      for (const auto& r : t.at("rows")) numeric_rows = numeric_rows && is_number(r.value("row", ""));
    const std::string label_header = tables[0].value("label", "");
    for (const auto& t : tables) {
      const std::string others = describe(t.value("params", json::object()));
      for (std::size_t i = 0; i < t.at("rows").size(); ++i) {
        const json& r = t["rows"][i];
        const json& m = r.at("metrics").at(key);
        const double mean = num(m.at("mean"), "sweep: mean"), sd = m.at("std").is_number() ? m["std"].get<double>() : 0;
        std::string title;
        double x;
        if (!x_key.empty()) {  // one line per row label and combination of the other parameters
          const std::string row = r.value("row", "");
          title = row.empty() ? (others.empty() ? header : others)
                              : (label_header.empty() ? row : label_header + " " + row) + (others.empty() ? "" : ", " + others);
          x = t.at("params").at(x_key).get<double>();
        } else {  // against the table's rows, one line per group
          title = others.empty() ? fmt::format("mean ± std over {} seed{}", seeds, seeds == 1 ? "" : "s") : others;
          x = numeric_rows ? std::strtod(r.value("row", "").c_str(), nullptr) : static_cast<double>(i);
          if (!numeric_rows && a.x_names.size() <= i) a.x_names.push_back(r.value("row", ""));
        }
        auto [it, fresh] = by_title.emplace(title, series.size());
        if (fresh) series.push_back({.title = title});
        Series& s = series[it->second];
        s.x.push_back(x);
        s.y.push_back(mean);
        s.err.push_back(std::isfinite(sd) ? sd : 0);
      }
    }
    if (series.empty()) continue;
    a.xlabel = !x_key.empty() ? x_key : label_header.empty() ? "row" : label_header;
    const auto& xs = series[0].x;
    const double lo = *std::min_element(xs.begin(), xs.end()), hi = *std::max_element(xs.begin(), xs.end());
    a.log_x = a.x_names.empty() && lo > 0 && hi / lo >= 8;
    if (a.log_x) {  // ticks at the values themselves, not at powers of ten
      std::vector<double> all;
      for (const auto& s : series) all.insert(all.end(), s.x.begin(), s.x.end());
      std::sort(all.begin(), all.end());
      all.erase(std::unique(all.begin(), all.end()), all.end());
      a.extra = "set xtics (";
      for (std::size_t i = 0; i < all.size(); ++i) a.extra += (i ? ", " : "") + number(all[i]);
      a.extra += fmt::format(")\nset xrange [{}:{}]\n", number(lo / 1.3), number(hi * 1.3));
    } else if (a.x_names.empty()) {
      const double pad = hi > lo ? (hi - lo) * 0.05 : 0.5;
      a.extra = fmt::format("set xrange [{}:{}]\n", number(lo - pad), number(hi + pad));
    }
    a.title = fmt::format("{}: {} against {} (error bars: ± 1 std over {} seed{})", kind, header, a.xlabel, seeds,
                          seeds == 1 ? "" : "s");
    out.push_back(lines(kind + ".sweep_" + key, fmt::format("the sweep's {} with mean ± std error bars", header), a, series));
    out.back().source = "the sweep of " + doc.value("spec", std::string("a spec"));
  }
  return out;
}

std::vector<Figure> figures_of_document(const json& doc) {
  if (doc.is_object() && doc.contains("results") && doc["results"].is_array()) {
    std::vector<Figure> out;
    std::map<std::string, int> seen;
    for (std::size_t i = 0; i < doc["results"].size(); ++i) {
      const json& r = doc["results"][i];
      const std::string kind = at(r, "experiment", fmt::format("results/{}", i)).get<std::string>();
      const int n = ++seen[kind];
      auto figs = figures_of_result(r, n == 1 ? kind : fmt::format("{}-{}", kind, n));
      out.insert(out.end(), std::make_move_iterator(figs.begin()), std::make_move_iterator(figs.end()));
    }
    return out;
  }
  if (doc.is_object() && doc.contains("tables") && doc.contains("axes")) return figures_of_sweep(doc);
  throw std::invalid_argument(
      "not an attnlab result: expected the JSON of `attnlab run --format json` (\"results\") or of `attnlab sweep "
      "--format json` (\"tables\")");
}

}  // namespace attnlab::plot
