// The memory of the hull and mesh data a scene's bodies hold, each hull or
// mesh counted once however many bodies share it (a body's other shapes are
// held inline in its record and counted with the records).
#ifndef SATOR_CORE_SRC_SCENE_SHARED_SHAPE_BYTES_H_
#define SATOR_CORE_SRC_SCENE_SHARED_SHAPE_BYTES_H_

#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "sator/core/scene/scene_types.h"

namespace sator::scene::internal {

// The heap data behind one shape: its address (the key that tells two
// bodies share it) and its bytes. Null and 0 for a shape without any.
struct ShapeHeapData {
  const void* key = nullptr;
  std::size_t bytes = 0;
};

ShapeHeapData HeapDataOf(const Shape2& shape);
ShapeHeapData HeapDataOf(const Shape3& shape);

class SharedShapeBytes {
 public:
  // A body now holds `shape` / no longer holds it.
  template <typename Shape>
  void Add(const Shape& shape) {
    AddData(HeapDataOf(shape));
  }
  template <typename Shape>
  void Release(const Shape& shape) {
    ReleaseData(HeapDataOf(shape));
  }

  // The distinct hulls' and meshes' bytes, and the index's own.
  std::size_t bytes() const;

 private:
  void AddData(const ShapeHeapData& data);
  void ReleaseData(const ShapeHeapData& data);

  struct Entry {
    std::size_t bytes = 0;
    std::uint64_t bodies = 0;
  };
  std::unordered_map<const void*, Entry> entries_;
  std::size_t data_bytes_ = 0;
};

}  // namespace sator::scene::internal

#endif  // SATOR_CORE_SRC_SCENE_SHARED_SHAPE_BYTES_H_
