// SPDX-License-Identifier: MIT
//
// libprealloc-rocksdb: a RocksDB FileSystem ("prealloc") whose new WAL files
// come from a libprealloc pool of allocated, written, durable segments.
// Loading the shared object registers it; RocksDB finds it by name:
//   --fs_uri=prealloc   or   --fs_uri='id=prealloc;segment_size=64M;ready=2'
#ifndef PREALLOC_ROCKSDB_H
#define PREALLOC_ROCKSDB_H

#include <cstdint>

namespace rocksdb {
class FileSystem;
}

namespace prealloc_rocksdb {

// The options of the "prealloc" FileSystem (names as in the URI).
struct Options {
  // segment_size: bytes per segment; 0 (default) takes the preallocation
  // block RocksDB gives its first WAL (1.1 x write_buffer_size), rounded up
  // to 64 KiB, so the first WAL of a run is RocksDB's own.
  uint64_t segment_size = 0;
  // ready: segments the pool keeps ready.
  uint32_t ready = 2;
  // full_speed: zero in bursts instead of at the background pace.
  bool full_speed = false;
  // max_rate: cap on the pool's zeroing rate, bytes per second; 0 for none.
  uint64_t max_rate = 0;
};

struct Stats {
  uint64_t pool_wals = 0;    // WAL files that were pool segments
  uint64_t fallbacks = 0;    // WAL files made RocksDB's own way
  uint64_t outgrown = 0;     // pool WALs closed larger than their segment
  uint64_t pool_hits = 0;    // prealloc_pool_stats, summed over directories
  uint64_t pool_misses = 0;
  uint64_t pool_created = 0;
};

// Counters of a FileSystem made by this plugin; false for any other.
bool GetStats(const rocksdb::FileSystem *fs, Stats *st);

}  // namespace prealloc_rocksdb

#endif
