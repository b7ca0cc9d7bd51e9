// SPDX-License-Identifier: MIT
#include "wal-pools.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <prealloc-pool.h>

namespace prealloc_rocksdb {

namespace {
// Whole blocks for the zeroing, at little cost in space.
constexpr uint64_t kRound = 64 << 10;
}

WalPools::~WalPools() {
  for (auto &[path, d] : dirs_) {
    prealloc_pool_close(d.pool);
    if (d.fd >= 0) close(d.fd);
  }
}

// Opens @dir's pool once; a failure is remembered, and every WAL in @dir is
// then RocksDB's own.
WalPools::Dir *WalPools::OpenLocked(const std::string &dir, uint64_t segment_size) {
  Dir &d = dirs_[dir];
  if (d.pool || d.error) return &d;
  const std::string pool_dir = dir + "/" + kPoolDirName;
  if (mkdir(pool_dir.c_str(), 0700) < 0 && errno != EEXIST) {
    d.error = -errno;
    return &d;
  }
  d.fd = open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (d.fd < 0) {
    d.error = -errno;
    return &d;
  }
  prealloc_pool_config cfg = {};
  cfg.size = sizeof(cfg);
  cfg.flags = opts_->full_speed ? PREALLOC_POOL_FULL_SPEED : 0;
  cfg.segment_size = (segment_size + kRound - 1) / kRound * kRound;
  cfg.target = opts_->ready;
  cfg.mode = 0644;  // what RocksDB gives its files (allow_non_owner_access)
  cfg.max_rate = opts_->max_rate;
  int err = prealloc_pool_open(pool_dir.c_str(), &cfg, &d.pool);
  if (err < 0) {
    d.error = err;
    return &d;
  }
  d.segment_size = cfg.segment_size;
  return &d;
}

void WalPools::LearnSegmentSize(const std::string &dir, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (bytes > 0 && opts_->segment_size == 0) OpenLocked(dir, bytes);
}

uint64_t WalPools::SegmentSize(const std::string &dir) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = dirs_.find(dir);
  return it == dirs_.end() ? 0 : it->second.segment_size;
}

int WalPools::Take(const std::string &dir, const std::string &name) {
  Dir *d;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = dirs_.find(dir);
    if (opts_->segment_size > 0)
      d = OpenLocked(dir, opts_->segment_size);
    else if (it != dirs_.end())
      d = &it->second;
    else
      return -EAGAIN;
    if (!d->pool) return d->error ? d->error : -EAGAIN;
  }
  // A miss would zero a whole segment while RocksDB holds its write path:
  // RocksDB's own fallocate is cheaper then, so take only a ready one.
  prealloc_pool_stats st = {};
  st.size = sizeof(st);
  if (prealloc_pool_get_stats(d->pool, &st) < 0 || st.ready == 0) return -EAGAIN;
  int fd = prealloc_pool_take(d->pool, d->fd, name.c_str(), 0);
  if (fd < 0) return fd;
  close(fd);
  return 0;
}

void WalPools::AddStats(Stats *out) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto &[path, d] : dirs_) {
    prealloc_pool_stats st = {};
    st.size = sizeof(st);
    if (!d.pool || prealloc_pool_get_stats(d.pool, &st) < 0) continue;
    out->pool_hits += st.hits;
    out->pool_misses += st.misses;
    out->pool_created += st.created;
  }
}

}  // namespace prealloc_rocksdb
