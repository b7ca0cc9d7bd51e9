// Command etcd-verify checks a stopped (or killed) etcd member's data
// directory with etcd's own code, before the server opens it again:
//
//   - wal.Verify from the newest valid snapshot entry: every record's CRC,
//     the metadata, the snapshot entry found (what etcdutl relies on);
//   - each segment decoded on its own: the decoder stops with io.EOF at a
//     zero frame or at the end of the file, never mid-record, and every
//     byte after the last record is zero (a segment's tail reads as the
//     end of the log); only the newest segment may end in a torn record
//     (a write the kill cut short, never acknowledged), which it names;
//   - the backend (member/snap/db): bbolt's consistency check.
//
// usage: etcd-verify DATA_DIR
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"
	"go.uber.org/zap"

	"go.etcd.io/etcd/client/pkg/v3/fileutil"
	"go.etcd.io/etcd/server/v3/storage/wal"
	"go.etcd.io/etcd/server/v3/storage/wal/walpb"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: etcd-verify DATA_DIR")
		os.Exit(2)
	}
	if err := verify(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "etcd-verify:", err)
		os.Exit(1)
	}
}

func verify(dataDir string) error {
	walDir := filepath.Join(dataDir, "member", "wal")
	lg := zap.NewNop()
	snaps, err := wal.ValidSnapshotEntries(lg, walDir)
	if err != nil {
		return fmt.Errorf("snapshot entries: %w", err)
	}
	snap := &walpb.Snapshot{}
	if len(snaps) > 0 {
		snap = snaps[len(snaps)-1]
	}
	hs, err := wal.Verify(lg, walDir, snap)
	if err != nil {
		return fmt.Errorf("wal.Verify: %w", err)
	}
	names, err := segments(walDir)
	if err != nil {
		return err
	}
	torn := "none"
	for i, name := range names {
		t, err := segmentTail(filepath.Join(walDir, name))
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if t && i < len(names)-1 {
			return fmt.Errorf("%s: torn record in a segment that is not the last", name)
		}
		if t {
			torn = name
		}
	}
	if err := backend(filepath.Join(dataDir, "member", "snap", "db")); err != nil {
		return err
	}
	fmt.Printf("wal: %d segments, commit index %d, torn last record: %s; backend consistent\n",
		len(names), hs.GetCommit(), torn)
	return nil
}

func segments(walDir string) ([]string, error) {
	ents, err := os.ReadDir(walDir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".wal") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names, nil
}

// segmentTail decodes one segment; true if its last record is torn.
func segmentTail(path string) (torn bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	dec := wal.NewDecoder(fileutil.NewFileReader(f))
	var rec walpb.Record
	for err = dec.Decode(&rec); err == nil; err = dec.Decode(&rec) {
		if rec.GetType() == wal.CrcType {
			dec.UpdateCRC(rec.GetCrc())
		}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return true, nil
	}
	if !errors.Is(err, io.EOF) {
		return false, err
	}
	tail, err := io.ReadAll(io.NewSectionReader(f, dec.LastOffset(), 1<<62))
	if err != nil {
		return false, err
	}
	if i := slices.IndexFunc(tail, func(b byte) bool { return b != 0 }); i >= 0 {
		return false, fmt.Errorf("non-zero byte at %d after the last record (at %d)",
			dec.LastOffset()+int64(i), dec.LastOffset())
	}
	return false, nil
}

func backend(path string) error {
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("backend: %w", err)
	}
	defer db.Close()
	return db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return fmt.Errorf("backend: %w", err)
		}
		return nil
	})
}
