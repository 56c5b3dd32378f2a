package data

import (
	"github.com/gotorch/gotorch/internal/fileio"

	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gotorch/gotorch/torch"
)

// IDX is a file in the IDX format of MNIST: an n-dimensional array of
// numbers.
type IDX struct {
	Type IDXType
	Dims []int
	// Data holds the elements, row-major, as in the file: big-endian for
	// the types wider than a byte.
	Data []byte
}

// IDXType is the element type of an IDX file, the third byte of its magic
// number.
type IDXType byte

// The IDX element types.
const (
	IDXUint8   IDXType = 0x08
	IDXInt8    IDXType = 0x09
	IDXInt16   IDXType = 0x0B
	IDXInt32   IDXType = 0x0C
	IDXFloat32 IDXType = 0x0D
	IDXFloat64 IDXType = 0x0E
)

// Size is the size of an element in bytes, 0 for an unknown type.
func (t IDXType) Size() int {
	switch t {
	case IDXUint8, IDXInt8:
		return 1
	case IDXInt16:
		return 2
	case IDXInt32, IDXFloat32:
		return 4
	case IDXFloat64:
		return 8
	}
	return 0
}

func (t IDXType) String() string {
	switch t {
	case IDXUint8:
		return "uint8"
	case IDXInt8:
		return "int8"
	case IDXInt16:
		return "int16"
	case IDXInt32:
		return "int32"
	case IDXFloat32:
		return "float32"
	case IDXFloat64:
		return "float64"
	}
	return "0x" + strconv.FormatUint(uint64(t), 16)
}

// maxIDXBytes bounds the data of an IDX file (16 GiB), far above any real
// one, so that a corrupt header cannot make the size overflow.
const maxIDXBytes = 1 << 34

// DecodeIDX reads an IDX file, gzipped or not: it tells them apart by
// gzip's magic number. It checks that the data is exactly as long as the
// dimensions say.
func DecodeIDX(r io.Reader) (*IDX, error) {
	br := bufio.NewReader(r)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, gzipError(err)
		}
		defer zr.Close()
		zr.Multistream(false)
		x, err := decodeIDX(zr)
		if err != nil {
			// A gzip stream cut short looks like a short IDX file: say so.
			if _, gerr := io.Copy(io.Discard, zr); gerr != nil {
				return nil, fmt.Errorf("%w (%v)", err, gzipError(gerr))
			}
			return nil, err
		}
		// Read to the end so that gzip checks its CRC and length.
		if n, err := io.Copy(io.Discard, zr); err != nil {
			return nil, gzipError(err)
		} else if n > 0 {
			return nil, fmt.Errorf("%d bytes after the data that the dimensions %v call for", n, x.Dims)
		}
		return x, nil
	}
	x, err := decodeIDX(br)
	if err != nil {
		return nil, err
	}
	if n, err := io.Copy(io.Discard, br); err != nil {
		return nil, err
	} else if n > 0 {
		return nil, fmt.Errorf("%d bytes after the data that the dimensions %v call for", n, x.Dims)
	}
	return x, nil
}

// gzipError describes an error of the gzip stream.
func gzipError(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("truncated gzip stream")
	}
	if strings.HasPrefix(err.Error(), "gzip: ") {
		return err
	}
	return fmt.Errorf("gzip: %w", err)
}

func decodeIDX(r io.Reader) (*IDX, error) {
	var head [4]byte
	if n, err := io.ReadFull(r, head[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("not an IDX file: only %d bytes", n)
		}
		return nil, err
	}
	if head[0] != 0 || head[1] != 0 {
		return nil, fmt.Errorf("not an IDX file: wrong magic number %#08x (want 0x0000TTNN: type TT, NN dimensions)", binary.BigEndian.Uint32(head[:]))
	}
	typ := IDXType(head[2])
	size := typ.Size()
	if size == 0 {
		return nil, fmt.Errorf("unknown IDX element type %s in the magic number", typ)
	}
	nd := int(head[3])
	if nd == 0 {
		return nil, errors.New("IDX file with 0 dimensions")
	}
	dims := make([]byte, 4*nd)
	if _, err := io.ReadFull(r, dims); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("truncated IDX header: %d dimensions announced", nd)
		}
		return nil, err
	}
	x := &IDX{Type: typ, Dims: make([]int, nd)}
	total := uint64(size)
	for i := range x.Dims {
		d := binary.BigEndian.Uint32(dims[4*i:])
		x.Dims[i] = int(d)
		if d != 0 && total > maxIDXBytes/uint64(d) {
			return nil, fmt.Errorf("IDX dimensions %v overflow: more than %d bytes of data", dimsOf(dims), uint64(maxIDXBytes))
		}
		total *= uint64(d)
	}
	// Read what is there, up to the size the header announces: a corrupt
	// header cannot make us allocate more than the file holds.
	var buf bytes.Buffer
	buf.Grow(int(min(total, 1<<20)))
	n, err := io.Copy(&buf, io.LimitReader(r, int64(total)))
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	if uint64(n) != total {
		return nil, fmt.Errorf("truncated: dimensions %v call for %d bytes of data, the file has %d", x.Dims, total, n)
	}
	x.Data = buf.Bytes()
	return x, nil
}

func dimsOf(b []byte) []uint32 {
	d := make([]uint32, len(b)/4)
	for i := range d {
		d[i] = binary.BigEndian.Uint32(b[4*i:])
	}
	return d
}

// ReadIDXFile reads an IDX file, gzipped or not. Its errors are
// *FileError.
func ReadIDXFile(path string) (*IDX, error) {
	f, _, err := fileio.Open(path)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	defer f.Close()
	x, err := DecodeIDX(f)
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	return x, nil
}

// FashionMNISTDir is where Debian's dataset-fashion-mnist package puts
// Fashion-MNIST, LoadFashionMNIST's default.
const FashionMNISTDir = "/usr/share/datasets/fashion-mnist"

// MNIST is MNIST, Fashion-MNIST or another dataset of the same IDX
// layout: images of one byte per pixel and a label per image. Its inputs
// are *image.Gray images (rows×cols) and its targets int labels.
type MNIST struct {
	images     []byte
	labels     []byte
	rows, cols int
	classes    []string
}

// MNIST's classes, the digits.
var mnistClasses = []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}

// FashionMNISTClasses are Fashion-MNIST's class names, by label.
var FashionMNISTClasses = []string{
	"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
	"Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot",
}

// LoadMNIST loads MNIST's split from dir, which holds
// train-images-idx3-ubyte and train-labels-idx1-ubyte (Train) or
// t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte (Test), each gzipped
// (with the .gz suffix) or not.
func LoadMNIST(dir string, split Split) (*MNIST, error) {
	return loadMNISTSplit(dir, split, mnistClasses)
}

// LoadFashionMNIST loads Fashion-MNIST's split from dir, laid out as
// LoadMNIST's; an empty dir means FashionMNISTDir.
func LoadFashionMNIST(dir string, split Split) (*MNIST, error) {
	if dir == "" {
		dir = FashionMNISTDir
	}
	return loadMNISTSplit(dir, split, FashionMNISTClasses)
}

func loadMNISTSplit(dir string, split Split, classes []string) (*MNIST, error) {
	var prefix string
	switch split {
	case Train:
		prefix = "train"
	case Test:
		prefix = "t10k"
	default:
		return nil, fmt.Errorf("data: unknown split %v", split)
	}
	images, err := findFile(dir, prefix+"-images-idx3-ubyte")
	if err != nil {
		return nil, err
	}
	labels, err := findFile(dir, prefix+"-labels-idx1-ubyte")
	if err != nil {
		return nil, err
	}
	return LoadIDXFiles(images, labels, classes)
}

// findFile returns dir/name.gz or dir/name, whichever exists.
func findFile(dir, name string) (string, error) {
	p := filepath.Join(dir, name)
	for _, c := range []string{p + ".gz", p} {
		if _, err := os.Stat(c); err == nil {
			return c, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("data: neither %s.gz nor %s exists", p, p)
}

// LoadIDXFiles loads a dataset of MNIST's layout from an images file (a
// 3-dimensional uint8 IDX: count, rows, columns) and a labels file (a
// 1-dimensional uint8 IDX), gzipped or not. classes names the labels
// (nil allows any label, naming each by its number); a label out of its
// range is an error.
func LoadIDXFiles(imagesPath, labelsPath string, classes []string) (*MNIST, error) {
	im, err := ReadIDXFile(imagesPath)
	if err != nil {
		return nil, err
	}
	lb, err := ReadIDXFile(labelsPath)
	if err != nil {
		return nil, err
	}
	return newMNIST(imagesPath, labelsPath, im, lb, classes)
}

// newMNIST checks decoded images and labels files and makes their dataset.
func newMNIST(imagesPath, labelsPath string, im, lb *IDX, classes []string) (*MNIST, error) {
	if im.Type != IDXUint8 || len(im.Dims) != 3 {
		return nil, fileErrorf(imagesPath, "want images as a 3-dimensional uint8 IDX array, got %d dimensions of %s", len(im.Dims), im.Type)
	}
	if lb.Type != IDXUint8 || len(lb.Dims) != 1 {
		return nil, fileErrorf(labelsPath, "want labels as a 1-dimensional uint8 IDX array, got %d dimensions of %s", len(lb.Dims), lb.Type)
	}
	if im.Dims[0] != lb.Dims[0] {
		return nil, fileErrorf(labelsPath, "%d labels for the %d images of %s", lb.Dims[0], im.Dims[0], imagesPath)
	}
	if classes == nil {
		hi := 0
		for _, l := range lb.Data {
			hi = max(hi, int(l))
		}
		for c := 0; c <= hi && len(lb.Data) > 0; c++ {
			classes = append(classes, strconv.Itoa(c))
		}
	}
	for i, l := range lb.Data {
		if int(l) >= len(classes) {
			return nil, fileErrorf(labelsPath, "label %d of image %d is out of range: %d classes", l, i, len(classes))
		}
	}
	rows, cols := im.Dims[1], im.Dims[2]
	if rows == 0 || cols == 0 {
		return nil, fileErrorf(imagesPath, "empty images (%d×%d)", rows, cols)
	}
	return &MNIST{images: im.Data, labels: lb.Data, rows: rows, cols: cols, classes: classes}, nil
}

// Len returns the number of images.
func (m *MNIST) Len() int { return len(m.labels) }

// Get returns image i, a *image.Gray that must not be modified, and its
// label, an int.
func (m *MNIST) Get(i int) (Example, error) {
	if err := checkIndex(i, m.Len()); err != nil {
		return Example{}, err
	}
	n := m.rows * m.cols
	img := &image.Gray{Pix: m.images[i*n : (i+1)*n : (i+1)*n], Stride: m.cols, Rect: image.Rect(0, 0, m.cols, m.rows)}
	return Example{Input: img, Target: int(m.labels[i])}, nil
}

// Size returns the images' size.
func (m *MNIST) Size() (rows, cols int) { return m.rows, m.cols }

// Classes returns the names of the classes, by label.
func (m *MNIST) Classes() []string { return m.classes }

// Tensors returns the whole dataset as tensors: the images, uint8 of shape
// [N, 1, rows, cols], and the labels, int64 of shape [N]. With a
// TensorDataset they make a fast loader for data that fits in memory.
func (m *MNIST) Tensors() (images, labels torch.Tensor, err error) {
	if images, err = torch.TryFromSlice(m.images, int64(m.Len()), 1, int64(m.rows), int64(m.cols)); err != nil {
		return torch.Tensor{}, torch.Tensor{}, err
	}
	l := make([]int64, len(m.labels))
	for i, v := range m.labels {
		l[i] = int64(v)
	}
	if labels, err = torch.TryFromSlice(l); err != nil {
		return torch.Tensor{}, torch.Tensor{}, err
	}
	return images, labels, nil
}
