"""The SOR omega report (gohari2012.gohari_sor_omega) on synthetic runs: the contraction a sweep and the best
omega of each grid (the smallest last change at equal sweeps, not the smallest ratio)."""
from study_helpers import REPORTS  # noqa: F401 (puts reports/ on the path)
import gohari2012  # noqa: E402
from report_page import Section  # noqa: E402


def result(nx, method, omega, first, last, sweeps=11):
    return {"run": {"grid": {"nx": nx, "ny": nx // 2, "nz": 1}, "poisson_method": method, "sor_omega": omega,
                    "jacobi": {"iterations": sweeps}},
            "checks": {"stream_residual_first_sweep": first, "stream_residual_last_sweep": last},
            "timing": {"step": {"median": 1e-3}}}


def test_contraction_and_best_omega():
    runs = [result(64, "sor", 1.5, 1e-2, 1e-12), result(64, "sor", 1.8, 1e-1, 1e-11),  # 1.8: smaller ratio, larger last
            result(64, "jacobi", 1.5, 1e-3, 1e-4), result(128, "sor", 1.9, 1e-3, 1e-5)]
    assert gohari2012.sweep_contraction(runs[0]) == (1e-12 / 1e-2) ** 0.1
    s = Section("sor_omega", "t")
    gohari2012.gohari_sor_omega(s, {}, {str(i): r for i, r in enumerate(runs)}, [], None, {})
    rows = next(b[2] for b in s.blocks if b[0] == "table")
    best = [(r[0], r[2]) for r in rows if r[-1] == "best"]
    assert best == [("64x32x1", "1.5"), ("128x64x1", "1.9")]
    assert [r[1] for r in rows if r[0] == "64x32x1"][0] == "Jacobi (w = 1)"  # sorted: jacobi before sor on a grid
