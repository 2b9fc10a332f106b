"""The reproblas CPU speed targets, checked against the JSON the benchmark scripts wrote.

For each target (gemm and gemv against OpenBLAS, conv2d against PyTorch, the pairwise
level-1 reductions against OpenBLAS / NumPy) this lists the rows it covers, their lowest and
highest speed ratio (above 1: reproblas is faster) and how many rows fall below the target.
Each row is one measurement; the scripts' own ratios are kept as they are, except that the
level-1 script's time ratio is turned into a speed ratio (its inverse).

    python tools/bench_targets.py --gemm docs/bench/reproblas_gemm_zen5.json \
        --conv docs/bench/reproblas_conv_zen5.json --l1 docs/bench/reproblas_l1_2p24_zen5.json \
        [--json FILE]

--gemm may be given several files (gemm and gemv runs are separate). A target whose file is
not given is skipped.
"""
import argparse
import json
import sys

# (name, source, row filter, lowest acceptable speed ratio). The gemv split is by where A
# lives on the 32 MiB-L3 development machine: up to 16 MB (float32 n = 2048) in the L3,
# larger from DRAM (float64 n = 2048, 32 MB, is in between and counted as L3).
TARGETS = [
    ("gemm, sequential", "gemm",
     lambda r: r["routine"] == "gemm" and r["order"] == "sequential", 0.9),
    ("gemm, pairwise", "gemm", lambda r: r["routine"] == "gemm" and r["order"] == "pairwise", 0.5),
    ("gemv, C-ordered A in the L3 (n <= 2048)", "gemm",
     lambda r: r["routine"] == "gemv" and r["n"] <= 2048, 0.8),
    ("gemv, C-ordered A from DRAM (n > 2048)", "gemm",
     lambda r: r["routine"] == "gemv" and r["n"] > 2048, 0.8),
    ("gemv, transposed or Fortran A in the L3 (n <= 2048)", "gemm",
     lambda r: r["routine"] in ("gemv_t", "gemv_f") and r["n"] <= 2048, 0.8),
    ("gemv, transposed or Fortran A from DRAM (n > 2048)", "gemm",
     lambda r: r["routine"] in ("gemv_t", "gemv_f") and r["n"] > 2048, 0.8),
    ("conv2d, sequential, against PyTorch", "conv",
     lambda r: r["routine"] == "conv2d" and r["order"] == "sequential", 0.8),
    ("dot / sum / asum / nrm2, pairwise", "l1", lambda r: r["order"] == "pairwise", 0.8),
]

ORDER_ABBREV = {"sequential": "seq", "pairwise": "pw"}


def speed_ratio(source, row):
    """reproblas speed / the other library's speed (the level-1 script writes a time ratio)."""
    return 1.0 / row["ratio"] if source == "l1" else row["ratio"]


def brief(row, ratio):
    """'gemv float32 n=1024 1t seq 0.66': one row and its speed ratio."""
    size = f"n={row['n']}" if "n" in row else f"{row.get('batch')}x{row.get('channels')}"
    order = ORDER_ABBREV.get(row["order"], row["order"])
    return f"{row['routine']} {row['dtype']} {size} {row['threads']}t {order} {ratio:.2f}"


def check(rows_by_source):
    out = []
    for name, source, keep, target in TARGETS:
        rows = [r for r in rows_by_source.get(source, []) if keep(r)]
        if not rows:
            continue
        ratios = [speed_ratio(source, r) for r in rows]
        low = min(range(len(rows)), key=ratios.__getitem__)
        out.append({"target": name, "at_least": target, "rows": len(rows),
                    "lowest": ratios[low], "highest": max(ratios),
                    "below": sum(x < target for x in ratios), "lowest_row": brief(rows[low], ratios[low]),
                    "short": "; ".join(brief(r, x) for r, x in zip(rows, ratios) if x < target)})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gemm", nargs="+", default=[], help="bench_reproblas_gemm.py JSON files")
    ap.add_argument("--conv", nargs="+", default=[], help="bench_reproblas_conv.py JSON files")
    ap.add_argument("--l1", nargs="+", default=[], help="bench_reproblas.py JSON files")
    ap.add_argument("--json", metavar="FILE", help="also write the table as JSON rows")
    args = ap.parse_args()
    rows_by_source, machines = {}, []
    for source in ("gemm", "conv", "l1"):
        for path in getattr(args, source):
            with open(path) as f:
                data = json.load(f)
            rows_by_source.setdefault(source, []).extend(data["rows"])
            machines.append({"file": path, **data["machine"]})
    table = check(rows_by_source)
    print(f"{'target':55s} {'min':>5s} {'rows':>4s} {'lowest':>6s} {'highest':>7s} {'below':>5s}")
    for t in table:
        print(f"{t['target']:55s} {t['at_least']:5.2f} {t['rows']:4d} {t['lowest']:6.2f} "
              f"{t['highest']:7.2f} {t['below']:5d}   lowest: {t['lowest_row']}")
    if args.json:
        with open(args.json, "w") as f:
            # the first run's machine, with this command (which names every file read)
            machine = dict(machines[0], argv=list(sys.argv)) if machines else {}
            json.dump({"machine": machine, "sources": machines, "rows": table}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
