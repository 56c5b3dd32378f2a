//go:build !gotorch_prebuilt

// jit.cc: TorchScript modules behind the plain C ABI of jit.h.
#include "jit.h"

#include <ATen/core/grad_mode.h>
#include <ATen/core/ivalue.h>
#include <caffe2/serialize/file_adapter.h>
#include <caffe2/serialize/inline_container.h>
#include <caffe2/serialize/read_adapter_interface.h>
#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/csrc/jit/serialization/import_read.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "internal.h"
#include "loadcheck.h"

struct gt_jit_module_s {
  torch::jit::Module m;
};

namespace {

using gotorch::guard;
using gotorch::make_error;
using gotorch::T;
using gotorch::wrap_opt;
using gotorch::check_pickle;
using gotorch::check_loaded_tensor;

// BytesAdapter serves a module file held in memory to torch::jit::load.
class BytesAdapter : public caffe2::serialize::ReadAdapterInterface {
 public:
  explicit BytesAdapter(std::string data) : data_(std::move(data)) {}
  size_t size() const override { return data_.size(); }
  size_t read(uint64_t pos, void *buf, size_t n, const char *) const override {
    if (pos >= data_.size()) return 0;
    size_t k = std::min<size_t>(n, data_.size() - static_cast<size_t>(pos));
    std::memcpy(buf, data_.data() + pos, k);
    return k;
  }

 private:
  std::string data_;
};

c10::optional<at::Device> device_opt(int32_t type, int32_t index) {
  if (type < 0) return c10::nullopt;
  return gotorch::device(type, index);
}

bool ends_with(const std::string &s, const char *suffix) {
  size_t k = std::strlen(suffix);
  return s.size() >= k && s.compare(s.size() - k, k, suffix) == 0;
}

// for_each_tensor calls f on every tensor in v: through tuples, lists,
// dicts and objects' slots, with an explicit stack (no recursion) and each
// container once.
template <class F>
void for_each_tensor(const c10::IValue &v, F &&f) {
  std::vector<c10::IValue> todo{v};
  std::unordered_set<const void *> seen;
  while (!todo.empty()) {
    c10::IValue x = std::move(todo.back());
    todo.pop_back();
    if (x.isTensor()) {
      f(x.toTensor());
      continue;
    }
    if (!x.isPtrType() || !seen.insert(x.internalToPointer()).second) continue;
    if (x.isTuple()) {
      for (const auto &e : x.toTupleRef().elements()) todo.push_back(e);
    } else if (x.isList()) {
      for (const auto &e : x.toListRef()) todo.push_back(e);
    } else if (x.isGenericDict()) {
      for (const auto &e : x.toGenericDict()) {
        todo.push_back(e.key());
        todo.push_back(e.value());
      }
    } else if (x.isObject()) {
      for (const auto &e : x.toObjectRef().slots()) todo.push_back(e);
    }
  }
}

// check_archive proves what it can of a TorchScript archive before
// torch::jit::load reads it (see docs/serving.md, "What is safe to load"):
//   - every pickle in it (data.pkl, constants.pkl, the code's .debug_pkl
//     and any other) passes check_pickle, the walk that guards torch.Load;
//   - a legacy archive (model.json, PyTorch 1.3 and before), which a
//     different, unchecked reader parses, is refused;
//   - data.pkl and constants.pkl are then unpickled once by libtorch's own
//     unpickler with stand-in classes (no code is compiled or run), and
//     every tensor in them is checked against the record it was made from:
//     its sizes, strides and offset must fit the storage, so that a tensor
//     record cut short or a size changed in the pickle is an error instead
//     of reads past the storage.
void check_archive(std::shared_ptr<caffe2::serialize::ReadAdapterInterface> rai,
                   c10::optional<at::Device> device) {
  caffe2::serialize::PyTorchStreamReader reader(std::move(rai));
  TORCH_CHECK(!reader.hasRecord("model.json"),
              "a legacy TorchScript archive (model.json, PyTorch 1.3 and before), which this "
              "loader refuses: save it again with a newer torch.jit.save");
  TORCH_CHECK(reader.hasRecord("data.pkl") && reader.hasRecord("constants.pkl"),
              "not a TorchScript archive: no data.pkl or constants.pkl");
  for (const std::string &name : reader.getAllRecords()) {
    if (!ends_with(name, ".pkl") && !ends_with(name, ".debug_pkl")) continue;
    at::DataPtr p;
    size_t n;
    std::tie(p, n) = reader.getRecord(name);
    check_pickle(static_cast<const uint8_t *>(p.get()), n, name.c_str());
  }
  auto cu = std::make_shared<torch::jit::CompilationUnit>();
  std::unordered_map<std::string, c10::TypePtr> classes;
  auto resolve = [&](const c10::QualifiedName &qn) {
    const std::string &name = qn.qualifiedName();
    auto it = classes.find(name);
    if (it == classes.end()) {
      c10::TypePtr t;
      if (name.rfind("__torch__", 0) != 0) {
        try {
          t = torch::jit::Unpickler::defaultTypeParser(name);
        } catch (const c10::Error &) {
        }
      }
      if (!t) t = c10::ClassType::create(qn, cu);
      it = classes.emplace(name, t).first;
    }
    return c10::StrongTypePtr(cu, it->second);
  };
  // Each object keeps the state it was built from in a slot of its own.
  auto stand_in = [](const c10::StrongTypePtr &type, c10::IValue state) {
    auto obj = c10::ivalue::Object::create(type, 1);
    obj->setSlot(0, std::move(state));
    return obj;
  };
  for (const std::string archive : {"constants", "data"}) {
    // readArchiveAndTensors, with a record reader that notes each record's
    // size by the address of its bytes, and on the CPU whatever the file
    // says (a copy to another device would read past a short record).
    at::DataPtr pkl;
    size_t npkl;
    std::tie(pkl, npkl) = reader.getRecord(archive + ".pkl");
    size_t pos = 0;
    auto read = [&](char *buf, size_t len) -> size_t {
      len = std::min(len, npkl - pos);
      std::memcpy(buf, static_cast<const char *>(pkl.get()) + pos, len);
      pos += len;
      return len;
    };
    std::unordered_map<const void *, size_t> record_bytes;
    auto read_record = [&](const std::string &key) {
      at::DataPtr p;
      size_t n;
      std::tie(p, n) = reader.getRecord(archive + "/" + key);
      record_bytes[p.get()] = n;
      return p;
    };
    torch::jit::Unpickler unpickler(read, torch::jit::TypeResolver(resolve), torch::jit::ObjLoader(stand_in),
                                    read_record, at::Device(at::kCPU));
    unpickler.set_version(reader.version());
    c10::IValue v = unpickler.parse_ivalue();
    // A storage is as large as its pickle says (numel × element size), so
    // that number must fit the record; then each tensor must fit its
    // storage.
    auto fits_record = [&](const at::Tensor &t) {
      if (!t.defined() || !t.has_storage() || t.storage().nbytes() == 0) return;
      auto it = record_bytes.find(t.storage().data());
      TORCH_CHECK(it != record_bytes.end() && t.storage().nbytes() <= it->second, archive,
                  ".pkl: a storage of ", t.storage().nbytes(), " bytes (", t.scalar_type(),
                  ") made from a record of ", it == record_bytes.end() ? 0 : it->second, " bytes");
    };
    for_each_tensor(v, [&](const at::Tensor &t) {
      if (t.is_sparse()) {
        fits_record(t._indices());
        fits_record(t._values());
      } else if (t.layout() == at::kStrided) {
        fits_record(t);
      }
      try {
        check_loaded_tensor(t);
      } catch (const c10::Error &e) {
        TORCH_CHECK(false, archive, ".pkl: ", e.what_without_backtrace());
      }
    });
  }
}

gt_jit_module_result load_with(const std::function<torch::jit::Module()> &f) {
  gt_jit_module_result r{nullptr, nullptr};
  r.err = guard([&] {
    auto *m = new gt_jit_module_s{f()};
    r.m = m;
  });
  return r;
}

// Reader walks an argument tree coming from Go.
struct Reader {
  const gt_jit_value *v;
  int64_t n;
  int64_t pos;
  const char *strs;
  int64_t nstrs;

  const gt_jit_value &next() {
    TORCH_CHECK(pos < n, "jit: malformed value tree (ends early)");
    return v[pos++];
  }
};

c10::TypePtr kind_type(int32_t kind) {
  switch (kind) {
    case GT_JIT_TENSOR: return c10::TensorType::get();
    case GT_JIT_INT: return c10::IntType::get();
    case GT_JIT_DOUBLE: return c10::FloatType::get();
    case GT_JIT_BOOL: return c10::BoolType::get();
    case GT_JIT_STRING: return c10::StringType::get();
    case GT_JIT_DEVICE: return c10::DeviceObjType::get();
    case GT_JIT_COMPLEX: return c10::ComplexType::get();
    default: return nullptr;
  }
}

// unify is the type of a container's elements: the type that want
// declares, else the one that all of them share, else Any.
c10::TypePtr element_type(const std::vector<c10::IValue> &items, const c10::TypePtr &want,
                          int32_t elem) {
  if (want) return want;
  if (auto t = kind_type(elem)) return t;
  if (items.empty()) return c10::AnyType::get();
  c10::TypePtr t = items[0].type();
  for (size_t i = 1; i < items.size(); i++) {
    auto u = c10::unifyTypes(t, items[i].type());
    if (!u) return c10::AnyType::get();
    t = *u;
  }
  return t;
}

// to_ivalue converts the next subtree, guided by the type the method's
// schema declares for it (want, possibly null): a Go slice becomes a
// tuple or a list, and a Go int a float, as the schema asks.
c10::IValue to_ivalue(Reader &r, c10::TypePtr want, int depth) {
  TORCH_CHECK(depth < GT_JIT_MAX_DEPTH, "jit: an argument nested more than ", GT_JIT_MAX_DEPTH,
              " deep (the limit)");
  const gt_jit_value &node = r.next();
  if (want && want->kind() == c10::TypeKind::OptionalType) {
    want = want->expectRef<c10::OptionalType>().getElementType();
  }
  if (want && want->kind() == c10::TypeKind::AnyType) want = nullptr;
  switch (node.kind) {
    case GT_JIT_NONE: return c10::IValue();
    case GT_JIT_TENSOR: return c10::IValue(node.t == nullptr ? at::Tensor() : T(node.t));
    case GT_JIT_INT:
      if (want && want->kind() == c10::TypeKind::FloatType) return c10::IValue(static_cast<double>(node.i));
      return c10::IValue(node.i);
    case GT_JIT_DOUBLE: return c10::IValue(node.d);
    case GT_JIT_BOOL: return c10::IValue(node.i != 0);
    case GT_JIT_COMPLEX: return c10::IValue(c10::complex<double>(node.d, node.d2));
    case GT_JIT_DEVICE: return c10::IValue(gotorch::device(static_cast<int32_t>(node.i), static_cast<int32_t>(node.i2)));
    case GT_JIT_STRING:
      TORCH_CHECK(node.i >= 0 && node.n >= 0 && node.i + node.n <= r.nstrs, "jit: malformed value tree (string)");
      return c10::IValue(std::string(r.strs + node.i, static_cast<size_t>(node.n)));
    case GT_JIT_TUPLE:
    case GT_JIT_LIST: {
      TORCH_CHECK(node.n >= 0 && node.n <= r.n - r.pos, "jit: malformed value tree (list)");
      bool tuple = node.kind == GT_JIT_TUPLE;
      c10::TypePtr elem_want;
      std::vector<c10::TypePtr> tuple_want;
      if (want && want->kind() == c10::TypeKind::TupleType) {
        tuple = true;
        auto el = want->expectRef<c10::TupleType>().elements();
        tuple_want.assign(el.begin(), el.end());
      } else if (want && want->kind() == c10::TypeKind::ListType) {
        tuple = false;
        elem_want = want->expectRef<c10::ListType>().getElementType();
      } else if (!want && node.kind == GT_JIT_LIST && node.elem == 0) {
        tuple = true;  // a []any with nothing to say otherwise is a tuple
      }
      std::vector<c10::IValue> items;
      items.reserve(static_cast<size_t>(node.n));
      for (int64_t i = 0; i < node.n; i++) {
        c10::TypePtr w = tuple ? (static_cast<size_t>(i) < tuple_want.size() ? tuple_want[i] : nullptr) : elem_want;
        items.push_back(to_ivalue(r, w, depth + 1));
      }
      if (tuple) return c10::ivalue::Tuple::create(std::move(items));
      c10::impl::GenericList list(element_type(items, elem_want, node.elem));
      list.reserve(items.size());
      for (auto &it : items) list.push_back(std::move(it));
      return c10::IValue(std::move(list));
    }
    case GT_JIT_DICT: {
      TORCH_CHECK(node.n >= 0 && node.n <= (r.n - r.pos) / 2, "jit: malformed value tree (dict)");
      c10::TypePtr key_want, value_want;
      if (want && want->kind() == c10::TypeKind::DictType) {
        key_want = want->expectRef<c10::DictType>().getKeyType();
        value_want = want->expectRef<c10::DictType>().getValueType();
      }
      std::vector<c10::IValue> keys, values;
      for (int64_t i = 0; i < node.n; i++) {
        keys.push_back(to_ivalue(r, key_want, depth + 1));
        values.push_back(to_ivalue(r, value_want, depth + 1));
      }
      c10::TypePtr kt = element_type(keys, key_want, 0);
      TORCH_CHECK(kt->kind() != c10::TypeKind::AnyType, "jit: a dict's keys must share one type");
      c10::impl::GenericDict dict(kt, element_type(values, value_want, node.elem));
      dict.reserve(keys.size());
      for (size_t i = 0; i < keys.size(); i++) dict.insert_or_assign(std::move(keys[i]), std::move(values[i]));
      return c10::IValue(std::move(dict));
    }
    default:
      TORCH_CHECK(false, "jit: malformed value tree (kind ", node.kind, ")");
  }
}

// Writer lays a result out for Go. On failure the handles it made are
// released by its owner (release_all).
struct Writer {
  std::vector<gt_jit_value> v;
  std::string strs;
  std::unordered_set<const void *> open;  // the containers being written: one met again holds itself

  size_t add(int32_t kind) {
    TORCH_CHECK(v.size() < static_cast<size_t>(GT_JIT_MAX_VALUES), "jit: a result of more than ",
                GT_JIT_MAX_VALUES, " values (the limit; a list that holds another many times counts it each time)");
    gt_jit_value n{};
    n.kind = kind;
    v.push_back(n);
    return v.size() - 1;
  }
  void release_all() {
    for (auto &n : v) {
      if (n.kind == GT_JIT_TENSOR) gotorch::release(n.t);
      n.t = nullptr;
    }
  }
};

int32_t type_kind(const c10::TypePtr &t) {
  switch (t->kind()) {
    case c10::TypeKind::TensorType: return GT_JIT_TENSOR;
    case c10::TypeKind::IntType: return GT_JIT_INT;
    case c10::TypeKind::FloatType: return GT_JIT_DOUBLE;
    case c10::TypeKind::BoolType: return GT_JIT_BOOL;
    case c10::TypeKind::StringType: return GT_JIT_STRING;
    default: return 0;
  }
}

std::string describe(const c10::IValue &v) {
  std::string s = v.tagKind();
  if (v.isObject() || v.isEnum()) s += " (" + v.type()->str() + ")";
  return s;
}

// Writing enters a container: it must not be one being written (a list
// that holds itself) nor too deep.
struct Enter {
  Writer &w;
  const void *p;
  Enter(Writer &w_, const c10::IValue &iv, int depth) : w(w_), p(iv.internalToPointer()) {
    TORCH_CHECK(depth < GT_JIT_MAX_DEPTH, "jit: a result nested more than ", GT_JIT_MAX_DEPTH,
                " deep (the limit)");
    TORCH_CHECK(w.open.insert(p).second, "jit: a result that contains itself (a ", iv.tagKind(),
                " holding itself), which Go values cannot hold");
  }
  ~Enter() { w.open.erase(p); }
};

void from_ivalue(Writer &w, const c10::IValue &iv, int depth) {
  if (iv.isNone()) {
    w.add(GT_JIT_NONE);
  } else if (iv.isTensor()) {
    size_t i = w.add(GT_JIT_TENSOR);
    w.v[i].t = wrap_opt(iv.toTensor());
  } else if (iv.isBool()) {
    w.v[w.add(GT_JIT_BOOL)].i = iv.toBool() ? 1 : 0;
  } else if (iv.isInt()) {
    w.v[w.add(GT_JIT_INT)].i = iv.toInt();
  } else if (iv.isDouble()) {
    w.v[w.add(GT_JIT_DOUBLE)].d = iv.toDouble();
  } else if (iv.isComplexDouble()) {
    size_t i = w.add(GT_JIT_COMPLEX);
    auto c = iv.toComplexDouble();
    w.v[i].d = c.real();
    w.v[i].d2 = c.imag();
  } else if (iv.isString()) {
    const std::string &s = iv.toStringRef();
    size_t i = w.add(GT_JIT_STRING);
    w.v[i].i = static_cast<int64_t>(w.strs.size());
    w.v[i].n = static_cast<int64_t>(s.size());
    w.strs += s;
  } else if (iv.isDevice()) {
    size_t i = w.add(GT_JIT_DEVICE);
    w.v[i].i = static_cast<int64_t>(iv.toDevice().type());
    w.v[i].i2 = iv.toDevice().index();
  } else if (iv.isTuple()) {
    Enter enter(w, iv, depth);
    const auto &el = iv.toTupleRef().elements();
    size_t i = w.add(GT_JIT_TUPLE);
    w.v[i].n = static_cast<int64_t>(el.size());
    for (const auto &e : el) from_ivalue(w, e, depth + 1);
  } else if (iv.isList()) {
    Enter enter(w, iv, depth);
    auto list = iv.toListRef();
    size_t i = w.add(GT_JIT_LIST);
    w.v[i].n = static_cast<int64_t>(list.size());
    w.v[i].elem = type_kind(iv.type()->expectRef<c10::ListType>().getElementType());
    for (const auto &e : list) from_ivalue(w, e, depth + 1);
  } else if (iv.isGenericDict()) {
    Enter enter(w, iv, depth);
    auto dict = iv.toGenericDict();
    int32_t kk = type_kind(dict.keyType());
    TORCH_CHECK(kk == GT_JIT_STRING || kk == GT_JIT_INT || kk == GT_JIT_BOOL || kk == GT_JIT_DOUBLE,
                "jit: cannot convert a dict with keys of type ", dict.keyType()->str(), " to Go");
    size_t i = w.add(GT_JIT_DICT);
    w.v[i].n = static_cast<int64_t>(dict.size());
    w.v[i].elem = type_kind(dict.valueType());
    for (const auto &e : dict) {
      from_ivalue(w, e.key(), depth + 1);
      from_ivalue(w, e.value(), depth + 1);
    }
  } else {
    TORCH_CHECK(false, "jit: cannot convert IValue of type ", describe(iv), " to Go");
  }
}

template <class F>
gt_jit_values values_result(F &&f) {
  gt_jit_values r{nullptr, 0, nullptr, 0, nullptr};
  Writer w;
  r.err = guard([&] {
    c10::IValue out = f();
    from_ivalue(w, out, 0);
    auto *v = static_cast<gt_jit_value *>(std::malloc(sizeof(gt_jit_value) * w.v.size()));
    auto *s = static_cast<char *>(std::malloc(w.strs.size() + 1));
    if (v == nullptr || s == nullptr) {
      std::free(v);
      std::free(s);
      throw std::bad_alloc();
    }
    std::memcpy(v, w.v.data(), sizeof(gt_jit_value) * w.v.size());
    std::memcpy(s, w.strs.data(), w.strs.size());
    r.v = v;
    r.n = static_cast<int64_t>(w.v.size());
    r.strs = s;
    r.nstrs = static_cast<int64_t>(w.strs.size());
  });
  if (r.err != nullptr) w.release_all();
  return r;
}

std::string method_list(const torch::jit::Module &m) {
  std::string s;
  for (const auto &meth : m.get_methods()) {
    if (!s.empty()) s += ", ";
    s += meth.name();
  }
  return s;
}

}  // namespace

extern "C" {

void gt_jit_values_free(gt_jit_values *r) {
  std::free(r->v);
  std::free(r->strs);
  r->v = nullptr;
  r->strs = nullptr;
}

gt_jit_module_result gt_jit_load(const char *path, int32_t dev_type, int32_t dev_index) {
  return load_with([&] {
    check_archive(std::make_shared<caffe2::serialize::FileAdapter>(path), device_opt(dev_type, dev_index));
    return torch::jit::load(std::string(path), device_opt(dev_type, dev_index));
  });
}

gt_jit_module_result gt_jit_load_bytes(const void *data, int64_t n, int32_t dev_type, int32_t dev_index) {
  return load_with([&] {
    auto rai = std::make_shared<BytesAdapter>(std::string(static_cast<const char *>(data), static_cast<size_t>(n)));
    check_archive(rai, device_opt(dev_type, dev_index));
    return torch::jit::load(rai, device_opt(dev_type, dev_index));
  });
}

void gt_jit_free(gt_jit_module m) { delete m; }

gt_jit_values gt_jit_call(gt_jit_module m, const char *name, const gt_jit_value *args, int64_t nv, int64_t nargs,
                          const char *strs, int64_t nstrs, const char *kwnames, int64_t nkw, int grad) {
  return values_result([&]() -> c10::IValue {
    auto method = m->m.find_method(name);
    TORCH_CHECK(method.has_value(), "jit: the module has no method '", name, "' (it has: ", method_list(m->m), ")");
    const c10::FunctionSchema &schema = method->function().getSchema();
    const auto &formal = schema.arguments();  // formal[0] is self
    Reader r{args, nv, 0, strs, nstrs};
    TORCH_CHECK(nkw >= 0 && nkw <= nargs, "jit: malformed keyword arguments");
    std::vector<c10::IValue> stack;
    stack.reserve(static_cast<size_t>(nargs - nkw));
    for (int64_t i = 0; i < nargs - nkw; i++) {
      c10::TypePtr want = static_cast<size_t>(i + 1) < formal.size() ? formal[i + 1].type() : nullptr;
      stack.push_back(to_ivalue(r, want, 0));
    }
    torch::jit::Kwargs kwargs;
    const char *kn = kwnames;
    for (int64_t i = 0; i < nkw; i++) {
      std::string key(kn);
      kn += key.size() + 1;
      c10::TypePtr want;
      for (const auto &a : formal) {
        if (a.name() == key) want = a.type();
      }
      kwargs.emplace(key, to_ivalue(r, want, 0));
    }
    TORCH_CHECK(r.pos == r.n, "jit: malformed value tree (", r.n - r.pos, " nodes left over)");
    at::AutoGradMode mode(grad != 0);
    return (*method)(std::move(stack), kwargs);
  });
}

gt_jit_bytes gt_jit_method_names(gt_jit_module m) {
  gt_jit_bytes r{nullptr, 0, nullptr};
  r.err = guard([&] {
    std::string s;
    for (const auto &meth : m->m.get_methods()) {
      s += meth.name();
      s.push_back('\0');
    }
    r.p = static_cast<char *>(std::malloc(s.size() + 1));
    if (r.p == nullptr) throw std::bad_alloc();
    std::memcpy(r.p, s.data(), s.size());
    r.n = static_cast<int64_t>(s.size());
  });
  return r;
}

gt_jit_named gt_jit_named_tensors(gt_jit_module m, int buffers) {
  gt_jit_named r{nullptr, 0, nullptr, 0, nullptr};
  std::vector<at::Tensor> ts;
  std::string names;
  r.err = guard([&] {
    auto add = [&](const std::string &name, const at::Tensor &t) {
      names += name;
      names.push_back('\0');
      ts.push_back(t);
    };
    if (buffers) {
      for (const auto &p : m->m.named_buffers(/*recurse=*/true)) add(p.name, p.value);
    } else {
      for (const auto &p : m->m.named_parameters(/*recurse=*/true)) add(p.name, p.value);
    }
    r.names = static_cast<char *>(std::malloc(names.size() + 1));
    if (r.names == nullptr) throw std::bad_alloc();
    std::memcpy(r.names, names.data(), names.size());
    r.nnames = static_cast<int64_t>(names.size());
    r.ts = gotorch::wrap_list(ts, &r.n);
  });
  if (r.err != nullptr) {
    std::free(r.names);
    r.names = nullptr;
  }
  return r;
}

void gt_jit_named_free(gt_jit_named *r) {
  std::free(r->names);
  std::free(r->ts);
  r->names = nullptr;
  r->ts = nullptr;
}

gt_error gt_jit_to(gt_jit_module m, int32_t dev_type, int32_t dev_index) {
  return guard([&] { m->m.to(gotorch::device(dev_type, dev_index)); });
}

gt_error gt_jit_train(gt_jit_module m, int on) {
  return guard([&] { m->m.train(on != 0); });
}

int gt_jit_is_training(gt_jit_module m) { return m->m.is_training() ? 1 : 0; }

gt_error gt_jit_set_requires_grad(gt_jit_module m, int on) {
  return guard([&] {
    for (const auto &p : m->m.parameters(/*recurse=*/true)) {
      at::Tensor t = p;
      if (t.is_floating_point() || t.is_complex()) t.set_requires_grad(on != 0);
    }
  });
}

gt_jit_bytes gt_jit_save(gt_jit_module m) {
  gt_jit_bytes r{nullptr, 0, nullptr};
  r.err = guard([&] {
    std::ostringstream out;
    m->m.save(out);
    std::string s = out.str();
    r.p = static_cast<char *>(std::malloc(s.size() + 1));
    if (r.p == nullptr) throw std::bad_alloc();
    std::memcpy(r.p, s.data(), s.size());
    r.n = static_cast<int64_t>(s.size());
  });
  return r;
}

void gt_jit_bytes_free(gt_jit_bytes *b) {
  std::free(b->p);
  b->p = nullptr;
}

}  // extern "C"
