package classfile

import (
	"flag"
	"fmt"
	"io"

	"github.com/gotorch/gotorch/data"
)

// TextDataset loads a UTF-8 text file as a character-level
// language-modelling dataset (data.CharDataset) and makes it the script's
// data: textDataset("/usr/share/common-licenses/GPL-3", 64). Example i is
// seqLen characters from character i, coded, as the input and the seqLen
// characters that follow each of them as the target, so the loaders give
// Int64 batches [N, seqLen] of both.
//
// The windows in the first nine tenths of the text are the training set,
// those in the last tenth the test set, with no character in both (the
// test set is empty, and nil, when the text is too short for it). The
// returned dataset maps between characters and codes (VocabSize, Encode,
// Decode) for building a model and sampling from it.
func (t *Trainer) TextDataset(path string, seqLen int) *data.CharDataset {
	ds, err := data.LoadCharDataset(path, seqLen)
	if err != nil {
		panic(fmt.Errorf("classfile: textDataset: %w", err))
	}
	train, test := splitText(ds.Len(), seqLen)
	var testSet Dataset
	if len(test) > 0 {
		testSet = &data.Subset{Dataset: ds, Indices: test}
	}
	t.setDatasets(&data.Subset{Dataset: ds, Indices: train}, testSet)
	t.trainTransform, t.testTransform = nil, nil
	return ds
}

// splitText splits the n windows of seqLen characters of a text into the
// windows of its first nine tenths and those of its last tenth, leaving
// out the windows that would share characters with both.
func splitText(n, seqLen int) (train, test []int) {
	nTrain := n - n/10
	for i := 0; i < nTrain; i++ {
		train = append(train, i)
	}
	// Training window nTrain-1 reads characters up to nTrain-1+seqLen.
	for i := nTrain + seqLen; i < n; i++ {
		test = append(test, i)
	}
	return train, test
}

// Args are the command-line arguments after the flags, which the script
// reads as it likes:
//
//	go run ./cmd/gop-torch run ./examples/char_lstm -epochs 1 mytext.txt
//
// gives Args() == ["mytext.txt"].
func (t *Trainer) Args() []string {
	fs := flag.NewFlagSet("script", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for _, k := range knobFlags {
		fs.String(k.name, "", k.usage)
	}
	if err := fs.Parse(commandLine()); err != nil {
		// XGot_Trainer_Main has already stopped on a bad command line.
		return nil
	}
	return fs.Args()
}
