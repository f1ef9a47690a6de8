// Read access to a SceneSnapshot's published state for the scene module's
// own readers (the proximity pass), which need the trees and tables.
#ifndef SATOR_CORE_SRC_SCENE_SNAPSHOT_ACCESS_H_
#define SATOR_CORE_SRC_SCENE_SNAPSHOT_ACCESS_H_

#include "sator/core/scene/scene.h"
#include "scene/snapshot_data.h"

namespace sator::scene::internal {

template <int D>
struct SnapshotAccess {
  // Null for a default-constructed snapshot.
  static const SnapshotData<D>* Find(const SceneSnapshot<D>& snapshot) {
    return snapshot.data_.get();
  }
};

}  // namespace sator::scene::internal

#endif  // SATOR_CORE_SRC_SCENE_SNAPSHOT_ACCESS_H_
