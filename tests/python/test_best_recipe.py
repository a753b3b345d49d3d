"""reports/best_recipe.py: the fastest row per stage becomes the recipe entry; a result from another GPU
is refused; momentum rows count only for the chosen scheme."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "reports", "best_recipe.py")


def stages_result(tmp_path, gpu="GPU X"):
    rows = [
        {"variant": "pressure/jacobi_global_1d", "tuning": "b256", "scheme": "euler", "median_s": 2e-5},
        {"variant": "projection/pressure/jacobi_tma_slabs", "tuning": "bx128_by4_sz64_pf2", "scheme": "", "median_s": 1e-5},
        {"variant": "projection/momentum/register_zmarch", "tuning": "bx64_by4_sz16", "scheme": "euler", "median_s": 5e-5},
        {"variant": "projection/momentum/shared_zmarch", "tuning": "bx32_by8_sz0", "scheme": "ab2", "median_s": 1e-6},
        {"variant": "projection/momentum/global_1d", "tuning": "b128", "scheme": "euler", "error": "cannot run"},
    ]
    r = {"schema": "nsbench.stages/2", "grid": {"nx": 8, "ny": 8, "nz": 8}, "precision": "float",
         "machine": {"gpu": {"name": gpu}}, "build": {"git_commit": "0123456789"}, "rows": rows}
    path = tmp_path / "stages.json"
    path.write_text(json.dumps(r))
    return str(path)


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


def test_fastest_per_stage_with_todays_names(tmp_path):
    p = run(stages_result(tmp_path), "--gpu-model", "GPU X")
    assert p.returncode == 0, p.stderr
    entry = json.loads(p.stdout)
    assert entry["gpu_model"] == "GPU X" and entry["name"] == "best"
    # the faster pressure row, under its name today (baselines/variant-aliases.json)
    assert entry["stages"]["pressure"] == "jacobi_shared_slabs_tma:bx128_by4_sz64_pf2"
    # the ab2 row is faster but is not of the chosen scheme
    assert entry["stages"]["momentum"] == "register_zmarch:bx64_by4_sz16"


def test_another_gpus_result_is_refused(tmp_path):
    p = run(stages_result(tmp_path, gpu="GPU Y"), "--gpu-model", "GPU X")
    assert p.returncode != 0 and "GPU Y" in p.stderr
