// Exactly degenerate inputs for every pair of convex kinds, against a
// double-precision reference written here from the definitions.
//
// Random floats are never exactly degenerate; these families are: shapes on
// a grid of quarter units (exact in float up to 1e4 and beyond), placed
// with exact or nearly exact quarter and half turns, so that coordinates
// are equal, points lie exactly on edges, faces and lines, centres
// coincide, capsules have zero length, boxes are as thin as validation
// allows, edges and faces are exactly parallel and pairs touch with a gap
// of exactly 0.
//
// The reference: every shape is a core (point, segment, triangle or
// polytope) grown by a radius. The cores' distance is the least over their
// features (points, segments, triangles) paired by exact double distances,
// 0 when a vertex of one lies inside the other; intersecting cores have the
// penetration of the SAT over the face normals of both and the crossed edge
// directions (the face normals of their Minkowski difference), measured by
// projecting both cores in double. The depth of the pair is then
// r_a + r_b - distance, or r_a + r_b + penetration.
#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "collide3d/typed3d.h"
#include "core/collide3d/double_reference3d.h"
#include "gtest/gtest.h"
#include "sator/core/collide3d/contact3d.h"
#include "sator/core/collide3d/convex_hull.h"
#include "sator/core/collide3d/overlap3d.h"
#include "sator/core/collide3d/raycast3d.h"
#include "sator/core/collide3d/shape3d.h"
#include "sator/core/collide3d/shape3d_validation.h"
#include "sator/core/collide3d/sweep3d.h"
#include "sator/core/pose.h"
#include "support/test_scale.h"

namespace sator {
namespace {

using test3d::CrossD;
using test3d::DistanceSegmentSegment;
using test3d::DistanceSegmentTriangle;
using test3d::DistanceToSegment;
using test3d::DistanceToTriangle;
using test3d::DotD;
using test3d::Dv;
using test3d::LenD;
using test3d::ToDv;

// A posed shape as a core in the world frame, in double.
struct RefShape {
  int dim = 0;  // Of the core: 0 point, 1 segment, 2 triangle, 3 solid.
  double radius = 0.0;
  std::vector<Dv> points;
  std::vector<std::array<int, 2>> edges;
  std::vector<std::array<int, 3>> triangles;  // The boundary (or itself).
  std::vector<Dv> normals;                    // Unit face normals.
  std::vector<double> offsets;                // For a solid: n . x <= d.
  double magnitude = 0.0;  // Largest coordinate magnitude, radius included.
};

Dv Normalized(Dv v) { return (1.0 / LenD(v)) * v; }

// The rotation of a float quaternion, normalised and applied in double.
Dv RotateD(Quat q, Dv v) {
  const double len = std::sqrt(
      static_cast<double>(q.x) * q.x + static_cast<double>(q.y) * q.y +
      static_cast<double>(q.z) * q.z + static_cast<double>(q.w) * q.w);
  const Dv u{q.x / len, q.y / len, q.z / len};
  const double w = q.w / len;
  const Dv t = 2.0 * CrossD(u, v);
  return v + w * t + CrossD(u, t);
}

RefShape MakeRef(const ConvexShape3& shape, const Pose3& pose) {
  RefShape r;
  const Dv c = ToDv(pose.position);
  const auto place = [&](Vec3 local) {
    return c + RotateD(pose.rotation, ToDv(local));
  };
  const auto quad = [&](int i, int j, int k, int l) {
    r.triangles.push_back({i, j, k});
    r.triangles.push_back({i, k, l});
  };
  if (const auto* s = std::get_if<Sphere>(&shape)) {
    r.radius = s->radius;
    r.points = {c};
  } else if (const auto* k = std::get_if<Capsule3>(&shape)) {
    r.radius = k->radius;
    r.points = {place(k->a)};
    if (!(k->a == k->b)) {
      r.dim = 1;
      r.points.push_back(place(k->b));
      r.edges = {{0, 1}};
    }
  } else if (const auto* t = std::get_if<Triangle3>(&shape)) {
    r.dim = 2;
    r.points = {place(t->a), place(t->b), place(t->c)};
    r.edges = {{0, 1}, {1, 2}, {2, 0}};
    r.triangles = {{0, 1, 2}};
    r.normals = {Normalized(
        CrossD(r.points[1] - r.points[0], r.points[2] - r.points[0]))};
  } else if (const auto* b = std::get_if<Box3>(&shape)) {
    r.dim = 3;
    const Vec3 h = b->half_extents;
    for (int i = 0; i < 8; ++i) {
      r.points.push_back(place(
          {(i & 1) ? h.x : -h.x, (i & 2) ? h.y : -h.y, (i & 4) ? h.z : -h.z}));
    }
    for (int i = 0; i < 8; ++i) {
      for (int bit : {1, 2, 4}) {
        if (!(i & bit)) r.edges.push_back({i, i | bit});
      }
    }
    quad(0, 2, 6, 4);
    quad(1, 5, 7, 3);
    quad(0, 4, 5, 1);
    quad(2, 3, 7, 6);
    quad(0, 1, 3, 2);
    quad(4, 6, 7, 5);
    const Vec3 axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    const float hs[3] = {h.x, h.y, h.z};
    for (int i = 0; i < 3; ++i) {
      const Dv n = RotateD(pose.rotation, ToDv(axes[i]));
      r.normals.push_back(n);
      r.offsets.push_back(DotD(n, c) + hs[i]);
      r.normals.push_back(-1.0 * n);
      r.offsets.push_back(-DotD(n, c) + hs[i]);
    }
  } else {
    const ConvexHull& h = *std::get<std::shared_ptr<const ConvexHull>>(shape);
    r.dim = 3;
    for (const Vec3 v : h.vertices) r.points.push_back(place(v));
    for (const ConvexHull::Edge& e : h.edges) r.edges.push_back({e.a, e.b});
    for (const ConvexHull::Face& f : h.faces) {
      const int v0 = h.face_vertex_indices[f.first_index];
      for (int j = 1; j + 1 < f.vertex_count; ++j) {
        r.triangles.push_back({v0, h.face_vertex_indices[f.first_index + j],
                               h.face_vertex_indices[f.first_index + j + 1]});
      }
      const Dv n = Normalized(RotateD(pose.rotation, ToDv(f.normal)));
      r.normals.push_back(n);
      r.offsets.push_back(DotD(n, r.points[v0]));
    }
  }
  r.magnitude = r.radius;
  for (const Dv p : r.points) {
    r.magnitude =
        std::max({r.magnitude, std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)});
  }
  return r;
}

RefShape Moved(RefShape r, Dv by) {
  for (Dv& p : r.points) p = p + by;
  for (size_t i = 0; i < r.offsets.size(); ++i) {
    r.offsets[i] += DotD(r.normals[i], by);
  }
  for (const Dv p : r.points) {
    r.magnitude =
        std::max({r.magnitude, std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)});
  }
  return r;
}

// The segments of a core: its edges, or its point as a segment of length 0.
std::vector<std::array<Dv, 2>> Segments(const RefShape& r) {
  std::vector<std::array<Dv, 2>> s;
  if (r.edges.empty()) s.push_back({r.points[0], r.points[0]});
  for (const auto& e : r.edges) s.push_back({r.points[e[0]], r.points[e[1]]});
  return s;
}

bool Inside(const RefShape& solid, Dv p) {
  if (solid.dim != 3) return false;
  for (size_t i = 0; i < solid.normals.size(); ++i) {
    if (DotD(solid.normals[i], p) > solid.offsets[i]) return false;
  }
  return true;
}

// The distance between the cores (0 when they intersect).
double CoreDistance(const RefShape& a, const RefShape& b) {
  if (Inside(b, a.points[0]) || Inside(a, b.points[0])) return 0.0;
  double best = 3e38;
  const auto sa = Segments(a);
  const auto sb = Segments(b);
  for (const auto& x : sa) {
    for (const auto& y : sb) {
      best = std::min(best, DistanceSegmentSegment(x[0], x[1], y[0], y[1]));
    }
  }
  const auto seg_tri = [&best](const std::vector<std::array<Dv, 2>>& segs,
                               const RefShape& t) {
    for (const auto& tri : t.triangles) {
      for (const auto& s : segs) {
        best = std::min(
            best, DistanceSegmentTriangle(s[0], s[1], t.points[tri[0]],
                                          t.points[tri[1]], t.points[tri[2]]));
      }
    }
  };
  seg_tri(sa, b);
  seg_tri(sb, a);
  return best;
}

// max over A of n.x minus min over B of n.x, cores only.
double CoreOverlapAlong(const RefShape& a, const RefShape& b, Dv n) {
  double hi = -3e38;
  for (const Dv p : a.points) hi = std::max(hi, DotD(p, n));
  double lo = 3e38;
  for (const Dv p : b.points) lo = std::min(lo, DotD(p, n));
  return hi - lo;
}

double OverlapAlong(const RefShape& a, const RefShape& b, Dv n) {
  return CoreOverlapAlong(a, b, Normalized(n)) + a.radius + b.radius;
}

// The penetration of intersecting cores (0 when their Minkowski difference
// has no interior).
double CorePenetration(const RefShape& a, const RefShape& b) {
  if (a.dim <= 1 && b.dim <= 1) return 0.0;
  std::vector<Dv> axes = a.normals;
  axes.insert(axes.end(), b.normals.begin(), b.normals.end());
  for (const auto& ea : a.edges) {
    for (const auto& eb : b.edges) {
      const Dv u = a.points[ea[1]] - a.points[ea[0]];
      const Dv v = b.points[eb[1]] - b.points[eb[0]];
      const Dv x = CrossD(u, v);
      if (DotD(x, x) > 1e-24 * DotD(u, u) * DotD(v, v)) {
        axes.push_back(Normalized(x));
      }
    }
  }
  double best = 3e38;
  for (const Dv n : axes) {
    best = std::min(
        {best, CoreOverlapAlong(a, b, n), CoreOverlapAlong(a, b, -1.0 * n)});
  }
  return std::max(best, 0.0);
}

// The depth of the pair: > 0 overlapping, minus the distance when apart.
double ReferenceDepth(const RefShape& a, const RefShape& b) {
  const double d = CoreDistance(a, b);
  const double r = a.radius + b.radius;
  return d > 0.0 ? r - d : r + CorePenetration(a, b);
}

// How deep p lies in the shape (minus its distance when outside).
double DepthOfPoint(const RefShape& shape, Dv p) {
  RefShape point;
  point.points = {p};
  return ReferenceDepth(point, shape);
}

// max over the shape of n.x, n unit.
double Support(const RefShape& shape, Dv n) {
  double hi = -3e38;
  for (const Dv p : shape.points) hi = std::max(hi, DotD(p, n));
  return hi + shape.radius;
}

bool IsRound(const ConvexShape3& s) {
  return std::holds_alternative<Sphere>(s) ||
         std::holds_alternative<Capsule3>(s);
}

// ---- Degenerate families on a grid of quarter units ----

class Grid {
 public:
  explicit Grid(unsigned seed) : rng_(seed) {}
  int I(int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng_);
  }
  float Q(int lo, int hi) { return 0.25f * static_cast<float>(I(lo, hi)); }
  Vec3 P(int lo, int hi) { return {Q(lo, hi), Q(lo, hi), Q(lo, hi)}; }
  // A positive size; now and then as thin as validation allows.
  float Size() {
    const int k = I(0, 9);
    if (k == 0) return 2e-6f;
    if (k == 1) return 1e-3f;
    return Q(1, 8);
  }
  // Exact turns: identity, half turns, the 120 degree turns that permute
  // the axes (exact matrices), and quarter turns (sqrt(1/2) rounded).
  Quat Turn() {
    const float s = std::sqrt(0.5f);
    static const Quat kTurns[] = {
        {0, 0, 0, 1},  {1, 0, 0, 0},         {0, 1, 0, 0},
        {0, 0, 1, 0},  {0.5, 0.5, 0.5, 0.5}, {-0.5, 0.5, -0.5, 0.5},
        {s, 0, 0, s},  {0, s, 0, s},         {0, 0, s, s},
        {0, 0, -s, s}, {s, s, 0, 0},         {0, s, s, 0}};
    const int k = I(0, 13);
    return k < 12 ? kTurns[k] : Quat{0, 0, 0, 1};
  }
  ConvexShape3 Make(ShapeKind3 kind) {
    switch (kind) {
      case ShapeKind3::kSphere:
        return Sphere{Q(1, 8)};
      case ShapeKind3::kBox:
        return Box3{{Size(), Size(), Size()}};
      case ShapeKind3::kCapsule: {
        const Vec3 a = P(-4, 4);
        Vec3 b = a;
        const int k = I(0, 4);
        if (k <= 2) {
          b[k] += Q(1, 8) * (I(0, 1) ? 1.0f : -1.0f);  // Axis-aligned.
        } else if (k == 3) {
          b = P(-4, 4);  // Any (possibly a == b).
        }                // k == 4: zero length.
        return Capsule3{a, b, Q(1, 6)};
      }
      case ShapeKind3::kTriangle:
        for (;;) {
          Triangle3 t;
          if (I(0, 1)) {  // A right triangle in a coordinate plane.
            const int u = I(0, 2);
            const int v = (u + I(1, 2)) % 3;
            t.a = P(-4, 4);
            t.b = t.a;
            t.c = t.a;
            t.b[u] += Q(1, 8) * (I(0, 1) ? 1.0f : -1.0f);
            t.c[v] += Q(1, 8) * (I(0, 1) ? 1.0f : -1.0f);
          } else {
            t = {P(-4, 4), P(-4, 4), P(-4, 4)};
          }
          if (ValidateShape(t).ok()) return t;
        }
      case ShapeKind3::kHull:
        return Hull();
    }
    return Sphere{1.0f};
  }

 private:
  std::shared_ptr<const ConvexHull> Hull() {
    for (;;) {
      std::vector<Vec3> pts;
      const int k = I(0, 3);
      if (k == 0) {  // A box with quarter-unit corners.
        const Vec3 lo = P(-4, 0);
        const Vec3 hi = lo + Vec3{Q(1, 8), Q(1, 8), Q(1, 8)};
        for (int i = 0; i < 8; ++i) {
          pts.push_back({(i & 1) ? hi.x : lo.x, (i & 2) ? hi.y : lo.y,
                         (i & 4) ? hi.z : lo.z});
        }
      } else if (k == 1) {  // An octahedron.
        const float s = Q(1, 8);
        pts = {{s, 0, 0},  {-s, 0, 0}, {0, s, 0},
               {0, -s, 0}, {0, 0, s},  {0, 0, -s}};
      } else {  // Grid points.
        const int n = I(4, 10);
        for (int i = 0; i < n; ++i) pts.push_back(P(-6, 6));
      }
      auto hull = MakeConvexHull(pts);
      if (hull.ok()) return *hull;
    }
  }

  std::mt19937 rng_;
};

struct Case {
  ConvexShape3 a;
  Pose3 pa;
  ConvexShape3 b;
  Pose3 pb;
};

// B placed on the grid relative to A (often at A's own pose, or offset along
// one axis, so that faces meet exactly); `base` shifts both.
Case MakeCase(Grid& g, ShapeKind3 ka, ShapeKind3 kb, float base) {
  Case c{g.Make(ka), {}, g.Make(kb), {}};
  const Vec3 shift{base, base, base};
  c.pa = {shift + g.P(-4, 4), g.Turn()};
  const int how = g.I(0, 5);
  if (how == 0) {
    c.pb = c.pa;
    if (g.I(0, 1)) c.b = c.a;  // Identical shapes at identical poses.
  } else if (how <= 2) {
    Vec3 off{};
    off[g.I(0, 2)] = g.Q(-16, 16);
    c.pb = {c.pa.position + off, g.Turn()};
  } else {
    c.pb = {c.pa.position + g.P(-12, 12), g.Turn()};
  }
  return c;
}

std::string Describe(const ConvexShape3& s, const Pose3& p) {
  char buf[400];
  const Vec3 x = p.position;
  const Quat q = p.rotation;
  int n = std::snprintf(buf, sizeof(buf),
                        "pose (%.9g %.9g %.9g | %.9g %.9g %.9g %.9g) ", x.x,
                        x.y, x.z, q.x, q.y, q.z, q.w);
  if (const auto* s0 = std::get_if<Sphere>(&s)) {
    std::snprintf(buf + n, sizeof(buf) - n, "sphere %.9g", s0->radius);
  } else if (const auto* b = std::get_if<Box3>(&s)) {
    std::snprintf(buf + n, sizeof(buf) - n, "box %.9g %.9g %.9g",
                  b->half_extents.x, b->half_extents.y, b->half_extents.z);
  } else if (const auto* k = std::get_if<Capsule3>(&s)) {
    std::snprintf(buf + n, sizeof(buf) - n,
                  "capsule (%.9g %.9g %.9g)-(%.9g %.9g %.9g) r %.9g", k->a.x,
                  k->a.y, k->a.z, k->b.x, k->b.y, k->b.z, k->radius);
  } else if (const auto* t = std::get_if<Triangle3>(&s)) {
    std::snprintf(buf + n, sizeof(buf) - n,
                  "triangle (%g %g %g) (%g %g %g) (%g %g %g)", t->a.x, t->a.y,
                  t->a.z, t->b.x, t->b.y, t->b.z, t->c.x, t->c.y, t->c.z);
  } else {
    const auto& h = *std::get<std::shared_ptr<const ConvexHull>>(s);
    std::string v = "hull";
    for (const Vec3 p2 : h.vertices) {
      char e[80];
      std::snprintf(e, sizeof(e), " (%g %g %g)", p2.x, p2.y, p2.z);
      v += e;
    }
    return std::string(buf) + v;
  }
  return buf;
}

constexpr ShapeKind3 kKinds[] = {ShapeKind3::kSphere, ShapeKind3::kBox,
                                 ShapeKind3::kCapsule, ShapeKind3::kTriangle,
                                 ShapeKind3::kHull};

const char* Name(ShapeKind3 k) {
  static const char* kNames[] = {"sphere", "box", "capsule", "triangle",
                                 "hull"};
  return kNames[static_cast<int>(k)];
}

struct Tally {
  int cases = 0;
  int overlapping = 0;
  int failures = 0;
  double worst = 0.0;  // In FLT_EPSILON x M.
};

// Contact and Overlap of one ordered pair against the reference. Returns
// an empty string when everything holds.
std::string CheckContact(const Case& c, const RefShape& ra, const RefShape& rb,
                         double ref, double tol, double unit, bool points,
                         Tally* t) {
  const ContactResult<3> r = Contact(c.a, c.pa, c.b, c.pb);
  const bool round = IsRound(c.a) || IsRound(c.b);
  char buf[300];
  const float len = Length(r.normal);
  if (!(std::fabs(len - 1.0f) < 1e-4f)) {
    std::snprintf(buf, sizeof(buf), "normal length %g", len);
    return buf;
  }
  const double along = OverlapAlong(ra, rb, ToDv(r.normal));
  if (ref > -tol || round) {
    // Overlapping or touching (or a round pair, whose separation is the
    // exact distance): the depth is the reference's.
    t->worst = std::max(t->worst, std::fabs(r.depth - ref) / unit);
    if (std::fabs(r.depth - ref) > tol) {
      std::snprintf(buf, sizeof(buf), "depth %.9g, reference %.9g (tol %g)",
                    r.depth, ref, tol);
      return buf;
    }
  } else if (r.depth > tol || r.depth < ref - tol) {
    // Apart: minus a separation along some axis, at most the distance.
    std::snprintf(buf, sizeof(buf), "separated: depth %.9g, reference %.9g",
                  r.depth, ref);
    return buf;
  }
  // The overlap along the normal is the depth (for separated polytopes: the
  // normal separates them by at least the gap claimed).
  if (along - r.depth > tol || (r.depth > -tol && r.depth - along > tol)) {
    std::snprintf(buf, sizeof(buf),
                  "overlap along the normal %.9g, depth %.9g (reference %.9g)",
                  along, r.depth, ref);
    return buf;
  }
  if (std::fabs(ref) > tol && r.overlapping != (ref > 0.0)) {
    std::snprintf(buf, sizeof(buf), "overlapping flag %d, reference %.9g",
                  r.overlapping, ref);
    return buf;
  }
  if (ref > tol && points) {
    // Up to 4 points, each within depth / 2 of both surfaces (midway).
    if (r.point_count < 1 || r.point_count > 4) return "no contact points";
    for (int k = 0; k < r.point_count; ++k) {
      const Vec3 p = r.points[k];
      const double in_a = DepthOfPoint(ra, ToDv(p));
      const double in_b = DepthOfPoint(rb, ToDv(p));
      if (in_a < -0.5 * r.depth - tol || in_b < -0.5 * r.depth - tol) {
        std::snprintf(buf, sizeof(buf),
                      "point %d (%.9g %.9g %.9g) is %.9g into A and %.9g "
                      "into B, depth %.9g",
                      k, p.x, p.y, p.z, in_a, in_b, r.depth);
        return buf;
      }
    }
  }
  if (std::fabs(ref) > tol && Overlap(c.a, c.pa, c.b, c.pb) != (ref > 0.0)) {
    std::snprintf(buf, sizeof(buf), "Overlap disagrees, reference %.9g", ref);
    return buf;
  }
  return "";
}

// Contact and Overlap of every pair of kinds; the contact points of the
// pairs selected by `points`. Returns the number of failing cases.
int RunContactFamilies(bool (*points)(ShapeKind3, ShapeKind3)) {
  int total_failures = 0;
  for (int ia = 0; ia < 5; ++ia) {
    for (int ib = ia; ib < 5; ++ib) {
      Grid g(1000 + 10 * ia + ib);
      Tally t;
      const bool check_points = points(kKinds[ia], kKinds[ib]);
      for (int i = 0; i < 3000; ++i) {
        const float base = i % 3 == 2 ? 1e4f : 0.0f;
        const Case c = MakeCase(g, kKinds[ia], kKinds[ib], base);
        const RefShape ra = MakeRef(c.a, c.pa);
        const RefShape rb = MakeRef(c.b, c.pb);
        const double ref = ReferenceDepth(ra, rb);
        const double m = std::max(ra.magnitude, rb.magnitude);
        const double unit = FLT_EPSILON * m;
        const double tol = 4.0 * unit;
        ++t.cases;
        t.overlapping += ref > 0.0;
        std::string why =
            CheckContact(c, ra, rb, ref, tol, unit, check_points, &t);
        if (why.empty()) {
          const Case swapped{c.b, c.pb, c.a, c.pa};
          why = CheckContact(swapped, rb, ra, ref, tol, unit, check_points, &t);
          if (!why.empty()) why = "(B, A) " + why;
        }
        if (!why.empty() && ++t.failures <= 3) {
          ADD_FAILURE() << Name(kKinds[ia]) << "-" << Name(kKinds[ib])
                        << " case " << i << ": " << why << "\n  A "
                        << Describe(c.a, c.pa) << "\n  B "
                        << Describe(c.b, c.pb);
        }
      }
      std::printf("%s-%s: %d cases, %d overlapping, %d failures, worst %.2f\n",
                  Name(kKinds[ia]), Name(kKinds[ib]), t.cases, t.overlapping,
                  t.failures, t.worst);
      total_failures += t.failures;
    }
  }
  return total_failures;
}

bool EitherRound(ShapeKind3 a, ShapeKind3 b) {
  const auto round = [](ShapeKind3 k) {
    return k == ShapeKind3::kSphere || k == ShapeKind3::kCapsule;
  };
  return round(a) || round(b);
}

// Depth (r_a + r_b minus the distance, or plus the cores' penetration)
// within 4 FLT_EPSILON x M for every pair, the overlap along the normal
// equal to the depth, Overlap agreeing beyond the tolerance, both orders;
// and for pairs with a sphere or capsule, the contact point midway between
// the surfaces (within depth / 2 of both). The hard cases are a sphere
// inside a box and a capsule lying on a face: with cores touching or
// intersecting, ContactRound takes the point from the round core, since the
// polytope's support is often a whole face.
TEST(Degenerate3dTest, ExactlyDegenerateContactMatchesDoubleReference) {
  EXPECT_EQ(RunContactFamilies(EitherRound), 0);
}

// Every pair of kinds, the polytope pairs included: the contact points of
// every overlapping pair within depth / 2 of both surfaces. The hard cases
// are edge-edge axes: where the cross product of two edges is exactly a face
// normal of A or B, a contact read off two edges that do not meet along it
// can lie 0.76 beyond a triangle (sat_polytope.cc, kFaceContactSine), and
// with a triangle the pair named by the search need not be the pair that
// supports (SupportingEdge).
TEST(Degenerate3dTest, PolytopeContactPointsLieBetweenSurfaces) {
  EXPECT_EQ(RunContactFamilies([](ShapeKind3, ShapeKind3) { return true; }), 0);
}

// Whether `p` is within `tol` of one of `expected`.
bool NearOneOf(Vec3 p, const std::vector<Vec3>& expected, float tol) {
  for (const Vec3 e : expected) {
    if (Length(p - e) <= tol) return true;
  }
  return false;
}

// The first of the 42 by hand: a triangle 0.25 under the top face of a box
// turned by a half turn about (1, 1, 0). The edge axis (the triangle's edge
// along x crossed with the box's edges along y) is the triangle's normal;
// its two edges do not meet along it, and the one point reported was
// (-1.25, -0.75, 2.125), 0.76 beyond the triangle. The face gives the
// triangle's corners midway between the triangle and the box's top face
// (z = 2.25), whichever order.
TEST(Degenerate3dTest, EdgeAxisAlongAFaceNormalClipsTheFace) {
  const float s = std::sqrt(0.5f);
  const ConvexShape3 tri = Triangle3{
      {0.0f, -1.0f, 0.25f}, {0.75f, -1.0f, 0.25f}, {0.0f, -1.5f, 0.25f}};
  const Pose3 pt{{-0.5f, 0.25f, 1.75f}, {}};
  const ConvexShape3 box = Box3{{1.5f, 1.5f, 2.0f}};
  const Pose3 pb{{-0.5f, 0.25f, 0.25f}, {s, s, 0.0f, 0.0f}};
  const std::vector<Vec3> corners = {{-0.5f, -0.75f, 2.125f},
                                     {0.25f, -0.75f, 2.125f},
                                     {-0.5f, -1.25f, 2.125f}};
  for (const bool tri_first : {true, false}) {
    const ContactResult<3> r =
        tri_first ? Contact(tri, pt, box, pb) : Contact(box, pb, tri, pt);
    EXPECT_NEAR(r.depth, 0.25f, 1e-6f) << tri_first;
    EXPECT_NEAR(std::fabs(r.normal.z), 1.0f, 1e-6f) << tri_first;
    // The clipped polygon may repeat a corner (within round-off).
    ASSERT_GE(r.point_count, 3) << tri_first;
    const std::vector<Vec3> got(r.points.begin(),
                                r.points.begin() + r.point_count);
    for (int k = 0; k < r.point_count; ++k) {
      EXPECT_TRUE(NearOneOf(got[k], corners, 1e-5f))
          << tri_first << " point " << k << ": " << got[k].x << " " << got[k].y
          << " " << got[k].z;
    }
    for (const Vec3 c : corners) {
      EXPECT_TRUE(NearOneOf(c, got, 1e-5f)) << tri_first;
    }
  }
}

// Two octahedra (hull-hull, ContactHullHull's Gauss-map edge axis) meeting
// with parallel faces: the winning edge axis is a face normal of both. Every
// point within depth / 2 of both (an octahedron |x| + |y| + |z| <= r is
// (|x| + |y| + |z| - r) / sqrt(3) from a point beyond one face); a point
// read off the two edges would lie 0.43 outside B with depth 0.577.
TEST(Degenerate3dTest, OctahedraMeetingFaceToFaceContactPoints) {
  const auto octahedron = [](float r) {
    return *MakeConvexHull(
        {{r, 0, 0}, {-r, 0, 0}, {0, r, 0}, {0, -r, 0}, {0, 0, r}, {0, 0, -r}});
  };
  const float s = std::sqrt(0.5f);
  const ConvexShape3 a = octahedron(1.25f);
  const ConvexShape3 b = octahedron(2.0f);
  const Pose3 pa{{0.5f, 0.75f, -0.75f}, {0.0f, 0.0f, -s, s}};
  const Pose3 pb{{-1.75f, 0.75f, -0.75f}, {0.0f, s, s, 0.0f}};
  const auto outside = [](Vec3 p, const Pose3& pose, float r) {
    const Vec3 q = InvTransform(pose, p);
    return (std::fabs(q.x) + std::fabs(q.y) + std::fabs(q.z) - r) /
           std::sqrt(3.0f);
  };
  for (const bool a_first : {true, false}) {
    const ContactResult<3> r =
        a_first ? Contact(a, pa, b, pb) : Contact(b, pb, a, pa);
    EXPECT_NEAR(r.depth, 1.0f / std::sqrt(3.0f), 1e-5f) << a_first;
    ASSERT_GE(r.point_count, 1) << a_first;
    for (int k = 0; k < r.point_count; ++k) {
      EXPECT_LE(outside(r.points[k], pa, 1.25f), 0.5f * r.depth + 1e-5f)
          << a_first << " point " << k;
      EXPECT_LE(outside(r.points[k], pb, 2.0f), 0.5f * r.depth + 1e-5f)
          << a_first << " point " << k;
    }
  }
}

// A triangle's edge (y = 0.5) crossing a hull's edge (y = 1.25) at right
// angles to y, at identical poses: every edge of either in a plane y =
// const gives the same axis, and the search kept a hull edge that does not
// support (the point lay 0.83 off the triangle). The supporting edges cross
// at x = -0.475, z = 0.525 (in the shapes' frame); the point is midway.
TEST(Degenerate3dTest, TriangleEdgeAxisUsesTheSupportingEdges) {
  const float s = std::sqrt(0.5f);
  const ConvexShape3 tri = Triangle3{
      {-1.0f, 0.5f, 0.75f}, {-0.25f, 0.75f, -0.75f}, {0.75f, 0.5f, 0.0f}};
  const ConvexShape3 hull = *MakeConvexHull({{0.25f, 0.5f, 1.25f},
                                             {0.0f, -0.75f, 1.5f},
                                             {-0.25f, -1.5f, 0.0f},
                                             {0.0f, 1.25f, 1.0f},
                                             {-0.25f, 0.0f, -1.0f},
                                             {1.25f, -0.75f, 1.5f},
                                             {0.75f, -1.25f, 1.0f},
                                             {-1.0f, 1.25f, 0.0f},
                                             {1.5f, 0.25f, -1.5f}});
  const Pose3 pose{{0.75f, 0.25f, -1.0f}, {0.0f, 0.0f, -s, s}};
  const Vec3 expected = Transform(pose, Vec3{-0.475f, 0.875f, 0.525f});
  for (const bool tri_first : {true, false}) {
    const ContactResult<3> r = tri_first ? Contact(tri, pose, hull, pose)
                                         : Contact(hull, pose, tri, pose);
    EXPECT_NEAR(r.depth, 0.75f, 1e-6f) << tri_first;
    ASSERT_EQ(r.point_count, 1) << tri_first;
    EXPECT_LE(Length(r.points[0] - expected), 1e-5f)
        << tri_first << ": " << r.points[0].x << " " << r.points[0].y << " "
        << r.points[0].z;
  }
}

// A sphere's contact point on a box face, by hand: a sphere of radius 0.5
// whose centre lies 0.25 inside a box's face (the box turned by an exact
// 120 degree turn). Depth 0.75 along -x; the point midway between the
// surfaces is the sphere's centre moved 0.125 towards -x, whichever order
// (not the box face's corner (-1.125, -2.5, -1.5), B's support vertex).
TEST(Degenerate3dTest, SphereInsideBoxFaceContactPoint) {
  const ConvexShape3 sphere = Sphere{0.5f};
  const Pose3 ps{{-1.0f, -1.0f, -0.75f}, {}};
  const ConvexShape3 box = Box3{{1.5f, 0.75f, 1.25f}};
  const Pose3 pb{{-2.0f, -1.0f, -0.75f}, {0.5f, 0.5f, 0.5f, 0.5f}};
  for (const bool sphere_first : {true, false}) {
    const ContactResult<3> r = sphere_first ? Contact(sphere, ps, box, pb)
                                            : Contact(box, pb, sphere, ps);
    EXPECT_NEAR(r.depth, 0.75f, 1e-6f);
    EXPECT_NEAR(std::fabs(r.normal.x), 1.0f, 1e-6f);
    ASSERT_EQ(r.point_count, 1);
    EXPECT_NEAR(r.points[0].x, -1.125f, 1e-6f) << sphere_first;
    EXPECT_NEAR(r.points[0].y, -1.0f, 1e-6f) << sphere_first;
    EXPECT_NEAR(r.points[0].z, -0.75f, 1e-6f) << sphere_first;
  }
}

// ---- Sweeps ----

Vec3 Motion(Grid& g) {
  const int k = g.I(0, 3);
  if (k == 0) return {};
  if (k == 1) {
    Vec3 v{};
    v[g.I(0, 2)] = g.Q(-24, 24);
    return v;
  }
  return g.P(-16, 16);
}

std::string CheckSweep(const Case& c, Vec3 da, Vec3 db, bool point, Tally* t) {
  const SweepResult<3> r = Sweep(c.a, c.pa, da, c.b, c.pb, db);
  const RefShape ra = MakeRef(c.a, c.pa);
  const RefShape rb0 = MakeRef(c.b, c.pb);
  const Dv v = ToDv(db) - ToDv(da);
  const auto depth_at = [&](double time) {
    return ReferenceDepth(ra, Moved(rb0, time * v));
  };
  const double m =
      std::max({ra.magnitude, rb0.magnitude, Moved(rb0, v).magnitude});
  const double unit = FLT_EPSILON * m;
  const double tol = 4.0 * unit;
  const double ref0 = depth_at(0.0);
  char buf[300];
  if (std::fabs(ref0) > tol &&
      (r.outcome == SweepOutcome::kStartedOverlapping) != (ref0 > 0.0)) {
    std::snprintf(buf, sizeof(buf), "outcome %d, reference depth at 0 %.9g",
                  static_cast<int>(r.outcome), ref0);
    return buf;
  }
  if (r.outcome == SweepOutcome::kStartedOverlapping) return "";
  const double end = r.outcome == SweepOutcome::kHit ? r.fraction : 1.0;
  if (r.outcome == SweepOutcome::kHit) {
    const double at = depth_at(end);
    t->worst = std::max(t->worst, std::fabs(at) / unit);
    if (std::fabs(at) > tol) {
      std::snprintf(buf, sizeof(buf),
                    "hit at %.9g where the reference depth is %.9g (tol %g)",
                    r.fraction, at, tol);
      return buf;
    }
    if (!(std::fabs(Length(r.normal) - 1.0f) < 1e-4f)) return "normal length";
    // At impact the normal separates the shapes and the point lies on both
    // surfaces.
    const RefShape ra_t = Moved(ra, end * ToDv(da));
    const RefShape rb_t = Moved(rb0, end * ToDv(db));
    const double along = OverlapAlong(ra_t, rb_t, ToDv(r.normal));
    const double on_a = DepthOfPoint(ra_t, ToDv(r.point));
    const double on_b = DepthOfPoint(rb_t, ToDv(r.point));
    if (along > tol ||
        (point && (std::fabs(on_a) > tol || std::fabs(on_b) > tol))) {
      std::snprintf(buf, sizeof(buf),
                    "hit at %.9g: overlap along the normal (%g %g %g) %.9g, "
                    "point (%.9g %.9g %.9g) %.9g into A, %.9g into B (tol %g)",
                    r.fraction, r.normal.x, r.normal.y, r.normal.z, along,
                    r.point.x, r.point.y, r.point.z, on_a, on_b, tol);
      return buf;
    }
  }
  for (int k = 0; k <= 32; ++k) {
    const double time = end * k / 32.0;
    const double at = depth_at(time);
    if (at > tol) {
      std::snprintf(buf, sizeof(buf),
                    "outcome %d (fraction %.9g) but the reference depth at "
                    "%.9g is %.9g (tol %g)",
                    static_cast<int>(r.outcome), r.fraction, time, at, tol);
      return buf;
    }
  }
  return "";
}

int RunSweepFamilies(bool point) {
  int total_failures = 0;
  for (int ia = 0; ia < 5; ++ia) {
    for (int ib = ia; ib < 5; ++ib) {
      Grid g(2000 + 10 * ia + ib);
      Tally t;
      for (int i = 0; i < sator::testing::ScaledCount(2000); ++i) {
        const float base = i % 3 == 2 ? 1e4f : 0.0f;
        const Case c = MakeCase(g, kKinds[ia], kKinds[ib], base);
        const Vec3 da = Motion(g);
        const Vec3 db = Motion(g);
        ++t.cases;
        std::string why = CheckSweep(c, da, db, point, &t);
        if (why.empty()) {
          why = CheckSweep({c.b, c.pb, c.a, c.pa}, db, da, point, &t);
          if (!why.empty()) why = "(B, A) " + why;
        }
        if (!why.empty() && ++t.failures <= 3) {
          ADD_FAILURE() << Name(kKinds[ia]) << "-" << Name(kKinds[ib])
                        << " case " << i << ": " << why << "\n  A "
                        << Describe(c.a, c.pa) << " moving " << da.x << " "
                        << da.y << " " << da.z << "\n  B "
                        << Describe(c.b, c.pb) << " moving " << db.x << " "
                        << db.y << " " << db.z;
        }
      }
      std::printf("sweep %s-%s: %d cases, %d failures, worst %.2f\n",
                  Name(kKinds[ia]), Name(kKinds[ib]), t.cases, t.failures,
                  t.worst);
      total_failures += t.failures;
    }
  }
  return total_failures;
}

// Time of impact (touching at the fraction, never overlapping before it, a
// miss never overlapping), started-overlapping iff overlapping at t = 0 and
// the normal separating the shapes at impact, both orders, within
// 4 FLT_EPSILON x M.
TEST(Degenerate3dTest, ExactlyDegenerateSweepMatchesDoubleReference) {
  EXPECT_EQ(RunSweepFamilies(/*point=*/false), 0);
}

// Time, normal and, at impact, the contact point on both surfaces (within
// 4 FLT_EPSILON x M). The hard cases for sweep_sat.cc's ContactPoint: two
// faces meeting along an edge, whose overlap round-off clips away (the mean
// of both faces' corners would be 0.75 off A), and a box 2e-3 thick whose
// edge or vertex could be taken for a face or an edge (supporting features
// chosen within 1e-4 of the coordinates would be 2e-4 off).
TEST(Degenerate3dTest, SweepContactPointOnBothSurfaces) {
  EXPECT_EQ(RunSweepFamilies(/*point=*/true), 0);
}

// The box-box case above by hand: at t = 9/14 A's face y = 0.303571 meets
// B's face y = 0.303571, and A's side x = -1.25 meets B's side x = -1.25,
// so the shapes touch only along the segment x = -1.25, y = 0.303571,
// z in [-0.5357, 0.9643]. The point was (-0.5, 0.3036, 0.4821), the middle
// of the two faces' corners, 0.75 off A.
TEST(Degenerate3dTest, BoxSweepFacesMeetingAlongAnEdgeContactPoint) {
  const float s = std::sqrt(0.5f);
  const ConvexShape3 a = Box3{{0.25f, 0.75f, 0.25f}};
  const Pose3 pa{{0.75f, 2.0f, -0.75f}, {s, 0.0f, 0.0f, s}};
  const Vec3 da{-3.5f, -2.25f, 1.5f};
  const ConvexShape3 b = Box3{{0.25f, 1.25f, 1.75f}};
  const Pose3 pb{{0.5f, -0.75f, 0.75f}, {0.5f, 0.5f, 0.5f, 0.5f}};
  const Vec3 db{0.0f, 1.25f, 0.0f};
  const SweepResult<3> r = Sweep(a, pa, da, b, pb, db);
  ASSERT_EQ(r.outcome, SweepOutcome::kHit);
  EXPECT_NEAR(r.fraction, 9.0f / 14.0f, 1e-6f);
  EXPECT_NEAR(r.normal.y, -1.0f, 1e-6f);
  EXPECT_NEAR(r.point.x, -1.25f, 1e-5f);
  EXPECT_NEAR(r.point.y, -0.5f + 1.25f * 9.0f / 14.0f, 1e-5f);
  EXPECT_GE(r.point.z, -0.5f - 1e-5f);
  EXPECT_LE(r.point.z, -0.75f + 1.5f * 9.0f / 14.0f + 0.75f + 1e-5f);
}

// A box 2e-3 thick (half extents 1e-3, 1, 1) at rest, and a cube whose face
// comes down on it along n = (0.1, sqrt(0.99), 0): A's supporting feature
// is its edge x = 1e-3, y = 1 (the edge at x = -1e-3 lies 2e-4 lower along
// n). The point is the middle of the edge, (1e-3, 1, 0); supporting features
// chosen within 1e-4 of the projections (3e-4 here) would take A's face
// y = 1 instead, and its middle lies 1e-4 off A.
TEST(Degenerate3dTest, ThinBoxSweepContactPointOnItsEdge) {
  const float sin_t = 0.1f;
  const float cos_t = std::sqrt(1.0f - sin_t * sin_t);
  const Vec3 n{sin_t, cos_t, 0.0f};
  const float half = 0.5f * std::asin(sin_t);
  const ConvexShape3 a = Box3{{1e-3f, 1.0f, 1.0f}};
  const ConvexShape3 b = Box3{{1.0f, 1.0f, 1.0f}};
  // Turned by -theta about z: B's -y face faces A, with outward normal -n.
  const Pose3 pb{(1e-3f * sin_t + cos_t + 1.5f) * n,
                 {0.0f, 0.0f, -std::sin(half), std::cos(half)}};
  const SweepResult<3> r = Sweep(a, Pose3{}, Vec3{}, b, pb, -1.0f * n);
  ASSERT_EQ(r.outcome, SweepOutcome::kHit);
  EXPECT_NEAR(r.fraction, 0.5f, 1e-6f);
  EXPECT_NEAR(Dot(r.normal, n), 1.0f, 1e-6f);
  EXPECT_NEAR(r.point.x, 1e-3f, 2e-6f);
  EXPECT_NEAR(r.point.y, 1.0f, 2e-6f);
  EXPECT_NEAR(r.point.z, 0.0f, 2e-6f);
}

// ---- Rays ----

std::string CheckRay(const ConvexShape3& shape, const Pose3& pose,
                     const Ray<3>& ray, Tally* t) {
  const RayResult<3> r = RayCast(shape, pose, ray);
  const RefShape rs = MakeRef(shape, pose);
  const bool solid = !std::holds_alternative<Triangle3>(shape);
  const Dv o = ToDv(ray.origin);
  const Dv d = ToDv(ray.direction);
  const auto depth_at = [&](double s) {
    RefShape p;
    p.points = {o + s * d};
    return ReferenceDepth(p, rs);
  };
  const double m =
      std::max({rs.magnitude, std::fabs(o.x), std::fabs(o.y), std::fabs(o.z),
                static_cast<double>(ray.max_distance)});
  const double unit = FLT_EPSILON * m;
  const double tol = 4.0 * unit;
  char buf[300];
  const double ref0 = depth_at(0.0);
  if (solid && std::fabs(ref0) > tol && r.started_inside != (ref0 > 0.0)) {
    std::snprintf(buf, sizeof(buf), "started_inside %d, origin depth %.9g",
                  r.started_inside, ref0);
    return buf;
  }
  if (r.started_inside) return solid ? "" : "a triangle started inside";
  if (solid && ref0 > tol) return "";
  const double end = r.hit ? r.distance : ray.max_distance;
  if (r.hit) {
    const double at = depth_at(r.distance);
    t->worst = std::max(t->worst, std::fabs(at) / unit);
    if (std::fabs(at) > tol) {
      std::snprintf(buf, sizeof(buf),
                    "hit at %.9g where the point's depth is %.9g (tol %g)",
                    r.distance, at, tol);
      return buf;
    }
    if (!(std::fabs(Length(r.normal) - 1.0f) < 1e-4f) ||
        Dot(r.normal, ray.direction) > 1e-6f) {
      std::snprintf(buf, sizeof(buf), "hit normal (%g %g %g)", r.normal.x,
                    r.normal.y, r.normal.z);
      return buf;
    }
    // The normal is the surface's at the point: the shape lies behind it.
    const Dv n = Normalized(ToDv(r.normal));
    const double beyond = Support(rs, n) - DotD(n, ToDv(r.point));
    if (std::fabs(beyond) > tol) {
      std::snprintf(buf, sizeof(buf),
                    "hit at %.9g, normal (%g %g %g): the shape reaches %.9g "
                    "beyond the point along it",
                    r.distance, r.normal.x, r.normal.y, r.normal.z, beyond);
      return buf;
    }
  }
  if (solid) {
    for (int k = 0; k <= 64; ++k) {
      const double s = end * k / 64.0;
      const double at = depth_at(s);
      if (at > tol) {
        std::snprintf(buf, sizeof(buf),
                      "hit %d at %.9g but the depth at %.9g is %.9g", r.hit,
                      r.distance, s, at);
        return buf;
      }
    }
  } else if (!r.hit) {
    const Dv n = rs.normals[0];
    if (std::fabs(DotD(n, d)) > 1e-3 &&
        DistanceSegmentTriangle(
            o, o + static_cast<double>(ray.max_distance) * d, rs.points[0],
            rs.points[1], rs.points[2]) == 0.0) {
      const double s = DotD(rs.points[0] - o, n) / DotD(d, n);
      const Dv x = o + s * d;
      const double to_edge =
          std::min({DistanceToSegment(x, rs.points[0], rs.points[1]),
                    DistanceToSegment(x, rs.points[1], rs.points[2]),
                    DistanceToSegment(x, rs.points[2], rs.points[0])});
      if (s > tol && s < ray.max_distance - tol && to_edge > tol) {
        std::snprintf(buf, sizeof(buf), "missed a triangle crossed at %.9g", s);
        return buf;
      }
    }
  }
  return "";
}

TEST(Degenerate3dTest, ExactlyDegenerateRayMatchesDoubleReference) {
  int total_failures = 0;
  for (int ik = 0; ik < 5; ++ik) {
    Grid g(3000 + ik);
    Tally t;
    for (int i = 0; i < 5000; ++i) {
      const float base = i % 3 == 2 ? 1e4f : 0.0f;
      const Vec3 shift{base, base, base};
      const ConvexShape3 shape = g.Make(kKinds[ik]);
      const Pose3 pose{shift + g.P(-4, 4), g.Turn()};
      Ray<3> ray;
      ray.origin = shift + g.P(-24, 24);
      Vec3 dir{};
      if (g.I(0, 1)) {
        dir[g.I(0, 2)] = g.I(0, 1) ? 1.0f : -1.0f;
      } else {
        dir = g.P(-4, 4);
        if (Length(dir) == 0.0f) dir = {0, 0, 1};
      }
      ray.direction = NormalizeOrZero(dir);
      ray.max_distance = g.Q(0, 160);
      ++t.cases;
      const std::string why = CheckRay(shape, pose, ray, &t);
      if (!why.empty() && ++t.failures <= 3) {
        ADD_FAILURE() << Name(kKinds[ik]) << " case " << i << ": " << why
                      << "\n  " << Describe(shape, pose) << "\n  ray ("
                      << ray.origin.x << " " << ray.origin.y << " "
                      << ray.origin.z << ") dir (" << ray.direction.x << " "
                      << ray.direction.y << " " << ray.direction.z << ") max "
                      << ray.max_distance;
      }
    }
    std::printf("ray %s: %d cases, %d failures, worst %.2f\n", Name(kKinds[ik]),
                t.cases, t.failures, t.worst);
    total_failures += t.failures;
  }
  EXPECT_EQ(total_failures, 0);
}

// Coplanar triangles meeting at an edge (the contact fallbacks of
// sat_polytope.cc). B's edge lies along part of A's edge, or B's vertex on
// A's edge, in a random pose (the same for both, so B's vertices in A's
// frame carry the rounding of the relative pose), 1e-1 to 1e2 long; B
// tilted out of A's plane by up to 1e-5 of the length and across A's edge
// by up to 1e-5 of it, or neither; both orders. Such pairs reach two
// branches no other test did: the best axis is a triangle's in-plane edge
// normal (FillContact's kOther, where B's deepest vertex, either end of B's
// edge, would be up to the edge's length off A), or the face axis's
// clipping leaves nothing (ClipFaces' round-off fallback, likewise). Every
// point of an overlapping result must lie within depth / 2 of both triangles
// plus 1e-5 of the length (the tilt and the overlap allowed).
TEST(Degenerate3dTest, CoplanarTrianglesMeetingAtAnEdgeContactPoints) {
  std::mt19937 rng(6161);
  const auto u = [&rng](float lo, float hi) {
    return std::uniform_real_distribution<float>(lo, hi)(rng);
  };
  int overlapping = 0;
  int failures = 0;
  double worst = 0.0;  // In lengths.
  for (int i = 0; i < 8000; ++i) {
    const float len = std::pow(10.0f, u(-1.0f, 2.0f));
    // A's edge along x from 0 to len, A below it (y < 0).
    const Triangle3 a{
        {0, 0, 0}, {len, 0, 0}, {u(0.0f, len), -len * u(0.3f, 1.0f), 0}};
    const float tilt =
        u(0.0f, 1.0f) < 0.3f ? 0.0f : len * std::pow(10.0f, u(-8.0f, -5.0f));
    const float across =
        u(0.0f, 1.0f) < 0.5f ? 0.0f : len * std::pow(10.0f, u(-8.0f, -5.0f));
    Vec3 b0;
    Vec3 b1;
    if (i % 2 == 0) {  // B's edge along part of A's.
      b0 = {u(-0.5f, 0.5f) * len, -across, u(-tilt, tilt)};
      b1 = {u(0.5f, 1.5f) * len, -across, u(-tilt, tilt)};
    } else {  // B's vertex on A's edge.
      b0 = {u(0.1f, 0.9f) * len, -across, u(-tilt, tilt)};
      b1 = {b0.x + u(-1.0f, 1.0f) * len, len * u(0.2f, 1.0f), u(-tilt, tilt)};
    }
    const Vec3 b2{u(-0.5f, 1.5f) * len, len * u(0.2f, 1.0f), u(-tilt, tilt)};
    const Triangle3 b =
        u(0.0f, 1.0f) < 0.5f ? Triangle3{b0, b1, b2} : Triangle3{b1, b0, b2};
    const Vec3 axis{u(-1.0f, 1.0f), u(-1.0f, 1.0f), u(-1.0f, 1.0f)};
    const Pose3 pose{
        {u(-1.0f, 1.0f) * len, u(-1.0f, 1.0f) * len, u(-1.0f, 1.0f) * len},
        Quat::FromAxisAngle(axis, u(-3.0f, 3.0f))};
    for (const bool a_first : {true, false}) {
      const ContactResult<3> c =
          a_first ? Contact(a, pose, b, pose) : Contact(b, pose, a, pose);
      if (!c.overlapping) continue;
      ++overlapping;
      double off = 0.0;
      for (int k = 0; k < c.point_count; ++k) {
        // The point in the triangles' frame.
        const Dv p = ToDv(InvTransform(pose, c.points[k]));
        const double da =
            DistanceToTriangle(p, ToDv(a.a), ToDv(a.b), ToDv(a.c));
        const double db =
            DistanceToTriangle(p, ToDv(b.a), ToDv(b.b), ToDv(b.c));
        off = std::max({off, da - 0.5 * c.depth, db - 0.5 * c.depth});
      }
      worst = std::max(worst, off / len);
      if (off > 1e-5 * len && ++failures <= 5) {
        ADD_FAILURE() << "case " << i << (a_first ? " A first" : " B first")
                      << " len " << len << " tilt " << tilt << " across "
                      << across << ": a point is " << off
                      << " off a triangle, depth " << c.depth;
      }
    }
  }
  std::printf(
      "coplanar triangles meeting at an edge: %d overlapping, %d failures, "
      "worst %.3g lengths\n",
      overlapping, failures, worst);
  EXPECT_EQ(failures, 0);
  EXPECT_GT(overlapping, 4000);
}

}  // namespace
}  // namespace sator
