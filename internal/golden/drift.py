#!/usr/bin/python3
"""Measures how far PyTorch's own golden values move with the CPU path.

Every golden file of the repository is written by a script next to it
(*/testdata/*.py). This reruns each script with the reference PyTorch under
environment settings that change which kernels run, the way another CPU
does, writes the results to a temporary folder ($GOLDEN_OUT, which every
script honours) and compares them, number by number, with the committed
files. It prints, per setting and per dtype, the largest absolute and
relative differences and the largest ratio |diff| / (atol + rtol*|want|)
for the tolerances of package golden (golden.go), which must stay below 1.

Run it from the repository root:

    /usr/bin/python3 internal/golden/drift.py             # all settings
    /usr/bin/python3 internal/golden/drift.py base aten-default  # some

With --go it measures GoTorch instead: it runs the golden tests of every
package under each setting with $GOLDEN_REPORT set, and prints whether they
passed and the largest |diff| / tolerance any comparison reached (package
golden writes it), against the committed files:

    /usr/bin/python3 internal/golden/drift.py --go base far

The settings (see docs/testing.md for why these):

  * ATEN_CPU_CAPABILITY=default|avx2|avx512: the level of ATen's vectorized
    CPU kernels (avx512 needs a CPU that has it: SIGILL otherwise);
  * OPENBLAS_CORETYPE: the kernels OpenBLAS uses for matmul and friends
    (Haswell, SkylakeX, Zen, Sandybridge, Nehalem, Prescott, ...);
  * OMP_NUM_THREADS: how reductions and GEMMs are split between threads.

Nothing here is needed to build or test; it is how the tolerances in
golden.go were measured.
"""

import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

# (script and arguments, the JSON files it writes, their folder)
GENERATORS = [
    (["torch/testdata/conformance.py"], ["conformance.json"], "torch/testdata"),
    (["torch/testdata/golden.py"], ["golden.json"], "torch/testdata"),
    (["torch/safetensors/testdata/safetensors_py.py", "make"], ["dtypes.json"], "torch/safetensors/testdata"),
    (["nn/testdata/modules.py"], ["modules.json"], "nn/testdata"),
    (["nn/testdata/rnn_attention.py"], ["rnn_attention.json"], "nn/testdata"),
    (["nn/testdata/seq.py"], ["seq.json"], "nn/testdata"),
    (["nn/testdata/checkpoint_model.py", "make"], ["checkpoint_model.json"], "nn/testdata"),
    (["nn/functional/testdata/functional.py"], ["functional.json"], "nn/functional/testdata"),
    (["nn/init/testdata/init.py"], ["init.json"], "nn/init/testdata"),
    (["nn/optim/testdata/optim.py"], ["optim.json"], "nn/optim/testdata"),
    (["models/text/testdata/gen.py"], ["gpt2_tiny.json", "bert_tiny.json", "shapes.json"], "models/text/testdata"),
]

# name: environment. "base" is the machine's own dispatch; the others each
# move one thing, and "far" moves all of them at once.
SETTINGS = {
    "base": {},
    "aten-default": {"ATEN_CPU_CAPABILITY": "default"},
    "aten-avx2": {"ATEN_CPU_CAPABILITY": "avx2"},
    "aten-avx512": {"ATEN_CPU_CAPABILITY": "avx512"},
    "blas-haswell": {"OPENBLAS_CORETYPE": "Haswell"},
    "blas-sandybridge": {"OPENBLAS_CORETYPE": "Sandybridge"},
    "blas-nehalem": {"OPENBLAS_CORETYPE": "Nehalem"},
    "blas-prescott": {"OPENBLAS_CORETYPE": "Prescott"},
    "blas-skylakex": {"OPENBLAS_CORETYPE": "SkylakeX"},
    "threads-1": {"OMP_NUM_THREADS": "1"},
    "threads-3": {"OMP_NUM_THREADS": "3"},
    "far": {"ATEN_CPU_CAPABILITY": "default", "OPENBLAS_CORETYPE": "Prescott", "OMP_NUM_THREADS": "1"},
}

# The tolerances of golden.go: atol + rtol*|want|, as multiples of the
# dtype's epsilon. Keep in step with RtolEps and AtolEps there.
RTOL_EPS, ATOL_EPS = 512, 64
EPS = {"float32": 2.0 ** -23, "complex64": 2.0 ** -23, "float64": 2.0 ** -52, "complex128": 2.0 ** -52}


def leaves(want, got, dtype, path, out):
    """Pairs of numbers at the same place in two JSON trees, with the dtype
    that the nearest enclosing "dtype" key names (float32 when none)."""
    if isinstance(want, dict):
        d = want.get("dtype", dtype)
        if isinstance(d, str):
            d = d.replace("torch.", "").lower()
            d = {"f32": "float32", "f64": "float64"}.get(d, d)
        else:
            d = dtype
        if not isinstance(got, dict) or sorted(want) != sorted(got):
            out.append((path, "structure", None, None))
            return
        for k in want:
            leaves(want[k], got[k], d, path + "." + str(k), out)
    elif isinstance(want, list):
        if not isinstance(got, list) or len(want) != len(got):
            out.append((path, "structure", None, None))
            return
        for i, (w, g) in enumerate(zip(want, got)):
            leaves(w, g, dtype, path + "[%d]" % i, out)
    elif isinstance(want, bool) or isinstance(want, str) or want is None:
        if want != got:
            out.append((path, "other", want, got))
    elif isinstance(want, (int, float)):
        out.append((path, dtype, float(want), float(got)))


def compare(want, got):
    pairs = []
    leaves(want, got, "float32", "", pairs)
    stats = {}
    for path, dt, w, g in pairs:
        s = stats.setdefault(dt, {"n": 0, "diff": 0, "abs": 0.0, "rel": 0.0, "ratio": 0.0,
                                  "small_abs": 0.0, "big_rel": 0.0, "where": "", "rel_where": ""})
        s["n"] += 1
        if dt in ("structure", "other"):
            s["diff"] += 1
            s["where"] = path
            continue
        if w == g or (math.isnan(w) and math.isnan(g)):
            continue
        s["diff"] += 1
        d = abs(w - g)
        if d > s["abs"]:
            s["abs"] = d
        if w != 0 and d / abs(w) > s["rel"]:
            s["rel"], s["rel_where"] = d / abs(w), "%s (%r vs %r)" % (path, w, g)
        eps = EPS.get(dt, EPS["float32"])
        # In units of eps: the absolute drift of values below 1, the
        # relative drift of values of 1 and more. These argue Atol and Rtol.
        if abs(w) < 1:
            s["small_abs"] = max(s["small_abs"], d / eps)
        else:
            s["big_rel"] = max(s["big_rel"], d / abs(w) / eps)
        r = d / (ATOL_EPS * eps + RTOL_EPS * eps * abs(w))
        if r > s["ratio"]:
            s["ratio"], s["where"] = r, "%s (%r vs %r)" % (path, w, g)
    return stats


def run(name, env, tmp):
    out = os.path.join(tmp, name)
    os.makedirs(out, exist_ok=True)
    e = dict(os.environ, GOLDEN_OUT=out, **env)
    rows = []
    for args, files, folder in GENERATORS:
        p = subprocess.run(["/usr/bin/python3"] + args, cwd=ROOT, env=e,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if p.returncode != 0:
            rows.append((args[0], "failed (exit %d: %s)" % (p.returncode, p.stderr.decode()[-200:].strip())))
            continue
        for f in files:
            with open(os.path.join(ROOT, folder, f)) as fh:
                want = json.load(fh)
            with open(os.path.join(out, f)) as fh:
                got = json.load(fh)
            rows.append((f, compare(want, got)))
    return rows


# The golden tests of each package: (package, -run pattern).
GO_TESTS = [
    ("./torch", "^(TestConformance|TestAutogradGolden.*|TestPrintGolden|TestLoadPythonFile)$"),
    ("./torch/safetensors", ""),
    ("./nn", "^(Test.*Golden|TestCheckpointFromPython)$"),
    ("./nn/functional", ""),
    ("./nn/init", ""),
    ("./nn/optim", ""),
]


def run_go(name, env, tmp):
    rows = []
    for pkg, pattern in GO_TESTS:
        rep = os.path.join(tmp, "%s-%s.txt" % (name, pkg.strip("./").replace("/", "-")))
        e = dict(os.environ, GOLDEN_REPORT=rep, **env)
        args = ["go", "test", "-count=1"] + (["-run", pattern] if pattern else []) + [pkg]
        p = subprocess.run(args, cwd=ROOT, env=e, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        worst = "no comparison differed"
        if os.path.exists(rep):
            with open(rep) as fh:
                lines = [l.rstrip("\n").split("\t") for l in fh if l.strip()]
            if lines:
                top = max(lines, key=lambda l: float(l[0]))
                worst = "max |d|/tol %s (tol %s, PyTorch %s, GoTorch %s: %s)" % tuple(top[:5])
        status = "ok" if p.returncode == 0 else "FAIL\n" + p.stdout.decode()[-1500:]
        rows.append((pkg, status, worst))
    return rows


def main():
    args = sys.argv[1:]
    if args[:1] == ["--go"]:
        with tempfile.TemporaryDirectory() as tmp:
            for name in args[1:] or list(SETTINGS):
                env = SETTINGS[name]
                print("== %s %s" % (name, " ".join("%s=%s" % kv for kv in env.items()) or "(no settings)"))
                for pkg, status, worst in run_go(name, env, tmp):
                    print("  %-20s %s; %s" % (pkg, status, worst))
                sys.stdout.flush()
        return
    names = args or list(SETTINGS)
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            env = SETTINGS[name]
            print("== %s %s" % (name, " ".join("%s=%s" % kv for kv in env.items()) or "(no settings)"))
            for f, stats in run(name, env, tmp):
                if isinstance(stats, str):
                    print("  %-22s %s" % (f, stats))
                    continue
                for dt, s in sorted(stats.items()):
                    if not s["diff"]:
                        print("  %-22s %-9s %6d numbers, all identical" % (f, dt, s["n"]))
                        continue
                    print("  %-22s %-9s %6d numbers, %5d differ: max abs %.3g, max rel %.3g, max |d|/tol %.3g"
                          % (f, dt, s["n"], s["diff"], s["abs"], s["rel"], s["ratio"]))
                    print("  %22s   |want| < 1: max abs %.3g eps; |want| >= 1: max rel %.3g eps"
                          % ("", s["small_abs"], s["big_rel"]))
                    print("  %22s   worst vs tol: %s" % ("", s["where"]))
                    print("  %22s   worst rel:    %s" % ("", s["rel_where"]))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
