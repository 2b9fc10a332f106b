"""Command line: python -m crlibm_py.verify FUNCTION... [options]."""
import argparse
import math
import os
import signal
import sys

from . import checkpoint, mpfr, report, runner

# 2: the command or its input files (a --checkpoint that cannot be used) are wrong;
# 1 is kept for a verification that ran and found a problem.
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_ENVIRONMENT, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
DEFAULT_REPORT = "verify-report.json"
DEFAULT_CHECKPOINT = "verify-checkpoint.json"
MAX_SAMPLE = 1 << 26  # inputs of the reference-bound check (MPFR calls: hours already)
MAX_LISTED = 1 << 20  # wrong inputs listed per function and path (all are counted)


def parse_bits(text):
    """A uint32 bit pattern bound: decimal or 0x-prefixed hex, 0 <= value <= 2^32."""
    t = text.strip().replace("_", "")
    try:
        value = int(t, 16) if t.lower().startswith("0x") else int(t, 10)
    except ValueError:
        raise ValueError(f"{text!r} is not a decimal or 0x-hex integer") from None
    if not 0 <= value <= 1 << 32:
        raise ValueError(f"{text!r} is outside 0..0x100000000")
    return value


def parse_range(text):
    """'LO:HI' -> (lo, hi): uint32 bit patterns, HI exclusive (up to 0x100000000)."""
    if text.count(":") != 1:
        raise ValueError(f"range {text!r} must be LO:HI, e.g. 0x3f800000:0x40000000")
    lo_text, hi_text = text.split(":")
    lo, hi = parse_bits(lo_text), parse_bits(hi_text)
    if lo >= hi:
        raise ValueError(f"range {text!r} is empty: LO must be below HI (HI is exclusive)")
    return lo, hi


def _range_arg(text):
    try:
        return parse_range(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _paths_arg(text):
    if text == "all":
        return None
    names = [t.strip() for t in text.split(",")]
    for n in names:
        if n not in runner.PATHS:
            raise argparse.ArgumentTypeError(
                f"unknown path {n!r}; use scalar, avx2, avx512, a comma list, or all")
    return list(dict.fromkeys(names))  # a path named twice is checked (and counted) once


def _corrupt_arg(text):
    path, _, mod = text.partition(":")
    try:
        if path not in runner.PATHS or not 1 <= int(mod) < 1 << 32:
            raise ValueError
        return path, int(mod)
    except ValueError:
        raise argparse.ArgumentTypeError("expected PATH:N with 1 <= N < 2^32, e.g. avx2:1000") \
            from None


def _rel_error_arg(text):
    try:
        rel = float(text)
    except ValueError:
        rel = float("nan")
    if not -1.0 < rel < 1.0:  # NaN, inf or -1 would turn the reference into no reference
        raise argparse.ArgumentTypeError(f"expected a relative error in (-1, 1), got {text!r}")
    return rel


def make_parser():
    p = argparse.ArgumentParser(
        prog="python -m crlibm_py.verify",
        description="Exhaustive check of crlibm_py against correctly rounded results "
                    "(every float32 input, every CPU path).")
    p.add_argument("functions", nargs="+", choices=list(runner.FUNCTIONS) + ["all"],
                   metavar="{" + ",".join(runner.FUNCTIONS) + ",all}")
    p.add_argument("--strict", action="store_true",
                   help="MPFR for every input (slow) instead of the glibc reference + bound")
    p.add_argument("--isa", type=_paths_arg, default=None, metavar="scalar|avx2|avx512|all",
                   help="CPU paths to check (comma list allowed); default: all this CPU has")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="worker processes (default: CPU count)")
    p.add_argument("--range", type=_range_arg, default=runner.FULL_RANGE, metavar="LO:HI",
                   help="uint32 bit patterns LO (inclusive) to HI (exclusive), decimal or 0x-hex; "
                        "default 0:0x100000000")
    p.add_argument("--quick", action="store_true",
                   help=f"check a sample: the first {runner.QUICK[0]} bit patterns of every "
                        f"{runner.QUICK[1]} in the range (1/{runner.QUICK[1] // runner.QUICK[0]}"
                        " of the inputs, every binade)")
    p.add_argument("--report", metavar="FILE",
                   help=f"write the JSON report here (default {DEFAULT_REPORT})")
    p.add_argument("--no-report", action="store_true", help="write no JSON report")
    p.add_argument("--checkpoint", metavar="FILE",
                   help="resume from / save completed ranges to this JSON file (default "
                        f"{DEFAULT_CHECKPOINT}, removed once the run is complete; a FILE "
                        "named here is kept)")
    p.add_argument("--no-checkpoint", action="store_true",
                   help="keep no checkpoint (an interrupted run starts over)")
    p.add_argument("--fresh", action="store_true",
                   help="ignore an existing checkpoint and start over (it is overwritten)")
    p.add_argument("--progress-every", type=float, default=30.0, metavar="S",
                   help="when stderr is not a terminal, a progress line every S seconds "
                        "(default 30)")
    p.add_argument("--checkpoint-every", type=float, default=runner.SAVE_EVERY_S, metavar="S",
                   help=f"save the checkpoint every S seconds (default {runner.SAVE_EVERY_S:g})")
    p.add_argument("--chunk", type=int, default=None, help=argparse.SUPPRESS)  # tests
    p.add_argument("--sample", type=int, default=100_000, metavar="N",
                   help="inputs of the reference-bound check per function (default 100000)")
    p.add_argument("--max-wrong", type=int, default=1000, metavar="N",
                   help="the N lowest wrong inputs (by bit pattern) are listed per function "
                        "and path, for any --jobs; all are counted (default 1000)")
    g = p.add_argument_group("self-tests (make correct results look wrong; the run must fail)")
    g.add_argument("--inject-wrong", type=_corrupt_arg, metavar="PATH:N",
                   help="flip bit 0 of PATH's result for inputs whose bits are a multiple of N")
    g.add_argument("--inject-ref-error", type=_rel_error_arg, default=0.0, metavar="REL",
                   help="multiply the glibc reference by (1 + REL), -1 < REL < 1; the run "
                        "must fail once REL exceeds the declared bound (1e-9 does)")
    return p


def _stop(signum, frame):
    raise KeyboardInterrupt  # SIGTERM stops like Ctrl-C: the checkpoint is saved


def _unwritable(path):
    """Why path cannot be written (checked before a run that may take minutes), or None."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return f"{path}: the folder {folder} does not exist"
    if os.path.isdir(path):
        return f"{path} is a folder"
    if not os.access(path if os.path.exists(path) else folder, os.W_OK):
        return f"{path} cannot be written (permissions)"
    return None


def main(argv=None):
    parser = make_parser()
    args = parser.parse_args(argv)
    functions = list(runner.FUNCTIONS) if "all" in args.functions else list(
        dict.fromkeys(args.functions))
    if args.jobs < 1 or args.sample < 1 or args.max_wrong < 0:
        parser.error("--jobs and --sample must be at least 1, --max-wrong at least 0")
    # larger values only exhaust memory (the sample and the listed inputs are held in it)
    if args.sample > MAX_SAMPLE or args.max_wrong > MAX_LISTED:
        parser.error(f"--sample must be at most {MAX_SAMPLE}, --max-wrong at most {MAX_LISTED}")
    if not (0 < args.progress_every < math.inf and 0 <= args.checkpoint_every < math.inf
            and (args.chunk is None or args.chunk >= 1)):
        parser.error("--progress-every must be a number of seconds above 0, "
                     "--checkpoint-every at least 0")
    for option in ("report", "checkpoint"):
        if getattr(args, option) and getattr(args, "no_" + option):
            parser.error(f"--{option} and --no-{option} contradict each other")
    report_path = None if args.no_report else args.report or DEFAULT_REPORT
    default_checkpoint = not args.no_checkpoint and not args.checkpoint
    checkpoint_path = None if args.no_checkpoint else args.checkpoint or DEFAULT_CHECKPOINT
    for option, path, off in (("--report", report_path, "--no-report"),
                              ("--checkpoint", checkpoint_path, "--no-checkpoint")):
        if path and (why := _unwritable(path)):
            parser.error(f"{option}: {why} (or use {off})")
    corrupt = args.inject_wrong or (None, 0)
    hooks = runner.Hooks(corrupt[0], corrupt[1], args.inject_ref_error)
    lo, hi = args.range
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        result = runner.run(functions, "strict" if args.strict else "fast", args.isa, args.jobs,
                            lo, hi, checkpoint_path, args.sample, args.max_wrong, hooks,
                            out=sys.stdout, quick=args.quick, fresh=args.fresh,
                            remove_complete_checkpoint=default_checkpoint,
                            progress_every=args.progress_every,
                            checkpoint_every=args.checkpoint_every, chunk=args.chunk)
    except mpfr.MPFRUnavailable as exc:
        print(f"crlibm_py.verify: {exc}", file=sys.stderr)
        return EXIT_ENVIRONMENT
    except checkpoint.CheckpointError as exc:
        print(f"crlibm_py.verify: error: {exc}; rerun with --fresh to start over (the file "
              f"is then overwritten), or name another file with --checkpoint", file=sys.stderr)
        return EXIT_USAGE
    except ValueError as exc:
        print(f"crlibm_py.verify: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:  # the checkpoint could not be written
        print(f"crlibm_py.verify: {exc}", file=sys.stderr)
        return EXIT_ENVIRONMENT
    except KeyboardInterrupt:
        if checkpoint_path is None:
            saved = " (no checkpoint kept)"
        elif default_checkpoint:
            saved = f"; progress kept in {checkpoint_path}: rerun the same command to resume"
        else:
            saved = f"; resume with --checkpoint {checkpoint_path}"
        print(f"\ncrlibm_py.verify: interrupted{saved}", file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED
    finally:
        signal.signal(signal.SIGTERM, previous)
    for line in report.problems(result):
        print(line, file=sys.stderr)
    if report_path:
        try:
            report.write(result, report_path)
        except OSError as exc:  # e.g. the folder went away during the run
            print(f"crlibm_py.verify: the report was not written: {exc}", file=sys.stderr)
            return EXIT_ENVIRONMENT
        print(f"report: {report_path}", flush=True)
    return EXIT_OK if result["ok"] else EXIT_FAILED
