package fileio_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/fileio"
)

func TestOpenRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	cases := map[string]string{
		fifo:        "a FIFO",
		dir:         "a directory",
		"/dev/zero": "a character device",
		"/dev/null": "a character device",
	}
	for path, what := range cases {
		_, _, err := fileio.Open(path)
		require.Error(t, err, path)
		assert.ErrorIs(t, err, fileio.ErrNotRegular)
		var pe *fs.PathError
		require.True(t, errors.As(err, &pe))
		assert.Equal(t, path, pe.Path)
		assert.Contains(t, err.Error(), what)

		_, err = fileio.ReadFile(path, 1<<20)
		assert.ErrorIs(t, err, fileio.ErrNotRegular, path)
	}
	_, _, err := fileio.Open(filepath.Join(dir, "missing"))
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(path, []byte("hello"), 0o644))
	b, err := fileio.ReadFile(path, 5)
	require.NoError(t, err)
	assert.Equal(t, "hello", string(b))

	_, err = fileio.ReadFile(path, 4)
	assert.ErrorIs(t, err, fileio.ErrTooLarge)
	assert.Contains(t, err.Error(), "5 bytes, the limit is 4")

	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	b, err = fileio.ReadFile(empty, 10)
	require.NoError(t, err)
	assert.Empty(t, b)

	// A symbolic link to a regular file is read through.
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(path, link))
	b, err = fileio.ReadFile(link, 10)
	require.NoError(t, err)
	assert.Equal(t, "hello", string(b))
}
