#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Tables and plots for dm-ressd's demo and benchmarks.

    ressd-report.py demo  <guest out dir> <results dir>
    ressd-report.py bench <guest out dir> <results dir> [--meta key=value ...]
    ressd-report.py summary <results dir>/bench.json
    ressdsetup probe --model <preset> | ressd-report.py setup-opts

"summary" prints one compact Markdown table of a benchmark run: modelled
device time of each stack per preset and workload, and dm-ressd's speed-up
over raw and over the best peer (Documentation/performance.md uses it): of
the stack ressd:setup in each row that has it, else of ressd.

"setup-opts" turns the format command a probe recommends (its "ressdsetup
format" line, or for a device it advises against, its "or format with"
line) into the target's optional arguments, the reserved size left out:
the settings of the benchmark's stack ressd:setup.

The guest scripts (tests/bench/*-guest.sh) write records.txt: lines
"REC key=value ..." (one per measured phase), "SETTINGS stack=... text",
"CONFIG key=value ...", "SKIP ...".  The demo adds trace-<stack>.txt (time,
sector, bytes of every write that reached the emulated SSD).

Figures: modelled busy time is dm-ftlsim's busy_us (virtual time: the time
the emulated device would have spent); modelled throughput = bytes the
workload moved / busy time; the lower bound = bytes the workload wrote /
the preset's sequential write bandwidth.
"""
import json
import os
import sys

# Nominal sequential write bandwidth of the presets, MB/s = bytes/us
# (Documentation: ftlsim.md).
SEQ_BW = {"ssd-a": 85.0, "ssd-b": 79.0, "ssd-c": 129.0, "sd-card": 16.4, "sd-worst": 10.0}

STACK_NAMES = {
    "raw": "ext4 (raw)",
    "ressd": "ext4 on dm-ressd",
    "writecache": "ext4 on dm-writecache",
    "writeboost": "ext4 on dm-writeboost",
    "bcache": "ext4 on bcache",
    "f2fs": "f2fs (raw)",
}
STACK_ORDER = ["raw", "ressd", "writecache", "writeboost", "bcache", "f2fs"]


def stack_key(s):
    """Sort stacks: the known ones in order, variants ("ressd:...") after their base."""
    base = s.split(":", 1)[0]
    i = STACK_ORDER.index(base) if base in STACK_ORDER else len(STACK_ORDER)
    return (i, s != base, s)


def stack_name(s):
    base, _, var = s.partition(":")
    name = STACK_NAMES.get(base, base)
    if var == "setup":
        return name + " (ressdsetup probe's settings)"
    return name + (" (%s)" % var.replace("=", " ").replace(",", ", ") if var else "")


# ressdsetup format's options that are table keys of the target.
SETUP_KEYS = ("small-write-max", "mover-batch", "dev-model", "mover-policy",
              "high-watermark", "low-watermark", "log-mode")


def setup_opts(text):
    """The target's optional arguments from a probe's recommended format
    command (backslash-continued lines), or None when it gives none."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if "ressdsetup format " in line or "(or format with " in line:
            cmd = line
            while cmd.rstrip().endswith("\\") and i + 1 < len(lines):
                i += 1
                cmd = cmd.rstrip()[:-1] + " " + lines[i]
            words = cmd.split()
            opts = []
            for k, w in enumerate(words[:-1]):
                if w.startswith("--") and w[2:] in SETUP_KEYS:
                    opts += [w[2:].replace("-", "_"), words[k + 1].rstrip(":")]
            if opts:
                return " ".join(opts)
    return None


def parse_records(path):
    recs, settings, config, skips = [], {}, {}, []
    with open(path) as f:
        for line in f:
            words = line.split()
            if not words:
                continue
            kind = words[0]
            if kind == "REC":
                r = {}
                for w in words[1:]:
                    if "=" in w:
                        k, v = w.split("=", 1)
                        r[k] = v
                recs.append(r)
            elif kind == "SETTINGS":
                stack = words[1].split("=", 1)[1]
                settings[stack] = " ".join(words[2:])
            elif kind == "CONFIG":
                for w in words[1:]:
                    if "=" in w:
                        k, v = w.split("=", 1)
                        config[k] = v
            elif kind == "SKIP":
                skips.append(" ".join(words[1:]))
    return recs, settings, config, skips


def num(r, k, default=0.0):
    try:
        return float(r.get(k, default))
    except ValueError:
        return default


def figures(r):
    """Derived figures of one REC line."""
    busy = num(r, "ftl_busy_us")
    wbytes = num(r, "user_write_bytes")
    rbytes = num(r, "user_read_bytes")
    moved = wbytes + rbytes
    host = num(r, "ftl_host_pages")
    copied = num(r, "ftl_copied_pages")
    preset = r.get("preset", "")
    d = {
        "busy_s": busy / 1e6,
        "user_write_bytes": int(wbytes),
        "user_read_bytes": int(rbytes),
        "mbps": moved / busy if busy else 0.0,
        "wa": num(r, "ftl_wa"),
        "programmed_per_user": (host + copied) * 4096 / wbytes if wbytes else 0.0,
        "erases": int(num(r, "ftl_erases")),
        "merges": int(num(r, "ftl_switch_merges") + num(r, "ftl_partial_merges")
                      + num(r, "ftl_full_merges")),
        "full_merges": int(num(r, "ftl_full_merges")),
        "gc_runs": int(num(r, "ftl_gc_runs")),
        "device_write_bytes": int(num(r, "ftl_write_bytes")),
        "device_read_bytes": int(num(r, "ftl_read_bytes")),
        "device_writes": int(num(r, "ftl_writes")),
        "wall_s": num(r, "wall_s"),
        "lower_bound_s": wbytes / SEQ_BW[preset] / 1e6 if preset in SEQ_BW else 0.0,
        "ops": int(num(r, "ops")),
        "target_mem": r.get("target_mem", "-"),
        "kmem_kib": r.get("kmem_kib", "-"),
        "stack_status": r.get("stack_status", "-"),
    }
    if d["ops"] and busy:
        d["ops_per_s"] = d["ops"] / (busy / 1e6)
    return d


def fmt(x, nd=2):
    if isinstance(x, float):
        if x == 0:
            return "0"
        if abs(x) >= 100:
            return "%.0f" % x
        if abs(x) >= 10:
            return "%.1f" % x
        return ("%%.%df" % nd) % x if abs(x) >= 0.01 else "%.2g" % x
    return str(x)


# ---------------------------------------------------------------- demo


def demo(out, res):
    recs, settings, config, _ = parse_records(os.path.join(out, "records.txt"))
    os.makedirs(res, exist_ok=True)
    by = {}
    for r in recs:
        by[(r["stack"], r["phase"])] = r
    stacks = [s for s in STACK_ORDER if (s, "work") in by]
    rows = {}
    for s in stacks:
        w = figures(by[(s, "work")])
        d = figures(by.get((s, "drained"), by[(s, "work")]))
        rows[s] = (w, d)

    lines = []
    preset = config.get("preset", "?")
    lines.append("dm-ressd demo: %s writes of 4 KiB, random, O_DIRECT, queue depth 1, on a %s MiB "
                 "ext4 file; emulated %s (dm-ftlsim, virtual time); reserved area %d MiB "
                 "(unused by raw)" % (config.get("writes", "?"), config.get("span_mib", "?"),
                                     preset, int(config.get("reserved_sectors", 0)) // 2048))
    lines.append("")
    hdr = ["", "MB/s (modelled)", "device time s", "(after workload)", "write ampl.",
           "programmed/user", "erases", "merges (full)", "device writes", "wall s"]
    tab = []
    for s in stacks:
        w, d = rows[s]
        tab.append([STACK_NAMES.get(s, s), fmt(d["mbps"], 3), fmt(d["busy_s"]),
                    fmt(w["busy_s"]), fmt(d["wa"]), fmt(d["programmed_per_user"]),
                    str(d["erases"]), "%d (%d)" % (d["merges"], d["full_merges"]),
                    str(d["device_writes"]), fmt(d["wall_s"])])
    if "raw" in rows and "ressd" in rows:
        rw, rd = rows["raw"]
        sw, sd = rows["ressd"]

        def ratio(a, b):
            return "%.2fx" % (a / b) if b else "-"
        tab.append(["dm-ressd / raw", ratio(sd["mbps"], rd["mbps"]),
                    ratio(sd["busy_s"], rd["busy_s"]), ratio(sw["busy_s"], rw["busy_s"]),
                    ratio(sd["wa"], rd["wa"]),
                    ratio(sd["programmed_per_user"], rd["programmed_per_user"]),
                    ratio(sd["erases"], rd["erases"]), ratio(sd["merges"], rd["merges"]),
                    ratio(sd["device_writes"], rd["device_writes"]),
                    ratio(sd["wall_s"], rd["wall_s"])])
    widths = [max(len(str(row[i])) for row in [hdr] + tab) for i in range(len(hdr))]
    for row in [hdr] + tab:
        lines.append("  ".join(str(c).rjust(widths[i]) if i else str(c).ljust(widths[i])
                               for i, c in enumerate(row)))
    lines.append("")
    lines.append("MB/s = bytes the workload wrote / modelled device time including the drain "
                 "(dm-ressd's mover work is included: 'device time' is measured after "
                 "'dmsetup message ressd 0 drain'; '(after workload)' is the time before it).")
    if "ressd" in rows:
        lb = rows["ressd"][1]["lower_bound_s"]
        lines.append("Lower bound for these bytes at %s's sequential bandwidth: %.2f s." % (preset, lb))
        st = rows["ressd"][1]["stack_status"].split(",")
        if len(st) >= 10:
            lines.append("dm-ressd status after drain: redirected %s, direct %s, moved %s blocks in "
                         "%s writes, %s metadata commits, index %s bytes." %
                         (st[3], st[4], st[6], st[7], st[8], st[2]))
    png = plot_demo(out, res, stacks, config)
    if png:
        lines.append("LBA over time of the writes reaching the emulated SSD: %s" % png)
    text = "\n".join(lines) + "\n"
    with open(os.path.join(res, "demo.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(res, "demo.json"), "w") as f:
        json.dump({"config": config, "settings": settings,
                   "results": {s: {"after_workload": rows[s][0], "after_drain": rows[s][1]}
                               for s in stacks}}, f, indent=1)
    sys.stdout.write(text)


def load_trace(path):
    t, lba, size = [], [], []
    try:
        with open(path) as f:
            for line in f:
                w = line.split()
                if len(w) == 3:
                    t.append(float(w[0]))
                    lba.append(int(w[1]))
                    size.append(int(w[2]))
    except OSError:
        pass
    return t, lba, size


def plot_demo(out, res, stacks, config):
    return plot_lba({s: os.path.join(out, "trace-%s.txt" % s) for s in stacks},
                    int(config.get("disk_sectors", 0)), int(config.get("reserved_sectors", 0)),
                    config.get("preset", ""), os.path.join(res, "demo-lba.png"))


def plot_lba(paths, disk, rsv, preset, png):
    """LBA over time of the traced writes, one panel per stack; returns the PNG's path."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is missing: no plot", file=sys.stderr)
        return None
    traces = {s: load_trace(p) for s, p in paths.items()}
    traces = {s: v for s, v in traces.items() if v[0]}
    if not traces:
        return None
    fig, axes = plt.subplots(1, len(traces), figsize=(6 * len(traces), 4.5), squeeze=False)
    for ax, (s, (t, lba, size)) in zip(axes[0], traces.items()):
        t0 = t[0]
        home_lim = (disk - rsv) if disk and rsv else None
        groups = {}
        for x, y, z in zip(t, lba, size):
            where = "reserved area" if home_lim is not None and y >= home_lim else "home"
            kind = "<= 8 KiB" if z <= 8192 else "> 8 KiB"
            groups.setdefault((where, kind), []).append((x - t0, y * 512 / 2**20))
        colors = {("home", "<= 8 KiB"): "tab:red", ("home", "> 8 KiB"): "tab:purple",
                  ("reserved area", "<= 8 KiB"): "tab:green",
                  ("reserved area", "> 8 KiB"): "tab:blue"}
        for key in sorted(groups):
            pts = groups[key]
            ax.scatter(*zip(*pts), s=1 if key[1] == "<= 8 KiB" else 3, c=colors[key],
                       label="%s, %s (%d)" % (key[0], key[1], len(pts)), rasterized=True)
        if disk and rsv:
            ax.axhspan((disk - rsv) * 512 / 2**20, disk * 512 / 2**20, color="0.9", zorder=0)
        ax.set_title("%s: %d writes to the emulated %s" % (STACK_NAMES.get(s, s), len(t), preset))
        ax.set_xlabel("guest wall time since the first write (s)")
        ax.set_ylabel("address on the device (MiB)")
        ax.legend(loc="upper right", fontsize=7, markerscale=4)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return os.path.abspath(png)


# ---------------------------------------------------------------- bench

WORKLOAD_NAMES = {
    "randw4k": "fio 4 KiB random write",
    "hotw4k": "fio 4 KiB random write, 90 % to a tenth",
    "mixed": "fio 4 KiB random 70/30 read/write",
    "postmark": "Postmark",
    "sqlite": "sqlite3 small transactions (fsync)",
}
WORKLOAD_ORDER = ["randw4k", "hotw4k", "mixed", "postmark", "sqlite"]


def bench(out, res, meta):
    recs, settings, config, skips = parse_records(os.path.join(out, "records.txt"))
    os.makedirs(res, exist_ok=True)
    cells = {}
    sweeps = [r for r in recs if "sweep" in r]
    for r in recs:
        if "sweep" in r:
            continue
        key = (r["preset"], r["workload"], r["stack"])
        cells.setdefault(key, {})[r["phase"]] = r
    presets = sorted({k[0] for k in cells}, key=lambda p: list(SEQ_BW).index(p) if p in SEQ_BW else 99)
    data = {"meta": meta, "config": config, "settings": settings, "skipped": skips, "results": []}
    md = []
    md.append("# dm-ressd benchmark results\n")
    for k in sorted(meta):
        md.append("- %s: %s" % (k, meta[k]))
    for k in sorted(config):
        md.append("- %s: %s" % (k, config[k]))
    md.append("")
    md.append("Modelled figures from dm-ftlsim (virtual time). `device s` = modelled busy time "
              "after the workload **and** after writing everything home (dm-ressd drain, "
              "writecache/writeboost/bcache write-back of all dirty blocks); `(workload)` = busy "
              "time when the workload ended (after sync); `MB/s` = bytes the workload read+wrote / "
              "`device s`; `x raw` = raw's device time / this stack's (higher is better); "
              "`lower bound` = bytes written / the preset's sequential bandwidth; `WA` = "
              "ftlsim's (host + copied pages) / host pages; `prog/user` = pages programmed "
              "(host + copies) / bytes the workload wrote; wall = guest wall time under "
              "emulation (not a performance figure).\n")
    for p in presets:
        md.append("## %s\n" % p)
        for wl in WORKLOAD_ORDER:
            stacks = sorted({k[2] for k in cells if k[0] == p and k[1] == wl}, key=stack_key)
            if not stacks:
                continue
            md.append("### %s\n" % WORKLOAD_NAMES.get(wl, wl))
            md.append("| stack | device s | (workload) | x raw | MB/s | ops/s | lower bound s | WA | "
                      "prog/user | erases | full merges | gc runs | user MB written | device MB written | wall s | target memory |")
            md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
            rawd = None
            if (p, wl, "raw") in cells and "drained" in cells[(p, wl, "raw")]:
                rawd = figures(cells[(p, wl, "raw")]["drained"])
            for s in stacks:
                ph = cells[(p, wl, s)]
                if "drained" not in ph or "work" not in ph:
                    md.append("| %s | incomplete | | | | | | | | | | | | | | |" % stack_name(s))
                    continue
                w = figures(ph["work"])
                d = figures(ph["drained"])
                speed = rawd["busy_s"] / d["busy_s"] if rawd and d["busy_s"] else 0.0
                d["speedup_vs_raw"] = speed
                data["results"].append({"preset": p, "workload": wl, "stack": s,
                                        "after_workload": w, "after_drain": d})
                mem = d["target_mem"]
                if mem not in ("-", ""):
                    mem = "%.1f KiB index" % (int(mem) / 1024)
                md.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %d | %d | %d | %.1f | %.1f | %s | %s |" % (
                    stack_name(s), fmt(d["busy_s"]), fmt(w["busy_s"]),
                    "%.2f" % speed if speed else "-", fmt(d["mbps"], 3),
                    fmt(d.get("ops_per_s", 0.0)) if d.get("ops") else "-",
                    fmt(d["lower_bound_s"]), fmt(d["wa"]), fmt(d["programmed_per_user"]),
                    d["erases"], d["full_merges"], d["gc_runs"], d["user_write_bytes"] / 1e6,
                    d["device_write_bytes"] / 1e6, fmt(d["wall_s"]), mem))
            md.append("")
    if skips:
        md.append("## Not measured\n")
        for s in skips:
            md.append("- " + s)
        md.append("")
    md.extend(sweep_tables(cells, sweeps, config, data, res))
    lba = []
    for p in presets:
        png = plot_lba({s: os.path.join(out, "trace-%s-%s.txt" % (p, s)) for s in ("raw", "ressd")},
                       int(config.get("disk_mib", 0)) * 2048, int(config.get("reserved_mib", 0)) * 2048,
                       p, os.path.join(res, "bench-lba-%s.png" % p))
        if png:
            lba.append(os.path.basename(png))
    if lba:
        md.append("LBA over time of the writes reaching the emulated SSD during fio 4 KiB random "
                  "writes (and the drain after them), raw against dm-ressd: " + ", ".join(lba) + "\n")
    md.append("## Settings of each stack\n")
    for s in sorted(settings, key=stack_key):
        md.append("- **%s**: %s" % (stack_name(s), settings[s]))
    md.append("")
    pngs = plot_bench(data, res)
    if pngs:
        md.append("Plots: " + ", ".join(os.path.basename(x) for x in pngs))
        md.append("")
    with open(os.path.join(res, "bench.md"), "w") as f:
        f.write("\n".join(md))
    with open(os.path.join(res, "bench.json"), "w") as f:
        json.dump(data, f, indent=1)
    print("\n".join(md))


def sweep_tables(cells, sweeps, config, data, res):
    """The sweeps of the reserved size and of N (fio 4 KiB random writes)."""
    md = []
    by = {}
    for r in sweeps:
        if r.get("phase") == "drained":
            by.setdefault(r["preset"], []).append(r)
    span = float(config.get("fio_span_mib", 0)) or 1.0
    main_r = float(config.get("reserved_mib", 0))
    plots = {}
    for p in sorted(by, key=lambda p: list(SEQ_BW).index(p) if p in SEQ_BW else 99):
        raw = cells.get((p, "randw4k", "raw"), {}).get("drained")
        ressd = cells.get((p, "randw4k", "ressd"), {}).get("drained")
        rawd = figures(raw) if raw else None
        md.append("## %s: sweeps (fio 4 KiB random write, %d MiB file)\n" % (p, span))
        md.append("Reserved area as a share of the file the workload writes in (raw does not "
                  "use it: its figure is the main run's).\n")
        md.append("| reserved MiB | % of file | dm-ressd device s | x raw | WA | full merges | erases |")
        md.append("|---|---|---|---|---|---|---|")
        rows = []
        for r in by[p]:
            if r["sweep"].startswith("reserved=") and r["stack"] == "ressd":
                rows.append((int(r["sweep"].split("=")[1]) / 2048.0, figures(r)))
        if ressd:
            rows.append((main_r, figures(ressd)))
        pts = []
        for mib, d in sorted(rows, key=lambda x: x[0]):
            x = rawd["busy_s"] / d["busy_s"] if rawd and d["busy_s"] else 0.0
            pts.append((100.0 * mib / span, x))
            md.append("| %.2f | %.1f | %s | %s | %s | %d | %d |" % (
                mib, 100.0 * mib / span, fmt(d["busy_s"]), "%.2f" % x if x else "-",
                fmt(d["wa"]), d["full_merges"], d["erases"]))
            data.setdefault("sweeps", []).append({"preset": p, "sweep": "reserved", "reserved_mib": mib,
                                                  "ressd": d, "speedup_vs_raw": x})
        plots[(p, "reserved")] = pts
        md.append("")
        nrows = {}
        for r in by[p]:
            if r["sweep"].startswith("open_logs="):
                nrows.setdefault(int(r["sweep"].split("=")[1]), {})[r["stack"]] = figures(r)
        if nrows:
            md.append("Number of open log blocks N of the emulated device (the main run uses the "
                      "preset's own N), reserved area %.0f MiB.\n" % main_r)
            md.append("| N | raw device s | dm-ressd device s | x raw | raw WA | dm-ressd WA |")
            md.append("|---|---|---|---|---|---|")
            pts = []
            for n in sorted(nrows):
                a, b = nrows[n].get("raw"), nrows[n].get("ressd")
                if not a or not b:
                    md.append("| %d | incomplete | | | | |" % n)
                    continue
                x = a["busy_s"] / b["busy_s"] if b["busy_s"] else 0.0
                pts.append((n, x))
                md.append("| %d | %s | %s | %.2f | %s | %s |" % (n, fmt(a["busy_s"]), fmt(b["busy_s"]),
                                                              x, fmt(a["wa"]), fmt(b["wa"])))
                data.setdefault("sweeps", []).append({"preset": p, "sweep": "open_logs", "open_logs": n,
                                                      "raw": a, "ressd": b, "speedup_vs_raw": x})
            plots[(p, "N")] = pts
            md.append("")
    if plots:
        png = plot_sweeps(plots, os.path.join(res, "bench-sweeps.png"))
        if png:
            md.append("Plot: %s\n" % os.path.basename(png))
    return md


def plot_sweeps(plots, png):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for (p, kind), pts in sorted(plots.items()):
        if not pts:
            continue
        ax = axes[0] if kind == "reserved" else axes[1]
        ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=p)
    axes[0].set_xlabel("reserved area, % of the file written")
    axes[1].set_xlabel("open log blocks N of the device")
    axes[1].set_xscale("log", base=2)
    for ax in axes:
        ax.set_ylabel("dm-ressd speed-up over raw (device time)")
        ax.axhline(1, color="k", lw=0.8, ls="--")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)
    return png


def plot_bench(data, res):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is missing: no plots", file=sys.stderr)
        return []
    pngs = []
    presets = sorted({r["preset"] for r in data["results"]})
    for p in presets:
        wls = [w for w in WORKLOAD_ORDER if any(r["preset"] == p and r["workload"] == w
                                                 for r in data["results"])]
        fig, axes = plt.subplots(1, len(wls), figsize=(4.2 * len(wls), 4), squeeze=False)
        for ax, wl in zip(axes[0], wls):
            rs = [r for r in data["results"] if r["preset"] == p and r["workload"] == wl]
            rs.sort(key=lambda r: stack_key(r["stack"]))
            names = [r["stack"] for r in rs]
            drained = [r["after_drain"]["busy_s"] for r in rs]
            work = [r["after_workload"]["busy_s"] for r in rs]
            x = range(len(rs))
            ax.bar(x, drained, color="tab:orange", label="incl. write-back/drain")
            ax.bar(x, work, color="tab:blue", label="when the workload ended")
            lb = rs[0]["after_drain"]["lower_bound_s"] if rs else 0
            if lb:
                ax.axhline(lb, color="k", ls="--", lw=1, label="lower bound")
            ax.set_xticks(list(x))
            ax.set_xticklabels(names, rotation=30, fontsize=8)
            ax.set_ylabel("modelled device time (s)")
            ax.set_title("%s: %s" % (p, WORKLOAD_NAMES.get(wl, wl)), fontsize=9)
            ax.legend(fontsize=7)
        fig.tight_layout()
        png = os.path.join(res, "bench-%s.png" % p)
        fig.savefig(png, dpi=100)
        plt.close(fig)
        pngs.append(png)
    return pngs


def summary(path):
    with open(path) as f:
        data = json.load(f)
    cells = {}
    for r in data["results"]:
        cells[(r["preset"], r["workload"], r["stack"])] = r["after_drain"]["busy_s"]
    stacks = sorted({k[2] for k in cells}, key=stack_key)
    peers = [s for s in stacks if s.split(":")[0] in ("writecache", "writeboost", "bcache", "f2fs")]
    def ours(p, wl):
        return "ressd:setup" if (p, wl, "ressd:setup") in cells else "ressd"
    def short(s):
        base, _, var = s.partition(":")
        return base + (" (%s)" % var.replace(",", ", ") if var else "")
    print("| preset | workload | " + " | ".join(short(s) for s in stacks) +
          " | dm-ressd x raw | dm-ressd x best peer |")
    print("|---|---|" + "---|" * len(stacks) + "---|---|")
    presets = sorted({k[0] for k in cells}, key=lambda p: list(SEQ_BW).index(p) if p in SEQ_BW else 99)
    for p in presets:
        for wl in WORKLOAD_ORDER:
            row = [cells.get((p, wl, s)) for s in stacks]
            if not any(row):
                continue
            raw, ressd = cells.get((p, wl, "raw")), cells.get((p, wl, ours(p, wl)))
            best = min([cells[(p, wl, s)] for s in peers if (p, wl, s) in cells] or [0])
            print("| %s | %s | %s | %s | %s |" % (
                p, WORKLOAD_NAMES.get(wl, wl),
                " | ".join(fmt(x) if x is not None else "-" for x in row),
                "%.2f" % (raw / ressd) if raw and ressd else "-",
                "%.2f" % (best / ressd) if best and ressd else "-"))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "summary":
        summary(sys.argv[2])
        return
    if len(sys.argv) == 2 and sys.argv[1] == "setup-opts":
        opts = setup_opts(sys.stdin.read())
        if not opts:
            sys.exit(1)
        print(opts)
        return
    if len(sys.argv) < 4 or sys.argv[1] not in ("demo", "bench"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    if sys.argv[1] == "demo":
        demo(sys.argv[2], sys.argv[3])
    else:
        meta = {}
        for a in sys.argv[4:]:
            if a.startswith("--meta="):
                a = a[len("--meta="):]
            if "=" in a:
                k, v = a.split("=", 1)
                meta[k] = v
        bench(sys.argv[2], sys.argv[3], meta)


if __name__ == "__main__":
    main()
