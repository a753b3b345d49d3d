# Memory a rank in proportion to its slab: under the MPI driver no rank but 0 ever holds the whole grid (each builds
# its own slab of the initial state, or for cases that cannot, rank 0 builds it and sends every other rank its slab:
# harness/run/rank_run.hpp). Runs 4 CPU ranks on a grid whose whole state is tens of MB and reads every rank's peak
# resident memory from the result (run.decomposition.slabs[].peak_host_bytes): each other rank must stay well below
# rank 0, which alone holds the gathered final state. Before rank 0 sent the slabs, every process built the whole
# grid and the peaks were within a few MB. Rank 0's own fall with per-slab builds: mpi_initial_state.cmake.
# -DMPIEXEC=... -DNSBENCH=... -DWORKDIR=...
set(json ${WORKDIR}/mpi_rank_memory.json)
file(REMOVE ${json})
execute_process(COMMAND ${MPIEXEC} -np 4 --oversubscribe ${NSBENCH} run --case taylor_green --grid 128x128x128 --steps 1
                        --no-check --quiet --json ${json}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the 4-rank run exited ${rc}:\n${out}${err}")
endif()
file(READ ${json} text)
string(JSON root_peak GET "${text}" run decomposition slabs 0 peak_host_bytes)
set(whole_field_bytes 17576000)  # one double field of the padded 130^3 grid; the state has at least 3
foreach(rank 1 2 3)
  string(JSON peak GET "${text}" run decomposition slabs ${rank} peak_host_bytes)
  string(JSON host GET "${text}" run decomposition slabs ${rank} host)
  math(EXPR margin "${root_peak} - ${peak}")
  math(EXPR needed "2 * ${whole_field_bytes}")
  if(margin LESS needed)
    message(FATAL_ERROR "rank ${rank} (${host}) peaked at ${peak} B, rank 0 at ${root_peak} B: a rank other than 0 "
                        "should not hold the whole state (expected at least ${needed} B less than rank 0)")
  endif()
  message(STATUS "rank ${rank}: peak ${peak} B, ${margin} B below rank 0's ${root_peak} B")
endforeach()
