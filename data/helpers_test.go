package data

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"image"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// seqDataset's example i is (float32(i), i), after an optional delay and
// with optional hooks.
type seqDataset struct {
	n      int
	delay  func(i int) time.Duration
	before func(i int) // called first by Get
	fail   map[int]error
	panics map[int]bool
	gets   atomic.Int64
}

func (d *seqDataset) Len() int { return d.n }

func (d *seqDataset) Get(i int) (Example, error) {
	d.gets.Add(1)
	if d.before != nil {
		d.before(i)
	}
	if d.delay != nil {
		time.Sleep(d.delay(i))
	}
	if err := d.fail[i]; err != nil {
		return Example{}, err
	}
	if d.panics[i] {
		panic("boom")
	}
	return Example{Input: float32(i), Target: i}, nil
}

var errBroken = errors.New("broken example")

// encodeIDX encodes an IDX file.
func encodeIDX(typ IDXType, dims []int, data []byte) []byte {
	var b bytes.Buffer
	b.Write([]byte{0, 0, byte(typ), byte(len(dims))})
	for _, d := range dims {
		_ = binary.Write(&b, binary.BigEndian, uint32(d))
	}
	b.Write(data)
	return b.Bytes()
}

func gzipBytes(t testing.TB, b []byte) []byte {
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	_, err := zw.Write(b)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return out.Bytes()
}

func writeFile(t testing.TB, path string, b []byte) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}

// mnistFixture returns n images of rows×cols whose pixel p of image i is
// byte(i*7+p), and labels i%10.
func mnistFixture(n, rows, cols int) (images, labels []byte) {
	images = make([]byte, n*rows*cols)
	for i := 0; i < n; i++ {
		for p := 0; p < rows*cols; p++ {
			images[i*rows*cols+p] = byte(i*7 + p)
		}
	}
	labels = make([]byte, n)
	for i := range labels {
		labels[i] = byte(i % 10)
	}
	return images, labels
}

// writeMNIST writes an MNIST split into dir, gzipped or not.
func writeMNIST(t testing.TB, dir, prefix string, n, rows, cols int, gz bool) {
	images, labels := mnistFixture(n, rows, cols)
	im := encodeIDX(IDXUint8, []int{n, rows, cols}, images)
	lb := encodeIDX(IDXUint8, []int{n}, labels)
	suffix := ""
	if gz {
		im, lb, suffix = gzipBytes(t, im), gzipBytes(t, lb), ".gz"
	}
	writeFile(t, filepath.Join(dir, prefix+"-images-idx3-ubyte"+suffix), im)
	writeFile(t, filepath.Join(dir, prefix+"-labels-idx1-ubyte"+suffix), lb)
}

// cifarRecords returns n CIFAR-10 records: label (first+i)%10, pixel p of
// record i is byte(i+p).
func cifarRecords(first, n int) []byte {
	b := make([]byte, 0, n*cifarRecord)
	for i := 0; i < n; i++ {
		b = append(b, byte((first+i)%10))
		for p := 0; p < cifarPixels; p++ {
			b = append(b, byte(first+i+p))
		}
	}
	return b
}

func encodePNG(t testing.TB, img image.Image) []byte {
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

func encodeJPEG(t testing.TB, img image.Image) []byte {
	var b bytes.Buffer
	require.NoError(t, jpeg.Encode(&b, img, &jpeg.Options{Quality: 100}))
	return b.Bytes()
}

// waitGoroutines waits for the number of goroutines to fall back to base.
// (require.Eventually would count its own goroutines.)
func waitGoroutines(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("goroutines leaked: %d, started with %d\n%s", runtime.NumGoroutine(), base, buf)
		}
		time.Sleep(time.Millisecond)
	}
}
