package robustness

import (
	"syscall"

	"bytes"
	"encoding/binary"
	"github.com/gotorch/gotorch/internal/fileio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/nn"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/safetensors"
)

// corpusInput reads one input of a Go fuzz corpus file ([]byte only).
func corpusInput(t *testing.T, path string) []byte {
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(string(raw), "\n")
	require.GreaterOrEqual(t, len(lines), 2)
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
	require.NoError(t, err)
	return []byte(s)
}

// fileCases: torch.Load and torch.Decode (PyTorch's torch.save format) on
// bad files, including what FuzzDecode found.
func fileCases(t *testing.T) []badCase {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	valid := torch.FromSlice([]float64{1, 2, 3, 4}).Encode()
	// The same file, claiming 9 elements in its pickle for the 32 bytes of
	// data it holds.
	i := bytes.Index(valid, []byte("cpuq\x04K\x04"))
	j := bytes.Index(valid[i:], []byte("(K\x04t"))
	require.True(t, i > 0 && j > 0)
	oversized := append([]byte(nil), valid...)
	oversized[i+6] = 9
	oversized[i+j+2] = 9
	// A sparse tensor whose last row index is 2^40 in a 3-row tensor.
	sparse := x34().ToSparse().Encode()
	var rows []byte
	for _, r := range []int64{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2} {
		rows = binary.LittleEndian.AppendUint64(rows, uint64(r))
	}
	k := bytes.Index(sparse, rows)
	require.True(t, k > 0)
	binary.LittleEndian.PutUint64(sparse[k+8*11:], 1<<40)
	memoBomb := corpusInput(t, "../../torch/testdata/fuzz/FuzzDecode/5269d938b9089432")
	underflow := corpusInput(t, "../../torch/testdata/fuzz/FuzzDecode/73931467f25f514f")
	load := func(p string) func() error { return func() error { return e1(torch.Load(p)) } }
	decode := func(b []byte) func() error { return func() error { return e1(torch.Decode(b)) } }
	return []badCase{
		{"torch.Load missing file", "no such file or directory", "", os.ErrNotExist, load(filepath.Join(dir, "nope.pt"))},
		{"torch.Load empty file", "no data", "load", nil, load(write("empty.pt", nil))},
		{"torch.Load garbage", "not a ZIP archive", "load", nil, load(write("garbage.pt", []byte("not a tensor file")))},
		{"torch.Load truncated", "zip archive", "load", nil, load(write("trunc.pt", valid[:len(valid)/2]))},
		{"torch.Load a directory", "not a regular file (a directory)", "", fileio.ErrNotRegular, load(dir)},
		{"torch.Load a FIFO", "not a regular file (a FIFO)", "", fileio.ErrNotRegular, load(mkfifo(t, dir, "fifo.pt"))},
		{"torch.Load /dev/zero", "not a regular file (a character device)", "", fileio.ErrNotRegular, load("/dev/zero")},
		{"torch.Load a Python list", "not a single tensor", "load", nil, load("../../torch/testdata/py_not_tensor.pt")},
		{"torch.Decode memo index bomb", "corrupt pickle: memo index", "load", nil, decode(memoBomb)},
		{"torch.Decode stack underflow", "corrupt pickle", "load", nil, decode(underflow)},
		{"torch.Decode view past its storage", "needs 72 bytes, its storage has 32", "load", nil, decode(oversized)},
		{"torch.Decode sparse index out of range", "for dim 0, size is 3 but found index 1099511627776", "load", nil, decode(sparse)},
		{"torch.Decode one byte", "zip", "load", nil, decode([]byte{0})},
	}
}

// ckModel is a small model for the state-dict and checkpoint cases.
type ckModel struct {
	nn.Module
	FC   *nn.LinearModule
	Norm *nn.BatchNorm1dModule
}

func newCkModel(out int64) *ckModel {
	m := &ckModel{FC: nn.Linear(3, out), Norm: nn.BatchNorm1d(out)}
	m.Init(m)
	return m
}

// uninit embeds Module but its constructor forgot Init.
type uninit struct {
	nn.Module
	W torch.Tensor
}

type holder struct {
	nn.Module
	FC *nn.LinearModule
}

// nnCases: layers and modules with bad arguments, nil and uninitialized
// modules, and LoadStateDict with missing, extra and wrong-shaped keys.
func nnCases(t *testing.T) []badCase {
	sd := func(m *ckModel, edit func(map[string]torch.Tensor)) map[string]torch.Tensor {
		s := m.StateDict()
		edit(s)
		return s
	}
	x := func(s ...int64) torch.Tensor { return torch.Ones(s) }
	return []badCase{
		// Nil and uninitialized modules.
		{"nil Linear Forward", "called on a nil *nn.LinearModule", "nn.Linear", nn.ErrUninitialized,
			p(func() { var m *nn.LinearModule; m.Forward(x(2, 3)) })},
		{"nil Conv2d TryForward", "called on a nil *nn.Conv2dModule", "nn.Conv2d", nn.ErrUninitialized,
			func() error { var m *nn.Conv2dModule; return e1(m.TryForward(x(1, 1, 4, 4))) }},
		{"nil layer field", "called on a nil *nn.LinearModule", "nn.Linear", nn.ErrUninitialized,
			p(func() { h := &holder{}; h.Init(h); h.FC.Forward(x(2, 3)) })},
		{"nil Sequential", "nil *nn.SequentialModule", "", nn.ErrUninitialized,
			p(func() { var m *nn.SequentialModule; m.Forward(x(2, 3)) })},
		{"nil layer in Sequential", "layer 0: nil module", "", nn.ErrUninitialized,
			p(func() { nn.Sequential(nil) })},
		{"nil LSTM", "nil *nn.LSTMModule", "", nn.ErrUninitialized,
			func() error { var m *nn.LSTMModule; return e3(m.TryForward(x(1, 1, 2))) }},
		{"uninitialized StateDict", "module not initialized", "", nn.ErrUninitialized,
			p(func() { u := &uninit{W: x(2)}; u.StateDict() })},
		{"uninitialized LoadStateDict", "module not initialized", "", nn.ErrUninitialized,
			func() error { u := &uninit{W: x(2)}; return u.LoadStateDict(nil, true) }},
		// Layer arguments.
		{"Linear negative size", "must be non-negative", "nn.Linear", nil,
			p(func() { nn.Linear(-1, 2) })},
		{"Linear overflowing size", "overflowed", "empty", nil,
			p(func() { nn.Linear(1<<40, 1<<40) })},
		{"Linear input features", "cannot be multiplied", "linear", nil,
			func() error { return e1(nn.Linear(3, 2).TryForward(x(2, 5))) }},
		{"Conv2d groups", "in_channels must be divisible by groups", "nn.Conv2d", nil,
			p(func() { nn.Conv2d(3, 4, 3, nn.WithGroups(2)) })},
		{"Conv2d zero stride", "non-positive stride is not supported", "conv2d", nil,
			func() error { return e1(nn.Conv2d(1, 1, 3, nn.WithStride(0)).TryForward(x(1, 1, 5, 5))) }},
		{"Conv2d input channels", "expected input[1, 2, 5, 5] to have 1 channels", "conv2d", nil,
			func() error { return e1(nn.Conv2d(1, 1, 3).TryForward(x(1, 2, 5, 5))) }},
		{"Conv2d kernel larger than input", "Kernel size can't be greater than actual input size", "conv2d", nil,
			func() error { return e1(nn.Conv2d(1, 1, 7).TryForward(x(1, 1, 5, 5))) }},
		{"BatchNorm batch of one", "Expected more than 1 value per channel when training", "nn.functional.batch_norm", nil,
			func() error { return e1(nn.BatchNorm1d(3).TryForward(x(1, 3))) }},
		{"BatchNorm channels", "running_mean should contain 4 elements not 3", "batch_norm", nil,
			func() error { return e1(nn.BatchNorm1d(3).TryForward(x(2, 4))) }},
		{"Embedding index", "index out of range in self", "embedding", nil,
			func() error { return e1(nn.Embedding(10, 3).TryForward(i64(10))) }},
		{"Embedding negative index", "index out of range in self", "embedding", nil,
			func() error { return e1(nn.Embedding(10, 3).TryForward(i64(-1))) }},
		{"Embedding float index", "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int", "embedding", nil,
			func() error { return e1(nn.Embedding(10, 3).TryForward(f32(1))) }},
		{"CrossEntropy target", "Target 5 is out of bounds", "cross_entropy_loss", nil,
			func() error { return e1(nn.CrossEntropyLoss().TryForward(x(2, 3), i64(0, 5))) }},
		{"CrossEntropy float target", "expected scalar type Long but found Float", "cross_entropy_loss", nil,
			func() error { return e1(nn.CrossEntropyLoss().TryForward(x(2, 3), f32(0, 1))) }},
		{"CrossEntropy batch", "Expected input batch_size (2) to match target batch_size (3)", "cross_entropy_loss", nil,
			func() error { return e1(nn.CrossEntropyLoss().TryForward(x(2, 3), i64(0, 1, 2))) }},
		{"NLLLoss negative target", "Target -5 is out of bounds", "nll_loss_nd", nil,
			func() error { return e1(nn.NLLLoss().TryForward(x(2, 3), i64(-5, 1))) }},
		{"MSELoss shapes", "must match the size", "broadcast_tensors", nil,
			func() error { return e1(nn.MSELoss().TryForward(x(2, 3), x(4, 3))) }},
		{"BCELoss input range", "between 0 and 1", "binary_cross_entropy", nil,
			func() error { return e1(nn.BCELoss().TryForward(f32(2), f32(1))) }},
		{"Dropout probability", "dropout probability has to be between 0 and 1, but got 1.5", "nn.Dropout", nil,
			p(func() { nn.Dropout(nn.WithP(1.5)) })},
		{"LSTM negative size", "input_size must be non-negative", "", nil,
			p(func() { nn.LSTM(-1, 2) })},
		{"LSTM input features", "input.size(-1) must be equal to input_size", "", nil,
			func() error { return e3(nn.LSTM(4, 2).TryForward(x(3, 1, 5))) }},
		{"MaxPool2d kernel larger than input", "Output size is too small", "max_pool2d", nil,
			func() error { return e1(nn.MaxPool2d(10).TryForward(x(1, 1, 3, 3))) }},
		{"AvgPool2d padding", "pad should be at most half of kernel size|pad should be at most half of effective kernel size", "avg_pool2d", nil,
			func() error { return e1(nn.AvgPool2d(2, nn.WithPadding(5)).TryForward(x(1, 1, 3, 3))) }},
		{"LayerNorm shape", "Given normalized_shape=[5]", "layer_norm", nil,
			func() error { return e1(nn.LayerNorm(5).TryForward(x(2, 3))) }},
		{"GroupNorm groups", "num_channels must be divisible by num_groups", "", nil,
			p(func() { nn.GroupNorm(3, 4) })},
		{"MultiheadAttention heads", "embed_dim must be divisible by num_heads", "", nil,
			p(func() { nn.MultiheadAttention(5, 2) })},
		{"Interpolate without size", "either size or scale_factor should be defined", "nn.functional.interpolate", nil,
			func() error { return e1(F.TryInterpolate(x(1, 1, 3, 3))) }},
		{"functional linear bias shape", "", "linear", nil,
			func() error { return e1(F.TryLinear(x(2, 3), x(4, 3), F.WithBias(x(5)))) }},
		// LoadStateDict.
		{"LoadStateDict missing key", "missing keys: fc.bias", "", nil,
			func() error {
				m := newCkModel(2)
				return m.LoadStateDict(sd(newCkModel(2), func(s map[string]torch.Tensor) { delete(s, "fc.bias") }), true)
			}},
		{"LoadStateDict extra key", "unexpected keys: extra.weight", "", nil,
			func() error {
				m := newCkModel(2)
				return m.LoadStateDict(sd(newCkModel(2), func(s map[string]torch.Tensor) { s["extra.weight"] = x(1) }), true)
			}},
		{"LoadStateDict wrong shape", "fc.weight: shape [4 3] in state dict, [2 3] in module", "", nil,
			func() error { return newCkModel(2).LoadStateDict(newCkModel(4).StateDict(), true) }},
		{"LoadStateDict wrong shape, not strict", "size mismatch", "", nil,
			func() error { return newCkModel(2).LoadStateDict(newCkModel(4).StateDict(), false) }},
		{"LoadStateDict zero tensor", "fc.bias: undefined tensor in state dict", "", nil,
			func() error {
				return newCkModel(2).LoadStateDict(sd(newCkModel(2), func(s map[string]torch.Tensor) { s["fc.bias"] = torch.Tensor{} }), true)
			}},
		{"LoadStateDict freed tensor", "fc.weight: undefined tensor in state dict", "", nil,
			func() error {
				return newCkModel(2).LoadStateDict(sd(newCkModel(2), func(s map[string]torch.Tensor) { s["fc.weight"].Free() }), true)
			}},
		{"LoadStateDict meta tensor", "fc.weight", "", nil,
			func() error {
				return newCkModel(2).LoadStateDict(sd(newCkModel(2), func(s map[string]torch.Tensor) {
					s["fc.weight"] = torch.Ones(shape(2, 3), torch.WithDevice(meta))
				}), true)
			}},
	}
}

// checkpointCases: nn.Save and nn.Load with bad modules, paths and files.
func checkpointCases(t *testing.T) []badCase {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.safetensors")
	require.NoError(t, nn.Save(newCkModel(2), good))
	goodBytes, err := os.ReadFile(good)
	require.NoError(t, err)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	hugeHeader := binary.LittleEndian.AppendUint64(nil, 1<<62)
	badJSON := append(binary.LittleEndian.AppendUint64(nil, 5), []byte("{oops")...)
	// A header whose data offsets reach past the end of the file.
	hdr := []byte(`{"w":{"dtype":"F32","shape":[1000],"data_offsets":[0,4000]}}`)
	pastEnd := append(binary.LittleEndian.AppendUint64(nil, uint64(len(hdr))), hdr...)
	flipped := append([]byte(nil), goodBytes...)
	flipped[3] ^= 0x7f // the header length's high bytes
	load := func(path string, out int64) func() error {
		return func() error { return nn.Load(newCkModel(out), path, true) }
	}
	return []badCase{
		{"nn.Save nil module", "nil module", "", nn.ErrUninitialized,
			func() error { return nn.Save(nil, filepath.Join(dir, "a")) }},
		{"nn.Save uninitialized module", "module not initialized", "", nn.ErrUninitialized,
			func() error { return nn.Save(&uninit{}, filepath.Join(dir, "a")) }},
		{"nn.Save into a missing directory", "no such file or directory", "", os.ErrNotExist,
			func() error { return nn.Save(newCkModel(2), filepath.Join(dir, "no", "dir", "a")) }},
		{"nn.Load nil module", "nil *robustness.ckModel", "", nn.ErrUninitialized,
			func() error { var m *ckModel; return nn.Load(m, good, true) }},
		{"nn.Load missing file", "no such file or directory", "", os.ErrNotExist, load(filepath.Join(dir, "missing"), 2)},
		{"nn.Load empty file", "empty file", "", safetensors.ErrInvalid, load(write("empty", nil), 2)},
		{"nn.Load truncated file", "(truncated file?)", "", safetensors.ErrInvalid, load(write("trunc", goodBytes[:len(goodBytes)-10]), 2)},
		{"nn.Load truncated header", "exceeds the 12 bytes that follow it", "", safetensors.ErrInvalid, load(write("trunchdr", goodBytes[:20]), 2)},
		{"nn.Load huge header length", "header length 4611686018427387904 exceeds", "", safetensors.ErrInvalid, load(write("huge", hugeHeader), 2)},
		{"nn.Load corrupt header length", "exceeds the", "", safetensors.ErrInvalid, load(write("flipped", flipped), 2)},
		{"nn.Load bad JSON", "invalid JSON header", "", safetensors.ErrInvalid, load(write("json", badJSON), 2)},
		{"nn.Load data past the end", "data_offsets [0 4000] out of range", "", safetensors.ErrInvalid, load(write("pastend", pastEnd), 2)},
		{"nn.Load a directory", "not a regular file", "", fileio.ErrNotRegular, load(dir, 2)},
		{"nn.Load a FIFO", "not a regular file (a FIFO)", "", fileio.ErrNotRegular, load(mkfifo(t, dir, "fifo"), 2)},
		{"nn.Load /dev/zero", "not a regular file (a character device)", "", fileio.ErrNotRegular, load("/dev/zero", 2)},
		{"nn.Load wrong shapes", "fc.weight: shape [2 3] in state dict, [4 3] in module", "", nil, load(good, 4)},
		{"nn.Load missing keys", "missing keys", "", nil,
			func() error {
				p := filepath.Join(dir, "partial")
				require.NoError(t, nn.SaveTensors(map[string]torch.Tensor{"fc.weight": torch.Ones(shape(2, 3))}, p, nil))
				return nn.Load(newCkModel(2), p, true)
			}},
		{"nn.Load unexpected keys", "unexpected keys: other", "", nil,
			func() error {
				s := newCkModel(2).StateDict()
				s["other"] = x34()
				p := filepath.Join(dir, "extra")
				require.NoError(t, nn.SaveTensors(s, p, nil))
				return nn.Load(newCkModel(2), p, true)
			}},
		{"nn.SaveTensors zero tensor", "undefined", "", nil,
			func() error { return nn.SaveTensors(map[string]torch.Tensor{"a": {}}, filepath.Join(dir, "z"), nil) }},
		{"nn.SaveTensors freed tensor", `tensor "a" is undefined or freed`, "", nil,
			func() error {
				return nn.SaveTensors(map[string]torch.Tensor{"a": freed()}, filepath.Join(dir, "f"), nil)
			}},
		{"nn.LoadOptimizerState bad key", "is not of the form state.<index>.<name>", "", nil,
			func() error {
				p := filepath.Join(dir, "opt")
				require.NoError(t, nn.SaveTensors(map[string]torch.Tensor{"state.x.y": f32(1)}, p, nil))
				_, err := nn.LoadOptimizerState(p, nil)
				return err
			}},
		{"nn.LoadOptimizerState without param groups", "no \"param_groups\" in the metadata", "", nil,
			func() error {
				p := filepath.Join(dir, "nogroups")
				require.NoError(t, nn.SaveTensors(map[string]torch.Tensor{"state.0.step": f32(1)}, p, nil))
				var groups []map[string]any
				_, err := nn.LoadOptimizerState(p, &groups)
				return err
			}},
	}
}

// mkfifo makes a FIFO in dir, which a reader opening it would wait on for
// ever until a writer came.
func mkfifo(t *testing.T, dir, name string) string {
	p := filepath.Join(dir, name)
	require.NoError(t, syscall.Mkfifo(p, 0o600))
	return p
}
