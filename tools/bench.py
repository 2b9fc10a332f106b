"""Benchmarks from any directory of a checkout.

    python tools/bench.py asv check        # asv imports the suite and checks every benchmark
    python tools/bench.py asv run --quick  # each benchmark once, on the package built in place
    python tools/bench.py asv run --bench gemm

`asv ARGS` runs asv on the suite in asv_bench/ (the asv and scipy it needs: pip install -e
'.[bench]'). asv reads its configuration and benchmarks relative to the current directory,
and refuses to run before it knows the machine: this runs asv inside asv_bench/, registers
the machine with asv's defaults (`asv machine --yes`) the first time, and, unless an
environment is named (--python, -E/--environment), measures the package of the Python running
this script (--python=same) with this checkout first on the import path, as built by
`python setup.py build_ext --inplace` or `pip install -e .`.
"""
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ASV_DIR = REPO / "asv_bench"
# asv commands that take an environment; the others (machine, publish, preview, ...) do not.
TAKES_ENVIRONMENT = {"run", "check", "continuous", "dev", "profile", "find", "setup"}


def asv_args(args):
    """asv's arguments: those given, plus --python=same where no environment is named."""
    args = list(args)
    if not args or args[0] not in TAKES_ENVIRONMENT:
        return args
    named = any(a in ("-E", "--environment", "--python") or
                a.startswith(("-E", "--environment=", "--python=")) for a in args[1:])
    return args if named else args + ["--python=same"]


def _machine_known():
    """Whether asv has machine information for this host (~/.asv-machine.json)."""
    from asv.machine import Machine, MachineCollection
    from asv.util import UserError
    try:
        MachineCollection.load(Machine.get_unique_machine_name())
    except UserError:
        return False
    return True


def _run_asv(args, env, quiet=False):
    """Run asv (the module of this Python) in asv_bench/; its exit status. quiet: show its
    output only if it fails."""
    import subprocess
    command = [sys.executable, "-m", "asv"] + args
    print("+ (cd asv_bench &&", " ".join(["asv"] + args) + ")", file=sys.stderr, flush=True)
    if not quiet:
        return subprocess.run(command, cwd=ASV_DIR, env=env).returncode
    run = subprocess.run(command, cwd=ASV_DIR, env=env, stdin=subprocess.DEVNULL,
                         capture_output=True, text=True)
    if run.returncode:
        sys.stderr.write(run.stdout + run.stderr)
    return run.returncode


def asv(args):
    try:
        import asv as _asv  # noqa: F401
    except ImportError:
        print("asv is not installed: pip install -e '.[bench]' (asv, scipy, threadpoolctl)",
              file=sys.stderr)
        return 2
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + [p for p in [env.get("PYTHONPATH")] if p])
    args = asv_args(args)
    machine_named = any(a == "--machine" or a.startswith("--machine=") for a in args)
    if args and args[0] != "machine" and not machine_named and not _machine_known():
        print("asv does not know this machine yet: registering it with asv's defaults",
              file=sys.stderr)
        rc = _run_asv(["machine", "--yes"], env, quiet=True)
        if rc:
            return rc
    return _run_asv(args, env)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help") or argv[0] != "asv":
        print(__doc__.strip(), file=sys.stderr)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    return asv(argv[1:])


if __name__ == "__main__":
    sys.exit(main())
