// Comparing a run's printed tables with a committed expected output, so an
// instructor's CI fails when a table of the chapter drifts.
#pragma once

#include <string>
#include <vector>

namespace attnlab::report {

/// One place where the output differs from the expectation.
struct Difference {
  std::string table;     // the section's "KIND: FILE" (or "output" for a single table)
  std::string row;       // the row's full label ("attention, 1 block"), or its first value
  std::string column;    // the header's name above the value ("max weight scaled"), or "value N" counted after the label
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
/// Tables are paired by kind and full spec path (lexically normalised), so
/// two specs of one name in different folders are each compared with their
/// own table; a path given differently ("/home/me/attnlab/experiments/x.json"
/// for "experiments/x.json") still pairs when it ends the same way and no
/// other table could be the one. An `expected` without headings (what one
/// spec prints) is compared with the run's one table.
std::vector<Difference> compare_tables(const std::string& expected, const std::string& actual);

/// Why `text` cannot be an expected output file, or "" when it can: it is
/// empty, holds a NUL byte, or has CRLF line endings (the message says how to
/// convert it).
std::string expected_text_problem(const std::string& text);

/// A readable report of the differences: one paragraph each, naming the
/// table, row and column with the expected and the printed line.
std::string describe(const std::vector<Difference>& diffs, const std::string& expected_file);

}  // namespace attnlab::report
