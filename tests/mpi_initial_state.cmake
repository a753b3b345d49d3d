# Each MPI rank builds its own slab of the initial state (Problem::initial_slab: run.decomposition.initial_state
# "per_slab"), and the run is the one whose rank 0 builds the whole state and sends the slabs (NSB_INITIAL_STATE=
# whole_grid: "whole_grid_on_rank_0"), to the bit: the same checks, reference differences and validation errors
# (0 where they were 0). Rank 0 no longer holds the whole initial state beside its solver: its peak resident memory
# (run.decomposition.slabs[0].peak_host_bytes) falls by at least one whole field. What stays on rank 0 is the
# gathered final state (the checks read the whole grid), so the fall is the whole initial state less what the gather
# needs again. -DMPIEXEC=... -DNSBENCH=... -DWORKDIR=... -DNP=ranks
function(run_ranks json path)  # path: "" (the default) or whole_grid; the run's arguments follow
  file(REMOVE ${json})
  set(ENV{NSB_INITIAL_STATE} "${path}")
  execute_process(COMMAND ${MPIEXEC} -np ${NP} --oversubscribe ${NSBENCH} run ${ARGN} --quiet --json ${json}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  unset(ENV{NSB_INITIAL_STATE})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the ${NP}-rank run (NSB_INITIAL_STATE=${path}) exited ${rc}:\n${out}${err}")
  endif()
endfunction()
function(expect_path text expected)
  string(JSON got GET "${text}" run decomposition initial_state)
  if(NOT got STREQUAL expected)
    message(FATAL_ERROR "run.decomposition.initial_state is '${got}', expected '${expected}'")
  endif()
endfunction()

# The same results: every check (reference differences, validation errors, divergence) as JSON text.
set(checked --case taylor_green --grid 24x8x24 --steps 4)
run_ranks(${WORKDIR}/initial_state_slabs_${NP}.json "" ${checked})
run_ranks(${WORKDIR}/initial_state_whole_${NP}.json whole_grid ${checked})
file(READ ${WORKDIR}/initial_state_slabs_${NP}.json slabs)
file(READ ${WORKDIR}/initial_state_whole_${NP}.json whole)
expect_path("${slabs}" per_slab)
expect_path("${whole}" whole_grid_on_rank_0)
string(JSON pass GET "${slabs}" checks reference pass)
if(NOT pass)
  message(FATAL_ERROR "the per-slab run's reference check failed")
endif()
string(JSON slab_checks GET "${slabs}" checks)
string(JSON whole_checks GET "${whole}" checks)
if(NOT slab_checks STREQUAL whole_checks)
  message(FATAL_ERROR "the per-slab run's checks differ from rank 0's whole build's:\n${slab_checks}\n---\n${whole_checks}")
endif()
string(JSON difference GET "${slabs}" checks reference fields u max_abs_diff)
message(STATUS "${NP} ranks: the same checks on both paths (reference max |u| difference ${difference})")

# The memory: no reference run (it would build the whole state again on rank 0), one step of a larger grid.
set(sized --case taylor_green --grid 128x128x128 --steps 1 --no-check)
run_ranks(${WORKDIR}/initial_state_slabs_mem_${NP}.json "" ${sized})
run_ranks(${WORKDIR}/initial_state_whole_mem_${NP}.json whole_grid ${sized})
file(READ ${WORKDIR}/initial_state_slabs_mem_${NP}.json slabs)
file(READ ${WORKDIR}/initial_state_whole_mem_${NP}.json whole)
expect_path("${slabs}" per_slab)
set(whole_field_bytes 17576000)  # one double field of the padded 130^3 grid; the state has 4
string(JSON slab_peak GET "${slabs}" run decomposition slabs 0 peak_host_bytes)
string(JSON whole_peak GET "${whole}" run decomposition slabs 0 peak_host_bytes)
math(EXPR fall "${whole_peak} - ${slab_peak}")
if(fall LESS whole_field_bytes)
  message(FATAL_ERROR "rank 0 peaked at ${slab_peak} B building its slab, ${whole_peak} B building the whole state: "
                      "expected at least one whole field (${whole_field_bytes} B) less")
endif()
message(STATUS "rank 0: peak ${slab_peak} B per slab, ${whole_peak} B with the whole state (${fall} B less)")
