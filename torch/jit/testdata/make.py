"""Writes the TorchScript files and expected outputs that torch/jit's tests
read. Run with the reference PyTorch (Debian 12's python3-torch 1.13.1):

    cd torch/jit/testdata && /usr/bin/python3 make.py

It writes net.pt (a scripted module with a buffer and several methods whose
arguments and results cover the IValue kinds GoTorch converts) and
expected.json (inputs and PyTorch's outputs for them, and the result of one
SGD step on the module's parameters).
"""
import json
from typing import Dict, List, Optional, Tuple

import torch
from torch import Tensor


@torch.jit.script
class Box:
    def __init__(self, v: int):
        self.v = v


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 3)
        self.head = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Linear(3, 2))
        self.register_buffer("scale", torch.tensor([1.0, 2.0, 3.0]))

    def forward(self, x: Tensor) -> Tensor:
        return self.head(self.lin(x) * self.scale)

    @torch.jit.export
    def pair(self, x: Tensor, k: int) -> Tuple[Tensor, int]:
        return x * k, k + 1

    @torch.jit.export
    def stats(self, xs: List[Tensor]) -> Dict[str, Tensor]:
        s = torch.stack(xs)
        return {"sum": s.sum(0), "max": s.max(0)[0]}

    @torch.jit.export
    def echo(self, a: int, b: float, c: bool, s: str, o: Optional[int],
             li: List[int], lf: List[float], lb: List[bool], ls: List[str],
             d: Dict[str, int]) -> Tuple[int, float, bool, str, Optional[int], List[int],
                                         List[float], List[bool], List[str], Dict[str, int]]:
        d2: Dict[str, int] = {}
        for k, v in d.items():
            d2[k + "!"] = v * 2
        return a + 1, b * 2.0, not c, s + "!", o, li + [7], [x / 2.0 for x in lf], [not x for x in lb], ls + ["end"], d2

    @torch.jit.export
    def nested(self, t: Tuple[Tensor, List[Tensor]], d: Dict[str, Tensor]) -> List[Tuple[str, Tensor]]:
        out: List[Tuple[str, Tensor]] = []
        total = t[0]
        for x in t[1]:
            total = total + x
        out.append(("total", total))
        for k in sorted(d.keys()):
            out.append((k, d[k] * 10))
        return out

    @torch.jit.export
    def int_keys(self, n: int) -> Dict[int, float]:
        r: Dict[int, float] = {}
        for i in range(n):
            r[i] = float(i) / 4.0
        return r

    @torch.jit.export
    def nothing(self) -> Optional[Tensor]:
        return None

    @torch.jit.export
    def device_of(self, x: Tensor) -> torch.device:
        return x.device

    @torch.jit.export
    def is_training(self) -> bool:
        return self.training

    @torch.jit.export
    def boxed(self) -> Box:
        return Box(3)


def tl(t):
    return t.detach().reshape(-1).tolist()


def main():
    torch.manual_seed(0)
    net = torch.jit.script(Net())
    net.save("net.pt")

    x = torch.randn(5, 4)
    exp = {"x": tl(x), "x_shape": list(x.shape)}
    exp["forward"] = tl(net(x))
    exp["forward_shape"] = list(net(x).shape)
    a, k = net.pair(x, 3)
    exp["pair"] = {"t": tl(a), "k": k}
    xs = [torch.randn(3) for _ in range(4)]
    exp["stats_in"] = [tl(t) for t in xs]
    st = net.stats(xs)
    exp["stats"] = {k: tl(v) for k, v in st.items()}
    t0 = torch.randn(2)
    tls = [torch.randn(2), torch.randn(2)]
    dd = {"b": torch.randn(2), "a": torch.randn(2)}
    exp["nested_in"] = {"t0": tl(t0), "tl": [tl(t) for t in tls], "d": {k: tl(v) for k, v in dd.items()}}
    exp["nested"] = [[name, tl(v)] for name, v in net.nested((t0, tls), dd)]
    exp["int_keys"] = {str(k): v for k, v in net.int_keys(3).items()}
    exp["params"] = {n: tl(p) for n, p in net.named_parameters()}
    exp["param_names"] = [n for n, _ in net.named_parameters()]
    exp["buffer_names"] = [n for n, _ in net.named_buffers()]

    # One SGD step on a fresh copy, as a fine-tuning loop would take it.
    m = torch.jit.load("net.pt")
    target = torch.randn(5, 2)
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    loss = ((m(x) - target) ** 2).mean()
    loss.backward()
    opt.step()
    exp["sgd"] = {
        "target": tl(target),
        "loss": loss.item(),
        "after": tl(m(x)),
        "params": {n: tl(p) for n, p in m.named_parameters()},
    }

    with open("expected.json", "w") as f:
        json.dump(exp, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
