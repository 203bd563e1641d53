# ctest's install.consumer: installs attnlab into a fresh prefix, builds
# apps/example there as a separate CMake project (find_package(attnlab)),
# runs it on the PyTorch-trained model and checks that it reproduced
# PyTorch's logits, then streams a causal encoder (attnlab_stream_example,
# which needs the models library). Proves the package carries every header
# the public ones include, the static libraries in a working link order and a config that
# finds its dependencies; the consumer's compile lines must not mention lib/.
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK=... -P consumer.cmake
foreach(_v BUILD_DIR SOURCE_DIR WORK)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "consumer.cmake needs -D${_v}=...")
  endif()
endforeach()

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK})
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK}/prefix)
foreach(_f lib/cmake/attnlab/attnlabConfig.cmake lib/cmake/attnlab/attnlabConfigVersion.cmake
           lib/cmake/attnlab/attnlabTargets.cmake lib/libattnlab_api.a lib/libattnlab_kernels.a)
  if(NOT EXISTS ${WORK}/prefix/${_f})
    message(FATAL_ERROR "the installed package lacks ${_f}")
  endif()
endforeach()
run("configuring the consumer" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/apps/example -B ${WORK}/build
    -DCMAKE_PREFIX_PATH=${WORK}/prefix -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
file(READ ${WORK}/build/compile_commands.json _commands)
string(FIND "${_commands}" "${SOURCE_DIR}/lib" _at)
if(NOT _at EQUAL -1)
  message(FATAL_ERROR "the consumer compiles against the source tree, not the installed headers")
endif()
run("building the consumer" ${CMAKE_COMMAND} --build ${WORK}/build)
run("running the consumer" ${WORK}/build/attnlab_example ${SOURCE_DIR}/data/models/trained_positions)
message(STATUS "${last_output}")
if(NOT last_output MATCHES "max \\|attnlab - PyTorch\\| = ")
  message(FATAL_ERROR "unexpected output:\n${last_output}")
endif()
run("running the stream example" ${WORK}/build/attnlab_stream_example 24)
message(STATUS "${last_output}")
if(NOT last_output MATCHES "max \\|step - forward\\(prefix\\)\\| = ")
  message(FATAL_ERROR "unexpected output:\n${last_output}")
endif()

# The guard against mismatched xtensor types: a program compiled without the
# library's flags is refused at compile time, naming the reason.
find_program(_cxx NAMES c++ g++ REQUIRED)
file(GLOB _include ${WORK}/prefix/include/attnlab-*)
file(WRITE ${WORK}/mismatch.cpp "#include <attnlab/attnlab.hpp>\nint main() {}\n")
foreach(_case "-DXTENSOR_USE_XSIMD;-march=x86-64|xtensor's alignment differs" "-march=native|XTENSOR_USE_XSIMD")
  string(REPLACE "|" ";" _parts "${_case}")
  list(GET _parts -1 _expect)
  list(REMOVE_AT _parts -1)
  execute_process(COMMAND ${_cxx} -std=c++20 ${_parts} -I${_include} -fsyntax-only
                          ${WORK}/mismatch.cpp RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  if(rc EQUAL 0 OR NOT err MATCHES "${_expect}")
    message(FATAL_ERROR "compiling with ${_parts} was not refused with \"${_expect}\" (rc ${rc}):\n${err}")
  endif()
endforeach()
