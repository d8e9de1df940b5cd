# @BANNER@
#
# The CMake package of the kernel-family catalog `@NAME@`: find_package(@NAME@
# CONFIG) finds this file in <prefix>/lib/cmake/@NAME@/ of an install that
# holds the catalog's headers in <prefix>/include/@PREFIX@/ and its library
# (lib@NAME@_catalog, with kfam's runtime libkfamrt beside it) in
# <prefix>/lib/.
#
#   @NAME@::headers  the headers alone: the tables and the static inline
#                    helpers (one translation unit defines
#                    @UPPER@_IMPLEMENTATION; see docs/c.md)
#   @NAME@::catalog  the library, which exports the @PREFIX@_* functions
#                    (capability, admission, call validation, the kernel
#                    context), with the headers: the shared one when it is
#                    installed, else the static one
#   @NAME@::catalog_static  the static library with kfam's static runtime
#                    (libkfamrt.a), when both are installed
#
# The targets exist only when the libraries are installed: `cmake --install`
# of a project that builds the catalog with kfam_add_catalog() installs them
# with the runtime (docs/c.md).
#
# Programs a consumer installs into <prefix>/bin find the library in
# <prefix>/lib: unless the project sets CMAKE_INSTALL_RPATH itself (before
# find_package(@NAME@); an empty value for none), this package sets it to
# $ORIGIN/../lib.

if(NOT DEFINED CMAKE_INSTALL_RPATH AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
  set(CMAKE_INSTALL_RPATH "$ORIGIN/../lib")
endif()

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
      # A static library calls kfam's runtime (when it was built from
      # the generated C unit), which is Rust: it needs the system
      # libraries Rust's std uses.
      if(EXISTS "${_@PREFIX@_kfam_prefix}/lib/libkfamrt.a")
        list(APPEND _@PREFIX@_kfam_link "${_@PREFIX@_kfam_prefix}/lib/libkfamrt.a")
      endif()
      list(APPEND _@PREFIX@_kfam_link pthread dl m)
    endif()
    # A shared library finds libkfamrt beside itself (its RUNPATH is $ORIGIN).
    set_target_properties(@NAME@::catalog PROPERTIES
      IMPORTED_LOCATION "${@NAME@_LIBRARY}"
      INTERFACE_LINK_LIBRARIES "${_@PREFIX@_kfam_link}")
    unset(_@PREFIX@_kfam_link)
  endif()
endif()

if(NOT TARGET @NAME@::catalog_static
   AND EXISTS "${_@PREFIX@_kfam_prefix}/lib/lib@NAME@_catalog.a"
   AND EXISTS "${_@PREFIX@_kfam_prefix}/lib/libkfamrt.a")
  add_library(@NAME@::catalog_static STATIC IMPORTED)
  set_target_properties(@NAME@::catalog_static PROPERTIES
    IMPORTED_LOCATION "${_@PREFIX@_kfam_prefix}/lib/lib@NAME@_catalog.a"
    INTERFACE_LINK_LIBRARIES
      "@NAME@::headers;${_@PREFIX@_kfam_prefix}/lib/libkfamrt.a;pthread;dl;m")
endif()

unset(_@PREFIX@_kfam_prefix)
