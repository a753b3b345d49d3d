# Unity builds of the GPU variants: nsb_cuda_unity_sources(OUT_VAR MAX_FILES file.cu...) writes, into
# ${CMAKE_BINARY_DIR}/cuda_unity/, one .cu for each MAX_FILES variants of a solver (variants/<solver>/,
# in path order) that includes them all, and sets OUT_VAR to those files.
#
# Why: nvcc parses a file's host headers three times (cudafe++, cicc, the host compiler), 5 to 15 s of CPU
# a file before any kernel is compiled; 195 small files paid it 195 times. One nvcc run for several variants
# pays it once, and compiles a template kernel that several of them instantiate once. Each kernel's machine
# code is the same as when its file is compiled alone: a kernel is compiled on its own, only the name of
# the anonymous namespace around it changes (as it does with any edit of its file).
#
# How: a variant keeps its own names in an anonymous namespace, and two variants' collide when they
# share a translation unit: every file has its `reg` (the Registrar), most a `run`. The unity file first
# includes every header its variants include (so that nothing below can change a header), then includes
# each variant with the names it defines at the start of a line and a neighbour defines too renamed by a
# macro (`#define reg nsb_unity_reg_3` ... `#undef reg`). Kernels and types, which kernel names spell, are
# never renamed: a variant whose kernel or type has a neighbour's name is compiled alone.
include(${CMAKE_CURRENT_LIST_DIR}/write_if_changed.cmake)

function(nsb_cuda_unity_sources out_var max_files)
  set(by_folder "")
  foreach(source ${ARGN})
    get_filename_component(source ${source} ABSOLUTE BASE_DIR ${CMAKE_SOURCE_DIR})
    file(RELATIVE_PATH rel ${CMAKE_SOURCE_DIR} ${source})
    string(REGEX REPLACE "^(variants/[^/]+)/.*" "\\1" family "${rel}")  # variants/<solver>
    string(MAKE_C_IDENTIFIER "${family}" key)
    list(APPEND by_folder ${key})
    list(APPEND "files_${key}" ${source})
  endforeach()
  list(REMOVE_DUPLICATES by_folder)
  set(unity_files "")
  foreach(key ${by_folder})
    set(chunk "")
    set(part 0)
    foreach(source ${files_${key}} END)
      list(LENGTH chunk n)
      if((source STREQUAL "END" AND n GREATER 0) OR n EQUAL max_files)
        _nsb_write_unity_file("${CMAKE_BINARY_DIR}/cuda_unity/${key}_${part}.cu" alone ${chunk})
        list(APPEND unity_files "${CMAKE_BINARY_DIR}/cuda_unity/${key}_${part}.cu" ${alone})
        math(EXPR part "${part} + 1")
        set(chunk "")
      endif()
      if(NOT source STREQUAL "END")
        list(APPEND chunk ${source})
      endif()
    endforeach()
  endforeach()
  # An edited variant may define a name its neighbour has: CMake looks again (rewriting only what changed).
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${ARGN})
  set(${out_var} ${unity_files} PARENT_SCOPE)
endfunction()

# The names a variant defines at the start of a line (its anonymous namespace's functions, objects,
# aliases): NAMES_VAR gets them all, KEPT_VAR those that must keep their name (kernels and types, which
# kernel names spell).
function(_nsb_defined_names source names_var kept_var)
  file(STRINGS ${source} lines REGEX "^[A-Za-z_]")
  set(names "")
  set(kept "")
  foreach(line ${lines})
    if(line MATCHES "^(namespace|template|#)" OR NOT line MATCHES "([A-Za-z_][A-Za-z0-9_]*) *[({=]")
      continue()
    endif()
    set(name ${CMAKE_MATCH_1})
    list(APPEND names ${name})
    if(line MATCHES "__global__|^(struct|class|enum|union) ")
      list(APPEND kept ${name})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES names)
  set(${names_var} ${names} PARENT_SCOPE)
  set(${kept_var} ${kept} PARENT_SCOPE)
endfunction()

# Writes the unity file for the variants given (only when its text changes, so that a reconfigure
# rebuilds nothing); ALONE_VAR gets the variants left out: one of their kernels or types has a
# neighbour's name.
function(_nsb_write_unity_file path alone_var)
  set(seen "")
  set(clashing "")
  foreach(source ${ARGN})
    _nsb_defined_names(${source} names kept)
    foreach(name ${names})
      if(name IN_LIST seen)
        list(APPEND clashing ${name})
      endif()
    endforeach()
    list(APPEND seen ${names})
  endforeach()
  set(headers "")
  set(body "")
  set(alone "")
  set(index 0)
  foreach(source ${ARGN})
    _nsb_defined_names(${source} names kept)
    set(renamed "")
    set(left_out OFF)
    foreach(name ${names})
      if(name IN_LIST clashing)
        if(name IN_LIST kept)
          set(left_out ON)
        endif()
        list(APPEND renamed ${name})
      endif()
    endforeach()
    if(left_out)
      list(APPEND alone ${source})
      continue()
    endif()
    get_filename_component(folder ${source} DIRECTORY)
    file(STRINGS ${source} includes REGEX "^#include ")
    foreach(line ${includes})
      # A quoted include next to the variant is named by its full path here.
      if(line MATCHES "^#include \"([^\"]+)\"")
        set(next_to_it "${folder}/${CMAKE_MATCH_1}")
        if(EXISTS "${next_to_it}")
          set(line "#include \"${next_to_it}\"")
        endif()
      endif()
      list(APPEND headers "${line}")
    endforeach()
    foreach(name ${renamed})
      string(APPEND body "#define ${name} nsb_unity_${name}_${index}\n")
    endforeach()
    string(APPEND body "#include \"${source}\"\n")
    foreach(name ${renamed})
      string(APPEND body "#undef ${name}\n")
    endforeach()
    math(EXPR index "${index} + 1")
  endforeach()
  list(REMOVE_DUPLICATES headers)
  list(JOIN headers "\n" header_text)
  set(text "// Generated by cmake/cuda_unity.cmake: several GPU variants compiled as one file (NSB_CUDA_UNITY).\n"
           "${header_text}\n\n${body}")
  string(JOIN "" text ${text})
  nsb_write_if_changed(${path} "${text}")
  set(${alone_var} ${alone} PARENT_SCOPE)
endfunction()
