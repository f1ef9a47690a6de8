// Batch parallelism for the server's batch tests: a batch of at least
// `min_queries` queries runs on `threads` threads in all, the handler's and
// threads - 1 batch workers (started once per test process).
#ifndef SATOR_TESTS_SUPPORT_BATCH_THREADS_H_
#define SATOR_TESTS_SUPPORT_BATCH_THREADS_H_

#include "sator/core/scene/batch_workers.h"
#include "server/scene_queries.h"

namespace sator::server {

inline SceneQueries::BatchParallelism BatchThreads(int threads,
                                                   int min_queries) {
  static scene::BatchWorkers one_helper(1);
  static scene::BatchWorkers two_helpers(2);
  scene::BatchWorkers* workers = nullptr;
  if (threads == 2) workers = &one_helper;
  if (threads >= 3) workers = &two_helpers;
  return {.workers = workers, .min_queries = min_queries};
}

}  // namespace sator::server

#endif  // SATOR_TESTS_SUPPORT_BATCH_THREADS_H_
