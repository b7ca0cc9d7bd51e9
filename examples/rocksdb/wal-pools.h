// SPDX-License-Identifier: MIT
//
// One libprealloc pool per WAL directory, in a dot-directory beside the WAL
// files, opened on demand.  Knows nothing of RocksDB.
#ifndef PREALLOC_ROCKSDB_WAL_POOLS_H
#define PREALLOC_ROCKSDB_WAL_POOLS_H

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "prealloc-rocksdb.h"

struct prealloc_pool;

namespace prealloc_rocksdb {

// The dot-directory, inside the WAL directory, that holds the pool.
inline constexpr const char *kPoolDirName = ".libprealloc-wal";

class WalPools {
 public:
  explicit WalPools(const Options *opts) : opts_(opts) {}
  ~WalPools();
  WalPools(const WalPools &) = delete;
  WalPools &operator=(const WalPools &) = delete;

  // Put a ready segment under @dir/@name.  0, or a negative errno when the
  // caller must make the file its own way: -EAGAIN (no segment size known
  // yet, or none ready), or the pool's error.
  int Take(const std::string &dir, const std::string &name);
  // RocksDB told a WAL in @dir its preallocation block: the segment size
  // when the options fix none.
  void LearnSegmentSize(const std::string &dir, uint64_t bytes);
  // The segment size of @dir's pool, 0 if none is open.
  uint64_t SegmentSize(const std::string &dir);
  void AddStats(Stats *st);

 private:
  struct Dir {
    prealloc_pool *pool = nullptr;
    int fd = -1;
    uint64_t segment_size = 0;
    int error = 0;  // why the pool could not be opened (not retried)
  };
  Dir *OpenLocked(const std::string &dir, uint64_t segment_size);

  const Options *opts_;
  std::mutex mu_;
  std::map<std::string, Dir> dirs_;
};

}  // namespace prealloc_rocksdb

#endif
