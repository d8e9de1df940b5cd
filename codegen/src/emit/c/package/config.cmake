# @BANNER@
#
# The CMake package of the kernel-family catalog `@NAME@`: find_package(@NAME@
# CONFIG) finds this file in <prefix>/lib/cmake/@NAME@/ of an install that
# holds the catalog's headers in <prefix>/include/@PREFIX@/ and its library
# (built from its catalog crate, lib@NAME@_catalog) in <prefix>/lib/.
#
#   @NAME@::headers  the headers alone: the tables and the static inline
#                    helpers (one translation unit defines
#                    @UPPER@_IMPLEMENTATION; see docs/c.md)
#   @NAME@::catalog  the library, which exports the @PREFIX@_* functions
#                    (capability, admission, call validation, the kernel
#                    context), with the headers
#
# @NAME@::catalog exists only when the library is installed.

get_filename_component(_@PREFIX@_kfam_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(@NAME@_VERSION "@VERSION@")
set(@NAME@_CATALOG_DIGEST "@DIGEST@")

if(NOT TARGET @NAME@::headers)
  add_library(@NAME@::headers INTERFACE IMPORTED)
  set_target_properties(@NAME@::headers PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_@PREFIX@_kfam_prefix}/include")
endif()

if(NOT TARGET @NAME@::catalog)
  find_library(@NAME@_LIBRARY NAMES @NAME@_catalog
    PATHS "${_@PREFIX@_kfam_prefix}/lib" NO_DEFAULT_PATH)
  if(@NAME@_LIBRARY)
    add_library(@NAME@::catalog UNKNOWN IMPORTED)
    set(_@PREFIX@_kfam_link @NAME@::headers)
    if(@NAME@_LIBRARY MATCHES "\\${CMAKE_STATIC_LIBRARY_SUFFIX}$")
      # A Rust static library needs the system libraries Rust's std uses.
      list(APPEND _@PREFIX@_kfam_link pthread dl m)
    endif()
    set_target_properties(@NAME@::catalog PROPERTIES
      IMPORTED_LOCATION "${@NAME@_LIBRARY}"
      INTERFACE_LINK_LIBRARIES "${_@PREFIX@_kfam_link}")
    unset(_@PREFIX@_kfam_link)
  endif()
endif()

unset(_@PREFIX@_kfam_prefix)
