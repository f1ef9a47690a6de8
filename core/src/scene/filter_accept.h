// The QueryFilter test of one body record, shared by the queries and the
// proximity pass (see QueryFilter in sator/core/scene/scene_types.h).
#ifndef SATOR_CORE_SRC_SCENE_FILTER_ACCEPT_H_
#define SATOR_CORE_SRC_SCENE_FILTER_ACCEPT_H_

#include "sator/core/scene/scene_types.h"
#include "scene/snapshot_data.h"

namespace sator::scene::internal {

template <int D>
bool FilterAccepts(const QueryFilter& filter, const BodyRecord<D>& record) {
  if ((record.layer & filter.mask) == 0) return false;
  if (filter.two_way && (filter.layer & record.mask) == 0) return false;
  if (filter.motion == MotionSelection::kStaticOnly &&
      record.motion != MotionType::kStatic) {
    return false;
  }
  if (filter.motion == MotionSelection::kDynamicOnly &&
      record.motion != MotionType::kDynamic) {
    return false;
  }
  if (record.group_id != 0 &&
      filter.excluded_groups.Contains(record.group_id)) {
    return false;
  }
  // Sorted once when the set was made (ExcludedIds), however many queries
  // share it.
  return !filter.excluded_ids.Contains(record.id);
}

}  // namespace sator::scene::internal

#endif  // SATOR_CORE_SRC_SCENE_FILTER_ACCEPT_H_
