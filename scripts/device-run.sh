#!/usr/bin/env bash
# The one call to make on a GPU machine: build, verify every variant, run the GPU tests, benchmark
# every stage variant and every recipe, and leave logs and result files under $OUT.
#
#   scripts/device-run.sh [all|verify|bench|recipes|wave|ranks4|study|micro|profile|nvtx|ncu|sass|gate|targets]...
#   (default: all, which leaves out targets)
#
# bench: GRIDS="..." PRECISIONS="..." BENCH_STAGES="stage ..." BENCH_VARIANTS="name ..." narrow it, REPEATS=N
# runs each N times (separate processes, for the spread between runs); verify: VERIFY_ARGS (e.g.
# "--stage momentum"), SKIP_CTEST=1 skips the GPU tests; ncu: NCU_TARGETS; sass: SASS_STAGES (the
# instruction mix of each kernel's loops, scripts/sass-mix.py). gate: scripts/gpu-ci with GPU_CI_ARGS
# (e.g. --record-baseline, or --cmake -DNSB_TEST_SLOWDOWN=ON) into gpu-ci-out/gpu-ci-$GATE_NAME inside the
# tree (kept while the machine stays warm, so that a second call resumes it: gpu-ci --help), stopping
# before a phase that would end past GATE_END s (540) of this script (gpu-ci --time-limit; exit 9:
# call again), then copied to $OUT/gpu-ci-$GATE_NAME without its base build; baselines it records
# come back in $OUT/baselines.
#
# The multi-GPU scaling runs and the bandwidth table are studies (fig4_8_scaling, tableA1_bandwidth):
# `STUDIES=fig4_8_scaling scripts/device-run.sh study` runs just those.
# `targets` (issue 43, not part of all) runs studies/targets/stage_targets.yaml into $OUT/targets-results, then
# scripts/ncu-stage on each row's best variant (reports/stage_targets.py --ncu-targets), one launch each with the
# sections that name a limiter (launch, occupancy, speed of light, memory, warp state, scheduler) into
# $OUT/ncu-targets, each capped at NCU_TARGET_TIMEOUT s (45) and all at NCU_BUDGET s (150), nothing started past
# TARGETS_END s (540) of this script; the log names the NCU_SKIP=N that resumes the profiles in a later call. TARGETS_RESULTS=results/stage_targets/<machine> skips the
# study and profiles the rows of those (committed) results instead.
# `study` runs the quick study suite (MODE=full for the full one) into device-results/ inside the tree
# (kept while the machine stays warm, so a second call resumes) and copies it and the report to $OUT.
#
# Results go to $OUT/results/ and are also packed into $OUT/results.tar.gz (the device tool brings
# back only a few files). Needs no network: it builds from what is installed. BUILD_TARGETS="nsbench
# test_wave" builds only those (and what they need); WERROR=OFF builds without -Werror.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/out}
FINAL=$OUT
OUT=$FINAL/work  # everything goes here and comes back packed as $FINAL/results.tar.gz
mkdir -p "$OUT/results"
export NCCL_NVLS_ENABLE=0  # never NVLink multicast on shared machines
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(all)
want() { for s in "${steps[@]}"; do [ "$s" = all ] || [ "$s" = "$1" ] && return 0; done; return 1; }
log() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$OUT/summary.log"; }
status=0

log "machine"
{ nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv; nvcc --version | tail -1;
  cmake --version | head -1; nproc; } 2>&1 | tee "$OUT/machine.txt"

log "build"
BUILD=${BUILD:-build-device}
stamp=OFF; [ -f SOURCE_COMMIT ] && stamp=ON  # the tree's .git here may be older than its files
unity=ON; want sass && unity=OFF  # sass reads one object a variant (NSB_CUDA_UNITY=OFF)
if ! { cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNSB_WERROR=${WERROR:-ON} -DNSB_SOURCE_STAMP=$stamp \
         -DNSB_CUDA_UNITY=$unity &&
       cmake --build "$BUILD" -j"$(nproc)" ${BUILD_TARGETS:+--target $BUILD_TARGETS}; } \
    >"$OUT/build.log" 2>&1; then
  tail -50 "$OUT/build.log"
  log "BUILD FAILED"
  exit 1
fi
NSB=$BUILD/nsbench

# One multi-GPU run: name, then nsbench run arguments (LAUNCH=mpirun... in front for MPI).
mg() {
  local name=$1; shift
  ${LAUNCH:-} $NSB run --backend cuda --recipe best --precision float --steps ${MG_STEPS:-20} --warmup 5 --quiet \
    --json "$OUT/results/run_$name.json" "$@" >"$OUT/run_$name.log" 2>&1 || status=1
  echo "$name: $(grep -E "time per step" "$OUT/run_$name.log" | sed 's/ *time per step: //') |" \
    "$(grep -E "halo .*of the step" "$OUT/run_$name.log" | sed 's/ *halo //') |" \
    "$(grep -E "reference check|error" "$OUT/run_$name.log" | sed 's/^ *//')" | tee -a "$OUT/summary.log"
}

if want verify; then
  log "nsbench verify"
  $NSB verify ${VERIFY_ARGS:-} >"$OUT/verify.log" 2>&1 || status=1
  grep -E "FAIL|verify:" "$OUT/verify.log" | tail -20
  if [ -z "${SKIP_CTEST:-}" ]; then
    log "GPU tests (ctest)"
    (cd "$BUILD" && ctest -LE long --output-on-failure -j4) >"$OUT/ctest.log" 2>&1 || status=1
    grep -E "Ghia max deviation|checks|recipe|float, 40|double, 40" "$OUT/ctest.log" | head -20
    tail -5 "$OUT/ctest.log"
  fi
fi

if want bench; then
  for grid in ${GRIDS:-256x32x256 256x256x256 512x512x512}; do
    for prec in ${PRECISIONS:-float double}; do
      for stage in ${BENCH_STAGES:-all}; do
        for variant in ${BENCH_VARIANTS:-all}; do
          for rep in $(seq 1 ${REPEATS:-1}); do  # each repeat is a separate process (its own copy bandwidth)
            tag=${grid}_${prec}$([ "$stage" = all ] || echo "_$stage")$([ "$variant" = all ] || echo "_$variant")
            tag=$tag$([ "${REPEATS:-1}" = 1 ] || echo "_rep$rep")
            log "nsbench stages $grid $prec $stage $variant${REPEATS:+ (repeat $rep)}"
            $NSB stages --grid $grid --precision $prec --samples ${SAMPLES:-30} $([ "$stage" = all ] || echo "--stage $stage") \
              $([ "$variant" = all ] || echo "--variant $variant") \
              --json "$OUT/results/stages_$tag.json" >"$OUT/stages_$tag.log" 2>&1 || status=1
            tail -3 "$OUT/stages_$tag.log"
          done
        done
      done
    done
  done
fi

if want recipes; then
  for recipe in ${RECIPES:-thibault-global thibault-optimal modern best}; do
    for prec in float double; do
      log "cavity 256x32x256 $recipe $prec"
      $NSB run --backend cuda --recipe $recipe --precision $prec --grid 256x32x256 --re 1000 --steps 100 \
        --warmup 10 --quiet --json "$OUT/results/run_cavity_256x32x256_${recipe}_${prec}.json" \
        >"$OUT/run_${recipe}_${prec}.log" 2>&1 || status=1
      grep -E "time per step|reference check|error" "$OUT/run_${recipe}_${prec}.log"
    done
  done
  for recipe in ${RECIPES:-thibault-global thibault-optimal modern best}; do
    log "cavity 256x32x256 $recipe float, CUDA-graph replay"
    $NSB run --backend cuda --recipe $recipe --precision float --grid 256x32x256 --re 1000 --steps 100 --warmup 10 \
      --launch graph --quiet --json "$OUT/results/run_cavity_256x32x256_${recipe}_float_graph.json" \
      >"$OUT/run_${recipe}_float_graph.log" 2>&1 || status=1
    grep -E "time per step|reference check|error" "$OUT/run_${recipe}_float_graph.log"
  done
  [ -n "${RECIPES:-}" ] && { log "done (status $status)"; tar -czf "$FINAL/results.tar.gz" -C "$OUT" .; exit $status; }
  log "cavity Re 100 to steady state on the GPU (Ghia check)"
  $NSB run --backend cuda --recipe thibault-optimal --grid 64x4x64 --re 100 --until-steady --steady-tol 1e-4 \
    --steps 40000 --warmup 0 --quiet --json "$OUT/results/run_cavity_64x4x64_re100_steady_gpu.json" \
    >"$OUT/run_ghia_gpu.log" 2>&1 || status=1
  grep -E "validation|reference check|time per step" "$OUT/run_ghia_gpu.log"
fi

if want wave; then  # the wave solver: its GPU tests, verify, wave/step at 16384^2, its recipes at 8192^2 (Fig. 4.1)
  log "wave: GPU tests"
  "$BUILD/tests/test_wave" >"$OUT/test_wave.log" 2>&1 || status=1
  grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$OUT/test_wave.log"
  log "wave: verify"
  $NSB verify --solver wave >"$OUT/verify_wave.log" 2>&1 || status=1
  grep -E "FAIL|verify:" "$OUT/verify_wave.log"
  for prec in float double; do
    log "wave: nsbench stages 16384x1x16384 $prec"
    $NSB stages --grid 16384x1x16384 --precision $prec --stage wave/step --samples ${SAMPLES:-30} \
      --json "$OUT/results/stages_wave_16384x1x16384_$prec.json" >"$OUT/stages_wave_$prec.log" 2>&1 || status=1
    grep -E "stage benchmark|copy|wave/step" "$OUT/stages_wave_$prec.log" | head -40
  done
  for recipe in ${WAVE_RECIPES:-thibault-shared global best}; do
    log "wave 8192x1x8192 $recipe float"
    $NSB run --case standing_wave --backend cuda --recipe $recipe --precision float --grid 8192x1x8192 --steps 200 \
      --warmup 10 --quiet --json "$OUT/results/run_wave_8192x1x8192_${recipe}_float.json" >"$OUT/run_wave_$recipe.log" 2>&1 ||
      status=1
    grep -E "time per step|step  |validation|reference check|error" "$OUT/run_wave_$recipe.log"
  done
fi

if want ranks4; then  # four ranks on the GPUs present: the 4-rank code paths (middle ranks, two neighbours)
  for halo in p2p_sync p2p_async_overlap host_staged_sync:pinned; do
    mg "cavity_256x32x256_4ranks_threads_${halo/:/_}" --grid 256x32x256 --ranks 4 --halo $halo
  done
  LAUNCH="mpirun --allow-run-as-root --oversubscribe -np 4 -x NCCL_NVLS_ENABLE=0" \
    mg "cavity_256x32x256_4ranks_mpi_mpi_host_staged" --grid 256x32x256 --halo mpi_host_staged
fi

if want micro && [ -x "$BUILD/nsbench-micro" ]; then  # Google Benchmark, hot and cold L2 (MICRO_FILTER narrows)
  for l2 in hot cold; do
    log "nsbench-micro ($l2 L2)"
    "$BUILD/nsbench-micro" $([ $l2 = cold ] && echo --nsb_cold) --benchmark_filter="${MICRO_FILTER:-/256x256x256/float}" \
      --benchmark_min_time=0.1 --benchmark_format=json --benchmark_out="$OUT/results/micro_$l2.json" \
      >"$OUT/micro_$l2.log" 2>&1 || status=1
    echo "$(grep -c '"run_name"' "$OUT/results/micro_$l2.json") benchmarks, $(grep -c '"error_occurred": true' "$OUT/results/micro_$l2.json") with errors"
  done
fi

if want profile; then  # CUPTI trace + counters after the timed steps (nsbench run --profile)
  for recipe in ${PROFILE_RECIPES:-best thibault-global modern}; do
    log "profile $recipe cavity 256x256x256 float"
    $NSB run --backend cuda --recipe $recipe --precision float --grid 256x256x256 --re 1000 --steps 10 --warmup 3 \
      --no-check --quiet --profile --json "$OUT/results/profile_${recipe}_256x256x256_float.json" \
      >"$OUT/profile_$recipe.log" 2>&1 || status=1
    sed -n '/profile/,$p' "$OUT/profile_$recipe.log" | head -16
  done
fi

if want nvtx; then  # what the NVTX ranges cost with no tool attached: 500-step runs, off and on, interleaved
  for rep in 1 2 3; do
    for mode in off on; do
      $NSB run --backend cuda --recipe best --precision float --grid 256x32x256 --re 1000 --steps 500 --warmup 20 \
        --no-check --quiet --nvtx $mode --json "$OUT/results/nvtx_${mode}_$rep.json" >"$OUT/nvtx_${mode}_$rep.log" 2>&1 || status=1
      echo "nvtx $mode (repetition $rep): $(grep -E 'time per step' "$OUT/nvtx_${mode}_$rep.log" | sed 's/ *time per step: //')" |
        tee -a "$OUT/summary.log"
    done
  done
fi

if want ncu; then  # Nsight Compute on stage variants through their NVTX ranges
  # NCU_TARGETS: "stage:variant:tuning:precision:grid:set ..." (set: an ncu section set, e.g. basic, full)
  for target in ${NCU_TARGETS:-pressure:jacobi_global_2d_zloop:bx128_by2_sz16:float:512x512x512:full \
                                momentum:global_2d_zloop:bx32_by8_sz8:float:256x256x256:basic}; do
    IFS=: read -r stage variant tuning prec grid set <<<"$target"
    log "ncu-stage $stage $variant $tuning $prec $grid ($set)"
    NSBENCH=$NSB scripts/ncu-stage "$stage" "$variant" "$tuning" --precision "$prec" --grid "$grid" --set "$set" \
      --out "$OUT/ncu" 2>&1 | tail -3 | tee -a "$OUT/summary.log" || status=1
  done
fi

if want sass; then  # what each kernel of a stage's variants issues per loop trip (scripts/sass-mix.py)
  mkdir -p "$OUT/sass"
  for stage in ${SASS_STAGES:-momentum}; do
    for obj in "$BUILD"/CMakeFiles/nsb_core.dir/variants/$stage/*.cu.o; do
      name=$(basename "$obj" .cu.o)
      log "sass $stage/$name"
      cuobjdump -sass "$obj" >"$OUT/sass/${stage}_$name.sass" 2>&1 || status=1
      scripts/sass-mix.py "$OUT/sass/${stage}_$name.sass" >"$OUT/sass/${stage}_$name.mix" 2>&1 || status=1
    done
  done
fi

if want gate; then  # the regression gate as a GPU runner would run it
  gate=gpu-ci${GATE_NAME:+-$GATE_NAME}
  limit=$((${GATE_END:-540} - SECONDS)); [ $limit -lt 1 ] && limit=1
  log "scripts/gpu-ci --time-limit $limit ${GPU_CI_ARGS:-} (into gpu-ci-out/$gate)"
  scripts/gpu-ci --out "gpu-ci-out/$gate" --time-limit $limit ${GPU_CI_ARGS:-} >"$OUT/$gate.log" 2>&1
  echo "$gate: exit code $?" | tee -a "$OUT/summary.log"
  mkdir -p "$OUT/$gate"  # the base build and checkout stay behind (large; kept for the next call)
  tar -C "gpu-ci-out/$gate" --exclude=./base-build --exclude=./base-src -cf - . | tar -C "$OUT/$gate" -xf -
  head -40 "$OUT/$gate/summary.md"
  [ -d baselines ] && rm -rf "$OUT/baselines" && cp -r baselines "$OUT/baselines"  # a second gate run replaces it
fi

if [[ " ${steps[*]} " == *" targets "* ]]; then  # issue 43's rows, then an ncu profile of each row's best variant
  folder=${TARGETS_RESULTS:-}
  end=${TARGETS_END:-540}  # seconds since this script started: the device call's 600 s, less the packing
  if [ -z "$folder" ]; then
    cap=$((end - SECONDS - 60)); [ $cap -gt ${TARGETS_TIMEOUT:-330} ] && cap=${TARGETS_TIMEOUT:-330}
    [ $cap -lt 30 ] && cap=30  # (timeout 0 would mean no limit)
    log "stage targets study (studies/targets/stage_targets.yaml, at most $cap s)"
    NSBENCH=$NSB timeout $cap scripts/run-study stage_targets --full --results "$OUT/targets-results" \
      >"$OUT/targets.log" 2>&1 || status=1
    grep -E "FAILED|FAIL$|run-study:" "$OUT/targets.log" | tail -20
    folder=$(ls -d "$OUT"/targets-results/stage_targets/*/ 2>/dev/null | head -1)
  fi
  scripts/py reports/stage_targets.py --ncu-targets "${folder:-$OUT/targets-results/none}" >"$OUT/ncu_targets.txt" \
    2>"$OUT/ncu_targets.err" || status=1
  cat "$OUT/ncu_targets.err"
  sections="--section LaunchStats --section Occupancy --section SpeedOfLight --section MemoryWorkloadAnalysis"
  sections="$sections --section WarpStateStats --section SchedulerStats"
  deadline=$((SECONDS + ${NCU_BUDGET:-150})) n=0
  while IFS=: read -r stage variant tuning prec grid; do
    n=$((n + 1))
    [ -n "$stage" ] && [ $n -gt ${NCU_SKIP:-0} ] || continue
    if [ $SECONDS -ge $deadline ] || [ $((SECONDS + ${NCU_TARGET_TIMEOUT:-45})) -gt $end ]; then
      log "ncu: NCU_BUDGET or TARGETS_END spent before target $n; resume with NCU_SKIP=$((n - 1))"; break
    fi
    log "ncu target $n: $stage $variant ${tuning:-(first tuning)} $prec $grid"
    NSBENCH=$NSB NCU_SECTIONS="$sections" timeout ${NCU_TARGET_TIMEOUT:-45} scripts/ncu-stage "$stage" "$variant" $tuning \
      --precision "$prec" --grid "$grid" --out "$OUT/ncu-targets" </dev/null 2>&1 | tail -8 | tee -a "$OUT/summary.log" ||
      status=1  # (stdin from /dev/null: ncu and nsbench must not read the list this loop reads)
  done <"$OUT/ncu_targets.txt"
fi

if want study; then
  log "study suite (${MODE:-quick})"
  mkdir -p device-results
  NSBENCH=$NSB timeout ${STUDY_TIMEOUT:-520} scripts/run-study ${STUDIES:-all} --"${MODE:-quick}" \
    --results device-results >"$OUT/study.log" 2>&1 || status=1
  grep -E "FAILED|FAIL$|run-study:" "$OUT/study.log" | tail -20
  scripts/py reports/study_report.py --results device-results >"$OUT/report.log" 2>&1 || status=1
  tail -2 "$OUT/report.log"
  cp -r device-results "$OUT/device-results"
fi

log "done (status $status)"
tar -czf "$FINAL/results.tar.gz" -C "$OUT" .
cp "$OUT/summary.log" "$FINAL/summary.log"
exit $status
