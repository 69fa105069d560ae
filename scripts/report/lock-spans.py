#!/usr/bin/env python3
"""Count the windows and mappings a switch of the Linux guest makes.

Usage: scripts/report/lock-spans.py VMLINUX [SYSTEM_MAP]

A switch rewrites the lock sites of the kernel text (`.smp_locks`, one
self-relative s32 per site; zero entries are padding) that lie in
[_text, _etext), walking the table in its order a window at a time
(patch 0003 of the series): a window is the 512 pages (PTRS_PER_PTE)
from the page of its first site, and ends at the first site outside
them; each page of a window that holds sites is mapped once in it.
Printed:

  sites N pages P windows-link-order W maps-link-order M
  windows-sorted V maps-sorted Q

W and M are what a switch does with the table in link order, as the
linker leaves it; V and Q with the table sorted by target address, as the
series sorts it when the text is recorded (Q equals P). SYSTEM_MAP
defaults to the System.map beside VMLINUX. Python's standard library
only.
"""
import os
import struct
import sys

PAGE_SHIFT = 12


def section(path, name):
    """Return (address, bytes) of the ELF64 little-endian section NAME."""
    with open(path, 'rb') as f:
        data = f.read()
    if data[:4] != b'\x7fELF' or data[4] != 2 or data[5] != 1:
        sys.exit(f'{path}: not an ELF64 little-endian file')
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)

    def header(i):
        return struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize)

    strtab = header(shstrndx)
    for i in range(shnum):
        h = header(i)
        start = strtab[4] + h[0]
        end = data.index(b'\0', start)
        if data[start:end].decode() == name:
            return h[3], data[h[4]:h[4] + h[5]]
    sys.exit(f'{path}: no {name} section')


def symbols(path, names):
    found = {}
    with open(path) as f:
        for line in f:
            addr, _, sym = line.split()[:3]
            if sym in names:
                found[sym] = int(addr, 16)
    missing = names - found.keys()
    if missing:
        sys.exit(f'{path}: no {" ".join(sorted(missing))}')
    return found


WINDOW = 512


def windows(pages):
    """(windows, page mappings) for sites visited in this page order."""
    count, maps, first, mapped = 0, 0, None, set()
    for p in pages:
        if first is None or not 0 <= p - first < WINDOW:
            count, first, mapped = count + 1, p, set()
        if p not in mapped:
            maps, mapped = maps + 1, mapped | {p}
    return count, maps


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    vmlinux = sys.argv[1]
    sysmap = (sys.argv[2] if len(sys.argv) == 3 else
              os.path.join(os.path.dirname(vmlinux), 'System.map'))
    sym = symbols(sysmap, {'_text', '_etext'})
    base, table = section(vmlinux, '.smp_locks')
    targets = []
    for i in range(len(table) // 4):
        off, = struct.unpack_from('<i', table, 4 * i)
        target = base + 4 * i + off
        if off and sym['_text'] <= target < sym['_etext']:
            targets.append(target)
    pages = [t >> PAGE_SHIFT for t in targets]
    link, ordered = windows(pages), windows(sorted(pages))
    print(f'sites {len(targets)} pages {len(set(pages))} '
          f'windows-link-order {link[0]} maps-link-order {link[1]} '
          f'windows-sorted {ordered[0]} maps-sorted {ordered[1]}')


if __name__ == '__main__':
    main()
