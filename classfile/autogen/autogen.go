// Package autogen tells whether an xgo_autogen.go is current. gop-torch
// writes into each xgo_autogen.go a hash of the XGo files it made it from
// (the line that starts with HashPrefix), and beside it a test,
// xgo_autogen_uptodate_test.go, that calls Check: plain Go builds the
// committed xgo_autogen.go, so go test is where a Go user learns that a
// .gox changed and gop-torch was not run again.
//
// gop-torch built on gop v1.4 wrote gop_autogen.go (LegacyFile) instead;
// a folder that has only that file is checked through it.
//
// It uses only the standard library, so that a package's tests need
// neither XGo nor gop-torch, and gop-torch itself does not link libtorch.
package autogen

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// File is the Go that gop-torch writes from a folder's XGo files: the
// name that XGo's own tools use, so that xgo run and xgo build replace it
// rather than compile a second copy beside it.
const File = "xgo_autogen.go"

// LegacyFile is what gop-torch wrote before it moved to XGo (gop v1.4's
// name). gop-torch removes it when it writes File.
const LegacyFile = "gop_autogen.go"

// HashPrefix starts the line of File that holds the hash of its sources.
const HashPrefix = "// gop-torch sources sha256:"

// Sources returns the names, sorted, of the XGo files of dir that gop-torch
// compiles into File: not tests, and not the files that Go tools ignore
// (_x, .x).
func Sources(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || strings.HasPrefix(n, "_") || strings.HasPrefix(n, ".") {
			continue
		}
		if (strings.HasSuffix(n, ".gox") || strings.HasSuffix(n, ".xgo") || strings.HasSuffix(n, ".gop")) &&
			!strings.HasSuffix(n, "_test.gox") && !strings.HasSuffix(n, "_test.xgo") && !strings.HasSuffix(n, "_test.gop") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Hash hashes the XGo sources of dir: each name, its length and its bytes.
func Hash(dir string) (string, error) {
	h := sha256.New()
	for _, n := range Sources(dir) {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return "", err
		}
		io.WriteString(h, n+"\x00"+strconv.Itoa(len(data))+"\x00")
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Stamped returns the hash that the Go of a File holds, or "".
func Stamped(gen []byte) string {
	for _, l := range strings.SplitN(string(gen), "\n", 4) {
		if h, ok := strings.CutPrefix(l, HashPrefix); ok {
			return strings.TrimSpace(h)
		}
	}
	return ""
}

// Reason says why dir's File is not current (missing, without a hash, or
// made from other XGo files than dir holds now), or "" when it is. A
// folder with no File but a LegacyFile is judged by that one.
func Reason(dir string) string {
	name := File
	gen, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		if old, lerr := os.ReadFile(filepath.Join(dir, LegacyFile)); lerr == nil {
			name, gen, err = LegacyFile, old, nil
		}
	}
	if err != nil {
		return "no " + File
	}
	want := Stamped(gen)
	if want == "" {
		return name + " has no hash of its sources (xgo or gop wrote it, or an older gop-torch)"
	}
	got, err := Hash(dir)
	if err != nil {
		return err.Error()
	}
	if got != want {
		return fmt.Sprintf("%s is stale: the XGo files (%s) changed since gop-torch wrote it",
			name, strings.Join(Sources(dir), ", "))
	}
	return ""
}

// Check returns Reason as an error that names the folder and the command
// to run, or nil when dir's File is current.
func Check(dir string) error {
	r := Reason(dir)
	if r == "" {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	return fmt.Errorf("%s: %s; run: go tool gop-torch go %s", abs, r, abs)
}
