package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/*/errors.golden")

// normalize replaces the names of a work copy of testdata (workCopy) in
// out, in any of the forms that gop-torch, go and a stack trace write,
// with DIR, and drops the program counters of stack frames.
func normalize(t *testing.T, out, dir string) string {
	t.Helper()
	root := mustAbs(t, moduleRoot)
	fromRoot, err := filepath.Rel(root, dir)
	require.NoError(t, err)
	wd, err := os.Getwd()
	require.NoError(t, err)
	fromWD, err := filepath.Rel(wd, dir)
	require.NoError(t, err)
	for _, d := range []string{dir, "./" + fromWD, fromRoot, fromWD} {
		out = strings.ReplaceAll(out, d, "DIR")
	}
	out = regexp.MustCompile(` \+0x[0-9a-f]+`).ReplaceAllString(out, "")
	return out
}

// golden compares got with testdata/name/file, or writes it with -update.
func golden(t *testing.T, name, file, got string) {
	t.Helper()
	path := filepath.Join("testdata", name, file)
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), got, "%s (go test -run %s -update rewrites it)", path, t.Name())
}

// A Go+ script with an error, compiled as a user would: each error names
// its .gox file and line, in the user's words, without the internal pass
// that found it.
func TestCompileErrorsGolden(t *testing.T) {
	for _, name := range []string{
		"unusedvar",     // x unused: gop accepts it, Go does not
		"viewargs",      // x.view(-1, 784.5): no overload takes it
		"stringoperand", // h * "half": an operand that is no number
		"typeerr",       // gop's own type errors
		"optionargs",    // clip_grad_norm_(params, 1.0, 2.0): the error names the option
		"nomethod",      // x.NoSuchMethod(), a tensor as a string
	} {
		t.Run(name, func(t *testing.T) {
			dir := workCopy(t, name)
			var stdout, stderr bytes.Buffer
			rc := run([]string{"go", dir}, &stdout, &stderr)
			assert.Equal(t, 1, rc)
			got := normalize(t, stderr.String(), dir)
			golden(t, name, "errors.golden", got)
			for _, internal := range []string{"type-checking", "temporaries", "generated Go", "gop_autogen", "xgo_autogen", "Gop_", "XGo_", "__", "ViewShape", "ViewDims"} {
				assert.NotContains(t, got, internal)
			}
			assert.NoFileExists(t, filepath.Join(dir, autogenFile))
		})
	}
}

// goxFrame is a stack frame in a .gox file.
var goxFrame = regexp.MustCompile(`(?m)^\t\S*?([A-Za-z_]+\.gox):([0-9]+)$`)

// buildScript builds the script in testdata/name as a user would.
func buildScript(t *testing.T, name string) (dir, exe string) {
	t.Helper()
	dir = workCopy(t, name)
	exe = filepath.Join(t.TempDir(), name)
	var stdout, stderr bytes.Buffer
	rc := run([]string{"build", "-o", exe, dir}, &stdout, &stderr)
	require.Equal(t, 0, rc, stderr.String())
	return dir, exe
}

// runScript runs a script that buildScript built, with args, and returns
// its output.
func runScript(t *testing.T, dir, exe string, args ...string) (string, error) {
	t.Helper()
	c := exec.Command(exe, args...)
	c.Dir = t.TempDir()
	b, err := c.CombinedOutput()
	return normalize(t, string(b), dir), err
}

// A panic's stack names the script's lines: the statement that panicked,
// the loop around it, and no line past the end of the file (gogen's Main
// and main are in xgo_autogen.go).
func TestPanicFramesGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program with libtorch")
	}
	dir, exe := buildScript(t, "panicline")
	out, err := runScript(t, dir, exe)
	require.Error(t, err, out)
	src, rerr := os.ReadFile(filepath.Join(dir, "main_train.gox"))
	require.NoError(t, rerr)
	lines := strings.Count(string(src), "\n")
	frames := goxFrame.FindAllStringSubmatch(out, -1)
	require.NotEmpty(t, frames, out)
	for _, f := range frames {
		n, _ := strconv.Atoi(f[2])
		assert.LessOrEqual(t, n, lines, "frame %s:%s of a %d-line file", f[1], f[2], lines)
	}
	assert.Regexp(t, `main\.\(\*Trainer\)\.MainEntry\(.*\)\n\tDIR/main_train\.gox:5\n`, out, "the view on line 5 panics")
	m := regexp.MustCompile(`main\.\(\*Trainer\)\.Main\(.*\)\n\tDIR/xgo_autogen\.go:([0-9]+)\n`).FindStringSubmatch(out)
	require.NotNil(t, m, "gogen's Main is xgo_autogen.go's: %s", out)
	gen, rerr := os.ReadFile(filepath.Join(dir, autogenFile))
	require.NoError(t, rerr)
	n, _ := strconv.Atoi(m[1])
	genLines := strings.Split(string(gen), "\n")
	require.Less(t, n-1, len(genLines))
	assert.Contains(t, genLines[n-1], "classfile.XGot_Trainer_Main(this)", "the frame names the line of the call")
	golden(t, "panicline", "frames.golden", strings.Join(userFrames(out), "\n")+"\n")
}

// userFrames returns the frames of out that name the script's package,
// with the line after each, without their argument values, and with N for
// the lines of xgo_autogen.go, which move as gop-torch changes (the tests
// check what they point at).
func userFrames(out string) []string {
	ls := strings.Split(out, "\n")
	args := regexp.MustCompile(`\([^()]+\)$`)
	genLine := regexp.MustCompile(`xgo_autogen\.go:[0-9]+`)
	var fs []string
	for i := 0; i+1 < len(ls); i++ {
		if strings.HasPrefix(ls[i], "main.") {
			fs = append(fs, args.ReplaceAllString(ls[i], "(...)"), genLine.ReplaceAllString(ls[i+1], "xgo_autogen.go:N"))
		}
	}
	return fs
}

// -lr and -optimizer on a script that builds its own optimizer would
// change nothing: the run fails at the line that builds it, naming them.
// (The script reads optimizer.paramGroups, the trainer's Optimizer, which
// may read -lr: gop-torch's list cannot rule it out before the run.)
func TestIgnoredFlagsGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program with libtorch")
	}
	dir, exe := buildScript(t, "ignoredflags")
	out, err := runScript(t, dir, exe, "-lr", "0.5", "-optimizer", "sgd")
	require.Error(t, err, out)
	assert.Contains(t, out, "panic: classfile: the command line gives -lr 0.5 -optimizer sgd, but the script builds its own optimizer, which does not use them")
	assert.Regexp(t, `main\.\(\*Trainer\)\.MainEntry\(.*\)\n\tDIR/main_train\.gox:5\n`, out, "at the optimizer's line")
	golden(t, "ignoredflags", "frames.golden", strings.SplitN(out, "\n", 2)[0]+"\n"+strings.Join(userFrames(out), "\n")+"\n")

	// Without the flags, and with a flag that it uses, it runs.
	out, err = runScript(t, dir, exe, "-seed", "1")
	require.NoError(t, err, out)
	assert.Contains(t, out, "lr 0.001\n")
	// Nothing it calls reads epochs: known before the run (classfile/knobs.go).
	out, err = runScript(t, dir, exe, "-epochs", "3")
	require.Error(t, err, out)
	assert.Contains(t, out, "the command line gives -epochs 3, but nothing the script calls reads it (known before the run)")
	assert.NotContains(t, out, "lr 0.001", "before the script's first line")
}

// A script that reads no knob: -lr and -epochs stop the run before its
// first line, since gop-torch lists the Trainer methods it calls
// (flagsel.go) and none of them reads them (classfile/knobs.go).
func TestUnreadFlagsBeforeRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program with libtorch")
	}
	dir, exe := buildScript(t, "unreadflags")
	out, err := runScript(t, dir, exe, "-lr", "0.5", "-epochs", "3")
	require.Error(t, err, out)
	assert.Contains(t, out, "the command line gives -epochs 3 -lr 0.5, but nothing the script calls reads them (known before the run)")
	assert.NotContains(t, out, "first line")
	out, err = runScript(t, dir, exe, "-seed", "1")
	require.NoError(t, err, out)
	assert.Contains(t, out, "first line")
}
