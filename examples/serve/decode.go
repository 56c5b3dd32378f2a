package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	_ "image/gif" // registers GIF with image.Decode
	_ "image/jpeg"
	_ "image/png"
	"math"
	"mime"
	"net/http"
	"strings"
)

// Side is the width and height of the model's input images.
const Side = 28

// Pixels is one image as the model reads it before normalisation: 28×28
// intensities in [0, 1], row by row, 0 black (background) and 1 white, as
// Fashion-MNIST's images are after ToTensor.
type Pixels [Side * Side]float32

// maxImageSide bounds the width and height of an uploaded image, checked
// from its header before it is decoded: a small compressed file can
// otherwise expand to gigabytes.
const maxImageSide = 1024

// inputError is a request the server refuses: its HTTP status and a
// message for the client.
type inputError struct {
	status int
	msg    string
}

func (e *inputError) Error() string { return e.msg }

func badInput(status int, format string, args ...any) error {
	return &inputError{status: status, msg: fmt.Sprintf(format, args...)}
}

// statusOf is the HTTP status for a decoding error.
func statusOf(err error) int {
	var ie *inputError
	if errors.As(err, &ie) {
		return ie.status
	}
	return http.StatusBadRequest
}

// decodeBody reads one image from a request body: JSON (application/json)
// or an image file (image/png, image/jpeg, image/gif). Without a
// Content-Type, or with application/octet-stream, the body's first bytes
// decide.
func decodeBody(contentType string, body []byte) (*Pixels, error) {
	if len(body) == 0 {
		return nil, badInput(http.StatusBadRequest, "empty body: send a PNG, JPEG or GIF image, or JSON {\"image\": [784 numbers in [0,1]]}")
	}
	mediaType := ""
	if contentType != "" {
		mt, _, err := mime.ParseMediaType(contentType)
		if err != nil {
			return nil, badInput(http.StatusUnsupportedMediaType, "bad Content-Type %q: %v", contentType, err)
		}
		mediaType = mt
	}
	if mediaType == "" || mediaType == "application/octet-stream" {
		mediaType = sniff(body)
	}
	switch {
	case mediaType == "application/json":
		return decodeJSON(body)
	case strings.HasPrefix(mediaType, "image/"):
		return decodeImage(body)
	}
	return nil, badInput(http.StatusUnsupportedMediaType,
		"unsupported Content-Type %q: send image/png, image/jpeg, image/gif or application/json", mediaType)
}

func sniff(body []byte) string {
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return "application/json"
	}
	return http.DetectContentType(body)
}

// imageJSON is the JSON request: {"image": [784 numbers]} or
// {"image": [[28 numbers] × 28 rows]}, intensities in [0, 1].
type imageJSON struct {
	Image json.RawMessage `json:"image"`
}

func decodeJSON(body []byte) (*Pixels, error) {
	if px, ok := decodeFlatJSON(body); ok {
		return px, nil
	}
	return decodeJSONFull(body)
}

// decodeJSONFull reads every form of JSON request, and gives each error
// its message.
func decodeJSONFull(body []byte) (*Pixels, error) {
	var req imageJSON
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return nil, badInput(http.StatusBadRequest, "bad JSON: %v (want {\"image\": [784 numbers in [0,1]]} or {\"image\": [[28 numbers] × 28]})", err)
	}
	if dec.More() {
		return nil, badInput(http.StatusBadRequest, "bad JSON: more than one value in the body")
	}
	if len(req.Image) == 0 || string(req.Image) == "null" {
		return nil, badInput(http.StatusBadRequest, "JSON has no \"image\": want {\"image\": [784 numbers in [0,1]]}")
	}
	var values []float64
	var flat []float64
	if err := json.Unmarshal(req.Image, &flat); err == nil {
		if len(flat) != Side*Side {
			return nil, badInput(http.StatusUnprocessableEntity, "\"image\" has %d numbers, want %d (28×28, row by row)", len(flat), Side*Side)
		}
		values = flat
	} else {
		var rows [][]float64
		if err := json.Unmarshal(req.Image, &rows); err != nil {
			return nil, badInput(http.StatusBadRequest, "\"image\" must be an array of 784 numbers or of 28 rows of 28 numbers")
		}
		if len(rows) != Side {
			return nil, badInput(http.StatusUnprocessableEntity, "\"image\" has %d rows, want %d", len(rows), Side)
		}
		for i, r := range rows {
			if len(r) != Side {
				return nil, badInput(http.StatusUnprocessableEntity, "row %d of \"image\" has %d numbers, want %d", i, len(r), Side)
			}
			values = append(values, r...)
		}
	}
	var px Pixels
	for i, v := range values {
		if !(v >= 0 && v <= 1) {
			return nil, badInput(http.StatusUnprocessableEntity,
				"\"image\" value %v at row %d, column %d is outside [0, 1] (send intensities scaled to [0, 1], 0 for the black background)", v, i/Side, i%Side)
		}
		px[i] = float32(v)
	}
	return &px, nil
}

// decodeImage decodes a PNG, JPEG or GIF of any size up to 1024×1024,
// takes its luminance (transparent pixels count as black) and shrinks or
// stretches it to 28×28 by averaging over each output pixel's area.
func decodeImage(body []byte) (*Pixels, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(body))
	if err != nil {
		if errors.Is(err, image.ErrFormat) {
			return nil, badInput(http.StatusUnsupportedMediaType, "not an image this server reads (PNG, JPEG or GIF)")
		}
		return nil, badInput(http.StatusBadRequest, "bad image header: %v", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > maxImageSide || cfg.Height > maxImageSide {
		return nil, badInput(http.StatusUnprocessableEntity, "%s image is %d×%d: width and height must be 1 to %d (28×28 is best)",
			format, cfg.Width, cfg.Height, maxImageSide)
	}
	img, _, err := image.Decode(bytes.NewReader(body))
	if err != nil {
		return nil, badInput(http.StatusBadRequest, "bad %s image: %v", format, err)
	}
	return toPixels(img), nil
}

// toPixels converts img to 28×28 grey intensities by area averaging.
func toPixels(img image.Image) *Pixels {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	var px Pixels
	for oy := range Side {
		y0 := oy * h / Side
		y1 := max((oy+1)*h/Side, y0+1)
		for ox := range Side {
			x0 := ox * w / Side
			x1 := max((ox+1)*w/Side, x0+1)
			sum := 0.0
			for y := y0; y < y1; y++ {
				for x := x0; x < x1; x++ {
					g := color.Gray16Model.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.Gray16)
					sum += float64(g.Y)
				}
			}
			v := sum / float64((y1-y0)*(x1-x0)) / math.MaxUint16
			px[oy*Side+ox] = float32(v)
		}
	}
	return &px
}
