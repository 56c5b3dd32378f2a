#!/usr/bin/python3
"""The Python worker of the benchmark harness (go run ./bench): the
workloads in PyTorch, run with Debian's python3-torch (/usr/bin/python3),
which uses the same libtorch as GoTorch. It speaks the protocol described
in bench/internal/worker/worker.go:

    work.py serve              commands "JOB ITERS WARMUP REPS" on stdin
    work.py startup            one 4x4 add, then the wall clock
    work.py rss STEPS EVERY    MLP steps with RSS samples

The thread count comes from BENCH_THREADS (default 2).
"""
import json
import os
import sys
import time


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def threads():
    try:
        n = int(os.environ.get("BENCH_THREADS", "2"))
    except ValueError:
        n = 2
    return n if n > 0 else 2


if len(sys.argv) > 1 and sys.argv[1] == "startup":
    import torch

    torch.set_num_threads(threads())
    torch.manual_seed(1)
    x = torch.ones(4, 4)
    y = torch.add(x, x)
    emit({"first_op_unix_ns": time.time_ns()})
    sys.exit(0)

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402


def mlp():
    return nn.Sequential(
        nn.Linear(784, 512), nn.ReLU(),
        nn.Linear(512, 512), nn.ReLU(),
        nn.Linear(512, 10))


def cnn():
    """The model of examples/fashion_mnist_go (and its pytorch_twin.py)."""
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Dropout(0.25), nn.Linear(64 * 7 * 7, 128), nn.ReLU(),
        nn.Dropout(0.5), nn.Linear(128, 10))


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def timed_ops(op, x, y, iters, warmup, reps):
    ns = []
    for r in range(warmup + reps):
        t0 = time.perf_counter_ns()
        for _ in range(iters):
            op(x, y)
        t = time.perf_counter_ns() - t0
        if r >= warmup:
            ns.append(t)
    return ns


def timed_train(net, opt, x, y, iters, warmup, reps):
    ns = []
    for r in range(warmup + reps):
        t0 = time.perf_counter_ns()
        for _ in range(iters):
            loss = F.cross_entropy(net(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        t = time.perf_counter_ns() - t0
        if r >= warmup:
            ns.append(t)
    return ns


def run(job, iters, warmup, reps):
    if job == "mlp":
        net = mlp()
        opt = torch.optim.SGD(net.parameters(), lr=0.01)
        return timed_train(net, opt, torch.randn(64, 784), torch.randint(10, (64,)), iters, warmup, reps)
    if job == "cnn":
        net = cnn()
        net.train()
        opt = torch.optim.Adam(net.parameters(), lr=1e-3)
        return timed_train(net, opt, torch.randn(64, 1, 28, 28), torch.randint(10, (64,)), iters, warmup, reps)
    grad = job.endswith("g")
    name = job[:-1] if grad else job
    sizes = {"add4": 4, "mm4": 4, "add256": 256, "mm256": 256}
    if name not in sizes:
        return None
    n = sizes[name]
    x = torch.randn(n, n, requires_grad=grad)
    y = torch.randn(n, n, requires_grad=grad)
    op = torch.mm if name.startswith("mm") else torch.add
    return timed_ops(op, x, y, iters, warmup, reps)


def serve():
    emit({"impl": "python", "version": torch.__version__, "threads": torch.get_num_threads()})
    for line in sys.stdin:
        f = line.split()
        if not f:
            continue
        try:
            job, iters, warmup, reps = f[0], int(f[1]), int(f[2]), int(f[3])
        except (IndexError, ValueError):
            emit({"error": "bad command " + line.strip()})
            continue
        try:
            ns = run(job, iters, warmup, reps)
        except Exception as e:  # report, keep serving
            emit({"job": job, "error": repr(e)})
            continue
        if ns is None:
            emit({"job": job, "error": "unknown job " + job})
        else:
            emit({"job": job, "iters": iters, "ns": ns})


def rss(steps, every):
    net = mlp()
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    x, y = torch.randn(64, 784), torch.randint(10, (64,))
    t0 = time.perf_counter_ns()
    for i in range(1, steps + 1):
        loss = F.cross_entropy(net(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        del loss
        if i % every == 0:
            emit({"step": i, "rss": rss_bytes()})
    emit({"done": True, "total_ns": time.perf_counter_ns() - t0})


def main():
    torch.set_num_threads(threads())
    torch.manual_seed(1)
    mode = sys.argv[1] if len(sys.argv) > 1 else "serve"
    if mode == "serve":
        serve()
    elif mode == "rss":
        steps = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
        every = int(sys.argv[3]) if len(sys.argv) > 3 else 500
        rss(steps, every)
    else:
        sys.stderr.write("usage: work.py serve | startup | rss STEPS EVERY\n")
        sys.exit(2)


if __name__ == "__main__":
    main()
