// The translation experiment (issue 13). Its default table takes about two
// minutes on 2 cores, too long for the default suite, so the figures of the
// committed run are checked here: data/chapter.txt's translation table is
// what `attnlab run experiments/*.json` prints (CI's chapter check,
// scripts/check_chapter_repeatedly.sh, fails when the binary prints anything
// else); it must show the effect, and its seed-0 accuracies must sit
// inside PyTorch's spread over seeds 0-2 at the same configuration
// (data/models/translation_torch_seeds.json, scripts/translation_models.py
// seeds). A small run checks the table's shape, the alignments and the spec
// rules.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

#include "course_run.hpp"
#include "experiments/registry.hpp"
#include "spec/spec_error.hpp"
#include "support/golden.hpp"

namespace attnlab::testing {
namespace {

const char* const kModels[] = {"rnnenc", "additive", "dot", "transformer"};  // as the JSON names them
const char* const kLabels[] = {"encoder-decoder, no attention", "additive attention (Bahdanau)",
                               "dot-product attention (Luong)", "transformer"};

std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The translation section of data/chapter.txt.
std::string chapter_translation() {
  const std::string chapter = read(std::string(ATTNLAB_DATA_DIR) + "/chapter.txt");
  const std::string head = "== translation: experiments/translation.json ==\n";
  const auto at = chapter.find(head);
  if (at == std::string::npos) return "";
  const auto end = chapter.find("\n== ", at + head.size());
  return chapter.substr(at + head.size(), end == std::string::npos ? std::string::npos : end - at - head.size());
}

// The five accuracies printed after `label` and its parameter count.
std::vector<double> row_accuracies(const std::string& table, const std::string& label) {
  std::istringstream lines(table);
  std::string line;
  while (std::getline(lines, line))
    if (line.rfind(label, 0) == 0) {
      // params, the accuracies, then the time ("35s")
      std::istringstream cells(line.substr(label.size()));
      std::vector<std::string> words;
      for (std::string w; cells >> w;) words.push_back(w);
      std::vector<double> acc;
      for (std::size_t k = 1; k + 1 < words.size(); ++k) acc.push_back(std::stod(words[k]));
      return acc;
    }
  return {};
}

TEST(Translation, TheSpecIsTheConfigurationPyTorchTrained) {
  const auto torch = load_golden("models/translation_torch_seeds.json");
  const auto& c = torch.at("config");
  const auto spec = experiments::load_spec(std::string(ATTNLAB_EXPERIMENTS_DIR) + "/translation.json").spec;
  for (const char* k : {"n_words", "min_len", "max_len", "test_max_len", "n_train", "n_val", "data_seed", "embed",
                        "epochs", "lr", "lr_schedule", "batch_size", "teacher_forcing", "d_model", "n_heads",
                        "n_layers"})
    EXPECT_EQ(spec.at(k), c.at(k)) << k;
  EXPECT_EQ(spec.at("hidden_size"), c.at("hidden"));
  EXPECT_EQ(spec.at("attn_size"), c.at("attn"));
  EXPECT_EQ(spec.at("models"), nlohmann::json(std::vector<std::string>(std::begin(kModels), std::end(kModels))));
  // bucket_edges [4, 8, ...] are PyTorch's inclusive buckets [[4, 7], [8, 10], ...]
  const auto edges = spec.at("bucket_edges").get<std::vector<int>>();
  const auto buckets = c.at("buckets").get<std::vector<std::vector<int>>>();
  ASSERT_EQ(edges.size(), buckets.size() + 1);
  for (std::size_t k = 0; k < buckets.size(); ++k) {
    EXPECT_EQ(buckets[k][0], edges[k]);
    EXPECT_EQ(buckets[k][1], edges[k + 1] - 1);
  }
}

// PyTorch's own seeds show the effect the table claims (so the bar is the
// task's, not an accident of attnlab's arithmetic): on the longest trained
// bucket every seed's additive model is far above its model without attention.
TEST(Translation, PyTorchsSeedsShowTheSameEffect) {
  const auto torch = load_golden("models/translation_torch_seeds.json");
  for (int seed = 0; seed < 3; ++seed) {
    double none = -1, additive = -1;
    for (const auto& r : torch.at("rows")) {
      if (r.at("seed") != seed) continue;
      if (r.at("model") == "rnnenc") none = r.at("accuracy")[3];
      if (r.at("model") == "additive") additive = r.at("accuracy")[3];
    }
    ASSERT_GE(none, 0) << "seed " << seed;
    ASSERT_GE(additive, 0) << "seed " << seed;
    EXPECT_GE(additive - none, 0.3) << "PyTorch seed " << seed;
    EXPECT_LE(none, 0.05) << "PyTorch seed " << seed;
  }
}

// attnlab's seed-0 row against PyTorch's seeds 0-2, bucket by bucket, inside
// their range widened by 0.02 (the criterion). That holds because the
// default decays the learning rate to 0 (lr_schedule "cosine"): at a constant
// 3e-3 the runs ended wherever their last loss spike left them, PyTorch's
// seeds spread by 0.28 on additive 14-16 (0.50 on 17-20) and 3 of these 20
// cells fell outside. A drift of
// attnlab's arithmetic from PyTorch's moves the saturated cells (the attention
// models at 1.000, the model without attention at 0) first.
TEST(Translation, SeedZeroSitsInsidePyTorchsSeedSpread) {
  const auto torch = load_golden("models/translation_torch_seeds.json");
  const std::string table = chapter_translation();
  ASSERT_FALSE(table.empty()) << "data/chapter.txt has no translation table";
  for (int m = 0; m < 4; ++m) {
    const auto& spread = torch.at("spread").at(kModels[m]);
    EXPECT_EQ(spread.at("seeds"), nlohmann::json({0, 1, 2})) << kModels[m];
    const auto lo = spread.at("min").get<std::vector<double>>(), hi = spread.at("max").get<std::vector<double>>();
    const auto got = row_accuracies(table, kLabels[m]);
    ASSERT_EQ(got.size(), lo.size()) << kLabels[m];
    for (std::size_t k = 0; k < got.size(); ++k) {
      // the table prints 3 decimals: half a unit of the last one more
      EXPECT_GE(got[k], lo[k] - 0.02 - 5e-4) << kLabels[m] << ", bucket " << k << ": PyTorch " << lo[k] << "-" << hi[k];
      EXPECT_LE(got[k], hi[k] + 0.02 + 5e-4) << kLabels[m] << ", bucket " << k << ": PyTorch " << lo[k] << "-" << hi[k];
    }
  }
}

TEST(Translation, AttentionHoldsWhereTheBottleneckCollapses) {
  // The bar, on the longest trained bucket (14-16, the fourth).
  const std::string table = chapter_translation();
  const auto none = row_accuracies(table, kLabels[0]), additive = row_accuracies(table, kLabels[1]);
  ASSERT_EQ(none.size(), 5u);
  ASSERT_EQ(additive.size(), 5u);
  EXPECT_GE(additive[3], 0.8);
  EXPECT_LE(none[3], additive[3] - 0.3);
  EXPECT_NE(table.find("alignment, additive attention (Bahdanau): validation sentence 0"), std::string::npos);
  EXPECT_NE(table.find("cross-attention (last layer, mean over heads), transformer"), std::string::npos);
}

// A run small enough for the suite: every row, its record, the alignments.
TEST(Translation, SmallRunPrintsEveryRowAndTheAlignments) {
  const auto r = run_kind("translation", {{"n_train", 256}, {"n_val", 40}, {"epochs", 1}, {"embed", 8},
                                          {"hidden_size", 8}, {"attn_size", 8}, {"d_model", 8}, {"n_heads", 2},
                                          {"n_layers", 1}, {"max_len", 8}, {"test_max_len", 10},
                                          {"bucket_edges", {4, 9, 11}}, {"alignment_sentence", 3}});
  ASSERT_EQ(r.data.at("rows").size(), 4u);
  for (int m = 0; m < 4; ++m) {
    const auto& row = r.data["rows"][m];
    EXPECT_EQ(row.at("model"), kModels[m]);
    EXPECT_EQ(row.at("label"), kLabels[m]);
    EXPECT_EQ(row.at("status"), "ok");
    EXPECT_EQ(row.at("epoch_losses").size(), 1u);
    EXPECT_EQ(row.at("bucket_accuracy").size(), 2u);
    int counted = 0;
    for (int n : row.at("bucket_count")) counted += n;
    EXPECT_EQ(counted, 40);
    EXPECT_EQ(row.contains("alignment"), m != 0) << kModels[m];
  }
  // the alignment of sentence 3: (L + 1) rows (greedy output, EOS last) of L
  // weights over the source, each row summing to 1, labelled with its tokens
  const auto& row = r.data["rows"][1];
  const auto& w = row["alignment"];
  const auto& source = row["alignment_source"];
  const std::size_t L = source.size();
  ASSERT_GE(L, 4u);  // min_len
  ASSERT_EQ(w.size(), L + 1);
  ASSERT_EQ(row["alignment_output"].size(), L + 1);
  for (std::size_t i = 0; i <= L; ++i) {
    ASSERT_EQ(w[i].size(), L) << i;
    double sum = 0;
    for (std::size_t j = 0; j < L; ++j) sum += w[i][j].get<double>();
    EXPECT_NEAR(sum, 1.0, 1e-5) << i;
  }
  for (const auto& t : source) EXPECT_TRUE(t.get<std::string>().size() == 1 && std::isdigit(t.get<std::string>()[0])) << t;
  // the printed alignment shows the same source tokens as its header
  std::string header;
  for (const auto& t : source) header += fmt::format("{:>5}", t.get<std::string>());
  EXPECT_NE(r.text.find(header), std::string::npos) << header;
  EXPECT_NE(r.text.find("9-10*"), std::string::npos) << "the bucket longer than any training sentence is starred";
}

// A row whose loss stops being finite is named with its epoch and step, has
// no accuracy and no alignment (its weights mean nothing), and the table
// still prints every row. lr = 1e8 makes both models' loss NaN within two
// epochs of this small run (1e6 did too, until the products' last bits moved
// with attnlab's own sgemm tiles: then only the encoder-decoder's; no lr in
// (0, 10] did: clipping and the bounded GRU gates keep the loss finite, only
// rising, which is a warning instead).
TEST(Translation, ADivergedRowIsNamedWithNeitherAccuracyNorAlignment) {
  const auto r = run_kind("translation", {{"models", {"rnnenc", "additive"}}, {"lr", 1e8}, {"lr_schedule", "constant"},
                                          {"n_train", 256}, {"n_val", 40}, {"epochs", 2}, {"embed", 8},
                                          {"hidden_size", 8}, {"attn_size", 8}, {"max_len", 8}, {"test_max_len", 10},
                                          {"bucket_edges", {4, 9, 11}}});
  ASSERT_EQ(r.diverged.size(), 2u);
  for (int m = 0; m < 2; ++m) {
    const auto& row = r.data["rows"][m];
    EXPECT_EQ(row.at("status"), "diverged") << kModels[m];
    EXPECT_TRUE(row.at("accuracy").is_null());
    for (const auto& a : row.at("bucket_accuracy")) EXPECT_TRUE(a.is_null() || std::isnan(a.get<double>())) << a;
    EXPECT_FALSE(row.contains("alignment")) << kModels[m];
    EXPECT_EQ(r.diverged[m].row, kLabels[m]);
    const auto& d = row.at("diverged");
    EXPECT_EQ(d.at("epoch"), r.diverged[m].at.epoch);
    EXPECT_EQ(d.at("step"), r.diverged[m].at.step);
    EXPECT_NE(r.text.find(fmt::format("{:<30} {:>8} diverged at epoch {}, step {}", kLabels[m],
                                      row.at("params").get<int>(), r.diverged[m].at.epoch, r.diverged[m].at.step)),
              std::string::npos)
        << r.text;
  }
  EXPECT_EQ(r.text.find("alignment,"), std::string::npos) << "no alignment of a diverged model";
}

TEST(Translation, SpecRulesNameTheParameter) {
  auto refused = [](const nlohmann::json& overrides) {
    try {
      experiments::load_spec(std::string(ATTNLAB_EXPERIMENTS_DIR) + "/translation.json", overrides);
    } catch (const spec::SpecError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(refused({{"teacher_forcing", 0.5}}).find("/teacher_forcing"), std::string::npos);
  EXPECT_EQ(refused({{"teacher_forcing", 0.5}, {"models", {"rnnenc", "additive"}}}), "");
  EXPECT_NE(refused({{"n_heads", 3}}).find("/n_heads"), std::string::npos);
  EXPECT_NE(refused({{"test_max_len", 10}}).find("/test_max_len"), std::string::npos);
  EXPECT_NE(refused({{"models", {"gru"}}}).find("transformer"), std::string::npos);
  // lr = 0 trains nothing; above 0 any rate is the user's (1e6 diverges, named)
  EXPECT_NE(refused({{"lr", 0}}).find("/lr"), std::string::npos) << refused({{"lr", 0}});
  EXPECT_EQ(refused({{"lr", 1e6}}), "");
  EXPECT_NE(refused({{"lr_schedule", "linear"}}).find("/lr_schedule"), std::string::npos);
  EXPECT_NE(refused({{"lr_schedule", "linear"}}).find("cosine"), std::string::npos) << "names the valid values";
  // a model twice is refused at the second one
  EXPECT_NE(refused({{"models", {"dot", "additive", "dot"}}}).find("/models/2: \"dot\" is already row 0"), std::string::npos)
      << refused({{"models", {"dot", "additive", "dot"}}});
}

}  // namespace
}  // namespace attnlab::testing
