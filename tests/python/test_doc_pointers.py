"""Every results/... or baselines/... path that README.md, ARCHITECTURE.md, docs/**/*.md and the committed reports
name exists (issue 36: every number traceable in main), so that renaming or packing a result cannot silently
break the pointer to the file behind a number.

How a pointer is read: `<...>` placeholders and `*` match anything, `{a,b}` is either; a pointer written
`<commit>:results/...` names a file in main's history (the development logs left out of the tree,
docs/performance-notes.md) and must exist at that commit. results/local/ is each user's own folder (ignored by
git): the docs name it in example commands, never as the source of a number."""
import glob
import os
import re
import subprocess

from study_helpers import ROOT

POINTER = re.compile(r"(?<![\w/.$-])(?:(?P<commit>[0-9a-f]{7,40}):)?"
                     r"(?P<path>(?:results|baselines)/(?:[\w.<>*+=/-]|\{[^}\s]*\})*)")
NOT_POINTERS = ("results/local/",)  # the user's own results, not in the tree by design


def documents():
    paths = [os.path.join(ROOT, "README.md"), os.path.join(ROOT, "ARCHITECTURE.md")]
    paths += glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True)
    paths += glob.glob(os.path.join(ROOT, "results", "report", "*", "report.md"))
    return sorted(paths)


def pointers(text):
    """(line number, commit or None, path pattern) for each results/ or baselines/ path the text names."""
    for n, line in enumerate(text.splitlines(), 1):
        for m in POINTER.finditer(line):
            path = m.group("path").rstrip(".")
            if line[m.end():m.end() + 1] == "{":  # a brace list with spaces in it: the path goes on past here
                path += "*"
            if path.rstrip("/") in ("results", "baselines") or path.startswith(NOT_POINTERS):
                continue
            yield n, m.group("commit"), path


def expand_braces(pattern):
    """'a{b,c}d' -> ['abd', 'acd'] (one level, as the docs write them)."""
    m = re.search(r"\{([^{}]*)\}", pattern)
    if not m:
        return [pattern]
    return [x for alt in m.group(1).split(",") for x in expand_braces(pattern[:m.start()] + alt + pattern[m.end():])]


def in_tree(pattern):
    globbed = re.sub(r"<[^>]*>", "*", pattern)
    return any(glob.glob(os.path.join(ROOT, p)) for p in expand_braces(globbed))


def in_history(commit, path):
    """True/False where ROOT is a git checkout, None where it is not (nothing to look in)."""
    try:
        r = subprocess.run(["git", "-C", ROOT, "cat-file", "-e", f"{commit}:{path.rstrip('/')}"],
                           capture_output=True)
    except OSError:
        return None
    if r.returncode != 0 and subprocess.run(["git", "-C", ROOT, "rev-parse", "--git-dir"],
                                            capture_output=True).returncode != 0:
        return None
    return r.returncode == 0


def test_every_named_result_path_exists():
    broken, checked = [], 0
    for doc in documents():
        with open(doc) as f:
            text = f.read()
        for n, commit, path in pointers(text):
            found = in_history(commit, path) if commit else in_tree(path)
            if found is None:
                continue
            checked += 1
            if not found:
                broken.append(f"{os.path.relpath(doc, ROOT)}:{n}: {commit + ':' if commit else ''}{path}")
    assert checked > 100, f"only {checked} pointers found: the pattern no longer reads the docs"
    assert not broken, f"{len(broken)} result paths named in the docs do not exist:\n" + "\n".join(broken)


def test_the_pointer_reader_reads_what_the_docs_write():
    text = ("see `results/fig4_6_speedup/<machine-id>/full-*.json.gz` and results/x/{a,b}.json.\n"
            "logs: a8b7e9b:results/harness/nvidia-h200/, run `--json results/local/mine.json`; $OUT/results/no")
    assert list(pointers(text)) == [(1, None, "results/fig4_6_speedup/<machine-id>/full-*.json.gz"),
                                    (1, None, "results/x/{a,b}.json"),
                                    (2, "a8b7e9b", "results/harness/nvidia-h200/")]
    assert expand_braces("results/x/{a,b}.json") == ["results/x/a.json", "results/x/b.json"]
