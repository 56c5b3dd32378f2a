package pt

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goldenFiles are the seed corpus of both fuzz targets: every file that
// make.py writes, with PyTorch 1.13.1 and 2.6.
func goldenFiles(t testing.TB) map[string][]byte {
	out := map[string][]byte{}
	for _, dir := range []string{"testdata", "testdata/torch2.6"} {
		paths, err := filepath.Glob(filepath.Join(dir, "*.pt"))
		if err != nil || len(paths) == 0 {
			t.Fatalf("no golden files in %s: %v", dir, err)
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out[p] = b
		}
	}
	return out
}

// pickles returns the pickles inside a golden file: data.pkl of a zip
// archive, the whole file otherwise (whose first pickle the VM runs).
func pickles(t testing.TB, data []byte) [][]byte {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return [][]byte{data}
	}
	var out [][]byte
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, ".pkl") {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			_, err = b.ReadFrom(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b.Bytes())
		}
	}
	return out
}

// fuzzLimits keep a fuzzed input from spending long on what the limits
// allow a real file.
var fuzzLimits = Limits{MaxTensors: 1000, MaxDepth: 200, MaxStack: 1 << 14, MaxMemo: 1 << 14}

func checkErr(t *testing.T, err error) {
	if err != nil && !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrUnsupported) &&
		!errors.Is(err, ErrNotAllowed) && !errors.Is(err, ErrLimit) {
		// libtorch refusing a view or a dtype is a *torch.Error: fine too.
		if !strings.Contains(err.Error(), "torch") {
			t.Fatalf("an error of no known kind: %v", err)
		}
	}
}

// FuzzPickle runs the pickle machine, with persistent ids resolved as the
// zip format resolves them, and converts its result to Go values (making
// tensors over storages of zeros).
func FuzzPickle(f *testing.F) {
	for _, b := range goldenFiles(f) {
		for _, p := range pickles(f, b) {
			f.Add(p)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := newConfig([]Option{WithLimits(fuzzLimits)})
		if err != nil {
			t.Fatal(err)
		}
		lim := c.lim
		a := &archive{storages: map[string]*storageRef{}, size: int64(len(data))}
		a.read = func(s *storageRef) ([]byte, error) { return make([]byte, s.numel*int64(s.dtype.Size())), nil }
		m := newMachine(newInput(bytes.NewReader(data), int64(len(data))), lim, a.persistentLoader(false))
		v, err := unpickle(m)
		if err != nil {
			checkErr(t, err)
			return
		}
		conv := newConverter(a, lim)
		_, err = conv.value(v, 0)
		conv.finish(true)
		checkErr(t, err)
	})
}

// FuzzDecode runs the whole reader on a file.
func FuzzDecode(f *testing.F) {
	for _, b := range goldenFiles(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode(bytes.NewReader(data), int64(len(data)), WithLimits(fuzzLimits))
		checkErr(t, err)
		Free(v)
	})
}
