package torch

// Lu is PyTorch's torch.lu(A, pivot=True) and A.lu(): the LU factorization
// of the matrix, or batch of matrices, a, packed as LAPACK's getrf packs
// it, and the 1-based int32 pivots. It is torch.linalg.lu_factor_ex under
// PyTorch's deprecated name; LinalgLuFactor and LinalgLuFactorEx are the
// current forms.
//
// Options: WithPivot (true; false is CUDA only, as in PyTorch).
// torch.lu(A, get_infos=True), which also returns the infos (0, or the
// index of the first zero on U's diagonal, for each matrix), is LuInfos:
// a Go function returns one number of results, so WithGetInfos(true) here
// is an error that names LuInfos. It panics where TryLu returns an error.
func Lu(a Tensor, opts ...Option) (lu, pivots Tensor) {
	lu, pivots, err := TryLu(a, opts...)
	must(err)
	return lu, pivots
}

// Lu is the method form of Lu: A.lu().
func (t Tensor) Lu(opts ...Option) (lu, pivots Tensor) { return Lu(t, opts...) }

// TryLu is Lu returning its error: a not a matrix or batch of matrices,
// an option other than WithPivot and WithGetInfos(false), or libtorch's.
// A singular matrix is not an error, as in PyTorch.
func TryLu(a Tensor, opts ...Option) (lu, pivots Tensor, err error) {
	lu, pivots, infos, err := luFactor("lu", false, a, opts)
	infos.Free()
	return lu, pivots, err
}

// LuInfos is PyTorch's torch.lu(A, pivot=True, get_infos=True): Lu's
// factorization and pivots, and the infos, an int32 tensor of a's batch
// shape, 0 where the factorization succeeded and i where U[i-1, i-1] is
// exactly zero. Options: WithPivot, and WithGetInfos(true), which it
// implies. It panics where TryLuInfos returns an error.
func LuInfos(a Tensor, opts ...Option) (lu, pivots, infos Tensor) {
	lu, pivots, infos, err := TryLuInfos(a, opts...)
	must(err)
	return lu, pivots, infos
}

// LuInfos is the method form of LuInfos: A.lu(get_infos=True).
func (t Tensor) LuInfos(opts ...Option) (lu, pivots, infos Tensor) { return LuInfos(t, opts...) }

// TryLuInfos is LuInfos returning its error.
func TryLuInfos(a Tensor, opts ...Option) (lu, pivots, infos Tensor, err error) {
	return luFactor("lu", true, a, opts)
}

// luFactor runs linalg_lu_factor_ex as torch.lu does through
// _lu_with_info, which in libtorch 1.13 ignores its check_errors: a
// singular matrix is never an error, the infos say it.
func luFactor(op string, getInfos bool, a Tensor, opts []Option) (lu, pivots, infos Tensor, err error) {
	pivot := true
	for _, o := range opts {
		switch o.key {
		case optPivot:
			pivot = o.b
		case optGetInfos:
			if o.b && !getInfos {
				return Tensor{}, Tensor{}, Tensor{}, newError(op, nil, "get_infos=True returns the infos too: LuInfos does")
			}
			if !o.b && getInfos {
				return Tensor{}, Tensor{}, Tensor{}, newError(op, nil, "get_infos=False returns no infos: Lu does")
			}
		default:
			return Tensor{}, Tensor{}, Tensor{}, badOption(op, o)
		}
	}
	lu, pivots, infos, err = TryLinalgLuFactorEx(a, WithPivot(pivot), WithCheckErrors(false))
	if e, ok := err.(*Error); ok {
		// Name the call the user made; libtorch's message names its own.
		err = &Error{Op: op, Msg: e.Msg, Err: e.Err}
	}
	return lu, pivots, infos, err
}
