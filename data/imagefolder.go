package data

import (
	"github.com/gotorch/gotorch/internal/fileio"

	"fmt"
	"image"
	_ "image/jpeg" // JPEG decoding for ImageFolder
	_ "image/png"  // PNG decoding for ImageFolder
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// MaxImagePixels bounds the size of the images that ImageFolder decodes,
// so that a corrupt or malicious header cannot exhaust memory (PIL's
// MAX_IMAGE_PIXELS does the same).
const MaxImagePixels = 1 << 28

// ImageFolder is a dataset of image files arranged one folder per class
// (torchvision's ImageFolder):
//
//	root/cat/1.png
//	root/cat/x/2.jpg
//	root/dog/3.jpeg
//
// Classes are the subfolders of root, in sorted order, labelled from 0;
// their images are the .png, .jpg and .jpeg files (any case) found under
// them, in sorted order, other files being ignored. Get decodes an image
// when asked: its input is an opaque *image.RGBA (images are converted to
// RGB, as torchvision's loader does) and its target the class's label, an
// int.
type ImageFolder struct {
	root    string
	classes []string
	samples []ImageSample
}

// ImageSample is one file of an ImageFolder.
type ImageSample struct {
	Path  string
	Label int
}

// imageExtensions are the extensions of the files that ImageFolder reads.
var imageExtensions = map[string]bool{".png": true, ".jpg": true, ".jpeg": true}

// NewImageFolder lists the images under root. It fails if root has no
// class folder or no image.
func NewImageFolder(root string) (*ImageFolder, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	f := &ImageFolder{root: root}
	for _, e := range entries {
		if e.IsDir() {
			f.classes = append(f.classes, e.Name())
		}
	}
	if len(f.classes) == 0 {
		return nil, fileErrorf(root, "no class folders")
	}
	sort.Strings(f.classes)
	for label, c := range f.classes {
		var files []string
		err := filepath.WalkDir(filepath.Join(root, c), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && imageExtensions[strings.ToLower(filepath.Ext(p))] {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("data: %w", err)
		}
		sort.Strings(files)
		for _, p := range files {
			f.samples = append(f.samples, ImageSample{Path: p, Label: label})
		}
	}
	if len(f.samples) == 0 {
		return nil, fileErrorf(root, "no .png, .jpg or .jpeg files in the class folders %v", f.classes)
	}
	return f, nil
}

// Len returns the number of images.
func (f *ImageFolder) Len() int { return len(f.samples) }

// Classes returns the names of the classes, by label.
func (f *ImageFolder) Classes() []string { return f.classes }

// Samples returns the images' paths and labels, by index.
func (f *ImageFolder) Samples() []ImageSample { return f.samples }

// Get decodes image i. Its errors name the file.
func (f *ImageFolder) Get(i int) (Example, error) {
	if err := checkIndex(i, f.Len()); err != nil {
		return Example{}, err
	}
	s := f.samples[i]
	img, err := DecodeImageFile(s.Path)
	if err != nil {
		return Example{}, err
	}
	return Example{Input: canonicalRGB(img), Target: s.Label}, nil
}

// DecodeImageFile decodes a PNG or JPEG file, refusing images of more
// than MaxImagePixels pixels. Its errors are *FileError.
func DecodeImageFile(path string) (image.Image, error) {
	fh, _, err := fileio.Open(path)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	defer fh.Close()
	cfg, format, err := image.DecodeConfig(fh)
	if err != nil {
		return nil, &FileError{Path: path, Err: fmt.Errorf("not a readable PNG or JPEG image: %w", err)}
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, fileErrorf(path, "empty %s image (%d×%d)", format, cfg.Width, cfg.Height)
	}
	if int64(cfg.Width)*int64(cfg.Height) > MaxImagePixels {
		return nil, fileErrorf(path, "%s image of %d×%d pixels is larger than MaxImagePixels", format, cfg.Width, cfg.Height)
	}
	if _, err := fh.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	img, _, err := image.Decode(fh)
	if err != nil {
		return nil, &FileError{Path: path, Err: fmt.Errorf("corrupt %s image: %w", format, err)}
	}
	return img, nil
}

// canonicalRGB converts img to an opaque *image.RGBA.
func canonicalRGB(img image.Image) *image.RGBA {
	switch m := canonical(img).(type) {
	case *image.RGBA:
		return m
	case *image.Gray:
		out := image.NewRGBA(m.Rect)
		for y := 0; y < m.Rect.Dy(); y++ {
			for x := 0; x < m.Rect.Dx(); x++ {
				g := m.Pix[y*m.Stride+x]
				o := y*out.Stride + 4*x
				out.Pix[o], out.Pix[o+1], out.Pix[o+2], out.Pix[o+3] = g, g, g, 0xff
			}
		}
		return out
	}
	panic("unreachable")
}
