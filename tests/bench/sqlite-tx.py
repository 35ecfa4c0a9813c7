#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""A fsync-heavy small-transaction workload for the benchmarks.

    sqlite-tx.py load <db> <rows>            create the table (one transaction)
    sqlite-tx.py run  <db> <rows> <txns> [<latency file>]
                                             run <txns> transactions (and
                                             write each COMMIT's time in ns,
                                             one a line)

Each transaction updates 4 random rows (a 100-byte value each) and appends
one row to a history table, then commits.  SQLite's defaults are kept:
rollback journal (journal_mode=DELETE), synchronous=FULL, 4 KiB pages; so
each commit writes and fsyncs the journal, writes the changed pages of the
database in place and fsyncs it, and deletes the journal.  Deterministic
(fixed seed).
"""
import random
import sqlite3
import sys
import time


def main():
    cmd, path, rows = sys.argv[1], sys.argv[2], int(sys.argv[3])
    db = sqlite3.connect(path, isolation_level=None)
    rng = random.Random(1234)
    if cmd == "load":
        db.execute("PRAGMA page_size=4096")
        db.execute("DROP TABLE IF EXISTS acct")
        db.execute("DROP TABLE IF EXISTS hist")
        db.execute("CREATE TABLE acct(id INTEGER PRIMARY KEY, bal INTEGER, v BLOB)")
        db.execute("CREATE TABLE hist(id INTEGER PRIMARY KEY, acct INTEGER, delta INTEGER, v BLOB)")
        db.execute("BEGIN")
        db.executemany("INSERT INTO acct VALUES (?, 0, ?)",
                       ((i, rng.randbytes(100)) for i in range(rows)))
        db.execute("COMMIT")
    elif cmd == "run":
        txns = int(sys.argv[4])
        lat = []
        for _ in range(txns):
            db.execute("BEGIN")
            for _ in range(4):
                a = rng.randrange(rows)
                d = rng.randrange(-100, 100)
                db.execute("UPDATE acct SET bal = bal + ?, v = ? WHERE id = ?",
                           (d, rng.randbytes(100), a))
            db.execute("INSERT INTO hist(acct, delta, v) VALUES (?, ?, ?)",
                       (a, d, rng.randbytes(50)))
            t0 = time.monotonic_ns()
            db.execute("COMMIT")
            lat.append(time.monotonic_ns() - t0)
        if len(sys.argv) > 5:
            with open(sys.argv[5], "w") as f:
                f.write("".join("%d\n" % v for v in lat))
    else:
        sys.exit("unknown command " + cmd)
    db.close()


if __name__ == "__main__":
    main()
