// SPDX-License-Identifier: MIT
//
// Loading the plugin (LD_PRELOAD, or linking it) registers "prealloc" in
// RocksDB's default object library, where FileSystem::CreateFromString() and
// db_bench's --fs_uri look names up.
#include <rocksdb/utilities/object_registry.h>

#include "prealloc-fs.h"

namespace {

using rocksdb::FileSystem;
using rocksdb::ObjectLibrary;

FileSystem *NewPreallocFileSystem(const std::string & /*uri*/,
                                  std::unique_ptr<FileSystem> *guard,
                                  std::string * /*errmsg*/) {
  guard->reset(new prealloc_rocksdb::PreallocFileSystem(FileSystem::Default()));
  return guard->get();
}

const bool registered = [] {
  ObjectLibrary::Default()->AddFactory<FileSystem>(
      ObjectLibrary::PatternEntry(prealloc_rocksdb::PreallocFileSystem::kClassName()),
      NewPreallocFileSystem);
  return true;
}();

}  // namespace

namespace prealloc_rocksdb {

bool GetStats(const rocksdb::FileSystem *fs, Stats *st) {
  auto *p = fs ? const_cast<rocksdb::FileSystem *>(fs)->CheckedCast<PreallocFileSystem>()
               : nullptr;
  if (!p) return false;
  p->GetStats(st);
  return true;
}

}  // namespace prealloc_rocksdb
