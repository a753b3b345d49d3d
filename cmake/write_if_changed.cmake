# nsb_write_if_changed(PATH TEXT): writes TEXT to PATH only when it differs from what is there, so that a generated
# file keeps its timestamp and Ninja does not rebuild what depends on it (build_info.hpp, the CUDA unity sources).
function(nsb_write_if_changed path text)
  set(old "")
  if(EXISTS ${path})
    file(READ ${path} old)
  endif()
  if(NOT old STREQUAL text)
    file(WRITE ${path} "${text}")
  endif()
endfunction()
