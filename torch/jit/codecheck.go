package jit

import "fmt"

// Limits of the TorchScript source in an archive's code/ folder. libtorch
// parses and compiles that source recursively, on the native stack: an
// expression nested 100,000 deep (parentheses, or a chain of operators,
// which the compiler walks as a tree) overflows the stack and kills the
// process. torch.jit.save's printer writes one short statement a line, so
// real files stay far below these.
const (
	// MaxCodeNesting bounds brackets ((, [, {) open at once.
	MaxCodeNesting = 200
	// MaxCodeIndent bounds a line's leading spaces (blocks inside blocks:
	// torch.jit.save indents by 2).
	MaxCodeIndent = 800
	// MaxCodeOperators bounds the operators of one logical line (a
	// statement, brackets included): a + b + ... is a tree as deep as
	// its length.
	MaxCodeOperators = 1000
)

// codeScanner checks source text as it streams by (an io.Writer for
// io.Copy): bracket depth, indentation and operators per logical line,
// skipping string literals and comments.
type codeScanner struct {
	name    string
	line    int  // 1-based
	depth   int  // brackets open
	indent  int  // leading spaces of the line so far
	atStart bool // no other byte yet on this line
	ops     int  // operators in this logical line
	quote   byte // the open string literal's quote, or 0
	escape  bool // the previous byte in a string was a backslash
	comment bool
	prevOp  bool // the previous byte was an operator character
}

func newCodeScanner(name string) *codeScanner {
	return &codeScanner{name: name, line: 1, atStart: true}
}

func (s *codeScanner) errorf(format string, args ...any) error {
	return fmt.Errorf("code %s, line %d: %s", s.name, s.line, fmt.Sprintf(format, args...))
}

func (s *codeScanner) Write(p []byte) (int, error) {
	for _, c := range p {
		if c == '\n' {
			s.line++
			s.indent, s.atStart, s.comment, s.prevOp = 0, true, false, false
			if s.depth == 0 && s.quote == 0 {
				s.ops = 0
			}
			continue
		}
		if s.atStart && c == ' ' {
			if s.indent++; s.indent > MaxCodeIndent {
				return 0, s.errorf("indented more than %d spaces (the limit)", MaxCodeIndent)
			}
			continue
		}
		s.atStart = false
		switch {
		case s.comment:
		case s.quote != 0:
			switch {
			case s.escape:
				s.escape = false
			case c == '\\':
				s.escape = true
			case c == s.quote:
				s.quote = 0
			}
		case c == '#':
			s.comment = true
		case c == '"' || c == '\'':
			s.quote = c
		case c == '(' || c == '[' || c == '{':
			if s.depth++; s.depth > MaxCodeNesting {
				return 0, s.errorf("brackets nested more than %d deep (the limit)", MaxCodeNesting)
			}
		case c == ')' || c == ']' || c == '}':
			if s.depth > 0 {
				s.depth--
			}
		}
		op := s.quote == 0 && !s.comment && isOperator(c)
		if op && !s.prevOp {
			if s.ops++; s.ops > MaxCodeOperators {
				return 0, s.errorf("more than %d operators in one statement (the limit)", MaxCodeOperators)
			}
		}
		s.prevOp = op
	}
	return len(p), nil
}

func isOperator(c byte) bool {
	switch c {
	case '+', '-', '*', '/', '%', '&', '|', '^', '~', '<', '>', '=', '!', '@':
		return true
	}
	return false
}
