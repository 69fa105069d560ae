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

objdump prints a REX prefix that is not directly before the opcode (a
legacy prefix or another REX follows it), with any prefixes before it, as
an instruction of its own ("rex.W", "es rex"); the CPU ignores such a REX
but it belongs to the instruction after it, so the lengths are joined
before they are compared.

--combos writes every sequence of up to PREFIX_DEPTH prefixes (legacy and
REX, mixed) before each of a set of instructions whose length depends on
them, one per 64-byte slot padded with int3, and compares the decoder with
objdump (-M intel64) on each slot.  --opcodes does the same for every
opcode of the one-byte, 0f, 0f38 and 0f3a maps with a few ModRM forms and
prefixes.  objdump disregards a 0x66/0x67 given before a REX that another
prefix follows; the CPU does not, so such slots are left out (counted).

Usage: insn-vs-objdump.py HELPER ELF...
       insn-vs-objdump.py --combos|--opcodes HELPER
Ends with "N passed, N failed" (one per ELF, or one for the combinations).
"""
import itertools
import os
import tempfile
import re
import subprocess
import sys

INSN_RE = re.compile(r"^\s*([0-9a-f]+):\t([0-9a-f ]+?)\s*\t(.*)$")
REL_RE = re.compile(r"^(j[a-z]+|call|loop[a-z]*|jrcxz|jecxz|xbegin)\s+[0-9a-f]+ <")
LOOKAHEAD = 15
FWAIT = 0x9B


REX_ONLY_RE = re.compile(r"rex\.?\w*")
PREFIX_NAME_RE = re.compile(r"(es|cs|ss|ds|fs|gs|data16|addr32|lock|rep|repz|"
                            r"repnz|repe|repne|rex(\.\w+)?)")
# Prefixes the combinations mix: every legacy prefix and four REX bytes.
COMBO_PREFIXES = [0x26, 0x2E, 0x36, 0x3E, 0x64, 0x65, 0x66, 0x67, 0xF0,
                  0xF2, 0xF3, 0x40, 0x41, 0x48, 0x4F]
PREFIX_DEPTH = 3
# Instructions whose length the prefixes can change, then 8 operand bytes.
COMBO_BASES = ["0f1f44", "81c0", "05", "b8", "f7c0", "f6c0", "69c0", "6a",
               "68", "a1", "c7c0", "c7f8", "ff00", "90", "0fb115",
               "8b0425", "c2", "c8", "e8", "e9", "0f84", "0f3a0fc1",
               "0fba20", "6b00"]
OPERAND_BYTES = bytes(range(1, 9))
# --opcodes: each opcode with these ModRM (+SIB, disp) forms and prefixes.
SWEEP_MODRMS = ["00", "05", "0425", "442408", "80", "c0", "f8", "d0"]
SWEEP_PREFIXES = ["", "66", "67", "48", "6648", "f3", "f2"]
LEGACY_PREFIXES = {0x26, 0x2E, 0x36, 0x3E, 0x64, 0x65, 0x66, 0x67, 0xF0,
                   0xF2, 0xF3}
SLOT = 64
REX_MIN, REX_MAX = 0x40, 0x4F
INT3 = 0xCC


def parse_objdump(out):
    insns = []
    for line in out.splitlines():
        m = INSN_RE.match(line)
        if m:
            insns.append((int(m.group(1), 16),
                          bytes.fromhex(m.group(2).replace(" ", "")),
                          m.group(3).strip()))
    return join_rex(insns)


def prefixes_only(code, text):
    """True if objdump shows these bytes as prefixes alone, one a byte."""
    words = text.split()
    return (len(words) == len(code) and
            any(REX_ONLY_RE.fullmatch(w) for w in words) and
            all(PREFIX_NAME_RE.fullmatch(w) for w in words))


def join_rex(insns):
    """Join prefixes objdump shows alone (a REX not directly before the
    opcode, and the prefixes before it) to the instruction after them."""
    out, pending = [], []
    for addr, code, text in insns:
        if prefixes_only(code, text):
            if pending and pending[-1][0] + len(pending[-1][1]) != addr:
                pending = []
            pending.append((addr, code, text))
            continue
        if pending and pending[-1][0] + len(pending[-1][1]) == addr:
            addr = pending[0][0]
            code = b"".join(c for (_, c, _) in pending) + code
            text = " ".join(t for (_, _, t) in pending) + " " + text
        pending = []
        out.append((addr, code, text))
    return out


def instructions(path):
    out = subprocess.run(["objdump", "-d", "-w", "--insn-width=16", path],
                         check=True, capture_output=True, text=True).stdout
    return parse_objdump(out)


def decode(helper, feed):
    return subprocess.run([helper], input="\n".join(feed) + "\n",
                          check=True, capture_output=True,
                          text=True).stdout.splitlines()


def objdump_drops_size_prefix(pfx):
    """0x66 or 0x67 before a REX that another prefix follows: objdump then
    disregards the 0x66/0x67, the CPU does not (only that REX is ignored,
    Intel SDM vol. 2 2.2.1, AMD APM vol. 3 1.2.7).  Left out."""
    for j in range(1, len(pfx) - 1):
        if (REX_MIN <= pfx[j] <= REX_MAX and
                any(b in (0x66, 0x67) for b in pfx[:j])):
            return True
    return False


def prefix_run(code):
    """The legacy and REX prefixes code begins with."""
    n = 0
    while n < len(code) and (code[n] in LEGACY_PREFIXES or
                             REX_MIN <= code[n] <= REX_MAX):
        n += 1
    return tuple(code[:n])


def compare_slots(helper, slots, what):
    """Each slot: the instruction at its start, decoder vs objdump."""
    with tempfile.NamedTemporaryFile(suffix=".bin", delete=False) as f:
        f.write(b"".join(slots))
        path = f.name
    try:
        out = subprocess.run(["objdump", "-D", "-b", "binary", "-m",
                              "i386:x86-64", "-M", "intel64", "-w",
                              "--insn-width=16", path],
                             check=True, capture_output=True,
                             text=True).stdout
    finally:
        os.unlink(path)
    starts = {a: (c, t) for (a, c, t) in parse_objdump(out) if a % SLOT == 0}
    got = decode(helper, [s[:LOOKAHEAD * 2].hex() for s in slots])
    bad, refused, skipped, left_out = [], 0, 0, 0
    for i, (slot, g) in enumerate(zip(slots, got)):
        code, text = starts.get(i * SLOT, (b"", "(bad)"))
        if objdump_drops_size_prefix(prefix_run(slot)):
            left_out += 1
            continue
        if g == "-":
            refused += 1
            continue
        if "(bad)" in text or len(code) > LOOKAHEAD:
            skipped += 1  # objdump does not decode it either
            continue
        n = int(g.split()[0])
        if n != len(code):
            bad.append("%s (%s): decoder says %d bytes, objdump %d" %
                       (slot[:len(code)].hex(" "), text, n, len(code)))
    print("insn-vs-objdump: %d %s, %d refused (not decoded), %d not "
          "decoded by objdump, %d disagreements (%d left out: 0x66/0x67 "
          "before an ignored REX)" % (len(slots) - left_out, what, refused,
                                      skipped, len(bad), left_out))
    for b in bad[:20]:
        print("  " + b)
    return not bad


def slot(code):
    """code, then the operand bytes, then int3 up to the slot's end."""
    code += OPERAND_BYTES
    return code + bytes([INT3]) * (SLOT - len(code))


def combos(helper):
    """Prefix combinations before each base: decoder vs objdump."""
    slots = [slot(bytes(pfx) + bytes.fromhex(base))
             for depth in range(PREFIX_DEPTH + 1)
             for pfx in itertools.product(COMBO_PREFIXES, repeat=depth)
             for base in COMBO_BASES]
    return compare_slots(helper, slots, "prefix combinations")


def opcodes(helper):
    """Every opcode of the four maps, a few ModRM forms and prefixes."""
    maps = ([bytes([o]) for o in range(256)] +
            [bytes([0x0F, o]) for o in range(256)] +
            [bytes([0x0F, 0x38, o]) for o in range(256)] +
            [bytes([0x0F, 0x3A, o]) for o in range(256)])
    slots = [slot(bytes.fromhex(p) + op + bytes.fromhex(m))
             for p in SWEEP_PREFIXES for op in maps for m in SWEEP_MODRMS]
    return compare_slots(helper, slots, "opcode forms")


def check(helper, path):
    insns = instructions(path)
    feed = []
    for i, (_a, code, _t) in enumerate(insns):
        tail = b"".join(c for (_, c, _) in insns[i + 1:i + 1 + LOOKAHEAD])
        feed.append((code + tail)[:len(code) + LOOKAHEAD].hex())
    out = decode(helper, feed)
    bad, refused = [], 0
    for (addr, code, text), got in zip(insns, out):
        if got == "-":
            refused += 1
            continue
        if "(bad)" in text or REX_ONLY_RE.fullmatch(text):
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
    if argv and argv[0] in ("--combos", "--opcodes"):
        ok = (combos if argv[0] == "--combos" else opcodes)(argv[1])
        print("%d passed, %d failed" % (ok, not ok))
        return 0 if ok else 1
    helper, elves = argv[0], argv[1:]
    ok = sum(check(helper, e) for e in elves)
    print("%d passed, %d failed" % (ok, len(elves) - ok))
    return 0 if ok == len(elves) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
