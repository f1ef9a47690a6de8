# `cmake --install`: the client library, the core it is built on, their
# headers, satord and satorctl, and a CMake package (satorConfig.cmake) so a
# game server writes
#   find_package(sator CONFIG REQUIRED)
#   target_link_libraries(game PRIVATE sator::client)
#
# Exported targets (namespace sator::): client, core (every core module) and
# core_<module>, and the static libraries the client links privately (proto,
# convert: a static library's private dependencies are still needed at link
# time, so they are installed and exported as link-only).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(SATOR_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/sator CACHE STRING
    "Where the sator CMake package is installed, relative to the prefix")

set(_sator_exported_targets
    sator_client sator_proto sator_convert sator_core sator_core_math
    sator_core_collide2d sator_core_collide3d sator_core_broadphase
    sator_core_scene)
foreach(_target IN LISTS _sator_exported_targets)
  # sator_client -> sator::client, sator_core_math -> sator::core_math...
  string(REGEX REPLACE "^sator_" "" _export_name ${_target})
  set_target_properties(${_target} PROPERTIES EXPORT_NAME ${_export_name})
endforeach()
# The client's gMock mock, where the client provides it (sator::client_mocks).
set(SATOR_EXPORTS_MOCKS OFF)
if(TARGET sator_client_mocks)
  set_target_properties(sator_client_mocks PROPERTIES EXPORT_NAME client_mocks)
  list(APPEND _sator_exported_targets sator_client_mocks)
  set(SATOR_EXPORTS_MOCKS ON)
endif()

install(TARGETS ${_sator_exported_targets}
  EXPORT satorTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS satord satorctl RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# Public headers: the client's and the core's (the client's value types are
# the core's shapes, poses and results).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/client/include/sator/client
                  ${PROJECT_SOURCE_DIR}/core/include/sator/core
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sator
        FILES_MATCHING PATTERN "*.h")

install(EXPORT satorTargets
  NAMESPACE sator::
  FILE satorTargets.cmake
  DESTINATION ${SATOR_INSTALL_CMAKEDIR})
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/satorConfig.cmake.in
  ${PROJECT_BINARY_DIR}/satorConfig.cmake
  INSTALL_DESTINATION ${SATOR_INSTALL_CMAKEDIR})
# 0.x: a minor version may break the API, so only the same minor matches.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/satorConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/satorConfig.cmake
              ${PROJECT_BINARY_DIR}/satorConfigVersion.cmake
        DESTINATION ${SATOR_INSTALL_CMAKEDIR})
