// Where the attnlab program lies beside the `attnlab` launcher users start
// (CMakeLists.txt builds both; apps/launcher/launcher.cpp says why there are two).
#pragma once

namespace attnlab::resources {

/// The program's path relative to the launcher's folder: build/attnlab
/// starts build/libexec/attnlab/attnlab. The file keeps the name attnlab so
/// that the process goes by it (ps, pgrep, killall).
inline constexpr char kProgramBesideLauncher[] = "libexec/attnlab/attnlab";

/// The launcher's file name, in the folder kProgramBesideLauncher is relative to.
inline constexpr char kLauncherName[] = "attnlab";

}  // namespace attnlab::resources
