// Write-ahead-log appends: each returns once its record is on disk, so the
// cost is the disk's fdatasync latency; with concurrent appenders, group
// commit shares one fdatasync among the records of a batch
// (records_per_sync). Real time, in a temporary directory on the machine's
// disk.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "server/durability/wal_writer.h"

namespace sator::server::durability {
namespace {

std::unique_ptr<WalWriter> shared_wal;
std::string shared_dir;

void BM_WalAppend(benchmark::State& state) {
  if (state.thread_index() == 0) {
    const char* base = std::getenv("TMPDIR");
    shared_dir = absl::StrCat(base != nullptr ? base : "/tmp",
                              "/sator_wal_bench_XXXXXX");
    if (mkdtemp(shared_dir.data()) == nullptr) {
      state.SkipWithError("mkdtemp failed");
    }
    absl::StatusOr<std::unique_ptr<WalWriter>> wal =
        WalWriter::Open(shared_dir, 1);
    if (!wal.ok()) state.SkipWithError("cannot open the log");
    shared_wal = wal.ok() ? *std::move(wal) : nullptr;
  }
  const std::string payload(static_cast<std::size_t>(state.range(0)), 'x');
  // The loop's start and end are barriers for all threads, so thread 0's
  // setup and teardown do not race with the appends.
  for (auto _ : state) {
    if (shared_wal != nullptr) {
      absl::StatusOr<std::uint64_t> lsn =
          shared_wal->Append(RecordType::kUpsertBodies, payload);
      benchmark::DoNotOptimize(lsn);
    }
  }
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() == 0 && shared_wal != nullptr) {
    state.counters["records_per_sync"] =
        static_cast<double>(shared_wal->records_written()) /
        static_cast<double>(shared_wal->syncs());
    shared_wal.reset();
    std::filesystem::remove_all(shared_dir);
  }
}
BENCHMARK(BM_WalAppend)
    ->Name("WalAppend/sator")
    ->Arg(100)
    ->Threads(1)
    ->Threads(4)
    ->Threads(16)
    ->UseRealTime();

}  // namespace
}  // namespace sator::server::durability

BENCHMARK_MAIN();
