// --plot and `attnlab plot` as a user meets them: real gnuplot, real files,
// each figure read back (the PNG's signature and size, the SVG parsed as XML
// with its cells, points and error bars counted).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "plot/figure_files.hpp"

namespace attnlab::testing {
namespace {

namespace fs = std::filesystem;
const std::string kSpecs = ATTNLAB_EXPERIMENTS_DIR;

std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::vector<double>> read_matrix(const fs::path& p) {
  std::vector<std::vector<double>> m;
  std::istringstream in(slurp(p));
  for (std::string line; std::getline(in, line);) {
    std::istringstream l(line);
    m.emplace_back();
    for (double v; l >> v;) m.back().push_back(v);
  }
  return m;
}

// Every figure's four files, a PNG of the size the SVG has, both non-trivial.
void expect_figure(const fs::path& dir, const std::string& name) {
  for (const char* ext : {".svg", ".png", ".gp", ".dat"})
    ASSERT_TRUE(fs::is_regular_file(dir / (name + ext))) << name << ext;
  const PngFacts png = read_png(dir / (name + ".png"));
  EXPECT_TRUE(png.signature) << name;
  const SvgFacts svg = read_svg(dir / (name + ".svg"));
  EXPECT_EQ(png.width, static_cast<std::uint32_t>(svg.width)) << name;
  EXPECT_EQ(png.height, static_cast<std::uint32_t>(svg.height)) << name;
  EXPECT_GT(png.bytes, 5000u) << name;  // a drawn figure, not an empty canvas
}

int nonempty_texts(const PlotGroup& g) {
  return static_cast<int>(std::count_if(g.texts.begin(), g.texts.end(), [](const std::string& t) {
    return t.find_first_not_of(" \t\n") != std::string::npos;
  }));
}

TEST(PlotCli, AttentionMapDrawsItsHeatmapAndLearningCurvesAndPlotRedrawsTheSameFiles) {
  ScratchDir dir("plot_map");
  const fs::path figs = dir.path / "out", again = dir.path / "again";
  const std::string result = (dir.path / "map.json").string();
  const Outcome o = run_attnlab("run " + kSpecs + "/attention_map.json --format json -o " + result +
                                    " --plot " + figs.string(), dir);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.out, "");  // -o took the result; figures are never on stdout
  EXPECT_EQ(files_in(figs), (std::vector<std::string>{
                                "attention_map.learning_curves.dat", "attention_map.learning_curves.gp",
                                "attention_map.learning_curves.png", "attention_map.learning_curves.svg",
                                "attention_map.weights.dat", "attention_map.weights.gp", "attention_map.weights.png",
                                "attention_map.weights.svg"}));
  expect_figure(figs, "attention_map.weights");
  expect_figure(figs, "attention_map.learning_curves");

  // The course's point: position 0 (row 0, on top) puts its weight on column 3,
  // the later copy of its digit.
  const auto w = read_matrix(figs / "attention_map.weights.dat");
  ASSERT_EQ(w.size(), 8u);
  EXPECT_EQ(std::max_element(w[0].begin(), w[0].end()) - w[0].begin(), 3);
  // The SVG: 64 cells (one polygon each) in the image, and 64 value labels
  // split between the white and the black label plots.
  const SvgFacts svg = read_svg(figs / "attention_map.weights.svg");
  ASSERT_GE(svg.plots.size(), 3u);
  EXPECT_EQ(count_in(svg.plots[0], "polygon"), 64);
  // And as drawn: in the SVG's top row of cells (query 0, labelled so on
  // the left), the darkest cell is the fourth from the left (key 3).
  auto drawn = cells(svg.plots[0]);
  ASSERT_EQ(drawn.size(), 64u);
  const double top = std::min_element(drawn.begin(), drawn.end(), [](auto& a, auto& b) { return a.y < b.y; })->y;
  std::vector<Cell> row0;
  for (const auto& c : drawn)
    if (c.y < top + 1) row0.push_back(c);
  ASSERT_EQ(row0.size(), 8u);
  std::sort(row0.begin(), row0.end(), [](auto& a, auto& b) { return a.x < b.x; });
  EXPECT_EQ(std::min_element(row0.begin(), row0.end(), [](auto& a, auto& b) { return a.brightness < b.brightness; }) -
                row0.begin(),
            3);
  const std::string seq_digits = "pos 0: " + std::to_string(nlohmann::json::parse(slurp(result))["results"][0]["data"]["sequence"][0].get<int>());
  EXPECT_NE(std::find(svg.texts.begin(), svg.texts.end(), seq_digits), svg.texts.end()) << "no row labelled " << seq_digits;
  EXPECT_EQ(nonempty_texts(svg.plots[1]) + nonempty_texts(svg.plots[2]), 64);
  // Learning curves: two panels (loss, accuracy), one line of 10 epochs each.
  const SvgFacts curves = read_svg(figs / "attention_map.learning_curves.svg");
  ASSERT_EQ(curves.plots.size(), 2u);
  const auto doc = nlohmann::json::parse(slurp(result));
  const auto& data = doc["results"][0]["data"];
  ASSERT_EQ(data["epoch_losses"].size(), 10u);
  EXPECT_EQ(data["epoch_val_accuracies"].back(), data["accuracy"]);

  // Drawn again from the saved result, without training: the same bytes.
  const Outcome p = run_attnlab("plot " + result + " " + again.string(), dir);
  ASSERT_EQ(p.exit_code, 0) << p.err;
  ASSERT_EQ(files_in(again), files_in(figs));
  for (const auto& name : files_in(figs)) EXPECT_EQ(slurp(again / name), slurp(figs / name)) << name;
}

bool any_text_has(const SvgFacts& svg, const std::string& what) {
  return std::any_of(svg.texts.begin(), svg.texts.end(), [&](const std::string& t) { return t.find(what) != std::string::npos; });
}

TEST(PlotCli, ATextRunWithFiguresStillEvaluatesEveryEpoch) {
  // A text table alone evaluates after the last epoch only (as the course's
  // fit()); with --plot the learning curves need every epoch's accuracy.
  ScratchDir dir("plot_text_curves");
  const fs::path figs = dir.path / "out";
  const Outcome o = run_attnlab("run " + kSpecs + "/attention_map.json --set epochs=3 --set n_train=500 --plot " +
                                    figs.string(), dir);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const Outcome plain = run_attnlab("run " + kSpecs + "/attention_map.json --set epochs=3 --set n_train=500", dir);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(o.out, plain.out);  // the same table either way
  // The .dat holds the loss block, then the accuracy block: "EPOCH VALUE" lines.
  const std::string dat = slurp(figs / "attention_map.learning_curves.dat");
  const std::size_t accuracy = dat.find("\n\n\n");
  ASSERT_NE(accuracy, std::string::npos) << dat;
  std::istringstream in(dat.substr(accuracy));
  std::vector<int> epochs;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    epochs.push_back(std::stoi(line));
    EXPECT_EQ(line.find("nan"), std::string::npos) << line;
  }
  EXPECT_EQ(epochs, (std::vector<int>{1, 2, 3}));
}

TEST(PlotCli, DivergedRowsGetLearningCurvesThatNameThemAndGnuplotDrawsThemCleanly) {
  ScratchDir dir("plot_diverged");
  const fs::path figs = dir.path / "out", again = dir.path / "again";
  const std::string result = (dir.path / "diverged.json").string();
  // lr=1000: both rows' losses are NaN within the first epoch (issue 9 names them, the run exits 1).
  const Outcome o = run_attnlab("run " + kSpecs + "/positions.json " + kSpecs + "/attention_map.json --set lr=1000 "
                                    "--format json -o " + result + " --plot " + figs.string(), dir);
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_EQ(o.err.find("gnuplot:"), std::string::npos) << "gnuplot complained: " << o.err;
  // The attention map of a model whose weights are NaN is not drawn; its curves are.
  EXPECT_EQ(files_in(figs), (std::vector<std::string>{
                                "attention_map.learning_curves.dat", "attention_map.learning_curves.gp",
                                "attention_map.learning_curves.png", "attention_map.learning_curves.svg",
                                "positions.learning_curves.dat", "positions.learning_curves.gp",
                                "positions.learning_curves.png", "positions.learning_curves.svg"}));
  expect_figure(figs, "positions.learning_curves");
  expect_figure(figs, "attention_map.learning_curves");
  const SvgFacts svg = read_svg(figs / "positions.learning_curves.svg");
  EXPECT_TRUE(any_text_has(svg, "no positions diverged at epoch 1, step ")) << "the figure does not name the row";
  EXPECT_TRUE(any_text_has(svg, "with positions diverged at epoch 1, step "));
  EXPECT_TRUE(any_text_has(read_svg(figs / "attention_map.learning_curves.svg"), "attention_map diverged at epoch 1"));
  EXPECT_EQ(slurp(figs / "positions.learning_curves.dat").find("nan"), std::string::npos);

  const Outcome p = run_attnlab("plot " + result + " " + again.string(), dir);
  ASSERT_EQ(p.exit_code, 0) << p.err;
  ASSERT_EQ(files_in(again), files_in(figs));
  for (const auto& name : files_in(figs)) EXPECT_EQ(slurp(again / name), slurp(figs / name)) << name;
}

// A real (small) translation run: Bahdanau's Figure 2 as one line per model
// and Figure 3 as one heatmap per attention model, its cells one per weight of
// the JSON result and its axes labelled with the sentence's tokens.
TEST(PlotCli, TranslationDrawsAccuracyByLengthAndEachModelsAlignment) {
  ScratchDir dir("plot_translation");
  const fs::path figs = dir.path / "out", again = dir.path / "again";
  const std::string result = (dir.path / "translation.json").string();
  const Outcome o = run_attnlab("run " + kSpecs + "/translation.json --set n_train=256 --set n_val=40 --set epochs=1 "
                                    "--set embed=8 --set hidden_size=8 --set attn_size=8 --set d_model=8 --set n_heads=2 "
                                    "--set n_layers=1 --set max_len=8 --set test_max_len=10 "
                                    "--set 'bucket_edges=[4,7,9,11]' --format json -o " + result + " --plot " +
                                    figs.string(), dir);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const std::vector<std::string> names = {"translation.accuracy_by_length", "translation.alignment_additive",
                                          "translation.alignment_dot", "translation.alignment_transformer",
                                          "translation.learning_curves"};
  std::vector<std::string> expected;
  for (const auto& n : names)
    for (const char* ext : {".dat", ".gp", ".png", ".svg"}) expected.push_back(n + ext);
  EXPECT_EQ(files_in(figs), expected);
  for (const auto& n : names) expect_figure(figs, n);

  const auto rows = nlohmann::json::parse(slurp(result))["results"][0]["data"]["rows"];
  ASSERT_EQ(rows.size(), 4u);
  for (int m = 1; m < 4; ++m) {
    const auto& row = rows[m];
    const std::size_t L = row["alignment_source"].size();
    const fs::path svg_file = figs / ("translation.alignment_" + row["model"].get<std::string>() + ".svg");
    const SvgFacts svg = read_svg(svg_file);
    ASSERT_GE(svg.plots.size(), 1u);
    EXPECT_EQ(count_in(svg.plots[0], "polygon"), static_cast<int>((L + 1) * L)) << svg_file;
    // the drawn numbers are the result's: the .dat holds the JSON's matrix
    const auto w = read_matrix(figs / ("translation.alignment_" + row["model"].get<std::string>() + ".dat"));
    ASSERT_GE(w.size(), L + 1);
    for (std::size_t t = 0; t <= L; ++t)
      for (std::size_t j = 0; j < L; ++j) EXPECT_NEAR(w[t][j], row["alignment"][t][j].get<double>(), 1e-6);
    // rows labelled "position: greedy token", the last one the decoder's EOS or its last guess
    const std::string first = "0: " + row["alignment_output"][0].get<std::string>();
    EXPECT_NE(std::find(svg.texts.begin(), svg.texts.end(), first), svg.texts.end()) << "no row labelled " << first;
  }
  // Figure 2's analogue: four lines of three buckets each
  const SvgFacts acc = read_svg(figs / "translation.accuracy_by_length.svg");
  for (const char* label : {"encoder-decoder, no attention", "additive attention (Bahdanau)",
                            "dot-product attention (Luong)", "transformer"})
    EXPECT_TRUE(any_text_has(acc, label)) << label;

  const Outcome p = run_attnlab("plot " + result + " " + again.string(), dir);
  ASSERT_EQ(p.exit_code, 0) << p.err;
  ASSERT_EQ(files_in(again), files_in(figs));
  for (const auto& name : files_in(figs)) EXPECT_EQ(slurp(again / name), slurp(figs / name)) << name;
}

TEST(PlotCli, EveryHeatmapKindDrawsOneCellPerWeight) {
  ScratchDir dir("plot_maps");
  const fs::path figs = dir.path / "maps";
  const Outcome o = run_attnlab("run " + kSpecs + "/causal_mask.json " + kSpecs + "/padding_mask.json " + kSpecs +
                                    "/attention_weights.json " + kSpecs + "/library_mha.json " + kSpecs +
                                    "/torch_mha.json " + kSpecs + "/sinusoidal.json --plot " + figs.string(),
                                dir);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  // name -> cells: causal 6x6, padding mask 2x5 and two 5x5 maps, attention_weights (its spec's T x T),
  // library_mha's 4 heads of 6x6 and the causal 6x6, torch_mha's 3x4 twice, sinusoidal 6x8.
  const std::vector<std::pair<std::string, int>> want = {
      {"causal_mask.weights", 36},     {"padding_mask.mask", 10},     {"padding_mask.weights_0", 25},
      {"padding_mask.weights_1", 25},  {"library_mha.per_head", 144}, {"library_mha.causal", 36},
      {"torch_mha.key_padding", 12},   {"torch_mha.attn_mask", 12},   {"sinusoidal.encodings", 48}};
  for (const auto& [name, cells] : want) {
    expect_figure(figs, name);
    const SvgFacts svg = read_svg(figs / (name + ".svg"));
    int drawn = 0;  // image plots are every third group (image, white labels, black labels)
    for (std::size_t g = 0; g < svg.plots.size(); g += 3) drawn += count_in(svg.plots[g], "polygon");
    EXPECT_EQ(drawn, cells) << name;
  }
  expect_figure(figs, "attention_weights.weights");
}

TEST(PlotCli, BottleneckSeedSweepDrawsAccuracyAgainstHiddenSizeWithErrorBars) {
  ScratchDir dir("plot_sweep");
  const fs::path runs = dir.path / "runs", figs = dir.path / "figs", again = dir.path / "again";
  const Outcome o = run_attnlab("sweep " + kSpecs + "/bottleneck.json seed=0,1,2 'hidden_sizes=[2,8,32]' epochs=1 "
                                    "n_train=320 n_val=200 -j 2 --dir " + runs.string() + " --plot " + figs.string(),
                                dir);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  expect_figure(figs, "bottleneck.sweep_accuracy");
  const auto dat = slurp(figs / "bottleneck.sweep_accuracy.dat");
  EXPECT_EQ(dat.substr(0, dat.find('\n')), "# mean ± std over 3 seeds");
  const auto points = read_matrix(figs / "bottleneck.sweep_accuracy.dat");
  std::vector<double> x;
  for (const auto& p : points)
    if (p.size() == 3) x.push_back(p[0]);
  EXPECT_EQ(x, (std::vector<double>{2, 8, 32}));  // x = hidden size, with its std as the error
  const SvgFacts svg = read_svg(figs / "bottleneck.sweep_accuracy.svg");
  ASSERT_EQ(svg.plots.size(), 1u);
  EXPECT_EQ(count_in(svg.plots[0], "use"), 3 + 1);       // a marker per point, and the key's
  EXPECT_EQ((subpaths(svg.plots[0]) - 3 - 1) / 3, 3);    // a bar with two caps per point
  EXPECT_EQ((subpaths(svg.plots[0]) - 3 - 1) % 3, 0);
  const auto gp = slurp(figs / "bottleneck.sweep_accuracy.gp");
  EXPECT_NE(gp.find("yerrorlines"), std::string::npos);
  EXPECT_NE(gp.find("set xlabel \"hidden size\""), std::string::npos);
  // The sweep's folder, drawn later: the same files.
  const Outcome p = run_attnlab("plot " + runs.string() + " " + again.string(), dir);
  ASSERT_EQ(p.exit_code, 0) << p.err;
  for (const auto& name : files_in(figs)) EXPECT_EQ(slurp(again / name), slurp(figs / name)) << name;
}

TEST(PlotCli, TimingDrawsLogLogAxesWithTheCrossoverOrItsAbsenceWritten) {
  ScratchDir dir("plot_timing");
  const fs::path figs = dir.path / "t";
  const Outcome o = run_attnlab("run " + kSpecs + "/timing.json --set 'lengths=[8,64,512]' --set repeats=2 --plot " +
                                    figs.string(), dir);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  expect_figure(figs, "timing.log_log");
  const SvgFacts svg = read_svg(figs / "timing.log_log.svg");
  ASSERT_EQ(svg.plots.size(), 2u);  // attention and the LSTM
  bool marked = false;
  for (const auto& t : svg.texts) marked = marked || t.find("crossover") != std::string::npos;
  EXPECT_TRUE(marked) << "neither a crossover nor its absence is written on the figure";
  const auto gp = slurp(figs / "timing.log_log.gp");
  EXPECT_NE(gp.find("set logscale x"), std::string::npos);
  EXPECT_NE(gp.find("set logscale y"), std::string::npos);
}

TEST(PlotCli, NoGnuplotIsRefusedBeforeAnyTrainingNamingThePackage) {
  ScratchDir dir("plot_nognuplot");
  const fs::path figs = dir.path / "never";
  const Outcome o = run_attnlab("run " + kSpecs + "/bottleneck.json --plot " + figs.string(), dir, "",
                                "PATH=/nonexistent; export PATH; ");
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_NE(o.err.find("gnuplot-nox"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("running"), std::string::npos) << "training started: " << o.err;
  EXPECT_EQ(o.out, "");
  EXPECT_FALSE(fs::exists(figs));
  const Outcome p = run_attnlab("plot anything.json " + figs.string(), dir, "", "PATH=/nonexistent; export PATH; ");
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_NE(p.err.find("gnuplot-nox"), std::string::npos) << p.err;
}

TEST(PlotCli, BadFoldersAndBadResultsAreRefusedWithExitTwo) {
  ScratchDir dir("plot_refusals");
  const std::string file = dir.write("not_a_folder", "x");
  Outcome o = run_attnlab("run " + kSpecs + "/sqrt_d.json --plot " + file, dir);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("not a folder"), std::string::npos) << o.err;
  EXPECT_EQ(slurp(file), "x");
  o = run_attnlab("run " + kSpecs + "/sqrt_d.json --plot " + file + "/below/it", dir);  // a file on the way
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find(file + " exists and is not a folder"), std::string::npos) << o.err;
  EXPECT_EQ(slurp(file), "x");
  // Missing parents are made, as mkdir -p makes them.
  o = run_attnlab("run " + kSpecs + "/causal_mask.json --plot " + (dir.path / "a" / "b").string(), dir);
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_TRUE(fs::is_regular_file(dir.path / "a" / "b" / "causal_mask.weights.png"));
  const std::string spec = kSpecs + "/sqrt_d.json";
  o = run_attnlab("plot " + spec + " " + (dir.path / "f").string(), dir);  // a spec is not a result
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("not an attnlab result"), std::string::npos) << o.err;
  o = run_attnlab("plot " + dir.path.string() + " " + (dir.path / "f").string(), dir);  // a folder without sweep.json
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("sweep.json"), std::string::npos) << o.err;
  // A refused result leaves no figures' folder behind.
  EXPECT_FALSE(fs::exists(dir.path / "f"));
  o = run_attnlab("plot " + (dir.path / "missing.json").string() + " " + (dir.path / "g" / "h").string(), dir);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_FALSE(fs::exists(dir.path / "g"));
  // A folder where no file can be made (as root, access() says yes in /proc) is refused before any work.
  o = run_attnlab("run " + kSpecs + "/sqrt_d.json --plot /proc/self/fd", dir);
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_NE(o.err.find("no file can be created there"), std::string::npos) << o.err;
  o = run_attnlab("run " + kSpecs + "/sqrt_d.json -o /proc/self/fd/result.json", dir);
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_NE(o.err.find("cannot write"), std::string::npos) << o.err;
}

TEST(PlotCli, ALinkWhereAFigureGoesIsRefusedBeforeAnyTraining) {
  // run --plot knows the kinds before it trains, so an entry KIND.*.svg (and
  // .png, .gp, .dat) that is a link or a folder is refused at once, exit 2,
  // with no table printed and the link's target untouched; `plot` checks
  // every file of its figures before drawing the first.
  ScratchDir dir("plot_link_slot");
  const fs::path figs = dir.path / "figs";
  fs::create_directories(figs);
  const std::string target = dir.write("target.txt", "keep me");
  fs::create_symlink(target, figs / "attention_map.weights.svg");
  Outcome o = run_attnlab("run " + kSpecs + "/attention_map.json --plot " + figs.string(), dir);
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_EQ(o.out, "");  // refused before the training that prints the table
  EXPECT_NE(o.err.find("attention_map.weights.svg"), std::string::npos) << o.err;
  EXPECT_EQ(slurp(target), "keep me");
  // A folder in a figure's place, for a sweep: refused before any run folder is made.
  fs::create_directories(figs / "bottleneck.sweep_accuracy.png");
  const fs::path runs = dir.path / "runs";
  o = run_attnlab("sweep " + kSpecs + "/bottleneck.json seed=0,1 --dir " + runs.string() + " --plot " + figs.string(),
                  dir);
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_NE(o.err.find("bottleneck.sweep_accuracy.png"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(runs));
  // Entries of other kinds, or not named like a figure, are not the run's business.
  fs::create_directories(figs / "attention_map.notes");
  o = run_attnlab("run " + kSpecs + "/causal_mask.json --plot " + figs.string(), dir);
  EXPECT_EQ(o.exit_code, 0) << o.err;
  // The run's own -o file named like one of its figures in that folder: refused before any work too.
  const fs::path fresh = dir.path / "fresh", own = fresh / "causal_mask.weights.gp";
  fs::create_directories(fresh);
  o = run_attnlab("run " + kSpecs + "/causal_mask.json --format json -o " + own.string() + " --plot " + fresh.string(),
                  dir);
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_NE(o.err.find("its -o output"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(own));
  // `plot` of a saved result: every figure file is checked before the first is drawn.
  const std::string result = (dir.path / "map.json").string();
  o = run_attnlab("run " + kSpecs + "/attention_map.json --set epochs=1 --set n_train=200 --format json -o " + result,
                  dir);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  o = run_attnlab("plot " + result + " " + figs.string(), dir);
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_NE(o.err.find("attention_map.weights.svg"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(figs / "attention_map.learning_curves.svg"));  // nothing drawn before the refusal
  EXPECT_EQ(slurp(target), "keep me");
}

}  // namespace
}  // namespace attnlab::testing
