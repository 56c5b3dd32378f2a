package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// machine describes where the benchmarks ran, read at run time.
type machine struct {
	CPU      string
	Cores    int // logical CPUs
	Memory   string
	OS       string
	Kernel   string
	Go       string
	Compiler string
	GPU      string // -device cuda: nvidia-smi's name, driver and memory
	Python   string
	// Versions reported by the workers and the packages of the libraries
	// they loaded.
	Libtorch []string
	BLAS     []string
	Threads  []string // the intra-op threads each worker reports
	Env      []string // the workers' relevant environment
	// What makes the same code faster or slower on one machine than on
	// another of the same name: the vector extensions libtorch picks its
	// kernels by, the kernel's transparent huge pages, and what a fresh
	// page costs (on the VMs these benchmarks run on, 17–19 µs; a step
	// that maps its activations afresh pays it for every 4 KiB).
	VectorISA string // "AVX-512", "AVX2" or "SSE4.1 or older"
	THP       string // /sys/kernel/mm/transparent_hugepage/enabled's choice
	PageFault time.Duration
}

func firstLine(path, prefix string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), prefix) {
			return strings.TrimSpace(strings.TrimPrefix(sc.Text(), prefix))
		}
	}
	return ""
}

func describeMachine() machine {
	m := machine{Cores: runtime.NumCPU(), Go: runtime.Version()}
	m.CPU = strings.TrimSpace(strings.TrimPrefix(firstLine("/proc/cpuinfo", "model name"), ":"))
	if kb, err := strconv.ParseFloat(strings.Fields(firstLine("/proc/meminfo", "MemTotal:") + " 0")[0], 64); err == nil && kb > 0 {
		m.Memory = fmt.Sprintf("%.1f GiB", kb/(1<<20))
	}
	m.OS = strings.Trim(firstLine("/etc/os-release", "PRETTY_NAME="), `"`)
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	m.VectorISA = vectorISA(firstLine("/proc/cpuinfo", "flags"))
	if b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err == nil {
		// "always [madvise] never": the bracketed word is the setting
		if _, after, ok := strings.Cut(string(b), "["); ok {
			m.THP, _, _ = strings.Cut(after, "]")
		}
	}
	m.PageFault = pageFaultCost()
	return m
}

// vectorISA names the widest vector extension in /proc/cpuinfo's flags.
func vectorISA(flags string) string {
	f := strings.Fields(strings.TrimPrefix(flags, ":"))
	switch {
	case slices.Contains(f, "avx512f"):
		return "AVX-512"
	case slices.Contains(f, "avx2"):
		return "AVX2"
	case len(f) == 0:
		return ""
	}
	return "SSE4.1 or older"
}

// pageFaultCost measures what touching a fresh 4 KiB page costs: the
// median over 5 tries of mapping 16 MiB, writing one byte per page, and
// unmapping it. Huge pages are refused for the mapping (MADV_NOHUGEPAGE),
// so each page is one fault.
func pageFaultCost() time.Duration {
	const size, page = 16 << 20, 4096
	var tries []time.Duration
	for range 5 {
		b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err != nil {
			return 0
		}
		syscall.Madvise(b, 15) // MADV_NOHUGEPAGE
		t0 := time.Now()
		for i := 0; i < size; i += page {
			b[i] = 1
		}
		tries = append(tries, time.Since(t0)/(size/page))
		syscall.Munmap(b)
	}
	slices.Sort(tries)
	return tries[len(tries)/2]
}

// loadedLibs returns the files of a running process whose names contain
// one of the words (from /proc/PID/maps), symbolic links resolved.
func loadedLibs(pid int, words ...string) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return nil
	}
	var libs []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || !strings.HasPrefix(f[5], "/") {
			continue
		}
		name := filepath.Base(f[5])
		for _, w := range words {
			if strings.Contains(name, w) {
				p := f[5]
				if r, err := filepath.EvalSymlinks(p); err == nil {
					p = r
				}
				if !slices.Contains(libs, p) {
					libs = append(libs, p)
				}
				break
			}
		}
	}
	slices.Sort(libs)
	return libs
}

// debPackage names the Debian package and version that own path, "" when
// dpkg does not know it.
func debPackage(path string) string {
	out, err := exec.Command("dpkg-query", "-S", path).Output()
	if err != nil {
		// dpkg records the path before merged-/usr or alternatives moves
		if !strings.HasPrefix(path, "/usr") {
			return ""
		}
		if out, err = exec.Command("dpkg-query", "-S", strings.TrimPrefix(path, "/usr")).Output(); err != nil {
			return ""
		}
	}
	pkg, _, _ := strings.Cut(strings.TrimSpace(string(out)), ":")
	pkg = strings.TrimSpace(strings.Split(pkg, ",")[0])
	v, err := exec.Command("dpkg-query", "-W", "-f", "${Version}", pkg).Output()
	if err != nil {
		return pkg
	}
	return pkg + " " + strings.TrimSpace(string(v))
}

// describeLibs describes libraries: path and owning package.
func describeLibs(libs []string) []string {
	var out []string
	for _, l := range libs {
		if p := debPackage(l); p != "" {
			out = append(out, fmt.Sprintf("`%s` (%s)", l, p))
		} else {
			out = append(out, fmt.Sprintf("`%s`", l))
		}
	}
	return out
}

func commandVersion(name string, args ...string) string {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}

// cpuMeter measures the CPU time the rest of the machine used while the
// harness ran: all CPUs' busy time (/proc/stat) minus the time of this
// process and its finished children.
type cpuMeter struct {
	busy0, own0 time.Duration
	wall0       time.Time
}

func clockTicks() float64 { return 100 } // USER_HZ on Linux

func machineBusy() time.Duration {
	f := strings.Fields(firstLine("/proc/stat", "cpu "))
	if len(f) < 8 {
		return 0
	}
	var busy float64
	for i, v := range f {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		if i >= 8 { // guest time is counted in user time already
			break
		}
		n, _ := strconv.ParseFloat(v, 64)
		busy += n
	}
	return time.Duration(busy / clockTicks() * float64(time.Second))
}

func ownCPU() time.Duration {
	var self, children syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	tv := func(t syscall.Timeval) time.Duration {
		return time.Duration(t.Sec)*time.Second + time.Duration(t.Usec)*time.Microsecond
	}
	return tv(self.Utime) + tv(self.Stime) + tv(children.Utime) + tv(children.Stime)
}

func startMeter() cpuMeter {
	return cpuMeter{busy0: machineBusy(), own0: ownCPU(), wall0: time.Now()}
}

// others returns the average number of cores that other processes kept
// busy since the meter started; call it after the workers have exited.
func (c cpuMeter) others() float64 {
	wall := time.Since(c.wall0)
	if wall <= 0 {
		return 0
	}
	other := (machineBusy() - c.busy0) - (ownCPU() - c.own0)
	return max(0, other.Seconds()/wall.Seconds())
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
