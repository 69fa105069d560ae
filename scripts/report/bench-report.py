#!/usr/bin/env python3
"""Turn one `make bench` run into CSVs, PNG plots and summary.md.

Usage: scripts/report/bench-report.py [--real] RESULTS_DIR

RESULTS_DIR is what scripts/run/bench.sh filled:
  xen/                     the Xen run (scripts/run/xen-run.sh, XEN_OUT):
    bench-locks.csv            the smpalt guest's in-guest benchmark: one
                               row per guest type (make bench TYPES=) and
                               loop; in a run from before it, the "bench:"
                               lines of console-smpalt-bench-locks.log
                               instead (a PV guest)
    bench-vcpu.csv             smpalt: one row per `xl vcpu-set` step
    bench-linux-vcpu.csv       stock Linux 6.1: one row per step and variant
    bench-linux-smpalt.csv     patched Linux: one row per step, kver the
                               entry of make bench KVERS= (6.1 when the
                               column is absent): the version, its
                               configuration (6.1-debug), ":pvh" for a
                               PVH guest (7.2:pvh)
    bench-linux-work.csv       the fork loop: one row per timed round,
                               kver as above (absent: the first entry's,
                               PV)
    bench-dom0-weight.csv      xl vcpu-set's own time, guest idle or busy,
                               at two dom0 weights: one row per call
  debian/                  the Debian guest's Xen run (make debian-domu):
    bench-debian-real.csv      real programs: one row per timed run, the
                               kernel (patched, stock), program, form (up,
                               smp), vCPUs online, phase, ms, its output
  bench-host.txt           the output of `make bench-host`
  run.txt                  key=value facts about the run (date, commit...)

Writes into RESULTS_DIR: inguest.csv, smpalt-vcpu.csv, linux-vcpu.csv,
linux-smpalt-vcpu.csv, linux-work.csv, host.csv, latency-stats.csv,
switch-stats.csv, reaction-stats.csv, debian-real.csv, vcpu-latency.png,
switch-ns.png, inguest.png, reaction.png, linux-work.png, summary.md,
summary.csv (the
table's rows); prints the summary table. A part that is missing is
reported as "not measured", never invented.

--real: a run of scripts/run/bench-real.sh on a real dom0 (RESULTS_DIR/xen/
holds the three Linux CSVs, run.txt the host's facts): the Linux rows only,
no plots; writes linux-vcpu.csv, linux-smpalt-vcpu.csv, linux-work.csv,
latency-stats.csv, switch-stats.csv, reaction-stats.csv, summary.md and
summary.csv, and prints the host's facts and the table.

Statistics: median is the middle value (mean of the two middle ones for an
even count), p90 the nearest-rank 90th percentile (the ceil(0.9 n)-th
smallest value).
"""
import csv
import math
import os
import re
import subprocess
import sys

# The steps that scripts and plots show, in this order.
TRANSITIONS = ["1->2", "2->1", "1->4", "4->1"]
# bench-linux-vcpu.sh reports a change not seen within this many seconds
# as "never".
NEVER_SEC = 5.0
NOT_MEASURED = "not measured"
# Lock-heavy workloads the summary wants a ratio for, each on its own when
# the guest's benchmark names them in its "bench:" lines.
GUEST_WORKLOADS = ["spinlock", "atomic", "refcount"]
# The smpalt guest's types in the order the summary and the plot show them.
GUEST_TYPES = ["pv", "pvh"]

BENCH_LINE = re.compile(
    r"bench: (?P<name>.+?): SMP form (?P<smp>\d+) ns, UP form (?P<up>\d+) ns")
RESULT_LINE = re.compile(
    r"Test result: SUCCESS smp (?P<smp>\d+) ns up (?P<up>\d+) ns")
HOST_LAST = re.compile(
    r"^smp/up (?P<smp_up>[\d.]+) up/plain (?P<up_plain>[\d.]+) "
    r"ns/site (?P<ns_site>[\d.]+)\s*$")
HOST_LOOP = re.compile(
    r"^(?P<name>\S.*?)\s+(?P<smp>[\d.]+)\s+(?P<up>[\d.]+)\s+"
    r"(?P<plain>[\d.]+)\s+(?P<smp_up>[\d.]+)\s+(?P<up_plain>[\d.]+)\s*$")


def median(values):
    v = sorted(values)
    n = len(v)
    if n == 0:
        return None
    if n % 2:
        return v[n // 2]
    return (v[n // 2 - 1] + v[n // 2]) / 2


def p90(values):
    v = sorted(values)
    if not v:
        return None
    return v[max(math.ceil(0.9 * len(v)), 1) - 1]


def stats(values):
    """min, median, p90, max of a list (None for each when empty)."""
    if not values:
        return {"n": 0, "min": None, "median": None, "p90": None, "max": None}
    return {"n": len(values), "min": min(values), "median": median(values),
            "p90": p90(values), "max": max(values)}


def read_csv(path):
    if not os.path.isfile(path):
        return None
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def write_csv(path, fields, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow(r)


def read_run_facts(res):
    facts = {}
    path = os.path.join(res, "run.txt")
    if os.path.isfile(path):
        with open(path) as f:
            for line in f:
                k, sep, v = line.rstrip("\n").partition("=")
                if sep:
                    facts[k] = v
    return facts


# ------------------------------------------------------------------ parts

def in_guest(res):
    """Rows of the guest's own benchmark: type, workload, smp_ns, up_ns,
    ratio; from bench-locks.csv, else (a run from before it) from the
    "bench:" lines of the PV guest's console."""
    table = read_csv(os.path.join(res, "xen", "bench-locks.csv"))
    if table is not None:
        return [{"type": r["type"], "workload": r["workload"],
                 "smp_ns": int(r["smp_ns"]), "up_ns": int(r["up_ns"]),
                 "up_over_smp_throughput":
                 "%.2f" % (int(r["smp_ns"]) / int(r["up_ns"]))}
                for r in table if int(r["up_ns"]) > 0]
    path = os.path.join(res, "xen", "console-smpalt-bench-locks.log")
    if not os.path.isfile(path):
        return []
    rows = []
    fallback = None
    with open(path, errors="replace") as f:
        for line in f:
            m = BENCH_LINE.search(line)
            if m:
                rows.append((m["name"], int(m["smp"]), int(m["up"])))
                continue
            m = RESULT_LINE.search(line)
            if m:
                fallback = ("item", int(m["smp"]), int(m["up"]))
    if not rows and fallback:
        rows.append(fallback)
    return [{"type": "pv", "workload": n, "smp_ns": s, "up_ns": u,
             "up_over_smp_throughput": "%.2f" % (s / u)}
            for n, s, u in rows if u > 0]


def guest_types(rows):
    """The guest types of the in-guest rows, in GUEST_TYPES' order."""
    found = {r["type"] for r in rows}
    return [t for t in GUEST_TYPES if t in found] + \
        sorted(found - set(GUEST_TYPES))


def in_guest_grid(rows):
    """The in-guest rows as a grid: the workloads in their order, the
    guest types in GUEST_TYPES' order, and each (type, workload)'s row."""
    return (list(dict.fromkeys(r["workload"] for r in rows)),
            guest_types(rows),
            {(r["type"], r["workload"]): r for r in rows})


def in_guest_rows(guest):
    """The summary's in-guest rows: per workload, the UP/SMP throughput
    ratio of each guest type side by side, with the two timings it comes
    from."""
    workloads, types, cell = in_guest_grid(guest)
    table = []
    for w in workloads:
        cells = []
        for t in types:
            g = cell.get((t, w))
            if g:
                cells.append("%s %s x (SMP form %d ns, UP form %d ns)"
                             % (t.upper(), g["up_over_smp_throughput"],
                                g["smp_ns"], g["up_ns"]))
            else:
                cells.append("%s %s" % (t.upper(), NOT_MEASURED))
        table.append(("in-guest UP/SMP throughput ratio, one vCPU (%s)" % w,
                      "; ".join(cells)))
    return table


def host_figures(res):
    path = os.path.join(res, "bench-host.txt")
    if not os.path.isfile(path):
        return None, []
    last, loops = None, []
    with open(path, errors="replace") as f:
        for line in f:
            m = HOST_LAST.match(line)
            if m:
                last = {k: float(v) for k, v in m.groupdict().items()}
                continue
            m = HOST_LOOP.match(line)
            if m:
                loops.append(m.groupdict())
    return last, loops


def transition(row):
    return "%s->%s" % (row["from"], row["to"])


# The patched Linux guest's steps by what they make the kernel do.
LINUX_STEP_KINDS = [
    ("1->2", "online + switch to SMP"),
    ("2->3", "online, no switch"),
    ("3->2", "offline, no switch"),
    ("2->1", "offline + switch to UP"),
]


def floats(rows, key):
    return [float(r[key]) for r in rows if r.get(key)]


def fork_rates(rows, system, form):
    """Forks per second of each timed round of SYSTEM in FORM."""
    return [int(r["forks"]) * 100.0 / int(r["cs"]) for r in rows
            if r["system"] == system and r["form"] == form
            and int(r["cs"]) > 0]


def kver_type(kver):
    """The guest type of a KVERS entry: pv, or what follows its colon."""
    return kver.partition(":")[2] or "pv"


def type_note(kver):
    """What a label adds for the guest type: nothing for PV (the
    default), ", PVH guest" for PVH."""
    t = kver_type(kver)
    return "" if t == "pv" else ", %s guest" % t.upper()


def series_label(kver):
    """The summary's name of a patched guest: KVER is a version (6.1) or a
    version and a configuration of make linux CONFIG= (6.1-debug), then
    the guest type after a colon when not PV (7.2:pvh)."""
    version, _, config = kver.partition(":")[0].partition("-")
    if config:
        name = "Linux %s (%s configuration) + smpalt series" % (version,
                                                                config)
    else:
        name = "Linux %s + smpalt series" % version
    return name + type_note(kver)


def stock_label(kver):
    """The stock control of KVER's version and configuration (make linux
    STOCK=1), with KVER's guest type."""
    version, _, config = kver.partition(":")[0].partition("-")
    if config:
        version += " (%s configuration)" % config
    return "stock Linux %s%s" % (version, type_note(kver))


def linux_smpalt_rows(label, rows, lsw):
    """Summary rows of one patched Linux guest's steps (LABEL names it):
    latency, switch durations (LSW: stats per direction), reaction per kind
    of step, and the offline with a switch against the offline without."""
    table = []
    for t in TRANSITIONS:
        st = stats(floats([r for r in rows if transition(r) == t],
                          "latency_s"))
        table.append(("%s, kernel only, %s" % (label, t),
                      fmt_dist(st, fmt_s) if st["n"] else NOT_MEASURED))
    for d, dlabel in (("up-smp", "UP->SMP"), ("smp-up", "SMP->UP")):
        st = lsw[d]
        sites = sorted({r["sites"] for r in rows
                        if r["switched"] == "1" and r["sites"]})
        table.append((
            "%s, switch %s (median)" % (label, dlabel),
            "%s; %s sites" % (fmt_dist(st, fmt_ms_ns), "/".join(sites))
            if st["n"] else NOT_MEASURED))
    for t, kind in LINUX_STEP_KINDS:
        st = stats(floats([r for r in rows if transition(r) == t],
                          "reaction_ms"))
        table.append((
            "%s, CPU %s, %s: reaction" % (label, t, kind),
            fmt_dist(st, fmt_ms) if st["n"] else NOT_MEASURED))
    off_sw = median(floats([r for r in rows if transition(r) == "2->1"],
                           "reaction_ms"))
    off_plain = median(floats([r for r in rows if transition(r) == "3->2"],
                              "reaction_ms"))
    if off_sw is not None and off_plain:
        sw_ms = (lsw["smp-up"]["median"] or 0) / 1e6
        table.append((
            "  %s: offline with the switch to UP / offline without "
            "(medians)" % label,
            "%.2f x (%.1f ms / %.1f ms; the switch itself %.1f ms)"
            % (off_sw / off_plain, off_sw, off_plain, sw_ms)))
    return table


# ------------------------------------------------------------------ plots

def gnuplot(script, res):
    try:
        subprocess.run(["gnuplot"], input=script, text=True, cwd=res,
                       check=True, capture_output=True)
        return True
    except (OSError, subprocess.CalledProcessError) as e:
        err = getattr(e, "stderr", "") or str(e)
        print("bench-report: gnuplot failed: %s" % err.strip(),
              file=sys.stderr)
        return False


# Point types of the series of a per-transition plot, in order.
POINT_TYPES = (7, 9, 5, 2)


def transition_points(res, name, series):
    """Write SERIES, (label, x offset, [(transition, y)]), as the gnuplot
    data file NAME (one index a series); return its xtics and plot list.
    A series without a point of TRANSITIONS is left out: gnuplot counts
    no index for an empty block, so the labels after it would name the
    wrong points."""
    series = [(label, dx, [(t, y) for t, y in pts if t in TRANSITIONS])
              for label, dx, pts in series]
    series = [s for s in series if s[2]]
    with open(os.path.join(res, name), "w") as f:
        for label, dx, pts in series:
            f.write("# %s\n" % label)
            for t, y in pts:
                f.write("%.2f %.3f\n" % (TRANSITIONS.index(t) + dx, y))
            f.write("\n\n")
    xtics = ", ".join('"%s" %d' % (t, i) for i, t in enumerate(TRANSITIONS))
    plots = ", ".join(
        "'%s' index %d using 1:2 with points pt %d ps 1.2 title '%s'"
        % (name, i, POINT_TYPES[i % len(POINT_TYPES)], s[0])
        for i, s in enumerate(series))
    return xtics, plots


def plot_latency(res, smpalt_rows, linux_rows, plinux_rows, labels):
    """Points per transition: smpalt, Linux with the smpalt series, Linux +
    onlining, Linux kernel-only (a change never seen is drawn at the 5 s
    limit); LABELS names the patched guest and the stock one."""
    series = [("smpalt", -0.3, [(transition(r), float(r["latency_s"]))
                                for r in smpalt_rows]),
              ("%s (kernel only)" % labels["patched"], -0.1,
               [(transition(r), float(r["latency_s"])) for r in plinux_rows])]
    for variant, label, dx in (("user", "%s + user-space onlining"
                                % labels["stock"], 0.1),
                               ("kernel", "%s kernel only" % labels["stock"],
                                0.3)):
        pts = []
        for r in linux_rows:
            if r["variant"] != variant or r["from"] == "boot":
                continue
            if r["outcome"] == "seen":
                pts.append((transition(r), float(r["latency_s"])))
            elif r["outcome"] == "never":
                pts.append((transition(r), NEVER_SEC))
        series.append((label, dx, pts))
    xtics, plots = transition_points(res, "vcpu-latency.dat", series)
    return gnuplot(f"""
set terminal pngcairo size 900,560
set output 'vcpu-latency.png'
set title "xl vcpu-set until the guest shows the new vCPU set (seen from dom0)\\nTCG: not hardware times; at {NEVER_SEC:g} s = never seen"
set ylabel 'seconds'
set xrange [-0.6:{len(TRANSITIONS) - 0.4}]
set yrange [0:{NEVER_SEC + 0.8}]
set xtics ({xtics})
set arrow from -0.6,{NEVER_SEC} to {len(TRANSITIONS) - 0.4},{NEVER_SEC} nohead dt 2
set key below
set grid ytics
plot {plots}
""", res)


def plot_switch(res, smpalt_rows):
    data = os.path.join(res, "switch-ns.dat")
    with open(data, "w") as f:
        for d in ("up-smp", "smp-up"):
            f.write("# %s\n" % d)
            for i, r in enumerate(smpalt_rows, 1):
                if r["direction"] == d and r["switch_ns"]:
                    f.write("%d %.1f\n" % (i, int(r["switch_ns"]) / 1000))
            f.write("\n\n")
    return gnuplot("""
set terminal pngcairo size 900,480
set output 'switch-ns.png'
set title "smpalt in-guest switch duration (data/smpalt/last-switch-ns)\\nTCG: not hardware times"
set xlabel 'xl vcpu-set step'
set ylabel 'microseconds'
set yrange [0:*]
set offsets 0.5, 0.5, 0, 0
set grid ytics
# Legends below the plot, never on the data.
set key below horizontal
plot 'switch-ns.dat' index 0 using 1:2 with points pt 7 title 'UP -> SMP', \\
     'switch-ns.dat' index 1 using 1:2 with points pt 5 title 'SMP -> UP'
""", res)


def plot_inguest(res, rows):
    """A cluster of bars per workload: the SMP and the UP form of each
    guest type ("-", no bar, where a type has no figure)."""
    workloads, types, cell = in_guest_grid(rows)
    data = os.path.join(res, "inguest.dat")
    with open(data, "w") as f:
        for w in workloads:
            # The workload's short name under its bars (spinlock, not
            # what its run does: the table says that).
            f.write('"%s"' % w.partition(" (")[0].replace('"', "'"))
            for t in types:
                g = cell.get((t, w))
                f.write(" %d %d" % (g["smp_ns"], g["up_ns"])
                        if g else " - -")
            f.write("\n")
    bars = ", \\\n     ".join(
        "'inguest.dat' using %d%s title '%s, %s'"
        % (2 + 2 * i + j, ":xtic(1)" if i == j == 0 else "", t.upper(), form)
        for i, t in enumerate(types)
        for j, form in enumerate(("SMP form (unpatched)", "UP form (patched)")))
    which = " and ".join(t.upper() for t in types) + \
        (" guests" if len(types) > 1 else " guest")
    return gnuplot(f"""
set terminal pngcairo size {max(800, 450 * len(types))},480
set output 'inguest.png'
set title "smpalt in-guest, one vCPU, {which}: ns per timed run of each workload,\\nsame kernel image, same Xen boot; TCG: not hardware times, compare each type's SMP and UP bars"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.7 border -1
set datafile missing '-'
set ylabel 'ns, log scale (lower is better)'
set logscale y
set yrange [*:*]
set grid ytics
set key below horizontal
plot {bars}
""", res)


def plot_reaction(res, series):
    """The guest's own reaction per transition (stamper, one dom0 clock)."""
    xtics, plots = transition_points(res, "reaction.dat", series)
    return gnuplot(f"""
set terminal pngcairo size 900,520
set output 'reaction.png'
set title "Guest reaction: xl's write of cpu/N/availability to the guest's data/smpalt/online\\n(both events stamped by one dom0 watcher; TCG: not hardware times)"
set ylabel 'milliseconds'
set xrange [-0.6:{len(TRANSITIONS) - 0.4}]
set yrange [0:*]
set xtics ({xtics})
set key below
set grid ytics
plot {plots}
""", res)


def plot_work(res, bars):
    data = os.path.join(res, "linux-work.dat")
    with open(data, "w") as f:
        for label, v in bars:
            f.write('"%s" %.2f\n' % (label, v))
    return gnuplot("""
set terminal pngcairo size %d,480
set output 'linux-work.png'
set title "Linux domUs, fork+pipe loop on cpu 0: forks per second (median round)\\nsame Xen boot; TCG: not hardware times"
set style data histograms
set style fill solid 0.7 border -1
set boxwidth 0.6
set ylabel 'forks per second (higher is better)'
set yrange [0:*]
set grid ytics
set key off
plot 'linux-work.dat' using 2:xtic(1)
""" % max(800, 170 * len(bars)), res)


# ---------------------------------------------------------------- summary

def fmt_s(v):
    return "%.2f s" % v


def fmt_ms(v):
    return "%.1f ms" % v


def fmt_ms_ns(v):
    return "%.1f ms" % (v / 1e6)


def fmt_rate(v):
    return "%.1f/s" % v


def fmt_dist(st, fmt):
    return "%s (min %s, p90 %s, max %s; n=%d)" % (
        fmt(st["median"]), fmt(st["min"]), fmt(st["p90"]), fmt(st["max"]),
        st["n"])


def linux_row_text(rows):
    """One cell for a Linux variant and transition."""
    n = len(rows)
    if n == 0:
        return NOT_MEASURED
    seen = [float(r["latency_s"]) for r in rows if r["outcome"] == "seen"]
    never = sum(1 for r in rows if r["outcome"] == "never")
    unchanged = sum(1 for r in rows if r["outcome"] == "unchanged")
    if unchanged == n:
        return ("no change to wait for: the vCPUs added before never "
                "came online (n=%d)" % n)
    if never == n:
        return "never (not within %g s, %d of %d)" % (NEVER_SEC, never, n)
    text = fmt_dist(stats(seen), fmt_s) if seen else ""
    if never:
        text += "; never in %d of %d" % (never, n)
    if unchanged:
        text += "; unchanged in %d of %d" % (unchanged, n)
    return text


def dom0_weight_rows(rows):
    """Table rows of bench-dom0-weight.csv: per dom0 weight, xl vcpu-set's
    own time with the guest idle and busy, and busy/idle of the medians."""
    weights = sorted({int(r["weight"]) for r in rows})
    if not weights:
        return [("xl vcpu-set, guest busy / idle, per dom0 weight",
                 NOT_MEASURED)]
    out = []
    for w in weights:
        ms = {c: floats([r for r in rows if r["condition"] == c
                         and int(r["weight"]) == w], "xl_ms")
              for c in ("idle", "busy")}
        idle, busy = median(ms["idle"]), median(ms["busy"])
        if idle and busy is not None:
            text = "%.2f x (busy %s, idle %s)" % (
                busy / idle, fmt_dist(stats(ms["busy"]), fmt_ms),
                fmt_dist(stats(ms["idle"]), fmt_ms))
        else:
            text = NOT_MEASURED + " (a condition has no row)"
        out.append(("xl vcpu-set, guest busy / idle, dom0 weight %d" % w,
                    text))
    return out


# How the Linux rows name the two kernels: `make bench` (labels_tcg: the
# stock control of the first version, make linux STOCK=1: the same tree
# and configuration without the series; each guest of a KVERS entry as
# its type) and `make bench-real` (the stock kernel the administrator
# gave, by default the same stock control; PV guests).
def labels_tcg(kver, first):
    """The labels of the rows of KVER's patched guest, the fork loop in
    it and in the stock control of its type; FIRST is the first entry of
    KVERS (whose stock control ran)."""
    stock = stock_label(first.partition(":")[0])
    # The fork loop's rows name the guests' type (the patched guest's and
    # the stock control's are the same), and the patched guest's version
    # when it is not the stock control's.
    which = type_note(kver)
    same = kver.partition(":")[0] == first.partition(":")[0]
    if not same:
        which = ", " + series_label(kver)
    return {
        "stock": stock,
        "stock_kernel": "%s kernel-only" % stock,
        "stock_user": "%s + userspace onlining" % stock,
        "stock_boot": "%s domU boot until online=0 (each variant)" % stock,
        "patched": series_label(kver),
        "work": "Linux fork+pipe loop" + which,
        "which": which,
        "stock_work": "%s, SMP code, 1 online" % stock,
        "stock_ratio": stock
        + (" (same tree and configuration)" if same else ""),
    }


LABELS_REAL = {
    "stock": "stock Linux",
    "stock_kernel": "stock Linux, kernel alone,",
    "stock_user": "stock Linux + user-space onlining,",
    "stock_boot": "stock Linux domU boot until online=0 (each variant)",
    "patched": "patched Linux (the series)",
    "work": "Linux fork+pipe loop",
    "which": "",
    "stock_work": "stock Linux, SMP code, 1 online",
    "stock_ratio": "stock Linux",
}


def linux_switch_stats(plinux):
    """The patched Linux guest's switch durations (ns) by direction: a
    switch is a step that crossed 1 <-> more."""
    return {d: stats([int(r["switch_ns"]) for r in plinux
                      if r["switched"] == "1" and r["switch_ns"]
                      and (int(r["to"]) > 1) == (d == "up-smp")])
            for d in ("up-smp", "smp-up")}


def linux_rows(linux, plinux, work, labels):
    """The summary's Linux rows: vcpu-set until online for the stock guest
    (kernel alone, user-space onlining) and the patched one, the switch
    against a CPU offline, the guest's reaction, the fork loop in UP and
    SMP code (work_rows)."""
    table = []
    lsw = linux_switch_stats(plinux)
    patched = labels["patched"]
    for variant, label in (("kernel", labels["stock_kernel"]),
                           ("user", labels["stock_user"])):
        for t in TRANSITIONS:
            rows = [r for r in linux
                    if r["variant"] == variant and transition(r) == t]
            table.append(("%s %s" % (label, t), linux_row_text(rows)))
    boots = [float(r["latency_s"]) for r in linux if r["from"] == "boot"]
    if boots:
        table.append((labels["stock_boot"],
                      ", ".join(fmt_s(b) for b in boots)))
    table += linux_smpalt_rows(patched, plinux, lsw)
    user_on = median([float(r["latency_s"]) for r in linux
                      if r["variant"] == "user" and transition(r) == "1->2"
                      and r["outcome"] == "seen"])
    patched_on = median(floats([r for r in plinux
                                if transition(r) == "1->2"], "latency_s"))
    if user_on is not None and patched_on:
        table.append((
            "  1->2 online: stock + user-space onlining / patched (medians)",
            "%.2f x (%.2f s / %.2f s)"
            % (user_on / patched_on, user_on, patched_on)))
    for t in TRANSITIONS:
        st = stats(floats([r for r in plinux if transition(r) == t],
                          "reaction_ms"))
        table.append((
            "guest reaction %s, %s (availability -> online)" % (patched, t),
            fmt_dist(st, fmt_ms) if st["n"] else NOT_MEASURED))
    return table + work_rows(work, labels)


def work_rows(work, labels):
    """The fork loop's rows: WORK holds the rounds of one patched guest and
    of the stock control of its type; LABELS names them."""
    table = []
    rates = {(sy, fo): fork_rates(work, sy, fo)
             for sy, fo in (("linux-smpalt", "up"), ("linux-smpalt", "smp"),
                            ("linux-stock", "smp"))}
    for (sy, fo), label in (
            (("linux-smpalt", "up"), "patched, UP code, 1 vCPU online"),
            (("linux-smpalt", "smp"),
             "patched, SMP code, 2 online (loop on cpu 0)"),
            (("linux-stock", "smp"), labels["stock_work"])):
        st = stats(rates[(sy, fo)])
        table.append(("%s, %s" % (labels["work"], label),
                      fmt_dist(st, fmt_rate) if st["n"] else NOT_MEASURED))
    up = median(rates[("linux-smpalt", "up")])
    smp = median(rates[("linux-smpalt", "smp")])
    stock = median(rates[("linux-stock", "smp")])
    if up and smp:
        table.append(("  patched UP code / patched SMP code (same kernel)%s"
                      % labels["which"], "%.2f x" % (up / smp)))
    if up and stock:
        table.append((
            "  patched UP code / %s%s" % (labels["stock_ratio"],
                                          labels["which"]),
            "%.2f x" % (up / stock)))
    return table


# The real programs of the Debian guest (tests/xen/bench-debian-real.sh),
# in the order the summary shows them, with what each run does.
DEBIAN_PROGRAMS = [
    ("sqlite", "sqlite3, WAL, synchronous=FULL, one INSERT a transaction"),
    ("xz", "xz -T2 -3, 1 MiB blocks"),
    ("redis", "redis-server + redis-benchmark, 5 request types"),
]


def debian_real_ms(rows, kernel, program, online):
    """The milliseconds of KERNEL's timed runs of PROGRAM with ONLINE
    vCPUs online."""
    return [float(r["ms"]) for r in rows
            if r["kernel"] == kernel and r["program"] == program
            and r["online"] == online]


def debian_real_rows(rows, status):
    """The summary's rows of the real programs: per program, the patched
    kernel's UP/SMP speed ratio (the same kernel, its two forms, the
    program pinned to CPU 0), the control's (Debian's kernel: SMP code
    with 1 or 2 vCPUs online), and the patched UP code against the
    control on one vCPU. STATUS says why nothing was measured."""
    if not rows:
        return [("Debian 13 guest, real programs (UP/SMP)",
                 "%s (%s)" % (NOT_MEASURED, status or "no run"))]
    table = []

    def cell(ms):
        st = stats(ms)
        return ("median %.2f s (%.2f..%.2f s, n=%d)"
                % (st["median"] / 1e3, st["min"] / 1e3, st["max"] / 1e3,
                   st["n"]) if st["n"] else NOT_MEASURED)

    for program, _ in DEBIAN_PROGRAMS:
        up = debian_real_ms(rows, "patched", program, "1")
        smp = debian_real_ms(rows, "patched", program, "2")
        s1 = debian_real_ms(rows, "stock", program, "1")
        s2 = debian_real_ms(rows, "stock", program, "2")
        if not (up or smp or s1 or s2):
            continue
        name = "Debian %s" % program
        table.append((name + ", patched kernel, UP code, 1 vCPU", cell(up)))
        table.append((name + ", patched kernel, SMP code, 2 online",
                      cell(smp)))
        table.append((name + ", stock kernel, 1 online", cell(s1)))
        table.append((name + ", stock kernel, 2 online", cell(s2)))
        if up and smp:
            table.append(("  %s: patched UP code / SMP code, speed (same "
                          "kernel)" % program,
                          "%.2f x" % (median(smp) / median(up))))
        if s1 and s2:
            table.append(("  %s: stock 1 online / 2 online, speed (control: "
                          "SMP code both)" % program,
                          "%.2f x" % (median(s2) / median(s1))))
        if up and s1:
            table.append(("  %s: patched UP code / stock kernel, speed, 1 "
                          "vCPU" % program,
                          "%.2f x" % (median(s1) / median(up))))
    return table


def debian_real(res, folder):
    """The real-program rows of FOLDER/bench-debian-real.csv, also written
    to RES/debian-real.csv when there are any."""
    rows = read_csv(os.path.join(folder, "bench-debian-real.csv")) or []
    if rows:
        write_csv(os.path.join(res, "debian-real.csv"), list(rows[0]), rows)
    return rows


# summary.md's line on the real-program rows, here and on a real host.
DEBIAN_NOTE = (
    "- The Debian rows: real programs pinned to CPU 0 in the Debian 13 "
    "guest, the patched kernel package in UP code (1 vCPU) and in SMP code "
    "(a second vCPU online and idle), phases alternated, then Debian's own "
    "cloud kernel of the same version the same way as the control. The "
    "programs: %s. A speed ratio is the median time of the second over the "
    "first: above 1 x the first is faster."
    % "; ".join("%s: %s" % p for p in DEBIAN_PROGRAMS))


# Every step kind the stats files cover, in this order.
STAT_TRANSITIONS = TRANSITIONS + [k for k, _ in LINUX_STEP_KINDS
                                  if k not in TRANSITIONS]
STAT_FIELDS = ["system", "transition", "n", "min", "median", "p90", "max"]


def linux_latency_stats(linux, plinux):
    """latency-stats.csv rows of the two Linux guests: the patched one per
    step kind, the stock one per variant (the changes seen only)."""
    out = []
    for t in STAT_TRANSITIONS:
        rows = [r for r in plinux if transition(r) == t]
        st = stats(floats(rows, "latency_s"))
        out.append(dict(system="linux-smpalt", transition=t, **st))
    for variant in ("kernel", "user"):
        for t in TRANSITIONS:
            rows = [r for r in linux if r["variant"] == variant
                    and transition(r) == t and r["outcome"] == "seen"]
            st = stats([float(r["latency_s"]) for r in rows])
            out.append(dict(system="linux-" + variant, transition=t, **st))
    return out


def reaction_stats(system, rows):
    """reaction-stats.csv rows of SYSTEM: each step kind it has."""
    out = []
    for t in STAT_TRANSITIONS:
        st = stats(floats([r for r in rows if transition(r) == t],
                          "reaction_ms"))
        if st["n"]:
            out.append(dict(system=system, transition=t, **st))
    return out


def table_lines(table):
    """The summary table, (measurement, result) rows, as Markdown lines."""
    width = max(len(k) for k, _ in table)
    lines = ["| %-*s | %s |" % (width, "measurement", "result"),
             "| %s | %s |" % ("-" * width, "-" * 6)]
    lines += ["| %-*s | %s |" % (width, k, v) for k, v in table]
    return lines


# run.txt's facts about the host that summary.md and the terminal show for
# a run on a real dom0 (scripts/run/bench-real.sh), in this order.
REAL_FACTS = ["date", "commit", "cpu", "cpus", "xen", "scheduler",
              "dom0_kernel", "patched", "stock", "debian", "rounds",
              "status"]


def main_real(res):
    """bench-real: the Linux rows of one run on a real dom0."""
    xen = os.path.join(res, "xen")
    facts = read_run_facts(res)
    linux = read_csv(os.path.join(xen, "bench-linux-vcpu.csv")) or []
    plinux = read_csv(os.path.join(xen, "bench-linux-smpalt.csv")) or []
    work = read_csv(os.path.join(xen, "bench-linux-work.csv")) or []
    for name, rows in (("linux-vcpu.csv", linux),
                       ("linux-smpalt-vcpu.csv", plinux),
                       ("linux-work.csv", work)):
        if rows:
            write_csv(os.path.join(res, name), list(rows[0]), rows)
    write_csv(os.path.join(res, "latency-stats.csv"), STAT_FIELDS,
              linux_latency_stats(linux, plinux))
    write_csv(os.path.join(res, "switch-stats.csv"),
              ["system", "direction", "n", "min", "median", "p90", "max"],
              [dict(system="linux-smpalt", direction=d, **s)
               for d, s in linux_switch_stats(plinux).items()])
    write_csv(os.path.join(res, "reaction-stats.csv"), STAT_FIELDS,
              reaction_stats("linux-smpalt", plinux))
    table = linux_rows(linux, plinux, work, LABELS_REAL)
    debian = debian_real(res, xen)
    if debian:
        table += debian_real_rows(debian, None)
    write_csv(os.path.join(res, "summary.csv"), ["measurement", "result"],
              [{"measurement": k.strip(), "result": v} for k, v in table])
    lines = table_lines(table)
    head = ["- %s: %s" % (k, facts[k]) for k in REAL_FACTS if k in facts]
    with open(os.path.join(res, "summary.md"), "w") as f:
        f.write("# smpalt Linux benchmarks on a real Xen host, %s\n\n"
                % facts.get("date", "unknown date"))
        f.write("\n".join(head) + "\n")
        f.write(
            "- Xen on this machine's hardware, no QEMU: hardware figures "
            "for this CPU, Xen and dom0.\n"
            "- Latencies are from just before `xl vcpu-set` in dom0 until "
            "dom0 sees the new set (patched: its data/smpalt/online, "
            "stamped by smpalt-xs-stamp; stock: the domU's console line, "
            "polled every 50 ms in the domU and 20 ms in dom0), so they "
            "include the xl command itself. Reactions are from xl's write "
            "of cpu/N/availability to the guest's write of "
            "data/smpalt/online, both stamped by one dom0 watcher.\n"
            "- The fork loop (scripts/domu/work.sh) runs pinned to cpu 0; "
            "the patched kernel's UP and SMP code are the same kernel in "
            "the same run.\n"
            + (DEBIAN_NOTE + "\n" if debian else "") +
            "- median, p90 (nearest rank), min, max over every step of "
            "that kind; CSVs next to this file.\n\n")
        f.write("\n".join(lines) + "\n")
    print("\n".join(head))
    print()
    print("\n".join(lines))
    return 0

def usage():
    print(__doc__.strip().splitlines()[2], file=sys.stderr)
    return 2


def main():
    args = sys.argv[1:]
    if args[:1] == ["--real"]:
        return main_real(args[1]) if len(args) == 2 else usage()
    if len(args) != 1:
        return usage()
    res = args[0]
    xen = os.path.join(res, "xen")
    facts = read_run_facts(res)

    guest = in_guest(res)
    write_csv(os.path.join(res, "inguest.csv"),
              ["type", "workload", "smp_ns", "up_ns",
               "up_over_smp_throughput"], guest)

    smpalt = read_csv(os.path.join(xen, "bench-vcpu.csv")) or []
    linux = read_csv(os.path.join(xen, "bench-linux-vcpu.csv")) or []
    if smpalt:
        write_csv(os.path.join(res, "smpalt-vcpu.csv"), list(smpalt[0]),
                  smpalt)
    if linux:
        write_csv(os.path.join(res, "linux-vcpu.csv"), list(linux[0]), linux)
    plinux = read_csv(os.path.join(xen, "bench-linux-smpalt.csv")) or []
    for r in plinux:
        r["kver"] = r.get("kver") or "6.1"
    # The patched Linux entries (versions, configurations, guest types) in
    # the order they ran, and each one's rows.
    kvers = list(dict.fromkeys(r["kver"] for r in plinux))
    by_kver = {v: [r for r in plinux if r["kver"] == v] for v in kvers}
    first = by_kver[kvers[0]] if kvers else []
    first_kver = kvers[0] if kvers else "6.1"
    # The fork loop: the rounds of the first entry of each type, and of the
    # stock control of the first version as each type (a file without the
    # kver column: the first entry's and its stock control's, PV).
    work = read_csv(os.path.join(xen, "bench-linux-work.csv")) or []
    for r in work:
        if not r.get("kver"):
            r["kver"] = (first_kver if r["system"] == "linux-smpalt"
                         else first_kver.partition(":")[0])
    work_kvers = list(dict.fromkeys(r["kver"] for r in work
                                    if r["system"] == "linux-smpalt"))
    stock_kvers = list(dict.fromkeys(r["kver"] for r in work
                                     if r["system"] == "linux-stock"))

    def work_of(kver):
        """KVER's fork-loop rounds and those of the stock control of its
        type."""
        return [r for r in work
                if r["kver"] == kver and r["system"] == "linux-smpalt"] + \
            [r for r in work if r["system"] == "linux-stock"
             and kver_type(r["kver"]) == kver_type(kver)]
    if plinux:
        write_csv(os.path.join(res, "linux-smpalt-vcpu.csv"), list(plinux[0]),
                  plinux)
    if work:
        write_csv(os.path.join(res, "linux-work.csv"), list(work[0]), work)
    weight = read_csv(os.path.join(xen, "bench-dom0-weight.csv")) or []

    host_last, host_loops = host_figures(res)
    host_rows = [{"metric": k, "value": v}
                 for k, v in (host_last or {}).items()]
    host_rows += [{"metric": "%s %s" % (l["name"], k), "value": l[k]}
                  for l in host_loops
                  for k in ("smp", "up", "plain", "smp_up", "up_plain")]
    write_csv(os.path.join(res, "host.csv"), ["metric", "value"], host_rows)

    # Distributions.
    lat_rows, table = [], []
    for t in TRANSITIONS:
        rows = [r for r in smpalt if transition(r) == t]
        st = stats([float(r["latency_s"]) for r in rows])
        lat_rows.append(dict(system="smpalt", transition=t, **st))
    lat_rows += [r for r in linux_latency_stats(linux, [])
                 if r["system"] != "linux-smpalt"]
    for v in kvers:
        lat_rows += [dict(r, system="linux-%s-smpalt" % v)
                     for r in linux_latency_stats([], by_kver[v])
                     if r["system"] == "linux-smpalt"]
    write_csv(os.path.join(res, "latency-stats.csv"), STAT_FIELDS, lat_rows)
    sw = {d: stats([int(r["switch_ns"]) for r in smpalt
                    if r["direction"] == d and r["switch_ns"]])
          for d in ("up-smp", "smp-up")}
    lsw = {v: linux_switch_stats(by_kver[v]) for v in kvers}
    write_csv(os.path.join(res, "switch-stats.csv"),
              ["system", "direction", "n", "min", "median", "p90", "max"],
              [dict(system="smpalt", direction=d, **s) for d, s in sw.items()]
              + [dict(system="linux-%s-smpalt" % v, direction=d, **s)
                 for v in kvers for d, s in lsw[v].items()])
    react_rows = reaction_stats("smpalt", smpalt)
    for v in kvers:
        react_rows += reaction_stats("linux-%s-smpalt" % v, by_kver[v])
    write_csv(os.path.join(res, "reaction-stats.csv"), STAT_FIELDS, react_rows)

    # Plots.
    plots = []
    if smpalt or linux or plinux:
        if plot_latency(res, smpalt, linux, first,
                        labels_tcg(first_kver, first_kver)):
            plots.append("vcpu-latency.png")
    if smpalt and plot_switch(res, smpalt):
        plots.append("switch-ns.png")
    if guest and plot_inguest(res, guest):
        plots.append("inguest.png")
    react_series = [
        (label, dx, [(transition(r), float(r["reaction_ms"])) for r in rows
                     if r.get("reaction_ms")])
        for label, dx, rows in (
            [("smpalt", -0.1, smpalt)]
            + [(series_label(v), 0.1 * (i + 1), by_kver[v])
               for i, v in enumerate(kvers)])]
    if any(pts for _, _, pts in react_series) and \
            plot_reaction(res, react_series):
        plots.append("reaction.png")
    # A bar per patched entry and form, and per stock type: "7.2:pvh UP"
    # is the PVH guest of 7.2 in UP code.
    work_medians = [
        ("%s %s" % (v, form.upper()),
         median(fork_rates([r for r in work if r["kver"] == v],
                           "linux-smpalt", form)))
        for v in work_kvers for form in ("up", "smp")]
    work_medians += [
        ("stock %s SMP" % v,
         median(fork_rates([r for r in work if r["kver"] == v],
                           "linux-stock", "smp")))
        for v in stock_kvers]
    work_medians = [(l, v) for l, v in work_medians if v is not None]
    if work_medians and plot_work(res, work_medians):
        plots.append("linux-work.png")

    # The table.
    if guest:
        table += in_guest_rows(guest)
    else:
        table.append(("in-guest UP/SMP throughput ratio, one vCPU",
                      NOT_MEASURED + " (no bench: line from the guest)"))
    missing = [w for w in GUEST_WORKLOADS
               if not any(w in g["workload"] for g in guest)]
    if guest and missing:
        table.append((
            "in-guest UP/SMP ratio per workload (%s)" % ", ".join(missing),
            NOT_MEASURED + " separately: the guest's benchmark times only "
            "the item(s) above"))
    for t in TRANSITIONS:
        rows = [r for r in smpalt if transition(r) == t]
        st = stats([float(r["latency_s"]) for r in rows])
        table.append(("smpalt vcpu-set %s latency (median)" % t,
                      fmt_dist(st, fmt_s) if st["n"] else NOT_MEASURED))
    xl = stats([float(r["xl_s"]) for r in smpalt if r.get("xl_s")])
    if xl["n"]:
        table.append(("  the xl vcpu-set command alone (overlaps the above)",
                      fmt_dist(xl, fmt_s)))
    for d, label in (("up-smp", "UP->SMP"), ("smp-up", "SMP->UP")):
        st = sw[d]
        table.append(("smpalt switch duration %s (median)" % label,
                      fmt_dist(st, lambda v: "%d ns" % v)
                      if st["n"] else NOT_MEASURED))
    for t in TRANSITIONS:
        st = stats(floats([r for r in smpalt if transition(r) == t],
                          "reaction_ms"))
        table.append((
            "guest reaction smpalt, %s (availability -> online)" % t,
            fmt_dist(st, fmt_ms) if st["n"] else NOT_MEASURED))
    # The stock guest, the first entry's patched guest and the fork loop
    # (which runs with the first entry of each type), then each other
    # entry, with its fork loop if it had one; then the loop's UP/SMP
    # ratios of each type side by side.
    table += linux_rows(linux, first, work_of(first_kver),
                        labels_tcg(first_kver, first_kver))
    for v in kvers[1:]:
        table += linux_smpalt_rows(series_label(v),
                                   by_kver[v], lsw[v])
        if v in work_kvers:
            table += work_rows(work_of(v), labels_tcg(v, first_kver))
    ratios = []
    for v in work_kvers:
        rows = [r for r in work if r["kver"] == v]
        up = median(fork_rates(rows, "linux-smpalt", "up"))
        smp = median(fork_rates(rows, "linux-smpalt", "smp"))
        if up and smp:
            ratios.append("%s %.2f x (%s)"
                          % (kver_type(v).upper(), up / smp, v))
    if len(ratios) > 1:
        table.append(("Linux fork+pipe loop, patched UP code / SMP code "
                      "(same kernel), per guest type", "; ".join(ratios)))
    table += dom0_weight_rows(weight)
    debian = debian_real(res, os.path.join(res, "debian"))
    table += debian_real_rows(debian, facts.get("debian_status"))
    if host_last:
        table.append((
            "host smp/up, up/plain, ns/site",
            "%.2f, %.2f, %.2f (make bench-host, this machine, no Xen)"
            % (host_last["smp_up"], host_last["up_plain"],
               host_last["ns_site"])))
    else:
        table.append(("host smp/up, up/plain, ns/site", NOT_MEASURED))
    if host_loops:
        table.append(("host smp/up per loop (native, same binary)",
                      ", ".join("%s %s" % (l["name"], l["smp_up"])
                                for l in host_loops)))

    lines = table_lines(table)
    write_csv(os.path.join(res, "summary.csv"), ["measurement", "result"],
              [{"measurement": k.strip(), "result": v} for k, v in table])

    date = facts.get("date", "unknown date")
    with open(os.path.join(res, "summary.md"), "w") as f:
        f.write("# smpalt benchmarks, %s\n\n" % date)
        for k in ("commit", "host", "xen_status", "debian_status",
                  "host_status"):
            if k in facts:
                f.write("- %s: %s\n" % (k, facts[k]))
        f.write(
            "- Xen 4.17 inside QEMU under TCG (no KVM): absolute times are "
            "not hardware times; compare ratios and the same kind of "
            "figure within this one run.\n")
        types = guest_types(guest)
        if types:
            f.write(
                "- In-guest rows: the smpalt kernel on one vCPU as %s%s; "
                "its SMP and UP forms alternate in the same guest, so read "
                "each type's UP/SMP ratio.%s\n"
                % (" and as ".join("a %s domU" % t.upper() for t in types),
                   ", one guest boot each in this one Xen boot, the same "
                   "kernel image" if len(types) > 1 else "",
                   " Under TCG a PVH guest runs in Xen's HVM container on "
                   "QEMU's emulation of AMD SVM, a PV guest does not: the "
                   "nanoseconds of the two types differ for the emulator's "
                   "reasons too, not only the guest's."
                   if "pvh" in types else ""))
        if debian:
            f.write(
                DEBIAN_NOTE + " They ran on Xen 4.20 in a second Xen boot "
                "of this run. QEMU translates a locked instruction into "
                "host atomics and an unlocked one into plain operations, so "
                "what a lock prefix costs here is the emulator's: make "
                "bench-real measures on a real host.\n")
        f.write(
            "- Latencies are from just before `xl vcpu-set` in dom0 until "
            "dom0 sees the new set (smpalt: a xenstore watch on "
            "data/smpalt/online; Linux: the domU's console line, polled "
            "every 50 ms in the domU and 20 ms in dom0), so they include "
            "the xl command itself. Reactions are from xl's write of "
            "cpu/N/availability to the guest's write of data/smpalt/online, "
            "both stamped by one dom0 watcher (smpalt-xs-stamp).\n"
            "- The fork loop (scripts/domu/work.sh) runs pinned to cpu 0; "
            "the stock kernel is Debian's full configuration, the patched "
            "one tinyconfig plus Xen PV: compare the patched kernel's two "
            "forms with each other first.\n"
            "- median, p90 (nearest rank), min, max over every step of "
            "that kind; CSVs next to this file.\n")
        pvh = [v for v in kvers + work_kvers + stock_kvers
               if kver_type(v) != "pv"]
        if pvh:
            f.write(
                "- Guest types: the rows and plot series marked \"PVH "
                "guest\" (KVERS entries %s) ran their guest as a PVH domU "
                "(type = \"pvh\", tsc_mode = \"native\"), with the same "
                "kernel and initramfs as the PV rows of that version; every "
                "other Linux row is a PV domU.\n"
                % ", ".join(dict.fromkeys(pvh)))
        f.write("\n")
        f.write("\n".join(lines) + "\n\n")
        for p in plots:
            f.write("![%s](%s)\n\n" % (p, p))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
