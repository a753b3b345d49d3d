"""scripts/sass-mix.py on cuobjdump-style text: kernels split by `Function :`, loops found from
backward branches (label and address forms), instructions counted by class, predicates ignored."""
import importlib.util
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(ROOT, "scripts", "sass-mix.py")
spec = importlib.util.spec_from_file_location("sass_mix", SCRIPT)
sass_mix = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sass_mix)

SASS = """
\tcode for sm_90
\t\tFunction : _Z4walkPf
\t.headerflags\t@"EF_CUDA_SM90"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                        /* 0x00000a00ff017b82 */
                                                                                 /* 0x000fe20000000800 */
        /*0010*/                   S2R R0, SR_TID.X ;                            /* 0x0000000000007919 */
.L_x_0:
        /*0020*/                   LDG.E R2, desc[UR4][R4.64] ;
        /*0030*/               @P1 FFMA R2, R2, R3, R5 ;
        /*0040*/                   DFMA R6, R6, R8, R10 ;
        /*0050*/                   IADD3 R4, P0, R4, 0x4, RZ ;
        /*0060*/                   LDS R7, [R9+0x4] ;
        /*0070*/              @!P0 BRA `(.L_x_0) ;
        /*0080*/                   STG.E desc[UR4][R4.64], R2 ;
        /*0090*/                   BRA 0x20 ;
        /*00a0*/                   EXIT ;
        /*00b0*/                   NOP ;
\t\tFunction : _Z5otherv
        /*0000*/                   MOV R1, R2 ;
        /*0010*/                   EXIT ;
"""


def test_kernels_loops_and_classes():
    kernels = list(sass_mix.parse(SASS))
    assert [name for name, _, _ in kernels] == ["_Z4walkPf", "_Z5otherv"]
    name, instrs, labels = kernels[0]
    total, mix = sass_mix.mix(instrs)
    assert total == 11  # the NOP is not counted
    assert (mix["fp32"], mix["fp64"], mix["ld_global"], mix["st_global"], mix["shared"]) == (1, 1, 1, 1, 1)
    assert (mix["int_address"], mix["move"], mix["control"]) == (1, 2, 3)
    loops = sass_mix.loops(instrs, labels)
    assert loops == [(0x20, 0x70), (0x20, 0x90)]  # label form and address form
    body_total, body = sass_mix.mix(instrs, *loops[0])
    assert body_total == 6 and body["control"] == 1 and body["fp32"] == 1


def test_match_filters_and_no_match_fails(tmp_path):
    path = tmp_path / "k.sass"
    path.write_text(SASS)
    out = subprocess.run([sys.executable, SCRIPT, str(path), "--match", "walk"], capture_output=True, text=True)
    assert out.returncode == 0
    assert "_Z4walkPf" in out.stdout and "_Z5otherv" not in out.stdout
    assert "loop 0x0020-0x0070     6" in out.stdout
    out = subprocess.run([sys.executable, SCRIPT, str(path), "--match", "nothing"], capture_output=True, text=True)
    assert out.returncode != 0 and "no kernel" in out.stderr
