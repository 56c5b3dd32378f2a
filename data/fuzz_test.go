package data

import (
	"bytes"
	"testing"
)

// The fuzz targets check that no input makes the parsers panic, and that
// what they accept is consistent. Run them with
//
//	go test ./data -run '^$' -fuzz FuzzDecodeIDX -fuzztime 30s
//	go test ./data -run '^$' -fuzz FuzzDecodeCIFAR10 -fuzztime 30s

func FuzzDecodeIDX(f *testing.F) {
	images, labels := mnistFixture(3, 2, 2)
	valid := encodeIDX(IDXUint8, []int{3, 2, 2}, images)
	f.Add(valid)
	f.Add(gzipBytes(f, valid))
	f.Add(encodeIDX(IDXUint8, []int{3}, labels))
	f.Add(encodeIDX(IDXFloat64, []int{1, 1}, make([]byte, 8)))
	f.Add(encodeIDX(IDXUint8, []int{0, 28, 28}, nil))
	f.Add(valid[:len(valid)-1])                                             // truncated
	f.Add(append(append([]byte{}, valid...), 0))                            // trailing byte
	f.Add(gzipBytes(f, valid)[:12])                                         // truncated gzip
	f.Add(append([]byte{1, 2, 8, 3}, valid[4:]...))                         // wrong magic
	f.Add(encodeIDX(IDXUint8, []int{1 << 31, 1 << 31, 1 << 31}, nil))       // overflow
	f.Add(encodeIDX(IDXInt32, []int{1 << 20, 1 << 20}, []byte{1, 2, 3, 4})) // huge, short
	f.Add([]byte{0, 0, 8, 255})                                             // 255 dimensions, none given
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		x, err := DecodeIDX(bytes.NewReader(b))
		if err != nil {
			if x != nil {
				t.Fatalf("both a result and an error: %v", err)
			}
			return
		}
		n := x.Type.Size()
		for _, d := range x.Dims {
			n *= d
		}
		if n != len(x.Data) {
			t.Fatalf("dimensions %v of %s call for %d bytes, got %d", x.Dims, x.Type, n, len(x.Data))
		}
		// As MNIST images, with labels to match, and as labels.
		if len(x.Dims) == 3 && x.Dims[0] <= len(x.Data) {
			lb := &IDX{Type: IDXUint8, Dims: []int{x.Dims[0]}, Data: make([]byte, x.Dims[0])}
			if m, err := newMNIST("images", "labels", x, lb, nil); err == nil {
				for i := 0; i < m.Len(); i++ {
					ex, err := m.Get(i)
					if err != nil {
						t.Fatal(err)
					}
					if _, err := ToTensor().Apply(ex.Input, nil); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		if len(x.Dims) == 1 {
			im := &IDX{Type: IDXUint8, Dims: []int{x.Dims[0], 1, 1}, Data: make([]byte, x.Dims[0])}
			if m, err := newMNIST("images", "labels", im, x, mnistClasses); err == nil {
				for i := 0; i < m.Len(); i++ {
					if ex, err := m.Get(i); err != nil || ex.Target.(int) > 9 {
						t.Fatalf("label %v, %v", ex.Target, err)
					}
				}
			}
		}
	})
}

func FuzzDecodeCIFAR10(f *testing.F) {
	f.Add(cifarRecords(0, 1))
	f.Add(cifarRecords(5, 2))
	f.Add(cifarRecords(0, 2)[:cifarRecord+7]) // truncated
	bad := cifarRecords(0, 1)
	bad[0] = 10 // label out of range
	f.Add(bad)
	f.Add([]byte{})
	f.Add([]byte{3})
	f.Fuzz(func(t *testing.T, b []byte) {
		labels, pixels, err := decodeCIFAR10(b)
		if err != nil {
			return
		}
		if len(b)%cifarRecord != 0 || len(labels) != len(b)/cifarRecord || len(pixels) != len(labels)*cifarPixels {
			t.Fatalf("%d bytes gave %d labels and %d pixels", len(b), len(labels), len(pixels))
		}
		c := &CIFAR10{labels: labels, pixels: pixels}
		for i := 0; i < c.Len(); i++ {
			ex, err := c.Get(i)
			if err != nil {
				t.Fatal(err)
			}
			if l := ex.Target.(int); l < 0 || l > 9 {
				t.Fatalf("label %d", l)
			}
		}
	})
}
