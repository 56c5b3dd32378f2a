package main

import (
	"github.com/gotorch/gotorch/classfile/autogen"

	"fmt"
	"os"
	"path/filepath"
)

// maxNesting bounds how deeply brackets nest in a Go+ file. gop's parser
// and gop-torch's passes take time that grows faster than the depth (a
// 200,000-deep expression took 131 s); no hand-written program comes near
// this bound, and a generated one gets an error at once instead.
const maxNesting = 1000

// checkNestingDir runs checkNesting over the Go+ files of dir.
func checkNestingDir(dir string) error {
	for _, n := range autogen.Sources(dir) {
		path := filepath.Join(dir, n)
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := checkNesting(path, src); err != nil {
			return err
		}
	}
	return nil
}

// checkNesting reports the first bracket of src nested more than
// maxNesting deep, skipping comments and string and rune literals. It is
// one linear scan.
func checkNesting(path string, src []byte) error {
	depth, line, col := 0, 1, 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		col++
		switch c {
		case '\n':
			line, col = line+1, 0
		case '(', '[', '{':
			depth++
			if depth > maxNesting {
				return fmt.Errorf("%s:%d:%d: brackets nested more than %d deep; split the expression", path, line, col, maxNesting)
			}
		case ')', ']', '}':
			depth--
		case '/':
			if i+1 < len(src) && src[i+1] == '/' {
				for i+1 < len(src) && src[i+1] != '\n' {
					i++
				}
			} else if i+1 < len(src) && src[i+1] == '*' {
				i++
				for i+1 < len(src) && !(src[i] == '*' && src[i+1] == '/') {
					i++
					if src[i] == '\n' {
						line, col = line+1, 0
					}
				}
				i++
			}
		case '"', '\'', '`':
			for i+1 < len(src) {
				i++
				if src[i] == '\n' {
					line, col = line+1, 0
					if c != '`' {
						break // an unterminated literal: the parser reports it
					}
				}
				if c != '`' && src[i] == '\\' {
					i++
					continue
				}
				if src[i] == c {
					break
				}
			}
		}
	}
	return nil
}
