// SPDX-License-Identifier: MIT
//
// The "prealloc" FileSystem: new WAL files come from a pool (wal-pools.h),
// everything else goes to the target untouched.
#ifndef PREALLOC_ROCKSDB_FS_H
#define PREALLOC_ROCKSDB_FS_H

#include <atomic>
#include <memory>
#include <string>

#include <rocksdb/file_system.h>

#include "prealloc-rocksdb.h"
#include "wal-pools.h"

namespace prealloc_rocksdb {

class PreallocFileSystem : public rocksdb::FileSystemWrapper {
  Options opts_;  // first: the pools keep a pointer to it

 public:
  explicit PreallocFileSystem(const std::shared_ptr<rocksdb::FileSystem> &target);

  static const char *kClassName() { return "prealloc"; }
  const char *Name() const override { return kClassName(); }

  rocksdb::IOStatus NewWritableFile(const std::string &fname,
                                    const rocksdb::FileOptions &file_opts,
                                    std::unique_ptr<rocksdb::FSWritableFile> *result,
                                    rocksdb::IODebugContext *dbg) override;

  void GetStats(Stats *st);

  // Updated by the WAL files this FileSystem hands out.
  std::atomic<uint64_t> pool_wals{0}, fallbacks{0}, outgrown{0};
  WalPools pools;
};

}  // namespace prealloc_rocksdb

#endif
