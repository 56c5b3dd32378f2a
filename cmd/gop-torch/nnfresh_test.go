package main

import (
	"go/types"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stubNN declares two modules: Linear, whose Forward the tests list in
// handFresh under stub hashes, and Identity, which returns its input and
// is never listed.
const stubNN = `package nn

import "github.com/gotorch/gotorch/torch"

type LinearModule struct{ Weight torch.Tensor }

func (l *LinearModule) Forward(x torch.Tensor) torch.Tensor { return x.Mm(l.Weight) }

func (l *LinearModule) TryForward(x torch.Tensor) (torch.Tensor, error) { return x.Mm(l.Weight), nil }

type IdentityModule struct{}

func (m *IdentityModule) Forward(x torch.Tensor) torch.Tensor { return x }

func (m *IdentityModule) TryForward(x torch.Tensor) (torch.Tensor, error) { return x, nil }
`

// A listed module's Forward (nn.Linear's) is an op that keeps nothing and
// returns a new tensor: its result is a temporary that the next op
// consumes, and it consumes a temporary passed to it, through the model's
// field (this.FC2), so that a Go+ model's relu(FC1.forward(x)) frees each
// intermediate as nn.Sequential does.
func TestConsumeModuleForward(t *testing.T) {
	imp := stubPackages(t)
	imp.add(t, nnPath, stubNN)
	nn := imp.pkgs[nnPath]
	lin := nn.Scope().Lookup("LinearModule").Type()
	fwd := lookupMethod(t, lin, "Forward")
	try := lookupMethod(t, lin, "TryForward")
	stubHashes(t, imp, map[string]types.Object{
		nnPath + ".LinearModule.Forward":    fwd,
		nnPath + ".LinearModule.TryForward": try,
	})
	const header = "package p\n\nimport (\n\t\"github.com/gotorch/gotorch/nn\"\n\t\"github.com/gotorch/gotorch/torch\"\n)\n\n" +
		"type M struct {\n\tFC1, FC2 *nn.LinearModule\n\tID       *nn.IdentityModule\n}\n\nfunc (this *M) f(x torch.Tensor) {\n"
	cases := []struct {
		name, body, want string
		n                int
	}{
		{"a layer's output consumed by an op", "_ = torch.Relu(this.FC1.Forward(x))",
			"_ = torch.Consume(this.FC1.Forward(x), func(t torch.Tensor) torch.Tensor { return torch.Relu(t) })", 1},
		{"an op's output consumed by a layer", "_ = this.FC2.Forward(torch.Relu(x))",
			"_ = torch.Consume(torch.Relu(x), func(t torch.Tensor) torch.Tensor { return this.FC2.Forward(t) })", 1},
		{"the MLP's chain", "_ = this.FC2.Forward(torch.Relu(this.FC1.Forward(x)))",
			"_ = torch.Consume(torch.Consume(this.FC1.Forward(x), func(t torch.Tensor) torch.Tensor { return torch.Relu(t) }), func(t torch.Tensor) torch.Tensor { return this.FC2.Forward(t) })", 2},
		{"an operator's operand", "_ = this.FC1.Forward(x).Gop_Mul(2)", "_ = torch.Temp(this.FC1.Forward(x)).Gop_Mul(2)", 1},
		{"a module not listed returns its input", "_ = torch.Relu(this.ID.Forward(x))", "", 0},
		{"nor does it consume", "_ = this.ID.Forward(torch.Relu(x))", "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := header + "\t" + c.body + "\n}\n"
			got, n, err := markTemps([]byte(src), t.TempDir(), imp)
			require.NoError(t, err)
			assert.Equal(t, c.n, n)
			if c.want == "" {
				assert.Equal(t, src, string(got))
				return
			}
			assert.Contains(t, string(got), "\t"+c.want+"\n")
			_, _, err = markTemps(got, t.TempDir(), imp)
			require.NoError(t, err, "the result compiles")
		})
	}
	// An edited TryForward (here: another hash in the table) is not
	// trusted, and neither is Forward then.
	t.Run("changed TryForward", func(t *testing.T) {
		key := nnPath + ".LinearModule.TryForward"
		old := handFresh[key]
		handFresh[key] = "0000000000000000"
		defer func() { handFresh[key] = old }()
		src := header + "\t_ = torch.Relu(this.FC1.Forward(x))\n}\n"
		got, n, err := markTemps([]byte(src), t.TempDir(), imp)
		require.NoError(t, err)
		assert.Zero(t, n)
		assert.Equal(t, src, string(got))
	})
}

func lookupMethod(t *testing.T, recv types.Type, name string) types.Object {
	t.Helper()
	obj, _, _ := types.LookupFieldOrMethod(recv, true, nil, name)
	require.NotNil(t, obj, name)
	return obj
}
