// Command genlayers writes package nn's layers that differ only in the
// function they call: the activations without settings or with only dim
// or one float setting (activation_gen.go), PixelShuffle, PixelUnshuffle and
// ChannelShuffle (vision_gen.go), the dropout layers (dropout_gen.go) and
// the losses (loss_gen.go). Package nn runs it with go generate; adding such a layer
// is one entry in a table below.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"strings"
	"text/template"
)

// activations are the activations that have no settings: Name is
// PyTorch's class, Fn the nn/functional function, What the doc's
// "applies What element-wise".
var activations = []struct{ Name, Fn, What string }{
	{"ReLU", "Relu", "max(0, x)"},
	{"ReLU6", "Relu6", "min(max(0, x), 6)"},
	{"SELU", "Selu", "the scaled ELU"},
	{"SiLU", "Silu", "x·sigmoid(x)"},
	{"Mish", "Mish", "x·tanh(softplus(x))"},
	{"Hardswish", "Hardswish", "the hard swish"},
	{"Hardsigmoid", "Hardsigmoid", "the hard sigmoid"},
	{"Tanh", "Tanh", "tanh(x)"},
	{"Sigmoid", "Sigmoid", "1/(1+exp(-x))"},
	{"LogSigmoid", "Logsigmoid", "log(sigmoid(x))"},
	{"Softsign", "Softsign", "x/(1+|x|)"},
	{"Tanhshrink", "Tanhshrink", "x - tanh(x)"},
}

// intLayer is a layer with one required int64 setting: Name is PyTorch's
// class, Field the setting's Go field (and, lower-cased, the constructor's
// parameter), Kw its PyTorch keyword, Call the Go call of TryForward (of x
// and m), Doc what the type's doc says after its name, Does what Forward
// does to x, and Note what the constructor's doc adds, if anything.
type intLayer struct{ Name, Field, Kw, Call, Doc, Does, Note string }

// dimActivations are the activations along a dimension, which PyTorch
// requires.
var dimActivations = []intLayer{
	{"Softmax", "Dim", "dim", "F.TrySoftmax(x, m.Dim)", "applies softmax along Dim", "applies softmax to", dimNote},
	{"LogSoftmax", "Dim", "dim", "F.TryLogSoftmax(x, m.Dim)", "applies log_softmax along Dim", "applies log_softmax to", dimNote},
	{"Softmin", "Dim", "dim", "F.TrySoftmin(x, m.Dim)", "applies softmin along Dim", "applies softmin to", dimNote},
}

const dimNote = "PyTorch's dim=None (an implicit dimension) is deprecated there and not offered here."

// factorLayers are the vision layers with one required int setting.
var factorLayers = []intLayer{
	{"PixelShuffle", "UpscaleFactor", "upscale_factor", "F.TryPixelShuffle(x, m.UpscaleFactor)",
		"rearranges (*, C·r², H, W) into (*, C, H·r, W·r)", "shuffles", ""},
	{"PixelUnshuffle", "DownscaleFactor", "downscale_factor", "F.TryPixelUnshuffle(x, m.DownscaleFactor)",
		"rearranges (*, C, H·r, W·r) into (*, C·r², H, W), undoing PixelShuffle", "unshuffles", ""},
	{"ChannelShuffle", "Groups", "groups", "torch.TryChannelShuffle(x, m.Groups)",
		"splits the C channels of (N, C, *) input into Groups and interleaves them", "shuffles", ""},
}

// floatActivations are the activations with one float64 setting, an
// option: Name is PyTorch's class, Fn the nn/functional function (which
// takes the same option), What the doc's "applies What", Field the Go
// field (and With<Field> the option), Kw the PyTorch keyword, Def its
// default as Go and as Python prints it; Bare, that PyTorch's repr shows
// the value without its keyword (Hardshrink(0.5)).
var floatActivations = []struct {
	Name, Fn, What, Field, Kw, Def, PyDef string
	Bare                                  bool
}{
	{"ELU", "Elu", "x for x > 0 and Alpha·(exp(x)-1) otherwise", "Alpha", "alpha", "1", "1.0", false},
	{"CELU", "Celu", "max(0, x) + min(0, Alpha·(exp(x/Alpha)-1))", "Alpha", "alpha", "1", "1.0", false},
	{"LeakyReLU", "LeakyRelu", "max(0, x) + NegativeSlope·min(0, x)", "NegativeSlope", "negative_slope", "0.01", "0.01", false},
	{"Hardshrink", "Hardshrink", "x where |x| > Lambd, 0 elsewhere", "Lambd", "lambd", "0.5", "0.5", true},
	{"Softshrink", "Softshrink", "x - Lambd·sign(x) where |x| > Lambd, 0 elsewhere", "Lambd", "lambd", "0.5", "0.5", true},
}

// dropouts are the dropout layers, which all take WithP: Name is
// PyTorch's class, Fn the nn/functional function, Doc what the type's
// doc says after its name, Does what Forward does.
var dropouts = []struct{ Name, Fn, Doc, Does string }{
	{"Dropout", "Dropout", "zeroes elements with probability P in training and scales\n// the others by 1/(1-P); in evaluation it returns its input", "dropout"},
	{"Dropout1d", "Dropout1d", "zeroes whole channels of (N, C, L) or (C, L) input", "channel dropout"},
	{"Dropout2d", "Dropout2d", "zeroes whole channels of (N, C, H, W) input", "channel dropout"},
	{"Dropout3d", "Dropout3d", "zeroes whole channels of (N, C, D, H, W) or (C, D, H, W)\n// input", "channel dropout"},
	{"AlphaDropout", "AlphaDropout", "is dropout that keeps the mean and variance of SELU\n// activations", "alpha dropout"},
	{"FeatureAlphaDropout", "FeatureAlphaDropout", "is AlphaDropout of whole channels of (N, C, ...)\n// input", "feature alpha dropout"},
}

// field is a setting of a loss: its Go field, type (float64, int64, bool
// or torch.Tensor), PyTorch keyword, default (a Go expression; none for
// tensors, whose default is None), and the nn/functional option that
// passes it on (a Go expression of m); Get, if not empty, is the Go
// expression that reads it from the constructor's arguments a instead of
// the one its type implies.
type field struct{ Field, Type, Kw, Def, Opt, Comment, Get string }

// losses are the losses: Name is PyTorch's class, Fn the nn/functional
// function (F.Try<Fn>), Doc what the type's doc says after "is", Params
// Forward's tensors and ForwardDoc its doc after "Forward returns"; Check
// names a function of the constructor's arguments that checks them more,
// as PyTorch's __init__ does. Every loss takes WithReduction ("mean") too.
var losses = []struct {
	Name, Fn, Doc, Params, ForwardDoc, Check, ReductionDoc string
	Fields                                                 []field
}{
	{Name: "CrossEntropyLoss", Fn: "CrossEntropy", Doc: "the cross entropy between logits and class indices or probabilities",
		Params: "input, target", ForwardDoc: "the loss of input against target", Fields: []field{
			{"Weight", "torch.Tensor", "weight", "", "F.WithWeight(m.Weight)", "a weight per class (or element); undefined for none", ""},
			{"IgnoreIndex", "int64", "ignore_index", "-100", "F.WithIgnoreIndex(m.IgnoreIndex)", "", ""},
			{"LabelSmoothing", "float64", "label_smoothing", "0", "F.WithLabelSmoothing(m.LabelSmoothing)", "", ""}}},
	{Name: "NLLLoss", Fn: "NllLoss", Doc: "the negative log likelihood of log-probabilities at class indices",
		Params: "input, target", ForwardDoc: "the loss of input against target", Fields: []field{
			{"Weight", "torch.Tensor", "weight", "", "F.WithWeight(m.Weight)", "a weight per class (or element); undefined for none", ""},
			{"IgnoreIndex", "int64", "ignore_index", "-100", "F.WithIgnoreIndex(m.IgnoreIndex)", "", ""}}},
	{Name: "MSELoss", Fn: "MseLoss", Doc: "the squared error", Params: "input, target", ForwardDoc: "the loss of input against target"},
	{Name: "L1Loss", Fn: "L1Loss", Doc: "the absolute error", Params: "input, target", ForwardDoc: "the loss of input against target"},
	{Name: "SmoothL1Loss", Fn: "SmoothL1Loss", Doc: "the squared error below Beta and absolute error above",
		Params: "input, target", ForwardDoc: "the loss of input against target", Fields: []field{
			{"Beta", "float64", "beta", "1.0", "F.WithBeta(m.Beta)", "", ""}}},
	{Name: "HuberLoss", Fn: "HuberLoss", Doc: "the squared error below Delta and Delta-scaled absolute error above",
		Params: "input, target", ForwardDoc: "the loss of input against target", Fields: []field{
			{"Delta", "float64", "delta", "1.0", "F.WithDelta(m.Delta)", "", ""}}},
	{Name: "BCELoss", Fn: "BinaryCrossEntropy", Doc: "the binary cross entropy between probabilities",
		Params: "input, target", ForwardDoc: "the loss of input against target", Fields: []field{
			{"Weight", "torch.Tensor", "weight", "", "F.WithWeight(m.Weight)", "a weight per class (or element); undefined for none", ""}}},
	{Name: "BCEWithLogitsLoss", Fn: "BinaryCrossEntropyWithLogits", Doc: "the binary cross entropy of sigmoid(input), computed stably",
		Params: "input, target", ForwardDoc: "the loss of input against target", Fields: []field{
			{"Weight", "torch.Tensor", "weight", "", "F.WithWeight(m.Weight)", "a weight per class (or element); undefined for none", ""},
			{"PosWeight", "torch.Tensor", "pos_weight", "", "F.WithPosWeight(m.PosWeight)", "a weight of the positive examples per class; undefined for none", ""}}},
	{Name: "KLDivLoss", Fn: "KlDiv", Doc: "the Kullback-Leibler divergence of target from log-probabilities input",
		Params: "input, target", ForwardDoc: "the loss of input against target",
		ReductionDoc: `"mean"; "batchmean" is the mathematical definition`, Fields: []field{
			{"LogTarget", "bool", "log_target", "false", "F.WithLogTarget(m.LogTarget)", "", ""}}},
	{Name: "MarginRankingLoss", Fn: "MarginRankingLoss", Doc: "max(0, -y·(x1 - x2) + Margin) of the ranking y (1 or -1) of x1 and x2",
		Params: "x1, x2, target", ForwardDoc: "the loss of x1 ranked against x2 by target", Fields: []field{
			{"Margin", "float64", "margin", "0", "F.WithMargin(m.Margin)", "", ""}}},
	{Name: "HingeEmbeddingLoss", Fn: "HingeEmbeddingLoss", Doc: "x where y is 1 and max(0, Margin - x) where y is -1",
		Params: "input, target", ForwardDoc: "the loss of input (distances) against target (1 or -1)", Fields: []field{
			{"Margin", "float64", "margin", "1.0", "F.WithMargin(m.Margin)", "", ""}}},
	{Name: "CosineEmbeddingLoss", Fn: "CosineEmbeddingLoss", Doc: "1 - cos(x1, x2) where y is 1 and max(0, cos(x1, x2) - Margin) where y is -1",
		Params: "x1, x2, target", ForwardDoc: "the loss of the rows of x1 and x2 against target (1 or -1 per row)", Fields: []field{
			{"Margin", "float64", "margin", "0", "F.WithMargin(m.Margin)", "", ""}}},
	{Name: "SoftMarginLoss", Fn: "SoftMarginLoss", Doc: "log(1 + exp(-y·x)), the logistic loss of y (1 or -1)",
		Params: "input, target", ForwardDoc: "the loss of input against target"},
	{Name: "MultiLabelMarginLoss", Fn: "MultilabelMarginLoss", Doc: "the multi-class hinge loss of input (N, C) or (C) against target, the indices of each sample's classes padded with -1",
		Params: "input, target", ForwardDoc: "the loss of input against target (int64, shaped like input)"},
	{Name: "MultiLabelSoftMarginLoss", Fn: "MultilabelSoftMarginLoss", Doc: "the binary cross entropy of each class of input (N, C) against target (0 or 1), averaged over the classes",
		Params: "input, target", ForwardDoc: "the loss of input against target", Fields: []field{
			{"Weight", "torch.Tensor", "weight", "", "F.WithWeight(m.Weight)", "a weight per class; undefined for none", ""}}},
	{Name: "MultiMarginLoss", Fn: "MultiMarginLoss", Doc: "the multi-class hinge loss of input (N, C) or (C) against the class indices target",
		Params: "input, target", ForwardDoc: "the loss of input against target", Check: "checkMultiMarginLoss", Fields: []field{
			{"P", "int64", "p", "1", "F.WithP(float64(m.P))", "1 or 2", `int64(a.float("p", 1))`},
			{"Margin", "float64", "margin", "1.0", "F.WithMargin(m.Margin)", "", ""},
			{"Weight", "torch.Tensor", "weight", "", "F.WithWeight(m.Weight)", "a weight per class; undefined for none", ""}}},
	{Name: "TripletMarginLoss", Fn: "TripletMarginLoss", Doc: "max(d(a, p) - d(a, n) + Margin, 0), d the P-norm distance, of anchors, positives and negatives",
		Params: "anchor, positive, negative", ForwardDoc: "the loss of the triplets", Fields: []field{
			{"Margin", "float64", "margin", "1.0", "F.WithMargin(m.Margin)", "", ""},
			{"P", "float64", "p", "2.0", "F.WithP(m.P)", "the norm degree", ""},
			{"Eps", "float64", "eps", "1e-6", "F.WithEps(m.Eps)", "", ""},
			{"Swap", "bool", "swap", "false", "F.WithSwap(m.Swap)", "use d(p, n) where it is smaller than d(a, n)", ""}}},
	{Name: "PoissonNLLLoss", Fn: "PoissonNllLoss", Doc: "the negative log likelihood of target under a Poisson distribution of mean input (or exp(input), by default)",
		Params: "input, target", ForwardDoc: "the loss of input against target", Fields: []field{
			{"LogInput", "bool", "log_input", "true", "F.WithLogInput(m.LogInput)", "input is the log of the mean", ""},
			{"Full", "bool", "full", "false", "F.WithFull(m.Full)", "add Stirling's approximation of log(target!)", ""},
			{"Eps", "float64", "eps", "1e-8", "F.WithEps(m.Eps)", "", ""}}},
	{Name: "GaussianNLLLoss", Fn: "GaussianNllLoss", Doc: "the negative log likelihood of target under a Gaussian of mean input and variance var",
		Params: "input, target, variance", ForwardDoc: "the loss of input against target, with variance variance: shaped like input, or like it without its last dimension, or with 1 as its last dimension (one variance for each row)", Fields: []field{
			{"Full", "bool", "full", "false", "F.WithFull(m.Full)", "add the constant log(2π)/2", ""},
			{"Eps", "float64", "eps", "1e-6", "F.WithEps(m.Eps)", "the least variance used", ""}}},
	{Name: "CTCLoss", Fn: "CtcLoss", Doc: "the connectionist temporal classification loss of log-probabilities (T, N, C) or (T, C) against unaligned target sequences",
		Params: "logProbs, targets, inputLengths, targetLengths", ForwardDoc: "the loss of logProbs (T, N, C) against targets, (N, S) padded or the N sequences concatenated, with the lengths inputLengths and targetLengths (N) (int64 tensors)",
		ReductionDoc: `"mean": over the target lengths, then the batch`, Fields: []field{
			{"Blank", "int64", "blank", "0", "F.WithBlank(m.Blank)", "the blank label", ""},
			{"ZeroInfinity", "bool", "zero_infinity", "false", "F.WithZeroInfinity(m.ZeroInfinity)", "zero the infinite losses (and their gradients)", ""}}},
}

// tryForward writes a layer's TryForward: params are its tensor
// parameters, call what it returns; a nil layer is an error.
func tryForward(name, params, call string) string {
	return fmt.Sprintf(`// TryForward is Forward that returns its error.
func (m *%sModule) TryForward(%s torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return %s
}`, name, params, call)
}

var lossTmpl = template.Must(template.New("l").Funcs(template.FuncMap{
	"tryForward": tryForward,
	"lossOpts": func(fs []field) string {
		var b strings.Builder
		for _, f := range fs {
			b.WriteString(", " + f.Opt)
		}
		return b.String()
	},
	"getter": func(f field) string {
		if f.Get != "" {
			return f.Get
		}
		switch f.Type {
		case "float64":
			return fmt.Sprintf("a.float(%q, %s)", f.Kw, f.Def)
		case "int64":
			return fmt.Sprintf("a.int(%q, %s)", f.Kw, f.Def)
		case "bool":
			return fmt.Sprintf("a.bool(%q, %s)", f.Kw, f.Def)
		}
		return fmt.Sprintf("a.tensor(%q)", f.Kw)
	},
	"tag": func(f field) string {
		if f.Type == "torch.Tensor" {
			return "`gotorch:\"buffer\"`"
		}
		return ""
	},
	"wrap": wrap,
	"options": func(fs []field, reduction string) string {
		var parts []string
		for _, f := range fs {
			def := f.Def
			if f.Type == "torch.Tensor" {
				def = "None"
			}
			parts = append(parts, fmt.Sprintf("%s (%s)", strings.Fields(strings.NewReplacer("F.", "", "(", " ").Replace(f.Opt))[0], def))
		}
		if reduction == "" {
			reduction = `"mean"`
		}
		return strings.Join(append(parts, "WithReduction ("+reduction+")"), ", ") + "."
	},
}).Parse(header + `{{range .}}
{{wrap (printf "%sModule is %s (torch.nn.%s)." .Name .Doc .Name)}}
type {{.Name}}Module struct {
	Module
{{- range .Fields}}
	{{.Field}} {{.Type}} {{tag .}}{{if .Comment}} // {{.Comment}}{{end}}
{{- end}}
	Reduction string // "mean", "sum" or "none"
}

// {{.Name}} returns a {{.Name}}Module.
//
{{wrap (printf "Options: %s" (options .Fields .ReductionDoc))}}
func {{.Name}}(opts ...Option) *{{.Name}}Module {
	a := lossArgs("{{.Name}}", opts{{range .Fields}}, "{{.Kw}}"{{end}})
{{- if .Check}}
	{{.Check}}(&a)
{{- end}}
	m := &{{.Name}}Module{ {{- range .Fields}}{{.Field}}: {{getter .}}, {{end}}Reduction: a.str("reduction", "mean")}
	m.Init(m)
	return m
}

{{wrap (printf "Forward returns %s." .ForwardDoc)}}
func (m *{{.Name}}Module) Forward({{.Params}} torch.Tensor) torch.Tensor {
	return must(m.TryForward({{.Params}}))
}

{{tryForward .Name .Params (printf "F.Try%s(%s%s, F.WithReduction(m.Reduction))" .Fn .Params (lossOpts .Fields))}}
{{end}}`))

// wrap breaks a comment into lines of at most 76 columns, each "// ".
func wrap(s string) string {
	var out, line string
	for _, w := range strings.Fields(s) {
		if line != "" && len(line)+1+len(w) > 73 {
			out += "// " + line + "\n"
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return out + "// " + line
}

const header = `// Code generated by go run ./internal/genlayers; DO NOT EDIT.

package nn

import (
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)
`

var activationTmpl = template.Must(template.New("a").Funcs(template.FuncMap{"wrap": wrap, "lower": lowerFirst, "tryForward": tryForward}).Parse(header + `{{range .Plain}}
// {{.Name}}Module applies {{.What}} element-wise (torch.nn.{{.Name}}).
type {{.Name}}Module struct {
	Module
}

// {{.Name}} returns a {{.Name}}Module.
func {{.Name}}() *{{.Name}}Module {
	m := &{{.Name}}Module{}
	m.Init(m)
	return m
}

// Forward applies the activation to x.
func (m *{{.Name}}Module) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *{{.Name}}Module) TryForward(x torch.Tensor) (torch.Tensor, error) { return F.Try{{.Fn}}(x) }
{{end}}{{range .Dim}}` + intLayerTmpl + `{{end}}{{range .Float}}
{{wrap (printf "%sModule applies %s (torch.nn.%s)." .Name .What .Name)}}
type {{.Name}}Module struct {
	Module
	{{.Field}} float64
}

// {{.Name}} returns {{if eq (slice .Name 0 1) "E"}}an{{else}}a{{end}} {{.Name}}Module.
//
// Options: With{{.Field}} ({{.PyDef}}).
func {{.Name}}(opts ...Option) *{{.Name}}Module {
	var a layerArgs
	a.parse("{{.Name}}", opts, "{{.Kw}}")
	m := &{{.Name}}Module{ {{- .Field}}: a.float("{{.Kw}}", {{.Def}})}
	m.Init(m)
	return m
}

// Forward applies the activation to x.
func (m *{{.Name}}Module) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

{{tryForward .Name "x" (printf "F.Try%s(x, F.With%s(m.%s))" .Fn .Field .Field)}}

{{if .Bare}}
// ExtraRepr is "{{.PyDef}}".
func (m *{{.Name}}Module) ExtraRepr() string { return pyFloat(m.{{.Field}}) }
{{else}}
// ExtraRepr is "{{.Kw}}={{.PyDef}}".
func (m *{{.Name}}Module) ExtraRepr() string { return "{{.Kw}}=" + pyFloat(m.{{.Field}}) }
{{end}}{{end}}`))

var factorTmpl = template.Must(template.New("f").Funcs(template.FuncMap{"wrap": wrap, "lower": lowerFirst, "tryForward": tryForward}).Parse(header + `{{range .}}` + intLayerTmpl + `{{end}}`))

// intLayerTmpl writes one intLayer.
const intLayerTmpl = `
{{wrap (printf "%sModule %s (torch.nn.%s)." .Name .Doc .Name)}}
type {{.Name}}Module struct {
	Module
	{{.Field}} int64
}

{{wrap (printf "%s returns a %sModule. %s" .Name .Name .Note)}}
func {{.Name}}({{lower .Field}} int64) *{{.Name}}Module {
	m := &{{.Name}}Module{ {{- .Field}}: {{lower .Field}}}
	m.Init(m)
	return m
}

// Forward {{.Does}} x.
func (m *{{.Name}}Module) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

{{tryForward .Name "x" .Call}}

// ExtraRepr is "{{.Kw}}=2".
func (m *{{.Name}}Module) ExtraRepr() string { return "{{.Kw}}=" + itoa(m.{{.Field}}) }
`

// lowerFirst is s with its first letter in lower case: a field's name as
// a parameter's.
func lowerFirst(s string) string { return strings.ToLower(s[:1]) + s[1:] }

var dropoutTmpl = template.Must(template.New("d").Funcs(template.FuncMap{"tryForward": tryForward}).Parse(header + `{{range .}}
// {{.Name}}Module {{.Doc}} (torch.nn.{{.Name}}).
type {{.Name}}Module struct {
	Module
	P float64
}

// {{.Name}} returns a {{.Name}}Module.
//
// Options: WithP (0.5).
func {{.Name}}(opts ...Option) *{{.Name}}Module {
	m := &{{.Name}}Module{P: dropoutP("{{.Name}}", opts)}
	m.Init(m)
	return m
}

// Forward applies {{.Does}} to x in training.
func (m *{{.Name}}Module) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

{{tryForward .Name "x" (printf "F.Try%s(x, F.WithP(m.P), F.WithTraining(m.IsTraining()))" .Fn)}}

// ExtraRepr is "p=0.5, inplace=False".
func (m *{{.Name}}Module) ExtraRepr() string { return dropoutRepr(m.P) }
{{end}}`))

func write(name string, t *template.Template, data any) error {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return err
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return os.WriteFile(name, src, 0o644)
}

func main() {
	dir := flag.String("o", ".", "the folder to write to (package nn's)")
	flag.Parse()
	files := []struct {
		name string
		tmpl *template.Template
		data any
	}{
		{"activation_gen.go", activationTmpl, map[string]any{"Plain": activations, "Dim": dimActivations, "Float": floatActivations}},
		{"vision_gen.go", factorTmpl, factorLayers},
		{"dropout_gen.go", dropoutTmpl, dropouts},
		{"loss_gen.go", lossTmpl, losses},
	}
	for _, f := range files {
		if err := write(filepath.Join(*dir, f.name), f.tmpl, f.data); err != nil {
			fmt.Fprintln(os.Stderr, "genlayers:", err)
			os.Exit(1)
		}
	}
}
