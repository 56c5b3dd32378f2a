// Package zipcheck checks the directory of a zip archive that libtorch
// will read (torch.save's and torch.jit.save's files) against what
// libtorch's zip reader, miniz, would make of it. A CRC covers a member's
// data, not its directory entry, so a one-byte change there passes every
// CRC and still changes what libtorch reads:
//
//   - an entry marked as a folder (a name ending in "/", the MS-DOS
//     directory attribute, or a Unix directory mode): miniz skips its
//     data, and libtorch makes a storage of uninitialised memory;
//   - two entries whose names differ only in case: miniz looks names up
//     without regard to case, so either may be read;
//   - an encrypted entry, a name with a NUL byte, an entry outside the
//     archive's one top-level folder (libtorch reads the first entry's),
//     and compression other than stored or deflated.
package zipcheck

import (
	"archive/zip"
	"errors"
	"fmt"
	"strings"
)

// Entries checks every entry of z as the package comment says, and
// returns the archive's top-level folder.
func Entries(z *zip.Reader) (top string, err error) {
	if len(z.File) == 0 {
		return "", errors.New("the archive is empty")
	}
	top, _, _ = strings.Cut(z.File[0].Name, "/")
	names := make(map[string]string, len(z.File))
	for _, f := range z.File {
		if err := entry(f, top); err != nil {
			return "", err
		}
		folded := strings.ToLower(f.Name)
		if other, dup := names[folded]; dup {
			return "", fmt.Errorf("the archive has two entries named %q and %q (names are looked up without regard to case)", other, f.Name)
		}
		names[folded] = f.Name
	}
	return top, nil
}

func entry(f *zip.File, top string) error {
	const (
		dosDir   = 0x10     // MS-DOS attribute: a directory
		unixType = 0o170000 // the file type bits of a Unix mode
		unixReg  = 0o100000 // a regular file
	)
	switch {
	case strings.HasSuffix(f.Name, "/") || f.ExternalAttrs&dosDir != 0 || f.FileInfo().IsDir():
		return fmt.Errorf("entry %q is marked as a folder (libtorch would skip its data)", f.Name)
	case f.CreatorVersion>>8 == 3 && (f.ExternalAttrs>>16)&unixType != 0 && (f.ExternalAttrs>>16)&unixType != unixReg:
		return fmt.Errorf("entry %q is not a regular file (Unix mode %#o)", f.Name, f.ExternalAttrs>>16)
	case f.Flags&0x1 != 0:
		return fmt.Errorf("entry %q is encrypted", f.Name)
	case strings.IndexByte(f.Name, 0) >= 0:
		return fmt.Errorf("entry %q has a NUL byte in its name", f.Name)
	case !strings.HasPrefix(f.Name, top+"/"):
		return fmt.Errorf("entry %q is outside the archive's folder %q", f.Name, top)
	case f.Method != zip.Store && f.Method != zip.Deflate:
		return fmt.Errorf("entry %q uses compression method %d (stored or deflated only)", f.Name, f.Method)
	}
	return nil
}
