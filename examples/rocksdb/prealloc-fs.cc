// SPDX-License-Identifier: MIT
#include "prealloc-fs.h"

#include <cstddef>

#include <rocksdb/utilities/options_type.h>

namespace prealloc_rocksdb {

using rocksdb::FileOptions;
using rocksdb::FSWritableFile;
using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::OptionType;
using rocksdb::OptionTypeFlags;
using rocksdb::OptionTypeInfo;
using rocksdb::OptionVerificationType;

namespace {

// Options as RocksDB parses them: "id=prealloc;segment_size=64M;ready=4".
const std::unordered_map<std::string, OptionTypeInfo> kOptionsInfo = {
    {"segment_size", {static_cast<int>(offsetof(Options, segment_size)), OptionType::kUInt64T,
                      OptionVerificationType::kNormal, OptionTypeFlags::kNone}},
    {"ready", {static_cast<int>(offsetof(Options, ready)), OptionType::kUInt32T,
               OptionVerificationType::kNormal, OptionTypeFlags::kNone}},
    {"full_speed", {static_cast<int>(offsetof(Options, full_speed)), OptionType::kBoolean,
                    OptionVerificationType::kNormal, OptionTypeFlags::kNone}},
    {"max_rate", {static_cast<int>(offsetof(Options, max_rate)), OptionType::kUInt64T,
                  OptionVerificationType::kNormal, OptionTypeFlags::kNone}},
};

// RocksDB names its WALs NNNNNN.log (db/filename.cc, LogFileName).
bool IsWalName(const std::string &base) {
  const size_t n = base.size();
  if (n <= 4 || base.compare(n - 4, 4, ".log") != 0) return false;
  return base.find_first_not_of("0123456789") == n - 4;
}

// A WAL: learns the segment size from RocksDB's preallocation block, and
// counts a pool WAL that outgrew its segment (it then grew by RocksDB's own
// keep-size fallocate, as any WAL does).
class WalFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  WalFile(std::unique_ptr<FSWritableFile> &&f, PreallocFileSystem *fs, std::string dir,
          uint64_t segment_size)
      : FSWritableFileOwnerWrapper(std::move(f)), fs_(fs), dir_(std::move(dir)),
        segment_size_(segment_size) {}

  void SetPreallocationBlockSize(size_t size) override {
    fs_->pools.LearnSegmentSize(dir_, size);
    FSWritableFileOwnerWrapper::SetPreallocationBlockSize(size);
  }

  IOStatus Close(const IOOptions &opts, IODebugContext *dbg) override {
    if (segment_size_ && GetFileSize(opts, dbg) > segment_size_) fs_->outgrown++;
    segment_size_ = 0;
    return FSWritableFileOwnerWrapper::Close(opts, dbg);
  }

 private:
  PreallocFileSystem *fs_;
  std::string dir_;
  uint64_t segment_size_;  // 0: not a pool segment (or closed)
};

}  // namespace

PreallocFileSystem::PreallocFileSystem(const std::shared_ptr<rocksdb::FileSystem> &target)
    : FileSystemWrapper(target), pools(&opts_) {
  RegisterOptions("PreallocOptions", &opts_, &kOptionsInfo);
}

// A pool segment is already under @fname when the target reopens it:
// ReuseWritableFile(fname, fname) opens it without O_TRUNC (the rename onto
// itself does nothing), and the target's file then writes from offset 0 and
// trims to what was written on Close, as RocksDB expects of a WAL.
IOStatus PreallocFileSystem::NewWritableFile(const std::string &fname,
                                             const FileOptions &file_opts,
                                             std::unique_ptr<FSWritableFile> *result,
                                             IODebugContext *dbg) {
  const size_t slash = fname.rfind('/');
  const std::string base = slash == std::string::npos ? fname : fname.substr(slash + 1);
  if (!IsWalName(base)) return target()->NewWritableFile(fname, file_opts, result, dbg);

  const std::string dir = slash == std::string::npos ? "." : fname.substr(0, slash);
  uint64_t segment_size = 0;
  IOStatus s;
  if (pools.Take(dir, base) == 0) {
    s = target()->ReuseWritableFile(fname, fname, file_opts, result, dbg);
    if (s.ok()) segment_size = pools.SegmentSize(dir);
  }
  if (segment_size == 0) {
    s = target()->NewWritableFile(fname, file_opts, result, dbg);
    fallbacks++;
  } else {
    pool_wals++;
  }
  if (s.ok()) result->reset(new WalFile(std::move(*result), this, dir, segment_size));
  return s;
}

void PreallocFileSystem::GetStats(Stats *st) {
  *st = Stats{};
  st->pool_wals = pool_wals;
  st->fallbacks = fallbacks;
  st->outgrown = outgrown;
  pools.AddStats(st);
}

}  // namespace prealloc_rocksdb
