"""The models part of the Python worker (bench/py/work.py): ResNet-18,
GPT-2 generation and a BERT encoder, issue #35's workloads.

ResNet-18 is torchvision.models.resnet18 (Debian's python3-torchvision
0.14.1, random weights); GPT-2 and BERT are the reference models of
models/text's golden tests (models/text/testdata/gen.py, transformers'
structure written out, since transformers is not in Debian). The C++
worker (bench/cxx/models.h) and the Go worker (models/vision, models/text)
build the same shapes; the jobs are the same in every worker:

    r18b1     ResNet-18 forward, batch 1, eval, no_grad; an iteration is one forward
    r18b32    the same at batch 32
    r18train  a ResNet-18 training step at batch 16: cross-entropy, SGD
              (lr 0.01, momentum 0.9), zero_grad to none
    gpt2gen   GPT-2 small greedy generation with the key/value cache from
              an 8-token prompt: a repetition is one generation of ITERS
              tokens, so the time per iteration is the time per token
    bert      BERT-base encoder and pooler forward at batch 8 x 128 with an
              all-ones attention mask, eval, no_grad

BENCH_MODEL_SHAPES=small (the harness's -quick) shrinks them for a smoke
run: 64x64 images, 2 GPT-2 and BERT layers, BERT sequences of 32.
"""
import os
import sys
import time

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
TEXT = os.path.join(HERE, "..", "..", "models", "text", "testdata")

JOBS = ("r18b1", "r18b32", "r18train", "gpt2gen", "bert")

PROMPT = 8  # GPT-2 prompt tokens
BERT_BATCH = 8


def shapes():
    """The shapes of BENCH_MODEL_SHAPES: full (the default) or small."""
    s = os.environ.get("BENCH_MODEL_SHAPES", "full")
    if s in ("", "full"):
        return dict(image=224, gpt2_layers=12, bert_layers=12, bert_seq=128)
    if s == "small":
        return dict(image=64, gpt2_layers=2, bert_layers=2, bert_seq=32)
    raise ValueError('BENCH_MODEL_SHAPES="%s": want full or small' % s)


def text_models():
    """models/text/testdata/gen.py, imported."""
    if TEXT not in sys.path:
        sys.path.insert(0, TEXT)
    import gen  # noqa: E402

    return gen


class Timer:
    """Times repetitions: sync() before the clock starts and stops (a no-op
    on the CPU), warm-up repetitions dropped."""

    def __init__(self, warmup, sync):
        self.warmup, self.sync, self.ns, self.done = warmup, sync, [], 0

    def rep(self, body):
        self.sync()
        t0 = time.perf_counter_ns()
        body()
        self.sync()
        t = time.perf_counter_ns() - t0
        if self.done >= self.warmup:
            self.ns.append(t)
        self.done += 1


def run(job, iters, warmup, reps, dev, sync, add_phases):
    """Runs a models job; None for a job that is not one."""
    if job not in JOBS:
        return None
    sh = shapes()
    timer = Timer(warmup, sync)
    if job.startswith("r18"):
        try:
            import torchvision
        except ImportError as e:
            raise RuntimeError("the ResNet-18 jobs need torchvision (Debian's python3-torchvision): %s" % e)
        net = torchvision.models.resnet18().to(dev)
        if job == "r18train":
            net.train()
            opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
            x = torch.randn(16, 3, sh["image"], sh["image"], device=dev)
            y = torch.randint(1000, (16,), device=dev)

            def steps():
                for _ in range(iters):
                    p0 = time.perf_counter_ns()
                    loss = F.cross_entropy(net(x), y)
                    p1 = time.perf_counter_ns()
                    opt.zero_grad(set_to_none=True)
                    p2 = time.perf_counter_ns()
                    loss.backward()
                    p3 = time.perf_counter_ns()
                    opt.step()
                    loss.item()
                    if timer.done >= warmup and dev.type == "cpu":
                        add_phases(p0, p1, p2, p3, time.perf_counter_ns())

            for _ in range(warmup + reps):
                timer.rep(steps)
            return timer.ns
        net.eval()
        n = 1 if job == "r18b1" else 32
        x = torch.randn(n, 3, sh["image"], sh["image"], device=dev)

        def forwards():
            with torch.no_grad():
                for _ in range(iters):
                    net(x)

        for _ in range(warmup + reps):
            timer.rep(forwards)
        return timer.ns
    gen = text_models()
    if job == "gpt2gen":
        c = dict(gen.GPT2_SMALL, n_layer=sh["gpt2_layers"])
        with torch.no_grad():
            net = gen.GPT2LMHeadModel(c).to(dev)
        net.eval()
        prompt = torch.randint(c["vocab_size"], (1, PROMPT), device=dev)

        def generate():
            # gen.generate's greedy loop without its top-2 gaps: the
            # cached forward of the new token, then the argmax.
            with torch.no_grad():
                ids, past = prompt, None
                for _ in range(iters):
                    scores, past = gen.next_token_logits(net, ids, past, True)
                    ids = torch.cat([ids, torch.argmax(scores, dim=-1)[:, None]], dim=-1)

        for _ in range(warmup + reps):
            timer.rep(generate)
        return timer.ns
    # bert
    c = dict(gen.BERT_BASE, num_hidden_layers=sh["bert_layers"])
    with torch.no_grad():
        net = gen.BertModel(c).to(dev)
    net.eval()
    ids = torch.randint(c["vocab_size"], (BERT_BATCH, sh["bert_seq"]), device=dev)
    mask = torch.ones(BERT_BATCH, sh["bert_seq"], dtype=torch.long, device=dev)

    def forwards():
        with torch.no_grad():
            for _ in range(iters):
                net(ids, mask)

    for _ in range(warmup + reps):
        timer.rep(forwards)
    return timer.ns
