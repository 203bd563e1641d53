# `cmake --install build --prefix P` puts the C++ library under P:
#   include/attnlab-<version>/  the public headers (attnlab/...), every kernel
#                               header they include (kernels/, random/, tensor/,
#                               threads/) and the generated attnlab/config.hpp
#   lib/                        the static libraries api, kernels, threads, tensor, random
#   lib/cmake/attnlab/          attnlabConfig.cmake, its version file and the
#                               exported targets attnlab::attnlab, attnlab::flags
# A consumer does find_package(attnlab) and links attnlab::attnlab; the static
# libraries come in dependency order through the targets' link interfaces.
include(CMakePackageConfigHelpers)

foreach(_dir attnlab kernels random tensor threads)
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/lib/${_dir} DESTINATION ${ATTNLAB_INSTALL_INCLUDEDIR}
          FILES_MATCHING PATTERN "*.hpp")
endforeach()
install(FILES ${CMAKE_BINARY_DIR}/generated/attnlab/config.hpp DESTINATION ${ATTNLAB_INSTALL_INCLUDEDIR}/attnlab)

install(TARGETS attnlab_library attnlab_api attnlab_kernels attnlab_threads attnlab_tensor attnlab_random attnlab_flags
        EXPORT attnlabTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT attnlabTargets NAMESPACE attnlab:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/attnlab)

configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/attnlabConfig.cmake.in
  ${CMAKE_BINARY_DIR}/attnlabConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/attnlab)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/attnlabConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/attnlabConfig.cmake ${CMAKE_BINARY_DIR}/attnlabConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/attnlab)
