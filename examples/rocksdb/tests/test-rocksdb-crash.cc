// SPDX-License-Identifier: MIT
//
// RocksDB through libprealloc-rocksdb.so, crashed: a writer process puts
// keys with sync=true and publishes each acknowledged one in shared memory;
// it is killed with SIGKILL at random moments, at a WAL switch (inside the
// FileSystem's NewWritableFile, before and after the pool hands the segment
// out), or its filesystem is shut down without flushing its log (a power-cut
// stand-in).  Every acknowledged key must then be there, and the database
// must open without a corruption error in kAbsoluteConsistency,
// kTolerateCorruptedTailRecords and the default kPointInTimeRecovery; ldb and
// sst_dump must read it.  Also: a WAL outgrowing its segment, and a pool that
// runs dry (RocksDB's own WAL, counted).  RocksDB runs only in forked
// children: its thread pools do not survive a fork.
//
// PREALLOC_TEST_SEED=N replays a run; ROCKSDB_CRASH_ROUNDS=N runs longer.
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <rocksdb/convenience.h>
#include <rocksdb/options.h>

#include <prealloc-pool.h>

#include "prealloc-rocksdb.h"
extern "C" {
#include "tfs.h"
}

#define CHECK(c)                                                                  \
  do {                                                                            \
    if (!(c)) {                                                                   \
      fprintf(stderr, "%s:%d: check failed: %s (seed %u)\n", __FILE__, __LINE__, \
              #c, seed0);                                                          \
      exit(1);                                                                    \
    }                                                                             \
  } while (0)

namespace {

using rocksdb::WALRecoveryMode;

#define FS_IOC_SHUTDOWN_ _IOR('X', 125, uint32_t)
constexpr uint32_t kShutdownNoLogFlush = 2;
constexpr uint64_t kValueBytes = 1000;

unsigned int seed, seed0;  // seed0: as given, for the replay
const char *fstype;
struct tfs fs;
std::string db;

// What the writer publishes; in shared memory, so it survives the writer.
struct Shared {
  volatile uint64_t acked;  // keys 0..acked-1 were acknowledged
  prealloc_rocksdb::Stats stats;
};
Shared *sh;
int ack_pipe[2] = {-1, -1};  // the writer writes a byte per acknowledged key

std::string Key(uint64_t i) {
  char k[24];
  snprintf(k, sizeof(k), "key%012llu", (unsigned long long)i);
  return k;
}

std::string Value(uint64_t i) { return std::string(kValueBytes, 'a' + i % 26) + Key(i); }

// Kills the process at the Nth WAL creation, before or after the plugin
// made the file: a crash in the middle of a WAL switch.
class KillAtWal : public rocksdb::FileSystemWrapper {
 public:
  KillAtWal(const std::shared_ptr<FileSystem> &t, int nth, bool after)
      : FileSystemWrapper(t), left_(nth), after_(after) {}
  const char *Name() const override { return "KillAtWal"; }
  rocksdb::IOStatus NewWritableFile(const std::string &f, const rocksdb::FileOptions &o,
                                    std::unique_ptr<rocksdb::FSWritableFile> *r,
                                    rocksdb::IODebugContext *dbg) override {
    const bool wal = f.size() > 4 && f.compare(f.size() - 4, 4, ".log") == 0;
    if (wal && --left_ == 0 && !after_) raise(SIGKILL);
    rocksdb::IOStatus s = target()->NewWritableFile(f, o, r, dbg);
    if (wal && left_ == 0) raise(SIGKILL);
    return s;
  }

 private:
  int left_;
  bool after_;
};

std::shared_ptr<rocksdb::FileSystem> PluginFs(const std::string &uri) {
  std::shared_ptr<rocksdb::FileSystem> f;
  rocksdb::ConfigOptions co;
  rocksdb::Status s = rocksdb::FileSystem::CreateFromString(co, uri, &f);
  if (!s.ok()) {
    fprintf(stderr, "%s: %s\n", uri.c_str(), s.ToString().c_str());
    _exit(3);
  }
  return f;
}

rocksdb::Options DbOptions(rocksdb::Env *env, size_t write_buffer) {
  rocksdb::Options o;
  o.create_if_missing = true;
  o.env = env;
  o.write_buffer_size = write_buffer;
  return o;
}

// The writer: continues from sh->acked until @limit keys, in a child.
[[noreturn]] void Writer(const std::string &uri, size_t write_buffer, uint64_t limit,
                         int kill_at_wal, bool after) {
  std::shared_ptr<rocksdb::FileSystem> f = PluginFs(uri);
  std::shared_ptr<rocksdb::FileSystem> plugin = f;
  if (kill_at_wal) f = std::make_shared<KillAtWal>(f, kill_at_wal, after);
  std::unique_ptr<rocksdb::Env> env = rocksdb::NewCompositeEnv(f);
  rocksdb::DB *d;
  if (!rocksdb::DB::Open(DbOptions(env.get(), write_buffer), db, &d).ok()) _exit(2);
  rocksdb::WriteOptions wo;
  wo.sync = true;
  for (uint64_t i = sh->acked; i < limit; i++) {
    if (!d->Put(wo, Key(i), Value(i)).ok()) _exit(2);
    sh->acked = i + 1;
    (void)!write(ack_pipe[1], "", 1);  // non-blocking: a full pipe is fine
  }
  delete d;
  prealloc_rocksdb::GetStats(plugin.get(), &sh->stats);
  _exit(0);
}

// Opens the database in @mode (read-only unless @mode is the default, which
// recovers for the next writer) and checks every acknowledged key.
[[noreturn]] void Verify(WALRecoveryMode mode) {
  std::unique_ptr<rocksdb::Env> env = rocksdb::NewCompositeEnv(PluginFs("prealloc"));
  rocksdb::Options o = DbOptions(env.get(), 64 << 10);
  o.create_if_missing = false;
  o.wal_recovery_mode = mode;
  rocksdb::DB *d;
  rocksdb::Status s = mode == WALRecoveryMode::kPointInTimeRecovery
                          ? rocksdb::DB::Open(o, db, &d)
                          : rocksdb::DB::OpenForReadOnly(o, db, &d);
  if (!s.ok()) {
    fprintf(stderr, "open (recovery mode %d): %s\n", (int)mode, s.ToString().c_str());
    _exit(1);
  }
  std::string v;
  for (uint64_t i = 0; i < sh->acked; i++) {
    if (!d->Get(rocksdb::ReadOptions(), Key(i), &v).ok() || v != Value(i)) {
      fprintf(stderr, "acknowledged %s lost (recovery mode %d)\n", Key(i).c_str(), (int)mode);
      _exit(1);
    }
  }
  delete d;
  _exit(0);
}

int Wait(pid_t pid) {
  int st;
  CHECK(waitpid(pid, &st, 0) == pid);
  return st;
}

void CheckChild(pid_t pid) {
  int st = Wait(pid);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

void VerifyAll() {
  for (WALRecoveryMode m : {WALRecoveryMode::kAbsoluteConsistency,
                            WALRecoveryMode::kTolerateCorruptedTailRecords,
                            WALRecoveryMode::kPointInTimeRecovery}) {
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) Verify(m);
    CheckChild(pid);
  }
}

// A writer, stopped once @target keys are acknowledged (and a random spin
// later): by SIGKILL, or first by a filesystem shutdown without log flush.
//
// The killed writer's io_uring ring is torn down by a kernel worker after
// the writer is reaped, and holds its files until then; nothing tells when
// it is done, so an unmount right after may find the filesystem busy.  Ask
// again while it says EBUSY, for up to 10 s: 0 or the errno.
int Unmount(const char *dir) {
  for (int i = 0; i < 500; i++) {
    if (umount2(dir, 0) == 0) return 0;
    if (errno != EBUSY) break;
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, nullptr);
  }
  return errno;
}

void CrashRound(const std::string &uri, uint64_t target, bool power_cut) {
  CHECK(pipe2(ack_pipe, O_CLOEXEC | O_NONBLOCK) == 0);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    if (power_cut) freopen("/dev/null", "w", stderr);  // its EIO asserts
    Writer(uri, 64 << 10, ~0ull, 0, false);
  }
  close(ack_pipe[1]);
  CHECK(fcntl(ack_pipe[0], F_SETFL, 0) == 0);  // the parent blocks
  char buf[256];
  while (sh->acked < target)
    CHECK(read(ack_pipe[0], buf, sizeof(buf)) > 0);  // EOF: the writer stopped
  for (volatile unsigned int spin = rand_r(&seed) % 2000000; spin; spin--) {
  }
  if (power_cut) {
    uint32_t how = kShutdownNoLogFlush;
    int dfd = open(fs.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    CHECK(dfd >= 0);
    CHECK(ioctl(dfd, FS_IOC_SHUTDOWN_, &how) == 0);
    close(dfd);
  }
  kill(pid, SIGKILL);
  Wait(pid);
  close(ack_pipe[0]);
  ack_pipe[0] = ack_pipe[1] = -1;
  if (power_cut) {
    CHECK(Unmount(fs.dir) == 0);
    CHECK(mount(fs.dev, fs.dir, fstype, 0, nullptr) == 0);
  }
}

// A writer killed inside the Nth WAL switch, before or after the plugin.
void SwitchRound(const std::string &uri, int nth, bool after) {
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) Writer(uri, 64 << 10, ~0ull, nth, after);
  int st = Wait(pid);
  CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
}

// A clean writer run up to @limit keys; its plugin counters land in sh.
void CleanRun(const std::string &uri, size_t write_buffer, uint64_t limit) {
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) Writer(uri, write_buffer, limit, 0, false);
  CheckChild(pid);
  CHECK(sh->acked == limit);
}

// RocksDB's own tools read what the plugin left: every key, every table.
void CheckTools() {
  CHECK(tfs_sh("n=$(ldb --db=%s scan | wc -l) && [ \"$n\" -ge %llu ]", db.c_str(),
               (unsigned long long)sh->acked) == 0);
  CHECK(tfs_sh("sst_dump --file=%s --command=verify >/dev/null", db.c_str()) == 0);
}

// A crashed WAL is an untrimmed pool segment (1 MiB, a zero tail after the
// records), and ldb's dump_wal reads every WAL to its end.
void CheckCrashedWal() {
  CHECK(tfs_sh("find %s -maxdepth 1 -name '*.log' -size 1024k | grep -q .", db.c_str()) == 0);
  CHECK(tfs_sh("set -e; for w in %s/*.log; do ldb dump_wal --walfile=$w >/dev/null; done",
               db.c_str()) == 0);
}

// Fills the pool beside the WALs with @count 1 MiB segments, as an earlier
// run would have (the plugin adopts them), so that the next WAL is a
// segment whatever the load on the machine.
void WarmPool(uint32_t count) {
  const std::string dir = db + "/.libprealloc-wal";
  CHECK(mkdir(db.c_str(), 0755) == 0 || errno == EEXIST);
  CHECK(mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST);
  prealloc_pool_config cfg = {};
  cfg.size = sizeof(cfg);
  cfg.segment_size = 1 << 20;
  cfg.target = count;
  prealloc_pool *p;
  CHECK(prealloc_pool_open(dir.c_str(), &cfg, &p) == 0);
  CHECK(prealloc_pool_wait_ready(p, count, -1) == 0);
  prealloc_pool_close(p);
}

void CrashRounds(unsigned int rounds) {
  const std::string uri = "id=prealloc;segment_size=1M;ready=2";
  for (unsigned int r = 0; r < rounds; r++) {
    WarmPool(2);
    const int kind = r % 4;
    // Round 0 dies at the second WAL, the first still live: the segment
    // WarmPool left, whatever the load (a later WAL is a segment only if
    // the worker kept up), for CheckCrashedWal.
    const int nth = 2 + rand_r(&seed) % 6;  // drawn in every round: seeds replay
    if (kind < 2)
      SwitchRound(uri, r == 0 ? 2 : nth, kind == 1);
    else
      CrashRound(uri, sh->acked + 1 + rand_r(&seed) % 300, kind == 3);
    if (r == 0) CheckCrashedWal();
    VerifyAll();
  }
}

// One WAL of 8 MiB memtable against 1 MiB segments: the WAL outgrows its
// segment and goes on growing RocksDB's way.
void Outgrow() {
  WarmPool(1);
  CleanRun("id=prealloc;segment_size=1M", 8 << 20, sh->acked + 3000);
  CHECK(sh->stats.pool_wals >= 1);
  CHECK(sh->stats.outgrown >= 1);
  VerifyAll();
}

// A pool that makes 1 MiB at 64 KiB/s cannot keep up with a WAL switch per
// 64 writes: the WALs it has no segment for are RocksDB's own, counted.
void PoolRunsDry() {
  CleanRun("id=prealloc;segment_size=1M;ready=1;max_rate=64K", 64 << 10, sh->acked + 1000);
  CHECK(sh->stats.fallbacks >= 1);
  VerifyAll();
}

// The first WAL of a run with no segment size given teaches it (RocksDB's
// preallocation block) and is RocksDB's own; later ones are segments once
// the worker has one ready (in this run, or adopted from an earlier one).
void LearnedSize() {
  for (int run = 0; run < 20; run++) {
    CleanRun("prealloc", 256 << 10, sh->acked + 500);
    CHECK(sh->stats.fallbacks >= 1);
    if (sh->stats.pool_wals >= 1) break;
  }
  CHECK(sh->stats.pool_wals >= 1);
  VerifyAll();
}

void RunOn(const char *type, unsigned int rounds) {
  fstype = type;
  CHECK(tfs_create(&fs, type, 512, nullptr) == 0);
  db = std::string(fs.dir) + "/db";
  sh->acked = 0;
  LearnedSize();
  CrashRounds(rounds);
  Outgrow();
  PoolRunsDry();
  CheckTools();
  printf("%s: %llu keys acknowledged, all present after %u crashes\n", type,
         (unsigned long long)sh->acked, rounds);
  tfs_destroy(&fs);
}

}  // namespace

int main() {
  tfs_enter();
  const char *env = getenv("PREALLOC_TEST_SEED");
  seed = env ? (unsigned int)strtoul(env, nullptr, 0) : (unsigned int)time(nullptr);
  env = getenv("ROCKSDB_CRASH_ROUNDS");
  const unsigned int rounds = env ? (unsigned int)strtoul(env, nullptr, 0) : 8;
  if (system("ldb --version >/dev/null 2>&1 && command -v sst_dump >/dev/null") != 0) {
    printf("ldb and sst_dump not installed (apt-get install rocksdb-tools): skipped\n");
    return TFS_SKIP;
  }
  seed0 = seed;
  printf("seed %u\n", seed);
  sh = static_cast<Shared *>(
      mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  CHECK(sh != MAP_FAILED);
  for (const char *type : {"ext4", "xfs"}) {
    if (tfs_supported(type)) RunOn(type, rounds);
  }
  return 0;
}
