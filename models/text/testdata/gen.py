#!/usr/bin/python3
"""PyTorch side of models/text's golden tests: GPT-2 and BERT references.

Hugging Face's transformers is not in Debian, so this file holds a
reference of its own of the two architectures, written from their
published structure: the same modules, in the same order, with the same
parameter names and the same arithmetic as transformers' GPT2LMHeadModel
(modeling_gpt2.py) and BertModel / BertForSequenceClassification
(modeling_bert.py). Their state dicts are what transformers' would be for
the same config: Conv1D weights stored (in, out); the causal-mask buffers
("attn.bias", "attn.masked_bias") and BERT's "embeddings.position_ids" not
persistent, as in transformers 4.31 and later; GPT-2's lm_head tied to
transformer.wte.

Weights are drawn as transformers' _init_weights draws them (normal with
initializer_range, GPT-2's c_proj weights scaled by 1/sqrt(2 n_layer),
zero biases, LayerNorm ones and zeros), with a seed, and then every
LayerNorm weight and bias and every other bias is moved by a little noise,
so that a Go model that dropped or misplaced one of them would differ.
initializer_range is 0.2 instead of 0.02 so that the tiny models'
attention and greedy choices are far from uniform.

Run it with the reference PyTorch (1.13), from the repository root:

    /usr/bin/python3 models/text/testdata/gen.py

It writes, beside itself (or into $GOLDEN_OUT, as every golden script of
the repository does; see internal/golden/drift.py):

    gpt2_tiny.pt            torch.save(model.state_dict()), the format of
                            pytorch_model.bin (lm_head.weight shares
                            transformer.wte.weight's storage)
    gpt2_tiny.json          config, inputs, eval logits, one training step
                            (loss, gradients, parameters after AdamW), the
                            first 20 greedy tokens and a seeded top-k sample
    bert_tiny.safetensors   the state dict of a BertForSequenceClassification,
                            in the format of model.safetensors
    bert_tiny.json          config, inputs, eval outputs, one training step
    shapes.json             the parameter names, shapes and counts of the
                            full-size GPT-2 small (124,439,808 with the tied
                            head) and BERT-base (109,482,240), no weights

Floats in the JSON files are float32 values printed with 9 significant
digits, which read back as the same float32.
"""

import json
import math
import os
import sys

import torch
from torch import nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.environ.get("GOLDEN_OUT") or HERE
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "torch", "safetensors", "testdata"))
import safetensors_py  # noqa: E402

# ---------------------------------------------------------------- GPT-2


GPT2_SMALL = dict(vocab_size=50257, n_positions=1024, n_embd=768, n_layer=12, n_head=12, n_inner=None,
                  activation_function="gelu_new",
                  resid_pdrop=0.1, embd_pdrop=0.1, attn_pdrop=0.1, layer_norm_epsilon=1e-5,
                  initializer_range=0.02)


class Conv1D(nn.Module):
    """transformers' Conv1D: a linear layer whose weight is (in, out)."""

    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.empty(nx, nf))
        self.bias = nn.Parameter(torch.zeros(nf))
        nn.init.normal_(self.weight, std=0.02)

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


def gelu_new(x):
    """transformers' "gelu_new", GELU's tanh approximation; the same
    function as F.gelu(x, approximate="tanh"), which GoTorch calls."""
    return F.gelu(x, approximate="tanh")


class GPT2Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        n = c["n_positions"]
        self.register_buffer("bias", torch.tril(torch.ones((n, n), dtype=torch.bool)).view(1, 1, n, n),
                             persistent=False)
        self.register_buffer("masked_bias", torch.tensor(-1e4), persistent=False)
        self.embed_dim = c["n_embd"]
        self.num_heads = c["n_head"]
        self.head_dim = self.embed_dim // self.num_heads
        self.split_size = self.embed_dim
        self.c_attn = Conv1D(3 * self.embed_dim, self.embed_dim)
        self.c_proj = Conv1D(self.embed_dim, self.embed_dim)
        self.attn_dropout = nn.Dropout(c["attn_pdrop"])
        self.resid_dropout = nn.Dropout(c["resid_pdrop"])

    def _attn(self, query, key, value):
        attn_weights = torch.matmul(query, key.transpose(-1, -2))
        attn_weights = attn_weights / math.sqrt(value.size(-1))
        query_length, key_length = query.size(-2), key.size(-2)
        causal_mask = self.bias[:, :, key_length - query_length:key_length, :key_length]
        mask_value = torch.finfo(attn_weights.dtype).min
        attn_weights = attn_weights.masked_fill(~causal_mask, mask_value)
        attn_weights = F.softmax(attn_weights, dim=-1)
        attn_weights = self.attn_dropout(attn_weights)
        return torch.matmul(attn_weights, value)

    def _split_heads(self, t):
        return t.view(t.size()[:-1] + (self.num_heads, self.head_dim)).permute(0, 2, 1, 3)

    def _merge_heads(self, t):
        t = t.permute(0, 2, 1, 3).contiguous()
        return t.view(t.size()[:-2] + (self.num_heads * self.head_dim,))

    def forward(self, hidden_states, layer_past=None):
        query, key, value = self.c_attn(hidden_states).split(self.split_size, dim=2)
        query, key, value = self._split_heads(query), self._split_heads(key), self._split_heads(value)
        if layer_past is not None:
            key = torch.cat((layer_past[0], key), dim=-2)
            value = torch.cat((layer_past[1], value), dim=-2)
        present = (key, value)
        out = self._merge_heads(self._attn(query, key, value))
        return self.resid_dropout(self.c_proj(out)), present


class GPT2MLP(nn.Module):
    def __init__(self, inner, c):
        super().__init__()
        self.c_fc = Conv1D(inner, c["n_embd"])
        self.c_proj = Conv1D(c["n_embd"], inner)
        self.dropout = nn.Dropout(c["resid_pdrop"])

    def forward(self, x):
        return self.dropout(self.c_proj(gelu_new(self.c_fc(x))))


class GPT2Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        inner = c["n_inner"] or 4 * c["n_embd"]
        self.ln_1 = nn.LayerNorm(c["n_embd"], eps=c["layer_norm_epsilon"])
        self.attn = GPT2Attention(c)
        self.ln_2 = nn.LayerNorm(c["n_embd"], eps=c["layer_norm_epsilon"])
        self.mlp = GPT2MLP(inner, c)

    def forward(self, h, layer_past=None):
        a, present = self.attn(self.ln_1(h), layer_past)
        h = a + h
        h = h + self.mlp(self.ln_2(h))
        return h, present


class GPT2Model(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.wte = nn.Embedding(c["vocab_size"], c["n_embd"])
        self.wpe = nn.Embedding(c["n_positions"], c["n_embd"])
        self.drop = nn.Dropout(c["embd_pdrop"])
        self.h = nn.ModuleList([GPT2Block(c) for _ in range(c["n_layer"])])
        self.ln_f = nn.LayerNorm(c["n_embd"], eps=c["layer_norm_epsilon"])

    def forward(self, input_ids, past=None):
        past_length = 0 if past is None else past[0][0].size(-2)
        t = input_ids.size(-1)
        position_ids = torch.arange(past_length, past_length + t, dtype=torch.long).unsqueeze(0)
        h = self.drop(self.wte(input_ids) + self.wpe(position_ids))
        presents = []
        for i, block in enumerate(self.h):
            h, p = block(h, None if past is None else past[i])
            presents.append(p)
        return self.ln_f(h), presents


class GPT2LMHeadModel(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.config = c
        self.transformer = GPT2Model(c)
        self.lm_head = nn.Linear(c["n_embd"], c["vocab_size"], bias=False)
        self.lm_head.weight = self.transformer.wte.weight  # tie_word_embeddings
        self.apply(self._init_weights)
        std = c["initializer_range"] / math.sqrt(2 * c["n_layer"])
        for name, p in self.named_parameters():
            if name.endswith("c_proj.weight"):
                nn.init.normal_(p, mean=0.0, std=std)

    def _init_weights(self, m):
        r = self.config["initializer_range"]
        if isinstance(m, (nn.Linear, Conv1D)):
            nn.init.normal_(m.weight, mean=0.0, std=r)
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Embedding):
            nn.init.normal_(m.weight, mean=0.0, std=r)
        elif isinstance(m, nn.LayerNorm):
            nn.init.ones_(m.weight)
            nn.init.zeros_(m.bias)

    def forward(self, input_ids, labels=None, past=None):
        h, presents = self.transformer(input_ids, past)
        logits = self.lm_head(h)
        loss = None
        if labels is not None:
            shift_logits = logits[..., :-1, :].contiguous()
            shift_labels = labels[..., 1:].contiguous()
            loss = F.cross_entropy(shift_logits.view(-1, shift_logits.size(-1)), shift_labels.view(-1))
        return logits, loss, presents


def next_token_logits(model, ids, past, use_cache):
    if use_cache:
        logits, _, past = model(ids if past is None else ids[:, -1:], past=past)
    else:
        logits, _, _ = model(ids)
    return logits[:, -1, :], past


def generate(model, ids, max_new_tokens, use_cache=True, do_sample=False, temperature=1.0, top_k=0,
             generator=None):
    """Greedy or sampled decoding as transformers' generate does it:
    temperature, then top-k (logits below the k-th largest set to -inf),
    softmax, torch.multinomial(probs, 1). Returns the tokens and, for
    greedy decoding, the gap between the best and second-best logit at
    every step."""
    past, gaps = None, []
    with torch.no_grad():
        for _ in range(max_new_tokens):
            scores, past = next_token_logits(model, ids, past, use_cache)
            if do_sample:
                scores = scores / temperature
                if top_k > 0:
                    kth = torch.topk(scores, top_k)[0][..., -1, None]
                    scores = scores.masked_fill(scores < kth, -float("inf"))
                probs = F.softmax(scores, dim=-1)
                nxt = torch.multinomial(probs, num_samples=1, generator=generator).squeeze(1)
            else:
                top2 = torch.topk(scores, 2)[0]
                gaps.append((top2[:, 0] - top2[:, 1]).min().item())
                nxt = torch.argmax(scores, dim=-1)
            ids = torch.cat([ids, nxt[:, None]], dim=-1)
    return ids, gaps


# ---------------------------------------------------------------- BERT


BERT_BASE = dict(vocab_size=30522, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                 intermediate_size=3072, hidden_act="gelu", hidden_dropout_prob=0.1,
                 attention_probs_dropout_prob=0.1, max_position_embeddings=512, type_vocab_size=2,
                 initializer_range=0.02, layer_norm_eps=1e-12, pad_token_id=0, num_labels=2)


class BertEmbeddings(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.word_embeddings = nn.Embedding(c["vocab_size"], c["hidden_size"], padding_idx=c["pad_token_id"])
        self.position_embeddings = nn.Embedding(c["max_position_embeddings"], c["hidden_size"])
        self.token_type_embeddings = nn.Embedding(c["type_vocab_size"], c["hidden_size"])
        self.LayerNorm = nn.LayerNorm(c["hidden_size"], eps=c["layer_norm_eps"])
        self.dropout = nn.Dropout(c["hidden_dropout_prob"])
        self.register_buffer("position_ids", torch.arange(c["max_position_embeddings"]).expand((1, -1)),
                             persistent=False)

    def forward(self, input_ids, token_type_ids):
        t = input_ids.size(1)
        position_ids = self.position_ids[:, :t]
        e = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        e += self.position_embeddings(position_ids)
        return self.dropout(self.LayerNorm(e))


class BertSelfAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.num_attention_heads = c["num_attention_heads"]
        self.attention_head_size = c["hidden_size"] // c["num_attention_heads"]
        self.all_head_size = self.num_attention_heads * self.attention_head_size
        self.query = nn.Linear(c["hidden_size"], self.all_head_size)
        self.key = nn.Linear(c["hidden_size"], self.all_head_size)
        self.value = nn.Linear(c["hidden_size"], self.all_head_size)
        self.dropout = nn.Dropout(c["attention_probs_dropout_prob"])

    def transpose_for_scores(self, x):
        x = x.view(x.size()[:-1] + (self.num_attention_heads, self.attention_head_size))
        return x.permute(0, 2, 1, 3)

    def forward(self, hidden_states, attention_mask):
        mixed_query_layer = self.query(hidden_states)
        key_layer = self.transpose_for_scores(self.key(hidden_states))
        value_layer = self.transpose_for_scores(self.value(hidden_states))
        query_layer = self.transpose_for_scores(mixed_query_layer)
        scores = torch.matmul(query_layer, key_layer.transpose(-1, -2))
        scores = scores / math.sqrt(self.attention_head_size)
        scores = scores + attention_mask
        probs = self.dropout(F.softmax(scores, dim=-1))
        ctx = torch.matmul(probs, value_layer).permute(0, 2, 1, 3).contiguous()
        return ctx.view(ctx.size()[:-2] + (self.all_head_size,))


class BertSelfOutput(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c["hidden_size"], c["hidden_size"])
        self.LayerNorm = nn.LayerNorm(c["hidden_size"], eps=c["layer_norm_eps"])
        self.dropout = nn.Dropout(c["hidden_dropout_prob"])

    def forward(self, hidden_states, input_tensor):
        return self.LayerNorm(self.dropout(self.dense(hidden_states)) + input_tensor)


class BertAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self = BertSelfAttention(c)
        self.output = BertSelfOutput(c)

    def forward(self, hidden_states, attention_mask):
        return self.output(self.self(hidden_states, attention_mask), hidden_states)


class BertIntermediate(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c["hidden_size"], c["intermediate_size"])

    def forward(self, x):
        return F.gelu(self.dense(x))


class BertOutput(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c["intermediate_size"], c["hidden_size"])
        self.LayerNorm = nn.LayerNorm(c["hidden_size"], eps=c["layer_norm_eps"])
        self.dropout = nn.Dropout(c["hidden_dropout_prob"])

    def forward(self, hidden_states, input_tensor):
        return self.LayerNorm(self.dropout(self.dense(hidden_states)) + input_tensor)


class BertLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.attention = BertAttention(c)
        self.intermediate = BertIntermediate(c)
        self.output = BertOutput(c)

    def forward(self, h, attention_mask):
        a = self.attention(h, attention_mask)
        return self.output(self.intermediate(a), a)


class BertEncoder(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.layer = nn.ModuleList([BertLayer(c) for _ in range(c["num_hidden_layers"])])

    def forward(self, h, attention_mask):
        for layer in self.layer:
            h = layer(h, attention_mask)
        return h


class BertPooler(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c["hidden_size"], c["hidden_size"])

    def forward(self, hidden_states):
        return torch.tanh(self.dense(hidden_states[:, 0]))


def bert_init(c, m):
    r = c["initializer_range"]
    if isinstance(m, nn.Linear):
        nn.init.normal_(m.weight, mean=0.0, std=r)
        if m.bias is not None:
            nn.init.zeros_(m.bias)
    elif isinstance(m, nn.Embedding):
        nn.init.normal_(m.weight, mean=0.0, std=r)
        if m.padding_idx is not None:
            with torch.no_grad():
                m.weight[m.padding_idx].zero_()
    elif isinstance(m, nn.LayerNorm):
        nn.init.ones_(m.weight)
        nn.init.zeros_(m.bias)


class BertModel(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embeddings = BertEmbeddings(c)
        self.encoder = BertEncoder(c)
        self.pooler = BertPooler(c)
        self.apply(lambda m: bert_init(c, m))

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        ext = attention_mask[:, None, None, :].to(torch.float32)
        ext = (1.0 - ext) * torch.finfo(torch.float32).min
        h = self.encoder(self.embeddings(input_ids, token_type_ids), ext)
        return h, self.pooler(h)


class BertForSequenceClassification(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.num_labels = c["num_labels"]
        self.bert = BertModel(c)
        self.dropout = nn.Dropout(c["hidden_dropout_prob"])
        self.classifier = nn.Linear(c["hidden_size"], c["num_labels"])
        bert_init(c, self.classifier)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, labels=None):
        h, pooled = self.bert(input_ids, attention_mask, token_type_ids)
        logits = self.classifier(self.dropout(pooled))
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits.view(-1, self.num_labels), labels.view(-1))
        return logits, loss, h, pooled


# ---------------------------------------------------------------- output


def f32(t):
    """A float tensor's values as float32 numbers with 9 digits."""
    return [float(f"{v:.9g}") for v in t.detach().float().reshape(-1).tolist()]


def tensor_json(t):
    if t.dtype.is_floating_point:
        return {"dtype": "float32", "shape": list(t.shape), "values": f32(t)}
    return {"dtype": "int64", "shape": list(t.shape), "values": t.reshape(-1).tolist()}


def perturb(model, gen):
    """Moves every LayerNorm weight and bias and every bias off its init
    (ones and zeros), by N(0, 0.1) noise."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith(".bias") or (name.endswith(".weight") and p.dim() == 1):
                p.add_(torch.randn(p.shape, generator=gen) * 0.1)


def train_step(model, loss_fn, grad_names, lr=1e-3):
    """One training step: the loss, the gradients named, then one AdamW
    step (lr, PyTorch's defaults otherwise) and the parameters after it."""
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    opt.zero_grad()
    loss = loss_fn()
    loss.backward()
    params = dict(model.named_parameters())
    grads = {n: tensor_json(params[n].grad) for n in grad_names}
    opt.step()
    after = {n: tensor_json(params[n]) for n in grad_names}
    return {"loss": float(f"{loss.item():.9g}"), "grads": grads, "after_adamw": after, "lr": lr}


def write_json(name, obj):
    path = os.path.join(OUT, name)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=None, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


GPT2_TINY = dict(GPT2_SMALL, vocab_size=67, n_positions=32, n_embd=32, n_layer=2, n_head=4,
                 initializer_range=0.2)


def make_gpt2():
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2_TINY)
    gen = torch.Generator().manual_seed(1)
    perturb(model, gen)
    torch.save(model.state_dict(), os.path.join(OUT, "gpt2_tiny.pt"))

    ids = torch.randint(0, GPT2_TINY["vocab_size"], (2, 8), generator=gen)
    model.eval()
    with torch.no_grad():
        logits, loss, _ = model(ids, labels=ids)

    prompt = ids[:, :6]
    greedy, gaps = generate(model, prompt, 20)
    uncached, _ = generate(model, prompt, 20, use_cache=False)
    assert torch.equal(greedy, uncached), "cached and uncached greedy decoding differ"
    # The goldens must not depend on the last bits of a logit: every greedy
    # choice wins by a clear margin.
    assert min(gaps) > 1e-3, f"greedy margin {min(gaps)} too small: choose another seed"

    sample_gen = torch.Generator().manual_seed(1234)
    sampled, _ = generate(model, prompt, 20, do_sample=True, temperature=0.8, top_k=5, generator=sample_gen)

    # Dropout off for the training step, so that both sides compute the
    # same function (a train-mode dropout draws from the RNG).
    train_cfg = dict(GPT2_TINY, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    train_model = GPT2LMHeadModel(train_cfg)
    train_model.load_state_dict(model.state_dict(), strict=True)
    step = train_step(train_model, lambda: train_model(ids, labels=ids)[1],
                      ["transformer.wte.weight", "transformer.wpe.weight", "transformer.h.0.ln_1.weight",
                       "transformer.h.0.attn.c_attn.weight", "transformer.h.1.mlp.c_proj.bias",
                       "transformer.ln_f.bias"])
    write_json("gpt2_tiny.json", {
        "torch_version": torch.__version__,
        "config": GPT2_TINY,
        "train_config": train_cfg,
        "input_ids": tensor_json(ids),
        "logits": tensor_json(logits),
        "eval_loss": float(f"{loss.item():.9g}"),
        "greedy": {"prompt": tensor_json(prompt), "max_new_tokens": 20, "tokens": tensor_json(greedy),
                   "min_gap": min(gaps)},
        "sample": {"prompt": tensor_json(prompt), "max_new_tokens": 20, "temperature": 0.8, "top_k": 5,
                   "seed": 1234, "tokens": tensor_json(sampled)},
        "train_step": step,
        "state_dict_keys": list(model.state_dict().keys()),
    })


BERT_TINY = dict(BERT_BASE, vocab_size=50, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                 intermediate_size=64, max_position_embeddings=16, initializer_range=0.2, num_labels=3)


def make_bert():
    torch.manual_seed(2)
    model = BertForSequenceClassification(BERT_TINY)
    gen = torch.Generator().manual_seed(3)
    perturb(model, gen)
    sd = model.state_dict()
    safetensors_py.save(os.path.join(OUT, "bert_tiny.safetensors"), dict(sd), {"format": "pt"})

    ids = torch.randint(1, BERT_TINY["vocab_size"], (2, 8), generator=gen)
    mask = torch.ones(2, 8, dtype=torch.long)
    mask[1, 5:] = 0
    ids[1, 5:] = BERT_TINY["pad_token_id"]
    token_types = torch.zeros(2, 8, dtype=torch.long)
    token_types[:, 4:] = 1
    labels = torch.tensor([2, 0])

    model.eval()
    with torch.no_grad():
        logits, loss, h, pooled = model(ids, mask, token_types, labels)
        h_nomask, pooled_nomask = model.bert(ids)

    train_cfg = dict(BERT_TINY, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    train_model = BertForSequenceClassification(train_cfg)
    train_model.load_state_dict(sd, strict=True)
    step = train_step(train_model, lambda: train_model(ids, mask, token_types, labels)[1],
                      ["bert.embeddings.word_embeddings.weight", "bert.embeddings.token_type_embeddings.weight",
                       "bert.embeddings.LayerNorm.weight", "bert.encoder.layer.0.attention.self.query.weight",
                       "bert.encoder.layer.1.output.LayerNorm.bias", "bert.pooler.dense.weight",
                       "classifier.weight"])
    write_json("bert_tiny.json", {
        "torch_version": torch.__version__,
        "config": BERT_TINY,
        "train_config": train_cfg,
        "input_ids": tensor_json(ids),
        "attention_mask": tensor_json(mask),
        "token_type_ids": tensor_json(token_types),
        "labels": tensor_json(labels),
        "logits": tensor_json(logits),
        "eval_loss": float(f"{loss.item():.9g}"),
        "last_hidden_state": tensor_json(h),
        "pooler_output": tensor_json(pooled),
        "last_hidden_state_no_mask": tensor_json(h_nomask),
        "pooler_output_no_mask": tensor_json(pooled_nomask),
        "train_step": step,
        "state_dict_keys": list(sd.keys()),
    })


def shapes(model, state_dict_keys):
    params = [[n, list(p.shape)] for n, p in model.named_parameters()]
    return {"parameters": params, "count": sum(p.numel() for p in model.parameters()),
            "state_dict_keys": state_dict_keys}


def make_shapes():
    with torch.no_grad():
        gpt2 = GPT2LMHeadModel(GPT2_SMALL)
        g = shapes(gpt2, list(gpt2.state_dict().keys()))
        del gpt2
        bert = BertModel(BERT_BASE)
        b = shapes(bert, list(bert.state_dict().keys()))
        del bert
    assert g["count"] == 124439808, g["count"]
    assert b["count"] == 109482240, b["count"]
    out = {"torch_version": torch.__version__,
           "gpt2": dict(g, config=GPT2_SMALL), "bert": dict(b, config=BERT_BASE)}
    write_json("shapes.json", out)


if __name__ == "__main__":
    make_gpt2()
    make_bert()
    make_shapes()
