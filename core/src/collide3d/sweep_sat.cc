// SAT over time for polytope pairs; the method is described in sweep_sat.h.
//
//   for each axis L (face normals, edge-edge crosses kept by the Gauss map):
//     [a0, a1] = A on L;  [b0, b1] = B on L at t = 0;  s = dot(v, L)
//     if s < 0: flip L (and the intervals) so that B moves towards +L
//     miss if a1 - b0 < 0 (B past A, moving away) or a0 - b1 > s (too far)
//     entry = (a0 - b1) / s if positive; exit = (a1 - b0) / s if below 1
//   hit at the latest entry if it is <= the earliest exit; no positive
//   entry at all means every axis overlaps at t = 0: started overlapping.
//
// The contact point at the time of impact is found from the supporting
// features along the normal: a vertex when either side touches with a
// vertex, the closest points of two edges, otherwise the centroid of the
// overlap of the two supporting polygons (clipped in the contact plane,
// Sutherland and Hodgman 1974).
#include "collide3d/sweep_sat.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "collide3d/box_overlap_axes.h"
#include "collide3d/convex_closest.h"
#include "collide3d/double_vec3.h"
#include "collide3d/rotation_matrix.h"
#include "collide3d/sat_polytope.h"
#include "simd/float4.h"

namespace sator::internal {
namespace {

struct SweepEdge {
  Vec3 p;
  Vec3 q;
  // Arcs of the Gauss map bordering the edge (normals of the faces that
  // meet there); 0 arcs means "never prune this edge". Each arc's plane,
  // arcs[1] x arcs[0] (Gregorius's b x a), or at a hull's knife edge the
  // edge's direction oriented the same way (ArcPlane, sat_polytope.h).
  std::array<std::array<Vec3, 2>, 2> arcs;
  std::array<Vec3, 2> planes;
  int arc_count = 0;
};

struct SatPoly {
  const Vec3* vertices = nullptr;
  int vertex_count = 0;
  const Vec3* axes = nullptr;  // Face normals (and a triangle's side normals).
  int axis_count = 0;
  const SweepEdge* edges = nullptr;
  int edge_count = 0;
  // The first `direction_count` edges have all the distinct directions.
  int direction_count = 0;
  bool is_hull = false;
};

template <int kV, int kA, int kE>
struct SatStore {
  std::array<Vec3, kV> vertices;
  std::array<Vec3, kA> axes;
  std::array<SweepEdge, kE> edges;
  SatPoly view;
};
using BoxStore = SatStore<8, 3, 12>;
using TriStore = SatStore<3, 4, 3>;
using HullStore =
    SatStore<kMaxHullVertices, 2 * kMaxHullVertices, 3 * kMaxHullVertices>;

void MakeBox(const Box3& box, const Pose3& pose, BoxStore* out) {
  const Vec3 h = box.half_extents;
  Vec3 u[3];
  for (int i = 0; i < 3; ++i) {
    Vec3 e{};
    e[i] = 1.0f;
    u[i] = Rotate(pose.rotation, e);
    out->axes[i] = u[i];
  }
  for (int i = 0; i < 8; ++i) {
    out->vertices[i] = pose.position + ((i & 1) ? h.x : -h.x) * u[0] +
                       ((i & 2) ? h.y : -h.y) * u[1] +
                       ((i & 4) ? h.z : -h.z) * u[2];
  }
  // Edge along axis i at the corner signs (sj, sk) of the other two axes;
  // ordered so that edges 0, 1, 2 run along axes 0, 1, 2.
  int e = 0;
  for (int corner = 0; corner < 4; ++corner) {
    for (int i = 0; i < 3; ++i) {
      const int j = (i + 1) % 3;
      const int k = (i + 2) % 3;
      const float sj = (corner & 1) ? 1.0f : -1.0f;
      const float sk = (corner & 2) ? 1.0f : -1.0f;
      const int base = ((sj > 0 ? 1 : 0) << j) | ((sk > 0 ? 1 : 0) << k);
      SweepEdge& edge = out->edges[e++];
      edge.p = out->vertices[base];
      edge.q = out->vertices[base | (1 << i)];
      edge.arcs[0] = {sj * u[j], sk * u[k]};
      edge.planes[0] = Cross(edge.arcs[0][1], edge.arcs[0][0]);
      edge.arc_count = 1;
    }
  }
  out->view = {out->vertices.data(),
               8,
               out->axes.data(),
               3,
               out->edges.data(),
               12,
               3,
               false};
}

void MakeTriangle(const Triangle3& tri, const Pose3& pose, TriStore* out) {
  const Vec3 v[3] = {Transform(pose, tri.a), Transform(pose, tri.b),
                     Transform(pose, tri.c)};
  // The normal in double (see TriangleNormal: in float a sliver's is off by
  // up to 0.1 radians, and its face axis then misjudges the triangle's
  // extent across its length: boxes and hulls hit slivers early or late).
  // The side normals m = e x n are well conditioned (e is perpendicular to
  // n) and stay in float.
  const Vec3 n = TriangleNormal(v[0], v[1], v[2]);
  out->axes[0] = n;
  for (int i = 0; i < 3; ++i) {
    out->vertices[i] = v[i];
    const Vec3 e = v[(i + 1) % 3] - v[i];
    const Vec3 m = NormalizeOrZero(Cross(e, n));  // Outward, in the plane.
    out->axes[i + 1] = m;
    SweepEdge& edge = out->edges[i];
    edge.p = v[i];
    edge.q = v[(i + 1) % 3];
    // The edge's arc runs from n over m to -n: half a great circle, split in
    // two quarters so each is a proper (shorter than half) arc.
    edge.arcs[0] = {n, m};
    edge.arcs[1] = {m, -n};
    edge.planes[0] = Cross(m, n);
    edge.planes[1] = Cross(-n, m);
    edge.arc_count = 2;
  }
  out->view = {out->vertices.data(),
               3,
               out->axes.data(),
               4,
               out->edges.data(),
               3,
               3,
               false};
}

void MakeHull(const ConvexHull& hull, const Pose3& pose, HullStore* out) {
  const int nv = static_cast<int>(hull.vertices.size());
  const int nf = static_cast<int>(hull.faces.size());
  const int ne = static_cast<int>(hull.edges.size());
  for (int i = 0; i < nv; ++i) {
    out->vertices[i] = Transform(pose, hull.vertices[i]);
  }
  for (int f = 0; f < nf; ++f) {
    out->axes[f] = Rotate(pose.rotation, hull.faces[f].normal);
  }
  const Vec3 centroid = Transform(pose, hull.centroid);
  for (int e = 0; e < ne; ++e) {
    const ConvexHull::Edge& he = hull.edges[e];
    SweepEdge& edge = out->edges[e];
    edge.p = out->vertices[he.a];
    edge.q = out->vertices[he.b];
    const Vec3 n1 = out->axes[he.face_left];
    const Vec3 n2 = out->axes[he.face_right];
    edge.arcs[0] = {n1, n2};
    // At a knife edge (faces nearly antiparallel) n2 x n1 keeps only the
    // normals' round-off in its direction; the edge's direction, oriented
    // by the outward direction there, stands for it (else a sliver's
    // crossing is missed and the sweep hits early, KnifeEdgeTest).
    bool knife;
    edge.planes[0] = ArcPlane(n1, n2, EdgePole(edge.q - edge.p, n1, n2),
                              edge.p - centroid, &knife);
    edge.arc_count = 1;
  }
  out->view = {out->vertices.data(),
               nv,
               out->axes.data(),
               nf,
               out->edges.data(),
               ne,
               ne,
               true};
}

// Do the Gauss-map arcs ab and cd cross? (Gregorius GDC 2013: c and d on
// opposite sides of the plane of a and b, a and b on opposite sides of the
// plane of c and d, and the crossing on the same hemisphere.) The planes
// come in as bxa (b x a) and dxc (d x c; SweepEdge::planes). Lenient by a
// small tolerance: an extra axis is harmless, a missing one is not.
bool ArcsCross(Vec3 a, Vec3 b, Vec3 bxa, Vec3 c, Vec3 d, Vec3 dxc) {
  constexpr float kEps = 1e-6f;
  const float cba = Dot(c, bxa);
  const float dba = Dot(d, bxa);
  const float adc = Dot(a, dxc);
  const float bdc = Dot(b, dxc);
  return cba * dba < kEps && adc * bdc < kEps && cba * bdc > -kEps;
}

// Is the edge pair a face of the Minkowski difference A - B (whose Gauss
// map holds B's normals negated)?
bool MinkowskiFace(const SweepEdge& ea, const SweepEdge& eb) {
  if (ea.arc_count == 0 || eb.arc_count == 0) return true;
  for (int i = 0; i < ea.arc_count; ++i) {
    for (int j = 0; j < eb.arc_count; ++j) {
      // B's arc negated, from -c to -d: its plane (-d) x (-c) = d x c.
      if (ArcsCross(ea.arcs[i][0], ea.arcs[i][1], ea.planes[i], -eb.arcs[j][0],
                    -eb.arcs[j][1], eb.planes[j])) {
        return true;
      }
    }
  }
  return false;
}

void Project(const SatPoly& p, Vec3 axis, float* lo, float* hi) {
  float mn = Dot(axis, p.vertices[0]);
  float mx = mn;
  for (int i = 1; i < p.vertex_count; ++i) {
    const float d = Dot(axis, p.vertices[i]);
    mn = std::min(mn, d);
    mx = std::max(mx, d);
  }
  *lo = mn;
  *hi = mx;
}

// Entry and exit times kept as fractions num / den (den > 0) and compared
// by cross-multiplying, so only the final time is divided out.
struct SatState {
  float enter_num = 0.0f;
  float enter_den = 1.0f;
  float exit_num = 1.0f;
  float exit_den = 1.0f;
  bool entered = false;
  Vec3 axis{};  // Unnormalised, from A to B.

  float TEnter() const { return enter_num / enter_den; }
};

// One axis's interval logic (see the top of the file), with s >= 0 and the
// axis already turned so that B moves towards +axis. Returns false on a
// proven miss.
inline bool Update(Vec3 axis, float entry_num, float exit_num, float s,
                   SatState* st) {
  if (exit_num < 0.0f || entry_num > s) return false;
  // entry = entry_num / s in (0, 1] when entry_num > 0 (then s > 0).
  if (entry_num > 0.0f &&
      (!st->entered || entry_num * st->enter_den > st->enter_num * s)) {
    st->enter_num = entry_num;
    st->enter_den = s;
    st->axis = -axis;  // B comes from below A along +axis.
    st->entered = true;
  }
  // exit = exit_num / s, below 1 only when exit_num < s.
  if (exit_num < s && exit_num * st->exit_den < st->exit_num * s) {
    st->exit_num = exit_num;
    st->exit_den = s;
  }
  return !(st->entered &&
           st->enter_num * st->exit_den > st->exit_num * st->enter_den);
}

// Returns false when the axis proves a miss.
bool TestAxis(Vec3 axis, const SatPoly& a, const SatPoly& b, Vec3 v,
              SatState* st) {
  float a0, a1, b0, b1;
  Project(a, axis, &a0, &a1);
  Project(b, axis, &b0, &b1);
  float s = Dot(v, axis);
  if (s < 0.0f) {
    axis = -axis;
    s = -s;
    std::swap(a0, a1);
    a0 = -a0;
    a1 = -a1;
    std::swap(b0, b1);
    b0 = -b0;
    b1 = -b1;
  }
  // entry: the gap B's top must close to reach A; exit: the travel until
  // B's bottom leaves A's top.
  return Update(axis, a0 - b1, a1 - b0, s, st);
}

// ---- Contact point at the time of impact ----------------------------------

struct P2 {
  float x;
  float y;
};
float Cross2(P2 o, P2 a, P2 b) {
  return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

// Andrew's monotone chain: the counter-clockwise convex hull of pts[0, n)
// written to out; returns its size.
int Hull2(P2* pts, int n, P2* out) {
  std::sort(pts, pts + n,
            [](P2 a, P2 b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
  if (n < 3) {
    std::copy(pts, pts + n, out);
    return n;
  }
  int k = 0;
  for (int i = 0; i < n; ++i) {
    while (k >= 2 && Cross2(out[k - 2], out[k - 1], pts[i]) <= 0.0f) --k;
    out[k++] = pts[i];
  }
  for (int i = n - 2, lower = k + 1; i >= 0; --i) {
    while (k >= lower && Cross2(out[k - 2], out[k - 1], pts[i]) <= 0.0f) --k;
    out[k++] = pts[i];
  }
  return k - 1;
}

constexpr int kMaxClip = 4 * kMaxHullVertices + 8;

// Clips the subject polygon (or segment) by the convex counter-clockwise
// polygon `clip` (3 or more vertices); returns the output size.
int ClipPolygon(const P2* subject, int n, const P2* clip, int m, P2* out) {
  std::array<P2, kMaxClip> buf_a;
  std::array<P2, kMaxClip> buf_b;
  P2* in = buf_a.data();
  P2* next = buf_b.data();
  std::copy(subject, subject + n, in);
  int count = n;
  for (int i = 0; i < m && count > 0; ++i) {
    const P2 c0 = clip[i];
    const P2 c1 = clip[(i + 1) % m];
    int k = 0;
    for (int j = 0; j < count && k + 2 <= kMaxClip; ++j) {
      const P2 s = in[j];
      const P2 e = in[(j + 1) % count];
      const float ds = Cross2(c0, c1, s);
      const float de = Cross2(c0, c1, e);
      if (ds >= 0.0f) next[k++] = s;
      if ((ds >= 0.0f) != (de >= 0.0f)) {
        const float w = ds / (ds - de);
        next[k++] = {s.x + w * (e.x - s.x), s.y + w * (e.y - s.y)};
      }
    }
    std::swap(in, next);
    count = k;
  }
  std::copy(in, in + count, out);
  return count;
}

// The closest point to `p` on the 2D segment [a, b].
P2 ClosestOnSegment2(P2 p, P2 a, P2 b) {
  const float dx = b.x - a.x;
  const float dy = b.y - a.y;
  const float len_sq = dx * dx + dy * dy;
  float t = 0.0f;
  if (len_sq > 0.0f) {
    t = std::clamp(((p.x - a.x) * dx + (p.y - a.y) * dy) / len_sq, 0.0f, 1.0f);
  }
  return {a.x + t * dx, a.y + t * dy};
}

// The midpoint of the closest points of two convex polygons (or segments,
// or points) that do not overlap, or touch only along their boundaries: the
// crossing of an edge of one with an edge of the other if there is one,
// else the closest pair over every vertex of one against every edge of the
// other. The crossing comes first because clipping loses it when a side is
// thinner than round-off: a short edge of a merged hull face (1 to 10 long
// on a hull of size 1e5) with a long edge made a sliver triangle 0.02 wide
// where a long edge of the other hull crossed it, the clip was empty, and
// the nearest vertex-edge pair put the point 366, and once 10,366, off the
// shapes (KnifeEdgeTest.SweepOfShortEdgeHullsAtRandomMatchesExhaustiveSat).
P2 ClosestPolygonsMidpoint(const P2* pa, int na, const P2* pb, int nb) {
  for (int i = 0; na >= 2 && i < na; ++i) {
    const P2 a0 = pa[i];
    const P2 a1 = pa[(i + 1) % na];
    for (int j = 0; nb >= 2 && j < nb; ++j) {
      const P2 b0 = pb[j];
      const P2 b1 = pb[(j + 1) % nb];
      const float d0 = Cross2(a0, a1, b0);
      const float d1 = Cross2(a0, a1, b1);
      const float e0 = Cross2(b0, b1, a0);
      const float e1 = Cross2(b0, b1, a1);
      if ((d0 < 0.0f) == (d1 < 0.0f) || (e0 < 0.0f) == (e1 < 0.0f)) continue;
      const float t = d0 / (d0 - d1);  // d0, d1 of opposite signs.
      return {b0.x + t * (b1.x - b0.x), b0.y + t * (b1.y - b0.y)};
    }
  }
  P2 best_p = pa[0];
  P2 best_q = pb[0];
  float best = 3.0e38f;
  const auto consider = [&](P2 p, P2 q) {
    const float dx = p.x - q.x;
    const float dy = p.y - q.y;
    const float d = dx * dx + dy * dy;
    if (d < best) {
      best = d;
      best_p = p;
      best_q = q;
    }
  };
  for (int i = 0; i < na; ++i) {
    for (int j = 0; j < nb; ++j) {
      consider(pa[i], ClosestOnSegment2(pa[i], pb[j], pb[(j + 1) % nb]));
    }
  }
  for (int j = 0; j < nb; ++j) {
    for (int i = 0; i < na; ++i) {
      consider(ClosestOnSegment2(pb[j], pa[i], pa[(i + 1) % na]), pb[j]);
    }
  }
  return {0.5f * (best_p.x + best_q.x), 0.5f * (best_p.y + best_q.y)};
}

// The supporting feature of a shape along a direction: its vertices taken
// in order of their drop below the extreme one, each kept when it lies at
// most kFlatSine times its distance below the nearest vertex kept (the
// segment between them is within that sine of the contact plane), plus
// round-off, kRoundOff times the shape's vertex scale (SupportFeature). For
// a box this is the fast path's test, an axis is flat when its sine with
// the plane is at most kFlatSine (BoxBoxContactPoint). A feature taken for
// flatter than it is puts the point at most kFlatSine times the feature's
// extent off the surface. Exactly parallel faces and edges project within a
// few FLT_EPSILON of the coordinates of each other; nearly parallel ones
// (an edge axis a few 1e-6 from a face normal can beat the face by
// round-off) are still taken for the face. The test was a drop of 1e-4 of
// the projections' magnitude, however short the step: the edge of a box
// 2e-3 thick, 3.9e-4 from flat along the normal (a sine of 0.196), was
// taken for a face, and the point (the centre of the face's overlap with
// B's feature) lay 2e-4 off A's surface; a vertex of such a box 4.2e-5
// above its neighbour (a sine of 0.021) was taken for an edge (2e-5 off).
constexpr float kFlatSine = 1e-4f;
constexpr float kRoundOff = 32.0f * 1.1920929e-7f;

// The supporting feature of `p` (its vertices moved by `offset`) along the
// unit `dir` (see kFlatSine), as vertex indices in `out`; returns their
// count, and the largest projection on `dir` in `extreme`. The vertex
// scale is the largest |x| + |y| + |z|: the scale of the round-off in the
// projections, and half a bound on the vertices' distances.
int SupportFeature(const SatPoly& p, Vec3 offset, Vec3 dir, float* extreme,
                   std::uint8_t* out) {
  std::array<float, kMaxHullVertices> proj;
  float top = -3.0e38f;
  float scale = 0.0f;
  for (int i = 0; i < p.vertex_count; ++i) {
    const Vec3 v = p.vertices[i] + offset;
    proj[i] = Dot(dir, v);
    top = std::max(top, proj[i]);
    scale = std::max(scale, std::fabs(v.x) + std::fabs(v.y) + std::fabs(v.z));
  }
  *extreme = top;
  const float round_off = kRoundOff * scale;
  const float reach = round_off + kFlatSine * 2.0f * scale;
  std::array<float, kMaxHullVertices> drops;
  int count = 0;
  for (int i = 0; i < p.vertex_count; ++i) {
    const float drop = top - proj[i];
    if (drop > reach) continue;
    // Insertion by drop (a few vertices).
    int k = count++;
    for (; k > 0 && drops[k - 1] > drop; --k) {
      drops[k] = drops[k - 1];
      out[k] = out[k - 1];
    }
    drops[k] = drop;
    out[k] = static_cast<std::uint8_t>(i);
  }
  int kept = 1;
  for (int i = 1; i < count; ++i) {
    const Vec3 v = p.vertices[out[i]];
    int nearest = 0;
    float nearest_sq = LengthSquared(v - p.vertices[out[0]]);
    for (int k = 1; k < kept; ++k) {
      const float d = LengthSquared(v - p.vertices[out[k]]);
      if (d < nearest_sq) {
        nearest_sq = d;
        nearest = k;
      }
    }
    const float rise = drops[i] - drops[nearest] - round_off;
    if (rise <= 0.0f || rise * rise <= kFlatSine * kFlatSine * nearest_sq) {
      drops[kept] = drops[i];
      out[kept++] = out[i];
    }
  }
  return kept;
}

Vec3 ContactPoint(const SatPoly& a, const SatPoly& b, Vec3 offset_b, Vec3 n) {
  // The supporting features, as vertex indices (no scratch to initialise).
  std::uint8_t ia[kMaxHullVertices];
  std::uint8_t ib[kMaxHullVertices];
  float max_a;
  float neg_min_b;
  const int na = SupportFeature(a, Vec3{}, n, &max_a, ia);
  const int nb = SupportFeature(b, offset_b, -n, &neg_min_b, ib);
  const float min_b = -neg_min_b;
  const auto sa = [&](int k) { return a.vertices[ia[k]]; };
  const auto sb = [&](int k) { return b.vertices[ib[k]] + offset_b; };
  if (na == 1) return sa(0);
  if (nb == 1) return sb(0);
  if (na == 2 && nb == 2) {
    Vec3 ca, cb;
    ClosestPointsSegmentSegment(sa(0), sa(1), sb(0), sb(1), &ca, &cb);
    return 0.5f * (ca + cb);
  }
  // Both features are edges or faces: clip in the contact plane.
  const Vec3 u =
      NormalizeOrZero(std::fabs(n.x) < 0.6f ? Cross(n, Vec3{1, 0, 0})
                                            : Cross(n, Vec3{0, 1, 0}));
  const Vec3 w = Cross(n, u);
  std::array<P2, kMaxHullVertices> pa, pb, ha, hb;
  for (int i = 0; i < na; ++i) pa[i] = {Dot(u, sa(i)), Dot(w, sa(i))};
  for (int i = 0; i < nb; ++i) pb[i] = {Dot(u, sb(i)), Dot(w, sb(i))};
  const int ka = Hull2(pa.data(), na, ha.data());
  const int kb = Hull2(pb.data(), nb, hb.data());
  std::array<P2, kMaxClip> clipped;
  int kc = 0;
  if (ka >= 3) {
    kc = ClipPolygon(hb.data(), kb, ha.data(), ka, clipped.data());
  } else if (kb >= 3) {
    kc = ClipPolygon(ha.data(), ka, hb.data(), kb, clipped.data());
  }
  const float level = 0.5f * (max_a + min_b);
  if (kc > 0) {
    P2 mean{0.0f, 0.0f};
    for (int i = 0; i < kc; ++i) {
      mean.x += clipped[i].x;
      mean.y += clipped[i].y;
    }
    const float inv = 1.0f / static_cast<float>(kc);
    return level * n + (mean.x * inv) * u + (mean.y * inv) * w;
  }
  // No overlap of positive area: the features touch along their
  // boundaries (faces meeting edge to edge, a segment along a polygon's
  // side; round-off clips such a contact away), or both are segments.
  // The middle of their closest points. (This was the mean of all their
  // vertices, which for two boxes' faces meeting along an edge lay in the
  // middle of B's face, 0.75 off A.)
  const P2 mid = ClosestPolygonsMidpoint(ha.data(), ka, hb.data(), kb);
  return level * n + mid.x * u + mid.y * w;
}

SatSweepResult Run(const SatPoly& a, const SatPoly& b, Vec3 v, bool prune) {
  SatSweepResult result;
  SatState st;
  for (int i = 0; i < a.axis_count; ++i) {
    if (!TestAxis(a.axes[i], a, b, v, &st)) return result;
  }
  for (int i = 0; i < b.axis_count; ++i) {
    if (!TestAxis(b.axes[i], a, b, v, &st)) return result;
  }
  const bool use_gauss = prune && (a.is_hull || b.is_hull);
  const int ne_a = use_gauss ? a.edge_count : a.direction_count;
  const int ne_b = use_gauss ? b.edge_count : b.direction_count;
  for (int i = 0; i < ne_a; ++i) {
    const Vec3 da = a.edges[i].q - a.edges[i].p;
    for (int j = 0; j < ne_b; ++j) {
      if (use_gauss && !MinkowskiFace(a.edges[i], b.edges[j])) continue;
      const Vec3 db = b.edges[j].q - b.edges[j].p;
      const Vec3 axis = Cross(da, db);
      // Parallel edges make no Minkowski face (Ericson 4.4.1's epsilon).
      if (LengthSquared(axis) <=
          1e-10f * LengthSquared(da) * LengthSquared(db)) {
        continue;
      }
      if (!TestAxis(axis, a, b, v, &st)) return result;
    }
  }
  if (!st.entered) {
    result.status = SatSweepStatus::kStartedOverlapping;
    result.t = 0.0f;
    return result;
  }
  result.status = SatSweepStatus::kHit;
  result.t = st.TEnter();
  result.normal = NormalizeOrZero(st.axis);
  result.point = ContactPoint(a, b, st.TEnter() * v, result.normal);
  return result;
}

// Builds the SatPoly of a polytope shape placed by `pose` into whichever
// store fits, and calls f with it.
template <typename F>
SatSweepResult WithPoly(const ConvexShape3& shape, const Pose3& pose, F&& f) {
  return std::visit(
      [&](const auto& s) -> SatSweepResult {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, Box3>) {
          BoxStore store;
          MakeBox(s, pose, &store);
          return f(store.view);
        } else if constexpr (std::is_same_v<T, Triangle3>) {
          TriStore store;
          MakeTriangle(s, pose, &store);
          return f(store.view);
        } else if constexpr (std::is_same_v<
                                 T, std::shared_ptr<const ConvexHull>>) {
          HullStore store;
          MakeHull(*s, pose, &store);
          return f(store.view);
        } else {
          return SatSweepResult{};  // Not a polytope: the caller's bug.
        }
      },
      shape);
}

SatSweepResult Dispatch(const ConvexShape3& a, const ConvexShape3& b,
                        const Pose3& b_in_a, Vec3 v, bool prune) {
  return WithPoly(a, Pose3{}, [&](const SatPoly& pa) {
    return WithPoly(b, b_in_a,
                    [&](const SatPoly& pb) { return Run(pa, pb, v, prune); });
  });
}

}  // namespace

namespace {

// The contact point of two boxes touching along n (A's frame, A at the
// origin, B's axes u and centre cb): the supporting features follow from
// the signs of n in each box's frame (an axis whose edge is flat to within
// the tolerance makes the feature an edge or a face), so the common cases
// (a vertex, two edges) need no projections; faces go to ContactPoint.
Vec3 BoxBoxContactPoint(const float ha[3], const float hb[3], const Vec3 u[3],
                        Vec3 cb, Vec3 n) {
  const float na[3] = {n.x, n.y, n.z};
  const float nb[3] = {Dot(n, u[0]), Dot(n, u[1]), Dot(n, u[2])};
  // ContactPoint's criterion (kFlatSine): an axis is flat when the edge
  // along it is within kFlatSine of the contact plane, or within round-off
  // (the vertex scales bounded from the boxes' extents).
  const float round_off_a = kRoundOff * (ha[0] + ha[1] + ha[2]);
  const float round_off_b =
      kRoundOff * (std::fabs(cb.x) + std::fabs(cb.y) + std::fabs(cb.z) + hb[0] +
                   hb[1] + hb[2]);
  int flat_a = 0;
  int flat_b = 0;
  int axis_a = 0;
  int axis_b = 0;
  // The centres of the supporting features: A's farthest along n, B's
  // farthest along -n (0 along a flat axis, the half extent otherwise).
  Vec3 vertex_a{};
  Vec3 vertex_b = cb;
  for (int i = 0; i < 3; ++i) {
    const bool fa =
        2.0f * ha[i] * (std::fabs(na[i]) - kFlatSine) <= round_off_a;
    const bool fb =
        2.0f * hb[i] * (std::fabs(nb[i]) - kFlatSine) <= round_off_b;
    if (fa) {
      ++flat_a;
      axis_a = i;
    }
    if (fb) {
      ++flat_b;
      axis_b = i;
    }
    vertex_a[i] = fa ? 0.0f : (na[i] >= 0.0f ? ha[i] : -ha[i]);
    vertex_b -= (fb ? 0.0f : (nb[i] >= 0.0f ? hb[i] : -hb[i])) * u[i];
  }
  if (flat_a == 0) return vertex_a;
  if (flat_b == 0) return vertex_b;
  if (flat_a == 1 && flat_b == 1) {
    Vec3 ea{};
    ea[axis_a] = ha[axis_a];
    const Vec3 eb = hb[axis_b] * u[axis_b];
    Vec3 ca, cbp;
    ClosestPointsSegmentSegment(vertex_a - ea, vertex_a + ea, vertex_b - eb,
                                vertex_b + eb, &ca, &cbp);
    return 0.5f * (ca + cbp);
  }
  Vec3 corners_a[8];
  Vec3 corners_b[8];
  for (int k = 0; k < 8; ++k) {
    const float sx = (k & 1) ? 1.0f : -1.0f;
    const float sy = (k & 2) ? 1.0f : -1.0f;
    const float sz = (k & 4) ? 1.0f : -1.0f;
    corners_a[k] = {sx * ha[0], sy * ha[1], sz * ha[2]};
    corners_b[k] =
        cb + (sx * hb[0]) * u[0] + (sy * hb[1]) * u[1] + (sz * hb[2]) * u[2];
  }
  SatPoly poly_a;
  poly_a.vertices = corners_a;
  poly_a.vertex_count = 8;
  SatPoly poly_b;
  poly_b.vertices = corners_b;
  poly_b.vertex_count = 8;
  return ContactPoint(poly_a, poly_b, Vec3{}, n);
}

}  // namespace

namespace {

// The hit of the box-box sweep at fraction t_enter on axis `best` (0-2:
// A's faces e_i, 3-5: B's faces u_j, 6 + 3 i + j: e_i x u_j), crossed with
// speed of sign `best_sign`: the normal from A to B and the contact point,
// in A's frame.
SatSweepResult BoxSweepHit(const float (&ha)[3], const float (&hb)[3],
                           const float (&r)[3][3], Vec3 offset, Vec3 v,
                           int best, float best_sign, float t_enter) {
  SatSweepResult result;
  result.status = SatSweepStatus::kHit;
  result.t = t_enter;
  const Vec3 u[3] = {{r[0][0], r[1][0], r[2][0]},
                     {r[0][1], r[1][1], r[2][1]},
                     {r[0][2], r[1][2], r[2][2]}};
  Vec3 axis;
  if (best < 3) {
    axis = Vec3{};
    axis[best] = 1.0f;
  } else if (best < 6) {
    axis = u[best - 3];
  } else {
    Vec3 e{};
    e[(best - 6) / 3] = 1.0f;
    axis = Cross(e, u[(best - 6) % 3]);
  }
  result.normal = NormalizeOrZero(-best_sign * axis);
  result.point =
      BoxBoxContactPoint(ha, hb, u, offset + t_enter * v, result.normal);
  return result;
}

}  // namespace

namespace {

using simd::Float4;
using simd::Mask4;

// The box-box sweep three axes per vector (lane 3 unused): A's face axes
// e_i, B's face axes u_j, then the edge axes e_i x u_j for i = 0, 1, 2, each
// with the lanes j = 0, 1, 2. Every axis's centre offset c, speed s and
// radius r come from R = (R[i][j] = e_i . u_j) and |R| as in Gottschalk's
// OBB test (Ericson 4.4.1); for L = e_i x u_j, with (i1, i2) and (j1, j2)
// the other two indices in cyclic order,
//   r = ha[i1] |R[i2][j]| + ha[i2] |R[i1][j]| + hb[j1] |R[i][j2]|
//       + hb[j2] |R[i][j1]|
//   c = t[i2] R[i1][j] - t[i1] R[i2][j],  s likewise with v for t.
// Edge axes are not normalised: every quantity on an axis scales alike, so
// the fractions do not change. Lane j of row i is R[i][j] and lane i of
// column j is R[i][j], so each group is a few products of rows, columns and
// their rotations (lane j taking lane j + 1 or j + 2, mod 3).
struct BoxSweepLanes {
  Mask4 miss;    // The axis alone rules contact in [0, 1] out.
  Mask4 enters;  // The axis is crossed into after t = 0 ...
  Float4 t_in;   // ... at this fraction (0 where not).
  Float4 t_out;  // The axis is left at this fraction (1 if not before).
  Float4 s;      // The speed along the axis, before turning.
};

// Lane j takes lane (j + 1) % 3, or (j + 2) % 3; lane 3 stays.
Float4 Rotate1(Float4 v) { return simd::Permute<1, 2, 0, 3>(v); }
Float4 Rotate2(Float4 v) { return simd::Permute<2, 0, 1, 3>(v); }

// One group of three axes: B's centre is at c + s t along each (relative to
// A's), and the projections overlap while |c + s t| <= r. Turned so that s
// >= 0 (the sign of s flips c), the axis is crossed for t in [entry / s,
// exit / s] with entry = -r - c and exit = r - c: a miss if exit < 0 (B is
// past A and moving away) or entry > s (B does not arrive by t = 1).
// `skip` lanes (lane 3, parallel edge pairs) take no part.
BoxSweepLanes SweepLanes(Float4 c, Float4 s, Float4 r, Mask4 skip) {
  const Float4 zero = Float4::Splat(0.0f);
  const Float4 one = Float4::Splat(1.0f);
  const Float4 speed = simd::Abs(s);
  const Float4 offset = simd::FlipSign(c, s);
  const Float4 entry = (zero - r) - offset;
  const Float4 exit = r - offset;
  BoxSweepLanes out;
  out.s = s;
  out.miss = ~skip & ((exit < zero) | (entry > speed));
  // Fractions only where the axis does not miss: there 0 < entry <= s and
  // 0 <= exit < s, so no division by zero and no overflow (either would
  // raise a floating-point exception); elsewhere the division is by 1.
  const Mask4 live = ~(skip | out.miss);
  out.enters = live & (entry > zero);
  const Mask4 exits = live & (exit < speed);
  out.t_in = simd::Select(out.enters,
                          entry / simd::Select(out.enters, speed, one), zero);
  out.t_out = simd::Select(exits, exit / simd::Select(exits, speed, one), one);
  return out;
}

Float4 Row3(float x, float y, float z) { return {x, y, z, 0.0f}; }

}  // namespace

SatSweepResult SweepBoxBox(const Box3& a, const Box3& b, const Pose3& b_in_a,
                           Vec3 v) {
  // All 15 axes at once, branch-free: on random inputs the early exits of
  // an axis-by-axis loop mispredict about half the time, which costs more
  // than the arithmetic of every axis.
  SatSweepResult result;
  const float ha[3] = {a.half_extents.x, a.half_extents.y, a.half_extents.z};
  const float hb[3] = {b.half_extents.x, b.half_extents.y, b.half_extents.z};
  float r[3][3];
  internal::RotationMatrixOf(b_in_a.rotation, r);
  const Float4 row[3] = {Row3(r[0][0], r[0][1], r[0][2]),
                         Row3(r[1][0], r[1][1], r[1][2]),
                         Row3(r[2][0], r[2][1], r[2][2])};
  const Float4 col[3] = {Row3(r[0][0], r[1][0], r[2][0]),
                         Row3(r[0][1], r[1][1], r[2][1]),
                         Row3(r[0][2], r[1][2], r[2][2])};
  const Float4 abs_row[3] = {simd::Abs(row[0]), simd::Abs(row[1]),
                             simd::Abs(row[2])};
  // Edges nearly but not quite parallel (a sine in [1e-5, 0.05)) make axes
  // that R's entries describe only to round-off relative to their length
  // (1e-7 / sine): skipping them would report impacts early by the sine
  // times the edge length, and computing them from R would err by round-off
  // over the sine. The generic sweep projects the boxes' corners on those
  // axes instead. Rare on random rotations; a cheap test on |R| first
  // (box_overlap_axes.h).
  const Mask4 near_one =
      simd::Max(simd::Max(abs_row[0], abs_row[1]), abs_row[2]) >
      Float4::Splat(kBoxEdgeNearlyParallelCos);
  if (simd::AnyLane(near_one) && HasIllConditionedEdgePair(r)) {
    return SweepPolytopes(ConvexShape3{a}, ConvexShape3{b}, b_in_a, v);
  }
  const Vec3 offset = b_in_a.position;
  const float offsets[3] = {offset.x, offset.y, offset.z};
  const float speeds_in_a[3] = {v.x, v.y, v.z};
  const Float4 ha_lanes = Row3(ha[0], ha[1], ha[2]);
  const Float4 hb_lanes = Row3(hb[0], hb[1], hb[2]);
  const Mask4 lane3 = Float4(0.0f, 0.0f, 0.0f, 1.0f) == Float4::Splat(1.0f);
  auto mul = [](float x, Float4 y) { return Float4::Splat(x) * y; };
  BoxSweepLanes groups[5];
  // A's face axes e_i: r = ha[i] + sum_j hb[j] |R[i][j]|.
  const Float4 rb_faces =
      (mul(hb[0], simd::Abs(col[0])) + mul(hb[1], simd::Abs(col[1]))) +
      mul(hb[2], simd::Abs(col[2]));
  groups[0] = SweepLanes(Row3(offset.x, offset.y, offset.z),
                         Row3(v.x, v.y, v.z), ha_lanes + rb_faces, lane3);
  // B's face axes u_j: c = sum_i t[i] R[i][j], r = hb[j] + sum_i ha[i]
  // |R[i][j]|.
  const Float4 ra_faces = (mul(ha[0], abs_row[0]) + mul(ha[1], abs_row[1])) +
                          mul(ha[2], abs_row[2]);
  groups[1] = SweepLanes(
      (mul(offset.x, row[0]) + mul(offset.y, row[1])) + mul(offset.z, row[2]),
      (mul(v.x, row[0]) + mul(v.y, row[1])) + mul(v.z, row[2]),
      hb_lanes + ra_faces, lane3);
  // Edge axes e_i x u_j. Parallel edges (a sine below 1e-5) make no axis;
  // the face axes bound what such an axis could add to about 1e-5 of the
  // size. Edges nearly but not quite parallel went to the generic sweep
  // above.
  const Float4 hb_next = Rotate1(hb_lanes);
  const Float4 hb_after = Rotate2(hb_lanes);
  const Float4 parallel_limit = Float4::Splat(kBoxEdgeParallelSin2);
  for (int i = 0; i < 3; ++i) {
    const int i1 = (i + 1) % 3;
    const int i2 = (i + 2) % 3;
    const Float4 radius =
        (mul(ha[i1], abs_row[i2]) + mul(ha[i2], abs_row[i1])) +
        (hb_next * Rotate2(abs_row[i]) + hb_after * Rotate1(abs_row[i]));
    const Float4 c = mul(offsets[i2], row[i1]) - mul(offsets[i1], row[i2]);
    const Float4 s =
        mul(speeds_in_a[i2], row[i1]) - mul(speeds_in_a[i1], row[i2]);
    // |e_i x u_j|^2 = R[i1][j]^2 + R[i2][j]^2 (the other rows' lane j).
    const Mask4 parallel =
        (row[i1] * row[i1] + row[i2] * row[i2]) < parallel_limit;
    groups[2 + i] = SweepLanes(c, s, radius, parallel | lane3);
  }
  Mask4 miss = groups[0].miss;
  Float4 t_in = groups[0].t_in;
  Float4 t_out = groups[0].t_out;
  for (int k = 1; k < 5; ++k) {
    miss = miss | groups[k].miss;
    t_in = simd::Max(t_in, groups[k].t_in);
    t_out = simd::Min(t_out, groups[k].t_out);
  }
  const float enter = simd::MaxLane(t_in);
  const float exit = simd::MinLane(t_out);
  // Hit at the latest entry if it is no later than the earliest exit
  // (written so that a NaN entry or exit is a miss).
  if (simd::AnyLane(miss) || !(enter <= exit)) return result;
  // The axis of the latest entry, the first in the order above on a tie.
  const Float4 latest = Float4::Splat(enter);
  unsigned entering = 0;
  for (int k = 0; k < 5; ++k) {
    const Mask4 at_latest = groups[k].enters & (groups[k].t_in == latest);
    entering |= static_cast<unsigned>(simd::LaneBits(at_latest) & 7) << (3 * k);
  }
  // No axis entered after t = 0: every axis overlaps at t = 0.
  if (entering == 0) {
    result.status = SatSweepStatus::kStartedOverlapping;
    result.t = 0.0f;
    return result;
  }
  const int best = std::countr_zero(entering);
  const float best_sign = groups[best / 3].s[best % 3] < 0.0f ? -1.0f : 1.0f;
  return BoxSweepHit(ha, hb, r, offset, v, best, best_sign, enter);
}

SatSweepResult SweepBoxTriangle(const Box3& a, const Vec3 (&b)[3], Vec3 v,
                                bool with_point, float t_max) {
  // Run() on MakeBox(a, identity) and MakeTriangle: the same axes in the
  // same order, each tested by the same Update. The box's corners are
  // exactly (+-hx, +-hy, +-hz) there, so its projection on any axis is
  // [-r, r] (see sweep_sat.h), on its own face axes [-h_i, h_i].
  SatSweepResult result;
  SatState st;
  const Vec3 h = a.half_extents;
  // Entries later than this make the hit later than t_max, so the remaining
  // axes are skipped. The hit reported is TEnter(), the quotient
  // enter_num / enter_den rounded, which is at most t_max only if the exact
  // quotient is below the float after t_max, next(t_max). The latest entry
  // only grows, but for the round-off of the cross-multiplied comparisons
  // that pick it (about 2 FLT_EPSILON each, 16 axes at most: within 1e-5),
  // so an entry whose exact quotient exceeds next(t_max) (1 + 1e-5) cannot
  // end at or before t_max. The test enter_num > cutoff * enter_den holds
  // only when it does exceed it exactly (rounding is monotone and enter_num
  // is a float; an overflow to infinity never drops). next(t_max) is what
  // keeps a hit at exactly t_max (a mesh sweep's tie, for the least id)
  // where t_max is subnormal, below about 7e-41: t_max (1 + 1e-5) rounds to
  // t_max itself there, and a quotient within half a step above t_max was
  // dropped although it rounds to t_max (BoxTriangleSweep.
  // SubnormalFractionsMatchGeneric).
  const float cutoff =
      std::nextafter(t_max, std::numeric_limits<float>::infinity()) *
      (1.0f + 1e-5f);
  const auto test = [&](Vec3 axis) {
    const float r = std::fabs(axis.x) * h.x + std::fabs(axis.y) * h.y +
                    std::fabs(axis.z) * h.z;
    const float p0 = Dot(axis, b[0]);
    const float p1 = Dot(axis, b[1]);
    const float p2 = Dot(axis, b[2]);
    const float b0 = std::min(std::min(p0, p1), p2);
    const float b1 = std::max(std::max(p0, p1), p2);
    const float s = Dot(v, axis);
    // TestAxis with A's interval [-r, r]: turned so that s >= 0.
    const bool ok = s < 0.0f ? Update(-axis, b0 - r, r + b1, -s, &st)
                             : Update(axis, -r - b1, r - b0, s, &st);
    return ok && !(st.entered && st.enter_num > cutoff * st.enter_den);
  };
  // A's face axes e_i: the corners project to +-h_i, B's vertices to their
  // coordinates, v to v_i (Dot with a unit axis adds exact zeros).
  for (int i = 0; i < 3; ++i) {
    Vec3 axis{};
    axis[i] = 1.0f;
    const float r = h[i];
    const float b0 = std::min(std::min(b[0][i], b[1][i]), b[2][i]);
    const float b1 = std::max(std::max(b[0][i], b[1][i]), b[2][i]);
    const float s = v[i];
    const bool ok = s < 0.0f ? Update(-axis, b0 - r, r + b1, -s, &st)
                             : Update(axis, -r - b1, r - b0, s, &st);
    if (!ok) return result;
  }
  if (st.entered && st.enter_num > cutoff * st.enter_den) return result;
  // B's normal (in double, as MakeTriangle) and side normals.
  const Vec3 n = TriangleNormal(b[0], b[1], b[2]);
  if (!test(n)) return result;
  const Vec3 e[3] = {b[1] - b[0], b[2] - b[1], b[0] - b[2]};
  for (const Vec3& edge : e) {
    if (!test(NormalizeOrZero(Cross(edge, n)))) return result;
  }
  // Edge pairs: A's edge i is (2 h_i) e_i as MakeBox's corner difference;
  // parallel pairs make no axis (Run's test, the same expression).
  for (int i = 0; i < 3; ++i) {
    Vec3 da{};
    da[i] = h[i] - (-h[i]);
    const float da_sq = LengthSquared(da);
    for (const Vec3& edge : e) {
      const Vec3 axis = Cross(da, edge);
      if (LengthSquared(axis) <= 1e-10f * da_sq * LengthSquared(edge)) {
        continue;
      }
      if (!test(axis)) return result;
    }
  }
  if (!st.entered) {
    result.status = SatSweepStatus::kStartedOverlapping;
    result.t = 0.0f;
    return result;
  }
  result.status = SatSweepStatus::kHit;
  result.t = st.TEnter();
  result.normal = NormalizeOrZero(st.axis);
  if (!with_point) return result;
  // MakeBox's corners (identity pose), in its order.
  Vec3 corners[8];
  for (int k = 0; k < 8; ++k) {
    corners[k] = {(k & 1) ? h.x : -h.x, (k & 2) ? h.y : -h.y,
                  (k & 4) ? h.z : -h.z};
  }
  SatPoly poly_a;
  poly_a.vertices = corners;
  poly_a.vertex_count = 8;
  SatPoly poly_b;
  poly_b.vertices = b;
  poly_b.vertex_count = 3;
  result.point = ContactPoint(poly_a, poly_b, st.TEnter() * v, result.normal);
  return result;
}

SatSweepResult SweepPolytopes(const ConvexShape3& a, const ConvexShape3& b,
                              const Pose3& b_in_a, Vec3 v) {
  return Dispatch(a, b, b_in_a, v, true);
}

SatSweepResult SweepPolytopesUnpruned(const ConvexShape3& a,
                                      const ConvexShape3& b,
                                      const Pose3& b_in_a, Vec3 v) {
  return Dispatch(a, b, b_in_a, v, false);
}

}  // namespace sator::internal
