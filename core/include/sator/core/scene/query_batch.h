// A batch of scene queries run on several threads.
//
// The queries of a batch run against one snapshot, so they all see the same
// tick, and each query is a pure function of the snapshot and its input:
// results are identical to running the batch in order on one thread, in the
// same order as the input, whatever the thread count.
#ifndef SATOR_CORE_SCENE_QUERY_BATCH_H_
#define SATOR_CORE_SCENE_QUERY_BATCH_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "sator/core/scene/scene.h"

namespace sator::scene {

// Runs `queries` on `threads` threads (1 runs them on the calling thread; at
// most kMaxBatchThreads). Threads take queries in chunks from a shared
// counter, so long and short queries balance. The answer holds one result
// per query, in order; a query's error is its own result, not the batch's.
// INVALID_ARGUMENT for a thread count out of range.
template <int D>
absl::StatusOr<std::vector<absl::StatusOr<QueryResult<D>>>> RunQueryBatch(
    const SceneSnapshot<D>& snapshot, absl::Span<const SceneQuery<D>> queries,
    int threads);

inline constexpr int kMaxBatchThreads = 256;

extern template absl::StatusOr<std::vector<absl::StatusOr<QueryResult<2>>>>
RunQueryBatch<2>(const SceneSnapshot<2>&, absl::Span<const SceneQuery<2>>, int);
extern template absl::StatusOr<std::vector<absl::StatusOr<QueryResult<3>>>>
RunQueryBatch<3>(const SceneSnapshot<3>&, absl::Span<const SceneQuery<3>>, int);

}  // namespace sator::scene

#endif  // SATOR_CORE_SCENE_QUERY_BATCH_H_
