package main

import (
	"bytes"
	"go/scanner"
	"go/token"
	"path"
	"strconv"
	"strings"
)

// Positions of the generated Go.
//
// gogen puts a //line directive before each Go+ statement, and each
// method, that it compiles: //line main_train.gox:3:1. A directive sets
// the position of the line after it only; the lines below count on from
// there. Most Go+ statements become several lines of Go (a for-in loop
// becomes six, and gop-torch adds torch.GC() to it), so an error or a
// panic in the fourth of them would name a line three lines below the
// statement, and the functions that gogen adds after the last statement
// (Main, main) would name lines past the end of the file.
//
// fixLineDirectives therefore gives each line of Go that a Go+ statement
// became a directive of its own that names the statement's line (the
// closing brace of a block, and what gop-torch puts after it, name the
// statement that opened the block), and the Go that gogen adds outside
// the user's code a directive that names its own line in xgo_autogen.go. It runs after each pass that may add lines,
// so the final file maps every line: in compile errors, in the type-check
// of the passes, and in the stack traces of panics.
//
// The directives name lines, not columns: the columns of the Go are not
// those of the Go+.

const linePrefix = "//line "

// lineDirective is a parsed //line directive.
type lineDirective struct {
	file string
	line int
}

// parseLineDirective parses a line of Go that is a //line directive at
// its start: //line file:line or //line file:line:col.
func parseLineDirective(s string) (lineDirective, bool) {
	if !strings.HasPrefix(s, linePrefix) {
		return lineDirective{}, false
	}
	s = strings.TrimRight(s[len(linePrefix):], " \t\r")
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return lineDirective{}, false
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil || n <= 0 {
		return lineDirective{}, false
	}
	file, line := s[:i], n
	// file:line:col
	if j := strings.LastIndexByte(file, ':'); j >= 0 {
		if m, err := strconv.Atoi(file[j+1:]); err == nil && m > 0 {
			file, line = file[:j], m
		}
	}
	if file == "" {
		return lineDirective{}, false
	}
	return lineDirective{file, line}, true
}

func (d lineDirective) String() string { return linePrefix + d.file + ":" + strconv.Itoa(d.line) }

// isAutogenFile reports whether a directive's file is xgo_autogen.go: a
// directive that fixLineDirectives wrote for generated code.
func isAutogenFile(file string) bool { return path.Base(file) == autogenFile }

// fixLineDirectives returns src, a gofmt-ed Go file that gogen generated
// with //line directives, with a directive before every line of Go that
// a directive's statement became (see above). It is idempotent.
func fixLineDirectives(src []byte) []byte {
	inside := linesInsideTokens(src)
	lines := bytes.SplitAfter(src, []byte("\n"))
	var out bytes.Buffer
	out.Grow(len(src) + len(src)/2)
	outLines := 0
	blank := false // the last line emitted is blank
	emit := func(b []byte) {
		out.Write(b)
		outLines++
		blank = len(bytes.TrimSpace(b)) == 0
	}
	var cur *lineDirective // the statement that the lines belong to, nil outside user code
	fresh := false         // the line is the one the last directive names
	// The statements of the open blocks: a block's closing brace, and
	// what follows it up to the next directive (the torch.FinishGC()
	// after a loop), belong to the statement that opened it.
	var open []*lineDirective
	for i, l := range lines {
		if len(l) == 0 {
			continue
		}
		text := strings.TrimRight(string(l), "\n")
		if inside[i+1] {
			// The inside of a raw string or a /* */ comment: no room
			// for a directive.
			emit(l)
			fresh = false
			continue
		}
		if d, ok := parseLineDirective(text); ok {
			if isAutogenFile(d.file) {
				continue // rewritten below, at its new line
			}
			cur, fresh = &d, true
			emit([]byte(d.String() + "\n"))
			continue
		}
		trimmed := strings.TrimSpace(text)
		code := trimmed != "" && !strings.HasPrefix(trimmed, "//")
		if code && strings.HasPrefix(trimmed, "}") && len(open) > 0 {
			if d := open[len(open)-1]; d != nil && cur != nil && *d != *cur {
				cur, fresh = d, false
			}
			open = open[:len(open)-1]
		}
		switch {
		case cur == nil, trimmed == "", strings.HasPrefix(trimmed, "//"):
			// Outside the user's code, blank, or a comment, whose
			// position does not matter.
		case fresh:
		case isTopLevelDecl(text):
			// A declaration that gogen added after the user's code:
			// it is xgo_autogen.go's own.
			// After a blank line, as gofmt puts a comment between
			// two declarations.
			if !blank {
				emit([]byte("\n"))
			}
			dir := path.Dir(cur.file)
			emit([]byte(lineDirective{path.Join(dir, autogenFile), outLines + 2}.String() + "\n"))
			cur = nil
		default:
			emit([]byte(cur.String() + "\n"))
		}
		if code {
			fresh = false
			if strings.HasSuffix(trimmed, "{") {
				open = append(open, cur)
			}
		}
		emit(l)
	}
	return out.Bytes()
}

// isTopLevelDecl reports whether a line of gofmt-ed Go starts a top-level
// declaration.
func isTopLevelDecl(line string) bool {
	for _, kw := range []string{"func ", "func(", "type ", "var ", "const ", "import "} {
		if strings.HasPrefix(line, kw) {
			return true
		}
	}
	return false
}

// linesInsideTokens returns the lines of src (1-based) that begin inside
// a token: a raw string or a /* */ comment that spans lines.
func linesInsideTokens(src []byte) map[int]bool {
	inside := map[int]bool{}
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, scanner.ScanComments)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if (tok != token.STRING && tok != token.COMMENT) || !strings.Contains(lit, "\n") {
			continue
		}
		start := file.PositionFor(pos, false).Line
		end := start + strings.Count(lit, "\n")
		for l := start + 1; l <= end; l++ {
			inside[l] = true
		}
	}
	return inside
}
