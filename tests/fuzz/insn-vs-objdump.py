#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""insn-vs-objdump.py - compare the engine's x86 length decoder with objdump.

Disassembles the executable sections of each ELF given, feeds every
instruction (followed by the bytes after it, as the engine would see them)
to the insn_lengths helper and checks that the length agrees with objdump's,
and that an instruction the decoder calls position-independent has no
%rip operand and is no relative branch in objdump's view.  Instructions the
decoder refuses (VEX and the like) are counted, not failures: the engine
refuses such replacements.
Usage: insn-vs-objdump.py HELPER ELF...   ends with "N passed, N failed".
"""
import re
import subprocess
import sys

INSN_RE = re.compile(r"^\s*([0-9a-f]+):\t([0-9a-f ]+?)\s*\t(.*)$")
REL_RE = re.compile(r"^(j[a-z]+|call|loop[a-z]*|jrcxz|jecxz|xbegin)\s+[0-9a-f]+ <")
LOOKAHEAD = 15
FWAIT = 0x9B


def instructions(path):
    out = subprocess.run(["objdump", "-d", "-w", "--insn-width=16", path],
                         check=True, capture_output=True, text=True).stdout
    insns = []
    for line in out.splitlines():
        m = INSN_RE.match(line)
        if m:
            insns.append((int(m.group(1), 16),
                          bytes.fromhex(m.group(2).replace(" ", "")),
                          m.group(3).strip()))
    return insns


def check(helper, path):
    insns = instructions(path)
    feed = []
    for i, (_a, code, _t) in enumerate(insns):
        tail = b"".join(c for (_, c, _) in insns[i + 1:i + 1 + LOOKAHEAD])
        feed.append((code + tail)[:len(code) + LOOKAHEAD].hex())
    out = subprocess.run([helper], input="\n".join(feed) + "\n",
                         check=True, capture_output=True,
                         text=True).stdout.splitlines()
    bad, refused = [], 0
    for (addr, code, text), got in zip(insns, out):
        if got == "-":
            refused += 1
            continue
        if "(bad)" in text or re.fullmatch(r"rex\.?\w*", text):
            continue  # data in the text: objdump does not decode it either
        n, pic = got.split()
        # objdump shows fwait (9b) joined to the x87 instruction after it;
        # the CPU (and the decoder) see two instructions.
        if int(n) != len(code) and not (code[0] == FWAIT and int(n) == 1):
            bad.append("%#x %s (%s): decoder says %s bytes" %
                       (addr, code.hex(" "), text, n))
        objdump_nonpic = "%rip" in text or REL_RE.match(
            re.sub(r"^(bnd|notrack|rex\.?\w*|data16|addr32|ds|cs)\s+", "",
                   text))
        if pic == "pic" and objdump_nonpic:
            bad.append("%#x %s (%s): decoder says position-independent" %
                       (addr, code.hex(" "), text))
    print("insn-vs-objdump: %s: %d instructions, %d refused (not decoded), "
          "%d disagreements" % (path, len(insns), refused, len(bad)))
    for b in bad[:20]:
        print("  " + b)
    return not bad


def main(argv):
    helper, elves = argv[0], argv[1:]
    ok = sum(check(helper, e) for e in elves)
    print("%d passed, %d failed" % (ok, len(elves) - ok))
    return 0 if ok == len(elves) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
