package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
)

// builder builds the workers into outDir (bench/out, gitignored).
type builder struct {
	root   string // the module's root
	outDir string
	cuda   bool // -device cuda: the C++ worker with CUDA (cudaCxxFlags)
	log    func(format string, args ...any)
}

// libtorchFlags returns the compiler and linker flags for libtorch: under
// $LIBTORCH when it is set (as the Makefile does), Debian's libtorch-dev
// otherwise.
func libtorchFlags(libtorch string) (cxx, ld []string) {
	// The C++ standard the bindings use: make env puts -std=c++20 in
	// CGO_CXXFLAGS for libtorch 2.7 and later.
	std := "-std=c++17"
	if strings.Contains(os.Getenv("CGO_CXXFLAGS"), "-std=c++20") {
		std = "-std=c++20"
	}
	cxx = []string{std, "-O2", "-Wno-deprecated-declarations"}
	ld = []string{"-ltorch", "-ltorch_cpu", "-lc10"}
	if libtorch == "" {
		cxx = append(cxx, "-I/usr/include/torch/csrc/api/include")
		return cxx, ld
	}
	cxx = append(cxx, "-I"+libtorch+"/include", "-I"+libtorch+"/include/torch/csrc/api/include")
	if abi := cxx11ABI(libtorch); abi != "" {
		cxx = append(cxx, "-D_GLIBCXX_USE_CXX11_ABI="+abi)
	}
	ld = append([]string{"-L" + libtorch + "/lib", "-Wl,-rpath," + libtorch + "/lib"}, ld...)
	return cxx, ld
}

var abiRE = regexp.MustCompile(`-D_GLIBCXX_USE_CXX11_ABI=([01])`)

// cxx11ABI reads libstdc++'s string ABI from the libtorch's CMake config,
// as the Makefile does; "" when it names none.
func cxx11ABI(libtorch string) string {
	b, err := os.ReadFile(filepath.Join(libtorch, "share/cmake/Torch/TorchConfig.cmake"))
	if err != nil {
		return ""
	}
	if m := abiRE.FindSubmatch(b); m != nil {
		return string(m[1])
	}
	return ""
}

// goEnv is the environment of the go commands: when LIBTORCH is set and
// the cgo flags are not, the flags the Makefile would export.
func goEnv(base []string) []string {
	lt := os.Getenv("LIBTORCH")
	if lt == "" || os.Getenv("CGO_CPPFLAGS") != "" {
		return base
	}
	lt, _ = filepath.Abs(lt)
	env := append([]string{}, base...)
	env = append(env,
		"CGO_CPPFLAGS=-I"+lt+"/include -I"+lt+"/include/torch/csrc/api/include",
		"CGO_LDFLAGS=-L"+lt+"/lib -Wl,-rpath,"+lt+"/lib")
	if abi := cxx11ABI(lt); abi != "" && os.Getenv("CGO_CXXFLAGS") == "" {
		env = append(env, "CGO_CXXFLAGS=-g -O2 -D_GLIBCXX_USE_CXX11_ABI="+abi)
	}
	return env
}

// compilerID is the first line of the compiler's --version.
func compilerID(cxx string) string {
	out, err := exec.Command(cxx, "--version").Output()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(line)
}

// cxx compiles bench/cxx/work.cc unless the cached binary was built from
// the same source (work.cc and the headers it includes from bench/cxx) with
// the same compiler and flags. It returns the binary
// and the command line used.
func (b *builder) cxx(compiler string) (string, string, error) {
	src := filepath.Join(b.root, "bench/cxx/work.cc")
	var code []byte
	for _, f := range []string{src, filepath.Join(b.root, "bench/cxx/countalloc.h"), filepath.Join(b.root, "bench/cxx/countalloc_api.h"),
		filepath.Join(b.root, "bench/cxx/models.h")} {
		c, err := os.ReadFile(f)
		if err != nil {
			return "", "", err
		}
		code = append(code, c...)
	}
	lt := os.Getenv("LIBTORCH")
	if lt != "" {
		lt, _ = filepath.Abs(lt)
	}
	cflags, ldflags := libtorchFlags(lt)
	bin := filepath.Join(b.outDir, "cxxwork")
	if b.cuda {
		c, l := cudaCxxFlags(os.Getenv("CGO_CPPFLAGS"))
		cflags, ldflags = append(cflags, c...), append(ldflags, l...)
		bin = filepath.Join(b.outDir, "cxxwork-cuda")
	}
	args := append(append(append([]string{}, cflags...), src, "-o", bin), ldflags...)
	cmdline := compiler + " " + strings.Join(args, " ")
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n", compilerID(compiler), cmdline, code)
	key := hex.EncodeToString(h.Sum(nil))
	keyFile := bin + ".key"
	if old, err := os.ReadFile(keyFile); err == nil && string(old) == key && fileExists(bin) {
		b.log("C++ worker: cached %s", rel(b.root, bin))
		return bin, cmdline, nil
	}
	b.log("C++ worker: %s", cmdline)
	os.Remove(keyFile)
	cmd := exec.Command(compiler, args...)
	cmd.Dir = b.root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", cmdline, fmt.Errorf("compiling the C++ worker: %v\n%s", err, out)
	}
	return bin, cmdline, os.WriteFile(keyFile, []byte(key), 0o644)
}

// countLib compiles bench/cxx/countalloc.cc into bench/out/libcountalloc.so,
// the Python worker's counting allocator (the C++ and Go workers compile
// the same header into themselves), unless it is cached.
func (b *builder) countLib(compiler string) (string, error) {
	src := filepath.Join(b.root, "bench/cxx/countalloc.cc")
	var code []byte
	for _, f := range []string{src, filepath.Join(b.root, "bench/cxx/countalloc.h"), filepath.Join(b.root, "bench/cxx/countalloc_api.h")} {
		c, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		code = append(code, c...)
	}
	lt := os.Getenv("LIBTORCH")
	if lt != "" {
		lt, _ = filepath.Abs(lt)
	}
	cflags, ldflags := libtorchFlags(lt)
	lib := filepath.Join(b.outDir, "libcountalloc.so")
	args := append(append(append([]string{"-shared", "-fPIC"}, cflags...), src, "-o", lib), ldflags...)
	cmdline := compiler + " " + strings.Join(args, " ")
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n", compilerID(compiler), cmdline, code)
	key := hex.EncodeToString(h.Sum(nil))
	keyFile := lib + ".key"
	if old, err := os.ReadFile(keyFile); err == nil && string(old) == key && fileExists(lib) {
		return lib, nil
	}
	b.log("counting allocator: %s", cmdline)
	os.Remove(keyFile)
	cmd := exec.Command(compiler, args...)
	cmd.Dir = b.root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("compiling the counting allocator: %v\n%s", err, out)
	}
	return lib, os.WriteFile(keyFile, []byte(key), 0o644)
}

// goTool is the go command: $GO, the go on PATH, or the running
// toolchain's.
func goTool() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	if g, err := exec.LookPath("go"); err == nil {
		return g
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// goBuild runs a go command in the module root.
func (b *builder) goCmd(args ...string) error {
	b.log("%s", "go "+strings.Join(args, " "))
	cmd := exec.Command(goTool(), args...)
	cmd.Dir = b.root
	cmd.Env = goEnv(os.Environ())
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// gowork builds the Go worker.
func (b *builder) gowork() (string, error) {
	bin := filepath.Join(b.outDir, "gowork")
	return bin, b.goCmd("build", "-o", bin, "./bench/cmd/gowork")
}

// gopwork builds the Go+ worker with gop-torch.
func (b *builder) gopwork() (string, error) {
	bin := filepath.Join(b.outDir, "gopwork")
	return bin, b.goCmd("run", "./cmd/gop-torch", "build", "-o", bin, "./bench/gopwork")
}

// python checks that the interpreter imports torch; it returns the
// worker's command line.
func (b *builder) python(py string) ([]string, error) {
	out, err := exec.Command(py, "-c", "import torch").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s cannot import torch: %v %s", py, err, strings.TrimSpace(string(out)))
	}
	return []string{py, filepath.Join(b.root, "bench/py/work.py")}, nil
}

// rel is path relative to root when it is inside it.
func rel(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}
