package zipcheck

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/require"
)

// archive writes entries (name and header edit) as a zip archive and opens it.
func archive(t *testing.T, entries map[string]func(*zip.FileHeader), order ...string) *zip.Reader {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, name := range order {
		h := &zip.FileHeader{Name: name, Method: zip.Store}
		if f := entries[name]; f != nil {
			f(h)
		}
		_, err := w.CreateHeader(h)
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	z, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	require.NoError(t, err)
	return z
}

func TestEntries(t *testing.T) {
	top, err := Entries(archive(t, nil, "a/data.pkl", "a/data/0", "a/version"))
	require.NoError(t, err)
	require.Equal(t, "a", top)

	for _, c := range []struct {
		name  string
		edit  func(*zip.FileHeader)
		order []string
		want  string
	}{
		{"DOS folder bit", func(h *zip.FileHeader) { h.ExternalAttrs |= 0x10 }, nil, "marked as a folder"},
		{"Unix directory", func(h *zip.FileHeader) { h.SetMode(fs.ModeDir | 0o755) }, nil, "marked as a folder"},
		{"Unix symlink", func(h *zip.FileHeader) { h.SetMode(fs.ModeSymlink | 0o777) }, nil, "not a regular file"},
		{"encrypted", func(h *zip.FileHeader) { h.Flags |= 1 }, nil, "encrypted"},
		{"regular Unix file", func(h *zip.FileHeader) { h.SetMode(0o644) }, nil, ""},
		{"trailing slash", nil, []string{"a/data.pkl", "a/dir/"}, "marked as a folder"},
		{"case duplicate", nil, []string{"a/data.pkl", "a/Data.pkl"}, "without regard to case"},
		{"outside the folder", nil, []string{"a/data.pkl", "b/x"}, "outside the archive's folder"},
		{"NUL", nil, []string{"a/data.pkl", "a/x\x00"}, "NUL"},
	} {
		t.Run(c.name, func(t *testing.T) {
			order := c.order
			if order == nil {
				order = []string{"a/data.pkl", "a/data/0"}
			}
			_, err := Entries(archive(t, map[string]func(*zip.FileHeader){"a/data/0": c.edit}, order...))
			if c.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, c.want)
		})
	}
}
