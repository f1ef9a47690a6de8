// RunQueryBatch: the calling thread and the idle BatchWorkers helpers pull
// chunks of queries from an atomic counter (self-scheduling); each result
// goes to its own slot, so no two threads write the same memory and the
// output order is the input's.
#include "sator/core/scene/query_batch.h"

#include <algorithm>
#include <atomic>
#include <optional>

namespace sator::scene {
namespace {

// Queries taken per grab of the counter: small enough to balance, large
// enough that the counter is not contended.
constexpr std::size_t kChunk = 16;

}  // namespace

template <int D>
std::vector<absl::StatusOr<QueryResult<D>>> RunQueryBatch(
    const SceneSnapshot<D>& snapshot, absl::Span<const SceneQuery<D>> queries,
    BatchWorkers* workers) {
  // std::optional because StatusOr has no cheap "not yet" state worth
  // constructing N times; every slot is filled before we return.
  std::vector<std::optional<absl::StatusOr<QueryResult<D>>>> slots(
      queries.size());
  std::atomic<std::size_t> next{0};
  auto work = [&]() {
    while (true) {
      const std::size_t begin = next.fetch_add(kChunk);
      if (begin >= queries.size()) return;
      const std::size_t end = std::min(queries.size(), begin + kChunk);
      for (std::size_t i = begin; i < end; ++i) {
        slots[i].emplace(snapshot.Run(queries[i]));
      }
    }
  };
  if (workers == nullptr) {
    work();
  } else {
    const std::size_t chunks = (queries.size() + kChunk - 1) / kChunk;
    workers->Run(static_cast<int>(std::min<std::size_t>(
                     static_cast<std::size_t>(workers->helpers()),
                     chunks > 0 ? chunks - 1 : 0)),
                 work);
  }
  std::vector<absl::StatusOr<QueryResult<D>>> results;
  results.reserve(queries.size());
  for (auto& slot : slots) results.push_back(std::move(*slot));
  return results;
}

template std::vector<absl::StatusOr<QueryResult<2>>> RunQueryBatch<2>(
    const SceneSnapshot<2>&, absl::Span<const SceneQuery<2>>, BatchWorkers*);
template std::vector<absl::StatusOr<QueryResult<3>>> RunQueryBatch<3>(
    const SceneSnapshot<3>&, absl::Span<const SceneQuery<3>>, BatchWorkers*);

}  // namespace sator::scene
