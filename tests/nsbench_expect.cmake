# nsbench_expect(RC REGEX ARG...): runs NSBENCH (nsbench, or a test binary) with the ARGs in WORKDIR and checks both its
# exit status and that its output (stdout and stderr) matches REGEX: ctest's PASS_REGULAR_EXPRESSION alone would
# ignore the status. Included by cli_expect.cmake (one command) and the scripted tests (several).
function(nsbench_expect rc regex)
  execute_process(COMMAND ${NSBENCH} ${ARGN} RESULT_VARIABLE got OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY ${WORKDIR})
  if(NOT got EQUAL rc)
    message(FATAL_ERROR "nsbench ${ARGN} exited ${got}, expected ${rc}\n${out}${err}")
  endif()
  if(NOT "${out}${err}" MATCHES "${regex}")
    message(FATAL_ERROR "nsbench ${ARGN}: output does not match '${regex}':\n${out}${err}")
  endif()
endfunction()
