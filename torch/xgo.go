package torch

// XGo names of the Go+ operators and overloads.
//
// Go+ is XGo now. XGo v1.6's compiler (gogen v1.20) turns a + b into
// a.XGo_Add(b) and reads overloads from XGoo_ constants; gop v1.4's (gogen
// v1.17) turns it into a.Gop_Add(b) and reads Gopo_ constants. Each
// XGo_ method here is its Gop_ twin in gop.go and gop_temp.go, and each
// XGoo_ constant its Gopo_ twin in gop_overloads.go, so that scripts
// compile with either toolchain. XGo still accepts GopPackage, which
// gop_overloads.go declares, as the package marker.

// XGo_Add is a + b (Gop_Add).
func (t Tensor) XGo_Add(b any) Tensor { return t.Gop_Add(b) }

// XGo_Sub is a - b (Gop_Sub).
func (t Tensor) XGo_Sub(b any) Tensor { return t.Gop_Sub(b) }

// XGo_Mul is a * b (Gop_Mul).
func (t Tensor) XGo_Mul(b any) Tensor { return t.Gop_Mul(b) }

// XGo_Quo is a / b (Gop_Quo).
func (t Tensor) XGo_Quo(b any) Tensor { return t.Gop_Quo(b) }

// XGo_Rem is a % b (Gop_Rem).
func (t Tensor) XGo_Rem(b any) Tensor { return t.Gop_Rem(b) }

// XGo_And is a & b (Gop_And).
func (t Tensor) XGo_And(b any) Tensor { return t.Gop_And(b) }

// XGo_Or is a | b (Gop_Or).
func (t Tensor) XGo_Or(b any) Tensor { return t.Gop_Or(b) }

// XGo_Xor is a ^ b (Gop_Xor).
func (t Tensor) XGo_Xor(b any) Tensor { return t.Gop_Xor(b) }

// XGo_LT is a < b (Gop_LT).
func (t Tensor) XGo_LT(b any) Tensor { return t.Gop_LT(b) }

// XGo_LE is a <= b (Gop_LE).
func (t Tensor) XGo_LE(b any) Tensor { return t.Gop_LE(b) }

// XGo_GT is a > b (Gop_GT).
func (t Tensor) XGo_GT(b any) Tensor { return t.Gop_GT(b) }

// XGo_GE is a >= b (Gop_GE).
func (t Tensor) XGo_GE(b any) Tensor { return t.Gop_GE(b) }

// XGo_EQ is a == b (Gop_EQ).
func (t Tensor) XGo_EQ(b any) Tensor { return t.Gop_EQ(b) }

// XGo_NE is a != b (Gop_NE).
func (t Tensor) XGo_NE(b any) Tensor { return t.Gop_NE(b) }

// XGo_Neg is -a (Gop_Neg).
func (t Tensor) XGo_Neg() Tensor { return t.Gop_Neg() }

// XGo_Not is ^a (Gop_Not).
func (t Tensor) XGo_Not() Tensor { return t.Gop_Not() }

// XGo_Dup is +a (Gop_Dup): a itself.
func (t Tensor) XGo_Dup() Tensor { return t }

// XGo_AddAssign is a += b, in place (Gop_AddAssign).
func (t *Tensor) XGo_AddAssign(b any) { t.Gop_AddAssign(b) }

// XGo_SubAssign is a -= b, in place (Gop_SubAssign).
func (t *Tensor) XGo_SubAssign(b any) { t.Gop_SubAssign(b) }

// XGo_MulAssign is a *= b, in place (Gop_MulAssign).
func (t *Tensor) XGo_MulAssign(b any) { t.Gop_MulAssign(b) }

// XGo_QuoAssign is a /= b, in place (Gop_QuoAssign).
func (t *Tensor) XGo_QuoAssign(b any) { t.Gop_QuoAssign(b) }

// XGo_Add is a + b for a temporary a (Gop_Add).
func (x TempTensor) XGo_Add(b any) Tensor { return x.Gop_Add(b) }

// XGo_Sub is a - b for a temporary a (Gop_Sub).
func (x TempTensor) XGo_Sub(b any) Tensor { return x.Gop_Sub(b) }

// XGo_Mul is a * b for a temporary a (Gop_Mul).
func (x TempTensor) XGo_Mul(b any) Tensor { return x.Gop_Mul(b) }

// XGo_Quo is a / b for a temporary a (Gop_Quo).
func (x TempTensor) XGo_Quo(b any) Tensor { return x.Gop_Quo(b) }

// XGo_Rem is a % b for a temporary a (Gop_Rem).
func (x TempTensor) XGo_Rem(b any) Tensor { return x.Gop_Rem(b) }

// XGo_And is a & b for a temporary a (Gop_And).
func (x TempTensor) XGo_And(b any) Tensor { return x.Gop_And(b) }

// XGo_Or is a | b for a temporary a (Gop_Or).
func (x TempTensor) XGo_Or(b any) Tensor { return x.Gop_Or(b) }

// XGo_Xor is a ^ b for a temporary a (Gop_Xor).
func (x TempTensor) XGo_Xor(b any) Tensor { return x.Gop_Xor(b) }

// XGo_LT is a < b for a temporary a (Gop_LT).
func (x TempTensor) XGo_LT(b any) Tensor { return x.Gop_LT(b) }

// XGo_LE is a <= b for a temporary a (Gop_LE).
func (x TempTensor) XGo_LE(b any) Tensor { return x.Gop_LE(b) }

// XGo_GT is a > b for a temporary a (Gop_GT).
func (x TempTensor) XGo_GT(b any) Tensor { return x.Gop_GT(b) }

// XGo_GE is a >= b for a temporary a (Gop_GE).
func (x TempTensor) XGo_GE(b any) Tensor { return x.Gop_GE(b) }

// XGo_EQ is a == b for a temporary a (Gop_EQ).
func (x TempTensor) XGo_EQ(b any) Tensor { return x.Gop_EQ(b) }

// XGo_NE is a != b for a temporary a (Gop_NE).
func (x TempTensor) XGo_NE(b any) Tensor { return x.Gop_NE(b) }

// XGo_Neg is -a for a temporary a (Gop_Neg).
func (x TempTensor) XGo_Neg() Tensor { return x.Gop_Neg() }

// XGo_Not is ^a for a temporary a (Gop_Not).
func (x TempTensor) XGo_Not() Tensor { return x.Gop_Not() }

// XGo overloads, the same as the Gopo_ constants of gop_overloads.go.
const (
	XGoo_Tensor_Sum     = Gopo_Tensor_Sum
	XGoo_Tensor_Mean    = Gopo_Tensor_Mean
	XGoo_Tensor_Prod    = Gopo_Tensor_Prod
	XGoo_Tensor_Amax    = Gopo_Tensor_Amax
	XGoo_Tensor_Amin    = Gopo_Tensor_Amin
	XGoo_Tensor_Max     = Gopo_Tensor_Max
	XGoo_Tensor_Min     = Gopo_Tensor_Min
	XGoo_Tensor_View    = Gopo_Tensor_View
	XGoo_Tensor_Reshape = Gopo_Tensor_Reshape
	XGoo_Tensor_Permute = Gopo_Tensor_Permute
	XGoo_Tensor_Flatten = Gopo_Tensor_Flatten
	XGoo_Tensor_Squeeze = Gopo_Tensor_Squeeze
	XGoo_Tensor_Std     = Gopo_Tensor_Std
	XGoo_Tensor_Var     = Gopo_Tensor_Var
	XGoo_Tensor_Argmax  = Gopo_Tensor_Argmax
	XGoo_Tensor_Argmin  = Gopo_Tensor_Argmin

	XGoo_Tensor_Logsumexp = Gopo_Tensor_Logsumexp
	XGoo_Tensor_Topk      = Gopo_Tensor_Topk

	XGoo_Tensor_Stride           = Gopo_Tensor_Stride
	XGoo_Tensor_RepeatInterleave = Gopo_Tensor_RepeatInterleave
)
