// The C++ worker of the benchmark harness (go run ./bench): the workloads
// on libtorch's C++ frontend, the baseline. The harness compiles it with
// g++ -O2 against libtorch and caches the binary under bench/out/. It
// speaks the protocol described in bench/internal/worker/worker.go:
//
//   work serve               commands "JOB ITERS WARMUP REPS" on stdin
//   work startup             one 4x4 add, then the wall clock
//   work rss STEPS EVERY     MLP steps with RSS samples
//
// The thread count comes from BENCH_THREADS (default 2).

#include <torch/torch.h>
#include <torch/version.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
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

void setup() {
  at::set_num_threads(threads());
  torch::manual_seed(1);
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

// timed runs body ITERS times per repetition and returns the times of the
// timed repetitions.
template <class F>
std::vector<int64_t> timed(const Cmd& c, F&& body) {
  std::vector<int64_t> ns;
  for (int64_t r = 0; r < c.warmup + c.reps; r++) {
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
    auto loss = torch::nn::functional::cross_entropy(net->forward(x), y);
    zero_grad(params);
    loss.backward();
    opt.step();
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
      if (c.job == "mlp") {
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
                << ",\"ns\":" << json_array(ns) << "}" << std::endl;
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
