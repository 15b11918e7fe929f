# Abseil for a library that must load where abseil is not installed.
#
# Linking abseil statically would be simplest, but Debian's archives are
# built as position-independent *executable* code (thread_locals use the
# local-exec TLS model, R_X86_64_TPOFF32), which cannot go into a shared
# library. So the runtime links Debian's abseil shared libraries and ships
# copies of them beside itself, found through RUNPATH $ORIGIN.
#
# tilec_bundle_absl(<target> <absl targets...>) makes every abseil shared
# library those targets need (transitively, from INTERFACE_LINK_LIBRARIES) a
# direct dependency of <target> -- RUNPATH applies only to an object's own
# dependencies, not to theirs -- and copies them, after <target> is built,
# into its output directory, named by SONAME as the loader looks them up.
function(tilec_bundle_absl target)
  set(pending ${ARGN})
  set(seen "")
  set(libraries "")
  set(commands "")
  while(pending)
    list(POP_FRONT pending dep)
    if(NOT dep MATCHES "^absl::" OR dep IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${dep})
    get_target_property(type ${dep} TYPE)
    if(type STREQUAL "SHARED_LIBRARY")
      get_target_property(configs ${dep} IMPORTED_CONFIGURATIONS)
      list(GET configs 0 config)
      get_target_property(location ${dep} IMPORTED_LOCATION_${config})
      get_target_property(soname ${dep} IMPORTED_SONAME_${config})
      if(NOT location OR NOT soname)
        message(FATAL_ERROR "cannot locate the shared library of ${dep}")
      endif()
      list(APPEND libraries "${location}")
      list(APPEND commands COMMAND ${CMAKE_COMMAND} -E copy_if_different
           "${location}" "$<TARGET_FILE_DIR:${target}>/${soname}")
    elseif(type STREQUAL "STATIC_LIBRARY")
      message(FATAL_ERROR "${dep} is a static library; the runtime expects "
                          "abseil's shared libraries (libabsl-dev)")
    endif()
    get_target_property(deps ${dep} INTERFACE_LINK_LIBRARIES)
    if(deps)
      list(APPEND pending ${deps})
    endif()
  endwhile()
  target_link_libraries(${target} PRIVATE -Wl,--no-as-needed ${libraries})
  add_custom_command(TARGET ${target} POST_BUILD ${commands}
    COMMENT "Copying abseil shared libraries beside ${target}" VERBATIM)
endfunction()
