# The CMake package of kfam @VERSION@: its prebuilt runtime (libkfamrt) and
# kfam_add_catalog(), which builds a catalog's library from its manifest
# with the project's own C compiler. Installed by the kfam-cli wheel into
# <prefix>/lib/cmake/kfam/, beside <prefix>/bin/kfam and
# <prefix>/lib/libkfamrt.*; `kfam runtime --cmakedir` prints this
# directory. See docs/c.md and docs/adopting.md.
#
#   kfam::runtime          the shared runtime, libkfamrt.so.@ABI@
#   kfam::runtime_static   the static runtime, libkfamrt.a
#   kfam_EXECUTABLE        the kfam command line
#   kfam_VERSION           @VERSION@
#
#   kfam_add_catalog(<name> [MANIFEST <dir>] [OUTPUT_DIR <dir>] [NO_INSTALL])
#
# generates the catalog <name> from MANIFEST (default: manifest/ of the
# current source directory) into OUTPUT_DIR (default:
# <name>-kfam/ of the current binary directory: the build tree) when
# configuring and again at build time whenever a file of the manifest
# changes (a family file added or removed, or an edit of abi.toml,
# reconfigures by itself: the SONAME follows `major`), and defines
#
#   <name>::catalog          lib<name>_catalog.so.<ABI major>, its headers
#   <name>::catalog_static   lib<name>_catalog.a, its headers, libkfamrt.a
#   <name>::headers          the headers alone
#
# and, unless NO_INSTALL, installs both libraries, the headers, the
# catalog's CMake package (find_package(<name>)) and its pkg-config file,
# with the runtime, under CMAKE_INSTALL_PREFIX (lib/, include/).
#
# The build never writes the source tree: it generates with `kfam generate
# --locked`, which checks the manifest's review lock (approved.lock) and
# never writes it. A manifest change the lock does not record yet fails
# the build with the command that records it (`kfam generate ...`), to
# run, review and commit (docs/adopting.md).
#
# Programs the project installs into <prefix>/bin find the catalog's
# library in <prefix>/lib: unless the project sets CMAKE_INSTALL_RPATH
# itself (before find_package(kfam); an empty value for none), this
# package sets it to $ORIGIN/../lib.

if(CMAKE_VERSION VERSION_LESS 3.19)
  set(kfam_FOUND FALSE)
  set(kfam_NOT_FOUND_MESSAGE "kfam needs CMake 3.19 or newer (string(JSON))")
  return()
endif()

get_filename_component(_kfam_package_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(kfam_VERSION "@VERSION@")

find_program(kfam_EXECUTABLE NAMES kfam PATHS "${_kfam_package_prefix}/bin" NO_DEFAULT_PATH)
foreach(_kfam_file "bin/kfam" "lib/libkfamrt.so.@ABI@" "lib/libkfamrt.a")
  if(NOT EXISTS "${_kfam_package_prefix}/${_kfam_file}")
    set(kfam_FOUND FALSE)
    set(kfam_NOT_FOUND_MESSAGE
      "kfam's package in ${_kfam_package_prefix} has no ${_kfam_file}: reinstall kfam-cli")
    return()
  endif()
endforeach()
unset(_kfam_file)

if(NOT DEFINED CMAKE_INSTALL_RPATH AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
  set(CMAKE_INSTALL_RPATH "$ORIGIN/../lib")
endif()

# A catalog's library is C: a C++ project gets the C compiler too.
get_property(_kfam_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
if(NOT "C" IN_LIST _kfam_languages)
  enable_language(C)
endif()
unset(_kfam_languages)

if(NOT TARGET kfam::runtime)
  add_library(kfam::runtime SHARED IMPORTED)
  set_target_properties(kfam::runtime PROPERTIES
    IMPORTED_LOCATION "${_kfam_package_prefix}/lib/libkfamrt.so.@ABI@"
    IMPORTED_SONAME "libkfamrt.so.@ABI@")
endif()

if(NOT TARGET kfam::runtime_static)
  add_library(kfam::runtime_static STATIC IMPORTED)
  # The runtime is Rust: a static link needs the system libraries its
  # standard library uses.
  set_target_properties(kfam::runtime_static PROPERTIES
    IMPORTED_LOCATION "${_kfam_package_prefix}/lib/libkfamrt.a"
    INTERFACE_LINK_LIBRARIES "pthread;dl;m")
endif()

function(kfam_add_catalog name)
  cmake_parse_arguments(PARSE_ARGV 1 _kfam "NO_INSTALL" "MANIFEST;OUTPUT_DIR" "")
  if(_kfam_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kfam_add_catalog(${name}): unknown arguments ${_kfam_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT _kfam_MANIFEST)
    set(_kfam_MANIFEST manifest)
  endif()
  if(NOT _kfam_OUTPUT_DIR)
    set(_kfam_OUTPUT_DIR "${name}-kfam")
  endif()
  get_filename_component(manifest "${_kfam_MANIFEST}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  get_filename_component(out "${_kfam_OUTPUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")

  # The catalog's names, as kfam resolves them: the C prefix, where its C
  # output goes below OUTPUT_DIR, its ABI major (the library's SONAME).
  execute_process(COMMAND "${kfam_EXECUTABLE}" resolve "${manifest}"
    OUTPUT_VARIABLE json ERROR_VARIABLE errors RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "kfam_add_catalog(${name}): the manifest ${manifest} does not check:\n${errors}")
  endif()
  string(JSON catalog GET "${json}" catalog name)
  if(NOT catalog STREQUAL name)
    message(FATAL_ERROR "kfam_add_catalog(${name}): ${manifest} is the catalog `${catalog}`: "
      "call kfam_add_catalog(${catalog} ...)")
  endif()
  string(JSON prefix GET "${json}" catalog c_prefix)
  string(JSON c_dir GET "${json}" catalog outputs c)
  string(JSON major GET "${json}" abi major)
  set(include "${out}/${c_dir}")
  get_filename_component(c_root "${include}/.." ABSOLUTE)
  set(unit "${c_root}/src/${prefix}_catalog.c")
  set(generated
    "${unit}" "${c_root}/src/kfamrt.h"
    "${include}/${prefix}/${prefix}.h"
    "${include}/${prefix}/${prefix}_tables.h"
    "${include}/${prefix}/${prefix}_constants.h")

  # Generated now, so the first build finds every file; and again by the
  # build whenever the manifest or its lock changes. Into the build tree
  # only: `--locked` checks the review lock and never writes it, and the
  # files name the manifest (relative to the project), not this
  # directory. A file added to or removed from the manifest changes the
  # glob, and an edit of abi.toml (the library's SONAME, its names) is a
  # configure dependency: both reconfigure.
  set(command "${kfam_EXECUTABLE}" generate "${manifest}" --out "${out}"
    --locked --source-dir "${PROJECT_SOURCE_DIR}")
  execute_process(COMMAND ${command}
    OUTPUT_QUIET ERROR_VARIABLE errors RESULT_VARIABLE failed)
  if(failed)
    # Indented, so CMake prints kfam's lines as they are (a long command
    # in them is never wrapped).
    string(STRIP "${errors}" errors)
    string(REPLACE "\n" "\n " errors " ${errors}")
    message(FATAL_ERROR "kfam_add_catalog(${name}): kfam generate failed:\n${errors}")
  endif()
  file(GLOB_RECURSE inputs CONFIGURE_DEPENDS "${manifest}/*.toml")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${manifest}/abi.toml")
  set(lock "${manifest}/approved.lock")
  add_custom_command(OUTPUT ${generated}
    COMMAND ${command}
    DEPENDS ${inputs} "${lock}" "${kfam_EXECUTABLE}"
    COMMENT "kfam: generating catalog ${name} from ${manifest}"
    VERBATIM)
  add_custom_target(${name}_generate DEPENDS ${generated})

  add_library(${name}_headers INTERFACE)
  target_include_directories(${name}_headers INTERFACE
    "$<BUILD_INTERFACE:${include}>" "$<INSTALL_INTERFACE:include>")
  add_dependencies(${name}_headers ${name}_generate)
  add_library(${name}::headers ALIAS ${name}_headers)

  add_library(${name}_catalog SHARED "${unit}")
  add_library(${name}_catalog_static STATIC "${unit}")
  foreach(target ${name}_catalog ${name}_catalog_static)
    set_target_properties(${target} PROPERTIES
      OUTPUT_NAME ${name}_catalog
      C_STANDARD 99
      C_STANDARD_REQUIRED ON
      POSITION_INDEPENDENT_CODE ON)
    target_link_libraries(${target} PUBLIC ${name}_headers)
  endforeach()
  # The installed library finds the runtime installed beside it.
  set_target_properties(${name}_catalog PROPERTIES SOVERSION ${major} INSTALL_RPATH "$ORIGIN")
  target_link_libraries(${name}_catalog PRIVATE kfam::runtime)
  target_link_libraries(${name}_catalog_static PUBLIC kfam::runtime_static)
  add_library(${name}::catalog ALIAS ${name}_catalog)
  add_library(${name}::catalog_static ALIAS ${name}_catalog_static)

  if(NOT _kfam_NO_INSTALL)
    install(TARGETS ${name}_catalog ${name}_catalog_static
      LIBRARY DESTINATION lib ARCHIVE DESTINATION lib RUNTIME DESTINATION bin)
    install(DIRECTORY "${include}/${prefix}" DESTINATION include)
    install(DIRECTORY "${c_root}/lib/" DESTINATION lib)
    install(FILES
      "${_kfam_package_prefix}/lib/libkfamrt.so.@ABI@"
      "${_kfam_package_prefix}/lib/libkfamrt.a"
      DESTINATION lib)
    install(CODE "file(CREATE_LINK libkfamrt.so.@ABI@
      \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/lib/libkfamrt.so\" SYMBOLIC)")
  endif()
endfunction()
