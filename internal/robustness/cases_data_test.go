package robustness

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"github.com/gotorch/gotorch/internal/fileio"
	"hash/crc32"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/data"
	"github.com/gotorch/gotorch/torch"
)

// idx encodes an IDX file.
func idx(typ byte, dims []uint32, body []byte) []byte {
	b := []byte{0, 0, typ, byte(len(dims))}
	for _, d := range dims {
		b = binary.BigEndian.AppendUint32(b, d)
	}
	return append(b, body...)
}

// listDataset is a dataset of examples made by get.
type listDataset struct {
	n   int
	get func(i int) (data.Example, error)
}

func (d listDataset) Len() int                        { return d.n }
func (d listDataset) Get(i int) (data.Example, error) { return d.get(i) }

// firstErr runs one epoch of l and returns the loader's error.
func firstErr(l *data.Loader) error {
	for l.Scan() {
	}
	return l.Err()
}

// dataCases: the loader's options, IDX, CIFAR-10 and image files that are
// empty, truncated or corrupt, and datasets and transforms that fail.
func dataCases(t *testing.T) []badCase {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	images := idx(8, []uint32{2, 2, 2}, make([]byte, 8))
	labels := idx(8, []uint32{2}, []byte{0, 1})
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(images)
	require.NoError(t, zw.Close())
	var pngBuf bytes.Buffer
	require.NoError(t, png.Encode(&pngBuf, image.NewGray(image.Rect(0, 0, 4, 4))))
	pngBytes := pngBuf.Bytes()
	// A PNG header that claims a 100000×100000 image.
	hugePNG := append([]byte(nil), pngBytes...)
	binary.BigEndian.PutUint32(hugePNG[16:], 100000)
	binary.BigEndian.PutUint32(hugePNG[20:], 100000)
	binary.BigEndian.PutUint32(hugePNG[29:], crc32.ChecksumIEEE(hugePNG[12:29]))
	cifar := make([]byte, 2*3073)
	ds := listDataset{n: 4, get: func(i int) (data.Example, error) { return data.Example{Input: []float32{1, 2}, Target: i}, nil }}
	decodeIDX := func(b []byte) func() error {
		return func() error { _, err := data.DecodeIDX(bytes.NewReader(b)); return err }
	}
	loadIDX := func(im, lb string) func() error {
		return func() error { _, err := data.LoadIDXFiles(im, lb, nil); return err }
	}
	loadCIFAR := func(paths ...string) func() error {
		return func() error { _, err := data.LoadCIFAR10Files(paths...); return err }
	}
	decodeImage := func(path string) func() error {
		return func() error { _, err := data.DecodeImageFile(path); return err }
	}
	newLoader := func(d data.Dataset, o data.Options) func() error {
		return func() error { _, err := data.NewLoader(d, o); return err }
	}
	run := func(d data.Dataset, o data.Options) func() error {
		return func() error {
			l, err := data.NewLoader(d, o)
			if err != nil {
				return err
			}
			return firstErr(l)
		}
	}
	loadText := func(path string) func() error {
		return func() error { _, err := data.LoadCharDataset(path, 4); return err }
	}
	readIDX := func(path string) func() error {
		return func() error { _, err := data.ReadIDXFile(path); return err }
	}
	fifo := mkfifo(t, dir, "fifo")
	return []badCase{
		// Special files: refused before the first read, never waited on or
		// read without end.
		{"DecodeImageFile a FIFO", "not a regular file (a FIFO)", "", fileio.ErrNotRegular, decodeImage(fifo)},
		{"ReadIDXFile a FIFO", "not a regular file (a FIFO)", "", fileio.ErrNotRegular, readIDX(fifo)},
		{"ReadIDXFile /dev/zero", "not a regular file (a character device)", "", fileio.ErrNotRegular, readIDX("/dev/zero")},
		{"LoadCharDataset a FIFO", "not a regular file (a FIFO)", "", fileio.ErrNotRegular, loadText(fifo)},
		{"LoadCharDataset /dev/zero", "not a regular file (a character device)", "", fileio.ErrNotRegular, loadText("/dev/zero")},
		{"LoadCIFAR10Files /dev/zero", "not a regular file (a character device)", "", fileio.ErrNotRegular, loadCIFAR("/dev/zero")},
		{"LoadCIFAR10Files a FIFO", "not a regular file (a FIFO)", "", fileio.ErrNotRegular, loadCIFAR(fifo)},
		// Options.
		{"loader 12,000 workers", "more than MaxWorkers", "", nil, newLoader(ds, data.Options{BatchSize: 1, Workers: 12000})},
		{"loader prefetch 2^40", "more than MaxPrefetch", "", nil, newLoader(ds, data.Options{BatchSize: 1, Workers: 1, Prefetch: 1 << 40})},
		{"loader dataset of 2^40 examples", "more than MaxDatasetLen", "", nil,
			run(listDataset{n: 1 << 40, get: ds.get}, data.Options{BatchSize: 1})},
		{"loader batch size 0", "Options.BatchSize must be at least 1, got 0", "", nil, newLoader(ds, data.Options{})},
		{"loader negative batch size", "Options.BatchSize must be at least 1, got -3", "", nil, newLoader(ds, data.Options{BatchSize: -3})},
		{"loader negative workers", "Options.Workers must not be negative", "", nil, newLoader(ds, data.Options{BatchSize: 1, Workers: -1})},
		{"loader negative prefetch", "Options.Prefetch must not be negative", "", nil, newLoader(ds, data.Options{BatchSize: 1, Workers: 1, Prefetch: -1})},
		{"loader prefetch without workers", "prefetching needs workers", "", nil, newLoader(ds, data.Options{BatchSize: 1, Prefetch: 2})},
		{"loader nil dataset", "nil dataset", "", nil, newLoader(nil, data.Options{BatchSize: 1})},
		// Datasets, transforms and collation that fail, in the loader.
		{"loader dataset error", "data: example 2: no such example", "", nil,
			run(listDataset{n: 4, get: func(i int) (data.Example, error) {
				if i == 2 {
					return data.Example{}, errors.New("no such example")
				}
				return ds.get(i)
			}}, data.Options{BatchSize: 2, Workers: 2})},
		{"loader dataset panic", "panic: boom", "", nil,
			run(listDataset{n: 4, get: func(i int) (data.Example, error) { panic("boom") }}, data.Options{BatchSize: 2, Workers: 2})},
		{"loader ragged examples", "example 1 of the batch has length 2, example 0 has 1", "", nil,
			run(listDataset{n: 2, get: func(i int) (data.Example, error) {
				return data.Example{Input: make([]float32, i+1), Target: i}, nil
			}}, data.Options{BatchSize: 2})},
		{"loader unsupported example type", "which the default collation does not handle", "", nil,
			run(listDataset{n: 2, get: func(i int) (data.Example, error) {
				return data.Example{Input: "text", Target: i}, nil
			}}, data.Options{BatchSize: 2})},
		{"loader transform error", "unsupported input []float32 (want an image.Image)", "", nil,
			run(ds, data.Options{BatchSize: 2, Transform: data.Resize(2, 2)})},
		{"CollateValues shapes", "has length 2, example 0 has 1", "", nil,
			func() error { return e1(data.CollateValues([]any{[]float32{1}, []float32{1, 2}})) }},
		{"CollateValues empty", "empty batch", "", nil,
			func() error { return e1(data.CollateValues(nil)) }},
		{"TensorDataset lengths", "3 input rows but 2 target rows", "", nil,
			func() error { return e1(data.NewTensorDataset(x34(), i64(1, 2))) }},
		{"TensorDataset zero Tensor", "undefined or freed input tensor", "", nil,
			func() error { return e1(data.NewTensorDataset(torch.Tensor{}, i64(1, 2))) }},
		{"CharDataset sequence length", "sequence length must be at least 1, got 0", "", nil,
			func() error { return e1(data.NewCharDataset("abc", 0)) }},
		{"Resize to 0", "data.Resize: want a positive size", "", nil, p(func() { data.Resize(0, 1) })},
		{"RandomCrop size 0", "data.RandomCrop: want size > 0", "", nil, p(func() { data.RandomCrop(0, 0) })},
		{"Normalize zero std", "data.Normalize: std must be positive", "", nil,
			p(func() { data.Normalize([]float32{0}, []float32{0}) })},
		{"RandomHorizontalFlip p", "data.RandomHorizontalFlip: p must be in [0, 1]", "", nil,
			p(func() { data.RandomHorizontalFlip(2) })},
		// IDX.
		{"IDX empty", "not an IDX file: only 0 bytes", "", nil, decodeIDX(nil)},
		{"IDX wrong magic", "wrong magic number", "", nil, decodeIDX([]byte{1, 2, 8, 3, 0, 0, 0, 0})},
		{"IDX unknown type", "unknown IDX element type", "", nil, decodeIDX(idx(0x77, []uint32{1}, []byte{0}))},
		{"IDX truncated header", "truncated IDX header", "", nil, decodeIDX(images[:9])},
		{"IDX truncated data", "truncated: dimensions [2 2 2] call for 8 bytes of data, the file has 7", "", nil, decodeIDX(images[:len(images)-1])},
		{"IDX trailing bytes", "1 bytes after the data", "", nil, decodeIDX(append(append([]byte(nil), images...), 0))},
		{"IDX overflowing dimensions", "overflow", "", nil, decodeIDX(idx(8, []uint32{1 << 31, 1 << 31, 1 << 31}, nil))},
		{"IDX huge dimensions, short data", "overflow", "", nil, decodeIDX(idx(0x0c, []uint32{1 << 20, 1 << 20}, []byte{1, 2, 3, 4}))},
		{"IDX truncated gzip", "(truncated gzip stream)", "", nil, decodeIDX(gz.Bytes()[:12])},
		{"IDX missing file", "no such file or directory", "", os.ErrNotExist,
			func() error { _, err := data.ReadIDXFile(filepath.Join(dir, "missing-idx")); return err }},
		{"MNIST label count", "1 labels for the 2 images", "", nil,
			loadIDX(write("im1", images), write("lb1", idx(8, []uint32{1}, []byte{0})))},
		{"MNIST images not 3-d", "want images as a 3-dimensional uint8 IDX array", "", nil,
			loadIDX(write("im2", labels), write("lb2", labels))},
		{"MNIST labels as floats", "want labels as a 1-dimensional uint8 IDX array", "", nil,
			loadIDX(write("im3", images), write("lb3", idx(0x0d, []uint32{2}, make([]byte, 8))))},
		{"MNIST empty images", "empty images", "", nil,
			loadIDX(write("im4", idx(8, []uint32{2, 0, 5}, nil)), write("lb4", labels))},
		{"MNIST missing split", "neither", "", nil,
			func() error { _, err := data.LoadMNIST(filepath.Join(dir, "nomnist"), data.Train); return err }},
		// CIFAR-10.
		{"CIFAR truncated", "is not a multiple of CIFAR-10's 3073-byte records", "", nil, loadCIFAR(write("c1.bin", cifar[:3000]))},
		{"CIFAR label 10", "has label 10", "", nil,
			loadCIFAR(write("c2.bin", append([]byte{10}, cifar[1:3073]...)))},
		{"CIFAR empty file", "empty CIFAR-10 file", "", nil, loadCIFAR(write("c3.bin", nil))},
		{"CIFAR no files", "no files", "", nil, loadCIFAR()},
		{"CIFAR missing file", "no such file or directory", "", os.ErrNotExist, loadCIFAR(filepath.Join(dir, "none.bin"))},
		{"CIFAR missing directory", "no CIFAR-10 training batches", "", nil,
			func() error { _, err := data.LoadCIFAR10(filepath.Join(dir, "nocifar"), data.Train); return err }},
		// Images.
		{"image empty file", "not a readable PNG or JPEG image", "", nil, decodeImage(write("e.png", nil))},
		{"image truncated PNG", "corrupt png image: unexpected EOF", "", nil, decodeImage(write("t.png", pngBytes[:len(pngBytes)/2]))},
		{"image garbage", "not a readable PNG or JPEG image", "", nil, decodeImage(write("g.jpg", []byte("GIF89a, not really")))},
		{"image claiming 10^10 pixels", "100000×100000", "", nil, decodeImage(write("huge.png", hugePNG))},
		{"image folder missing", "no such file or directory", "", os.ErrNotExist,
			func() error { _, err := data.NewImageFolder(filepath.Join(dir, "noimages")); return err }},
		{"image folder without classes", "no class folders", "", nil,
			func() error {
				require.NoError(t, os.MkdirAll(filepath.Join(dir, "noclasses"), 0o755))
				_, err := data.NewImageFolder(filepath.Join(dir, "noclasses"))
				return err
			}},
		{"image folder without images", "no .png, .jpg or .jpeg files", "", nil,
			func() error {
				write("noimg/cat/readme.txt", []byte("x"))
				_, err := data.NewImageFolder(filepath.Join(dir, "noimg"))
				return err
			}},
		{"image folder with a corrupt image", "not a readable PNG or JPEG image", "", nil,
			func() error {
				write("badimg/cat/a.png", []byte("corrupt"))
				f, err := data.NewImageFolder(filepath.Join(dir, "badimg"))
				if err != nil {
					return err
				}
				_, err = f.Get(0)
				return err
			}},
	}
}
