// Convex hulls by quickhull.
//
// Barber, Dobkin and Huhdanpaa, "The Quickhull Algorithm for Convex Hulls",
// ACM TOMS 22(4), 1996; Gregorius, "Implementing Quickhull", GDC 2014.
//
//   1. Build a tetrahedron from extreme points (refuse the input when the
//      points are coincident, collinear or coplanar within the tolerance).
//   2. Give every other point to the one face it lies farthest in front of
//      (its conflict list); points behind every face are interior.
//   3. While some face has a conflict list: take its farthest point (the
//      eye), grow the set of faces the eye sees from that face across
//      neighbours (connected, so the horizon is one loop), replace them by a
//      fan of triangles from the horizon edges to the eye, and hand their
//      points to the new faces.
//   4. Merge adjacent triangles that lie in one plane (within the
//      tolerance, measured against the first triangle's plane so that a
//      gently curved surface is never merged into one face), and extract
//      each face's boundary loop.
// The construction runs in double; the tolerance is relative to the size of
// the input (kHullTolerance times the sum of the largest coordinate
// magnitudes), in the spirit of Gregorius's 3 * eps * (|x| + |y| + |z|).
#include "sator/core/collide3d/convex_hull.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "collide3d/double_vec3.h"
#include "collide3d/hull_sat.h"

namespace sator {
namespace {

constexpr double kHullTolerance = 1e-6;

using internal::D3;
using internal::ToD3;

struct Tri {
  std::array<int, 3> v;
  D3 n;
  double d = 0;
  std::vector<int> outside;
  bool alive = true;
};

double Dist(const Tri& t, D3 p) { return Dot(t.n, p) - t.d; }

// The initial simplex: the farthest pair among the axis-extreme points, the
// point farthest from their line, the point farthest from the plane of the
// three. Refuses the input (naming it `what`) when the points are all
// coincident, collinear or coplanar within `eps`: a hull needs volume. Both
// factories call it, so MakeConvexHullFromFaces refuses a flat polytope
// exactly when MakeConvexHull refuses the same points.
absl::Status FindSimplex(const std::vector<D3>& p, double eps,
                         absl::string_view what, std::array<int, 4>* simplex) {
  const int n = static_cast<int>(p.size());
  // Extreme points along the axes; the farthest pair starts the simplex.
  std::array<int, 6> ext{};
  for (int i = 0; i < n; ++i) {
    if (p[i].x < p[ext[0]].x) ext[0] = i;
    if (p[i].x > p[ext[1]].x) ext[1] = i;
    if (p[i].y < p[ext[2]].y) ext[2] = i;
    if (p[i].y > p[ext[3]].y) ext[3] = i;
    if (p[i].z < p[ext[4]].z) ext[4] = i;
    if (p[i].z > p[ext[5]].z) ext[5] = i;
  }
  int i0 = 0;
  int i1 = 0;
  double best = -1;
  for (int a = 0; a < 6; ++a) {
    for (int b = a + 1; b < 6; ++b) {
      const double d = Len(p[ext[a]] - p[ext[b]]);
      if (d > best) {
        best = d;
        i0 = ext[a];
        i1 = ext[b];
      }
    }
  }
  if (best <= eps) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s are all coincident (within tolerance)", what));
  }
  const D3 dir = (1.0 / best) * (p[i1] - p[i0]);
  int i2 = -1;
  best = eps;
  for (int i = 0; i < n; ++i) {
    const double d = Len(Cross(p[i] - p[i0], dir));
    if (d > best) {
      best = d;
      i2 = i;
    }
  }
  if (i2 < 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s are all collinear (within tolerance)", what));
  }
  const D3 plane_n = Cross(p[i1] - p[i0], p[i2] - p[i0]);
  const D3 unit_n = (1.0 / Len(plane_n)) * plane_n;
  int i3 = -1;
  best = eps;
  for (int i = 0; i < n; ++i) {
    const double d = std::fabs(Dot(p[i] - p[i0], unit_n));
    if (d > best) {
      best = d;
      i3 = i;
    }
  }
  if (i3 < 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s are all coplanar (within tolerance); a hull needs volume", what));
  }
  *simplex = {i0, i1, i2, i3};
  return absl::OkStatus();
}

class QuickHull {
 public:
  QuickHull(const std::vector<D3>& points, double eps)
      : p_(points), eps_(eps) {}

  absl::Status Build();
  const std::vector<Tri>& tris() const { return tris_; }
  int Neighbour(int u, int v) const {
    auto it = edge_face_.find({u, v});
    return it == edge_face_.end() ? -1 : it->second;
  }

 private:
  int AddTri(int a, int b, int c) {
    Tri t;
    t.v = {a, b, c};
    const D3 n = Cross(p_[b] - p_[a], p_[c] - p_[a]);
    const double len = Len(n);
    t.n = len > 0 ? (1.0 / len) * n : D3{};
    t.d = Dot(t.n, p_[a]);
    tris_.push_back(std::move(t));
    const int id = static_cast<int>(tris_.size()) - 1;
    edge_face_[{a, b}] = id;
    edge_face_[{b, c}] = id;
    edge_face_[{c, a}] = id;
    return id;
  }
  void Assign(int point, const std::vector<int>& faces) {
    double best = eps_;
    int best_face = -1;
    for (int f : faces) {
      const double d = Dist(tris_[f], p_[point]);
      if (d > best) {
        best = d;
        best_face = f;
      }
    }
    if (best_face >= 0) tris_[best_face].outside.push_back(point);
  }
  void AddPoint(int face);

  const std::vector<D3>& p_;
  double eps_;
  std::vector<Tri> tris_;
  std::map<std::pair<int, int>, int> edge_face_;
};

absl::Status QuickHull::Build() {
  std::array<int, 4> simplex{};
  if (absl::Status s = FindSimplex(p_, eps_, "convex hull points", &simplex);
      !s.ok()) {
    return s;
  }
  int i0 = simplex[0];
  int i1 = simplex[1];
  int i2 = simplex[2];
  const int i3 = simplex[3];
  const int n = static_cast<int>(p_.size());
  // Orient the tetrahedron so every face looks outward.
  if (Dot(p_[i3] - p_[i0], Cross(p_[i1] - p_[i0], p_[i2] - p_[i0])) > 0) {
    std::swap(i1, i2);
  }
  std::vector<int> faces = {AddTri(i0, i1, i2), AddTri(i0, i3, i1),
                            AddTri(i1, i3, i2), AddTri(i2, i3, i0)};
  for (int i = 0; i < n; ++i) {
    if (i == i0 || i == i1 || i == i2 || i == i3) continue;
    Assign(i, faces);
  }
  bool added = true;
  while (added) {
    added = false;
    for (size_t f = 0; f < tris_.size(); ++f) {
      if (tris_[f].alive && !tris_[f].outside.empty()) {
        AddPoint(static_cast<int>(f));
        added = true;
      }
    }
  }
  return absl::OkStatus();
}

void QuickHull::AddPoint(int face) {
  // The eye: the farthest conflict point of `face`.
  int eye = -1;
  double far = -1;
  for (int q : tris_[face].outside) {
    const double d = Dist(tris_[face], p_[q]);
    if (d > far) {
      far = d;
      eye = q;
    }
  }
  const D3 e = p_[eye];
  // Faces visible from the eye, connected through shared edges.
  std::vector<int> visible = {face};
  std::vector<char> seen(tris_.size(), 0);
  seen[face] = 1;
  for (size_t k = 0; k < visible.size(); ++k) {
    const Tri& t = tris_[visible[k]];
    for (int j = 0; j < 3; ++j) {
      const int g = Neighbour(t.v[(j + 1) % 3], t.v[j]);
      if (g < 0 || seen[g]) continue;
      seen[g] = 1;
      if (Dist(tris_[g], e) > eps_) visible.push_back(g);
    }
  }
  std::vector<char> is_visible(tris_.size(), 0);
  for (int f : visible) is_visible[f] = 1;
  // Horizon: edges of visible faces whose twin face is not visible.
  std::vector<std::pair<int, int>> horizon;
  for (int f : visible) {
    const Tri& t = tris_[f];
    for (int j = 0; j < 3; ++j) {
      const int u = t.v[j];
      const int v = t.v[(j + 1) % 3];
      const int g = Neighbour(v, u);
      if (g < 0 || !is_visible[g]) horizon.emplace_back(u, v);
    }
  }
  std::vector<int> orphans;
  for (int f : visible) {
    Tri& t = tris_[f];
    t.alive = false;
    for (int j = 0; j < 3; ++j) {
      auto it = edge_face_.find({t.v[j], t.v[(j + 1) % 3]});
      if (it != edge_face_.end() && it->second == f) edge_face_.erase(it);
    }
    for (int q : t.outside) {
      if (q != eye) orphans.push_back(q);
    }
    t.outside.clear();
  }
  std::vector<int> created;
  created.reserve(horizon.size());
  for (const auto& [u, v] : horizon) created.push_back(AddTri(u, v, eye));
  for (int q : orphans) Assign(q, created);
}

// Collapses coplanar triangles into polygon faces: a flood fill from a seed
// triangle accepts a neighbour when all its vertices lie within eps of the
// seed's plane.
struct PolyFace {
  std::vector<int> loop;  // Input point indices, counter-clockwise.
};

absl::StatusOr<std::vector<PolyFace>> MergeFaces(const QuickHull& qh,
                                                 const std::vector<D3>& p,
                                                 double eps) {
  const std::vector<Tri>& tris = qh.tris();
  std::vector<int> group(tris.size(), -1);
  std::vector<PolyFace> faces;
  for (size_t seed = 0; seed < tris.size(); ++seed) {
    if (!tris[seed].alive || group[seed] >= 0) continue;
    const int g = static_cast<int>(faces.size());
    faces.emplace_back();
    std::vector<int> members = {static_cast<int>(seed)};
    group[seed] = g;
    for (size_t k = 0; k < members.size(); ++k) {
      const Tri& t = tris[members[k]];
      for (int j = 0; j < 3; ++j) {
        const int nb = qh.Neighbour(t.v[(j + 1) % 3], t.v[j]);
        if (nb < 0 || group[nb] >= 0) continue;
        bool coplanar = true;
        for (int vtx : tris[nb].v) {
          if (std::fabs(Dist(tris[seed], p[vtx])) > eps) coplanar = false;
        }
        if (coplanar) {
          group[nb] = g;
          members.push_back(nb);
        }
      }
    }
    // Boundary: directed edges whose twin belongs to another group.
    std::map<int, int> next;
    for (int m : members) {
      const Tri& t = tris[m];
      for (int j = 0; j < 3; ++j) {
        const int u = t.v[j];
        const int v = t.v[(j + 1) % 3];
        const int nb = qh.Neighbour(v, u);
        if (nb < 0 || group[nb] != g) {
          if (next.count(u)) {
            return absl::InternalError(
                "convex hull construction failed: a merged face is not a "
                "disk (numerically degenerate input)");
          }
          next[u] = v;
        }
      }
    }
    if (next.empty()) {
      return absl::InternalError("convex hull construction failed");
    }
    const int start = next.begin()->first;
    int cur = start;
    do {
      faces[g].loop.push_back(cur);
      auto it = next.find(cur);
      if (it == next.end() || faces[g].loop.size() > next.size()) {
        return absl::InternalError(
            "convex hull construction failed: a face boundary is not one "
            "loop (numerically degenerate input)");
      }
      cur = it->second;
    } while (cur != start);
    if (faces[g].loop.size() != next.size()) {
      return absl::InternalError(
          "convex hull construction failed: a face boundary is not one "
          "loop (numerically degenerate input)");
    }
  }
  return faces;
}

// Builds the ConvexHull record from polygon faces over `points` (indices into
// points; unused points dropped, the others kept in order) and checks it:
// closed 2-manifold, Euler's formula, every vertex behind every face plane,
// faces convex.
absl::StatusOr<std::shared_ptr<const ConvexHull>> Finish(
    absl::Span<const Vec3> points, const std::vector<std::vector<int>>& loops,
    double tol, bool refuse_coplanar_neighbours) {
  auto hull = std::make_shared<ConvexHull>();
  // The vertices keep their input order (unused points dropped), so a hull
  // rebuilt from its own vertices numbers them the same way: a hull sent
  // back to a client and converted again is the same hull.
  std::vector<int> remap(points.size(), -1);
  for (const auto& loop : loops) {
    for (int v : loop) remap[v] = 0;
  }
  for (size_t i = 0; i < points.size(); ++i) {
    if (remap[i] < 0) continue;
    remap[i] = static_cast<int>(hull->vertices.size());
    hull->vertices.push_back(points[i]);
  }
  const int vertex_count = static_cast<int>(hull->vertices.size());
  if (vertex_count > kMaxHullVertices) {
    return absl::InvalidArgumentError(
        absl::StrFormat("convex hull has %d vertices; at most %d are allowed",
                        vertex_count, kMaxHullVertices));
  }
  std::vector<D3> v(vertex_count);
  D3 centroid;
  for (int i = 0; i < vertex_count; ++i) {
    v[i] = ToD3(hull->vertices[i]);
    centroid = centroid + v[i];
  }
  centroid = (1.0 / vertex_count) * centroid;
  hull->centroid = {static_cast<float>(centroid.x),
                    static_cast<float>(centroid.y),
                    static_cast<float>(centroid.z)};
  std::map<std::pair<int, int>, int> edge_face;
  std::vector<D3> normals;
  for (size_t f = 0; f < loops.size(); ++f) {
    const std::vector<int>& loop = loops[f];
    // Newell's method: the area-weighted normal of a planar polygon.
    D3 n;
    D3 mean;
    for (size_t i = 0; i < loop.size(); ++i) {
      const D3 a = v[remap[loop[i]]];
      const D3 b = v[remap[loop[(i + 1) % loop.size()]]];
      n = n + Cross(a, b);
      mean = mean + a;
    }
    const double len = Len(n);
    if (!(len > 0)) {
      return absl::InvalidArgumentError(
          absl::StrFormat("face %d has zero area", f));
    }
    n = (1.0 / len) * n;
    mean = (1.0 / static_cast<double>(loop.size())) * mean;
    double offset = -1e300;
    for (size_t i = 0; i < loop.size(); ++i) {
      const D3 a = v[remap[loop[i]]];
      if (std::fabs(Dot(n, a - mean)) > tol) {
        return absl::InvalidArgumentError(
            absl::StrFormat("face %d is not planar", f));
      }
      offset = std::max(offset, Dot(n, a));
      // Convex polygon: every turn is to the left about n.
      const D3 b = v[remap[loop[(i + 1) % loop.size()]]];
      const D3 c = v[remap[loop[(i + 2) % loop.size()]]];
      if (Dot(Cross(b - a, c - b), n) < -tol * Len(b - a)) {
        return absl::InvalidArgumentError(
            absl::StrFormat("face %d is not a convex polygon", f));
      }
    }
    for (int i = 0; i < vertex_count; ++i) {
      if (Dot(n, v[i]) - offset > tol) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "vertex %d lies in front of face %d: the polytope is not convex "
            "or the face is not counter-clockwise seen from outside",
            i, f));
      }
    }
    normals.push_back(n);
    ConvexHull::Face face;
    face.normal = {static_cast<float>(n.x), static_cast<float>(n.y),
                   static_cast<float>(n.z)};
    face.normal = NormalizeOrZero(face.normal);
    face.offset = static_cast<float>(offset);
    face.first_index =
        static_cast<std::uint16_t>(hull->face_vertex_indices.size());
    face.vertex_count = static_cast<std::uint16_t>(loop.size());
    for (int idx : loop) {
      hull->face_vertex_indices.push_back(
          static_cast<std::uint16_t>(remap[idx]));
    }
    hull->faces.push_back(face);
    for (size_t i = 0; i < loop.size(); ++i) {
      const int a = remap[loop[i]];
      const int b = remap[loop[(i + 1) % loop.size()]];
      if (!edge_face.emplace(std::make_pair(a, b), static_cast<int>(f))
               .second) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "edge (%d, %d) is used twice in the same direction: faces are "
            "not consistently oriented or the surface is not manifold",
            a, b));
      }
    }
  }
  for (const auto& [key, f] : edge_face) {
    auto twin = edge_face.find({key.second, key.first});
    if (twin == edge_face.end()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "edge (%d, %d) has only one face: the polytope is not closed",
          key.first, key.second));
    }
    if (key.first < key.second) {
      if (refuse_coplanar_neighbours &&
          Dot(normals[f], normals[twin->second]) > 1.0 - 1e-9) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "faces %d and %d are adjacent and coplanar; merge them", f,
            twin->second));
      }
      hull->edges.push_back({static_cast<std::uint16_t>(key.first),
                             static_cast<std::uint16_t>(key.second),
                             static_cast<std::uint16_t>(f),
                             static_cast<std::uint16_t>(twin->second)});
    }
  }
  const int euler = vertex_count - static_cast<int>(hull->edges.size()) +
                    static_cast<int>(hull->faces.size());
  if (euler != 2) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "V - E + F = %d, not 2: the faces do not bound one convex polytope",
        euler));
  }
  // Vertex -> incident edges (compressed rows), for the hull SAT's walks
  // over the Gauss map (hull_sat.cc).
  hull->vertex_edge_first.assign(static_cast<size_t>(vertex_count) + 1, 0);
  for (const ConvexHull::Edge& e : hull->edges) {
    ++hull->vertex_edge_first[e.a + 1u];
    ++hull->vertex_edge_first[e.b + 1u];
  }
  for (int k = 0; k < vertex_count; ++k) {
    hull->vertex_edge_first[k + 1] += hull->vertex_edge_first[k];
  }
  hull->vertex_edges.resize(2 * hull->edges.size());
  std::vector<std::uint16_t> fill(hull->vertex_edge_first.begin(),
                                  hull->vertex_edge_first.end() - 1);
  for (size_t j = 0; j < hull->edges.size(); ++j) {
    const ConvexHull::Edge& e = hull->edges[j];
    hull->vertex_edges[fill[e.a]++] = static_cast<std::uint16_t>(j);
    hull->vertex_edges[fill[e.b]++] = static_cast<std::uint16_t>(j);
  }
  // The structure-of-arrays layout for the SIMD face queries.
  hull->soa.resize(static_cast<size_t>(
      internal::HullSoaSize(vertex_count, static_cast<int>(hull->faces.size()),
                            static_cast<int>(hull->edges.size()))));
  internal::FillHullSoa(*hull, hull->soa.data(), /*inscribed_ball=*/true);
  return std::shared_ptr<const ConvexHull>(std::move(hull));
}

double Tolerance(absl::Span<const Vec3> points) {
  double mx = 0;
  double my = 0;
  double mz = 0;
  for (const Vec3& p : points) {
    mx = std::max(mx, std::fabs(static_cast<double>(p.x)));
    my = std::max(my, std::fabs(static_cast<double>(p.y)));
    mz = std::max(mz, std::fabs(static_cast<double>(p.z)));
  }
  return kHullTolerance * (mx + my + mz);
}

absl::Status CheckFinite(absl::Span<const Vec3> points) {
  for (size_t i = 0; i < points.size(); ++i) {
    if (!IsFinite(points[i])) {
      return absl::InvalidArgumentError(
          absl::StrFormat("point %d is not finite", i));
    }
  }
  return absl::OkStatus();
}

// Every coordinate within kMaxShapeCoordinate3 in magnitude (`what` names the
// inputs: "point" or "vertex").
absl::Status CheckRange(absl::Span<const Vec3> points, const char* what) {
  for (size_t i = 0; i < points.size(); ++i) {
    const float c[3] = {points[i].x, points[i].y, points[i].z};
    for (int k = 0; k < 3; ++k) {
      if (std::fabs(c[k]) > kMaxShapeCoordinate3) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s %d coordinate %c %.9g is beyond %g in magnitude "
            "(kMaxShapeCoordinate3)",
            what, i, "xyz"[k], c[k], kMaxShapeCoordinate3));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::shared_ptr<const ConvexHull>> MakeConvexHull(
    absl::Span<const Vec3> points) {
  if (points.size() < 4) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "a convex hull needs at least 4 points; got %d", points.size()));
  }
  if (absl::Status s = CheckFinite(points); !s.ok()) return s;
  if (absl::Status s = CheckRange(points, "point"); !s.ok()) return s;
  std::vector<D3> p(points.size());
  for (size_t i = 0; i < points.size(); ++i) p[i] = ToD3(points[i]);
  const double eps = Tolerance(points);
  QuickHull qh(p, eps);
  if (absl::Status s = qh.Build(); !s.ok()) return s;
  absl::StatusOr<std::vector<PolyFace>> faces = MergeFaces(qh, p, eps);
  if (!faces.ok()) return faces.status();
  std::vector<std::vector<int>> loops;
  loops.reserve(faces->size());
  for (PolyFace& f : *faces) loops.push_back(std::move(f.loop));
  // The merge tolerance is eps per face; allow a little more when checking.
  return Finish(points, loops, 4.0 * eps, /*refuse_coplanar_neighbours=*/false);
}

absl::StatusOr<std::shared_ptr<const ConvexHull>> MakeConvexHullFromFaces(
    absl::Span<const Vec3> vertices, absl::Span<const std::vector<int>> faces) {
  if (vertices.size() < 4) {
    return absl::InvalidArgumentError(
        absl::StrFormat("a convex polytope needs at least 4 vertices; got %d",
                        vertices.size()));
  }
  if (vertices.size() > static_cast<size_t>(kMaxHullVertices)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("convex hull has %d vertices; at most %d are allowed",
                        vertices.size(), kMaxHullVertices));
  }
  if (absl::Status s = CheckFinite(vertices); !s.ok()) return s;
  if (absl::Status s = CheckRange(vertices, "vertex"); !s.ok()) return s;
  if (faces.size() < 4) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "a convex polytope needs at least 4 faces; got %d", faces.size()));
  }
  std::vector<char> used(vertices.size(), 0);
  std::vector<std::vector<int>> loops;
  for (size_t f = 0; f < faces.size(); ++f) {
    if (faces[f].size() < 3) {
      return absl::InvalidArgumentError(
          absl::StrFormat("face %d has fewer than 3 vertices", f));
    }
    for (size_t i = 0; i < faces[f].size(); ++i) {
      const int idx = faces[f][i];
      if (idx < 0 || static_cast<size_t>(idx) >= vertices.size()) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "face %d has vertex index %d out of range", f, idx));
      }
      for (size_t k = 0; k < i; ++k) {
        if (faces[f][k] == idx) {
          return absl::InvalidArgumentError(
              absl::StrFormat("face %d repeats vertex %d", f, idx));
        }
      }
      used[idx] = 1;
    }
    loops.push_back(faces[f]);
  }
  for (size_t i = 0; i < used.size(); ++i) {
    if (!used[i]) {
      return absl::InvalidArgumentError(
          absl::StrFormat("vertex %d is on no face", i));
    }
  }
  // Faces can close up around a flat set of vertices (two fans of one
  // polygon, back to back, pass every check of Finish: every vertex lies on
  // every face plane, the surface is closed, V - E + F = 2). Such a polytope
  // has no volume: refuse it with MakeConvexHull's own test and tolerance,
  // so both factories agree on which vertex sets are flat.
  std::vector<D3> p(vertices.size());
  for (size_t i = 0; i < vertices.size(); ++i) p[i] = ToD3(vertices[i]);
  std::array<int, 4> simplex{};
  if (absl::Status s = FindSimplex(p, Tolerance(vertices),
                                   "convex polytope vertices", &simplex);
      !s.ok()) {
    return s;
  }
  // Finish keeps the vertices in their given order.
  const double tol = 4.0 * Tolerance(vertices);
  return Finish(vertices, loops, tol, /*refuse_coplanar_neighbours=*/true);
}

}  // namespace sator
