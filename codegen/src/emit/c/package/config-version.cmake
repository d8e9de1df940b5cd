# @BANNER@
#
# The version of the CMake package `@NAME@` (@VERSION@), for
# find_package(@NAME@ VERSION CONFIG). Compatible as semver says: the same
# major and no older than requested; before 1.0 the same minor too, since
# a 0.x minor may break. Only 64-bit targets: kfam's C headers assert
# their struct layouts for them.

set(PACKAGE_VERSION "@VERSION@")

if(NOT CMAKE_SIZEOF_VOID_P STREQUAL "8")
  set(PACKAGE_VERSION "${PACKAGE_VERSION} (64-bit only)")
  set(PACKAGE_VERSION_UNSUITABLE TRUE)
  return()
endif()

if(NOT PACKAGE_FIND_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  return()
endif()

set(PACKAGE_VERSION_COMPATIBLE FALSE)
if(NOT PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)
  string(REGEX MATCH "^([0-9]+)\\.([0-9]+)" _@PREFIX@_kfam_mm "${PACKAGE_VERSION}")
  set(_@PREFIX@_kfam_major "${CMAKE_MATCH_1}")
  set(_@PREFIX@_kfam_minor "${CMAKE_MATCH_2}")
  if(PACKAGE_FIND_VERSION_MAJOR STREQUAL _@PREFIX@_kfam_major)
    if(NOT _@PREFIX@_kfam_major STREQUAL "0"
       OR PACKAGE_FIND_VERSION_MINOR STREQUAL _@PREFIX@_kfam_minor)
      set(PACKAGE_VERSION_COMPATIBLE TRUE)
    endif()
  endif()
  unset(_@PREFIX@_kfam_mm)
  unset(_@PREFIX@_kfam_major)
  unset(_@PREFIX@_kfam_minor)
endif()

if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)
  set(PACKAGE_VERSION_EXACT TRUE)
endif()
