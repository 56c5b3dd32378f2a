package main

import (
	"path/filepath"
)

// The gop-torch commands that the tests run in-process (run go, run
// build, ...) translate with the shared translator of GoTorch's module
// (sharedTranslator) instead of a new one each: a new translator loads
// GoTorch's packages again, about 25 s of CPU under -race for each of
// TestCompileErrorsGolden's scripts. Only what it has imported is shared:
// each command starts with no package translated, as with a new
// translator, so it translates its package and the XGo packages that it
// imports again. Other modules (those of gop-torch init) get new
// translators.
func init() { translatorFor = testTranslatorFor }

func testTranslatorFor(dir string) (*translator, error) {
	root, err := findModRoot(dir)
	if err != nil {
		return nil, err
	}
	gotorch, err := filepath.Abs(moduleRoot)
	if err != nil {
		return nil, err
	}
	if root != gotorch {
		return newTranslator(dir)
	}
	shared.Lock()
	defer shared.Unlock()
	if shared.tr == nil {
		tr, err := newTranslator(gotorch)
		if err != nil {
			return nil, err
		}
		shared.tr = tr
	}
	shared.tr.done = map[string]bool{}
	shared.tr.active = map[string]bool{}
	return shared.tr, nil
}
