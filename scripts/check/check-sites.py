#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-sites.py - verify the alternatives records of an x86-64 ELF.

For every ELF given:
  * each .smp_locks entry (32-bit self-relative) points into the text at a
    0xf0 byte that begins an instruction;
  * each .smp_altinstructions record (site, repl, site_len, repl_len: two
    32-bit self-relative offsets and two bytes) has its site in the text,
    starting on an instruction, and its replacement outside the text;
  * every replacement is position-independent (no %rip operand, no
    relative jump or call): the engine copies those bytes elsewhere;
  * the NOPs that end an alternative_smp site (its padding, when the UP
    form is the longer) are the fewest, longest NOPs, the same bytes the
    engine writes: never a run of 0x90;
  * every lock-prefixed instruction in the text is covered by exactly one
    record: a .smp_locks entry, an alternative_smp site, or a .xen_locks
    entry (the guest's "locked on purpose, never patched" table).
Tables are found by the bound symbols of alt_core.h (__smp_locks_start ...)
when the ELF has them, else by section name.  The text is every executable
section except the replacement sections, disassembled with objdump.

Usage: check-sites.py ELF...                  every ELF must pass
       check-sites.py --expect pass|fail ELF ...  outcome expected per ELF
Prints counts per ELF and ends with "N passed, N failed".
"""
import re
import struct
import subprocess
import sys

SHF_EXECINSTR = 0x4
SHT_NOBITS = 8
SHT_SYMTAB = 2
LOCK = 0xF0
SMP_REC = struct.Struct("<iiBB")  # struct alt_smp_site, 10 bytes
LEGACY_PREFIXES = {0x26, 0x2E, 0x36, 0x3E, 0x64, 0x65, 0x66, 0x67,
                   0xF0, 0xF2, 0xF3}
REPLACEMENT_SECTIONS = {".smp_altinstr_replacement", ".altinstr_replacement"}
MAX_PROBLEMS_SHOWN = 20

# The recommended NOPs by length, as alt_insn.c writes them.
NOPS = {n: bytes.fromhex(h) for n, h in enumerate([
    "", "90", "6690", "0f1f00", "0f1f4000", "0f1f440000", "660f1f440000",
    "0f1f8000000000", "0f1f840000000000", "660f1f840000000000",
    "662e0f1f840000000000", "66662e0f1f840000000000"])}
NOP_MAX = 11


def optimal_nops(n):
    """The padding of n bytes the engine writes: 11-byte NOPs, then one."""
    return NOPS[NOP_MAX] * (n // NOP_MAX) + NOPS[n % NOP_MAX]


def trailing_nops(insns, site, slen):
    """Bytes of the run of whole NOPs that ends the site (its padding)."""
    a, run = site, 0
    while a < site + slen and a in insns:
        code = insns[a]
        run = run + len(code) if NOPS.get(len(code)) == code else 0
        a += len(code)
    return run

# (start symbol, end symbol, section name)
TABLES = {
    "locks": ("__smp_locks_start", "__smp_locks_end", ".smp_locks"),
    "smp": ("__smp_alt_start", "__smp_alt_end", ".smp_altinstructions"),
    "xen": ("__xen_locks_start", "__xen_locks_end", ".xen_locks"),
}


class Elf:
    def __init__(self, path):
        with open(path, "rb") as f:
            self.data = f.read()
        d = self.data
        if d[:4] != b"\x7fELF" or d[4] != 2 or d[5] != 1:
            raise ValueError("not a little-endian ELF64 file")
        (shoff,) = struct.unpack_from("<Q", d, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3A)
        raw = []
        for i in range(shnum):
            raw.append(struct.unpack_from("<IIQQQQIIQQ", d,
                                          shoff + i * shentsize))
        strtab = raw[shstrndx]
        self.sections = []
        for (name, typ, flags, addr, off, size, link, _info, _al,
             entsize) in raw:
            self.sections.append({
                "name": self._str(strtab[4], name), "type": typ,
                "flags": flags, "addr": addr, "off": off, "size": size,
                "link": link, "entsize": entsize})
        self.symbols = {}
        for s in self.sections:
            if s["type"] != SHT_SYMTAB:
                continue
            stroff = self.sections[s["link"]]["off"]
            for k in range(s["size"] // 24):
                name, _info, _other, _shndx, value, _size = \
                    struct.unpack_from("<IBBHQQ", d, s["off"] + k * 24)
                n = self._str(stroff, name)
                if n:
                    self.symbols.setdefault(n, value)

    def _str(self, base, off):
        end = self.data.index(b"\0", base + off)
        return self.data[base + off:end].decode()

    def section(self, name):
        for s in self.sections:
            if s["name"] == name:
                return s
        return None

    def read(self, addr, size):
        for s in self.sections:
            if (s["addr"] and s["type"] != SHT_NOBITS and
                    s["addr"] <= addr and addr + size <= s["addr"] + s["size"]):
                o = s["off"] + addr - s["addr"]
                return self.data[o:o + size]
        raise ValueError("address %#x not in the file" % addr)

    def table(self, key):
        start, end, name = TABLES[key]
        if start in self.symbols and end in self.symbols:
            return self.symbols[start], self.symbols[end]
        s = self.section(name)
        if s is None:
            return 0, 0
        return s["addr"], s["addr"] + s["size"]

    def text_sections(self):
        return [s for s in self.sections
                if s["flags"] & SHF_EXECINSTR and s["addr"]
                and s["name"] not in REPLACEMENT_SECTIONS]


INSN_RE = re.compile(r"^\s*([0-9a-f]+):\t([0-9a-f ]+?)\s*(?:\t(.*))?$")


def disassemble(path, sections):
    """Instruction start address -> bytes, for the given sections."""
    insns = {}
    args = ["objdump", "-d", "-w", "--insn-width=16"]
    for s in sections:
        args += ["-j", s["name"]]
    out = subprocess.run(args + [path], check=True, capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        m = INSN_RE.match(line)
        if not m:
            continue
        insns[int(m.group(1), 16)] = bytes.fromhex(m.group(2).replace(" ", ""))
    return insns


REL_BRANCH_RE = re.compile(
    r"^(?:(?:bnd|notrack|data16|addr32|ds|cs|rex\.?\w*)\s+)*"
    r"(j[a-z]+|call[a-z]*|loop[a-z]*|jrcxz|jecxz|xbegin)\s+[0-9a-f]+\b")


def disassemble_text(path, sections):
    """(address, instruction text) for the given sections."""
    args = ["objdump", "-d", "-w", "--insn-width=16"]
    for s in sections:
        args += ["-j", s["name"]]
    out = subprocess.run(args + [path], check=True, capture_output=True,
                         text=True).stdout
    result = []
    for line in out.splitlines():
        m = INSN_RE.match(line)
        if m and m.group(3):
            result.append((int(m.group(1), 16), m.group(3).strip()))
    return result


def lock_prefix_addr(addr, code):
    """Address of the 0xf0 among the instruction's prefixes, or None."""
    for i, b in enumerate(code):
        if b == LOCK:
            return addr + i
        if b not in LEGACY_PREFIXES:
            return None
    return None


def check(path):
    """Returns (problems, summary line)."""
    elf = Elf(path)
    texts = elf.text_sections()

    def in_text(a, n=1):
        return any(s["addr"] <= a and a + n <= s["addr"] + s["size"]
                   for s in texts)

    problems = []
    insns = disassemble(path, texts)
    covered = {}  # lock byte address -> list of record names

    lo, hi = elf.table("locks")
    locks = []
    for i, a in enumerate(range(lo, hi, 4)):
        (off,) = struct.unpack("<i", elf.read(a, 4))
        locks.append(a + off)
    for i, site in enumerate(locks):
        name = ".smp_locks[%d] -> %#x" % (i, site)
        if not in_text(site):
            problems.append("%s: outside the text" % name)
            continue
        if elf.read(site, 1)[0] != LOCK:
            problems.append("%s: byte is %#04x, not 0xf0" %
                            (name, elf.read(site, 1)[0]))
        if site not in insns:
            problems.append("%s: not the start of an instruction" % name)
        covered.setdefault(site, []).append(name)

    lo, hi = elf.table("xen")
    nxen = 0
    for i, a in enumerate(range(lo, hi, 4)):
        (off,) = struct.unpack("<i", elf.read(a, 4))
        site = a + off
        nxen += 1
        name = ".xen_locks[%d] -> %#x" % (i, site)
        if not in_text(site) or elf.read(site, 1)[0] != LOCK:
            problems.append("%s: not a 0xf0 byte in the text" % name)
        covered.setdefault(site, []).append(name)

    lo, hi = elf.table("smp")
    smp_ranges = []
    for i, a in enumerate(range(lo, hi, SMP_REC.size)):
        s_off, r_off, slen, rlen = SMP_REC.unpack(elf.read(a, SMP_REC.size))
        site, repl = a + s_off, a + 4 + r_off
        name = ".smp_altinstructions[%d] -> %#x+%d" % (i, site, slen)
        if not in_text(site, max(slen, 1)):
            problems.append("%s: site outside the text" % name)
            continue
        if site not in insns:
            problems.append("%s: site not on an instruction" % name)
        if rlen > slen:
            problems.append("%s: replacement longer than site" % name)
        if rlen and in_text(repl, rlen):
            problems.append("%s: replacement inside the text" % name)
        pad = trailing_nops(insns, site, slen)
        if elf.read(site + slen - pad, pad) != optimal_nops(pad):
            problems.append("%s: its %d bytes of padding are not the "
                            "fewest, longest NOPs" % (name, pad))
        smp_ranges.append((site, slen, name))

    # Replacements are copied: they must be position-independent.
    repl = [x for x in elf.sections
            if x["name"] in REPLACEMENT_SECTIONS and x["size"]]
    if repl:
        for addr, text in disassemble_text(path, repl):
            if "%rip" in text or REL_BRANCH_RE.match(text):
                problems.append("replacement at %#x is not position-"
                                "independent: %s" % (addr, text))

    nlocked = 0
    for addr, code in sorted(insns.items()):
        lock = lock_prefix_addr(addr, code)
        if lock is None:
            continue
        nlocked += 1
        who = list(covered.get(lock, []))
        who += [n for (s, ln, n) in smp_ranges if s <= lock < s + ln]
        if len(who) == 0:
            problems.append("lock prefix at %#x (%s) has no record" %
                            (lock, code.hex(" ")))
        elif len(who) > 1:
            problems.append("lock prefix at %#x covered %d times: %s" %
                            (lock, len(who), "; ".join(who)))
    summary = ("%d lock-prefixed instructions; %d .smp_locks, %d "
               "alternative_smp, %d .xen_locks records" %
               (nlocked, len(locks), len(smp_ranges), nxen))
    return problems, summary


def main(argv):
    expect = "pass"
    jobs = []
    i = 0
    while i < len(argv):
        if argv[i] == "--expect":
            expect = argv[i + 1]
            i += 2
            continue
        jobs.append((argv[i], expect))
        i += 1
    if not jobs:
        print(__doc__)
        return 2
    passed = failed = 0
    for path, want in jobs:
        try:
            problems, summary = check(path)
        except (OSError, ValueError, subprocess.CalledProcessError) as e:
            problems, summary = ["cannot check: %s" % e], "unreadable"
        got = "fail" if problems else "pass"
        print("check-sites: %s: %s" % (path, summary))
        for p in problems[:MAX_PROBLEMS_SHOWN]:
            print("  %s" % p)
        if len(problems) > MAX_PROBLEMS_SHOWN:
            print("  ... and %d more" % (len(problems) - MAX_PROBLEMS_SHOWN))
        ok = got == want
        print("check-sites: %s: %s (expected %s): %s" %
              (path, "refused" if problems else "clean", want,
               "PASS" if ok else "FAIL"))
        passed += ok
        failed += not ok
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
