// Comparing a run's printed tables with a committed expected output, so an
// instructor's CI fails when a table of the chapter drifts.
#pragma once

#include <string>
#include <vector>

namespace attnlab::report {

/// One place where the output differs from the expectation.
struct Difference {
  std::string table;     // the section's "KIND: FILE" (or "output" for a single table)
  std::string row;       // the row's label: its leading words, or its first value
  std::string column;    // the header word above the value, or "value N"
  std::string expected;  // the expected token (or line)
  std::string actual;    // what was printed instead
  int line = 0;          // 1-based line within the table
};

/// Whether a token is a measurement (a wall time such as "5s" or "0.8ms"):
/// such tokens are compared by presence only, since they differ by nature.
bool is_measured(const std::string& token);

/// Compares `actual` with `expected` table by table ("== KIND: FILE ==" lines
/// split the output into tables), line by line and token by token; every
/// token must be equal except measured ones, which must merely both be
/// measurements. Returns every difference (empty when they match).
std::vector<Difference> compare_tables(const std::string& expected, const std::string& actual);

/// A readable report of the differences: one paragraph each, naming the
/// table, row and column with the expected and the printed line.
std::string describe(const std::vector<Difference>& diffs, const std::string& expected_file);

}  // namespace attnlab::report
