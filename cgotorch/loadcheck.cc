//go:build !gotorch_prebuilt

// loadcheck.cc: the pickle walk and the tensor check of loadcheck.h.
#include "loadcheck.h"

#include <ATen/EmptyTensor.h>

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gotorch {

namespace {

// The values the walk tracks. A scalar, a string, a global or a tensor is
// a leaf (kLeaf); every container or call result is a node, and a node's
// edges go to the values it holds, so that the nesting of the result is
// the longest path in the graph and a value that holds itself is a cycle.
constexpr int32_t kLeaf = -1;

// Kinds of nodes: what APPENDS and SETITEMS may add to.
enum NodeKind : uint8_t { kList, kDict, kTuple, kCall };

struct Graph {
  std::vector<NodeKind> kind;
  std::vector<std::pair<int32_t, int32_t>> edges;  // (holder, held)

  int32_t add(NodeKind k) {
    kind.push_back(k);
    return static_cast<int32_t>(kind.size() - 1);
  }
  void hold(int32_t holder, int32_t held) {
    if (held != kLeaf) edges.emplace_back(holder, held);
  }

  // check finds the deepest nesting and any cycle, without recursion.
  void check(const char *what) const {
    const size_t n = kind.size();
    std::vector<std::pair<int32_t, int32_t>> e(edges);
    std::sort(e.begin(), e.end());
    std::vector<size_t> first(n + 1, 0);  // CSR: node i's edges are e[first[i]..first[i+1])
    for (const auto &x : e) first[static_cast<size_t>(x.first) + 1]++;
    for (size_t i = 0; i < n; i++) first[i + 1] += first[i];
    std::vector<uint8_t> state(n, 0);  // 0 new, 1 on the path, 2 done
    std::vector<int64_t> depth(n, 1);
    std::vector<std::pair<int32_t, size_t>> path;  // node, next edge
    for (size_t root = 0; root < n; root++) {
      if (state[root] != 0) continue;
      state[root] = 1;
      path.emplace_back(static_cast<int32_t>(root), first[root]);
      while (!path.empty()) {
        auto &top = path.back();
        const size_t v = static_cast<size_t>(top.first);
        if (top.second < first[v + 1]) {
          const size_t w = static_cast<size_t>(e[top.second++].second);
          TORCH_CHECK(state[w] != 1, "corrupt pickle: a value that contains itself (a cycle), "
                      "which libtorch cannot free or walk (in ", what, ")");
          if (state[w] == 0) {
            state[w] = 1;
            path.emplace_back(static_cast<int32_t>(w), first[w]);
          }
          continue;
        }
        int64_t d = 1;
        for (size_t j = first[v]; j < first[v + 1]; j++) {
          d = std::max(d, 1 + depth[static_cast<size_t>(e[j].second)]);
        }
        depth[v] = d;
        TORCH_CHECK(d <= kMaxPickleDepth, "corrupt pickle: values nested more than ",
                    kMaxPickleDepth, " deep (the limit of the pickle check) (in ", what, ")");
        state[v] = 2;
        path.pop_back();
      }
    }
  }
};

}  // namespace

// The walk mirrors libtorch 1.13's Unpickler::readInstruction opcode by
// opcode. Where that unpickler trusts the program, the walk checks:
//   - it grows its memo table to any LONG_BINPUT index it reads (a 337-byte
//     file made it allocate 20 GB and more) and sizes strings from their
//     length field before reading them;
//   - it pops its stack without checking that the stack holds enough (a
//     TUPLE2 on an empty stack is a segmentation fault), and trusts MARKs;
//   - its values, and the IValue destructor, recurse: a list nested a
//     million deep overflows the native stack, and one that holds itself
//     is never freed.
// So the walk keeps the stack (as leaves and nodes), the marks and the
// memo, and refuses what no pickler writes: items taken across a MARK, a
// memo index beyond the program's length, an opcode that unpickler does not
// know. At STOP the graph of the values built must be acyclic and at most
// kMaxPickleDepth deep.
void check_pickle(const uint8_t *p, size_t n, const char *what) {
  size_t i = 0, at = 0;
  std::vector<int32_t> stack;
  std::vector<size_t> marks;
  std::unordered_map<uint64_t, int32_t> memo;
  Graph g;
  auto need = [&](uint64_t k) {
    TORCH_CHECK(k <= n - i, "corrupt pickle: opcode at offset ", at, " needs ", k,
                " more bytes, ", n - i, " are left", " (in ", what, ")");
  };
  auto le = [&](size_t k) {
    need(k);
    uint64_t v = 0;
    for (size_t j = 0; j < k; j++) v |= static_cast<uint64_t>(p[i + j]) << (8 * j);
    i += k;
    return v;
  };
  auto line = [&] {
    const void *nl = std::memchr(p + i, '\n', n - i);
    TORCH_CHECK(nl != nullptr, "corrupt pickle: unterminated line at offset ", i, " (in ", what, ")");
    i = static_cast<size_t>(static_cast<const uint8_t *>(nl) - p) + 1;
  };
  auto base = [&]() -> size_t { return marks.empty() ? 0 : marks.back(); };
  auto opname = [&] { return static_cast<int>(p[at]); };
  // items needs k values above the last mark.
  auto items = [&](size_t k) {
    TORCH_CHECK(stack.size() >= base() + k, "corrupt pickle: opcode ", opname(),
                " at offset ", at, " needs ", k, " values on the stack, it holds ",
                stack.size() - base(), " (in ", what, ")");
  };
  auto mark = [&]() {  // pops the last mark
    TORCH_CHECK(!marks.empty(), "corrupt pickle: opcode ", opname(), " at offset ", at,
                " without a matching MARK", " (in ", what, ")");
    size_t m = marks.back();
    marks.pop_back();
    return m;
  };
  // container is the value below the last mark, which APPENDS and SETITEMS
  // add to: it must be a list (or dict), or a call's result.
  auto container = [&](size_t m, NodeKind want) {
    TORCH_CHECK(m > base(), "corrupt pickle: opcode ", opname(), " at offset ", at,
                " without a container below its MARK", " (in ", what, ")");
    int32_t c = stack[m - 1];
    TORCH_CHECK(c != kLeaf && (g.kind[static_cast<size_t>(c)] == want ||
                               g.kind[static_cast<size_t>(c)] == kCall),
                "corrupt pickle: opcode ", opname(), " at offset ", at, " adds to a ",
                c == kLeaf ? "scalar" : "value", " that is not a ", want == kList ? "list" : "dict", " (in ", what, ")");
    return c;
  };
  // collect makes a node of kind k holding stack[from..] in place of them.
  auto collect = [&](size_t from, NodeKind k) {
    int32_t v = g.add(k);
    for (size_t j = from; j < stack.size(); j++) g.hold(v, stack[j]);
    stack.resize(from);
    stack.push_back(v);
  };
  auto memo_put = [&](uint64_t id) {
    TORCH_CHECK(id < n, "corrupt pickle: memo index ", id, " at offset ", at, " in a ",
                n, "-byte pickle", " (in ", what, ")");
    items(1);
    memo[id] = stack.back();
  };
  auto memo_get = [&](uint64_t id) {
    auto it = memo.find(id);
    TORCH_CHECK(it != memo.end(), "corrupt pickle: memo entry ", id, " at offset ", at,
                " was never stored", " (in ", what, ")");
    stack.push_back(it->second);
  };
  while (i < n) {
    at = i;
    switch (p[i++]) {
      case '.':  // STOP
        TORCH_CHECK(stack.size() == 1 && marks.empty(), "corrupt pickle: STOP at offset ",
                    at, " with ", stack.size(), " values and ", marks.size(),
                    " marks on the stack, want 1 and 0", " (in ", what, ")");
        g.check(what);
        return;
      case 0x80:  // PROTO
        TORCH_CHECK(at == 0, "corrupt pickle: PROTO at offset ", at, " (in ", what, ")");
        le(1);
        break;
      case '(':  // MARK
        marks.push_back(stack.size());
        break;
      case ']':  // EMPTY_LIST
        stack.push_back(g.add(kList));
        break;
      case '}':  // EMPTY_DICT
        stack.push_back(g.add(kDict));
        break;
      case ')': case 0x88: case 0x89: case 'N':  // EMPTY_TUPLE, NEWTRUE, NEWFALSE, NONE
        stack.push_back(kLeaf);
        break;
      case 'K':  // BININT1
        le(1);
        stack.push_back(kLeaf);
        break;
      case 'M':  // BININT2
        le(2);
        stack.push_back(kLeaf);
        break;
      case 'J':  // BININT
        le(4);
        stack.push_back(kLeaf);
        break;
      case 'G':  // BINFLOAT
        le(8);
        stack.push_back(kLeaf);
        break;
      case 0x8a: {  // LONG1
        uint64_t len = le(1);
        need(len);
        i += static_cast<size_t>(len);
        stack.push_back(kLeaf);
      } break;
      case 'X': {  // BINUNICODE
        uint64_t len = le(4);
        need(len);
        i += static_cast<size_t>(len);
        stack.push_back(kLeaf);
      } break;
      case 'c':  // GLOBAL: module and name lines; pushes an index
        line();
        line();
        stack.push_back(kLeaf);
        break;
      case 'h':  // BINGET
        memo_get(le(1));
        break;
      case 'j':  // LONG_BINGET
        memo_get(le(4));
        break;
      case 'q':  // BINPUT
        memo_put(le(1));
        break;
      case 'r':  // LONG_BINPUT
        memo_put(le(4));
        break;
      case 't':  // TUPLE
        collect(mark(), kTuple);
        break;
      case 'l':  // LIST
        collect(mark(), kList);
        break;
      case 0x85: case 0x86: case 0x87: {  // TUPLE1, TUPLE2, TUPLE3
        size_t k = static_cast<size_t>(p[at] - 0x84);
        items(k);
        collect(stack.size() - k, kTuple);
      } break;
      case 'd': {  // DICT
        size_t m = mark();
        TORCH_CHECK((stack.size() - m) % 2 == 0, "corrupt pickle: DICT at offset ", at,
                    " with an odd number of values", " (in ", what, ")");
        collect(m, kDict);
      } break;
      case 'e': {  // APPENDS: the list is below the mark
        size_t m = mark();
        int32_t l = container(m, kList);
        for (size_t j = m; j < stack.size(); j++) g.hold(l, stack[j]);
        stack.resize(m);
      } break;
      case 'u': {  // SETITEMS: the dict is below the mark
        size_t m = mark();
        TORCH_CHECK((stack.size() - m) % 2 == 0, "corrupt pickle: SETITEMS at offset ",
                    at, " with an odd number of values", " (in ", what, ")");
        int32_t d = container(m, kDict);
        for (size_t j = m; j < stack.size(); j++) g.hold(d, stack[j]);
        stack.resize(m);
      } break;
      case 's': {  // SETITEM: dict, key, value
        items(3);
        int32_t d = container(stack.size() - 2, kDict);
        g.hold(d, stack[stack.size() - 2]);
        g.hold(d, stack[stack.size() - 1]);
        stack.resize(stack.size() - 2);
      } break;
      case 0x81:  // NEWOBJ: libtorch pops the argument tuple
        items(1);
        stack.pop_back();
        break;
      case 'b': case 'R': {  // BUILD, REDUCE: a callable and its argument give one value
        items(2);
        int32_t v = g.add(kCall);
        g.hold(v, stack.back());
        stack.resize(stack.size() - 2);
        stack.push_back(v);
      } break;
      case 'Q':  // BINPERSID: a storage's tensor
        items(1);
        stack.back() = kLeaf;
        break;
      default:
        TORCH_CHECK(false, "corrupt pickle: opcode ", opname(), " at offset ", at, ", which libtorch's unpickler does not read", " (in ", what, ")");
    }
  }
  TORCH_CHECK(false, "corrupt pickle: no STOP in ", n, " bytes", " (in ", what, ")");
}

void check_loaded_tensor(const at::Tensor &t) {
  if (!t.defined()) return;
  // A sparse tensor is rebuilt unchecked too (_sparse_coo_tensor_unsafe):
  // an index out of range in the file would make to_dense write out of
  // bounds. Check its parts, then its indices against its size.
  if (t.layout() == at::kSparse) {
    check_loaded_tensor(t._indices());
    check_loaded_tensor(t._values());
    at::_validate_sparse_coo_tensor_args(t._indices(), t._values(), t.sizes());
    return;
  }
  if (t.layout() == at::kSparseCsr) {
    check_loaded_tensor(t.crow_indices());
    check_loaded_tensor(t.col_indices());
    check_loaded_tensor(t.values());
    at::_validate_sparse_csr_tensor_args(t.crow_indices(), t.col_indices(), t.values(), t.sizes());
    return;
  }
  if (!t.has_storage()) return;
  TORCH_CHECK(t.storage_offset() >= 0, "corrupt file: negative storage offset ", t.storage_offset());
  for (int64_t d = 0; d < t.dim(); d++) {
    TORCH_CHECK(t.size(d) >= 0 && t.stride(d) >= 0, "corrupt file: size ", t.sizes(),
                " with strides ", t.strides());
  }
  size_t need = at::detail::computeStorageNbytes(t.sizes(), t.strides(), t.dtype().itemsize(),
                                                 static_cast<size_t>(t.storage_offset()));
  TORCH_CHECK(need <= t.storage().nbytes(), "corrupt file: a tensor of size ", t.sizes(),
              ", strides ", t.strides(), " and offset ", t.storage_offset(), " needs ", need,
              " bytes, its storage has ", t.storage().nbytes());
}

}  // namespace gotorch
