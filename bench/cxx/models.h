// The models of the benchmark's models part (issue #35), written by hand
// on libtorch's C++ frontend (torchvision's C++ models are not packaged):
//
//   ResNet18        torchvision.models.resnet18: conv1, bn1, relu, maxpool,
//                   layer1..layer4 of two BasicBlocks each, avgpool, fc
//   GPT2LMHead      GPT-2 (transformers' GPT2LMHeadModel): token and position
//                   embeddings, pre-norm blocks with causal self-attention
//                   and a gelu_new MLP, ln_f, the head tied to wte; forward
//                   takes a key/value cache; generate() decodes greedily
//   BertModel       BERT (transformers' BertModel): embeddings with token
//                   types, post-norm blocks (erf GELU), the pooler
//
// The arithmetic is that of models/vision and models/text in Go and of the
// PyTorch references (torchvision; models/text/testdata/gen.py): the same
// ops in the same order, so that the workers do the same work. Weights are
// drawn from torch's generator (normal, std 0.02, for the text models;
// torchvision's kaiming_normal_ for the convolutions).
#pragma once

#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <vector>

namespace bench_models {

using torch::Tensor;
namespace nn = torch::nn;

// ---------------------------------------------------------------- ResNet-18

inline nn::Conv2d conv(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad) {
  return nn::Conv2d(nn::Conv2dOptions(in, out, k).stride(stride).padding(pad).bias(false));
}

struct BasicBlockImpl : nn::Module {
  nn::Conv2d conv1{nullptr}, conv2{nullptr};
  nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
  nn::Sequential downsample{nullptr};

  BasicBlockImpl(int64_t in, int64_t planes, int64_t stride) {
    conv1 = register_module("conv1", conv(in, planes, 3, stride, 1));
    bn1 = register_module("bn1", nn::BatchNorm2d(planes));
    conv2 = register_module("conv2", conv(planes, planes, 3, 1, 1));
    bn2 = register_module("bn2", nn::BatchNorm2d(planes));
    if (stride != 1 || in != planes) {
      downsample = register_module("downsample", nn::Sequential(conv(in, planes, 1, stride, 0), nn::BatchNorm2d(planes)));
    }
  }

  Tensor forward(Tensor x) {
    auto out = bn1(conv1(x)).relu_();
    out = bn2(conv2(out));
    auto identity = downsample ? downsample->forward(x) : x;
    out += identity;
    return out.relu_();
  }
};
TORCH_MODULE(BasicBlock);

struct ResNet18Impl : nn::Module {
  nn::Conv2d conv1{nullptr};
  nn::BatchNorm2d bn1{nullptr};
  nn::MaxPool2d maxpool{nullptr};
  nn::Sequential layer1{nullptr}, layer2{nullptr}, layer3{nullptr}, layer4{nullptr};
  nn::Linear fc{nullptr};

  explicit ResNet18Impl(int64_t num_classes = 1000) {
    conv1 = register_module("conv1", conv(3, 64, 7, 2, 3));
    bn1 = register_module("bn1", nn::BatchNorm2d(64));
    maxpool = register_module("maxpool", nn::MaxPool2d(nn::MaxPool2dOptions(3).stride(2).padding(1)));
    layer1 = register_module("layer1", nn::Sequential(BasicBlock(64, 64, 1), BasicBlock(64, 64, 1)));
    layer2 = register_module("layer2", nn::Sequential(BasicBlock(64, 128, 2), BasicBlock(128, 128, 1)));
    layer3 = register_module("layer3", nn::Sequential(BasicBlock(128, 256, 2), BasicBlock(256, 256, 1)));
    layer4 = register_module("layer4", nn::Sequential(BasicBlock(256, 512, 2), BasicBlock(512, 512, 1)));
    fc = register_module("fc", nn::Linear(512, num_classes));
    torch::NoGradGuard no_grad;
    for (auto& m : modules(/*include_self=*/false)) {
      if (auto* c = m->as<nn::Conv2d>()) {
        nn::init::kaiming_normal_(c->weight, 0, torch::kFanOut, torch::kReLU);
      }
    }
  }

  Tensor forward(Tensor x) {
    x = maxpool(bn1(conv1(x)).relu_());
    x = layer4->forward(layer3->forward(layer2->forward(layer1->forward(x))));
    x = torch::adaptive_avg_pool2d(x, {1, 1});
    return fc(torch::flatten(x, 1));
  }
};
TORCH_MODULE(ResNet18);

// ---------------------------------------------------------------- GPT-2

struct GPT2Config {
  int64_t vocab_size = 50257, n_positions = 1024, n_embd = 768, n_layer = 12, n_head = 12;
  double eps = 1e-5;
};

inline void normal_init(Tensor& t, double std = 0.02) {
  torch::NoGradGuard no_grad;
  t.normal_(0, std);
}

// Conv1D is transformers' linear layer with its weight stored (in, out).
struct Conv1DImpl : nn::Module {
  int64_t nf, nx;
  Tensor weight, bias;

  Conv1DImpl(int64_t nf_, int64_t nx_) : nf(nf_), nx(nx_) {
    weight = register_parameter("weight", torch::empty({nx, nf}));
    bias = register_parameter("bias", torch::zeros({nf}));
    normal_init(weight);
  }

  Tensor forward(const Tensor& x) {
    auto shape = x.sizes().vec();
    shape.back() = nf;
    return torch::addmm(bias, x.reshape({-1, nx}), weight).view(shape);
  }
};
TORCH_MODULE(Conv1D);

struct GPT2BlockImpl : nn::Module {
  int64_t n_embd, n_head, head_dim;
  nn::LayerNorm ln_1{nullptr}, ln_2{nullptr};
  Conv1D c_attn{nullptr}, attn_proj{nullptr}, c_fc{nullptr}, mlp_proj{nullptr};

  explicit GPT2BlockImpl(const GPT2Config& c) : n_embd(c.n_embd), n_head(c.n_head), head_dim(c.n_embd / c.n_head) {
    auto ln = [&] { return nn::LayerNorm(nn::LayerNormOptions({c.n_embd}).eps(c.eps)); };
    ln_1 = register_module("ln_1", ln());
    c_attn = register_module("c_attn", Conv1D(3 * c.n_embd, c.n_embd));
    attn_proj = register_module("attn_c_proj", Conv1D(c.n_embd, c.n_embd));
    ln_2 = register_module("ln_2", ln());
    c_fc = register_module("c_fc", Conv1D(4 * c.n_embd, c.n_embd));
    mlp_proj = register_module("mlp_c_proj", Conv1D(c.n_embd, 4 * c.n_embd));
    double std = 0.02 / std::sqrt(2.0 * c.n_layer);  // transformers' c_proj weights
    normal_init(attn_proj->weight, std);
    normal_init(mlp_proj->weight, std);
  }

  Tensor split_heads(const Tensor& t) const {
    return t.view({t.size(0), t.size(1), n_head, head_dim}).permute({0, 2, 1, 3});
  }

  // attn attends from x to the cached keys and values (pk, pv; undefined
  // for none) and its own, and replaces pk and pv with them all.
  Tensor attn(const Tensor& x, Tensor& pk, Tensor& pv) {
    auto qkv = c_attn(x).split(n_embd, 2);
    auto q = split_heads(qkv[0]), k = split_heads(qkv[1]), v = split_heads(qkv[2]);
    if (pk.defined()) {
      k = torch::cat({pk, k}, -2);
      v = torch::cat({pv, v}, -2);
    }
    auto w = torch::matmul(q, k.transpose(-1, -2)) / std::sqrt(static_cast<double>(head_dim));
    int64_t tq = q.size(2), tk = k.size(2);
    if (tq > 1) {
      auto mask = torch::ones({tq, tk}, torch::TensorOptions().dtype(torch::kBool).device(w.device())).triu(tk - tq + 1);
      w = w.masked_fill(mask, std::numeric_limits<float>::lowest());
    }
    w = torch::softmax(w, -1);
    auto h = torch::matmul(w, v).permute({0, 2, 1, 3}).contiguous();
    pk = k;
    pv = v;
    return attn_proj(h.view({h.size(0), h.size(1), n_embd}));
  }

  Tensor forward(const Tensor& x, Tensor& pk, Tensor& pv) {
    auto h = attn(ln_1(x), pk, pv) + x;
    return h + mlp_proj(torch::gelu(c_fc(ln_2(h)), "tanh"));
  }
};
TORCH_MODULE(GPT2Block);

// KVCache holds every block's keys and values (batch, head, seen, head_dim).
struct KVCache {
  std::vector<Tensor> keys, values;
  int64_t len() const { return keys.empty() || !keys[0].defined() ? 0 : keys[0].size(2); }
};

struct GPT2LMHeadImpl : nn::Module {
  GPT2Config config;
  nn::Embedding wte{nullptr}, wpe{nullptr};
  std::vector<GPT2Block> h;
  nn::LayerNorm ln_f{nullptr};

  explicit GPT2LMHeadImpl(const GPT2Config& c) : config(c) {
    wte = register_module("wte", nn::Embedding(c.vocab_size, c.n_embd));
    wpe = register_module("wpe", nn::Embedding(c.n_positions, c.n_embd));
    for (int64_t i = 0; i < c.n_layer; i++) h.push_back(register_module("h" + std::to_string(i), GPT2Block(c)));
    ln_f = register_module("ln_f", nn::LayerNorm(nn::LayerNormOptions({c.n_embd}).eps(c.eps)));
    normal_init(wte->weight);
    normal_init(wpe->weight);
  }

  // forward returns the logits (batch, seq, vocab) of ids, the tokens that
  // follow those in cache, and adds their keys and values to it. The head
  // is tied to wte.
  Tensor forward(const Tensor& ids, KVCache& cache) {
    int64_t past = cache.len();
    if (cache.keys.empty()) cache.keys.resize(h.size()), cache.values.resize(h.size());
    auto pos = torch::arange(past, past + ids.size(1), torch::TensorOptions().dtype(torch::kLong).device(ids.device())).unsqueeze(0);
    auto x = wte(ids) + wpe(pos);
    for (size_t i = 0; i < h.size(); i++) x = h[i]->forward(x, cache.keys[i], cache.values[i]);
    return torch::linear(ln_f(x), wte->weight);
  }

  // generate continues prompt (batch, seq) greedily by n tokens with the
  // cache, as transformers' generate does, and returns the whole sequence.
  Tensor generate(const Tensor& prompt, int64_t n) {
    torch::NoGradGuard no_grad;
    KVCache cache;
    Tensor seq = prompt, next = prompt;
    for (int64_t i = 0; i < n; i++) {
      auto logits = forward(next, cache);
      next = logits.select(1, -1).argmax(-1).unsqueeze(1);
      seq = torch::cat({seq, next}, 1);
    }
    return seq;
  }
};
TORCH_MODULE(GPT2LMHead);

// ---------------------------------------------------------------- BERT

struct BertConfig {
  int64_t vocab_size = 30522, hidden = 768, layers = 12, heads = 12, intermediate = 3072, max_positions = 512,
          type_vocab = 2;
  double eps = 1e-12;
};

inline nn::Linear dense(int64_t in, int64_t out) {
  nn::Linear l(in, out);
  normal_init(l->weight);
  torch::NoGradGuard no_grad;
  l->bias.zero_();
  return l;
}

struct BertLayerImpl : nn::Module {
  int64_t heads, head_size;
  nn::Linear query{nullptr}, key{nullptr}, value{nullptr}, attn_out{nullptr}, inter{nullptr}, out{nullptr};
  nn::LayerNorm attn_ln{nullptr}, out_ln{nullptr};

  explicit BertLayerImpl(const BertConfig& c) : heads(c.heads), head_size(c.hidden / c.heads) {
    auto ln = [&] { return nn::LayerNorm(nn::LayerNormOptions({c.hidden}).eps(c.eps)); };
    query = register_module("query", dense(c.hidden, c.hidden));
    key = register_module("key", dense(c.hidden, c.hidden));
    value = register_module("value", dense(c.hidden, c.hidden));
    attn_out = register_module("attention_output", dense(c.hidden, c.hidden));
    attn_ln = register_module("attention_LayerNorm", ln());
    inter = register_module("intermediate", dense(c.hidden, c.intermediate));
    out = register_module("output", dense(c.intermediate, c.hidden));
    out_ln = register_module("output_LayerNorm", ln());
  }

  Tensor heads_of(const Tensor& x) const {
    return x.view({x.size(0), x.size(1), heads, head_size}).permute({0, 2, 1, 3});
  }

  Tensor forward(const Tensor& h, const Tensor& mask) {
    auto q = heads_of(query(h)), k = heads_of(key(h)), v = heads_of(value(h));
    auto s = torch::matmul(q, k.transpose(-1, -2)) / std::sqrt(static_cast<double>(head_size));
    if (mask.defined()) s = s + mask;
    auto ctx = torch::matmul(torch::softmax(s, -1), v).permute({0, 2, 1, 3}).contiguous();
    ctx = ctx.view({ctx.size(0), ctx.size(1), heads * head_size});
    auto a = attn_ln(attn_out(ctx) + h);
    return out_ln(out(torch::gelu(inter(a))) + a);
  }
};
TORCH_MODULE(BertLayer);

struct BertModelImpl : nn::Module {
  nn::Embedding word{nullptr}, position{nullptr}, token_type{nullptr};
  nn::LayerNorm emb_ln{nullptr};
  std::vector<BertLayer> layer;
  nn::Linear pooler{nullptr};

  explicit BertModelImpl(const BertConfig& c) {
    word = register_module("word_embeddings", nn::Embedding(nn::EmbeddingOptions(c.vocab_size, c.hidden).padding_idx(0)));
    position = register_module("position_embeddings", nn::Embedding(c.max_positions, c.hidden));
    token_type = register_module("token_type_embeddings", nn::Embedding(c.type_vocab, c.hidden));
    emb_ln = register_module("embeddings_LayerNorm", nn::LayerNorm(nn::LayerNormOptions({c.hidden}).eps(c.eps)));
    for (int64_t i = 0; i < c.layers; i++) layer.push_back(register_module("layer" + std::to_string(i), BertLayer(c)));
    pooler = register_module("pooler", dense(c.hidden, c.hidden));
    normal_init(word->weight);
    normal_init(position->weight);
    normal_init(token_type->weight);
    torch::NoGradGuard no_grad;
    word->weight[0].zero_();
  }

  // forward returns the last hidden state and the pooled output of ids
  // (batch, seq) with attention_mask (1 for a token, 0 for padding), token
  // types all 0.
  std::pair<Tensor, Tensor> forward(const Tensor& ids, const Tensor& attention_mask) {
    auto types = torch::zeros_like(ids, torch::kLong);
    auto pos = torch::arange(ids.size(1), torch::TensorOptions().dtype(torch::kLong).device(ids.device())).unsqueeze(0);
    auto h = emb_ln(word(ids) + token_type(types) + position(pos));
    // transformers' get_extended_attention_mask: (1 - mask) * min.
    auto ext = attention_mask.to(h.scalar_type()).view({ids.size(0), 1, 1, ids.size(1)});
    ext = (1 - ext) * std::numeric_limits<float>::lowest();
    for (auto& l : layer) h = l->forward(h, ext);
    return {h, torch::tanh(pooler(h.select(1, 0)))};
  }
};
TORCH_MODULE(BertModel);

}  // namespace bench_models
