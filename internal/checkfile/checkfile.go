// Package checkfile writes and reads small state files atomically and with
// an integrity check, so that a crash at any point leaves either the old or
// the new file, and a torn or corrupted file is detected rather than
// trusted.
//
// A file is: an 8-byte magic, the payload, the payload length (8 bytes,
// little endian) and its CRC-32C (4 bytes). [Write] goes through a temporary
// file in the same directory that is fsynced and renamed over the target
// (github.com/google/renameio) — or, for "-" and special files (a device,
// a pipe), standard output or the file itself (package outfile).
package checkfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"

	"github.com/doppel-search/doppel/internal/outfile"
)

// ErrCorrupt is wrapped by every error [Read] returns for a file that exists
// but is truncated, has the wrong magic, or fails its checksum.
var ErrCorrupt = errors.New("checkfile: corrupt file")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const trailerLen = 8 + 4

// Write atomically replaces path (see the package doc) with magic, the bytes produced by write,
// and the integrity trailer. magic must be exactly 8 bytes. The file has
// mode 0644.
func Write(path string, magic string, write func(io.Writer) error) error {
	if len(magic) != 8 {
		return fmt.Errorf("checkfile: magic %q is not 8 bytes", magic)
	}
	var buf bytes.Buffer
	buf.WriteString(magic)
	if err := write(&buf); err != nil {
		return fmt.Errorf("checkfile: encoding %s: %w", path, err)
	}
	payload := buf.Len() - len(magic)
	var trailer [trailerLen]byte
	binary.LittleEndian.PutUint64(trailer[:8], uint64(payload))
	binary.LittleEndian.PutUint32(trailer[8:], crc32.Checksum(buf.Bytes()[len(magic):], castagnoli))
	buf.Write(trailer[:])
	if err := outfile.WriteFile(path, nil, buf.Bytes()); err != nil {
		return fmt.Errorf("checkfile: writing %s: %w", path, err)
	}
	return nil
}

// Read reads path, checks its magic, length and checksum, and returns the
// payload. Errors for damaged files wrap [ErrCorrupt]; a missing file gives
// an error satisfying errors.Is(err, fs.ErrNotExist).
func Read(path string, magic string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("checkfile: %w", err)
	}
	return Verify(data, magic)
}

// Verify checks data as [Read] does and returns its payload.
func Verify(data []byte, magic string) ([]byte, error) {
	if len(data) < len(magic)+trailerLen || string(data[:len(magic)]) != magic {
		return nil, fmt.Errorf("%w: bad magic or too short (%d bytes)", ErrCorrupt, len(data))
	}
	trailer := data[len(data)-trailerLen:]
	payload := data[len(magic) : len(data)-trailerLen]
	if n := binary.LittleEndian.Uint64(trailer[:8]); n != uint64(len(payload)) {
		return nil, fmt.Errorf("%w: length %d, trailer says %d", ErrCorrupt, len(payload), n)
	}
	if sum := binary.LittleEndian.Uint32(trailer[8:]); sum != crc32.Checksum(payload, castagnoli) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}
	return payload, nil
}
