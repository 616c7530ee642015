"""``python -m numasim sweep|repro ...``: the executors that need Python (Ray, Slurm)."""

from __future__ import annotations

import argparse
import json
import sys

from . import NumasimError
from . import studies, sweeps
from ._executors import EXECUTORS


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m numasim")
    sub = ap.add_subparsers(dest="command", required=True)
    sw = sub.add_parser("sweep", help="run a sweep file, or `sweep collect DIR`")
    sw.add_argument("sweep", help="sweep TOML, or `collect`")
    sw.add_argument("dir", nargs="?", help="with `collect`: the sweep's results root")
    sw.add_argument("-o", "--out", help="results root (default: the file's `out`, else results/sweeps/<name>)")
    sw.add_argument("--executor", choices=EXECUTORS, default="local")
    sw.add_argument("-j", "--jobs", type=int, help="local executor: runs at once (default: all cores)")
    sw.add_argument("--address", help="Ray: cluster address, e.g. ray://head:10001 or auto (default: start a single-node Ray here)")
    sw.add_argument("--cluster", help="submitit: 'slurm' (default when sbatch exists), 'local' or 'debug'")
    sw.add_argument("--slurm", action="append", default=[], metavar="KEY=VALUE",
                    help="submitit parameter, e.g. slurm_partition=gpu, timeout_min=120 (repeatable)")
    sw.add_argument("--csv", help="with `collect`: write CSV here")
    sw.add_argument("--parquet", help="with `collect`: write Parquet here")
    rp = sub.add_parser("repro", help="run a paper's study (numasim repro) on an executor")
    rp.add_argument("study")
    rp.add_argument("--quick", action="store_true")
    rp.add_argument("-o", "--out", help="output directory (default: results/repro-<study>[-quick])")
    rp.add_argument("--executor", choices=EXECUTORS, default="local")
    rp.add_argument("-j", "--jobs", type=int, help="local executor: runs at once (default: all cores)")
    rp.add_argument("--resume", action="store_true", help="reuse finished runs (Ray and submitit always do)")
    rp.add_argument("--json", action="store_true", help="print the outcome as JSON")
    rp.add_argument("--address", help="Ray: cluster address (default: a single-node Ray started here)")
    rp.add_argument("--cluster", help="submitit: 'slurm' (default when sbatch exists), 'local' or 'debug'")
    rp.add_argument("--slurm", action="append", default=[], metavar="KEY=VALUE", help="submitit parameter (repeatable)")
    args = ap.parse_args(argv)
    try:
        slurm = {}
        for kv in args.slurm:
            k, sep, v = kv.partition("=")
            if not sep:
                ap.error(f"--slurm expects KEY=VALUE, got {kv!r}")
            slurm[k] = int(v) if v.isdigit() else v
        if args.command == "repro":
            outcome = studies.repro(args.study, out=args.out, quick=args.quick, executor=args.executor,
                                    jobs=args.jobs, address=args.address, slurm=slurm, cluster=args.cluster,
                                    resume=args.resume)
            if args.json:
                print(json.dumps(outcome, indent=2))
            else:
                print(f"comparison: {outcome['comparison_csv']}")
                print(f"report: {outcome['report']}")
            return 0
        if args.sweep == "collect":
            if not args.dir:
                ap.error("sweep collect needs the results root: python -m numasim sweep collect DIR")
            if not (args.csv or args.parquet):
                ap.error("sweep collect needs --csv FILE and/or --parquet FILE")
            if args.parquet:
                n = sweeps.write_parquet(args.dir, args.parquet)
                print(f"{n} rows written to {args.parquet}")
            if args.csv:
                n = sweeps.write_csv(args.dir, args.csv)
                print(f"{n} rows written to {args.csv}")
            return 0
        plan = sweeps.sweep(
            args.sweep,
            out=args.out,
            executor=args.executor,
            jobs=args.jobs,
            address=args.address,
            slurm=slurm,
            cluster=args.cluster,
        )
        print(f"{len(plan['runs'])} runs complete in {plan['out_dir']}")
        return 0
    except NumasimError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
