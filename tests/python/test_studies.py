"""Study files: parsing, validation against `nsbench list --json` (both schemas), expansion into commands."""
import os

import pytest

from study_helpers import STUDIES, known
import studylib  # noqa: E402


def test_every_study_file_parses_and_expands():
    paths = studylib.find_studies(STUDIES, "all")
    assert len(paths) >= 9
    names = set()
    for p in paths:
        s = studylib.load_study(p, known())
        studylib.load_study(p, known(old_schema=True))  # the schema before the solver-generic core still works
        names.add(s["study"])
        for mode in ("quick", "full"):
            runs = studylib.expand(s, mode)
            assert runs, p
            assert len({r["id"] for r in runs}) == len(runs)
    for required in ("table4_1_cpu_gflops", "fig4_1_wave", "fig4_4_shared_vs_global", "fig4_5_global_vs_optimal",
                     "fig4_6_speedup", "fig4_8_scaling", "table4_2_block_shapes", "table4_4_registers", "tableA1_bandwidth",
                     "roofline"):
        assert required in names


def test_matrix_expansion_and_quick_overrides():
    s = studylib.load_study(os.path.join(STUDIES, "thibault2009", "table4_1_cpu_gflops.yaml"))
    quick = studylib.expand(s, "quick")
    assert len(quick) == 4  # 2 backends x 2 grids
    assert {r["args"]["steps"] for r in quick} == {1}
    full = studylib.expand(s, "full")
    assert {r["args"]["steps"] for r in full} == {20}
    argv = studylib.command_line(quick[0], "nsbench", "/tmp/x.json")
    assert argv[:2] == ["nsbench", "run"] and "--json" in argv and "--quiet" in argv


def test_quick_skip_leaves_a_group_out_of_the_quick_form_only(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("study: s\ntitle: t\nreproduces: r\nbaseline: b\nreport: roofline\nruns:\n"
                    "  - {group: small, command: stages, gpus: 1, args: {grid: 64x64x64, samples: 5}}\n"
                    "  - {group: large, command: stages, gpus: 1, args: {grid: 512x512x512, samples: 5}, quick: skip}\n")
    s = studylib.load_study(str(path))
    assert [r["group"] for r in studylib.expand(s, "quick")] == ["small"]
    assert [r["group"] for r in studylib.expand(s, "full")] == ["small", "large"]


def test_mpi_runs_go_through_mpirun_with_the_rank_count():
    s = studylib.load_study(os.path.join(STUDIES, "thibault2009", "fig4_8_scaling.yaml"))
    mpi = [r for r in studylib.expand(s, "quick") if r["group"] == "mpi"]
    assert mpi and all(r["mpi_ranks"] == 2 and r["gpus"] == 2 and "ranks" not in r["args"] for r in mpi)
    argv = studylib.command_line(mpi[0], "nsbench", "/tmp/x.json")
    assert "-np" in argv and argv[argv.index("-np") + 1] == "2" and "--ranks" not in argv


HEAD = "study: x\ntitle: t\nreproduces: r\nbaseline: b\nreport: roofline\n"
BAD = {
    "unknown key": (HEAD + "colour: red\nruns: []\n", "unknown key(s) ['colour']"),
    "unknown option": (HEAD + "runs:\n  - {group: g, command: run, args: {grdi: 8x8x8}}\n",
                       "unknown nsbench run option(s) ['grdi']"),
    "bad grid": (HEAD + "runs:\n  - {group: g, command: run, args: {grid: 8x8}}\n", "bad grid '8x8'"),
    "unknown recipe": (HEAD + "runs:\n  - {group: g, command: run, args: {grid: 8x8x8, recipe: fastest}}\n",
                       "unknown recipe 'fastest'"),
    "unknown variant": (HEAD + "runs:\n  - {group: g, command: run, args: {grid: 8x8x8, stage: 'pressure=nosuch'}}\n",
                        "unknown variant 'pressure/nosuch'"),
    "unknown variant of a solver": (HEAD + "runs:\n  - {group: g, command: run, "
                                           "args: {grid: 8x8x8, stage: 'wave/pressure=jacobi_shared_zloop'}}\n",
                                    "unknown variant 'wave/pressure/jacobi_shared_zloop'"),
    "unknown tuning": (HEAD + "runs:\n  - {group: g, command: run, "
                              "args: {grid: 8x8x8, stage: 'pressure=jacobi_shared_zloop:bx1_by1_sz1'}}\n",
                       "unknown tuning 'bx1_by1_sz1' of projection/pressure/jacobi_shared_zloop"),
    "unknown stage": (HEAD + "runs:\n  - {group: g, command: stages, args: {grid: 8x8x8, stage: advection}}\n",
                      "unknown stage 'advection'"),
    "unknown halo": (HEAD + "runs:\n  - {group: g, command: run, args: {grid: 8x8x8, halo: smoke_signals}}\n",
                     "unknown halo variant 'smoke_signals'"),
    "bad steps": (HEAD + "runs:\n  - {group: g, command: run, args: {grid: 8x8x8, steps: 0}}\n", "bad steps '0'"),
    "unknown report": ("study: x\ntitle: t\nreproduces: r\nbaseline: b\nreport: pie\nruns: []\n",
                       "unknown report 'pie'"),
    "missing csv": (HEAD + "paper: {csv: nope.csv}\nruns:\n  - {group: g, command: bandwidth}\n",
                    "paper csv 'nope.csv' not found"),
}


@pytest.mark.parametrize("old_schema", [False, True], ids=["list2", "list1"])
@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_study_files_name_the_problem(tmp_path, case, old_schema):
    text, message = BAD[case]
    p = tmp_path / "bad.yaml"
    p.write_text(text)
    with pytest.raises(studylib.StudyError) as e:
        studylib.load_study(str(p), known(old_schema))
    assert message in str(e.value)
    assert str(p) in str(e.value)


@pytest.mark.parametrize("override", ["pressure=jacobi_shared_zloop", "projection/pressure=jacobi_shared_zloop",
                                      "pressure=jacobi_shared_zloop:bx16_by8_sz2",
                                      "projection/pressure=jacobi_shared_zloop:bx16_by8_sz2"])
@pytest.mark.parametrize("old_schema", [False, True], ids=["list2", "list1"])
def test_variants_are_named_with_or_without_their_solver(tmp_path, override, old_schema):
    p = tmp_path / "ok.yaml"
    p.write_text(HEAD + f"runs:\n  - {{group: g, command: run, args: {{grid: 8x8x8, stage: '{override}'}}}}\n"
                        "  - {group: s, command: stages, args: {grid: 8x8x8, stage: [pressure, projection/momentum]}}\n")
    studylib.load_study(str(p), known(old_schema))


def test_a_cpu_only_build_accepts_the_gpu_variants_it_does_not_list(tmp_path):
    """A build without CUDA lists no GPU variant: a study's GPU override is not a typo there (its run is skipped
    for want of a GPU), so the study loads; a CUDA build still refuses the same unknown name."""
    listing = known()
    listing["with_cuda"] = False
    listing["variants"] = [v for v in listing["variants"] if "cpu" in (v.get("id") or v["name"])]
    p = tmp_path / "gpu_override.yaml"
    p.write_text(HEAD + "runs:\n  - {group: g, command: run, args: {grid: 8x8x8, stage: 'pressure=jacobi_shared_zloop'}}\n")
    h = tmp_path / "gpu_halo.yaml"
    h.write_text(HEAD + "runs:\n  - {group: g, command: run, args: {grid: 8x8x8, halo: no_such_gpu_halo}}\n")
    studylib.load_study(str(p), listing)
    studylib.load_study(str(h), listing)
    listing["with_cuda"] = True
    with pytest.raises(studylib.StudyError, match="unknown variant 'pressure/jacobi_shared_zloop'"):
        studylib.load_study(str(p), listing)
    with pytest.raises(studylib.StudyError, match="unknown halo variant 'no_such_gpu_halo'"):
        studylib.load_study(str(h), listing)


def test_both_list_schemas_give_the_same_names():
    new, old = studylib.known_names(known()), studylib.known_names(known(old_schema=True))
    for key in ("recipes", "cases", "halo", "variants", "stages"):
        assert new[key] == old[key], key
    assert "projection/pressure/jacobi_shared_zloop" in new["variants"]
    assert {"pressure", "projection/pressure"} <= new["stages"]
