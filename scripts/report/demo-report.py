#!/usr/bin/env python3
"""Plot and summarise one `make demo` run (scripts/run/run-demo-autoscale.sh).

Usage: scripts/report/demo-report.py DEMO_DIR

Reads the samples dom0 took once a second and the autoscaler's log:
DEMO_DIR/xen/demo-autoscale.csv (the smpalt guest:
t_s,vcpus,mode,load,throughput,phase,switches; load is what the guest
publishes) or DEMO_DIR/xen/demo-autoscale-linux.csv (the patched Linux
guest, make demo GUEST=linux: t_s,vcpus,mode,xen_load,phase,switches; load
is Xen's CPU accounting, the guest publishes neither load nor
throughput). Writes DEMO_DIR/demo.csv (a copy), demo.png (gnuplot: load on
the left axis with the autoscaler's scale-up and scale-down thresholds for
the vCPU count of each moment, vCPUs on the right, SMP mode as a shaded
band, phases marked, throughput below when the guest publishes it;
legends outside the data), summary.txt, and prints the summary. The
package versions of the run (DEMO_DIR/xen/versions.txt, from
scripts/build/fetch-xen.sh) go into the summary; the guest's Linux version
and type (DEMO_DIR/guest.txt: kver=, type=; 6.1 and pv when it is
missing) into the titles.
"""
import csv
import os
import re
import shutil
import subprocess
import sys

# The dom0 demo of each guest (scripts/dom0/<name>.sh), by the samples'
# file it sends back.
SCENARIOS = ("demo-autoscale", "demo-autoscale-linux")
NO_THROUGHPUT = "not published by the Linux guest"
PLOT_DATA = "demo-plot.dat"
DECISION_DATA = "demo-decisions.dat"
CS_PER_SEC = 100.0
# Decision lines of smpalt-autoscaler: "... vcpus 1 -> 2: over-high: ..."
DECISION = re.compile(r"^\[\s*([0-9.]+)\] .*: load (\d+)%, vcpus (\d+) -> "
                      r"(\d+): ([a-z-]+):")


def read_samples(path):
    """The rows, and whether they carry Xen's load (the Linux guest's demo:
    xen_load, no throughput; tput is None) or the guest's own."""
    rows = []
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        xen_load = "xen_load" in (reader.fieldnames or [])
        for r in reader:
            try:
                rows.append({
                    "t": float(r["t_s"]),
                    "vcpus": int(r["vcpus"]),
                    "mode": r["mode"],
                    "load": int(r["xen_load" if xen_load else "load"]),
                    "tput": None if xen_load else int(r["throughput"]),
                    "phase": r["phase"],
                    "switches": int(r["switches"]),
                })
            except (KeyError, ValueError):
                continue  # a key (or Xen's first figure) not there yet
    return rows, xen_load


def thresholds(meta):
    """(high %, low %) of the autoscaler's command line in the metadata."""
    args = meta.get("autoscaler", "").split()
    found = {}
    for opt in ("--high", "--low"):
        if opt in args and args.index(opt) + 1 < len(args):
            try:
                found[opt] = int(args[args.index(opt) + 1])
            except ValueError:
                pass
    return found.get("--high"), found.get("--low")


def read_meta(path):
    """key=value lines the dom0 demo writes (demo-autoscale.meta)."""
    meta = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                k, sep, v = line.strip().partition("=")
                if sep:
                    meta[k] = v
    return meta


def read_decisions(path, offset_s):
    """(t since the profile started, load, from, to, why) per decision."""
    out = []
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            m = DECISION.match(line.strip())
            if m:
                out.append((float(m.group(1)) + offset_s, int(m.group(2)),
                            int(m.group(3)), int(m.group(4)), m.group(5)))
    return out


def phases_of(rows):
    """[(name, t_start, t_end, [rows])] in order, consecutive runs."""
    out = []
    for i, r in enumerate(rows):
        t_end = rows[i + 1]["t"] if i + 1 < len(rows) else r["t"] + 1.0
        if out and out[-1][0] == r["phase"]:
            out[-1][2] = t_end
            out[-1][3].append(r)
        else:
            out.append([r["phase"], r["t"], t_end, [r]])
    return out


def mean(xs):
    return sum(xs) / len(xs) if xs else 0.0


def summarise(rows, decisions, result, meta, versions, xen_load, facts):
    lines = []
    dur = rows[-1]["t"] - rows[0]["t"] + 1.0
    t_mode = {"up": 0.0, "smp": 0.0}
    for i, r in enumerate(rows):
        dt = (rows[i + 1]["t"] - r["t"]) if i + 1 < len(rows) else 1.0
        t_mode[r["mode"]] = t_mode.get(r["mode"], 0.0) + dt
    changes = []
    for a, b in zip(rows, rows[1:]):
        if b["vcpus"] != a["vcpus"]:
            changes.append((b["t"], a["vcpus"], b["vcpus"], b["mode"]))
    ups = [d for d in decisions if d[3] > d[2]]
    downs = [d for d in decisions if d[3] < d[2]]
    switches = rows[-1]["switches"] - rows[0]["switches"]
    if xen_load:
        lines.append("smpalt demo, patched Linux %s %s guest: %d samples "
                     "over %.0f s (guest vcpus=1, maxvcpus=4, "
                     "smpalt-autoscaler --signal xen)"
                     % (facts["kver"], facts["type"], len(rows), dur))
    else:
        lines.append("smpalt demo, %s guest: %d samples over %.0f s (guest "
                     "vcpus=1, maxvcpus=4, smpalt-autoscaler)"
                     % (facts["type"], len(rows), dur))
    if meta:
        lines.append("profile: %s; autoscaler %s" % (
            meta.get("profile", "?"), meta.get("autoscaler", "?")))
    high, low = thresholds(meta)
    if high is not None and low is not None:
        lines.append("thresholds: scale up above %d%% x vCPUs, down below "
                     "%d%% x vCPUs (load in %% of one vCPU)" % (high, low))
    if xen_load:
        lines.append("load: Xen's CPU accounting of the guest's vCPUs (the "
                     "autoscaler's xen_load, mean of each second); "
                     "throughput: " + NO_THROUGHPUT)
    if versions:
        lines.append("packages: " + "; ".join(
            "%s %s" % (k, versions[k]) for k in
            ("xen", "xen_tools", "dom0_kernel", "qemu") if k in versions))
    if result:
        lines.append("result: %s" % result)
    lines.append("autoscaler decisions: %d scale-up, %d scale-down"
                 % (len(ups), len(downs)))
    for t, load, a, b, why in decisions:
        lines.append("    autoscaler t=%5.1f s: load %3d%%, vcpus %d -> %d "
                     "(%s)" % (t, load, a, b, why))
    lines.append("vCPU count changes seen by dom0: %d; max vCPUs %d"
                 % (len(changes), max(r["vcpus"] for r in rows)))
    for t, a, b, mode in changes:
        lines.append("    t=%5.1f s: %d -> %d vCPUs, mode %s" % (t, a, b, mode))
    lines.append("UP<->SMP switches in the guest: %d" % switches)
    lines.append("time in UP: %.0f s (%.0f%%), in SMP: %.0f s (%.0f%%)"
                 % (t_mode["up"], 100 * t_mode["up"] / dur, t_mode["smp"],
                    100 * t_mode["smp"] / dur))
    lines.append("per phase (mean over its samples; TCG: not hardware "
                 "speeds):")
    head = "    %-8s %7s %9s %7s %6s" % (
        "phase", "seconds", "Xen load%" if xen_load else "load %",
        "vCPUs", "SMP %")
    lines.append(head + ("" if xen_load else " %16s" % "throughput/s"))
    for name, t0, t1, rs in phases_of(rows):
        line = "    %-8s %7.0f %9.0f %7.1f %6.0f" % (
            name, t1 - t0, mean([r["load"] for r in rs]),
            mean([r["vcpus"] for r in rs]),
            100 * mean([1 if r["mode"] == "smp" else 0 for r in rs]))
        if not xen_load:
            line += " %16.0f" % mean([r["tput"] for r in rs])
        lines.append(line)
    return lines


def threshold_lines(high, low):
    """gnuplot plot clauses: high% and low% of the vCPUs online, as load."""
    out = ""
    if high is not None:
        out += ("     '' using 1:($2 * %d) with steps lw 1.5 dt 2 "
                "lc rgb '#c02020' title 'scale up above %d%% x vCPUs', \\\n"
                % (high, high))
    if low is not None and low > 0:
        out += ("     '' using 1:($2 * %d) with steps lw 1.5 dt 4 "
                "lc rgb '#808080' title 'scale down below %d%% x vCPUs', "
                "\\\n" % (low, low))
    return out


# Per guest: the plot's title, what its load is, and whether a throughput
# panel goes below (the smpalt guest publishes one, the Linux guest not).
TITLE_SMPALT = ("smpalt: a Xen %(type)s guest scaled by smpalt-autoscaler "
                "while its workload profile runs\\n(Xen %(xen)s in QEMU/TCG; "
                "the guest's text is UP with one vCPU, SMP with more)")
TITLE_LINUX = ("smpalt: a patched Linux %(kver)s %(type)s guest scaled by "
               "smpalt-autoscaler on Xen's CPU accounting while busy loops "
               "run in phases\\n(Xen %(xen)s in QEMU/TCG; the kernel text is "
               "UP with one vCPU, SMP with more; throughput: %(none)s)")


def guest_facts(out_dir, versions):
    """The guest's Linux version, type and Xen's version, for the titles
    and the summary (runs from before guest.txt: Linux 6.1, PV)."""
    guest = read_meta(os.path.join(out_dir, "guest.txt"))
    xen = re.search(r"\d+\.\d+", versions.get("xen", "")) if versions else None
    return {"kver": guest.get("kver", "6.1"),
            "type": guest.get("type", "pv").upper(),
            "xen": xen.group(0) if xen else "4.17",
            "none": NO_THROUGHPUT}
BOTTOM_SMPALT = """# --- bottom: throughput
unset arrow
unset label
set size 1,0.30
set origin 0,0
set tmargin 1
set xlabel 'time since the profile started (s)'
set ylabel 'k items/s'
set yrange [0:%(tputmax).1f]
unset y2label
unset y2tics
unset key
set title 'throughput: work items/s (data/smpalt/throughput)' offset 0,-0.5
plot '%(data)s' using 1:($5 / 1000) with lines lw 2 lc rgb '#7030a0' notitle
"""


def plot(rows, decisions, out_dir, meta, xen_load, facts):
    vmax = max(4, max(r["vcpus"] for r in rows))
    high, low = thresholds(meta)
    lmax = max(100, max(r["load"] for r in rows))
    if high is not None:
        lmax = max(lmax, high * max(r["vcpus"] for r in rows))
    lmax = (lmax // 100 + 1) * 100
    with open(os.path.join(out_dir, PLOT_DATA), "w") as f:
        f.write("# t vcpus smp load throughput\n")
        for r in rows:
            f.write("%.2f %d %d %d %d\n" % (r["t"], r["vcpus"],
                                            1 if r["mode"] == "smp" else 0,
                                            r["load"], r["tput"] or 0))
    with open(os.path.join(out_dir, DECISION_DATA), "w") as f:
        f.write("# t new-vcpus (autoscaler decisions)\n")
        for d in decisions:
            f.write("%.2f %d\n" % (d[0], d[3]))
        if not decisions:
            f.write("-1 -1\n")  # an empty file would stop gnuplot
    labels = []
    for name, t0, _t1, _rs in phases_of(rows):
        labels.append("set arrow from %.2f, graph 0 to %.2f, graph 1 "
                      "nohead dt 3 lc rgb '#888888' back" % (t0, t0))
        labels.append("set label '%s' at %.2f, graph 0.96 offset 0.4,0 "
                      "font ',10' tc rgb '#444444'" % (name, t0))
    tmax = rows[-1]["t"] + 4  # room for the last phase's label
    script = """
set terminal pngcairo size 1100,720 font ',11'
set output 'demo.png'
set datafile separator ' '
set multiplot layout 2,1 title "%(title)s"
set lmargin 10
set rmargin 10
set xrange [0:%(tmax).1f]
set grid xtics ytics lc rgb '#dddddd'
# --- top: load, vCPUs, mode
set size 1,%(top_size).2f
set origin 0,%(top_origin).2f
set tmargin 4
set ylabel "%(ylabel)s"
set yrange [0:%(lmax)d]
set y2label 'vCPUs online'
# Two vCPUs of headroom: the vCPU steps must not lie on the threshold lines.
set y2range [0:%(vmax1)d]
set y2tics 1
set ytics nomirror
set xlabel '%(top_xlabel)s'
set key outside bottom center horizontal maxrows 2 samplen 2 spacing 1
%(labels)s
plot '%(data)s' using 1:($3 * %(lmax)d) with fillsteps fs transparent solid 0.18 noborder lc rgb '#e06020' title 'mode smp (shaded; white: up)', \\
%(thresholds)s     '' using 1:4 with lines lw 2 lc rgb '#2060c0' title "%(load_title)s", \\
     '' using 1:2 axes x1y2 with steps lw 3 lc rgb '#109030' title 'vCPUs online (right axis)', \\
     '%(dec)s' using 1:2 axes x1y2 with points pt 9 ps 1.6 lc rgb '#109030' title 'autoscaler decision (new count)'
%(bottom)s
unset multiplot
"""
    fields = {"tmax": tmax, "lmax": lmax, "vmax1": vmax + 2,
              "labels": "\n".join(labels), "data": PLOT_DATA,
              "dec": DECISION_DATA, "thresholds": threshold_lines(high, low)}
    if xen_load:
        fields.update({
            "title": TITLE_LINUX % facts, "top_size": 0.94, "top_origin": 0.02,
            "top_xlabel": "time since the profile started (s)",
            "ylabel": "load (% of one vCPU, Xen's CPU accounting)",
            "load_title": "load: Xen's CPU accounting (--signal xen)",
            "bottom": ""})
    else:
        fields.update({
            "title": TITLE_SMPALT % facts, "top_size": 0.64, "top_origin": 0.31,
            "top_xlabel": "",
            "ylabel": "load (% of one vCPU)",
            "load_title": "load (data/smpalt/load)",
            "bottom": BOTTOM_SMPALT % {
                "data": PLOT_DATA,
                "tputmax": max(1, max(r["tput"] for r in rows)) * 1.25
                / 1000}})
    script = script % fields
    try:
        subprocess.run(["gnuplot"], input=script, text=True, cwd=out_dir,
                       check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        err = getattr(e, "stderr", "") or str(e)
        print("demo-report: gnuplot failed: %s" % err.strip(),
              file=sys.stderr)
        return False
    return True


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out_dir = sys.argv[1]
    xen = os.path.join(out_dir, "xen")
    scenario = next((s for s in SCENARIOS
                     if os.path.exists(os.path.join(xen, s + ".csv"))),
                    SCENARIOS[0])
    src = os.path.join(xen, scenario + ".csv")
    if not os.path.exists(src):
        print("demo-report: no samples in %s (%s)" % (
            xen, ", ".join(s + ".csv" for s in SCENARIOS)), file=sys.stderr)
        return 1
    rows, xen_load = read_samples(src)
    if len(rows) < 2:
        print("demo-report: fewer than 2 samples in %s" % src,
              file=sys.stderr)
        return 1
    shutil.copyfile(src, os.path.join(out_dir, "demo.csv"))
    as_log = os.path.join(xen, scenario + "-autoscaler.log")
    if os.path.exists(as_log):
        shutil.copyfile(as_log, os.path.join(out_dir, "autoscaler.log"))
    result = ""
    log = os.path.join(xen, scenario + ".log")
    if os.path.exists(log):
        with open(log) as f:
            for line in f:
                if line.startswith("Test result: "):
                    result = line[len("Test result: "):].strip()
    meta = read_meta(os.path.join(xen, scenario + ".meta"))
    offset_s = int(meta.get("autoscaler_start_cs", "0")) / CS_PER_SEC
    decisions = read_decisions(as_log, offset_s)
    versions = read_meta(os.path.join(xen, "versions.txt"))
    facts = guest_facts(out_dir, versions)
    lines = summarise(rows, decisions, result, meta, versions, xen_load,
                      facts)
    ok = plot(rows, decisions, out_dir, meta, xen_load, facts)
    lines.append("plot: %s" % (os.path.join(out_dir, "demo.png") if ok
                               else "none (gnuplot failed)"))
    lines.append("data: %s" % os.path.join(out_dir, "demo.csv"))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out_dir, "summary.txt"), "w") as f:
        f.write(text)
    sys.stdout.write(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
