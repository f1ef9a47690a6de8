// Hull and mesh memory per scene; see shared_shape_bytes.h.
#include "scene/shared_shape_bytes.h"

#include <memory>
#include <variant>

#include "sator/core/collide2d/level2d.h"
#include "sator/core/collide3d/triangle_mesh.h"

namespace sator::scene::internal {
namespace {

template <typename T>
std::size_t VectorBytes(const std::vector<T>& values) {
  return values.capacity() * sizeof(T);
}

std::size_t HullBytes(const ConvexHull& hull) {
  return sizeof(ConvexHull) + VectorBytes(hull.vertices) +
         VectorBytes(hull.faces) + VectorBytes(hull.face_vertex_indices) +
         VectorBytes(hull.edges) + VectorBytes(hull.vertex_edge_first) +
         VectorBytes(hull.vertex_edges) + VectorBytes(hull.soa);
}

}  // namespace

ShapeHeapData HeapDataOf(const Shape2& shape) {
  if (const auto* level = std::get_if<std::shared_ptr<const Level2>>(&shape);
      level != nullptr && *level != nullptr) {
    return {level->get(), sizeof(Level2) + (*level)->MemoryBytes()};
  }
  return {};
}
ShapeHeapData HeapDataOf(const Shape3& shape) {
  if (const auto* hull = std::get_if<std::shared_ptr<const ConvexHull>>(&shape);
      hull != nullptr && *hull != nullptr) {
    return {hull->get(), HullBytes(**hull)};
  }
  if (const auto* mesh =
          std::get_if<std::shared_ptr<const TriangleMesh>>(&shape);
      mesh != nullptr && *mesh != nullptr) {
    return {mesh->get(), sizeof(TriangleMesh) + (*mesh)->MemoryBytes()};
  }
  return {};
}

}  // namespace sator::scene::internal

namespace sator::scene {

std::size_t ShapeHeapBytes(const Shape2& shape) {
  return internal::HeapDataOf(shape).bytes;
}

std::size_t ShapeHeapBytes(const Shape3& shape) {
  return internal::HeapDataOf(shape).bytes;
}

}  // namespace sator::scene

namespace sator::scene::internal {

void SharedShapeBytes::AddData(const ShapeHeapData& data) {
  if (data.key == nullptr) return;
  Entry& entry = entries_[data.key];
  if (entry.bodies++ == 0) {
    entry.bytes = data.bytes;
    data_bytes_ += data.bytes;
  }
}

void SharedShapeBytes::ReleaseData(const ShapeHeapData& data) {
  if (data.key == nullptr) return;
  auto it = entries_.find(data.key);
  if (it == entries_.end()) return;
  if (--it->second.bodies == 0) {
    data_bytes_ -= it->second.bytes;
    entries_.erase(it);
  }
}

std::size_t SharedShapeBytes::bytes() const {
  // An unordered_map node holds the key, the entry and about two pointers.
  constexpr std::size_t kNodeBytes =
      sizeof(const void*) + sizeof(Entry) + 2 * sizeof(void*);
  return data_bytes_ + entries_.size() * kNodeBytes +
         entries_.bucket_count() * sizeof(void*);
}

}  // namespace sator::scene::internal
