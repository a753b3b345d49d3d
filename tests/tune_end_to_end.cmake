# nsbench tune end to end on a CPU backend (the same code path as on a GPU): tune a small cavity into a fresh
# cache; its recipe, candidates.json and candidates.md exist and every candidate has a verdict; `run --recipe
# tuned` at a grid of the same class uses it and records it; at a grid class never tuned it refuses (exit 4),
# naming the tune command. scripts/tune-cache puts the tune's --json result into a second cache (the way
# baselines/tuned/ is made) where the run finds it too. NSBENCH: the binary; WORKDIR: a scratch folder.
cmake_policy(SET CMP0054 NEW)  # "stage" and "named" below are strings, not variables
set(cache ${WORKDIR}/tune_end_to_end_cache)
set(committed_cache ${WORKDIR}/tune_end_to_end_committed_cache)
file(REMOVE_RECURSE ${cache} ${committed_cache})
file(REMOVE ${WORKDIR}/tune_end_to_end_tune.json)

include(${CMAKE_CURRENT_LIST_DIR}/nsbench_expect.cmake)

# stdout (the outcome), then stderr (the progress: what is timed, n of m, the budget left)
nsbench_expect(0 "tuned: .*recipe: .*tune: stage 1/[0-9]+: projection/momentum/cpu_omp:default .*budget left.*tune: confirm 2/2: named recipe cpu-omp"
               tune --case cavity --grid 24x4x24 --precision double --backend cpu_omp --threads 2 --budget 60
               --samples 3 --steps 3 --warmup 1 --cache ${cache} --json tune_end_to_end_tune.json)

file(GLOB_RECURSE recipes ${cache}/*/recipe.json)
list(LENGTH recipes n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one recipe.json under ${cache}, found ${n}: ${recipes}")
endif()
get_filename_component(folder ${recipes} DIRECTORY)
if(NOT folder MATCHES "/cpu/projection-cpu_omp-double-32x4x32-r1$")
  message(FATAL_ERROR "the recipe's folder ${folder} does not name the key (cpu, projection, cpu_omp, double, 32x4x32, 1 rank)")
endif()
foreach(f candidates.json candidates.md)
  if(NOT EXISTS ${folder}/${f})
    message(FATAL_ERROR "nsbench tune wrote no ${f} beside its recipe in ${folder}")
  endif()
endforeach()

file(READ ${recipes} recipe)
string(JSON name GET "${recipe}" recipes 0 name)
string(JSON pressure GET "${recipe}" recipes 0 stages pressure)
string(JSON launch GET "${recipe}" recipes 0 launch)
if(NOT name STREQUAL "tuned" OR NOT pressure MATCHES "^cpu_omp:" OR NOT launch STREQUAL "stream")
  message(FATAL_ERROR "unexpected recipe file (name ${name}, pressure ${pressure}, launch ${launch}):\n${recipe}")
endif()

file(READ ${folder}/candidates.json table)
string(JSON rows LENGTH "${table}" candidates)
set(stage_passes 0)
set(named_rows 0)
math(EXPR last "${rows} - 1")
foreach(i RANGE ${last})
  string(JSON verdict GET "${table}" candidates ${i} verdict)
  string(JSON phase GET "${table}" candidates ${i} phase)
  if(NOT verdict MATCHES "^(pass|fail|skipped|error)$")
    message(FATAL_ERROR "candidate ${i} has no verdict: ${verdict}")
  endif()
  if(phase STREQUAL "stage" AND verdict STREQUAL "pass")
    math(EXPR stage_passes "${stage_passes} + 1")
  endif()
  if(phase STREQUAL "named")
    math(EXPR named_rows "${named_rows} + 1")
  endif()
endforeach()
if(stage_passes LESS 7 OR named_rows LESS 1)
  message(FATAL_ERROR "candidates.json: ${stage_passes} passing stage candidates (expected one a stage at least), ${named_rows} named recipes timed")
endif()

# A grid of the same class (30x3x30 -> 32x4x32) runs the tuned recipe, and its result says so.
file(REMOVE ${WORKDIR}/tune_end_to_end_run.json)
nsbench_expect(0 "recipe tuned" run --recipe tuned --case cavity --grid 30x3x30 --precision double --backend cpu_omp
               --threads 2 --steps 2 --warmup 0 --quiet --tune-cache ${cache} --json tune_end_to_end_run.json)
file(READ ${WORKDIR}/tune_end_to_end_run.json result)
string(JSON used GET "${result}" run recipe)
string(JSON file GET "${result}" run recipe_file)
if(NOT used STREQUAL "tuned" OR NOT file STREQUAL recipes)
  message(FATAL_ERROR "the run's result records recipe '${used}' from '${file}', expected 'tuned' from ${recipes}")
endif()

# The tune's result file, put into another cache by scripts/tune-cache, serves the same run: the script's key
# folder is nsbench's.
execute_process(COMMAND ${CMAKE_CURRENT_LIST_DIR}/../scripts/tune-cache --to ${committed_cache}
                ${WORKDIR}/tune_end_to_end_tune.json RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "/cpu/projection-cpu_omp-double-32x4x32-r1/recipe.json")
  message(FATAL_ERROR "scripts/tune-cache exited ${rc}: ${out}${err}")
endif()
nsbench_expect(0 "recipe tuned" run --recipe tuned --case cavity --grid 30x3x30 --precision double --backend cpu_omp
               --threads 2 --steps 2 --warmup 0 --quiet --tune-cache ${committed_cache})

# An untuned grid class (40x4x40 -> 64x4x64) is not run (exit 4, which run-study records as a skip), with the
# command that tunes it.
nsbench_expect(4 "not run: --recipe tuned: no tuned recipe.*64x4x64.*nsbench tune --case cavity --grid 40x4x40 --precision double --backend cpu_omp --cache "
               run --recipe tuned --case cavity --grid 40x4x40 --precision double --backend cpu_omp --steps 1
               --tune-cache ${cache})
file(REMOVE_RECURSE ${cache} ${committed_cache})
