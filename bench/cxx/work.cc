// The C++ worker of the benchmark harness (go run ./bench): the workloads
// on libtorch's C++ frontend, the baseline. The harness compiles it with
// g++ -O2 against libtorch and caches the binary under bench/out/. It
// speaks the protocol described in bench/internal/worker/worker.go:
//
//   work serve               commands "JOB ITERS WARMUP REPS" on stdin
//   work startup             one 4x4 add, then the wall clock
//   work rss STEPS EVERY     MLP steps with RSS samples
//
// The thread count comes from BENCH_THREADS (default 2), the device from
// BENCH_DEVICE: cpu (the default) or cuda, for the GPU jobs (gadd4, gmm4,
// gmlp, gcnn64, gcnn1024, gtrans) on cuda:0. Compiled with -DBENCH_CUDA
// (and the CUDA toolkit's headers), the answers carry the caching
// allocator's peak of allocated bytes (torch.cuda.max_memory_allocated);
// without it, peak_bytes is -1. On the CPU, BENCH_COUNT_ALLOC=1 counts live
// tensor memory (countalloc.h): the answers carry the peak bytes of tensor
// storage since the command was read (peak_bytes) and the process's peak
// RSS (hwm_bytes). The models part's jobs (ResNet-18, GPT-2 generation,
// BERT; models.h) run on either device.

#include <torch/cuda.h>
#include <torch/torch.h>
#include <torch/version.h>
#include <unistd.h>
#ifdef BENCH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include "countalloc.h"
#include "models.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t wall_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int threads() {
  const char* v = std::getenv("BENCH_THREADS");
  int n = v ? std::atoi(v) : 0;
  return n > 0 ? n : 2;
}

bool on_cuda() {
  const char* v = std::getenv("BENCH_DEVICE");
  return v && std::string(v) == "cuda";
}

torch::Device device() { return on_cuda() ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU); }

// check_device returns "" or why the device BENCH_DEVICE names is not there.
std::string check_device() {
  const char* v = std::getenv("BENCH_DEVICE");
  std::string d = v ? v : "";
  if (d == "" || d == "cpu") return "";
  if (d != "cuda") return "BENCH_DEVICE=\"" + d + "\": want cpu or cuda";
  if (!torch::cuda::is_available()) return "-device cuda: no CUDA device (torch::cuda::is_available() is false)";
  return "";
}

void sync() {
  if (on_cuda()) torch::cuda::synchronize();
}

void reset_peak() {
#ifdef BENCH_CUDA
  if (on_cuda()) c10::cuda::CUDACachingAllocator::resetPeakStats(0);
#endif
}

int64_t peak_bytes() {
#ifdef BENCH_CUDA
  if (on_cuda()) return c10::cuda::CUDACachingAllocator::getDeviceStats(0).allocated_bytes[0].peak;  // [0]: StatType::AGGREGATE
#endif
  return -1;
}

void setup() {
  at::set_num_threads(threads());
  torch::manual_seed(1);
  if (std::getenv("BENCH_COUNT_ALLOC") != nullptr) bench_count_install();
}

// hwm_bytes is the process's peak RSS (VmHWM), -1 if unknown.
int64_t hwm_bytes() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::atoll(line.c_str() + 6) * 1024;
  }
  return -1;
}

int64_t rss_bytes() {
  std::ifstream f("/proc/self/statm");
  int64_t size = 0, resident = -1;
  f >> size >> resident;
  return resident < 0 ? -1 : resident * sysconf(_SC_PAGESIZE);
}

std::string json_array(const std::vector<int64_t>& v) {
  std::ostringstream o;
  o << '[';
  for (size_t i = 0; i < v.size(); i++) o << (i ? "," : "") << v[i];
  o << ']';
  return o.str();
}

std::string quote(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (c == '\n') {
      o += "\\n";
      continue;
    }
    o += c;
  }
  return o + "\"";
}

torch::nn::Sequential mlp() {
  return torch::nn::Sequential(
      torch::nn::Linear(784, 512), torch::nn::ReLU(),
      torch::nn::Linear(512, 512), torch::nn::ReLU(),
      torch::nn::Linear(512, 10));
}

// The model of examples/fashion_mnist_go.
torch::nn::Sequential cnn() {
  using namespace torch::nn;
  return Sequential(
      Conv2d(Conv2dOptions(1, 32, 3).padding(1)), BatchNorm2d(32), ReLU(),
      MaxPool2d(MaxPool2dOptions(2)),
      Conv2d(Conv2dOptions(32, 64, 3).padding(1)), BatchNorm2d(64), ReLU(),
      MaxPool2d(MaxPool2dOptions(2)),
      Flatten(), Dropout(0.25), Linear(64 * 7 * 7, 128), ReLU(), Dropout(0.5),
      Linear(128, 10));
}

// zero_grad drops the gradients (set_to_none), as GoTorch's ZeroGrad and
// the Python worker's zero_grad(set_to_none=True) do.
void zero_grad(std::vector<torch::Tensor>& params) {
  for (auto& p : params) p.mutable_grad().reset();
}

struct Cmd {
  std::string job;
  int64_t iters = 0, warmup = 0, reps = 0;
};

// The training jobs' phases, summed over the timed steps (phases_ns in the
// answer): forward with the loss, zero_grad, backward, optimizer step.
int64_t phase_ns[4];
bool phase_on = false;
bool phases_used = false;

void add_phases(int64_t t0, int64_t t1, int64_t t2, int64_t t3, int64_t t4) {
  phases_used = true;
  if (!phase_on) return;
  phase_ns[0] += t1 - t0;
  phase_ns[1] += t2 - t1;
  phase_ns[2] += t3 - t2;
  phase_ns[3] += t4 - t3;
}

// timed runs body ITERS times per repetition and returns the times of the
// timed repetitions.
template <class F>
std::vector<int64_t> timed(const Cmd& c, F&& body) {
  std::vector<int64_t> ns;
  for (int64_t r = 0; r < c.warmup + c.reps; r++) {
    phase_on = r >= c.warmup;
    int64_t t0 = steady_ns();
    for (int64_t i = 0; i < c.iters; i++) body();
    int64_t t = steady_ns() - t0;
    if (r >= c.warmup) ns.push_back(t);
  }
  return ns;
}

std::vector<int64_t> per_op(const Cmd& c, bool& ok) {
  std::string job = c.job;
  bool grad = !job.empty() && job.back() == 'g';
  if (grad) job.pop_back();
  int64_t n;
  bool mm;
  if (job == "add4" || job == "mm4") {
    n = 4;
  } else if (job == "add256" || job == "mm256") {
    n = 256;
  } else {
    ok = false;
    return {};
  }
  mm = job.rfind("mm", 0) == 0;
  auto x = torch::randn({n, n}).requires_grad_(grad);
  auto y = torch::randn({n, n}).requires_grad_(grad);
  ok = true;
  if (mm) return timed(c, [&] { torch::Tensor r = torch::mm(x, y); });
  return timed(c, [&] { torch::Tensor r = torch::add(x, y); });
}

template <class Opt>
std::vector<int64_t> train(const Cmd& c, torch::nn::Sequential net,
                           torch::Tensor x, torch::Tensor y, Opt& opt) {
  auto params = net->parameters();
  return timed(c, [&] {
    int64_t t0 = steady_ns();
    auto loss = torch::nn::functional::cross_entropy(net->forward(x), y);
    int64_t t1 = steady_ns();
    zero_grad(params);
    int64_t t2 = steady_ns();
    loss.backward();
    int64_t t3 = steady_ns();
    opt.step();
    add_phases(t0, t1, t2, t3, steady_ns());
  });
}

// gpu_per_op is the GPU job gadd4 or gmm4: a repetition is ITERS 4x4 ops
// between two synchronizations.
std::vector<int64_t> gpu_per_op(const Cmd& c) {
  auto o = torch::TensorOptions().device(device());
  auto x = torch::randn({4, 4}, o), y = torch::randn({4, 4}, o);
  bool mm = c.job == "gmm4";
  std::vector<int64_t> ns;
  for (int64_t r = 0; r < c.warmup + c.reps; r++) {
    sync();
    int64_t t0 = steady_ns();
    if (mm) {
      for (int64_t i = 0; i < c.iters; i++) torch::Tensor z = torch::mm(x, y);
    } else {
      for (int64_t i = 0; i < c.iters; i++) torch::Tensor z = torch::add(x, y);
    }
    sync();
    int64_t t = steady_ns() - t0;
    if (r >= c.warmup) ns.push_back(t);
  }
  return ns;
}

// gpu_train times the GPU training jobs: every step ends with
// loss.item<float>().
template <class Net, class Opt, class Loss>
std::vector<int64_t> gpu_train(const Cmd& c, Net& net, Opt& opt, torch::Tensor x, torch::Tensor y, Loss loss) {
  auto params = net->parameters();
  std::vector<int64_t> ns;
  for (int64_t r = 0; r < c.warmup + c.reps; r++) {
    sync();
    phase_on = !on_cuda() && r >= c.warmup;  // on the GPU the phases would time launches
    int64_t t0 = steady_ns();
    for (int64_t i = 0; i < c.iters; i++) {
      int64_t p0 = steady_ns();
      auto l = loss(net->forward(x), y);
      int64_t p1 = steady_ns();
      zero_grad(params);
      int64_t p2 = steady_ns();
      l.backward();
      int64_t p3 = steady_ns();
      opt.step();
      l.template item<float>();
      if (!on_cuda()) add_phases(p0, p1, p2, p3, steady_ns());
    }
    int64_t t = steady_ns() - t0;
    if (r >= c.warmup) ns.push_back(t);
  }
  return ns;
}

// gpu_job runs a GPU training job (gmlp, gcnn64, gcnn1024, gtrans) on
// device(); ok is false for other jobs.
std::vector<int64_t> gpu_job(const Cmd& c, bool& ok) {
  namespace F = torch::nn::functional;
  auto o = torch::TensorOptions().device(device());
  auto ce = [](torch::Tensor out, torch::Tensor y) { return F::cross_entropy(out, y); };
  ok = true;
  if (c.job == "gmlp" || c.job == "gcnn64" || c.job == "gcnn1024") {
    bool isMLP = c.job == "gmlp";
    int64_t n = c.job == "gcnn64" ? 64 : 1024;
    auto net = isMLP ? mlp() : cnn();
    net->to(device());
    net->train();
    torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(1e-3));
    auto x = isMLP ? torch::randn({n, 784}, o) : torch::randn({n, 1, 28, 28}, o);
    return gpu_train(c, net, opt, x, torch::randint(10, {n}, o.dtype(torch::kLong)), ce);
  }
  if (c.job == "gtrans") {
    using namespace torch::nn;
    TransformerEncoder net(TransformerEncoderOptions(TransformerEncoderLayerOptions(512, 8).dim_feedforward(2048), 6));
    net->to(device());
    net->train();
    torch::optim::AdamW opt(net->parameters(), torch::optim::AdamWOptions(1e-4));
    auto mse = [](torch::Tensor out, torch::Tensor y) { return F::mse_loss(out, y); };
    return gpu_train(c, net, opt, torch::randn({256, 32, 512}, o), torch::randn({256, 32, 512}, o), mse);
  }
  ok = false;
  return {};
}

// The models part's shapes (BENCH_MODEL_SHAPES: full, the default, or
// small for the harness's -quick), as bench/internal/worker/models.go.
struct ModelShapes {
  int64_t image, gpt2_layers, bert_layers, bert_seq;
};

ModelShapes model_shapes() {
  const char* v = std::getenv("BENCH_MODEL_SHAPES");
  std::string s = v ? v : "";
  if (s == "" || s == "full") return {224, 12, 12, 128};
  if (s == "small") return {64, 2, 2, 32};
  throw std::runtime_error("BENCH_MODEL_SHAPES=\"" + s + "\": want full or small");
}

bool is_model_job(const std::string& job) {
  return job == "r18b1" || job == "r18b32" || job == "r18train" || job == "gpt2gen" || job == "bert";
}

// timed_reps runs body once per repetition, between two synchronizations.
template <class F>
std::vector<int64_t> timed_reps(const Cmd& c, F&& body) {
  std::vector<int64_t> ns;
  for (int64_t r = 0; r < c.warmup + c.reps; r++) {
    phase_on = !on_cuda() && r >= c.warmup;
    sync();
    int64_t t0 = steady_ns();
    body();
    sync();
    int64_t t = steady_ns() - t0;
    if (r >= c.warmup) ns.push_back(t);
  }
  return ns;
}

// check_params throws unless net has want parameters (elements): the
// hand-written models must have the shapes of the Go and Python ones.
template <class Net>
void check_params(const Net& net, int64_t want, const std::string& what) {
  int64_t n = 0;
  for (const auto& p : net->parameters()) n += p.numel();
  if (n != want)
    throw std::runtime_error(what + " has " + std::to_string(n) + " parameters, want " + std::to_string(want));
}

// model_job runs one of the models part's jobs on device() (see
// bench/internal/worker/models.go): ResNet-18 forward at batch 1 or 32
// (r18b1, r18b32) and training step at batch 16 (r18train, SGD with
// momentum), GPT-2 greedy generation with the cache from an 8-token prompt
// (gpt2gen: a repetition is one generation of ITERS tokens) and the BERT
// encoder at 8 x 128 (bert).
std::vector<int64_t> model_job(const Cmd& c) {
  using namespace bench_models;
  ModelShapes sh = model_shapes();
  auto o = torch::TensorOptions().device(device());
  auto ids = o.dtype(torch::kLong);
  if (c.job == "r18b1" || c.job == "r18b32") {
    int64_t n = c.job == "r18b1" ? 1 : 32;
    ResNet18 net;
    check_params(net, 11689512, "ResNet-18");  // torchvision's resnet18()
    net->to(device());
    net->eval();
    auto x = torch::randn({n, 3, sh.image, sh.image}, o);
    return timed_reps(c, [&] {
      torch::NoGradGuard no_grad;
      for (int64_t i = 0; i < c.iters; i++) net->forward(x);
    });
  }
  if (c.job == "r18train") {
    ResNet18 net;
    check_params(net, 11689512, "ResNet-18");
    net->to(device());
    net->train();
    auto params = net->parameters();
    torch::optim::SGD opt(params, torch::optim::SGDOptions(0.01).momentum(0.9));
    auto x = torch::randn({16, 3, sh.image, sh.image}, o);
    auto y = torch::randint(1000, {16}, ids);
    return timed_reps(c, [&] {
      for (int64_t i = 0; i < c.iters; i++) {
        int64_t p0 = steady_ns();
        auto loss = torch::nn::functional::cross_entropy(net->forward(x), y);
        int64_t p1 = steady_ns();
        zero_grad(params);
        int64_t p2 = steady_ns();
        loss.backward();
        int64_t p3 = steady_ns();
        opt.step();
        loss.item<float>();
        if (!on_cuda()) add_phases(p0, p1, p2, p3, steady_ns());
      }
    });
  }
  if (c.job == "gpt2gen") {
    GPT2Config cfg;
    cfg.n_layer = sh.gpt2_layers;
    GPT2LMHead net(cfg);
    // The tied head has no parameters of its own: 124,439,808 for GPT-2 small.
    int64_t e = cfg.n_embd;
    check_params(net, (cfg.vocab_size + cfg.n_positions) * e + cfg.n_layer * (12 * e * e + 13 * e) + 2 * e, "GPT-2");
    net->to(device());
    net->eval();
    auto prompt = torch::randint(cfg.vocab_size, {1, 8}, ids);
    return timed_reps(c, [&] { net->generate(prompt, c.iters); });
  }
  BertConfig cfg;  // bert
  cfg.layers = sh.bert_layers;
  BertModel net(cfg);
  // 109,482,240 for BERT-base.
  int64_t hd = cfg.hidden, in = cfg.intermediate;
  check_params(net, (cfg.vocab_size + cfg.max_positions + cfg.type_vocab + 2) * hd +
                        cfg.layers * (4 * hd * hd + 9 * hd + 2 * hd * in + in) + hd * hd + hd,
               "BERT");
  net->to(device());
  net->eval();
  auto x = torch::randint(cfg.vocab_size, {8, sh.bert_seq}, ids);
  auto mask = torch::ones({8, sh.bert_seq}, ids);
  return timed_reps(c, [&] {
    torch::NoGradGuard no_grad;
    for (int64_t i = 0; i < c.iters; i++) net->forward(x, mask);
  });
}

void hello() {
  std::cout << "{\"impl\":\"cxx\",\"version\":" << quote(TORCH_VERSION)
            << ",\"threads\":" << at::get_num_threads() << "}" << std::endl;
}

void serve() {
  hello();
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    Cmd c;
    if (!(in >> c.job >> c.iters >> c.warmup >> c.reps)) {
      if (!line.empty())
        std::cout << "{\"error\":" << quote("bad command " + line) << "}"
                  << std::endl;
      continue;
    }
    try {
      std::vector<int64_t> ns;
      bool ok = true;
      bool gpu = c.job == "gadd4" || c.job == "gmm4" || c.job == "gmlp" || c.job == "gcnn64" ||
                 c.job == "gcnn1024" || c.job == "gtrans";
      if (gpu || is_model_job(c.job)) reset_peak();
      bool counting = !on_cuda() && bench_count_installed();
      std::fill(std::begin(phase_ns), std::end(phase_ns), 0);
      phases_used = false;
      if (counting) bench_count_reset_peak();
      if (is_model_job(c.job)) {
        ns = model_job(c);
      } else if (c.job == "gadd4" || c.job == "gmm4") {
        ns = gpu_per_op(c);
      } else if (gpu) {
        ns = gpu_job(c, ok);
      } else if (c.job == "trans") {  // the transformer step on the CPU: the GPU job's code
        Cmd g = c;
        g.job = "gtrans";
        ns = gpu_job(g, ok);
      } else if (c.job == "mlp") {
        auto net = mlp();
        torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.01));
        ns = train(c, net, torch::randn({64, 784}), torch::randint(10, {64}), opt);
      } else if (c.job == "cnn") {
        auto net = cnn();
        net->train();
        torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(1e-3));
        ns = train(c, net, torch::randn({64, 1, 28, 28}), torch::randint(10, {64}), opt);
      } else {
        ns = per_op(c, ok);
      }
      if (!ok) {
        std::cout << "{\"job\":" << quote(c.job) << ",\"error\":"
                  << quote("unknown job " + c.job) << "}" << std::endl;
        continue;
      }
      std::cout << "{\"job\":" << quote(c.job) << ",\"iters\":" << c.iters
                << ",\"ns\":" << json_array(ns);
      if (on_cuda()) std::cout << ",\"peak_bytes\":" << peak_bytes();
      if (counting) std::cout << ",\"peak_bytes\":" << bench_count_peak() << ",\"hwm_bytes\":" << hwm_bytes();
      if (phases_used) std::cout << ",\"phases_ns\":" << json_array(std::vector<int64_t>(std::begin(phase_ns), std::end(phase_ns)));
      std::cout << "}" << std::endl;
    } catch (const std::exception& e) {
      std::cout << "{\"job\":" << quote(c.job) << ",\"error\":" << quote(e.what())
                << "}" << std::endl;
    }
  }
}

void startup() {
  setup();
  auto x = torch::ones({4, 4});
  auto y = torch::add(x, x);
  int64_t t = wall_ns();
  std::cout << "{\"first_op_unix_ns\":" << t << "}" << std::endl;
}

void rss(int64_t steps, int64_t every) {
  auto net = mlp();
  auto params = net->parameters();
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.01));
  auto x = torch::randn({64, 784});
  auto y = torch::randint(10, {64});
  int64_t t0 = steady_ns();
  for (int64_t i = 1; i <= steps; i++) {
    {
      auto loss = torch::nn::functional::cross_entropy(net->forward(x), y);
      zero_grad(params);
      loss.backward();
      opt.step();
    }
    if (i % every == 0)
      std::cout << "{\"step\":" << i << ",\"rss\":" << rss_bytes() << "}"
                << std::endl;
  }
  std::cout << "{\"done\":true,\"total_ns\":" << steady_ns() - t0 << "}" << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "serve";
  if (mode == "startup") {
    startup();
    return 0;
  }
  std::string why = check_device();
  if (!why.empty()) {
    std::cout << "{\"error\":" << quote(why) << "}" << std::endl;
    return 1;
  }
  setup();
  if (mode == "serve") {
    serve();
  } else if (mode == "rss") {
    rss(argc > 2 ? std::atoll(argv[2]) : 10000, argc > 3 ? std::atoll(argv[3]) : 500);
  } else {
    std::cerr << "usage: work serve | startup | rss STEPS EVERY" << std::endl;
    return 2;
  }
  return 0;
}
