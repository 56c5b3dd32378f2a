package torch

// Temporaries of Go+ expressions.
//
// In a + b*c, the product b*c is a temporary: nothing but the addition
// ever sees it. C++ frees such a temporary at the end of the expression;
// left to the collector, it would live until the next collection, holding
// its memory and going cold in the meantime. gop-torch therefore wraps the
// result of a tensor operator in Temp wherever it is the operand of
// another tensor operator (a.Gop_Add(torch.Temp(b.Gop_Mul(c)))), and the
// consuming operator frees it as soon as it has its own result, unless
// that result is the temporary itself. Freeing only drops GoTorch's
// reference: autograd keeps what it saved for the backward pass.

// TempTensor is a tensor that nothing but the operator it is passed to
// refers to. It has the Go+ operator methods of Tensor; each frees the
// temporary after use.
type TempTensor struct{ t Tensor }

// Temp marks t, a value that nothing else refers to (the result of an
// operator, say), as a temporary for the Go+ operator that consumes it, as
// its left or right operand: that operator frees t once it has its result.
// Using t afterwards panics with a use-after-free error. gop-torch inserts
// Temp calls; code written by hand rarely needs them.
func Temp(t Tensor) TempTensor { return TempTensor{t} }

// Rebind frees old unless it is the same tensor as new, and returns new.
// gop-torch writes s = torch.Rebind(s, e) where a tensor variable s that
// nothing else refers to gets a new value, so that its old tensor is freed
// at once, as Python frees a tensor whose last name is rebound
// (cmd/gop-torch/owned.go). old may be the zero Tensor or already freed.
func Rebind(old, new Tensor) Tensor {
	if old.handle != new.handle {
		old.Free()
	}
	return new
}

// Consume returns f(t) and frees t, unless f returned t itself. t must be
// a value that nothing else refers to (the result of an operator, say) and
// f a function that reads t and keeps nothing: gop-torch writes
// torch.Consume(a*b, func(t torch.Tensor) torch.Tensor { return gopkg.Relu(t) })
// for relu(a*b), so that the product is freed once the ReLU exists, as C++
// frees a temporary argument at the end of its expression. If f panics, t
// is left to the collector.
func Consume(t Tensor, f func(Tensor) Tensor) Tensor {
	if f == nil {
		panic(newError("Consume", nil, "the function is nil"))
	}
	return Rebind(t, f(t))
}

// releaseTemp frees b if it is a temporary other than r, and returns r.
func releaseTemp(b any, r Tensor) Tensor {
	if x, ok := b.(TempTensor); ok {
		x.release(r)
	}
	return r
}

// release frees the temporary unless r is the same tensor, and returns r.
func (x TempTensor) release(r Tensor) Tensor { return Rebind(x.t, r) }

// Gop_Add is a + b for a temporary a.
func (x TempTensor) Gop_Add(b any) Tensor { return x.release(x.t.Gop_Add(b)) }

// Gop_Sub is a - b for a temporary a.
func (x TempTensor) Gop_Sub(b any) Tensor { return x.release(x.t.Gop_Sub(b)) }

// Gop_Mul is a * b for a temporary a.
func (x TempTensor) Gop_Mul(b any) Tensor { return x.release(x.t.Gop_Mul(b)) }

// Gop_Quo is a / b for a temporary a.
func (x TempTensor) Gop_Quo(b any) Tensor { return x.release(x.t.Gop_Quo(b)) }

// Gop_Rem is a % b for a temporary a.
func (x TempTensor) Gop_Rem(b any) Tensor { return x.release(x.t.Gop_Rem(b)) }

// Gop_And is a & b for a temporary a.
func (x TempTensor) Gop_And(b any) Tensor { return x.release(x.t.Gop_And(b)) }

// Gop_Or is a | b for a temporary a.
func (x TempTensor) Gop_Or(b any) Tensor { return x.release(x.t.Gop_Or(b)) }

// Gop_Xor is a ^ b for a temporary a.
func (x TempTensor) Gop_Xor(b any) Tensor { return x.release(x.t.Gop_Xor(b)) }

// Gop_LT is a < b for a temporary a.
func (x TempTensor) Gop_LT(b any) Tensor { return x.release(x.t.Gop_LT(b)) }

// Gop_LE is a <= b for a temporary a.
func (x TempTensor) Gop_LE(b any) Tensor { return x.release(x.t.Gop_LE(b)) }

// Gop_GT is a > b for a temporary a.
func (x TempTensor) Gop_GT(b any) Tensor { return x.release(x.t.Gop_GT(b)) }

// Gop_GE is a >= b for a temporary a.
func (x TempTensor) Gop_GE(b any) Tensor { return x.release(x.t.Gop_GE(b)) }

// Gop_EQ is a == b for a temporary a.
func (x TempTensor) Gop_EQ(b any) Tensor { return x.release(x.t.Gop_EQ(b)) }

// Gop_NE is a != b for a temporary a.
func (x TempTensor) Gop_NE(b any) Tensor { return x.release(x.t.Gop_NE(b)) }

// Gop_Neg is -a for a temporary a.
func (x TempTensor) Gop_Neg() Tensor { return x.release(x.t.Gop_Neg()) }

// Gop_Not is ^a for a temporary a.
func (x TempTensor) Gop_Not() Tensor { return x.release(x.t.Gop_Not()) }
