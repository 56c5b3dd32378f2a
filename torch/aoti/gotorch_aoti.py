"""Records what an AOTInductor package's inputs must be, for GoTorch's
torch/aoti to check before it runs the package.

PyTorch 2.6's packages do not record their inputs' shapes: the compiled
code trusts them (unless compiled with aot_inductor.debug_compile), so a
tensor of the wrong shape is read out of bounds. This module writes the
exported program's input specification into the package's metadata under
the key "gotorch_inputs", which torch/aoti reads and checks every Run
against. Use it in place of torch._inductor.aoti_compile_and_package:

    import gotorch_aoti   # this file, copied beside your script or on sys.path
    ep = torch.export.export(model.eval(), (x,), dynamic_shapes=...)
    gotorch_aoti.compile_and_package(ep, "model.pt2")

or pass the metadata yourself:

    torch._inductor.aoti_compile_and_package(ep, package_path="model.pt2",
        inductor_configs={"aot_inductor.metadata": {"gotorch_inputs": gotorch_aoti.input_spec(ep)}})

The value is JSON (version 1):

    {"version": 1,
     "inputs": [{"dtype": "float32", "device": "cpu",
                 "sizes": [{"sym": "s0", "mul": 1, "add": 0}, 4],
                 "strides": [4, 1], "contiguous": true}, ...],
     "symbols": {"s0": {"min": 2, "max": 64}}}

A size is an int (static) or a linear expression mul*sym + add of one
symbol; a stride is an int or null (symbolic); a symbol's max is null when
unbounded. Dimensions that are not of that form (s0*s1, s0**2) are an
error here: torch/aoti could not check them.
"""
import json
import math

import torch

KEY = "gotorch_inputs"
VERSION = 1


def _int(x):
    try:
        return int(x)
    except (TypeError, ValueError):
        return None


def _bound(v):
    """A range bound as an int, or None for an infinite one."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    if math.isinf(f):
        return None
    return int(v)


def _size(expr, where):
    import sympy

    if isinstance(expr, torch.SymInt):
        expr = expr.node.expr
    n = _int(expr) if not isinstance(expr, sympy.Basic) or expr.is_number else None
    if n is not None:
        return n, None
    expr = sympy.sympify(expr)
    syms = sorted(expr.free_symbols, key=str)
    if len(syms) != 1:
        raise ValueError(f"{where}: size {expr} has {len(syms)} symbols; GoTorch checks sizes of one symbol only")
    s = syms[0]
    poly = sympy.Poly(expr, s)
    if poly.degree() > 1 or not all(c.is_integer for c in poly.all_coeffs()):
        raise ValueError(f"{where}: size {expr} is not mul*{s} + add with integers; GoTorch cannot check it")
    coeffs = poly.all_coeffs()
    mul, add = (int(coeffs[0]), int(coeffs[1])) if len(coeffs) == 2 else (0, int(coeffs[0]))
    if mul <= 0:
        raise ValueError(f"{where}: size {expr} does not grow with {s}; GoTorch cannot check it")
    return {"sym": str(s), "mul": mul, "add": add}, s


def input_spec(ep):
    """The JSON string describing ep's tensor inputs, in the order the
    compiled package takes them (the user inputs, flattened)."""
    from torch.export.graph_signature import InputKind, TensorArgument

    placeholders = {n.name: n for n in ep.graph.nodes if n.op == "placeholder"}
    inputs, symbols = [], {}
    for spec in ep.graph_signature.input_specs:
        if spec.kind != InputKind.USER_INPUT:
            continue
        if not isinstance(spec.arg, TensorArgument):
            # Constants (ints, floats, None) are specialised by export and
            # are no inputs of the package.
            if type(spec.arg).__name__ in ("ConstantArgument",):
                continue
            raise ValueError(f"input {spec.arg}: only tensor inputs can be checked by GoTorch")
        val = placeholders[spec.arg.name].meta["val"]
        where = f"input {len(inputs)} ({spec.arg.name})"
        sizes = []
        for d in val.shape:
            size, sym = _size(d, where)
            sizes.append(size)
            if sym is not None:
                symbols[str(sym)] = sym
        strides = [_int(s) if not isinstance(s, torch.SymInt) else _int(s.node.expr) for s in val.stride()]
        inputs.append({
            "dtype": str(val.dtype).replace("torch.", ""),
            "device": val.device.type,
            "sizes": sizes,
            "strides": strides,
            "contiguous": bool(val.is_contiguous()),
        })
    ranges = {}
    for name, sym in symbols.items():
        r = ep.range_constraints.get(sym)
        lo, hi = (None, None) if r is None else (_bound(r.lower), _bound(r.upper))
        ranges[name] = {"min": 0 if lo is None else max(lo, 0), "max": hi}
    return json.dumps({"version": VERSION, "inputs": inputs, "symbols": ranges}, separators=(",", ":"))


def compile_and_package(ep, package_path, inductor_configs=None):
    """torch._inductor.aoti_compile_and_package with the input spec in the
    package's metadata; returns the package's path."""
    configs = dict(inductor_configs or {})
    metadata = dict(configs.get("aot_inductor.metadata", {}))
    metadata[KEY] = input_spec(ep)
    configs["aot_inductor.metadata"] = metadata
    return torch._inductor.aoti_compile_and_package(ep, package_path=package_path, inductor_configs=configs)
