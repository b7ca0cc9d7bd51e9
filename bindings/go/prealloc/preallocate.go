package prealloc

import (
	"errors"
	"os"
	"syscall"
)

// Preallocate has the signature and semantics of etcd's
// fileutil.Preallocate, so a Go database swaps one call, but leaves
// [0, sizeInBytes) written rather than unwritten, and durable.
//
// sizeInBytes 0 does nothing.  extendFile true grows the file to at least
// sizeInBytes; false keeps its size (the space beyond EOF is then reserved,
// as etcd's fallocate with FALLOC_FL_KEEP_SIZE does), and a filesystem that
// can reserve nothing there is not an error.  When extending is refused
// with EOPNOTSUPP the file is grown with ftruncate instead, as etcd does,
// except that a longer file is never cut.  Existing data is kept.
func Preallocate(f *os.File, sizeInBytes int64, extendFile bool) error {
	if sizeInBytes == 0 {
		return nil
	}
	_, err := File(f, 0, sizeInBytes, &Options{KeepSize: !extendFile})
	if !errors.Is(err, syscall.EOPNOTSUPP) {
		return err
	}
	if !extendFile {
		return nil
	}
	st, serr := f.Stat()
	if serr != nil {
		return serr
	}
	if st.Size() >= sizeInBytes {
		return nil
	}
	return f.Truncate(sizeInBytes)
}
