# ops.py: PyTorch's side of scripts/gpucheck/main.go, the same measures.
import statistics
import time

import torch

if not torch.cuda.is_available():
    print("ops.py: no CUDA device; nothing timed")
    raise SystemExit(0)
dev = torch.device("cuda:0")


def per_op(name, f):
    a = torch.rand(4, 4, device=dev)
    b = torch.rand(4, 4, device=dev)
    n = 20000
    runs = []
    for _ in range(5):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(n):
            f(a, b)
        torch.cuda.synchronize()
        runs.append((time.perf_counter() - start) / n)
    print(f"python {name} 4x4 per op: {statistics.median(runs) * 1e6:.2f}us (runs {[round(r * 1e6, 2) for r in runs]})")


def mlp_step():
    w1 = (torch.randn(784, 512, device=dev) * 0.03).requires_grad_()
    w2 = (torch.randn(512, 512, device=dev) * 0.04).requires_grad_()
    w3 = (torch.randn(512, 10, device=dev) * 0.04).requires_grad_()
    x = torch.randn(1024, 784, device=dev)
    y = torch.randint(10, (1024,), device=dev)
    params = [w1, w2, w3]

    def step():
        loss = torch.nn.functional.cross_entropy(x.mm(w1).relu().mm(w2).relu().mm(w3), y)
        loss.backward()
        with torch.no_grad():
            for p in params:
                p.sub_(p.grad * 0.01)
                p.grad.zero_()
        loss.item()

    for _ in range(10):
        step()
    torch.cuda.reset_peak_memory_stats(0)
    steps = []
    for _ in range(100):
        start = time.perf_counter()
        step()
        steps.append(time.perf_counter() - start)
    print(f"python mlp step (784-512-512-10, batch 1024): {statistics.median(steps) * 1e3:.3f}ms, "
          f"max_memory_allocated {torch.cuda.max_memory_allocated(0) / 2**20:.1f} MiB")


print(f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}")
per_op("add", lambda a, b: a + b)
per_op("mm", lambda a, b: a.mm(b))
mlp_step()
