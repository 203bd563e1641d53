#include "report/atomic_file.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

namespace attnlab::report {

namespace {

namespace fs = std::filesystem;

std::string kind_of(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

fs::path folder_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

// The target itself: absent, or a regular file we may replace. Returns
// whether it exists (and its stat in *st).
bool check_target(const std::string& path, struct stat* st) {
  if (path.empty()) throw OutputRefused("cannot write a result file without a name");
  if (::lstat(path.c_str(), st) != 0) {
    if (errno == ENOENT) return false;
    throw OutputRefused("cannot write " + path + ": " + std::strerror(errno));
  }
  if (!S_ISREG(st->st_mode))
    throw OutputRefused("cannot write " + path + ": it is " + kind_of(st->st_mode) +
                        ", and attnlab only ever replaces a regular file");
  if ((st->st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0 || ::access(path.c_str(), W_OK) != 0)
    throw OutputRefused("cannot write " + path + ": the file is read-only");
  return true;
}

std::string random_suffix() {
  unsigned char bytes[6];
  std::size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(std::string("getrandom: ") + std::strerror(errno));
    got += static_cast<std::size_t>(n);
  }
  static const char hex[] = "0123456789abcdef";
  std::string s;
  for (unsigned char b : bytes) {
    s += hex[b >> 4];
    s += hex[b & 15];
  }
  return s;
}

// Removes the temporary unless released: every early exit cleans up.
struct Temporary {
  std::string path;
  int fd = -1;
  ~Temporary() {
    if (fd >= 0) ::close(fd);
    if (!path.empty()) ::unlink(path.c_str());
  }
};

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error("cannot write " + path + ": " + what + ": " + std::strerror(errno));
}

}  // namespace

void check_folder_writable(const std::string& folder) {
  // access() says yes to root in /proc and /sys, where no file can be made:
  // make one (a name remove_leftover_temporaries would also clear) and remove it
  Temporary probe;
  probe.path = (fs::path(folder) / (".attnlab-probe." + random_suffix() + ".tmp")).string();
  probe.fd = ::open(probe.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (probe.fd < 0) {
    const int err = errno;
    probe.path.clear();  // not ours
    throw OutputRefused("cannot write into " + folder + ": no file can be created there (" + std::strerror(err) + ")");
  }
}

void check_output_path(const std::string& path, const std::vector<std::string>& inputs) {
  const fs::path folder = folder_of(path);
  struct stat fst;
  if (::stat(folder.c_str(), &fst) != 0 || !S_ISDIR(fst.st_mode))
    throw OutputRefused("cannot write " + path + ": the folder " + fs::absolute(folder).lexically_normal().string() +
                        " does not exist");
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    throw OutputRefused("cannot write " + path + ": the folder " + folder.string() + " is not writable (" +
                        std::strerror(errno) + ")");
  check_folder_writable(folder.string());
  struct stat st;
  if (!check_target(path, &st)) return;
  for (const auto& in : inputs) {
    struct stat ist;
    if (::stat(in.c_str(), &ist) == 0 && ist.st_dev == st.st_dev && ist.st_ino == st.st_ino)
      throw OutputRefused("cannot write " + path + ": it is " + (in == path ? "" : "the same file as " + in + ", ") +
                          "an input of this run; choose another output file");
  }
}

void write_file_atomically(const std::string& path, const std::string& content) {
  struct stat st;
  const bool replacing = check_target(path, &st);
  const std::string base = fs::path(path).filename().string();
  const fs::path folder = folder_of(path);

  Temporary tmp;
  for (int attempt = 0; tmp.fd < 0; ++attempt) {
    tmp.path = (folder / ("." + base + "." + random_suffix() + ".tmp")).string();
    tmp.fd = ::open(tmp.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (tmp.fd < 0) {
      const int err = errno;
      tmp.path.clear();  // not ours: never unlink it
      errno = err;
      if (err != EEXIST || attempt == 16) fail(path, "cannot create a temporary file in " + folder.string());
    }
  }
  for (std::size_t done = 0; done < content.size();) {
    const ssize_t n = ::write(tmp.fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(path, "writing " + tmp.path);
    done += static_cast<std::size_t>(n);
  }
  if (replacing && ::fchmod(tmp.fd, st.st_mode & 07777) != 0) fail(path, "setting the mode of " + tmp.path);
  if (::fsync(tmp.fd) != 0) fail(path, "flushing " + tmp.path);
  const int fd = tmp.fd;
  tmp.fd = -1;
  if (::close(fd) != 0) fail(path, "closing " + tmp.path);

  check_target(path, &st);  // still absent or a regular file: rename replaces a link, never follows it
  if (::rename(tmp.path.c_str(), path.c_str()) != 0) fail(path, "renaming " + tmp.path);
  tmp.path.clear();  // it is the result now
  // Make the rename itself durable; a folder that cannot be fsync'ed (some
  // network file systems) is no reason to fail a finished write.
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

int remove_leftover_temporaries(const std::string& path) noexcept {
  const std::string base = fs::path(path).filename().string();
  const std::string prefix = "." + base + ".";
  constexpr std::size_t kSuffix = 12;  // random_suffix(): 6 bytes in hex
  int removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(folder_of(path), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() != prefix.size() + kSuffix + 4 || name.compare(0, prefix.size(), prefix) != 0 ||
        name.compare(name.size() - 4, 4, ".tmp") != 0)
      continue;
    struct stat st;
    if (::lstat(it->path().c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::unlink(it->path().c_str()) == 0)
      ++removed;
  }
  return removed;
}

}  // namespace attnlab::report
