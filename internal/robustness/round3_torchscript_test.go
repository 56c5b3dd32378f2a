package robustness

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"io"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/jit"
)

// Round 3 (issue #36): hostile TorchScript files. A file with valid CRCs
// can still hold a pickle that crashes libtorch's unpickler, a directory
// entry that makes libtorch skip a record (and load uninitialised
// weights), or a tensor whose record is shorter than the pickle says. The
// loader now checks, before torch::jit::load reads the archive: the zip
// directory (torch/jit's checkArchive), every pickle with the walk that
// guards torch.Load, and every tensor against its record
// (cgotorch/jit's check_archive).

// zipEntry is one member of an archive being rewritten.
type zipEntry struct {
	hdr  zip.FileHeader
	body []byte
}

func readZip(t testing.TB, data []byte) []zipEntry {
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	var out []zipEntry
	for _, f := range z.File {
		rc, err := f.Open()
		require.NoError(t, err)
		b, err := io.ReadAll(rc)
		require.NoError(t, err)
		rc.Close()
		out = append(out, zipEntry{hdr: f.FileHeader, body: b})
	}
	return out
}

// writeZip writes entries as a new archive, with their CRCs and sizes
// computed afresh: what the loader gets is a valid zip.
func writeZip(t testing.TB, entries []zipEntry) []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, e := range entries {
		h := e.hdr
		h.CRC32, h.CompressedSize64, h.UncompressedSize64 = 0, 0, 0
		f, err := w.CreateHeader(&h)
		require.NoError(t, err)
		_, err = f.Write(e.body)
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

func entry(name string, body []byte) zipEntry {
	return zipEntry{hdr: zip.FileHeader{Name: name, Method: zip.Store}, body: body}
}

// rezip builds an archive: from src's entries if src is set, then with
// what build adds.
func rezip(t testing.TB, src []byte, build func(add func(name string, body []byte))) []byte {
	var es []zipEntry
	if src != nil {
		es = readZip(t, src)
	}
	build(func(name string, body []byte) { es = append(es, entry(name, body)) })
	return writeZip(t, es)
}

func netBytes(t testing.TB) []byte {
	b, err := os.ReadFile(netPath)
	require.NoError(t, err)
	return b
}

// netWith is net.pt with edit applied to its entries.
func netWith(t testing.TB, edit func(es []zipEntry) []zipEntry) []byte {
	return writeZip(t, edit(readZip(t, netBytes(t))))
}

// replace sets the body of the entry named name.
func replace(name string, body []byte) func([]zipEntry) []zipEntry {
	return func(es []zipEntry) []zipEntry {
		for i := range es {
			if es[i].hdr.Name == name {
				es[i].body = body
			}
		}
		return es
	}
}

// editHeader changes the header of the entry named name.
func editHeader(name string, f func(h *zip.FileHeader)) func([]zipEntry) []zipEntry {
	return func(es []zipEntry) []zipEntry {
		for i := range es {
			if es[i].hdr.Name == name {
				f(&es[i].hdr)
			}
		}
		return es
	}
}

func appendEntry(name string, body []byte) func([]zipEntry) []zipEntry {
	return func(es []zipEntry) []zipEntry { return append(es, entry(name, body)) }
}

// flipToFolder sets the MS-DOS directory attribute of name's central
// directory entry: a one-byte change that leaves every CRC valid.
func flipToFolder(t testing.TB, data []byte, name string) []byte {
	b := bytes.Clone(data)
	sig := []byte("PK\x01\x02")
	for i := bytes.Index(b, sig); i >= 0; {
		n := int(binary.LittleEndian.Uint16(b[i+28:]))
		if string(b[i+46:i+46+n]) == name {
			b[i+38] |= 0x10
			return b
		}
		j := bytes.Index(b[i+4:], sig)
		if j < 0 {
			break
		}
		i += 4 + j
	}
	t.Fatalf("no central directory entry %q", name)
	return nil
}

func loadBytes(b []byte) error {
	m, err := jit.LoadBytes(b)
	if err == nil {
		m.Close()
	}
	return err
}

// scaleSize is the size tuple of net.pt's buffer "scale" in data.pkl
// ("K\x03t(K\x01t": size (3,), stride (1,)).
var scaleSize = []byte("K\x00(K\x03t(K\x01t")

func round3TorchScriptCases(t *testing.T) []badCase {
	net := netBytes(t)
	pkl := readZip(t, net)
	var dataPkl []byte
	for _, e := range pkl {
		if e.hdr.Name == "net/data.pkl" {
			dataPkl = e.body
		}
	}
	require.Contains(t, string(dataPkl), string(scaleSize))
	withScale := func(size, stride string) []byte {
		return bytes.Replace(dataPkl, scaleSize, []byte("K\x00("+size+"t("+stride+"t"), 1)
	}
	bare := []byte(pkProto + pkTuple2 + pkStop)
	dir := t.TempDir()
	flipped := dir + "/flipped.pt"
	require.NoError(t, os.WriteFile(flipped, flipToFolder(t, net, "net/data/1"), 0o644))
	flippedTensor := dir + "/flipped_tensor.pt"
	require.NoError(t, os.WriteFile(flippedTensor, flipToFolder(t, torch.Ones(shape(4)).Encode(), "archive/data/0"), 0o644))
	const op = "jit.load"
	return []badCase{
		// Pickles.
		{"jit data.pkl a bare TUPLE2", "needs 2 values on the stack", op, nil,
			func() error { return loadBytes(netWith(t, replace("net/data.pkl", bare))) }},
		{"jit constants.pkl a bare TUPLE2", "needs 2 values on the stack", op, nil,
			func() error { return loadBytes(netWith(t, replace("net/constants.pkl", bare))) }},
		{"jit debug_pkl a bare TUPLE2", "needs 2 values on the stack", op, nil,
			func() error {
				return loadBytes(netWith(t, replace("net/code/__torch__.py.debug_pkl", bare)))
			}},
		{"jit data.pkl nested 1,000,000 deep", "more than 1000 deep", op, nil,
			func() error {
				return loadBytes(netWith(t, replace("net/data.pkl", []byte(pkProto+pkNested(1_000_000)+pkStop))))
			}},
		{"jit constants.pkl nested 100,000 deep", "more than 1000 deep", op, nil,
			func() error {
				return loadBytes(netWith(t, replace("net/constants.pkl", []byte(pkProto+pkNested(100_000)+pkTuple1+pkStop))))
			}},
		{"jit data.pkl that contains itself", "contains itself", op, nil,
			func() error {
				return loadBytes(netWith(t, replace("net/data.pkl", []byte(pkProto+pkEmptyList+pkPut(0)+pkMark+pkGet(0)+pkAppends+pkStop))))
			}},
		{"jit data.pkl with an opcode libtorch does not read", "does not read", op, nil,
			func() error {
				return loadBytes(netWith(t, replace("net/data.pkl", []byte(pkProto+pkEmptyList+pkNone+"a"+pkStop))))
			}},
		{"jit data.pkl cut in half", "corrupt pickle", op, nil,
			func() error { return loadBytes(netWith(t, replace("net/data.pkl", dataPkl[:len(dataPkl)/2]))) }},
		{"jit data.pkl a memo index past its length", "memo index", op, nil,
			func() error {
				return loadBytes(netWith(t, replace("net/data.pkl", []byte(pkProto+pkNone+"r\xff\xff\xff\x7f"+pkStop))))
			}},
		{"jit no constants.pkl", "constants.pkl", op, nil,
			func() error {
				return loadBytes(netWith(t, func(es []zipEntry) []zipEntry {
					var out []zipEntry
					for _, e := range es {
						if e.hdr.Name != "net/constants.pkl" {
							out = append(out, e)
						}
					}
					return out
				}))
			}},
		{"jit a legacy archive (model.json)", "legacy TorchScript archive", op, nil,
			func() error { return loadBytes(netWith(t, appendEntry("net/model.json", []byte("{}")))) }},

		// Tensor records against their storages.
		{"jit weights record cut short", "made from a record of 40 bytes", op, nil,
			func() error {
				return loadBytes(netWith(t, func(es []zipEntry) []zipEntry {
					for i := range es {
						if es[i].hdr.Name == "net/data/1" {
							es[i].body = es[i].body[:40]
						}
					}
					return es
				}))
			}},
		{"jit buffer size past its storage", "needs 36 bytes, its storage has 12", op, nil,
			func() error { return loadBytes(netWith(t, replace("net/data.pkl", withScale("K\x09", "K\x01")))) }},
		{"jit buffer stride past its storage", "its storage has 12", op, nil,
			func() error { return loadBytes(netWith(t, replace("net/data.pkl", withScale("K\x03", "K\x05")))) }},

		// The zip directory.
		{"jit one-byte flip: weights entry marked as a folder", "marked as a folder", op, nil,
			func() error { return e1(jit.Load(flipped)) }},
		{"jit one-byte flip in memory: weights entry marked as a folder", "marked as a folder", op, nil,
			func() error { return loadBytes(flipToFolder(t, net, "net/data/1")) }},
		{"decode a one-byte flip: data record marked as a folder", "marked as a folder", "load", nil,
			func() error {
				return e1(torch.Decode(flipToFolder(t, torch.Ones(shape(4)).Encode(), "archive/data/0")))
			}},
		{"load a one-byte flip: data record marked as a folder", "marked as a folder", "load", nil,
			func() error { return e1(torch.Load(flippedTensor)) }},
		{"decode two records whose names differ in case", "without regard to case", "load", nil,
			func() error {
				return e1(torch.Decode(rezip(t, torch.Ones(shape(4)).Encode(), func(add func(string, []byte)) { add("archive/DATA.pkl", bare) })))
			}},
		{"jit weights entry with a Unix directory mode", "marked as a folder", op, nil,
			func() error {
				return loadBytes(netWith(t, editHeader("net/data/0", func(h *zip.FileHeader) { h.SetMode(fs.ModeDir | 0o755) })))
			}},
		{"jit weights entry that is a symlink", "not a regular file", op, nil,
			func() error {
				return loadBytes(netWith(t, editHeader("net/data/0", func(h *zip.FileHeader) { h.SetMode(fs.ModeSymlink | 0o777) })))
			}},
		{"jit a folder entry", "marked as a folder", op, nil,
			func() error { return loadBytes(netWith(t, appendEntry("net/extra/", nil))) }},
		{"jit two entries of one name", "two entries named", op, nil,
			func() error { return loadBytes(netWith(t, appendEntry("net/data/0", make([]byte, 12)))) }},
		{"jit two entries whose names differ in case", "without regard to case", op, nil,
			func() error { return loadBytes(netWith(t, appendEntry("net/DATA.pkl", bare))) }},
		{"jit an encrypted entry", "is encrypted", op, nil,
			func() error {
				return loadBytes(netWith(t, editHeader("net/data/0", func(h *zip.FileHeader) { h.Flags |= 1 })))
			}},
		{"jit an entry outside the archive's folder", "outside the archive's folder", op, nil,
			func() error { return loadBytes(netWith(t, appendEntry("other/data.pkl", bare))) }},
		{"jit a NUL in an entry's name", "NUL byte", op, nil,
			func() error { return loadBytes(netWith(t, appendEntry("net/a\x00b", nil))) }},
		{"jit an empty archive", "empty", op, nil,
			func() error { return loadBytes(writeZip(t, nil)) }},

		// The code, which libtorch parses and compiles recursively.
		{"jit code nested 100,000 parentheses deep", "brackets nested more than 200 deep", op, nil,
			func() error {
				return loadBytes(netWithCode(t, strings.Repeat("(", 100_000)+"x"+strings.Repeat(")", 100_000)))
			}},
		{"jit code nested 201 lists deep", "brackets nested more than 200 deep", op, nil,
			func() error { return loadBytes(netWithCode(t, strings.Repeat("[", 201)+"x"+strings.Repeat("]", 201))) }},
		{"jit code a chain of 100,000 additions", "more than 1000 operators", op, nil,
			func() error { return loadBytes(netWithCode(t, strings.Repeat("x + ", 100_000)+"x")) }},
		{"jit code 100,000 unary minuses", "more than 1000 operators", op, nil,
			func() error { return loadBytes(netWithCode(t, strings.Repeat("- ", 100_000)+"x")) }},
		{"jit code indented 100,000 spaces", "indented more than 800 spaces", op, nil,
			func() error {
				return loadBytes(netWith(t, replace("net/code/__torch__.py", []byte("class Net(Module):\n"+strings.Repeat(" ", 100_000)+"x = 1\n"))))
			}},
	}
}

// netWithCode is net.pt with forward's first call given expr as its
// argument.
func netWithCode(t testing.TB, expr string) []byte {
	return netWith(t, func(es []zipEntry) []zipEntry {
		for i := range es {
			if es[i].hdr.Name == "net/code/__torch__.py" {
				old := []byte("_0 = (lin).forward(x, )")
				require.True(t, bytes.Contains(es[i].body, old))
				es[i].body = bytes.Replace(es[i].body, old, []byte("_0 = (lin).forward("+expr+", )"), 1)
			}
		}
		return es
	})
}

// tsCrashEnv marks the child of TestRound3TorchScriptCrashes.
const tsCrashEnv = "GOTORCH_ROUND3_TORCHSCRIPT_CHILD"

// TestRound3TorchScriptCrashes runs the TorchScript examples in a
// child process: the bare TUPLE2 data.pkl (SIGSEGV in jit.Load and
// LoadBytes), code nested 100,000 parentheses deep (SIGSEGV in libtorch's
// parser), and the one-byte zip directory flip that loaded garbage
// silently. Each must be refused, and the real module must load and run
// after.
func TestRound3TorchScriptCrashes(t *testing.T) {
	cases := map[string]func(t *testing.T){
		"tuple2-load-bytes": func(t *testing.T) {
			err := loadBytes(netWith(t, replace("net/data.pkl", []byte(pkProto+pkTuple2+pkStop))))
			require.ErrorContains(t, err, "needs 2 values on the stack")
		},
		"tuple2-load-file": func(t *testing.T) {
			path := t.TempDir() + "/bad.pt"
			require.NoError(t, os.WriteFile(path, netWith(t, replace("net/data.pkl", []byte(pkProto+pkTuple2+pkStop))), 0o644))
			_, err := jit.Load(path)
			require.ErrorContains(t, err, "needs 2 values on the stack")
		},
		"code-nested-1e5": func(t *testing.T) {
			err := loadBytes(netWithCode(t, strings.Repeat("(", 100_000)+"x"+strings.Repeat(")", 100_000)))
			require.ErrorContains(t, err, "brackets nested more than 200 deep")
		},
		"folder-flip": func(t *testing.T) {
			err := loadBytes(flipToFolder(t, netBytes(t), "net/data/1"))
			require.ErrorContains(t, err, "marked as a folder")
		},
	}
	runInChild(t, tsCrashEnv, cases, func(t *testing.T) {
		m := netModule(t)
		defer m.Close()
		y, err := m.ForwardTensor(torch.Ones(shape(2, 4)))
		require.NoError(t, err, "the next load and call")
		require.Equal(t, []int64{2, 2}, y.Shape())
		assertHealthy(t)
	})
}
