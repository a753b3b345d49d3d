"""scripts/compact-results: indented result files put on one line with their values unchanged; a file that does
not parse is left alone and named, and the exit code says so."""
import json
import os
import subprocess
import sys

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "compact-results")


def test_indented_files_go_on_one_line_with_the_same_values(tmp_path):
    obj = {"timing": {"step": {"median": 1.0000000000000002e-05, "raw": [1e-300, 3.5, -0.0]}}, "name": "a\u00e9"}
    (tmp_path / "sub").mkdir()
    f = tmp_path / "sub" / "r.json"
    f.write_text(json.dumps(obj, indent=1))
    (tmp_path / "notes.txt").write_text("{ not json, not touched }")
    r = subprocess.run([sys.executable, SCRIPT, str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    text = f.read_text()
    assert text.count("\n") == 1 and json.loads(text) == obj
    assert (tmp_path / "notes.txt").read_text() == "{ not json, not touched }"
    again = subprocess.run([sys.executable, SCRIPT, str(tmp_path)], capture_output=True, text=True)
    assert again.returncode == 0 and f.read_text() == text


def test_a_file_that_does_not_parse_is_named_and_left_alone(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"a": ')
    r = subprocess.run([sys.executable, SCRIPT, str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 1 and "bad.json" in r.stderr and "left alone" in r.stderr
    assert bad.read_text() == '{"a": '
