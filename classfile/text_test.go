package classfile_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/classfile"
	"github.com/gotorch/gotorch/data"
	"github.com/gotorch/gotorch/torch"
)

func TestTextDataset(t *testing.T) {
	path := filepath.Join(t.TempDir(), "text.txt")
	text := strings.Repeat("abcdefghij", 20) // 200 characters
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))

	tr := new(classfile.Trainer)
	tr.BatchSize__1(8)
	tr.Seed__1(1)
	ds := tr.TextDataset(path, 5)
	assert.Equal(t, 10, ds.VocabSize())
	assert.Equal(t, 195, ds.Len())

	// 195 windows: the first 195-19 = 176 train, then a gap of the
	// sequence length, then the last 195-176-5 = 14 test.
	assert.Equal(t, 176, tr.TrainSet().Len())
	assert.Equal(t, 14, tr.TestSet().Len())
	first, err := tr.TestSet().Get(0)
	require.NoError(t, err)
	in, ok := first.Input.(data.Array[int64])
	require.True(t, ok, "%T", first.Input)
	assert.Equal(t, "bcdef", ds.Decode(in.Data), "the first test window starts at character 176+5 = 181")

	n := 0
	for it := tr.TrainLoader().XGo_Enum(); ; n++ {
		x, y, ok := it.Next()
		if !ok {
			break
		}
		require.Equal(t, torch.Int64, x.DType())
		require.Equal(t, []int64{8, 5}, x.Shape())
		require.Equal(t, []int64{8, 5}, y.Shape())
		// The target is the input shifted by one character.
		xs, ys := x.Int64s(), y.Int64s()
		for i := range 8 {
			assert.Equal(t, xs[i*5+1:i*5+5], ys[i*5:i*5+4])
		}
	}
	assert.Equal(t, 22, n, "176 windows in batches of 8")

	// A text too short for a test set.
	require.NoError(t, os.WriteFile(path, []byte("abcdefghijkl"), 0o644))
	tr.TextDataset(path, 5)
	assert.Equal(t, 7, tr.TrainSet().Len())
	assert.Nil(t, tr.TestSet())

	assert.PanicsWithError(t, "classfile: textDataset: data: open "+filepath.Join(filepath.Dir(path), "missing")+": no such file or directory",
		func() { tr.TextDataset(filepath.Join(filepath.Dir(path), "missing"), 5) })
}

// knobScript reads epochs and lr, as a script that trains does, and so
// uses their flags.
type knobScript struct{ script }

func (s *knobScript) MainEntry() {
	s.ran = true
	s.Epochs__0()
	s.Lr__0()
}

func TestArgs(t *testing.T) {
	defer classfile.SetTestHooks(io.Discard, []string{"-epochs", "2", "-lr=0.1", "book.txt", "more"})()
	s := new(knobScript)
	classfile.XGot_Trainer_Main(s)
	assert.Equal(t, []string{"book.txt", "more"}, s.Args())
	assert.Equal(t, 2, s.Epochs__0())

	defer classfile.SetTestHooks(io.Discard, []string{"-epochs", "2"})()
	assert.Empty(t, new(classfile.Trainer).Args())
}
