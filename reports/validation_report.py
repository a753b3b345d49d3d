"""The flow_validation study's report section: pictures of the flow against physics, from the run
results' `checks.validation` records (Ghia profiles and the cavity section, the channel profile, the
Taylor-Green energy at each run's end time). No number here is typed in: the reference values are those
nsbench compared with (Ghia's tables embedded in the binary, the exact solutions)."""
import math

import numpy as np

import report_plots as plots
from common import fmt
from report_page import verdict


def _validation(r):
    return r.get("checks", {}).get("validation", {})


def _runs_of(results, case):
    return [r for r in results.values() if r["run"].get("case") == case and _validation(r)]


def _label(r):
    g = r["run"]["grid"]
    return f"{r['run']['backend']}, {g['nx']}x{g['ny']}x{g['nz']}"


def ghia_plot(out, name, cavity_runs, re):
    """u on x = 1/2 and w on z = 1/2 against Ghia's points, one line per run at this Re."""
    fig, (left, right) = plots.plt.subplots(1, 2, figsize=(9.5, 4.0))
    for k, r in enumerate(cavity_runs):
        v = _validation(r)
        up, wp = np.array(v["u_profile"]), np.array(v["w_profile"])
        left.plot(up[:, 2], up[:, 0], "-", color=plots.COLOURS[k % 10], label=f"nsbench at Ghia's positions ({_label(r)})")
        right.plot(wp[:, 0], wp[:, 2], "-", color=plots.COLOURS[k % 10], label=f"nsbench at Ghia's positions ({_label(r)})")
    ref = _validation(cavity_runs[0])
    up, wp = np.array(ref["u_profile"]), np.array(ref["w_profile"])
    left.plot(up[:, 1], up[:, 0], "ko", mfc="none", label="Ghia et al. (1982)")
    right.plot(wp[:, 0], wp[:, 1], "ko", mfc="none", label="Ghia et al. (1982)")
    left.set_xlabel("u / U on x = 1/2"), left.set_ylabel("z")
    right.set_xlabel("x"), right.set_ylabel("w / U on z = 1/2 (Ghia's v)")
    for ax in (left, right):
        ax.grid(True, alpha=0.3)
    left.set_title(f"Cavity, Re = {re:g}: vertical centre line", fontsize=10)
    right.set_title("horizontal centre line", fontsize=10)
    right.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    plots.save(fig, out, name)


def slice_plot(out, name, r):
    """Speed |(u, w)| / U on the y = 1/2 section with streamlines (the cavity's primary and corner vortices)."""
    sl = _validation(r)["slice"]
    x, z = np.array(sl["x"]), np.array(sl["z"])
    u = np.array(sl["u"]).reshape(len(z), len(x))
    w = np.array(sl["w"]).reshape(len(z), len(x))
    fig, ax = plots.plt.subplots(figsize=(5.6, 4.8))
    image = ax.pcolormesh(x, z, np.hypot(u, w), shading="auto", cmap="viridis")
    ax.streamplot(x, z, u, w, color="white", linewidth=0.6, density=1.4, arrowsize=0.6)
    fig.colorbar(image, ax=ax, label="speed / U")
    ax.set_aspect("equal")
    ax.set_xlabel("x"), ax.set_ylabel("z (the lid moves at z = 1)")
    ax.set_title(f"Cavity, Re = {r['run']['re']:g}: section y = 1/2 ({_label(r)})", fontsize=10)
    plots.save(fig, out, name)


def channel_plot(out, name, runs):
    fig, ax = plots.figure(6.5, 3.8)
    for k, r in enumerate(runs):
        p = np.array(_validation(r)["u_profile"])
        ax.plot(p[:, 2], p[:, 0], plots.MARKERS[k % 10], color=plots.COLOURS[k % 10], mfc="none",
                label=f"nsbench ({_label(r)})")
    p = np.array(_validation(runs[0])["u_profile"])
    zz = np.linspace(0, 1, 101)
    z0, exact0 = p[len(p) // 2, 0], p[len(p) // 2, 1]
    umax = exact0 / (4 * z0 * (1 - z0))  # the exact parabola 4 umax z (1 - z), through the exact values
    ax.plot(4 * umax * zz * (1 - zz), zz, "k-", label="exact parabola")
    plots.finish(ax, "u / U", "z / H", "Channel (Poiseuille), steady state", log_x=False)
    plots.save(fig, out, name)


def taylor_green_plot(out, name, runs):
    fig, ax = plots.figure(6.5, 3.8)
    pts = sorted((_validation(r)["time"], _validation(r)["energy_ratio"], _validation(r)["energy_ratio_exact"])
                 for r in runs)
    t = np.array([p[0] for p in pts])
    nu = -math.log(pts[-1][2]) / (4 * pts[-1][0])  # the exact curve exp(-4 nu t) through the runs' own exact values
    tt = np.linspace(0, t.max() * 1.05, 200)
    ax.plot(tt, np.exp(-4 * nu * tt), "k-", label="exact exp(-4 nu t)")
    ax.plot(t, [p[1] for p in pts], "o", color=plots.COLOURS[0], mfc="none", label=f"nsbench ({_label(runs[0])})")
    plots.finish(ax, "t", "E(t) / E(0)", "Taylor-Green vortex: kinetic energy decay", log_x=False)
    plots.save(fig, out, name)


def validation(s, study, results, paper, out, all_results):
    """Ghia profiles (Re 100, 1000), the cavity section, the channel parabola and Taylor-Green's decay."""
    rows = []
    validated = [r for r in results.values() if _validation(r)]
    for r in sorted(validated, key=lambda r: (r["run"]["case"], r["run"]["re"], r["run"]["backend"], r["run"]["timed_steps"])):
        v = _validation(r)
        rows.append([r["run"]["case"], fmt(r["run"]["re"]), _label(r), r["run"]["timed_steps"], fmt(v.get("time")),
                     v.get("kind", "-"), fmt(v.get("max_error")), fmt(v.get("rms_error")), verdict(r)])
    s.table(["case", "Re", "run", "steps", "t", "compared with", "max error / U", "RMS error / U", "check"], rows)
    cavity = [r for r in _runs_of(results, "cavity") if _validation(r).get("kind") == "ghia"]
    for re in sorted({r["run"]["re"] for r in cavity}):
        at_re = [r for r in cavity if r["run"]["re"] == re]
        name = f"validation_ghia_re{re:g}.png"
        ghia_plot(out, name, at_re, re)
        steady = all(_validation(r).get("steady_state") for r in at_re)
        s.fig(name, f"Cavity at Re = {re:g}: centre-line velocities against Ghia et al. (1982)"
                    + ("" if steady else " (NOT at steady state: see the run list)"))
    with_slice = [r for r in _runs_of(results, "cavity") if "slice" in _validation(r)]
    for re in sorted({r["run"]["re"] for r in with_slice}):
        finest = max((r for r in with_slice if r["run"]["re"] == re), key=lambda r: r["run"]["grid"]["nx"])
        name = f"validation_cavity_slice_re{re:g}.png"
        slice_plot(out, name, finest)
        s.fig(name, f"Cavity at Re = {re:g}: speed and streamlines on the section y = 1/2")
    channel = [r for r in _runs_of(results, "channel") if _validation(r).get("u_profile")]
    if channel:
        channel_plot(out, "validation_channel.png", channel)
        s.fig("validation_channel.png", "Channel: the steady profile against the exact parabola (the discrete "
                                        "steady profile differs from it by exactly U (dz/H)^2: the wall rule's error)")
    tg = [r for r in _runs_of(results, "taylor_green") if "energy_ratio" in _validation(r)]
    if tg:
        taylor_green_plot(out, "validation_taylor_green.png", tg)
        s.fig("validation_taylor_green.png", "Taylor-Green: E(t)/E(0) at each run's end time against the exact decay")


BUILDERS = {"validation": validation}
