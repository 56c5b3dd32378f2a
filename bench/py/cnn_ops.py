"""Where the benchmark's CNN step spends its time, op by op.

The CNN of examples/fashion_mnist_go (conv-BN-ReLU-pool twice, dropout,
3136-128-10), Adam, batch 64, in training mode: bench/py/work.py's "cnn"
job. It prints the step's median and minimum time, its phases (forward
with the loss, zero_grad, backward, optimizer step), the minor page faults
per step, then torch.profiler's table of the ops (self and total CPU time
per step, shapes recorded), so that two libtorch builds can be compared
side by side (bench/NOTES.md, "libtorch 2.6 on the CPU"):

    /usr/bin/python3 bench/py/cnn_ops.py                          # Debian 12, 1.13.1
    scripts/debian13.sh run python3 /src/bench/py/cnn_ops.py      # Debian 13, 2.6

Options (each changes one thing, to test one cause):

    --threads N        intra-op threads (default BENCH_THREADS or 2)
    --steps N          timed steps (default 30, after 5 untimed)
    --mkldnn on|off    torch.backends.mkldnn.enabled (default: as built)
    --channels-last    model and input in channels_last memory format
    --profile-steps N  steps under the profiler (0: no table; default 10)
    --rows N           rows of the op table (default 25)
    --ab-mkldnn        then alternate oneDNN on and off every 5 steps in the
                       same process and print both medians and minimums: a
                       paired comparison that a loaded machine disturbs alike
    --micro            instead, time single ops of the step by the calling
                       thread's CPU time (robust to load with --threads 1)
    --fault-cost       instead, time first touches of fresh anonymous memory:
                       what one minor page fault costs on this machine
    --json             one JSON line of the figures instead of text

The environment decides the rest (GLIBC_TUNABLES, OMP_*, GOMP_SPINCOUNT,
ONEDNN_*, ATEN_CPU_CAPABILITY, OPENBLAS_*); the script prints what it sees
of it. On a loaded 2-core machine, run it at real-time priority (chrt -f 10)
and with glibc's mmap and trim thresholds raised
(GLIBC_TUNABLES=glibc.malloc.mmap_threshold=268435456:glibc.malloc.trim_threshold=1073741824),
or the step measures the machine's page faults and the other processes
rather than libtorch.
"""

import argparse
import json
import mmap
import os
import resource
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

ENV_SHOWN = ("GLIBC_TUNABLES", "OMP_NUM_THREADS", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT",
             "OMP_PROC_BIND", "ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA", "ONEDNN_VERBOSE",
             "DNNL_VERBOSE", "ATEN_CPU_CAPABILITY", "OPENBLAS_NUM_THREADS",
             "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")

PHASES = ("forward_loss", "zero_grad", "backward", "optimizer")


def cnn():
    """The model of examples/fashion_mnist_go, as bench/py/work.py builds it."""
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Dropout(0.25), nn.Linear(64 * 7 * 7, 128), nn.ReLU(),
        nn.Dropout(0.5), nn.Linear(128, 10))


def config_line(word, default):
    """The first line of torch.__config__.show() that holds word."""
    for line in torch.__config__.show().splitlines():
        if word in line:
            return line.strip(" -")
    return default


def cpu_capability():
    """ATen's CPU capability: torch.backends.cpu on 2.x, the build summary on 1.13."""
    cpu = getattr(torch.backends, "cpu", None)
    if cpu is not None and hasattr(cpu, "get_cpu_capability"):
        return cpu.get_cpu_capability()
    return config_line("CPU capability usage", "unknown").split(":", 1)[-1].strip()


def minor_faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def step(net, opt, x, y, phases=None, cpu=None):
    """One training step; returns its wall time in ns and appends the
    phases' times and the process's CPU time where asked."""
    c0 = time.process_time_ns()
    t0 = time.perf_counter_ns()
    loss = F.cross_entropy(net(x), y)
    t1 = time.perf_counter_ns()
    opt.zero_grad(set_to_none=True)
    t2 = time.perf_counter_ns()
    loss.backward()
    t3 = time.perf_counter_ns()
    opt.step()
    t4 = time.perf_counter_ns()
    if cpu is not None:
        cpu.append(time.process_time_ns() - c0)
    if phases is not None:
        for i, d in enumerate((t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
            phases[i].append(d)
    return t4 - t0


def train(args, info):
    torch.manual_seed(0)
    x = torch.randn(64, 1, 28, 28)
    y = torch.randint(10, (64,))
    net = cnn()
    net.train()
    if args.channels_last:
        net = net.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    for _ in range(5):
        step(net, opt, x, y)

    phases, cpu = [[] for _ in PHASES], []
    f0 = minor_faults()
    times = [step(net, opt, x, y, phases, cpu) for _ in range(args.steps)]
    info["minor_faults_per_step"] = (minor_faults() - f0) / args.steps
    info["step_ms"] = {"median": statistics.median(times) / 1e6, "min": min(times) / 1e6,
                       "process_cpu_median": statistics.median(cpu) / 1e6}
    info["phases_ms_median"] = {n: statistics.median(p) / 1e6 for n, p in zip(PHASES, phases)}

    if args.ab_mkldnn:
        ab = {True: [], False: []}
        for i in range(2 * max(1, args.steps // 5)):
            on = i % 2 == 0
            torch.backends.mkldnn.enabled = on
            step(net, opt, x, y)  # the first step after a switch is not counted
            ab[on] += [step(net, opt, x, y) / 1e6 for _ in range(5)]
        torch.backends.mkldnn.enabled = info["mkldnn_enabled"]
        info["ab_mkldnn_ms"] = {("on" if k else "off"): {"median": statistics.median(v), "min": min(v), "n": len(v)}
                                for k, v in ab.items()}

    info["ops"] = []
    if args.profile_steps:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
            for _ in range(args.profile_steps):
                step(net, opt, x, y)
        rows = prof.key_averages(group_by_input_shape=True)
        rows = sorted(rows, key=lambda e: e.self_cpu_time_total, reverse=True)[:args.rows]
        for e in rows:
            info["ops"].append({"op": e.key, "shapes": str(e.input_shapes)[:70],
                                "calls_per_step": e.count / args.profile_steps,
                                "self_ms_per_step": e.self_cpu_time_total / 1e3 / args.profile_steps,
                                "total_ms_per_step": e.cpu_time_total / 1e3 / args.profile_steps})


def micro(args):
    """Median CPU time of the calling thread per call of single ops of the
    step, in µs. With one intra-op thread this is the op's own work: a
    descheduled thread's clock stops."""
    torch.manual_seed(0)
    a4, b4 = torch.randn(4, 4), torch.randn(4, 4)
    act1, act2 = torch.randn(64, 32, 28, 28), torch.randn(64, 64, 14, 14)
    flat, w1, bias1 = torch.randn(64, 3136), torch.randn(128, 3136), torch.randn(128)
    g128 = torch.randn(64, 128)
    x, x2 = torch.randn(64, 1, 28, 28), torch.randn(64, 32, 14, 14)
    c1, c2 = nn.Conv2d(1, 32, 3, padding=1), nn.Conv2d(32, 64, 3, padding=1)
    bn1 = nn.BatchNorm2d(32)
    params = [torch.randn(128, 3136) for _ in range(4)]

    def conv_backward(conv, inp, gy):
        inp = inp.detach().requires_grad_(True)
        out = conv(inp)
        return lambda: torch.autograd.grad(out, [inp] + list(conv.parameters()), gy, retain_graph=True)

    cases = [
        ("add 4x4", lambda: torch.add(a4, b4)),
        ("add 64x32x28x28", lambda: torch.add(act1, act1)),
        ("relu 64x32x28x28", lambda: torch.relu(act1)),
        ("threshold_backward 64x32x28x28", lambda: torch.ops.aten.threshold_backward(act1, act1, 0.0)),
        ("batch_norm train 64x32x28x28", lambda: bn1(act1)),
        ("max_pool2d 64x32x28x28", lambda: F.max_pool2d(act1, 2)),
        ("max_pool2d 64x64x14x14", lambda: F.max_pool2d(act2, 2)),
        ("addmm 64x3136 @ 3136x128", lambda: F.linear(flat, w1, bias1)),
        ("mm 128x64 @ 64x3136", lambda: torch.mm(g128.t(), flat)),
        ("conv1 forward 1->32 28x28", lambda: c1(x)),
        ("conv2 forward 32->64 14x14", lambda: c2(x2)),
        ("conv1 backward", conv_backward(c1, x, torch.randn(64, 32, 28, 28))),
        ("conv2 backward", conv_backward(c2, x2, torch.randn(64, 64, 14, 14))),
        ("adam-like update 128x3136", lambda: params[0].mul_(0.9).add_(params[1], alpha=0.1)
         .addcdiv_(params[2], params[3].sqrt().add_(1e-8), value=-1e-3)),
    ]
    out = {}
    for name, fn in cases:
        reps = 200 if "4x4" in name else max(5, args.steps)
        for _ in range(3):
            fn()
        ts = []
        for _ in range(reps):
            c0 = time.thread_time_ns()
            fn()
            ts.append(time.thread_time_ns() - c0)
        out[name] = statistics.median(ts) / 1e3
    return out


def fault_cost(rounds=5, size=64 << 20):
    """µs of wall time per minor fault when 64 MiB of fresh anonymous
    memory is touched a page at a time (the loop's own cost subtracted),
    the median of rounds: what a step pays for each page glibc returned to
    the system and takes back."""
    page = mmap.PAGESIZE
    m = mmap.mmap(-1, size)
    for off in range(0, size, page):
        m[off] = 1
    t0 = time.perf_counter_ns()
    for off in range(0, size, page):
        m[off] = 2
    loop_ns = time.perf_counter_ns() - t0
    m.close()
    per_fault = []
    for _ in range(rounds):
        f0 = minor_faults()
        t0 = time.perf_counter_ns()
        m = mmap.mmap(-1, size)
        for off in range(0, size, page):
            m[off] = 1
        t = time.perf_counter_ns() - t0
        m.close()
        faults = minor_faults() - f0
        if faults > 0:
            per_fault.append((t - loop_ns) / faults / 1e3)
    return {"us_per_fault": statistics.median(per_fault) if per_fault else None,
            "faults_per_round": size // page}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=int(os.environ.get("BENCH_THREADS", "2")))
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--mkldnn", choices=("on", "off"))
    ap.add_argument("--channels-last", action="store_true")
    ap.add_argument("--profile-steps", type=int, default=10)
    ap.add_argument("--rows", type=int, default=25)
    ap.add_argument("--ab-mkldnn", action="store_true")
    ap.add_argument("--micro", action="store_true")
    ap.add_argument("--fault-cost", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.threads < 1 or args.steps < 1 or args.profile_steps < 0 or args.rows < 1:
        ap.error("--threads, --steps and --rows must be at least 1, --profile-steps at least 0")

    torch.set_num_threads(args.threads)
    if args.mkldnn is not None:
        torch.backends.mkldnn.enabled = args.mkldnn == "on"
    info = {
        "torch": torch.__version__,
        "python": sys.version.split()[0],
        "threads": torch.get_num_threads(),
        "cpu_capability": cpu_capability(),
        "onednn": config_line("MKL-DNN", "none"),
        "mkldnn_enabled": torch.backends.mkldnn.enabled,
        "channels_last": args.channels_last,
        "env": {k: os.environ[k] for k in ENV_SHOWN if k in os.environ},
        "loadavg": os.getloadavg()[0],
    }
    if args.fault_cost:
        info["fault_cost"] = fault_cost()
    elif args.micro:
        info["micro_us"] = micro(args)
    else:
        train(args, info)
    info["loadavg_end"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(info))
    else:
        report(info)


def report(info):
    tables = ("fault_cost", "micro_us", "step_ms", "phases_ms_median", "ab_mkldnn_ms", "ops")
    print(" ".join(f"{k}={v}" for k, v in info.items() if k not in tables))
    if "fault_cost" in info:
        print(f"minor page fault: {info['fault_cost']['us_per_fault']:.2f} us "
              f"(median of 5 rounds of {info['fault_cost']['faults_per_round']} first touches)")
    for name, us in info.get("micro_us", {}).items():
        print(f"  {name:<34} {us:10.1f} us")
    if "step_ms" in info:
        s = info["step_ms"]
        print(f"step: median {s['median']:.2f} ms, min {s['min']:.2f} ms, "
              f"process CPU time {s['process_cpu_median']:.2f} ms;",
              ", ".join(f"{n} {v:.2f} ms" for n, v in info["phases_ms_median"].items()))
    for k, v in info.get("ab_mkldnn_ms", {}).items():
        print(f"oneDNN {k}: median {v['median']:.2f} ms, min {v['min']:.2f} ms over {v['n']} steps (alternating)")
    if info.get("ops"):
        print(f"{'op':<42} {'calls':>5} {'self ms':>8} {'total ms':>8}  shapes")
        for o in info["ops"]:
            print(f"{o['op'][:42]:<42} {o['calls_per_step']:>5.0f} {o['self_ms_per_step']:>8.3f} "
                  f"{o['total_ms_per_step']:>8.3f}  {o['shapes']}")


if __name__ == "__main__":
    main()
