package torch

// Pythonic forms of the most-used ops, for Go code. Go+ code reaches the
// same methods through its overloads (gop_overloads.go) and operators
// (gop.go). The naming rule is in the package comment (doc.go):
//
//   - OpAll() is Python's x.op(), over all elements;
//   - OpAlong(dim int64, keepdim ...bool) is x.op(dim) and x.op(dim, keepdim);
//   - OpAny(v any) takes, as Python does, a Tensor or a number.
//
// These helpers panic with *Error on failure, like the generated ops; the
// generated Try forms (TryStdDim, …) return the error instead.

// dim1 is the one-element dim list of the generated ops.
func dim1(dim int64) []int64 { return []int64{dim} }

// StdAll is Python's x.std(): the standard deviation of all elements,
// with Bessel's correction.
func (t Tensor) StdAll() Tensor { return t.Std() }

// StdAlong is Python's x.std(dim) and x.std(dim, keepdim=keepdim), with
// Bessel's correction (for another correction, StdDim with WithUnbiased or
// StdCorrection).
func (t Tensor) StdAlong(dim int64, keepdim ...bool) Tensor {
	return t.StdDim(dim1(dim), keepdimOf("std", keepdim))
}

// VarAll is Python's x.var(): the variance of all elements, with Bessel's
// correction.
func (t Tensor) VarAll() Tensor { return t.Var() }

// VarAlong is Python's x.var(dim) and x.var(dim, keepdim=keepdim).
func (t Tensor) VarAlong(dim int64, keepdim ...bool) Tensor {
	return t.VarDim(dim1(dim), keepdimOf("var", keepdim))
}

// StdMeanAll is Python's torch.std_mean(x): the standard deviation and
// the mean of all elements.
func (t Tensor) StdMeanAll() (std, mean Tensor) { return StdMean(t) }

// StdMeanAlong is Python's torch.std_mean(x, dim) and torch.std_mean(x,
// dim, keepdim=keepdim).
func (t Tensor) StdMeanAlong(dim int64, keepdim ...bool) (std, mean Tensor) {
	return StdMeanDim(t, dim1(dim), keepdimOf("std_mean", keepdim))
}

// VarMeanAll is Python's torch.var_mean(x).
func (t Tensor) VarMeanAll() (variance, mean Tensor) { return VarMean(t) }

// VarMeanAlong is Python's torch.var_mean(x, dim) and torch.var_mean(x,
// dim, keepdim=keepdim).
func (t Tensor) VarMeanAlong(dim int64, keepdim ...bool) (variance, mean Tensor) {
	return VarMeanDim(t, dim1(dim), keepdimOf("var_mean", keepdim))
}

// ArgmaxAll is Python's x.argmax(): the index of the largest element of
// the flattened tensor.
func (t Tensor) ArgmaxAll() Tensor { return t.Argmax() }

// ArgmaxAlong is Python's x.argmax(dim) and x.argmax(dim, keepdim): the
// indices of the largest elements along dim (the predicted classes of
// logits.ArgmaxAlong(1)).
func (t Tensor) ArgmaxAlong(dim int64, keepdim ...bool) Tensor {
	return t.Argmax(WithDim(dim), keepdimOf("argmax", keepdim))
}

// ArgminAll is Python's x.argmin().
func (t Tensor) ArgminAll() Tensor { return t.Argmin() }

// ArgminAlong is Python's x.argmin(dim) and x.argmin(dim, keepdim).
func (t Tensor) ArgminAlong(dim int64, keepdim ...bool) Tensor {
	return t.Argmin(WithDim(dim), keepdimOf("argmin", keepdim))
}

// AllAlong is Python's x.all(dim) and x.all(dim, keepdim). (x.all() is
// All.)
func (t Tensor) AllAlong(dim int64, keepdim ...bool) Tensor {
	return t.AllDim(dim, keepdimOf("all", keepdim))
}

// AnyAlong is Python's x.any(dim) and x.any(dim, keepdim). (x.any() is
// Any.)
func (t Tensor) AnyAlong(dim int64, keepdim ...bool) Tensor {
	return t.AnyDim(dim, keepdimOf("any", keepdim))
}

// NormAll is Python's x.norm(): the 2-norm of all elements (for another p,
// NormScalar with WithP).
func (t Tensor) NormAll() Tensor { return t.NormScalar() }

// NormAlong is Python's x.norm(dim=dim) and x.norm(dim=dim,
// keepdim=keepdim): 2-norms along dim (for another p, NormScalarOptDim
// with WithP).
func (t Tensor) NormAlong(dim int64, keepdim ...bool) Tensor {
	return t.NormScalarOptDim(dim1(dim), keepdimOf("norm", keepdim))
}

// LogsumexpAlong is Python's x.logsumexp(dim) and x.logsumexp(dim,
// keepdim).
func (t Tensor) LogsumexpAlong(dim int64, keepdim ...bool) Tensor {
	return t.Logsumexp(dim1(dim), keepdimOf("logsumexp", keepdim))
}

// TopkAlong is Python's values, indices = x.topk(k, dim): the k largest
// elements along dim, largest first (for the smallest, Topk with
// WithLargest(false)).
func (t Tensor) TopkAlong(k, dim int64) (values, indices Tensor) {
	return t.Topk(k, WithDim(dim))
}

// TopkWith is Python's x.topk(k) and x.topk(k, dim=…, largest=…,
// sorted=…) with keyword options: the generated Topk as a method of
// Tensor itself, so that XGo's x.topk overload can list it.
func (t Tensor) TopkWith(k int64, opts ...Option) (values, indices Tensor) {
	return t.Topk(k, opts...)
}

// SortAlong is Python's values, indices = x.sort(dim) and x.sort(dim,
// descending).
func (t Tensor) SortAlong(dim int64, descending ...bool) (values, indices Tensor) {
	if len(descending) > 1 {
		panic(newError("sort", nil, "takes one descending argument, got %d", len(descending)))
	}
	return t.Sort(WithDim(dim), WithDescending(len(descending) == 1 && descending[0]))
}

// operand sorts a Pythonic helper's tensor-or-number argument; op names the
// helper in errors.
func operand(op string, v any) (Tensor, Scalar, bool) { return gopOperand(op, v) }

// AddAny is Python's x + other and torch.add(x, other): other is a Tensor,
// a Scalar or a Go number.
func (t Tensor) AddAny(other any) Tensor {
	if x, s, ok := operand("add", other); ok {
		return t.Add(x)
	} else {
		return t.AddScalar(s)
	}
}

// SubAny is Python's x - other and torch.sub(x, other): x.SubAny(0.75).
func (t Tensor) SubAny(other any) Tensor {
	if x, s, ok := operand("sub", other); ok {
		return t.Sub(x)
	} else {
		return t.SubScalar(s)
	}
}

// MulAny is Python's x * other and torch.mul(x, other), elementwise.
func (t Tensor) MulAny(other any) Tensor {
	if x, s, ok := operand("mul", other); ok {
		return t.Mul(x)
	} else {
		return t.MulScalar(s)
	}
}

// DivAny is Python's x / other and torch.div(x, other): true division,
// so that integer tensors give floats.
func (t Tensor) DivAny(other any) Tensor {
	if x, s, ok := operand("div", other); ok {
		return t.Div(x)
	} else {
		return t.DivScalar(s)
	}
}

// PowAny is Python's x ** exponent and torch.pow(x, exponent):
// x.PowAny(2).
func (t Tensor) PowAny(exponent any) Tensor {
	if x, s, ok := operand("pow", exponent); ok {
		return t.Pow(x)
	} else {
		return t.PowTensorScalar(s)
	}
}

// ClampAny is Python's x.clamp(min, max) and torch.clamp(x, min, max):
// each bound is a Tensor, a number, or nil for None. At least one must be
// given; tensor bounds and number bounds cannot be mixed, as in PyTorch.
func (t Tensor) ClampAny(min, max any) Tensor {
	var opts []Option
	tensors, numbers := false, false
	for i, b := range [2]any{min, max} {
		if b == nil {
			continue
		}
		x, s, isT := operand("clamp", b)
		switch {
		case isT && i == 0:
			opts, tensors = append(opts, WithMinTensor(x)), true
		case isT:
			opts, tensors = append(opts, WithMaxTensor(x)), true
		case i == 0:
			opts, numbers = append(opts, Option{key: optMin, s: s}), true
		default:
			opts, numbers = append(opts, Option{key: optMax, s: s}), true
		}
	}
	if tensors && numbers {
		panic(newError("clamp", nil, "min and max must both be tensors or both numbers"))
	}
	if tensors {
		return t.ClampTensor(opts...)
	}
	return t.Clamp(opts...)
}

// WhereAny is Python's torch.where(condition, x, y): x where condition is
// true, y elsewhere; x and y are each a Tensor or a number. (The
// one-argument torch.where(condition) is Where.)
func WhereAny(condition Tensor, x, y any) Tensor {
	xt, xs, xIsT := operand("where", x)
	yt, ys, yIsT := operand("where", y)
	switch {
	case xIsT && yIsT:
		return WhereSelf(condition, xt, yt)
	case xIsT:
		return WhereScalarOther(condition, xt, ys)
	case yIsT:
		return WhereScalarSelf(condition, xs, yt)
	}
	return WhereScalar(condition, xs, ys)
}
