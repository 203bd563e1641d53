// attnlab: runs the attention chapter's experiments from JSON specs and
// prints the course's tables. Tables go to stdout, everything else to
// stderr. Exit codes: 0 ok, 2 bad usage or spec, 1 failure while running.
// Each subcommand lives in a file of its own (commands.hpp).
#include <CLI/CLI.hpp>

#include <functional>
#include <iostream>

#include "cli_common.hpp"
#include "commands.hpp"
#include "spec/spec_error.hpp"
#include "tensor/openblas.hpp"
#include "tensor/sgemm_tiles.hpp"

int main(int argc, char** argv) {
  using namespace attnlab::cli;
  CLI::App app{"attnlab: the attention chapter's experiments, reproduced against PyTorch 1.13"};
  // The kernels that decide a trained table's last digits (README, "Checking the chapter in CI").
  // Asked for only when --version is given: naming OpenBLAS's kernels loads it.
  app.set_version_flag("--version", std::function<std::string()>([] {
    return std::string("attnlab ") + ATTNLAB_VERSION + " (built for " + ATTNLAB_ARCH + ", sgemm tiles " +
           attnlab::tensor::detail::sgemm_tiles_isa() + ", OpenBLAS kernels " + attnlab::tensor::blas_core() + ")";
  }));
  app.require_subcommand(1);
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return std::string("attnlab: error: ") + e.what() + "\nRun 'attnlab --help' for usage and examples.\n";
  });
  app.footer(R"(Examples:
  attnlab run experiments/positions.json          print the course's table
  attnlab run experiments/*.json                  every table of the chapter, in course order
  attnlab run experiments/*.json --check data/chapter.txt   fail (exit 1) when a table drifts
  attnlab run experiments/bottleneck.json --set 'hidden_sizes=[16,32]' --format json -o sweep.json
  attnlab run experiments/*.json --keep-going     a spec that fails is reported, the others still run
  attnlab run experiments/sqrt_d.json --max-memory 4G   refuse (exit 2) if its estimate is above 4 GiB
  attnlab show experiments/sqrt_d.json            the spec with every default filled in
  attnlab validate experiments/*.json             check specs without running them
  attnlab list                                    every experiment kind, one line each
  attnlab list positions                          one kind's parameters, defaults and ranges
  attnlab sweep experiments/bottleneck.json seed=0,1,2,3,4 -j 2   mean ± std over five seeds
  attnlab sweep experiments/bottleneck.json 'seed=range(0,5)' --launcher slurm --wait   the same on Slurm
  attnlab run experiments/attention_map.json --plot figures/   the table, and its figures as SVG and PNG
  attnlab plot runs/bottleneck figures/           a sweep's mean ± std figures, from its folder

Exit codes: 0 ok, 2 bad usage or spec (or a run too big for the memory limits),
1 failure while running (or a training row that diverged).)");

  RunOptions run_opts;
  SpecOptions spec_opts;
  SweepOptions sweep_opts;
  RunOneOptions run_one_opts;
  PlotOptions plot_opts;
  auto* run = add_run(app, run_opts);
  auto* sweep = add_sweep(app, sweep_opts);
  auto* run_one = add_run_one(app, run_one_opts);
  auto* plot = add_plot(app, plot_opts);
  auto* validate = add_validate(app, spec_opts);
  auto* show = add_show(app, spec_opts);
  auto* list = add_list(app, spec_opts);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kUsage;
  }

  try {
    if (run->parsed()) return run_command(run_opts);
    if (sweep->parsed()) return sweep_command(sweep_opts);
    if (run_one->parsed()) return run_one_command(run_one_opts);
    if (plot->parsed()) return plot_command(plot_opts);
    if (validate->parsed()) return validate_command(spec_opts);
    if (show->parsed()) return show_command(spec_opts);
    if (list->parsed()) return list_command(spec_opts);
    return kUsage;
  } catch (const attnlab::spec::SpecError& e) {
    std::cerr << "attnlab: error: " << e.what() << "\n";
    return kUsage;
  } catch (const CLI::ValidationError& e) {
    std::cerr << "attnlab: error: " << e.what() << "\n";
    return kUsage;
  } catch (const std::exception& e) {
    std::cerr << "attnlab: failed: " << e.what() << "\n";
    return kFailure;
  }
}
