package torch

// Option is an optional (keyword) argument of an op, named after PyTorch's
// keyword with a With prefix:
//
//	torch.Zeros([]int64{2, 3}, torch.WithDtype(torch.Float64))   // torch.zeros(2, 3, dtype=torch.float64)
//	x.SumDimIntList([]int64{1}, torch.WithKeepdim(true))        // x.sum(1, keepdim=True)
//
// Each op's doc lists the options it takes; any other option is an error
// naming the op and the option, and the form that takes it where another
// overload does (x.Std(torch.WithDim(0)) names StdDim and StdAlong). When
// an option is given twice, the last one wins. The With functions are
// generated (options_gen.go), one per keyword.
type Option struct {
	key     optKey
	i       int64
	f       float64
	b       bool
	s       Scalar
	t       Tensor
	str     string
	ints    []int64
	floats  []float64
	bools   []bool
	ts      []Tensor
	scalars []Scalar
	gen     *Generator
}

type optKey uint16

func (o Option) name() string {
	if int(o.key) < len(optNames) && optNames[o.key] != "" {
		return optNames[o.key]
	}
	if n, ok := handOptNames[o.key]; ok {
		return n
	}
	return "(zero Option)"
}

func badOption(op string, o Option) error {
	if hint, ok := optionHints[op][o.key]; ok {
		return newError(op, nil, "unexpected option %s: %s takes it", o.name(), hint)
	}
	if forms, ok := optForms[op][o.key]; ok {
		return newError(op, nil, "unexpected option %s: %s takes it", o.name(), forms)
	}
	return newError(op, nil, "unexpected option %s", o.name())
}

// optionHints names, for an op whose overloads take different options, the
// forms that take an option another overload rejects, where a Pythonic
// helper is among them; the generated optForms (options_gen.go) name the
// forms for every other op: x.Std(WithDim(0))
// fails with "unexpected option dim: StdDim or StdAlong takes it". The op
// is the ATen name, which the overloads share; a hint that names the form
// that failed does no harm, as that form took the option.
var optionHints = map[string]map[optKey]string{
	"sum":       {optDim: "SumDimIntList or SumAlong", optKeepdim: "SumDimIntList or SumAlong"},
	"mean":      {optDim: "MeanDim or MeanAlong", optKeepdim: "MeanDim or MeanAlong"},
	"prod":      {optDim: "ProdDimInt or ProdAlong", optKeepdim: "ProdDimInt or ProdAlong"},
	"std":       {optDim: "StdDim or StdAlong", optKeepdim: "StdDim or StdAlong", optCorrection: "StdCorrection"},
	"var":       {optDim: "VarDim or VarAlong", optKeepdim: "VarDim or VarAlong", optCorrection: "VarCorrection"},
	"std_mean":  {optDim: "StdMeanDim or StdMeanAlong", optKeepdim: "StdMeanDim or StdMeanAlong", optCorrection: "StdMeanCorrection"},
	"var_mean":  {optDim: "VarMeanDim or VarMeanAlong", optKeepdim: "VarMeanDim or VarMeanAlong", optCorrection: "VarMeanCorrection"},
	"max":       {optDim: "MaxDim or MaxAlong", optKeepdim: "MaxDim or MaxAlong"},
	"min":       {optDim: "MinDim or MinAlong", optKeepdim: "MinDim or MinAlong"},
	"all":       {optDim: "AllDim or AllAlong", optKeepdim: "AllDim or AllAlong"},
	"any":       {optDim: "AnyDim or AnyAlong", optKeepdim: "AnyDim or AnyAlong"},
	"norm":      {optDim: "NormScalarOptDim or NormAlong", optKeepdim: "NormScalarOptDim or NormAlong"},
	"logsumexp": {optDim: "Logsumexp's dim argument or LogsumexpAlong"},
	"clamp":     {optMin: "Clamp or ClampAny", optMax: "Clamp or ClampAny", optMinTensor: "ClampTensor or ClampAny", optMaxTensor: "ClampTensor or ClampAny"},
}

func (o Option) device() Device { return Device{DeviceType(o.i), int(o.f)} }

// int64 reads an integer option given as a number.
func (o Option) int64(op string) (int64, error) {
	if o.s.kind != 0 && o.s.kind != 2 {
		return 0, newError(op, nil, "option %s must be an integer, got %v", o.name(), o.s)
	}
	return o.s.i, nil
}

// one reads an integer option given as a list of one.
func (o Option) one(op string) (int64, error) {
	if len(o.ints) != 1 {
		return 0, newError(op, nil, "option %s takes one integer, got %v", o.name(), o.ints)
	}
	return o.ints[0], nil
}

func (o Option) boolArray(op string, dst []bool) error {
	if len(o.bools) != len(dst) {
		return newError(op, nil, "option %s takes %d booleans, got %d", o.name(), len(dst), len(o.bools))
	}
	copy(dst, o.bools)
	return nil
}

// tensorOptions gathers the dtype, device, layout and requires_grad options
// of a factory function.
type tensorOptions struct {
	dtype        DType
	layout       Layout
	device       Device
	requiresGrad bool
}

func (to *tensorOptions) set(o Option) {
	switch o.key {
	case optDtype:
		to.dtype = DType(o.i)
	case optDevice:
		to.device = o.device()
	case optLayout:
		to.layout = Layout(o.i)
	case optRequiresGrad:
		to.requiresGrad = o.b
	}
}

func (to *tensorOptions) cDtype() int32       { return int32(to.dtype) }
func (to *tensorOptions) cDevice() int32      { return int32(to.device.Type) }
func (to *tensorOptions) cDeviceIndex() int32 { return int32(to.device.Index) }
func (to *tensorOptions) cLayout() int32      { return int32(to.layout) }
