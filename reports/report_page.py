"""The study report's page: sections of paragraphs, tables and figures, the run lists, the summary, the
header saying when, where and from what the report was made, and the Markdown and HTML writers."""
import datetime
import html
import os
import subprocess

import studylib


EMPTY_CELLS = {"", "-", "None", "nan"}


class Section:
    def __init__(self, study, title):
        self.study, self.title = study, title
        self.blocks = []  # ("p", text) | ("table", headers, rows) | ("fig", file, caption)

    def p(self, text):
        self.blocks.append(("p", text))

    def table(self, headers, rows):
        """A table; one with no rows, or whose every cell past the first column is a dash, is left out."""
        if any(any(str(c).strip() not in EMPTY_CELLS for c in row[1:]) for row in rows):
            self.blocks.append(("table", headers, rows))

    def fig(self, file, caption):
        self.blocks.append(("fig", file, caption))


# ---------------------------------------------------------------- what ran, what did not

# The physics and invariant checks a run records, each with its threshold, so that a run without a CPU reference
# still gets a verdict: (checks.validation kind or invariant, what is compared, threshold). A run is judged by the
# first that applies; the threshold is printed with the verdict.
PHYSICS_THRESHOLDS = {
    "ghia": ("max error / U against Ghia's points, at steady state", 0.05),
    "poiseuille": ("max error / U against the exact parabola", 0.01),
    "taylor_green": ("abs(E / E_exact - 1) at the run's end time", 0.01),
    "exact": ("max error against the exact solution", 0.01),
    "symmetry": ("max asymmetry of the symmetric flow", 1e-3),
    "blasius": ("max error against Blasius", 0.1),
    "turbulent_plate": ("max error against the turbulent-plate correlation", 0.1),
    "urban": ("mass imbalance (net flux / inflow flux)", 1e-2),
    "cube": ("mass imbalance (net flux / inflow flux)", 1e-2),
    "relative_divergence": ("max |div u| relative to the velocity scale", 1e-10),
}
# A channel whose profile is still this far from the parabola had not reached its steady state: its run is a
# timing run of the channel, not a test of the parabola; it is judged against the start-up recurrence below.
POISEUILLE_NOT_DEVELOPED = 0.5
# The start-up check's bound on max |u - reference| / max |reference|, by precision: rounding, not discretisation.
STARTUP_TOLERANCE = {"float": 1e-5, "double": 1e-10}


def channel_startup_reference(nz, lz, nu, dt, steps):
    """u(z) / U of the channel case started from rest, after `steps` steps: u depends on z alone (periodic in x and
    y, w = 0), so advection and the pressure drop out and the projection step is exactly the explicit-Euler
    diffusion of a body-forced column, u_k += dt (f + nu (u_{k+1} - 2 u_k + u_{k-1}) / dz^2), with f = 8 nu U / H^2
    (harness/solvers/projection/cases.cpp, U = 1) and no-slip walls on the cell faces (ghost u_0 = -u_1)."""
    f, dz = 8 * nu / lz ** 2, lz / nz
    u = [0.0] * nz
    for _ in range(steps):
        ghost = [-u[0]] + u + [-u[-1]]
        u = [ghost[k + 1] + dt * (f + nu * (ghost[k + 2] - 2 * ghost[k + 1] + ghost[k]) / dz ** 2) for k in range(nz)]
    return u


def channel_startup_verdict(v, run):
    """PASS / FAIL of a channel timing run against channel_startup_reference, or None without what it needs. The
    recorded profile is one column; it stands for the grid when its RMS and max deviation from the parabola are the
    whole grid's (validation.rms_error, max_error), which a non-uniform point would change."""
    profile, grid, dt = v.get("u_profile"), (run or {}).get("grid") or {}, (run or {}).get("dt")
    tol = STARTUP_TOLERANCE.get((run or {}).get("precision"))
    if not profile or not dt or not tol or not grid.get("nz") or v.get("time") is None:
        return None
    steps = round(v["time"] / dt)
    ref = channel_startup_reference(grid["nz"], grid.get("lz", 1.0), run["nu"], dt, steps)
    got = [p[2] for p in profile]
    scale = max(abs(x) for x in ref) or 1.0
    error = max(abs(g - r) for g, r in zip(got, ref)) / scale
    off = [p[2] - p[1] for p in profile]
    rms = (sum(d * d for d in off) / len(off)) ** 0.5
    uniform = abs(rms - v.get("rms_error", rms)) <= tol and abs(max(map(abs, off)) - v.get("max_error", 0)) <= tol
    ok = error <= tol and uniform and len(got) == len(ref)
    what = "max error / max u against the 1D start-up recurrence"
    if not uniform:
        return f"FAIL (channel_startup: the recorded column does not stand for the grid; {what} {error:.2g})"
    return f"{'PASS' if ok else 'FAIL'} (channel_startup: {what} {error:.2g} {'<=' if ok else '>'} {tol:g})"


def physics_verdict(checks, run=None):
    """'PASS (ghia: max error / U ... 0.008 <= 0.05)', 'FAIL (...)', a 'not checked: <why>' or None (no such check).
    A Poisson solve to a tolerance is judged by the residual it reached against that tolerance."""
    v = checks.get("validation") or {}
    kind = v.get("kind")
    tolerance = ((run or {}).get("jacobi") or {}).get("tolerance") or 0
    reached = checks.get("poisson_relative_residual")
    if kind in (None, "none") and tolerance > 0 and reached is not None:
        ok = reached <= tolerance
        return (f"{'PASS' if ok else 'FAIL'} (residual: relative residual reached {reached:.2g} "
                f"{'<=' if ok else '>'} the tolerance {tolerance:g})")
    if kind == "ghia" and not v.get("steady_state"):
        return "not checked: the cavity had not reached its steady state (Ghia's data are steady)"
    if kind == "poiseuille" and v.get("max_error", 0) > POISEUILLE_NOT_DEVELOPED:
        return (channel_startup_verdict(v, run) or
                "not checked: the channel had not reached its steady profile (a timing run without a recorded profile)")
    if kind == "elliptic_residual":
        ok = not v.get("folded") and v.get("min_jacobian", 0) > 0
        return f"{'PASS' if ok else 'FAIL'} (grid: no folded cell, min Jacobian {v.get('min_jacobian', 0):.2g} > 0)"
    if kind == "taylor_green" and v.get("energy_ratio_exact"):
        value = abs(v["energy_ratio"] / v["energy_ratio_exact"] - 1)
    elif kind in ("urban", "cube"):
        value = v.get("mass_imbalance")
    elif kind in PHYSICS_THRESHOLDS:
        value = v.get("max_error")
    elif "relative_divergence" in checks:
        kind, value = "relative_divergence", checks["relative_divergence"]
    else:
        return None
    if value is None:
        return None
    what, bound = PHYSICS_THRESHOLDS[kind]
    return f"{'PASS' if value <= bound else 'FAIL'} ({kind}: {what} {value:.2g} {'<=' if value <= bound else '>'} {bound:g})"


def verdict(r):
    """PASS / FAIL against the CPU reference; else the run's physics or invariant check with its threshold; else
    'not checked' with the reason."""
    checks = r.get("checks", {})
    ref = checks.get("reference", {})
    if ref.get("performed"):
        return "PASS" if ref.get("pass") else "FAIL"
    if "twin" in checks:
        return twin_verdict(checks["twin"])
    physics = physics_verdict(checks, r.get("run"))
    if physics:
        return physics
    reason = ref.get("reason", "")
    return "n/a (CPU reference)" if "CPU reference" in reason else (f"not checked: {reason}" if reason else "-")


def twin_verdict(twin):
    """The verdict of a check through a twin run (studylib.attach_twin_checks), naming the twin."""
    word = "PASS" if twin["pass"] else "FAIL"
    if twin["kind"] == "cpu_twin":
        d, tol = twin["max_relative_difference"], twin["tolerance"]
        return (f"{word} (cpu_twin: residual history of {twin['steps']} steps against the CPU run {twin['twin']}, "
                f"max relative difference {d:.2g} {'<=' if twin['pass'] else '>'} {tol:g})")
    return (f"{word} (down-scaled twin: {twin['twin']}, the same configuration at {twin['grid']}, "
            f"{'passed' if twin['pass'] else 'failed'} its CPU twin check)")


def record_status(record):
    """A run without a result: (status, reason) from its record."""
    if "unreadable" in record:
        return "UNREADABLE", f"{record['unreadable']}: {record['reason']}"
    if "exit_code" in record:
        tail = record.get("output_tail", "").strip().splitlines()
        return "FAILED", f"exit {record['exit_code']}: {tail[-1] if tail else '?'}"
    return "skipped", record.get("reason", "?")


RUN_HEADERS = ["run", "status", "when", "commit", "check / reason"]


def run_rows(results, records, expected):
    """One row per run of the study: ran (when, commit, check), skipped, FAILED, UNREADABLE or not run yet."""
    rows = []
    for rid in sorted(set(results) | set(records) | set(expected)):
        if rid in results:
            r = results[rid]
            dirty = "+" if r.get("build", {}).get("git_dirty") else ""
            rows.append([rid, "ran", r.get("timestamp", "?"), r.get("build", {}).get("git_commit", "?")[:10] + dirty,
                         verdict(r) if "checks" in r else "-"])
        elif rid in records:
            status, reason = record_status(records[rid])
            rows.append([rid, status, "-", "-", reason])
        else:
            rows.append([rid, "not run yet", "-", "-", "-"])
    return rows


def group_not_run(rows):
    """The run list as shown: one line per status and reason for the runs that did not run (skipped, not run yet),
    naming how many and which; the runs that ran, failed or cannot be read keep a line each."""
    out, groups = [], {}
    for row in rows:
        if row[1] in ("skipped", "not run yet"):
            groups.setdefault((row[1], row[4]), []).append(row[0])
        else:
            out.append(row)
    for (status, reason), ids in sorted(groups.items()):
        named = ", ".join(ids) if len(ids) <= 3 else f"{ids[0]}, ..., {ids[-1]}"
        out.append([f"{len(ids)} run{'s' if len(ids) > 1 else ''} ({named})" if len(ids) > 1 else ids[0],
                    status, "-", "-", reason])
    return out


def is_pass(v):
    return str(v).startswith("PASS")


def is_fail(v):
    return str(v).startswith("FAIL") and not str(v).startswith("FAILED")


SUMMARY_HEADERS = ["study", "reproduces", "runs", "ran", "skipped", "failed", "unreadable", "not run yet",
                   "checks passed", "checks failed", "ran, not checked"]


def summary_row(study, rows):
    """The study's line of the summary; the checks count every kind (reference, physics, invariants)."""
    def count(status):
        return sum(1 for x in rows if x[1] == status)
    ran = [x for x in rows if x[1] == "ran"]
    return [f"[{study['study']}](#{study['study']})", study["reproduces"], len(rows), count("ran"), count("skipped"),
            count("FAILED"), count("UNREADABLE"), count("not run yet"), sum(1 for x in ran if is_pass(x[4])),
            sum(1 for x in ran if is_fail(x[4])), sum(1 for x in ran if not is_pass(x[4]) and not is_fail(x[4]))]


# ---------------------------------------------------------------- when, where, from what

def generator_commit():
    """The commit of the report code that writes the page ('unknown' outside a git checkout)."""
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        head = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=30)
        # The reports being written are this run's output, not a change to the code that writes them.
        status = subprocess.run(["git", "-C", repo, "status", "--porcelain", "--untracked-files=no", "--", ".",
                                 ":(exclude)results/report"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return "unknown (no git)"
    if head.returncode != 0:
        return "unknown (not a git checkout)"
    return head.stdout.strip()[:10] + (" with uncommitted changes" if status.stdout.strip() else "")


def describe_machine(results):
    """The machine(s) the results say they ran on: GPUs, host, CPU."""
    seen = []
    for r in results:
        m = r.get("machine") or {}
        gpu = m.get("gpu")
        gpus = (f"{gpu.get('count', 1)} x {gpu['name']} (PCI {gpu.get('pci_bus_id', '?')})" if gpu
                else f"no GPU ({m.get('gpu_absent_reason', 'none recorded')})")
        cpu = m.get("cpu") or {}
        text = f"{gpus}, host {m.get('hostname', '?')}, CPU {cpu.get('model', '?')} ({cpu.get('logical_cores', '?')} logical cores)"
        if text not in seen:
            seen.append(text)
    return "; ".join(seen) or "no result recorded a machine"


def describe_builds(results):
    """'commit 03a8eac4bb (71 runs, 2026-11-22T04:37:31Z to 2026-11-22T04:43:21Z)' for every commit that made runs."""
    by_commit = {}
    for r in results:
        b = r.get("build") or {}
        key = str(b.get("git_commit", "?"))[:10] + (" with uncommitted changes" if b.get("git_dirty") else "")
        by_commit.setdefault(key, []).append(r.get("timestamp", "?"))
    return "; ".join(f"commit {c} ({len(t)} run{'s' if len(t) > 1 else ''}, {min(t)} to {max(t)})"
                     for c, t in sorted(by_commit.items())) or "none"


def header(machine, results_root, folders_found, all_results):
    """The paragraphs at the top: when and by what the page was made, from which results, on which machine."""
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    results = [r for res in all_results.values() for r in res.values()]
    where = ("your own runs" if os.path.normpath(results_root) == os.path.normpath(studylib.LOCAL_RESULTS)
             else "the shipped reference results" if os.path.normpath(results_root) == studylib.SHIPPED_RESULTS
             else "results given with --results")
    return [f"Made {now} by reports/study_report.py at commit {generator_commit()}, from the result files in "
            f"{results_root}/<study>/{machine}/ ({where}; {folders_found} studies have a folder there). "
            "Every number below comes from one of those files; each study lists its runs with their commit, time "
            "and correctness check.",
            f"Results: {len(results)} runs on {describe_machine(results)}; made by {describe_builds(results)}."]


# ---------------------------------------------------------------- writers

def write_markdown(out, machine, intro, summary, sections):
    lines = [f"# nsbench study report: {machine}", ""]
    for text in intro:
        lines += [text, ""]
    lines += ["Contents:", ""] + [f"- [{s.title}](#{s.study})" for s in sections] + [""]
    lines += md_table(SUMMARY_HEADERS, summary) + [""]
    for s in sections:
        lines += [f'<a id="{s.study}"></a>', "", f"## {s.title}", ""]
        for b in s.blocks:
            if b[0] == "p":
                lines += [b[1], ""]
            elif b[0] == "table":
                lines += md_table(b[1], b[2]) + [""]
            else:
                lines += [f"![{b[2]}]({b[1]})", ""]
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(lines))


def md_table(headers, rows):
    out = ["| " + " | ".join(str(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    for r in rows:
        out.append("| " + " | ".join(str(c).replace("|", "/") for c in r) + " |")
    return out


STYLE = ("body{font-family:sans-serif;max-width:1150px;margin:2em auto;padding:0 1em}"
         "table{border-collapse:collapse;margin:.8em 0;font-size:13px}td,th{border:1px solid #bbb;padding:3px 7px}"
         "th{background:#eee}td:nth-child(n+2){text-align:right}img{max-width:100%;border:1px solid #ddd}"
         ".fail{color:#b00;font-weight:bold}.pass{color:#070}nav li{margin:.15em 0}")


def write_html(out, machine, intro, summary, sections):
    e = html.escape
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>nsbench report: {e(machine)}</title>",
             f"<style>{STYLE}</style></head><body>", f"<h1>nsbench study report: {e(machine)}</h1>"]
    parts += [f"<p>{e(text)}</p>" for text in intro]
    parts.append("<nav><b>Contents</b><ol>" + "".join(f"<li><a href='#{e(s.study)}'>{e(s.title)}</a></li>"
                                                       for s in sections) + "</ol></nav>")
    parts.append(html_table(SUMMARY_HEADERS, summary))
    for s in sections:
        parts.append(f"<h2 id='{e(s.study)}'>{e(s.title)}</h2>")
        for b in s.blocks:
            if b[0] == "p":
                parts.append(f"<p>{e(b[1])}</p>")
            elif b[0] == "table":
                parts.append(html_table(b[1], b[2]))
            else:
                parts.append(f"<figure><img src='{e(b[1])}' alt='{e(b[2])}'><figcaption>{e(b[2])}</figcaption></figure>")
    parts.append("</body></html>")
    with open(os.path.join(out, "index.html"), "w") as f:
        f.write("\n".join(parts))


def html_table(headers, rows):
    e = html.escape
    out = ["<table><tr>" + "".join(f"<th>{e(str(h))}</th>" for h in headers) + "</tr>"]
    for r in rows:
        cells = []
        for c in r:
            c = str(c)
            if c.startswith("[") and "](" in c and c.endswith(")"):  # a Markdown link: a section or a page
                label, _, target = c[1:-1].partition("](")
                cells.append(f"<td><a href='{e(target)}'>{e(label)}</a></td>")
                continue
            cls = " class='fail'" if c in ("FAILED", "UNREADABLE") or is_fail(c) else " class='pass'" if is_pass(c) else ""
            cells.append(f"<td{cls}>{e(c)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    return "".join(out) + "</table>"
