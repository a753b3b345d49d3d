# Writes build_info.hpp with the git commit and dirty flag of the source tree and the build's
# compiler and flags; rewritten only when something changed, so it costs no rebuild otherwise.
execute_process(COMMAND git -C ${SOURCE_DIR} rev-parse HEAD OUTPUT_VARIABLE commit
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
execute_process(COMMAND git -C ${SOURCE_DIR} status --porcelain --untracked-files=no OUTPUT_VARIABLE status
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(status STREQUAL "")
  set(dirty false)
else()
  set(dirty true)
endif()
# A copy of the tree that travelled without a current .git (a GPU machine; its .git, if any, may be
# older than the files): scripts/stamp-source.sh leaves "<commit> <dirty>" in SOURCE_COMMIT, and
# -DNSB_SOURCE_STAMP=ON (scripts/device-run.sh) makes that stamp win over git.
if(NOT rc EQUAL 0 OR STAMP_WINS)
  if(EXISTS ${SOURCE_DIR}/SOURCE_COMMIT)
    file(READ ${SOURCE_DIR}/SOURCE_COMMIT stamp)
    string(STRIP "${stamp}" stamp)
    string(REPLACE " " ";" stamp "${stamp}")
    list(GET stamp 0 commit)
    list(GET stamp 1 dirty)
  else()
    set(commit "unknown")
    set(dirty false)
  endif()
endif()
string(STRIP "${CXX_FLAGS}" CXX_FLAGS)
string(STRIP "${CUDA_FLAGS}" CUDA_FLAGS)
set(content "// Generated at build time by cmake/build_info.cmake. Do not edit.
#pragma once
namespace nsb {
inline constexpr const char* kGitCommit = \"${commit}\";
inline constexpr bool kGitDirty = ${dirty};
inline constexpr const char* kCompiler = \"${COMPILER}\";
inline constexpr const char* kCxxFlags = \"${CXX_FLAGS}\";
inline constexpr const char* kCudaCompiler = \"${CUDA_COMPILER}\";
inline constexpr const char* kCudaFlags = \"${CUDA_FLAGS}\";
inline constexpr const char* kCudaArchitectures = \"${CUDA_ARCHS}\";
inline constexpr const char* kBuildType = \"${BUILD_TYPE}\";
}  // namespace nsb
")
include(${CMAKE_CURRENT_LIST_DIR}/write_if_changed.cmake)
nsb_write_if_changed(${OUTPUT} "${content}")
