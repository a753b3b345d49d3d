"""scripts/build-profile on a small .ninja_log: the last build only, slowest steps, core-seconds by kind,
steps at once and the idle tail."""
import importlib.machinery
import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(os.path.dirname(os.path.dirname(HERE)), "scripts", "build-profile")
loader = importlib.machinery.SourceFileLoader("build_profile", SCRIPT)
spec = importlib.util.spec_from_loader("build_profile", loader)
build_profile = importlib.util.module_from_spec(spec)
loader.exec_module(build_profile)

# An earlier build (clock restarts), then: two objects side by side, one long CUDA object alone at the end,
# then a link. Times in ms.
LOG = """# ninja log v5
0\t99000\t0\tCMakeFiles/old.dir/a.cpp.o\t1
0\t10000\t0\tCMakeFiles/nsb_core.dir/harness/a.cpp.o\t2
0\t20000\t0\tCMakeFiles/nsb_core.dir/variants/b.cu.o\t3
10000\t50000\t0\tCMakeFiles/nsb_core.dir/variants/c.cu.o\t4
50000\t53000\t0\ttests/test_harness\t5
"""


def write_log(tmp_path):
    path = tmp_path / ".ninja_log"
    path.write_text(LOG)
    return str(path)


def test_reads_the_last_build_only(tmp_path):
    steps = build_profile.read_log(write_log(tmp_path))
    assert [s[2] for s in steps] == ["CMakeFiles/nsb_core.dir/harness/a.cpp.o", "CMakeFiles/nsb_core.dir/variants/b.cu.o",
                                     "CMakeFiles/nsb_core.dir/variants/c.cu.o", "tests/test_harness"]


def test_kinds():
    assert build_profile.kind("CMakeFiles/nsb_core.dir/variants/b.cu.o") == "cuda object (.cu.o)"
    assert build_profile.kind("CMakeFiles/nsb_core.dir/harness/a.cpp.o") == "c++ object (.cpp.o)"
    assert build_profile.kind("tests/test_harness") == "link"
    assert build_profile.kind("nsbench") == "link"
    assert build_profile.kind("CMakeFiles/nsb_build_info") == "other"


def test_concurrency_and_idle_tail(tmp_path):
    seconds_at, widest, tail = build_profile.concurrency(build_profile.read_log(write_log(tmp_path)))
    assert widest == 2
    assert seconds_at[2] == 20.0  # 0-10 s (a, b), 10-20 s (b, c)
    assert seconds_at[1] == 33.0  # 20-50 s c alone, 50-53 s the link
    assert tail == 33.0


def test_prints_the_summary(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("sys.argv", ["build-profile", write_log(tmp_path), "--top", "2"])
    build_profile.main()
    out = capsys.readouterr().out
    assert "4 steps, wall 53 s" in out
    assert out.index("40.0 s  CMakeFiles/nsb_core.dir/variants/c.cu.o") < out.index("20.0 s  CMakeFiles/nsb_core.dir/variants/b.cu.o")
    assert "idle tail (fewer than 2 at once, at the end): 33 s" in out
