include_guard(GLOBAL)
# The peer libraries: test oracles and benchmark peers, never linked into
# satord or the client. Each becomes an imported target sator_oracle_<name>
# when found; SATOR_HAVE_<NAME> says whether it was.
find_package(PkgConfig REQUIRED)

find_package(box2d CONFIG QUIET)
set(SATOR_HAVE_BOX2D ${box2d_FOUND})
if(SATOR_HAVE_BOX2D)
  add_library(sator_oracle_box2d INTERFACE)
  target_link_libraries(sator_oracle_box2d INTERFACE box2d::box2d)
endif()

find_package(fcl CONFIG QUIET)
set(SATOR_HAVE_FCL ${fcl_FOUND})
if(SATOR_HAVE_FCL)
  add_library(sator_oracle_fcl INTERFACE)
  target_link_libraries(sator_oracle_fcl INTERFACE fcl)
  # FCL's and Eigen's headers warn under our flags; they are not our code.
  get_target_property(_fcl_includes fcl INTERFACE_INCLUDE_DIRECTORIES)
  if(_fcl_includes)
    target_include_directories(sator_oracle_fcl SYSTEM INTERFACE ${_fcl_includes})
  endif()
endif()

pkg_check_modules(SATOR_BULLET QUIET IMPORTED_TARGET bullet)
set(SATOR_HAVE_BULLET ${SATOR_BULLET_FOUND})
if(SATOR_HAVE_BULLET)
  add_library(sator_oracle_bullet INTERFACE)
  target_link_libraries(sator_oracle_bullet INTERFACE PkgConfig::SATOR_BULLET)
  target_include_directories(sator_oracle_bullet SYSTEM INTERFACE ${SATOR_BULLET_INCLUDE_DIRS})
endif()

pkg_check_modules(SATOR_CCD QUIET IMPORTED_TARGET ccd)
set(SATOR_HAVE_CCD ${SATOR_CCD_FOUND})
if(SATOR_HAVE_CCD)
  add_library(sator_oracle_ccd INTERFACE)
  target_link_libraries(sator_oracle_ccd INTERFACE PkgConfig::SATOR_CCD)
endif()

message(STATUS "Sator oracles: box2d=${SATOR_HAVE_BOX2D} fcl=${SATOR_HAVE_FCL} "
               "bullet=${SATOR_HAVE_BULLET} ccd=${SATOR_HAVE_CCD}")
