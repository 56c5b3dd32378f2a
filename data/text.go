package data

import (
	"github.com/gotorch/gotorch/internal/fileio"

	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// CharDataset is a character-level language-modelling dataset over a text
// (as in minGPT's CharDataset). Its vocabulary is the text's distinct
// characters (Unicode code points), sorted, each coded by its position.
// Example i is the SeqLen characters from character i, coded, as the input
// and the SeqLen characters that follow each of them (the same window
// shifted by one) as the target, both Array[int64] of shape [SeqLen].
type CharDataset struct {
	ids    []int64
	vocab  []rune
	index  map[rune]int64
	seqLen int
}

// NewCharDataset returns the dataset of text's windows of seqLen
// characters. The text must be valid UTF-8 and longer than seqLen
// characters.
func NewCharDataset(text string, seqLen int) (*CharDataset, error) {
	if seqLen < 1 {
		return nil, fmt.Errorf("data: NewCharDataset: sequence length must be at least 1, got %d", seqLen)
	}
	if !utf8.ValidString(text) {
		return nil, fmt.Errorf("data: NewCharDataset: the text is not valid UTF-8")
	}
	runes := []rune(text)
	if len(runes) <= seqLen {
		return nil, fmt.Errorf("data: NewCharDataset: a text of %d characters has no window of %d characters and a next one", len(runes), seqLen)
	}
	d := &CharDataset{seqLen: seqLen, index: map[rune]int64{}}
	for _, r := range runes {
		if _, ok := d.index[r]; !ok {
			d.index[r] = 0
			d.vocab = append(d.vocab, r)
		}
	}
	slices.Sort(d.vocab)
	for i, r := range d.vocab {
		d.index[r] = int64(i)
	}
	d.ids = make([]int64, len(runes))
	for i, r := range runes {
		d.ids[i] = d.index[r]
	}
	return d, nil
}

// Len returns the number of windows: the text's length in characters less
// the sequence length.
func (d *CharDataset) Len() int { return len(d.ids) - d.seqLen }

// Get returns window i and its next characters.
func (d *CharDataset) Get(i int) (Example, error) {
	if err := checkIndex(i, d.Len()); err != nil {
		return Example{}, err
	}
	shape := []int64{int64(d.seqLen)}
	x := d.ids[i : i+d.seqLen : i+d.seqLen]
	y := d.ids[i+1 : i+1+d.seqLen : i+1+d.seqLen]
	return Example{Input: Array[int64]{Shape: shape, Data: x}, Target: Array[int64]{Shape: shape, Data: y}}, nil
}

// SeqLen returns the sequence length.
func (d *CharDataset) SeqLen() int { return d.seqLen }

// Vocab returns the characters, by code.
func (d *CharDataset) Vocab() []rune { return d.vocab }

// VocabSize returns the number of distinct characters.
func (d *CharDataset) VocabSize() int { return len(d.vocab) }

// Encode codes a string; it fails on a character outside the vocabulary.
func (d *CharDataset) Encode(s string) ([]int64, error) {
	out := make([]int64, 0, len(s))
	for _, r := range s {
		id, ok := d.index[r]
		if !ok {
			return nil, fmt.Errorf("data: character %q is not in the vocabulary", r)
		}
		out = append(out, id)
	}
	return out, nil
}

// Decode turns codes back into text; codes out of range give U+FFFD.
func (d *CharDataset) Decode(ids []int64) string {
	var b strings.Builder
	for _, id := range ids {
		if id >= 0 && id < int64(len(d.vocab)) {
			b.WriteRune(d.vocab[id])
		} else {
			b.WriteRune(utf8.RuneError)
		}
	}
	return b.String()
}

// MaxTextFileBytes bounds the text files that LoadCharDataset reads whole.
const MaxTextFileBytes = 1 << 30

// LoadCharDataset reads a UTF-8 text file of at most MaxTextFileBytes
// and returns its CharDataset.
func LoadCharDataset(path string, seqLen int) (*CharDataset, error) {
	b, err := fileio.ReadFile(path, MaxTextFileBytes)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	if !utf8.Valid(b) {
		return nil, fileErrorf(path, "not valid UTF-8 text")
	}
	d, err := NewCharDataset(string(b), seqLen)
	if err != nil {
		return nil, &FileError{Path: path, Err: errors.New(strings.TrimPrefix(err.Error(), "data: NewCharDataset: "))}
	}
	return d, nil
}
