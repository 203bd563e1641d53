// Configure-time probe (CMakeLists.txt, try_run): prints the alignment xtensor
// uses with attnlab's flags, which attnlab/config.hpp then records.
#include <cstdio>

#include <xtensor/xtensor_config.hpp>

int main() { std::printf("%d\n", int(XTENSOR_DEFAULT_ALIGNMENT)); }
