#!/usr/bin/python3
"""Time training steps under the BLAS libraries Debian can give libtorch.

Debian's libtorch links libblas.so.3, liblapack.so.3 and (through them)
libopenblas.so.0, all three chosen by update-alternatives. Results and the
decision they led to: docs/blas.md. Modes:

  /usr/bin/python3 bench/blas/blas_bench.py --child
      times the jobs below in this process, with whatever BLAS the
      alternatives point at now, and prints one JSON line.

  sudo /usr/bin/python3 bench/blas/blas_bench.py --rounds 8
      (root) for each round, for each variant in turn (A B C D A B C D ...),
      switches the three alternatives with update-alternatives --set, runs a
      --child process with the variant's environment, checks which BLAS
      files it loaded, and at the end prints min and median over rounds of
      each variant's per-process median. A process during which other
      processes used more than --max-other cores on average (a shared
      machine) is run again. Finally the alternatives are set to --leave
      (default: openmp, the choice of docs/blas.md).

  sudo /usr/bin/python3 bench/blas/blas_bench.py --child-cmd /tmp/gostep
      the same with the Go program bench/blas/gostep as the child (build it
      first: go build -o /tmp/gostep ./bench/blas/gostep).

The jobs, float32, batch 64, torch.set_num_threads(2) (--threads):
  mlp: Linear(784,256)-ReLU-Linear(256,10), cross-entropy, SGD(lr=0.01) step
  cnn: Conv2d(1,32,3)-ReLU-Conv2d(32,64,3)-ReLU-MaxPool2d(2)-Flatten-
       Linear(9216,128)-ReLU-Linear(128,10) on 1x28x28, cross-entropy, SGD step
  mm2048: one 2048x2048 by 2048x2048 product (not a training step: it shows
       whether BLAS itself runs on both threads)

Needs Debian's python3-torch (run with /usr/bin/python3; scripts/setup.sh
--with-python installs it).
"""

import argparse
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import time

ARCH = "x86_64-linux-gnu"
LIBDIR = "/usr/lib/" + ARCH
GROUPS = ["libblas.so.3", "liblapack.so.3", "libopenblas.so.0"]

# name -> (alternatives directory under LIBDIR, extra environment)
VARIANTS = {
    "pthread": ("openblas-pthread", {}),
    "pthread-1": ("openblas-pthread", {"OPENBLAS_NUM_THREADS": "1"}),
    "openmp": ("openblas-openmp", {}),
    "openmp-1": ("openblas-openmp", {"OPENBLAS_NUM_THREADS": "1"}),
    "netlib": ("blas", {}),  # Debian's libblas3/liblapack3 (reference BLAS)
}


def child(args):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    mlp = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    cnn = nn.Sequential(
        nn.Conv2d(1, 32, 3), nn.ReLU(), nn.Conv2d(32, 64, 3), nn.ReLU(),
        nn.MaxPool2d(2), nn.Flatten(), nn.Linear(9216, 128), nn.ReLU(),
        nn.Linear(128, 10))
    jobs = {
        "mlp": (mlp, torch.randn(64, 784), args.mlp_steps),
        "cnn": (cnn, torch.randn(64, 1, 28, 28), args.cnn_steps),
    }
    y = torch.randint(0, 10, (64,))
    out = {"threads": torch.get_num_threads()}
    for name, (model, x, steps) in jobs.items():
        opt = torch.optim.SGD(model.parameters(), lr=0.01)

        def step():
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()

        for _ in range(max(1, steps // 5)):  # warm-up
            step()
        per_step = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            for _ in range(steps):
                step()
            per_step.append((time.perf_counter() - t0) / steps * 1e3)
        out[name + "_ms"] = statistics.median(per_step)

    # One large matrix product: shows whether BLAS itself runs on 2 threads.
    a, b = torch.randn(2048, 2048), torch.randn(2048, 2048)
    a @ b
    per = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        a @ b
        per.append((time.perf_counter() - t0) * 1e3)
    out["mm2048_ms"] = statistics.median(per)

    # Which BLAS this process really loaded.
    libs = set()
    with open("/proc/self/maps") as f:
        for line in f:
            p = line.split()[-1]
            if any(os.path.basename(p).startswith(g) for g in ("libblas", "liblapack", "libopenblas")):
                libs.add(os.path.realpath(p))
    out["loaded"] = sorted(libs)
    print(json.dumps(out))


def alt_path(subdir, group):
    """The file that variant directory subdir gives alternative group, or None."""
    if subdir == "blas" and group != "libblas.so.3":
        # netlib: liblapack3 lives in lapack/; there is no libopenblas.so.0.
        subdir = "lapack" if group == "liblapack.so.3" else None
    path = "%s/%s/%s" % (LIBDIR, subdir, group)
    return path if subdir and os.path.exists(path) else None


def set_alternatives(subdir):
    for g in GROUPS:
        path = alt_path(subdir, g)
        if path:
            subprocess.run(["update-alternatives", "--set", "%s-%s" % (g, ARCH), path],
                           check=True, stdout=subprocess.DEVNULL)


def busy_seconds():
    """CPU time the whole machine has spent busy (including steal), in s."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    user, nice, system, idle, iowait, irq, softirq, steal = v
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_quiet(cmd, env, args):
    """Runs cmd; reruns it while other processes took more than
    args.max_other cores on average during the run (a shared machine)."""
    for attempt in range(args.retries + 1):
        b0, c0, t0 = busy_seconds(), children_cpu(), time.monotonic()
        p = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
        b1, c1, t1 = busy_seconds(), children_cpu(), time.monotonic()
        other = max(0.0, (b1 - b0) - (c1 - c0)) / (t1 - t0)
        if other <= args.max_other:
            res = json.loads(p.stdout.strip().splitlines()[-1])
            res["other_cores"] = other
            return res
        print("  (other processes used %.2f cores during the run; again in %ds)"
              % (other, args.wait), flush=True)
        time.sleep(args.wait)
    sys.exit("the machine never got quiet enough (--max-other %.2f)" % args.max_other)


def driver(args):
    if os.geteuid() != 0:
        sys.exit("the driver switches update-alternatives: run it as root")
    names = args.variants.split(",")
    for n in names:
        subdir = VARIANTS[n][0]
        if not alt_path(subdir, "libblas.so.3"):
            sys.exit("variant %s: %s/%s/libblas.so.3 is not installed" % (n, LIBDIR, subdir))
    base_env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if args.child_cmd:
        cmd = [args.child_cmd, "-threads", str(args.threads), "-repeats", str(args.repeats),
               "-steps", str(args.mlp_steps)]
    else:
        cmd = [sys.executable, os.path.abspath(__file__), "--child",
               "--threads", str(args.threads), "--repeats", str(args.repeats),
               "--mlp-steps", str(args.mlp_steps), "--cnn-steps", str(args.cnn_steps)]
    keys = []
    results = {n: [] for n in names}
    # Background jobs ignore SIGINT: let SIGTERM too restore the alternatives.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("terminated"))
    signal.signal(signal.SIGINT, lambda *_: sys.exit("interrupted"))
    try:
        for r in range(args.rounds):
            for n in names:
                subdir, extra = VARIANTS[n]
                set_alternatives(subdir)
                env = dict(base_env, **extra)
                res = run_quiet(cmd, env, args)
                want = {os.path.realpath(alt_path(subdir, g)) for g in GROUPS if alt_path(subdir, g)}
                if set(res["loaded"]) != want:
                    sys.exit("variant %s loaded %s" % (n, res["loaded"]))
                results[n].append(res)
                keys = keys or sorted(k for k in res if k.endswith("_ms"))
                print("round %d %-10s %s  (others: %.2f cores)" % (
                    r + 1, n, "  ".join("%s %7.3f ms" % (k[:-3], res[k]) for k in keys),
                    res["other_cores"]), flush=True)
    finally:
        set_alternatives(VARIANTS[args.leave][0])
    print()
    print("per-step time over %d rounds (each value: median of %d repeats in one process)"
          % (args.rounds, args.repeats))
    print("%-10s" % "variant" + "".join(
        " %9s %9s" % (k[:-3] + " min", k[:-3] + " med") for k in keys) + "   (ms per step; mm2048: ms per product)")
    for n in names:
        line = "%-10s" % n
        for k in keys:
            v = [x[k] for x in results[n]]
            line += " %9.3f %9.3f" % (min(v), statistics.median(v))
        print(line)
    print("alternatives left at", VARIANTS[args.leave][0])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--child", action="store_true", help="time the steps in this process")
    ap.add_argument("--child-cmd", help="time this program instead (bench/blas/gostep, built)")
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--variants", default="pthread,pthread-1,openmp,openmp-1",
                    help="comma-separated, from: " + ",".join(VARIANTS))
    ap.add_argument("--leave", default="openmp", choices=list(VARIANTS),
                    help="variant whose alternatives are set at the end")
    ap.add_argument("--max-other", type=float, default=0.05,
                    help="rerun a process while other processes used more cores than this")
    ap.add_argument("--retries", type=int, default=60)
    ap.add_argument("--wait", type=int, default=10, help="seconds between reruns")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--mlp-steps", type=int, default=200)
    ap.add_argument("--cnn-steps", type=int, default=10)
    args = ap.parse_args()
    if args.child:
        child(args)
    else:
        driver(args)


if __name__ == "__main__":
    main()
