package main

import (
	"strconv"
	"unsafe"
)

// decodeFlatJSON is decodeJSON's fast path for the common request,
// {"image": [784 numbers in [0, 1]]}: one pass over the bytes, no
// reflection. It reports false for anything else (another key or layout,
// escapes, a value out of range, a number JSON does not allow, trailing
// bytes), which decodeJSON then reads in full, with its error messages;
// when it reports true, decodeJSON would give the same pixels
// (FuzzFlatJSON checks it). encoding/json spent a third of an overloaded
// server's CPU here (issue #36).
func decodeFlatJSON(body []byte) (*Pixels, bool) {
	p := jsonScanner{b: body}
	if !p.lit("{") || !p.lit(`"image"`) || !p.lit(":") || !p.lit("[") {
		return nil, false
	}
	var px Pixels
	for i := range px {
		if i > 0 && !p.lit(",") {
			return nil, false
		}
		v, ok := p.number()
		if !ok || !(v >= 0 && v <= 1) {
			return nil, false
		}
		px[i] = float32(v)
	}
	if !p.lit("]") || !p.lit("}") {
		return nil, false
	}
	p.space()
	return &px, p.i == len(p.b)
}

// jsonScanner reads JSON tokens from b at i.
type jsonScanner struct {
	b []byte
	i int
}

func (p *jsonScanner) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// lit skips white space and then s.
func (p *jsonScanner) lit(s string) bool {
	p.space()
	if len(p.b)-p.i < len(s) || string(p.b[p.i:p.i+len(s)]) != s {
		return false
	}
	p.i += len(s)
	return true
}

// number skips white space and reads a number in JSON's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *jsonScanner) number() (float64, bool) {
	p.space()
	start := p.i
	if p.peek() == '-' {
		p.i++
	}
	switch c := p.peek(); {
	case c == '0':
		p.i++
	case c >= '1' && c <= '9':
		p.digits()
	default:
		return 0, false
	}
	if p.peek() == '.' {
		p.i++
		if p.digits() == 0 {
			return 0, false
		}
	}
	if c := p.peek(); c == 'e' || c == 'E' {
		p.i++
		if c := p.peek(); c == '+' || c == '-' {
			p.i++
		}
		if p.digits() == 0 {
			return 0, false
		}
	}
	// The digits as a string without a copy: ParseFloat keeps it only in
	// its error, which is dropped, and b does not change meanwhile.
	v, err := strconv.ParseFloat(unsafe.String(&p.b[start], p.i-start), 64)
	return v, err == nil
}

func (p *jsonScanner) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *jsonScanner) digits() int {
	n := 0
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
		n++
	}
	return n
}
