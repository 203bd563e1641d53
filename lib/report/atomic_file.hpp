// Result files that are either complete or absent, and that never replace
// anything but the regular file they were asked for.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace attnlab::report {

/// Why a path may not receive a result file. The message names the path and
/// the reason, e.g. "cannot write /dev/null: it is a character device, not a
/// regular file".
struct OutputRefused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Checks, before any work, that `path` may receive a result file:
///   - its folder exists and is writable;
///   - the path itself is absent, or a regular file that is writable (by its
///     mode bits, so root is refused a read-only file too);
///   - it is not a symbolic link (even to a regular file), a folder, a device,
///     a FIFO or a socket;
///   - it is not the same file (device and inode, so also through another
///     spelling, a hard link or a symlink) as any of `inputs`, the files the
///     run reads (its specs, a --check file).
/// Throws OutputRefused on the first failed condition.
void check_output_path(const std::string& path, const std::vector<std::string>& inputs = {});

/// Whether a file can be created in `folder`, found by creating one
/// (".attnlab-probe.XXXXXXXXXXXX.tmp", O_EXCL | O_NOFOLLOW) and removing it:
/// access(W_OK) says yes to root in /proc and /sys, where creating fails.
/// check_output_path calls it for the file's folder. Throws OutputRefused
/// naming the folder and the system's reason.
void check_folder_writable(const std::string& folder);

/// Writes `content` to `path` so that `path` is either untouched or holds
/// all of it:
///   1. a temporary file is created in the same folder with an unpredictable
///      name (".NAME.XXXXXXXXXXXX.tmp", 48 random bits from getrandom) by
///      open(O_CREAT | O_EXCL | O_NOFOLLOW), so it is always a new file of
///      our own, never a planted link;
///   2. the content is written, the file given the mode of the file it
///      replaces (or 0666 less the umask), and fsync'ed;
///   3. `path` is checked again (absent or a regular file, not a link) and the
///      temporary renamed over it; the folder is fsync'ed.
/// On any failure the temporary is removed and `path` is left as it was.
/// Throws OutputRefused when `path` is not a writable regular file or absent
/// (see check_output_path, without the inputs), std::runtime_error naming the
/// path and the system's reason otherwise. Thread-safe: concurrent calls on
/// different paths (or the same one; the last rename wins) never collide.
void write_file_atomically(const std::string& path, const std::string& content);

/// Removes the temporaries (".NAME.XXXXXXXXXXXX.tmp", regular files only,
/// links left alone) that write_file_atomically left beside `path` when its
/// process was killed between creating and renaming one. Only for a folder
/// the caller owns (a sweep's run folder, under its lock): another writer's
/// temporary would be removed too. Returns how many were removed; never throws.
int remove_leftover_temporaries(const std::string& path) noexcept;

}  // namespace attnlab::report
