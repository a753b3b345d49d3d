# Runs NSBENCH (nsbench, or a test binary) with ARGS (a ;-list) and checks both its exit status (EXPECT_RC) and that its output
# (stdout and stderr) matches REGEX: ctest's PASS_REGULAR_EXPRESSION alone would ignore the status.
execute_process(COMMAND ${NSBENCH} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                WORKING_DIRECTORY ${WORKDIR})
if(NOT rc EQUAL EXPECT_RC)
  message(FATAL_ERROR "nsbench ${ARGS} exited ${rc}, expected ${EXPECT_RC}\n${out}${err}")
endif()
if(NOT "${out}${err}" MATCHES "${REGEX}")
  message(FATAL_ERROR "nsbench ${ARGS}: output does not match '${REGEX}':\n${out}${err}")
endif()
