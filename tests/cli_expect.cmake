# Runs NSBENCH (nsbench, or a test binary) with ARGS (a ;-list) and checks both its exit status (EXPECT_RC) and that its output
# (stdout and stderr) matches REGEX: ctest's PASS_REGULAR_EXPRESSION alone would ignore the status.
include(${CMAKE_CURRENT_LIST_DIR}/nsbench_expect.cmake)
nsbench_expect(${EXPECT_RC} "${REGEX}" ${ARGS})
