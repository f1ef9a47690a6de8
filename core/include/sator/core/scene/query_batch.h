// A batch of scene queries run on several threads.
//
// The queries of a batch run against one snapshot, so they all see the same
// tick, and each query is a pure function of the snapshot and its input:
// results are identical to running the batch in order on one thread, in the
// same order as the input, whatever the thread count. The threads are a
// BatchWorkers set, started once and shared by every batch.
#ifndef SATOR_CORE_SCENE_QUERY_BATCH_H_
#define SATOR_CORE_SCENE_QUERY_BATCH_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "sator/core/scene/batch_workers.h"
#include "sator/core/scene/scene.h"

namespace sator::scene {

// Runs `queries` on the calling thread and on the idle helpers of `workers`
// (none: the calling thread alone). Threads take queries in chunks from a
// shared counter, so long and short queries balance. The answer holds one
// result per query, in order; a query's error is its own result.
template <int D>
std::vector<absl::StatusOr<QueryResult<D>>> RunQueryBatch(
    const SceneSnapshot<D>& snapshot, absl::Span<const SceneQuery<D>> queries,
    BatchWorkers* workers = nullptr);

extern template std::vector<absl::StatusOr<QueryResult<2>>> RunQueryBatch<2>(
    const SceneSnapshot<2>&, absl::Span<const SceneQuery<2>>, BatchWorkers*);
extern template std::vector<absl::StatusOr<QueryResult<3>>> RunQueryBatch<3>(
    const SceneSnapshot<3>&, absl::Span<const SceneQuery<3>>, BatchWorkers*);

}  // namespace sator::scene

#endif  // SATOR_CORE_SCENE_QUERY_BATCH_H_
