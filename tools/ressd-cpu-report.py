#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The table of the CPU overhead benchmark (make bench-cpu).

    ressd-cpu-report.py <guest out dir> <results dir> [key=value ...]

Reads <guest out dir>/records.txt and the fio JSON files it names (written
by tests/bench/cpu-guest.sh), writes <results dir>/cpu.md and cpu.json and
prints the table.  The key=value words are copied into both (date, commit,
guest, ...).

Per run: IOPS and MB/s (fio), CPU time per I/O from /proc/stat (the whole
guest, all CPUs: user + nice + system + irq + softirq ticks between just
before the first and just after the last I/O, divided by fio's I/O count),
and from fio's usr_cpu + sys_cpu (the fio job's own rusage).  Per case and
target: the median over the repetitions.  Ratios dm-ressd / dm-linear are
paired: one per repetition (both targets ran in the same fio invocation, one
right after the other), and the median of those is shown (the ratio of the
medians is in cpu.json as well).  A case with any failed or missing run
gets no ratios, and the
script exits with status 1.
"""
import json
import os
import statistics
import sys

CASES = [
    ("read_empty_qd1", "4 KiB random read, empty index, QD1 (psync)"),
    ("read_empty_qd32", "4 KiB random read, empty index, QD32 (libaio)"),
    ("seqwrite_1m", "1 MiB sequential write, QD1 (psync)"),
    ("read_full_qd1", "4 KiB random read, full index, QD1 (psync)"),
    ("read_full_qd32", "4 KiB random read, full index, QD32 (libaio)"),
    ("randwrite_qd1", "4 KiB random write, mover resumed, QD1 (psync)"),
    ("randwrite_qd32", "4 KiB random write, mover resumed, QD32 (libaio)"),
    ("randwrite_qd32_4j", "4 KiB random write, mover resumed, 4 jobs of QD32 (libaio)"),
]
CASE_TITLE = dict(CASES)
TARGETS = ["linear", "ressd", "ressd_cd", "writecache"]
TARGET_NAME = {
    "linear": "dm-linear",
    "ressd": "dm-ressd",
    "ressd_cd": "dm-ressd cd",     # + commit_delay_us of the variant (main)
    "writecache": "dm-writecache",  # the random writes, for reference (CPU_PEERS)
}
# dm-ressd's INFO fields, in order (Documentation/dm-ressd.rst).
STATUS_FIELDS = ["used_total", "mapped", "index_bytes", "redirected", "direct",
                 "split_reads", "moved_blocks", "mover_writes", "metadata_commits",
                 "mode", "full_writes", "mover_yields", "user_write_bytes", "dev_write_bytes",
                 "fill_read_bytes", "units_sparse", "units_prefix", "units_whole",
                 "copy_forwards", "far_moves", "far_dropped", "passed_writes", "log_pass",
                 "alpha_permille", "inline_log_writes", "submitter_log_writes", "density_d",
                 "worker_log_writes"]
COUNTERS = ["redirected", "direct", "split_reads", "moved_blocks", "mover_writes",
            "metadata_commits", "full_writes", "mover_yields", "inline_log_writes",
            "submitter_log_writes", "worker_log_writes"]


def parse_kv(words):
    r = {}
    for w in words:
        if "=" in w:
            k, v = w.split("=", 1)
            r[k] = v
    return r


def parse_status(s):
    """dm-ressd's status as written by the guest (comma-separated), or None."""
    if not s or s == "-":
        return None
    words = s.split(",")
    st = dict(zip(STATUS_FIELDS, words))
    used, _, total = st.get("used_total", "0/0").partition("/")
    st["used"], st["total"] = int(used), int(total or 0)
    for k in STATUS_FIELDS[1:]:
        if k != "mode" and k in st:
            st[k] = int(st[k])
    return st


def load_run(gdir, rec, clk_tck, cpus, errors):
    """One REC line with its fio JSON -> a dict of figures, or None."""
    name = "%s/%s/%s" % (rec.get("case"), rec.get("target"), rec.get("rep"))
    path = os.path.join(gdir, rec.get("fio", ""))
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        errors.append("%s: cannot read %s: %s" % (name, path, e))
        return None
    jobs = [j for j in data.get("jobs") or [] if j.get("jobname") == rec.get("target")]
    if len(jobs) != 1:
        errors.append("%s: %d fio jobs named %s in %s" % (name, len(jobs), rec.get("target"), path))
        return None
    job = jobs[0]
    if job.get("error", 1) != 0:
        errors.append("%s: fio error %s" % (name, job.get("error")))
        return None
    ddir = "write" if "write" in rec["case"] else "read"
    d = job[ddir]
    other = job["read" if ddir == "write" else "write"]
    ios = d.get("total_ios", 0)
    if ios <= 0 or other.get("total_ios", 0) != 0 or d.get("short_ios", 0) or d.get("drop_ios", 0):
        errors.append("%s: unexpected I/O counts (%s %d, other %d, short %d, dropped %d)" % (
            name, ddir, ios, other.get("total_ios", 0), d.get("short_ios", 0), d.get("drop_ios", 0)))
        return None
    runtime_ms = job.get("job_runtime") or d.get("runtime")
    busy = int(rec["stat_user"]) + int(rec["stat_sys"])
    idle = int(rec["stat_idle"])
    if busy <= 0:
        errors.append("%s: no CPU ticks counted in /proc/stat" % name)
        return None
    us_per_tick = 1e6 / clk_tck
    # /proc/stat's ticks against the elapsed time: a check of the accounting.
    elapsed = float(rec.get("stat_elapsed_s", 0))
    acct = (busy + idle + int(rec.get("stat_steal", 0))) / (elapsed * cpus * clk_tck) if elapsed > 0 else None
    run = {
        "case": rec["case"], "target": rec["target"], "rep": int(rec["rep"]),
        "ios": ios,
        "iops": d["iops"],
        "mbs": d["bw_bytes"] / 1e6,
        "runtime_ms": runtime_ms,
        "lat_us": d["lat_ns"]["mean"] / 1000.0,
        "lat_p50_us": d["clat_ns"].get("percentile", {}).get("50.000000", 0) / 1000.0,
        "lat_p99_us": d["clat_ns"].get("percentile", {}).get("99.000000", 0) / 1000.0,
        "lat_p999_us": d["clat_ns"].get("percentile", {}).get("99.900000", 0) / 1000.0,
        "cpu_us_per_io": busy * us_per_tick / ios,
        "cpu_sys_us_per_io": int(rec["stat_sys"]) * us_per_tick / ios,
        "cpus_busy": busy / float(busy + idle) if busy + idle else 0.0,
        "stat_elapsed_s": elapsed,
        "stat_accounting": acct,
        "fio_cpu_us_per_io": (job["usr_cpu"] + job["sys_cpu"]) / 100.0 * runtime_ms * 1000.0 / ios,
        "fio_usr_cpu_pct": job["usr_cpu"],
        "fio_sys_cpu_pct": job["sys_cpu"],
        "ctx_per_io": int(rec["stat_ctxt"]) / float(ios),
        "mover_csw_per_io": int(rec.get("stat_mover_csw", 0)) / float(ios),
        "intr_per_io": int(rec["stat_intr"]) / float(ios),
        "irq_ticks": int(rec.get("stat_irq", 0)), "softirq_ticks": int(rec.get("stat_softirq", 0)),
        "fio_json": rec["fio"],
    }
    st0, st1 = parse_status(rec.get("st0")), parse_status(rec.get("st1"))
    if st0 and st1:
        run["ressd_before"] = st0
        run["ressd_after"] = st1
        run["ressd_delta"] = {k: st1[k] - st0[k] for k in COUNTERS if k in st0 and k in st1}
        if st1.get("mode") != "rw":
            errors.append("%s: dm-ressd mode %s after the run" % (name, st1.get("mode")))
    if "drain_user" in rec:
        dbusy = int(rec["drain_user"]) + int(rec["drain_sys"])
        run["drain_wall_s"] = float(rec["drain_wall_s"])
        run["drain_cpu_us_per_io"] = dbusy * us_per_tick / ios
        run["cpu_us_per_io_incl_drain"] = run["cpu_us_per_io"] + run["drain_cpu_us_per_io"]
        st2 = parse_status(rec.get("st2"))
        if st2 and st1:
            run["drain_moved_blocks"] = st2["moved_blocks"] - st1["moved_blocks"]
    return run


def med(runs, key):
    vals = [r[key] for r in runs if key in r]
    return statistics.median(vals) if vals else None


def fmt(v, digits=1):
    if v is None:
        return "-"
    if isinstance(v, float) and abs(v) >= 1000:
        return "%.0f" % v
    return "%.*f" % (digits, v)


def ratio(a, b):
    return a / b if a is not None and b else None


def table(rows, header, align):
    """Markdown table lines; also usable as a fixed-width terminal table."""
    cells = [header] + rows
    w = [max(len(str(r[i])) for r in cells) for i in range(len(header))]
    out = []
    for n, r in enumerate(cells):
        out.append("| " + " | ".join(str(c).rjust(w[i]) if align[i] == "r" else str(c).ljust(w[i])
                                     for i, c in enumerate(r)) + " |")
        if n == 0:
            out.append("|" + "|".join(("-" * (w[i] + 1) + ":") if align[i] == "r" else ("-" * (w[i] + 2))
                                      for i in range(len(header))) + "|")
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    gdir, rdir = sys.argv[1], sys.argv[2]
    meta = parse_kv(sys.argv[3:])
    config, fill, recs, sqlite_recs, sqlite_st = {}, None, [], [], []
    with open(os.path.join(gdir, "records.txt")) as f:
        for line in f:
            words = line.split()
            if not words:
                continue
            if words[0] == "CONFIG":
                config.update(parse_kv(words[1:]))
            elif words[0] == "FILL":
                fill = parse_kv(words[1:])
            elif words[0] == "REC":
                recs.append(parse_kv(words[1:]))
            elif words[0] == "SQLITE":
                sqlite_recs.append(parse_kv(words[1:]))
            elif words[0] == "SQLITE_STATUS":
                sqlite_st.append(parse_kv(words[1:]))
    clk_tck = int(config.get("clk_tck", 100))
    if config.get("cd_variant", "-") != "-":
        TARGET_NAME["ressd_cd"] = "dm-ressd cd=%s" % config["cd_variant"]
    reps = int(config.get("reps", 0))
    cpus = int(config.get("cpus", 1))
    errors = []
    runs = []
    warnings = []
    for rec in recs:
        if rec.get("target") not in TARGETS:
            errors.append("unknown target %s in records.txt" % rec.get("target"))
            continue
        r = load_run(gdir, rec, clk_tck, cpus, errors)
        if r:
            runs.append(r)
            a = r["stat_accounting"]
            if a is None or not 0.8 <= a <= 1.15:
                warnings.append("%s/%s/%d: /proc/stat accounted %s of the elapsed CPU time (%.2f s x %d CPUs): "
                                "its CPU figure is doubtful" % (r["case"], r["target"], r["rep"],
                                                               "?" if a is None else "%.2f" % a,
                                                               r["stat_elapsed_s"], cpus))

    by = {}
    for r in runs:
        by.setdefault((r["case"], r["target"]), []).append(r)
    case_ids = [c for c, _ in CASES if any(k[0] == c for k in by)]
    case_ids += sorted({k[0] for k in by} - set(case_ids))
    summary = {}
    bad_cases = set()
    for c in case_ids:
        targets = [t for t in TARGETS if (c, t) in by]
        for t in targets:
            if len(by[(c, t)]) != reps:
                errors.append("%s/%s: %d of %d repetitions" % (c, t, len(by[(c, t)]), reps))
                bad_cases.add(c)
        if "linear" not in targets or "ressd" not in targets:
            errors.append("%s: dm-linear or dm-ressd runs missing" % c)
            bad_cases.add(c)
        for rec in recs:
            if rec.get("case") == c and not any(r["case"] == c and r["target"] == rec.get("target") and
                                                r["rep"] == int(rec.get("rep", -1)) for r in runs):
                bad_cases.add(c)
        summary[c] = {}
        for t in targets:
            rs = by[(c, t)]
            s = {k: med(rs, k) for k in ("iops", "mbs", "cpu_us_per_io", "fio_cpu_us_per_io", "lat_us",
                                         "lat_p50_us", "lat_p99_us", "lat_p999_us", "ctx_per_io", "mover_csw_per_io", "cpus_busy", "stat_accounting", "drain_wall_s",
                                         "drain_cpu_us_per_io", "cpu_us_per_io_incl_drain")}
            s["reps"] = len(rs)
            s["iops_each"] = [round(r["iops"]) for r in sorted(rs, key=lambda r: r["rep"])]
            s["cpu_us_per_io_each"] = [round(r["cpu_us_per_io"], 2) for r in sorted(rs, key=lambda r: r["rep"])]
            if any("ressd_delta" in r for r in rs):
                s["ressd"] = {k: med([r["ressd_delta"] for r in rs if "ressd_delta" in r], k) for k in COUNTERS}
                s["ressd"]["mapped_before"] = med([r["ressd_before"] for r in rs if "ressd_before" in r], "mapped")
                s["ressd"]["used_before"] = med([r["ressd_before"] for r in rs if "ressd_before" in r], "used")
                s["ressd"]["used_after"] = med([r["ressd_after"] for r in rs if "ressd_after" in r], "used")
                s["ressd"]["total"] = rs[0].get("ressd_after", {}).get("total")
                s["ressd"]["full_writes_sum"] = sum(r["ressd_delta"].get("full_writes", 0)
                                                    for r in rs if "ressd_delta" in r)
                s["ressd"]["drain_moved_blocks"] = med(rs, "drain_moved_blocks")
            if c not in bad_cases and t != "linear":
                lin = summary[c].get("linear") or {}
                keys = ("iops", "mbs", "cpu_us_per_io", "fio_cpu_us_per_io", "lat_us")
                s["ratio_of_medians"] = {k: ratio(s[k], lin.get(k)) for k in keys}
                lin_by_rep = {r["rep"]: r for r in by[(c, "linear")]}
                pairs = [(r, lin_by_rep[r["rep"]]) for r in sorted(rs, key=lambda r: r["rep"])
                         if r["rep"] in lin_by_rep]
                s["ratio_each"] = {k: [round(ratio(a[k], b[k]), 4) for a, b in pairs] for k in keys}
                s["ratio"] = {k: statistics.median(v) if v else None for k, v in s["ratio_each"].items()}
            summary[c][t] = s

    # ---- the main table ----
    header = ["case", "target", "IOPS", "MB/s", "CPU us/IO (guest)", "CPU us/IO (fio)", "lat us",
              "IOPS ratio", "CPU/IO ratio (guest)", "CPU/IO ratio (fio)"]
    align = "llrrrrrrrr"
    rows = []
    for c in case_ids:
        for t in TARGETS:
            s = summary[c].get(t)
            if not s:
                continue
            rt = s.get("ratio") or {}
            if t == "linear":
                rr = ["", "", ""]
            elif c in bad_cases:
                rr = ["FAILED", "FAILED", "FAILED"]
            else:
                rr = [fmt(rt.get("iops"), 3), fmt(rt.get("cpu_us_per_io"), 3), fmt(rt.get("fio_cpu_us_per_io"), 3)]
            rows.append([c if t == "linear" else "", TARGET_NAME[t], fmt(s["iops"], 0), fmt(s["mbs"], 1),
                         fmt(s["cpu_us_per_io"], 2), fmt(s["fio_cpu_us_per_io"], 2), fmt(s["lat_us"], 1)] + rr)
    main_tab = table(rows, header, align)

    # ---- dm-ressd's counters ----
    rheader = ["case", "target", "mapped before", "log used before -> after", "redirected", "inline",
               "direct", "full_writes", "moved (run)", "records", "writes/record", "drain s", "drain CPU us/IO",
               "CPU us/IO incl. drain"]
    ralign = "llrrrrrrrrrrrr"
    rrows = []
    for c in case_ids:
        for t in TARGETS[1:]:
            s = summary[c].get(t)
            if s and "ressd" not in s and s.get("drain_wall_s") is not None:
                # a peer's write-back after its run, beside dm-ressd's drain
                rrows.append([c, TARGET_NAME[t]] + ["-"] * (len(rheader) - 5) +
                             [fmt(s.get("drain_wall_s"), 2), fmt(s.get("drain_cpu_us_per_io"), 2),
                              fmt(s.get("cpu_us_per_io_incl_drain"), 2)])
                continue
            if not s or "ressd" not in s:
                continue
            x = s["ressd"]
            wpr = ratio(x["redirected"], x["metadata_commits"]) if x["redirected"] else None
            rrows.append([c, TARGET_NAME[t], fmt(x["mapped_before"], 0),
                          "%s -> %s of %s" % (fmt(x["used_before"], 0), fmt(x["used_after"], 0), x["total"]),
                          fmt(x["redirected"], 0), fmt(x.get("inline_log_writes"), 0),
                          fmt(x["direct"], 0),
                          "%s (sum %d)" % (fmt(x["full_writes"], 0), x["full_writes_sum"]),
                          fmt(x["moved_blocks"], 0), fmt(x["metadata_commits"], 0), fmt(wpr, 1),
                          fmt(s.get("drain_wall_s"), 2), fmt(s.get("drain_cpu_us_per_io"), 2),
                          fmt(s.get("cpu_us_per_io_incl_drain"), 2)])
    ressd_tab = table(rrows, rheader, ralign)

    # ---- latency ----
    lheader = ["case", "target", "mean us", "p50 us", "p99 us", "p99.9 us"]
    lrows = []
    for c in case_ids:
        for t in TARGETS:
            s = summary[c].get(t)
            if s:
                lrows.append([c if t == "linear" else "", TARGET_NAME[t], fmt(s["lat_us"], 1),
                              fmt(s["lat_p50_us"], 1), fmt(s["lat_p99_us"], 1), fmt(s["lat_p999_us"], 1)])
    lat_tab = table(lrows, lheader, "llrrrr")

    # ---- sqlite3 commits ----
    sqlite = {}
    for rec in sqlite_recs:
        t = rec.get("target")
        try:
            with open(os.path.join(gdir, rec["lat"])) as f:
                vals = [int(v) / 1000.0 for v in f.read().split()]
        except (OSError, KeyError, ValueError) as e:
            errors.append("sqlite %s/%s: %s" % (t, rec.get("rep"), e))
            continue
        if len(vals) != int(rec.get("txns", -1)):
            errors.append("sqlite %s/%s: %d of %s commits timed" % (t, rec.get("rep"), len(vals), rec.get("txns")))
            continue
        sqlite.setdefault(t, []).append(vals)

    def pct(vals, q):
        v = sorted(vals)
        return v[min(len(v) - 1, int(q * len(v)))]
    sq_rows = []
    for t in ("linear", "ressd"):
        if t not in sqlite:
            continue
        every = [v for run in sqlite[t] for v in run]
        s = {"runs": len(sqlite[t]), "commits": len(every), "mean_us": statistics.mean(every),
             "p50_us": pct(every, 0.5), "p99_us": pct(every, 0.99), "p999_us": pct(every, 0.999),
             "run_mean_us": [round(statistics.mean(r), 1) for r in sqlite[t]]}
        sqlite[t] = s
        sq_rows.append([TARGET_NAME[t], str(s["commits"]), fmt(s["mean_us"], 1), fmt(s["p50_us"], 1),
                        fmt(s["p99_us"], 1), fmt(s["p999_us"], 1),
                        " / ".join("%.0f" % v for v in s["run_mean_us"])])
    if "linear" in sqlite and "ressd" in sqlite:
        sqlite["ratio"] = {k: ratio(sqlite["ressd"][k], sqlite["linear"][k])
                           for k in ("mean_us", "p50_us", "p99_us", "p999_us")}
        r = sqlite["ratio"]
        sq_rows.append(["dm-ressd / dm-linear", "", fmt(r["mean_us"], 2), fmt(r["p50_us"], 2),
                        fmt(r["p99_us"], 2), fmt(r["p999_us"], 2), ""])
    sq_tab = table(sq_rows, ["target", "commits", "mean us", "p50 us", "p99 us", "p99.9 us",
                             "mean us per run"], "lrrrrrl") if sq_rows else []
    # What dm-ressd did per commit: its status counters over the timed runs.
    per_commit = {}
    for rec in sqlite_st:
        a, b = parse_status(rec.get("before")), parse_status(rec.get("after"))
        txns = int(rec.get("txns", 0))
        if not a or not b or not txns:
            continue
        for k in ("redirected", "direct", "metadata_commits", "inline_log_writes", "submitter_log_writes"):
            if k in a and k in b:
                per_commit.setdefault(k, []).append((b[k] - a[k]) / txns)
    if per_commit:
        sqlite["ressd_per_commit"] = {k: round(statistics.median(v), 2) for k, v in per_commit.items()}

    # ---- every repetition ----
    pheader = ["case", "target", "IOPS per repetition", "IOPS ratio per repetition",
               "CPU us/IO (guest) per repetition", "CPUs busy", "ctx/IO", "mover wakeups/IO", "/proc/stat accounted"]
    palign = "lllllrrrr"
    prows = []
    for c in case_ids:
        for t in TARGETS:
            s = summary[c].get(t)
            if s:
                prows.append([c, TARGET_NAME[t], " / ".join(str(v) for v in s["iops_each"]),
                              " / ".join("%.3f" % v for v in s.get("ratio_each", {}).get("iops", [])) or "-",
                              " / ".join("%.2f" % v for v in s["cpu_us_per_io_each"]),
                              fmt(s["cpus_busy"], 2), fmt(s["ctx_per_io"], 2), fmt(s["mover_csw_per_io"], 2),
                              fmt(s["stat_accounting"], 2)])
    rep_tab = table(prows, pheader, palign)

    cfg_words = ["%s=%s" % (k, v) for k, v in sorted(config.items())]
    lines = ["# dm-ressd CPU overhead: dm-ressd against dm-linear on a RAM disk", ""]
    for k in ("date", "commit", "guest", "host_cpu", "guest_seconds", "host_loadavg", "module_sources_sha256"):
        if k in meta:
            lines.append("- %s: %s" % (k, meta[k]))
    lines += [
        "- device: brd /dev/ram0 (%s MiB); the targets map its first %s MiB (the read/write span); "
        "dm-ressd's log is the next %s MiB (%s slots of 4 KiB)" % (
            config.get("ram_mib", int(config.get("span_mib", 0)) + int(config.get("log_mib", 0))),
            config.get("span_mib"), config.get("log_mib"), config.get("log_slots")),
        "- fio %s, O_DIRECT, %s s per run (time based), %s repetitions per case, targets interleaved "
        "(order rotated each repetition); medians shown" % (config.get("fio"), config.get("runtime_s"), reps),
        "- dm-ressd: defaults (`%s`), module parameter commit_delay_us %s%s; crc32c driver (csum_driver): %s" % (
            config.get("ressd_table", "").replace(",", " "), config.get("commit_delay_us"),
            "" if config.get("cd_variant", "-") == "-" else
            "; \"%s\" is the same target with commit_delay_us=%s during its runs" % (
                TARGET_NAME["ressd_cd"], config["cd_variant"]), config.get("crc32c", "?")),
    ]
    if config.get("writecache_table", "-") != "-":
        lines.append("- dm-writecache (random writes only, for reference): `%s`, SSD mode with its defaults "
                     "(high_watermark 50, low_watermark 45), its cache the RAM disk's last %s MiB (as large as "
                     "dm-ressd's log); after its run every dirty block is written back (flush_on_suspend, "
                     "suspend, resume), measured apart as dm-ressd's drain" % (
                         config["writecache_table"].replace(",", " "), config.get("log_mib")))
    if fill:
        fst = parse_status(fill.get("status"))
        lines.append("- full index: mover paused, then %s 4 KiB random writes (fio libaio QD%s) over the span in %s rounds: "
                     "log %s/%s slots used, %s blocks mapped (%.0f %% of the span's blocks; the reads hit about that "
                     "share in the log), index %s bytes, %s small writes went home because the log was full" % (
                         fill.get("writes"), config.get("qd"), fill.get("rounds"), fst["used"], fst["total"],
                         fst["mapped"], 100.0 * fst["mapped"] / (int(config.get("span_mib", 1)) * 256),
                         fst["index_bytes"], fst["full_writes"]))
    lines += [
        "- random writes: mover resumed (default watermarks); the log is drained before each dm-ressd run; "
        "the drain after it is measured apart (\"drain\" columns below)",
        "",
        "CPU us/IO (guest): busy ticks of all guest CPUs in /proc/stat (user + nice + system + irq + softirq) "
        "from just before the first to just after the last I/O (fio exec_prerun/exec_postrun), per I/O: "
        "includes dm-ressd's worker, mover and timers. CPU us/IO (fio): the fio job's usr_cpu + sys_cpu "
        "(its own rusage: submission and inline completion). IOPS, MB/s, CPU and latency: medians over the "
        "repetitions. Ratios dm-ressd / dm-linear: the median of the per-repetition ratios (the targets "
        "ran back to back in one fio invocation in each repetition); dm-writecache's ratios are to dm-linear "
        "too.",
        "",
    ]
    lines += main_tab + [""]
    if rrows:
        lines += ["dm-ressd counters per run (medians of the status deltas; full_writes: median, and the sum over the "
                  "repetitions); a peer's row gives its write-back after the run", ""] + ressd_tab + [""]
    lines += ["Latency (fio's completion latency, medians over the repetitions)", ""] + lat_tab + [""]
    if sq_tab:
        lines += ["sqlite3 COMMIT latency on ext4 over each target (synchronous=FULL, rollback journal: "
                  "each commit fsyncs the journal and the database; 4 rows updated and one added a "
                  "transaction; every commit of every run pooled)", ""] + sq_tab + [""]
        if "ressd_per_commit" in sqlite:
            pc = sqlite["ressd_per_commit"]
            lines += ["dm-ressd per commit (medians over the runs): " +
                      ", ".join("%s %s" % (k, fmt(v, 2)) for k, v in pc.items()), ""]
    lines += ["Every repetition", ""] + rep_tab + [""]
    if warnings:
        lines += ["## Warnings", ""] + ["- " + w for w in warnings] + [""]
    if errors:
        lines += ["## Errors", ""] + ["- " + e for e in errors] + [""]
    lines += ["Guest configuration: " + " ".join(cfg_words), ""]

    os.makedirs(rdir, exist_ok=True)
    with open(os.path.join(rdir, "cpu.md"), "w") as f:
        f.write("\n".join(lines))
    with open(os.path.join(rdir, "cpu.json"), "w") as f:
        json.dump({"meta": meta, "config": config, "fill": fill, "cases": CASE_TITLE,
                   "summary": summary, "sqlite_commit": sqlite, "runs": runs, "errors": errors, "warnings": warnings,
                   "failed_cases": sorted(bad_cases)}, f, indent=1)
    print("\n".join(main_tab))
    if rrows:
        print()
        print("\n".join(ressd_tab))
    if sq_tab:
        print()
        print("\n".join(sq_tab))
    print()
    print("\n".join(rep_tab))
    if warnings:
        print()
        print("WARNINGS:\n" + "\n".join("  " + w for w in warnings))
    if errors:
        print()
        print("ERRORS:\n" + "\n".join("  " + e for e in errors))
        sys.exit(1)


if __name__ == "__main__":
    main()
