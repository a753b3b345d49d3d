#!/usr/bin/env python3
"""What a kernel's main loop issues, from its SASS: instructions by class, per loop body.

    cuobjdump -sass build/CMakeFiles/nsb_core.dir/variants/momentum/register_zmarch.cu.o > rz.sass
    scripts/sass-mix.py rz.sass [--match REGEX]

For every kernel (optionally only those whose mangled name matches REGEX) it prints the instruction
count of the whole kernel and of each loop (a backward branch and the instructions between its target
and itself), split into classes: fp32, fp64, global loads/stores, shared, integer/address, moves,
control, other. A loop body's count divided by the points it computes per trip is what the kernel
issues per point, the number that bounds an instruction-limited stencil such as momentum
(docs/performance-notes.md). Needs only the cuobjdump text; no GPU.
"""
import argparse
import re
import sys
from collections import Counter

CLASSES = [
    ("fp32", ("FADD", "FMUL", "FFMA", "FMNMX", "FSETP", "FSEL", "FCHK", "MUFU")),
    ("fp64", ("DADD", "DMUL", "DFMA", "DSETP", "DMNMX")),
    ("ld_global", ("LDG",)),
    ("st_global", ("STG",)),
    ("shared", ("LDS", "STS", "LDSM")),
    ("int_address", ("IADD3", "VIADD", "IMAD", "LEA", "SHF", "LOP3", "ISETP", "IABS", "SEL", "IMNMX", "VIMNMX", "PRMT",
                     "SGXT", "UIADD3", "UIMAD", "ULEA", "USHF", "ULOP3", "UISETP", "USEL")),
    ("move", ("MOV", "UMOV", "S2R", "S2UR", "CS2R", "R2UR", "LDC", "ULDC")),
    ("control", ("BRA", "EXIT", "BSYNC", "BSSY", "BAR", "RET", "CALL", "WARPSYNC", "NOP")),
]

INSTR = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);")
LABEL = re.compile(r"^\s*(\.L_x_\d+):")
FUNC = re.compile(r"Function : (\S+)")


def klass(op):
    base = op.split(".")[0]
    for name, opcodes in CLASSES:
        if base in opcodes:
            return name
    return "other"


def parse(text):
    """Yields (function, [(address, opcode, operands)], {label: address})."""
    func, instrs, labels, pending = None, [], {}, []
    for line in text.splitlines():
        m = FUNC.search(line)
        if m:
            if func:
                yield func, instrs, labels
            func, instrs, labels, pending = m.group(1), [], {}, []
            continue
        m = LABEL.match(line)
        if m:
            pending.append(m.group(1))
            continue
        m = INSTR.search(line)
        if m and func:
            addr = int(m.group(1), 16)
            for label in pending:
                labels[label] = addr
            pending = []
            instrs.append((addr, m.group(3), m.group(4)))
    if func:
        yield func, instrs, labels


def loops(instrs, labels):
    """(start, end) addresses of every backward branch's body."""
    found = []
    for addr, op, operands in instrs:
        if not op.startswith("BRA"):
            continue
        target = None
        m = re.search(r"\(?(\.L_x_\d+)\)?", operands)
        if m and m.group(1) in labels:
            target = labels[m.group(1)]
        else:
            m = re.search(r"0x([0-9a-f]+)", operands)
            if m:
                target = int(m.group(1), 16)
        if target is not None and target <= addr:
            found.append((target, addr))
    return found


def mix(instrs, lo=None, hi=None):
    c = Counter(klass(op) for a, op, _ in instrs if (lo is None or lo <= a <= hi) and op != "NOP")
    return sum(c.values()), c


def fmt(total, c):
    return f"{total:5d}  " + "  ".join(f"{name} {c[name]}" for name, _ in CLASSES + [("other", ())] if c[name])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sass", help="cuobjdump -sass output")
    ap.add_argument("--match", default="", help="only kernels whose mangled name matches this regex")
    args = ap.parse_args()
    text = open(args.sass).read()
    seen = 0
    for func, instrs, labels in parse(text):
        if args.match and not re.search(args.match, func):
            continue
        seen += 1
        print(func)
        print("  kernel " + fmt(*mix(instrs)))
        for lo, hi in loops(instrs, labels):
            print(f"  loop {lo:#06x}-{hi:#06x} " + fmt(*mix(instrs, lo, hi)))
    if not seen:
        sys.exit(f"sass-mix: no kernel in {args.sass}" + (f" matches {args.match}" if args.match else ""))


if __name__ == "__main__":
    main()
