# tilec_embed_kernels(<target> OUTPUT <file.cc>
#                     MODULES <name> <sm target> <ptx file> <json file> ...)
#
# Generates <file.cc>, which defines the embedded-module table from the given
# PTX and metadata files (rebuilt when they change), and adds it to
# <target>: tilec_runtime for the shipped library, or a test executable.
# Call it once per target; it may be called from any directory.
function(tilec_embed_kernels target)
  # Resolved per call: callers may sit in directories that do not see the
  # variables of the one that included this file.
  set(script "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/embed_kernels.cmake")
  cmake_parse_arguments(ARG "" "OUTPUT" "MODULES" ${ARGN})
  list(LENGTH ARG_MODULES count)
  math(EXPR remainder "${count} % 4")
  if(NOT ARG_OUTPUT OR count EQUAL 0 OR NOT remainder EQUAL 0)
    message(FATAL_ERROR "tilec_embed_kernels(${target} OUTPUT <file> MODULES "
                        "<name> <target> <ptx> <json> ...)")
  endif()
  set(files "")
  set(index 0)
  foreach(field IN LISTS ARG_MODULES)
    math(EXPR slot "${index} % 4")
    if(slot GREATER_EQUAL 2)
      list(APPEND files "${field}")
    endif()
    math(EXPR index "${index} + 1")
  endforeach()
  # Lists cannot pass through a custom command's -D intact; use '|'.
  string(REPLACE ";" "|" modules "${ARG_MODULES}")
  add_custom_command(
    OUTPUT "${ARG_OUTPUT}"
    COMMAND "${CMAKE_COMMAND}" "-DOUTPUT=${ARG_OUTPUT}" "-DMODULES=${modules}"
            -P "${script}"
    DEPENDS ${files} "${script}"
    COMMENT "Embedding tilec kernels into ${target}"
    VERBATIM)
  # The custom target lets a directory other than <target>'s own (say,
  # kernels_dsl/ embedding into tilec_runtime) own the generation rule.
  add_custom_target(${target}_embedded_kernels DEPENDS "${ARG_OUTPUT}")
  add_dependencies(${target} ${target}_embedded_kernels)
  target_sources(${target} PRIVATE "${ARG_OUTPUT}")
endfunction()
