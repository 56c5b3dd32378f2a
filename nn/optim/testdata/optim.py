#!/usr/bin/python3
"""Writes the reference values that package optim's tests compare against.

Run it with the reference PyTorch (1.13) from the repository root:

    /usr/bin/python3 nn/optim/testdata/optim.py

It writes nn/optim/testdata/optim.json. The Go tests read only that file;
they never run Python.

  * optimizers: for each configuration (optimizer, options, parameter
    groups), 100 steps of a fixed loss; at a few checkpoint steps, what
    PyTorch had just before the step (parameters, gradients and the
    optimizer's state_dict()) and just after it (parameters and
    state_dict()). The Go tests load the "before" and take that one step,
    so that rounding, which differs between CPUs, cannot compound over a
    trajectory (docs/testing.md);
  * schedulers: for each configuration the learning rates (and OneCycleLR's
    momentum or beta1) of every group after construction and after each of
    100 steps;
  * clip: clip_grad_norm_ and clip_grad_value_ on fixed gradients;
  * errors: the ValueError messages of invalid options.

Every input is written to the file too, so the Go side builds the same
tensors from the same numbers.
"""

import copy
import json
import warnings
import math
import os

import numpy as np
import torch
import torch.nn.functional as F
from torch.optim import lr_scheduler as lrs

HERE = os.path.dirname(os.path.abspath(__file__))
# Where the output goes: here, or $GOLDEN_OUT (docs/testing.md: the
# cross-CPU measurement writes the files elsewhere and compares).
OUT = os.environ.get("GOLDEN_OUT") or HERE
STEPS = 100
# The steps recorded before and after: the first ones (fresh state), then
# a few along the way.
CHECKPOINTS = [1, 2, 3, 10, 50, 100]
# Where package optim's own save-and-resume test (Go against Go) saves.
SAVE_AT = 50


class F32(list):
    """float32 values, written in their shortest float32 form."""


def dump(v):
    if isinstance(v, F32):
        return "[" + ",".join(np.format_float_scientific(np.float32(x), unique=True, trim="-")
                              if math.isfinite(x) else json.dumps(float(x)) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(str(k)) + ":" + dump(x) for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(dump(x) for x in v) + "]"
    if isinstance(v, float):
        return json.dumps(v)  # repr: round-trips
    return json.dumps(v)


def flat(t):
    vals = t.detach().reshape(-1).tolist()
    return F32(vals) if t.dtype == torch.float32 else vals


def tensor_json(t):
    return {"tensor": True, "dtype": str(t.dtype).replace("torch.", ""),
            "shape": list(t.shape), "data": flat(t)}


# The fixed problem: a one-hidden-layer logistic regression on 16 points,
# plus a quartic penalty, with a fourth parameter that gets no gradient.
X = [[math.sin(0.7 * i + 1.3 * j) for j in range(5)] for i in range(16)]
Y = [1.0 if math.cos(1.1 * i) > 0 else 0.0 for i in range(16)]
INIT = {
    "W": [[0.3 * math.sin(5 * i + j + 0.5) for j in range(5)] for i in range(4)],
    "b": [0.1 * math.cos(i) for i in range(4)],
    "v": [0.5 * math.sin(2.0 * i + 0.3) for i in range(4)],
    "u": [0.25, -0.5, 1.0],
}
NAMES = ["W", "b", "v", "u"]


def loss_fn(p, x, y):
    h = torch.tanh(torch.matmul(x, p["W"].t()) + p["b"])
    logit = torch.matmul(h, p["v"])
    return (F.softplus(logit) - y * logit).mean() + 0.01 * p["v"].pow(4).sum()


OPTIMIZERS = {
    "SGD": torch.optim.SGD,
    "Adam": torch.optim.Adam,
    "AdamW": torch.optim.AdamW,
    "RMSprop": torch.optim.RMSprop,
    "Adagrad": torch.optim.Adagrad,
    "NAdam": torch.optim.NAdam,
    "RAdam": torch.optim.RAdam,
    "Adamax": torch.optim.Adamax,
    "Adadelta": torch.optim.Adadelta,
    "SparseAdam": torch.optim.SparseAdam,
}

# name: (optimizer, defaults, groups or None, negate, dtype). groups lists
# (parameter names, options); negate maximizes -loss.
CONFIGS = {
    "sgd": ("SGD", {"lr": 0.1}, None, False, "float32"),
    "sgd_momentum": ("SGD", {"lr": 0.05, "momentum": 0.9}, None, False, "float32"),
    "sgd_dampening_wd": ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.01}, None, False, "float32"),
    "sgd_nesterov": ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 1e-3}, None, False, "float32"),
    "sgd_maximize": ("SGD", {"lr": 0.05, "momentum": 0.5, "maximize": True}, None, True, "float32"),
    "sgd_groups": ("SGD", {"lr": 0.05, "momentum": 0.9},
                   [(["W"], {"lr": 0.1, "momentum": 0.5}), (["b", "v", "u"], {"nesterov": True})], False, "float32"),
    "sgd_nesterov_f64": ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True}, None, False, "float64"),
    "adam": ("Adam", {"lr": 0.01}, None, False, "float32"),
    "adam_wd_amsgrad": ("Adam", {"lr": 0.02, "betas": (0.8, 0.99), "weight_decay": 0.01, "amsgrad": True}, None, False, "float32"),
    "adam_maximize": ("Adam", {"lr": 0.01, "maximize": True, "eps": 1e-6}, None, True, "float32"),
    "adam_groups": ("Adam", {"lr": 0.01},
                    [(["W"], {"lr": 0.03, "betas": (0.85, 0.95)}), (["b", "v", "u"], {"amsgrad": True, "weight_decay": 0.1})], False, "float32"),
    "adam_f64": ("Adam", {"lr": 0.01, "amsgrad": True}, None, False, "float64"),
    "adamw": ("AdamW", {"lr": 0.01}, None, False, "float32"),
    "adamw_amsgrad": ("AdamW", {"lr": 0.02, "weight_decay": 0.1, "amsgrad": True, "betas": (0.9, 0.98)}, None, False, "float32"),
    "adamw_groups": ("AdamW", {"lr": 0.01},
                     [(["W"], {"weight_decay": 0.0}), (["b", "v", "u"], {"lr": 0.02, "maximize": True})], False, "float32"),
    "rmsprop": ("RMSprop", {"lr": 0.01}, None, False, "float32"),
    "rmsprop_centered_momentum": ("RMSprop", {"lr": 0.005, "alpha": 0.9, "momentum": 0.8, "centered": True, "weight_decay": 0.01}, None, False, "float32"),
    "rmsprop_centered": ("RMSprop", {"lr": 0.01, "centered": True, "eps": 1e-6}, None, False, "float32"),
    "rmsprop_groups": ("RMSprop", {"lr": 0.01, "maximize": True},
                       [(["W"], {"momentum": 0.5}), (["b", "v", "u"], {"centered": True, "alpha": 0.95})], True, "float32"),
    "adagrad": ("Adagrad", {"lr": 0.1}, None, False, "float32"),
    "adagrad_decay": ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.01, "initial_accumulator_value": 0.1, "eps": 1e-8}, None, False, "float32"),
    "adagrad_groups": ("Adagrad", {"lr": 0.1, "maximize": True},
                       [(["W"], {"lr": 0.05, "lr_decay": 0.05}), (["b", "v", "u"], {})], True, "float32"),
    "nadam": ("NAdam", {}, None, False, "float32"),
    "nadam_wd": ("NAdam", {"lr": 0.01, "betas": (0.8, 0.99), "weight_decay": 0.01, "momentum_decay": 0.01, "eps": 1e-6}, None, False, "float32"),
    "nadam_groups": ("NAdam", {"lr": 0.01},
                     [(["W"], {"lr": 0.02}), (["b", "v", "u"], {"momentum_decay": 0.0})], False, "float32"),
    "nadam_f64": ("NAdam", {"lr": 0.01}, None, False, "float64"),
    "radam": ("RAdam", {"lr": 0.01}, None, False, "float32"),
    "radam_wd": ("RAdam", {"lr": 0.02, "betas": (0.8, 0.9), "weight_decay": 0.01, "eps": 1e-6}, None, False, "float32"),
    "radam_f64": ("RAdam", {}, None, False, "float64"),
    "adamax": ("Adamax", {}, None, False, "float32"),
    "adamax_wd_maximize": ("Adamax", {"lr": 0.01, "betas": (0.8, 0.99), "weight_decay": 0.01, "maximize": True}, None, True, "float32"),
    "adamax_groups": ("Adamax", {"lr": 0.01},
                      [(["W"], {"lr": 0.02, "eps": 1e-4}), (["b", "v", "u"], {"weight_decay": 0.1})], False, "float32"),
    "adamax_f64": ("Adamax", {"lr": 0.01}, None, False, "float64"),
    "adadelta": ("Adadelta", {}, None, False, "float32"),
    "adadelta_wd_maximize": ("Adadelta", {"lr": 0.5, "rho": 0.95, "eps": 1e-5, "weight_decay": 0.01, "maximize": True}, None, True, "float32"),
    "adadelta_groups": ("Adadelta", {"lr": 0.5},
                        [(["W"], {"rho": 0.8}), (["b", "v", "u"], {"lr": 1.0})], False, "float32"),
    "adadelta_f64": ("Adadelta", {"rho": 0.5}, None, False, "float64"),
}


def jsonable(v):
    if isinstance(v, torch.Tensor):
        return tensor_json(v)
    if isinstance(v, tuple):
        return list(v)
    return v


def run_optimizer(name, cfg):
    opt_name, defaults, groups, negate, dtype = cfg
    dt = getattr(torch, dtype)
    x = torch.tensor(X, dtype=dt)
    y = torch.tensor(Y, dtype=dt)
    p = {n: torch.tensor(INIT[n], dtype=dt, requires_grad=True) for n in NAMES}
    if groups is None:
        params = [p[n] for n in NAMES]
    else:
        params = [dict(params=[p[n] for n in names], **opts) for names, opts in groups]
    opt = OPTIMIZERS[opt_name](params, **defaults)
    def params():
        return {n: flat(p[n]) for n in NAMES}

    def state():
        sd = opt.state_dict()
        return {
            "state": {str(k): {kk: jsonable(vv) for kk, vv in v.items()} for k, v in sd["state"].items()},
            "param_groups": [{k: jsonable(v) for k, v in g.items()} for g in sd["param_groups"]],
        }

    checkpoints = []
    for step in range(1, STEPS + 1):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(p, x, y)
        (-loss if negate else loss).backward()
        if step in CHECKPOINTS:
            cp = {
                "step": step,
                "before": {
                    "params": params(),
                    "grads": {n: flat(p[n].grad) for n in NAMES if p[n].grad is not None},
                    "state_dict": state(),
                },
            }
        opt.step()
        if step in CHECKPOINTS:
            cp["after"] = {"params": params(), "state_dict": state()}
            checkpoints.append(cp)
    return {
        "optimizer": opt_name,
        "defaults": {k: jsonable(v) for k, v in defaults.items()},
        "groups": None if groups is None else [{"params": names, "options": {k: jsonable(v) for k, v in o.items()}}
                                               for names, o in groups],
        "negate": negate,
        "dtype": dtype,
        "checkpoints": checkpoints,
    }


def scheduler_configs():
    def sgd():
        p = torch.zeros(2, requires_grad=True)
        q = torch.zeros(2, requires_grad=True)
        return torch.optim.SGD([{"params": [p]}, {"params": [q], "lr": 0.02}], lr=0.1, momentum=0.9)

    def adam():
        p = torch.zeros(2, requires_grad=True)
        q = torch.zeros(2, requires_grad=True)
        return torch.optim.Adam([{"params": [p]}, {"params": [q], "lr": 0.002}], lr=0.01)

    def adagrad():
        return torch.optim.Adagrad([torch.zeros(2, requires_grad=True)], lr=0.1)

    return {
        "step": ("sgd", lambda o: lrs.StepLR(o, step_size=7, gamma=0.5)),
        "step_default": ("sgd", lambda o: lrs.StepLR(o, step_size=30)),
        "multistep": ("sgd", lambda o: lrs.MultiStepLR(o, milestones=[10, 25, 25, 60], gamma=0.3)),
        "exponential": ("sgd", lambda o: lrs.ExponentialLR(o, gamma=0.97)),
        "cosine": ("sgd", lambda o: lrs.CosineAnnealingLR(o, T_max=30, eta_min=0.001)),
        "cosine_default": ("sgd", lambda o: lrs.CosineAnnealingLR(o, T_max=100)),
        "linear_warmup": ("sgd", lambda o: lrs.LinearLR(o, start_factor=0.1, total_iters=10)),
        "linear_default": ("sgd", lambda o: lrs.LinearLR(o)),
        "linear_decay": ("sgd", lambda o: lrs.LinearLR(o, start_factor=1.0, end_factor=0.05, total_iters=80)),
        "constant": ("sgd", lambda o: lrs.ConstantLR(o, factor=0.5, total_iters=8)),
        "lambda": ("sgd", lambda o: lrs.LambdaLR(o, lambda e: 0.95 ** e)),
        "onecycle": ("sgd", lambda o: lrs.OneCycleLR(o, max_lr=[0.5, 0.2], total_steps=100)),
        "onecycle_linear_three_phase": ("sgd", lambda o: lrs.OneCycleLR(
            o, max_lr=0.3, total_steps=100, anneal_strategy="linear", three_phase=True,
            div_factor=10.0, final_div_factor=100.0, pct_start=0.25)),
        "onecycle_three_phase_cos": ("sgd", lambda o: lrs.OneCycleLR(
            o, max_lr=0.3, total_steps=100, three_phase=True, base_momentum=[0.8, 0.7], max_momentum=0.9)),
        "onecycle_adam": ("adam", lambda o: lrs.OneCycleLR(
            o, max_lr=0.01, total_steps=100, base_momentum=0.8, max_momentum=0.9)),
        "onecycle_no_momentum": ("adagrad", lambda o: lrs.OneCycleLR(
            o, max_lr=0.1, total_steps=100, cycle_momentum=False, pct_start=0.5)),
        "sequential_warmup_cosine": ("sgd", lambda o: lrs.SequentialLR(
            o, [lrs.LinearLR(o, start_factor=0.1, total_iters=5), lrs.CosineAnnealingLR(o, T_max=95)], milestones=[5])),
        "sequential_three": ("sgd", lambda o: lrs.SequentialLR(
            o, [lrs.ConstantLR(o, factor=0.5, total_iters=3), lrs.ExponentialLR(o, gamma=0.9),
                lrs.StepLR(o, step_size=10, gamma=0.5)], milestones=[10, 40])),
        "chained": ("sgd", lambda o: lrs.ChainedScheduler(
            [lrs.LinearLR(o, start_factor=0.2, total_iters=10), lrs.ExponentialLR(o, gamma=0.98)])),
        "polynomial": ("sgd", lambda o: lrs.PolynomialLR(o, total_iters=30, power=2.0)),
        "polynomial_default": ("sgd", lambda o: lrs.PolynomialLR(o)),
        "cyclic": ("sgd", lambda o: lrs.CyclicLR(o, base_lr=0.01, max_lr=[0.1, 0.05], step_size_up=7)),
        "cyclic_triangular2": ("sgd", lambda o: lrs.CyclicLR(
            o, base_lr=[0.001, 0.002], max_lr=0.1, step_size_up=5, step_size_down=10, mode="triangular2",
            base_momentum=0.7, max_momentum=[0.95, 0.9])),
        "cyclic_exp_range": ("sgd", lambda o: lrs.CyclicLR(
            o, base_lr=0.001, max_lr=0.1, step_size_up=4, mode="exp_range", gamma=0.97)),
        "cyclic_no_momentum": ("adagrad", lambda o: lrs.CyclicLR(
            o, base_lr=0.01, max_lr=0.2, step_size_up=6, step_size_down=3, cycle_momentum=False)),
    }, {"sgd": sgd, "adam": adam, "adagrad": adagrad}


def momenta(opt):
    out = []
    for g in opt.param_groups:
        if "betas" in g:
            out.append(g["betas"][0])
        else:
            out.append(g.get("momentum", 0.0))
    return out


def run_schedulers():
    cfgs, makers = scheduler_configs()
    res = {}
    for name, (kind, make) in cfgs.items():
        opt = makers[kind]()
        sched = make(opt)
        lrs_ = [list(sched.get_last_lr())]
        mom = [momenta(opt)]
        for _ in range(STEPS):
            opt.step()
            sched.step()
            lrs_.append(list(sched.get_last_lr()))
            mom.append(momenta(opt))
        res[name] = {"optimizer": kind, "lrs": lrs_, "momentum": mom}
    return res


# The metric ReduceLROnPlateau sees: it falls, stalls, rises and falls.
PLATEAU_METRICS = [1.0 / (1 + i) if i < 15 else (0.0625 if i < 40 else (0.07 + 0.001 * (i - 40) if i < 60 else 0.05 - 0.0001 * i))
                   for i in range(STEPS)]


def run_plateau():
    cfgs = {
        "plateau": ("sgd", {"patience": 3}),
        "plateau_max_abs_cooldown": ("sgd", {"mode": "max", "threshold_mode": "abs", "threshold": 0.001,
                                            "patience": 2, "cooldown": 4, "factor": 0.5}),
        "plateau_min_lr": ("sgd", {"patience": 0, "factor": 0.5, "min_lr": [0.01, 0.015], "eps": 1e-3}),
    }
    _, makers = scheduler_configs()
    res = {}
    for name, (kind, kw) in cfgs.items():
        opt = makers[kind]()
        sched = lrs.ReduceLROnPlateau(opt, **kw)
        out = []
        for m in PLATEAU_METRICS:
            opt.step()
            sched.step(m)
            out.append(list(sched._last_lr))
        res[name] = {"optimizer": kind, "options": kw, "lrs": out}
    return {"metrics": PLATEAU_METRICS, "configs": res}


LBFGS_CONFIGS = {
    "lbfgs": ({}, "float32"),
    "lbfgs_short_history": ({"lr": 0.5, "max_iter": 7, "history_size": 3}, "float32"),
    "lbfgs_max_eval": ({"lr": 0.8, "max_iter": 10, "max_eval": 6, "tolerance_change": 1e-6}, "float32"),
    "lbfgs_f64": ({"history_size": 5}, "float64"),
    "lbfgs_strong_wolfe": ({"line_search_fn": "strong_wolfe"}, "float32"),
    "lbfgs_strong_wolfe_short": ({"lr": 0.5, "max_iter": 6, "history_size": 3, "line_search_fn": "strong_wolfe"},
                                 "float32"),
    "lbfgs_strong_wolfe_f64": ({"history_size": 5, "line_search_fn": "strong_wolfe"}, "float64"),
}
# LBFGS steps run many iterations each; the Go tests compare the first
# step from the start and the second from the state dict PyTorch had
# after the first (rounding that differs between CPUs compounds over a
# trajectory).
LBFGS_STEPS = 3


def lbfgs_state(opt):
    sd = opt.state_dict()

    def js(v):
        if isinstance(v, list):
            return [js(x) for x in v if x is not None]
        return jsonable(v)
    return {
        "state": {str(k): {kk: js(vv) for kk, vv in v.items() if kk != "al"} for k, v in sd["state"].items()},
        "param_groups": [{k: jsonable(v) for k, v in g.items()} for g in sd["param_groups"]],
    }


def run_lbfgs():
    res = {}
    for name, (kw, dtype) in LBFGS_CONFIGS.items():
        dt = getattr(torch, dtype)
        x = torch.tensor(X, dtype=dt)
        y = torch.tensor(Y, dtype=dt)
        p = {n: torch.tensor(INIT[n], dtype=dt, requires_grad=True) for n in NAMES}
        opt = torch.optim.LBFGS([p[n] for n in NAMES], **kw)

        def closure():
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(p, x, y)
            loss.backward()
            return loss
        steps = []
        for i in range(LBFGS_STEPS):
            if i == 1:
                stable = lbfgs_resume_stable(kw, dt, x, y, p, opt.state_dict())
            loss = opt.step(closure)
            st = opt.state[p["W"]]
            steps.append({"loss": float(loss), "params": {n: flat(p[n]) for n in NAMES},
                          "func_evals": st["func_evals"], "n_iter": st["n_iter"],
                          "state_dict": lbfgs_state(opt)})
        res[name] = {"options": kw, "dtype": dtype, "steps": steps, "resume_stable": stable,
                     "step1_spread": lbfgs_step1_spread(kw, dt, x, y)}
    return res


def lbfgs_step1_spread(kw, dt, x, y):
    """How far PyTorch's own first step moves when the starting parameters
    change in their last bits (1, 2 and 4 units of the dtype's epsilon,
    relative): the largest change of any parameter element. Up to 20 inner
    iterations and line searches amplify rounding, and rounding differs
    between CPUs and libtorch versions, so the Go test compares step 1 at
    a tolerance no tighter than twice this."""
    eps = torch.finfo(dt).eps
    outs = [lbfgs_one_step(kw, x, y, {n: torch.tensor(INIT[n], dtype=dt) * (1 + pert) for n in NAMES})
            for pert in (0.0, eps, -eps, 2 * eps, 4 * eps, -4 * eps)]
    return max(float((o - outs[0]).abs().max()) for o in outs[1:])


def lbfgs_resume_stable(kw, dt, x, y, p, sd):
    """Whether LBFGS's next step from state dict sd and parameters p holds
    under a last-bits change of the search direction (relative 1e-6): with
    many inner iterations and a line search, a step can be chaotic, and
    then no other implementation (nor PyTorch on another CPU) can match
    it to a tolerance."""
    outs = []
    for pert in (0.0, 1e-6, -1e-6):
        st = copy.deepcopy(sd)
        st["state"][0]["d"] = st["state"][0]["d"] * (1 + pert)
        outs.append(lbfgs_one_step(kw, x, y, p, st))
    return all(torch.allclose(o, outs[0], rtol=1e-3, atol=1e-4) for o in outs[1:])


def lbfgs_one_step(kw, x, y, start, state=None):
    """One LBFGS step from parameters start (copied), with optimizer state
    state if given; returns the parameters after it, flattened."""
    q = {n: start[n].detach().clone().requires_grad_() for n in NAMES}
    opt = torch.optim.LBFGS([q[n] for n in NAMES], **kw)
    if state is not None:
        opt.load_state_dict(state)

    def closure():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(q, x, y)
        loss.backward()
        return loss
    opt.step(closure)
    return torch.cat([q[n].detach().flatten() for n in NAMES])


# SparseAdam: an embedding table with sparse gradients, rows picked by a
# fixed rule at each step (some rows twice, some not at all).
SPARSE_INIT = [[0.2 * math.sin(3 * i + j + 0.1) for j in range(3)] for i in range(6)]
SPARSE_V = [0.5, -1.0, 0.75]
SPARSE_STEPS = 30
SPARSE_CHECKPOINTS = [1, 2, 3, 10, 30]
SPARSE_CONFIGS = {
    "sparse_adam": ({"lr": 0.01}, False),
    "sparse_adam_betas_maximize": ({"lr": 0.05, "betas": (0.8, 0.9), "eps": 1e-6, "maximize": True}, True),
}


def sparse_rows(step):
    return [(step * i + 1) % 6 for i in range(4)] + [(step + 2) % 6]


def run_sparse_adam():
    """Like the optimizers': at checkpoints, PyTorch's table and state just
    before the step and its table and state just after it. The Go test
    computes the (sparse) gradient from the "before" table itself."""
    res = {}
    for name, (kw, negate) in SPARSE_CONFIGS.items():
        e = torch.tensor(SPARSE_INIT, requires_grad=True)
        v = torch.tensor(SPARSE_V)
        opt = torch.optim.SparseAdam([e], **kw)

        def state():
            st = opt.state_dict()["state"]
            return {str(k): {kk: jsonable(vv) for kk, vv in x.items()} for k, x in st.items()}
        checkpoints = []
        for step in range(1, SPARSE_STEPS + 1):
            opt.zero_grad(set_to_none=True)
            idx = torch.tensor(sparse_rows(step))
            loss = ((F.embedding(idx, e, sparse=True) @ v - 0.1 * step) ** 2).mean()
            (-loss if negate else loss).backward()
            if step in SPARSE_CHECKPOINTS:
                cp = {"step": step, "before": {"table": flat(e), "state": state()}}
            opt.step()
            if step in SPARSE_CHECKPOINTS:
                cp["after"] = {"table": flat(e), "state": state()}
                checkpoints.append(cp)
        res[name] = {"options": {k: jsonable(x) for k, x in kw.items()}, "negate": negate, "checkpoints": checkpoints}
    return {"init": SPARSE_INIT, "v": SPARSE_V, "configs": res}


def run_clip():
    grads = {
        "a": [[0.5, -1.25, 2.0], [3.5, -0.75, 0.125]],
        "b": [4.0, -3.0],
        "c": 1.5,
    }
    cases = []
    for norm_type in [2.0, 1.0, math.inf, 0.5, 3.0]:
        for max_norm in [0.5, 100.0]:
            ps = []
            for n in ["a", "b", "c"]:
                p = torch.zeros(torch.tensor(grads[n]).shape, requires_grad=True)
                p.grad = torch.tensor(grads[n], dtype=torch.float32)
                ps.append(p)
            ps.append(torch.zeros(2, requires_grad=True))  # no gradient
            total = torch.nn.utils.clip_grad_norm_(ps, max_norm, norm_type)
            cases.append({
                "norm_type": "inf" if math.isinf(norm_type) else norm_type,
                "max_norm": max_norm,
                "total_norm": float(total),
                "grads": [flat(p.grad) for p in ps[:3]],
            })
    ps = []
    for n in ["a", "b", "c"]:
        p = torch.zeros(torch.tensor(grads[n]).shape, requires_grad=True)
        p.grad = torch.tensor(grads[n], dtype=torch.float32)
        ps.append(p)
    torch.nn.utils.clip_grad_value_(ps, 1.0)
    return {"grads": grads, "norm": cases, "value": {"clip_value": 1.0, "grads": [flat(p.grad) for p in ps]}}


def run_errors():
    p = [torch.zeros(2, requires_grad=True)]
    cases = {
        "sgd_negative_lr": ("SGD", {"lr": -0.1}),
        "sgd_negative_momentum": ("SGD", {"lr": 0.1, "momentum": -0.5}),
        "sgd_negative_weight_decay": ("SGD", {"lr": 0.1, "weight_decay": -0.25}),
        "sgd_nesterov_no_momentum": ("SGD", {"lr": 0.1, "nesterov": True}),
        "sgd_nesterov_dampening": ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.5, "nesterov": True}),
        "adam_negative_lr": ("Adam", {"lr": -0.001}),
        "adam_negative_eps": ("Adam", {"eps": -1e-08}),
        "adam_beta1": ("Adam", {"betas": (1.5, 0.999)}),
        "adam_beta2": ("Adam", {"betas": (0.9, -0.5)}),
        "adam_negative_weight_decay": ("Adam", {"weight_decay": -0.5}),
        "adamw_beta1": ("AdamW", {"betas": (-0.5, 0.999)}),
        "rmsprop_negative_alpha": ("RMSprop", {"alpha": -0.5}),
        "rmsprop_negative_momentum": ("RMSprop", {"momentum": -0.5}),
        "rmsprop_negative_eps": ("RMSprop", {"eps": -0.5}),
        "adagrad_negative_lr_decay": ("Adagrad", {"lr_decay": -0.5}),
        "adagrad_negative_initial_accumulator_value": ("Adagrad", {"initial_accumulator_value": -0.5}),
        "adagrad_negative_eps": ("Adagrad", {"eps": -0.5}),
        "nadam_negative_lr": ("NAdam", {"lr": -0.5}),
        "nadam_beta2": ("NAdam", {"betas": (0.9, 1.5)}),
        "nadam_negative_momentum_decay": ("NAdam", {"momentum_decay": -0.5}),
        "radam_negative_eps": ("RAdam", {"eps": -0.5}),
        "radam_negative_weight_decay": ("RAdam", {"weight_decay": -0.5}),
        "adamax_beta1": ("Adamax", {"betas": (1.25, 0.999)}),
        "adamax_negative_lr": ("Adamax", {"lr": -0.5}),
        "adadelta_rho": ("Adadelta", {"rho": 1.5}),
        "adadelta_negative_eps": ("Adadelta", {"eps": -0.5}),
        "adadelta_negative_weight_decay": ("Adadelta", {"weight_decay": -0.5}),
        "sparse_adam_zero_lr": ("SparseAdam", {"lr": 0.0}),
        "sparse_adam_zero_eps": ("SparseAdam", {"eps": 0.0}),
        "sparse_adam_beta2": ("SparseAdam", {"betas": (0.9, 1.5)}),
    }
    out = {}
    for name, (opt_name, kw) in cases.items():
        try:
            OPTIMIZERS[opt_name](p, **kw)
        except ValueError as e:
            out[name] = {"optimizer": opt_name, "options": {k: jsonable(v) for k, v in kw.items()}, "message": str(e)}
        else:
            raise SystemExit("no error for " + name)
    try:
        torch.optim.SGD([], lr=0.1)
    except ValueError as e:
        out["empty"] = {"optimizer": "SGD", "options": {"lr": 0.1}, "message": str(e), "empty": True}
    return out


def main():
    warnings.filterwarnings("ignore", category=UserWarning)
    torch.manual_seed(0)
    doc = {
        "torch_version": torch.__version__,
        "steps": STEPS,
        "save_at": SAVE_AT,
        "data": {"x": X, "y": Y, "init": INIT, "names": NAMES},
        "optimizers": {name: run_optimizer(name, cfg) for name, cfg in CONFIGS.items()},
        "schedulers": run_schedulers(),
        "plateau": run_plateau(),
        "lbfgs": run_lbfgs(),
        "sparse_adam": run_sparse_adam(),
        "clip": run_clip(),
        "errors": run_errors(),
    }
    path = os.path.join(OUT, "optim.json")
    with open(path, "w") as f:
        f.write(dump(doc))
        f.write("\n")
    print("wrote", path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
