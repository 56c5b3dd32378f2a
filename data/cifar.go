package data

import (
	"github.com/gotorch/gotorch/internal/fileio"

	"errors"
	"fmt"
	"image"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gotorch/gotorch/torch"
)

// CIFAR-10's binary format: records of one label byte and 32×32 pixels in
// three planes, red, green and blue, of 1024 bytes each.
const (
	cifarSide   = 32
	cifarPixels = 3 * cifarSide * cifarSide
	cifarRecord = 1 + cifarPixels
)

// CIFAR10Classes are CIFAR-10's class names, by label.
var CIFAR10Classes = []string{
	"airplane", "automobile", "bird", "cat", "deer",
	"dog", "frog", "horse", "ship", "truck",
}

// CIFAR10 is CIFAR-10, from its binary version (cifar-10-binary.tar.gz).
// Its inputs are 32×32 opaque *image.RGBA images and its targets int
// labels.
type CIFAR10 struct {
	labels []byte
	pixels []byte // cifarPixels per image, planar
}

// LoadCIFAR10 loads CIFAR-10's split from dir, the cifar-10-batches-bin
// folder: the files data_batch_N.bin in the order of N (Train), or
// test_batch.bin (Test).
func LoadCIFAR10(dir string, split Split) (*CIFAR10, error) {
	var paths []string
	switch split {
	case Train:
		matches, err := filepath.Glob(filepath.Join(dir, "data_batch_*.bin"))
		if err != nil {
			return nil, err
		}
		num := func(p string) int {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "data_batch_"), ".bin"))
			if err != nil {
				return -1
			}
			return n
		}
		for _, m := range matches {
			if num(m) >= 0 {
				paths = append(paths, m)
			}
		}
		if len(paths) == 0 {
			return nil, fmt.Errorf("data: no CIFAR-10 training batches (data_batch_N.bin) in %s", dir)
		}
		sort.Slice(paths, func(i, j int) bool { return num(paths[i]) < num(paths[j]) })
	case Test:
		paths = []string{filepath.Join(dir, "test_batch.bin")}
	default:
		return nil, fmt.Errorf("data: unknown split %v", split)
	}
	return LoadCIFAR10Files(paths...)
}

// maxCIFAR10FileBytes bounds a CIFAR-10 binary file: a million records,
// twenty times the whole training set.
const maxCIFAR10FileBytes = 1_000_000 * cifarRecord

// LoadCIFAR10Files loads and concatenates CIFAR-10 binary files.
func LoadCIFAR10Files(paths ...string) (*CIFAR10, error) {
	if len(paths) == 0 {
		return nil, errors.New("data: LoadCIFAR10Files: no files")
	}
	c := &CIFAR10{}
	for _, p := range paths {
		b, err := fileio.ReadFile(p, maxCIFAR10FileBytes)
		if err != nil {
			return nil, fmt.Errorf("data: %w", err)
		}
		labels, pixels, err := decodeCIFAR10(b)
		if err != nil {
			return nil, &FileError{Path: p, Err: err}
		}
		c.labels = append(c.labels, labels...)
		c.pixels = append(c.pixels, pixels...)
	}
	return c, nil
}

// decodeCIFAR10 splits a CIFAR-10 binary file into labels and pixels.
func decodeCIFAR10(b []byte) (labels, pixels []byte, err error) {
	if len(b) == 0 {
		return nil, nil, errors.New("empty CIFAR-10 file")
	}
	if len(b)%cifarRecord != 0 {
		return nil, nil, fmt.Errorf("size %d is not a multiple of CIFAR-10's %d-byte records (1 label byte and 3072 pixel bytes): truncated or not CIFAR-10", len(b), cifarRecord)
	}
	n := len(b) / cifarRecord
	labels = make([]byte, n)
	pixels = make([]byte, n*cifarPixels)
	for i := 0; i < n; i++ {
		rec := b[i*cifarRecord : (i+1)*cifarRecord]
		if int(rec[0]) >= len(CIFAR10Classes) {
			return nil, nil, fmt.Errorf("record %d (offset %d) has label %d; CIFAR-10's labels are 0 to 9 (is this CIFAR-100?)", i, i*cifarRecord, rec[0])
		}
		labels[i] = rec[0]
		copy(pixels[i*cifarPixels:], rec[1:])
	}
	return labels, pixels, nil
}

// Len returns the number of images.
func (c *CIFAR10) Len() int { return len(c.labels) }

// Get returns image i, a 32×32 *image.RGBA, and its label, an int.
func (c *CIFAR10) Get(i int) (Example, error) {
	if err := checkIndex(i, c.Len()); err != nil {
		return Example{}, err
	}
	const plane = cifarSide * cifarSide
	src := c.pixels[i*cifarPixels : (i+1)*cifarPixels]
	img := image.NewRGBA(image.Rect(0, 0, cifarSide, cifarSide))
	for p := 0; p < plane; p++ {
		img.Pix[4*p] = src[p]
		img.Pix[4*p+1] = src[plane+p]
		img.Pix[4*p+2] = src[2*plane+p]
		img.Pix[4*p+3] = 0xff
	}
	return Example{Input: img, Target: int(c.labels[i])}, nil
}

// Classes returns the names of the classes, by label.
func (c *CIFAR10) Classes() []string { return CIFAR10Classes }

// Tensors returns the whole dataset as tensors: the images, uint8 of shape
// [N, 3, 32, 32], and the labels, int64 of shape [N].
func (c *CIFAR10) Tensors() (images, labels torch.Tensor, err error) {
	if images, err = torch.TryFromSlice(c.pixels, int64(c.Len()), 3, cifarSide, cifarSide); err != nil {
		return torch.Tensor{}, torch.Tensor{}, err
	}
	l := make([]int64, len(c.labels))
	for i, v := range c.labels {
		l[i] = int64(v)
	}
	if labels, err = torch.TryFromSlice(l); err != nil {
		return torch.Tensor{}, torch.Tensor{}, err
	}
	return images, labels, nil
}
