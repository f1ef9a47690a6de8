// The separating axis test between convex cores, and contact points.
// Gottschalk, "Separating axis theorem", 1996; Ericson, "Real-Time Collision
// Detection" (2005) 4.4 and 5.2.1; Gregorius, "The Separating Axis Test
// between Convex Polyhedra", GDC 2013 (Gauss-map pruning of edge pairs and
// the reference/incident face clipping of the manifold).
#include "sat_polytope.h"

#include <array>
#include <cmath>

#include "convex_closest.h"

namespace sator::internal {
namespace {

float MinProjection(const PolyRef& p, Vec3 axis) {
  float m = Dot(axis, p.vertices[0]);
  for (int i = 1; i < p.vertex_count; ++i) {
    const float d = Dot(axis, p.vertices[i]);
    m = d < m ? d : m;
  }
  return m;
}

void Consider(SatAxis* best, AxisKind kind, float separation, Vec3 normal,
              int index_a, int index_b) {
  if (separation > best->separation) {
    *best = {kind, separation, normal, index_a, index_b};
  }
}

// Measures the unit axis `u` in both orientations by projection and keeps
// the orientation with the larger separation.
void ConsiderProjected(const PolyRef& a, const PolyRef& b, Vec3 u,
                       AxisKind kind, int index_a, int index_b, SatAxis* best) {
  float a_lo;
  float a_hi;
  float b_lo;
  float b_hi;
  Project(a, u, &a_lo, &a_hi);
  Project(b, u, &b_lo, &b_hi);
  const float plus = b_lo - a_hi;   // B on the +u side of A.
  const float minus = a_lo - b_hi;  // B on the -u side of A.
  if (plus >= minus) {
    Consider(best, kind, plus, u, index_a, index_b);
  } else {
    Consider(best, kind, minus, -u, index_a, index_b);
  }
}

// The unit cross product of two edge directions, or false when they are
// closer to parallel than kParallelSine. `well_conditioned` (if given) says
// whether the sine exceeds kEdgeReadSine, so that the separation may be
// read off the two edges.
bool EdgeAxis(Vec3 ea, Vec3 eb, Vec3* axis, bool* well_conditioned = nullptr) {
  const Vec3 u = Cross(ea, eb);
  const float len_sq = LengthSquared(u);
  const float lengths_sq = LengthSquared(ea) * LengthSquared(eb);
  const float limit = kParallelSine * kParallelSine * lengths_sq;
  if (!(len_sq > limit) || len_sq <= 0.0f) return false;
  *axis = (1.0f / std::sqrt(len_sq)) * u;
  if (well_conditioned != nullptr) {
    *well_conditioned = len_sq > kEdgeReadSine * kEdgeReadSine * lengths_sq;
  }
  return true;
}

bool HasVolume(const PolyRef& p) { return p.kind == CoreKind::kSolid; }

// Contact point buffers: an incident face of up to kMaxPolyVertices
// vertices, clipped by up to kMaxPolyVertices side planes.
constexpr int kMaxClip = 2 * kMaxPolyVertices + 8;
struct ClipBuffer {
  std::array<Vec3, kMaxClip> p;
  int n = 0;
};

void ClipByPlane(const ClipBuffer& in, Vec3 normal, float offset,
                 ClipBuffer* out) {
  out->n = 0;
  if (in.n == 0) return;
  Vec3 prev = in.p[in.n - 1];
  float d_prev = Dot(normal, prev) - offset;
  for (int i = 0; i < in.n; ++i) {
    const Vec3 cur = in.p[i];
    const float d_cur = Dot(normal, cur) - offset;
    if ((d_prev <= 0.0f) != (d_cur <= 0.0f)) {
      // The edge crosses the plane; d_prev != d_cur here.
      const float t = d_prev / (d_prev - d_cur);
      if (out->n < kMaxClip) out->p[out->n++] = prev + t * (cur - prev);
    }
    if (d_cur <= 0.0f && out->n < kMaxClip) out->p[out->n++] = cur;
    prev = cur;
    d_prev = d_cur;
  }
}

// The midpoint of the closest points of two convex polygons, each given by
// its vertex loop (one vertex: a point; two: a segment), in double: the
// least over every edge (or the point) of one against every edge of the
// other (Ericson 5.1.9), each vertex against the other polygon's interior
// (its projection on the plane, when inside), and each edge crossing the
// other polygon (distance 0 there). A cold fallback of the contact points
// (see ClippedAwayPoint and FillContact), where the features meet along their
// boundaries or only within round-off.
[[gnu::cold, gnu::noinline]] Vec3 ClosestFeaturesMidpoint(const Vec3* pa,
                                                          int na,
                                                          const Vec3* pb,
                                                          int nb) {
  double best = 3.0e300;
  D3 best_a = ToD3(pa[0]);
  D3 best_b = ToD3(pb[0]);
  const auto offer = [&](D3 x, D3 y) {
    const D3 d = y - x;
    const double dd = Dot(d, d);
    if (dd < best) {
      best = dd;
      best_a = x;
      best_b = y;
    }
  };
  // A loop of n >= 3 vertices has n edges, a segment one, a point none
  // (then the point itself stands as a segment of zero length).
  const auto edges = [](int n) { return n >= 3 ? n : 1; };
  for (int i = 0; i < edges(na); ++i) {
    for (int j = 0; j < edges(nb); ++j) {
      D3 x;
      D3 y;
      ClosestPointsSegmentSegmentD3(pa[i], pa[(i + 1) % na], pb[j],
                                    pb[(j + 1) % nb], &x, &y);
      offer(x, y);
    }
  }
  // Points of `p` (n_p vertices) against polygon `q` (n_q >= 3): vertices
  // over its interior, edges through it.
  const auto against_polygon = [&](const Vec3* p, int n_p, const Vec3* q,
                                   int n_q, bool p_is_a) {
    if (n_q < 3) return;
    const D3 q0 = ToD3(q[0]);
    D3 normal{0.0, 0.0, 0.0};
    for (int k = 1; k + 1 < n_q; ++k) {
      normal = normal + Cross(ToD3(q[k]) - q0, ToD3(q[k + 1]) - q0);
    }
    const double nn = Dot(normal, normal);
    if (!(nn > 0.0)) return;
    const auto inside = [&](D3 x) {
      for (int k = 0; k < n_q; ++k) {
        const D3 e = ToD3(q[(k + 1) % n_q]) - ToD3(q[k]);
        if (Dot(Cross(e, x - ToD3(q[k])), normal) < 0.0) return false;
      }
      return true;
    };
    const auto pair = [&](D3 on_p, D3 on_q) {
      if (p_is_a) {
        offer(on_p, on_q);
      } else {
        offer(on_q, on_p);
      }
    };
    for (int k = 0; k < n_p; ++k) {
      const D3 v = ToD3(p[k]);
      const D3 foot = v - (Dot(v - q0, normal) / nn) * normal;
      if (inside(foot)) pair(v, foot);
    }
    for (int k = 0; k < edges(n_p) && n_p >= 2; ++k) {
      const D3 u = ToD3(p[k]);
      const D3 v = ToD3(p[(k + 1) % n_p]);
      const double su = Dot(u - q0, normal);
      const double sv = Dot(v - q0, normal);
      if ((su < 0.0) == (sv < 0.0) || su == sv) continue;
      const D3 x = u + (su / (su - sv)) * (v - u);
      if (inside(x)) pair(x, x);
    }
  };
  against_polygon(pa, na, pb, nb, true);
  against_polygon(pb, nb, pa, na, false);
  return ToVec3(0.5 * (best_a + best_b));
}

// The vertices of `p` farthest along `dir`, within 1e-5 of the vertex
// scale (the largest |x| + |y| + |z|) of the extreme one, into `out` (up to
// 3): a vertex or an edge, or a triangle's face. Of a polytope of more than
// three vertices only the extreme vertex, whose other supporting vertices
// in index order need not form a loop.
int SupportVertices(const PolyRef& p, Vec3 dir, Vec3* out) {
  float top = -3.0e38f;
  float scale = 0.0f;
  for (int i = 0; i < p.vertex_count; ++i) {
    const Vec3 v = p.vertices[i];
    top = std::fmax(top, Dot(dir, v));
    scale = std::fmax(scale, std::fabs(v.x) + std::fabs(v.y) + std::fabs(v.z));
  }
  if (p.vertex_count > 3) {
    out[0] = p.vertices[SupportIndex(p, dir)];
    return 1;
  }
  int n = 0;
  for (int i = 0; i < p.vertex_count; ++i) {
    if (top - Dot(dir, p.vertices[i]) <= 1e-5f * scale) {
      out[n++] = p.vertices[i];
    }
  }
  if (n == 0) {  // Only for non-finite input, which validation refuses.
    out[n++] = p.vertices[0];
  }
  return n;
}

// ClipFaces' fallback when round-off clips everything away: the incident
// shape's deepest vertex along -n (n the reference face's normal) moved half
// the depth along n, as before; but where a triangle's deepest feature is an
// edge or its face (ties within SupportVertices' tolerance: coplanar
// triangles touching edge to edge, say), the middle of the closest points
// of that feature and the reference face. The deepest vertex was then
// either end of the edge, off the reference triangle by up to the edge's
// length.
[[gnu::cold, gnu::noinline]] Vec3 ClippedAwayPoint(const PolyRef& ref, int f,
                                                   const PolyRef& inc) {
  const ConvexHull::Face& face = ref.faces[f];
  Vec3 deepest[3];
  const int n = SupportVertices(inc, -face.normal, deepest);
  if (n == 1) {
    const float depth = face.offset - Dot(face.normal, deepest[0]);
    return deepest[0] + (0.5f * depth) * face.normal;
  }
  std::array<Vec3, kMaxPolyVertices> pr;
  for (int i = 0; i < face.vertex_count; ++i) pr[i] = ref.FaceVertex(f, i);
  return ClosestFeaturesMidpoint(pr.data(), face.vertex_count, deepest, n);
}

// Clips the incident face of `inc` against the reference face `f` of `ref`.
// `ref_normal` is ref's outward face normal.
void ClipFaces(const PolyRef& ref, int f, const PolyRef& inc,
               ContactResult<3>* result) {
  const ConvexHull::Face& face = ref.faces[f];
  const Vec3 nr = face.normal;
  // Per-thread scratch (about 5 KB): declared locally, the zero
  // initialisation of the Vec3 arrays cost more than the clipping itself.
  thread_local ClipBuffer buf_a;
  thread_local ClipBuffer buf_b;
  thread_local std::array<Vec3, kMaxClip> points;
  thread_local std::array<float, kMaxClip> depths;
  buf_a.n = 0;
  if (inc.face_count > 0) {
    int best = 0;
    float best_dot = Dot(inc.faces[0].normal, nr);
    for (int g = 1; g < inc.face_count; ++g) {
      const float d = Dot(inc.faces[g].normal, nr);
      if (d < best_dot) {
        best_dot = d;
        best = g;
      }
    }
    for (int i = 0; i < inc.faces[best].vertex_count; ++i) {
      buf_a.p[buf_a.n++] = inc.FaceVertex(best, i);
    }
  } else {
    for (int i = 0; i < inc.vertex_count; ++i) {
      buf_a.p[buf_a.n++] = inc.vertices[i];
    }
  }
  ClipBuffer* in = &buf_a;
  ClipBuffer* out = &buf_b;
  for (int i = 0; i < face.vertex_count && in->n > 0; ++i) {
    const Vec3 r0 = ref.FaceVertex(f, i);
    const Vec3 r1 = ref.FaceVertex(f, (i + 1) % face.vertex_count);
    const Vec3 side = Cross(r1 - r0, nr);
    ClipByPlane(*in, side, Dot(side, r0), out);
    ClipBuffer* t = in;
    in = out;
    out = t;
  }
  int count = 0;
  for (int i = 0; i < in->n; ++i) {
    const float depth = face.offset - Dot(nr, in->p[i]);
    if (depth >= 0.0f) {
      points[count] = in->p[i] + (0.5f * depth) * nr;
      depths[count] = depth;
      ++count;
    }
  }
  if (count == 0) {
    // Round-off clipped everything away (see ClippedAwayPoint).
    result->points[0] = ClippedAwayPoint(ref, f, inc);
    result->point_count = 1;
    return;
  }
  ReduceContactPoints(points.data(), depths.data(), count, nr, result);
}

// Among the edges of `p` parallel to edge `e`, the one farthest along
// `axis`.
int SupportEdge(const PolyRef& p, int e, Vec3 axis) {
  const Vec3 dir = p.vertices[p.edges[e].b] - p.vertices[p.edges[e].a];
  int best = e;
  float best_d = Dot(axis, p.vertices[p.edges[e].a] + p.vertices[p.edges[e].b]);
  for (int i = 0; i < p.edge_count; ++i) {
    const Vec3 d = p.vertices[p.edges[i].b] - p.vertices[p.edges[i].a];
    const Vec3 c = Cross(d, dir);
    if (LengthSquared(c) > 1e-6f * LengthSquared(d) * LengthSquared(dir)) {
      continue;
    }
    const float m =
        Dot(axis, p.vertices[p.edges[i].a] + p.vertices[p.edges[i].b]);
    if (m > best_d) {
      best_d = m;
      best = i;
    }
  }
  return best;
}

// An edge of `p` that supports it along `axis` (both ends farthest along
// it): SupportEdge's edge parallel to `e`, unless some edge's lower end
// lies farther along the axis than that edge's. With a triangle every edge
// pair is measured by projection, and on exactly degenerate inputs the
// winning pair need not be the supporting one: any two edges perpendicular
// to the axis give the same cross product, and the first pair found wins
// the tie (a triangle's edge crossing a hull's, reported with another hull
// edge in the same plane; its closest points lay 0.83 off the triangle).
int SupportingEdge(const PolyRef& p, int e, Vec3 axis) {
  const auto low = [&p, axis](int i) {
    return std::fmin(Dot(axis, p.vertices[p.edges[i].a]),
                     Dot(axis, p.vertices[p.edges[i].b]));
  };
  int best = SupportEdge(p, e, axis);
  float best_low = low(best);
  for (int i = 0; i < p.edge_count; ++i) {
    const float l = low(i);
    if (l > best_low) {
      best_low = l;
      best = i;
    }
  }
  return best;
}

// The face of `p` (among `faces`, or all faces when `faces` is null) whose
// outward normal lies within kFaceContactSine of the unit `dir`, or -1.
int ParallelFace(const PolyRef& p, Vec3 dir, const int* faces, int count) {
  constexpr float kLimit = kFaceContactSine * kFaceContactSine;
  for (int k = 0; k < count; ++k) {
    const int f = faces != nullptr ? faces[k] : k;
    const Vec3 n = p.faces[f].normal;
    if (Dot(n, dir) > 0.0f && LengthSquared(Cross(n, dir)) <= kLimit) {
      return f;
    }
  }
  return -1;
}

// For an edge axis that is a face normal of A (outward along the axis) or
// of B (outward against it), the contact points of that face axis (see
// kFaceContactSine); false when it is no face normal. `faces_a` / `faces_b`
// restrict the faces tried (null: all of them).
bool FaceContactForEdgeAxis(const PolyRef& a, const int* faces_a, int count_a,
                            const PolyRef& b, const int* faces_b, int count_b,
                            Vec3 normal, ContactResult<3>* result) {
  const int fa = ParallelFace(a, normal, faces_a, count_a);
  if (fa >= 0) {
    ClipFaces(a, fa, b, result);
    return true;
  }
  const int fb = ParallelFace(b, -normal, faces_b, count_b);
  if (fb >= 0) {
    ClipFaces(b, fb, a, result);
    return true;
  }
  return false;
}

// One contact point midway between the closest points of edge ia of `a`
// and edge ib of `b`.
void EdgeContact(const PolyRef& a, int ia, const PolyRef& b, int ib,
                 ContactResult<3>* result) {
  Vec3 ca;
  Vec3 cb;
  ClosestPointsSegmentSegment(
      a.vertices[a.edges[ia].a], a.vertices[a.edges[ia].b],
      b.vertices[b.edges[ib].a], b.vertices[b.edges[ib].b], &ca, &cb);
  result->points[0] = 0.5f * (ca + cb);
  result->point_count = 1;
}

}  // namespace

// Keeps at most 4 of `count` points: the deepest, the farthest from it, the
// one spanning the largest triangle with those two, and the one adding the
// most area outside that triangle (the usual manifold reduction).
void ReduceContactPoints(const Vec3* points, const float* depths, int count,
                         Vec3 normal, ContactResult<3>* result) {
  if (count <= 4) {
    for (int i = 0; i < count; ++i) result->points[i] = points[i];
    result->point_count = count;
    return;
  }
  int i0 = 0;
  for (int i = 1; i < count; ++i) {
    if (depths[i] > depths[i0]) i0 = i;
  }
  int i1 = i0 == 0 ? 1 : 0;
  float far = -1.0f;
  for (int i = 0; i < count; ++i) {
    const float d = LengthSquared(points[i] - points[i0]);
    if (d > far) {
      far = d;
      i1 = i;
    }
  }
  int i2 = -1;
  float area2 = 0.0f;
  for (int i = 0; i < count; ++i) {
    const float s = std::fabs(
        Dot(Cross(points[i1] - points[i0], points[i] - points[i0]), normal));
    if (s > area2) {
      area2 = s;
      i2 = i;
    }
  }
  result->points[0] = points[i0];
  result->points[1] = points[i1];
  if (i2 < 0) {
    result->point_count = 2;
    return;
  }
  result->points[2] = points[i2];
  // Orientation of (p0, p1, p2) about the normal.
  const Vec3 p0 = points[i0];
  const Vec3 p1 = points[i1];
  const Vec3 p2 = points[i2];
  const float sign =
      Dot(Cross(p1 - p0, p2 - p0), normal) >= 0.0f ? 1.0f : -1.0f;
  int i3 = -1;
  float gain = 0.0f;
  const Vec3 tri[3] = {p0, p1, p2};
  for (int i = 0; i < count; ++i) {
    for (int e = 0; e < 3; ++e) {
      const Vec3 u = tri[e];
      const Vec3 v = tri[(e + 1) % 3];
      const float s =
          -sign * Dot(Cross(v - u, points[i] - u), normal);  // > 0: outside.
      if (s > gain) {
        gain = s;
        i3 = i;
      }
    }
  }
  if (i3 < 0) {
    result->point_count = 3;
    return;
  }
  result->points[3] = points[i3];
  result->point_count = 4;
}

SatAxis SatQuery(const PolyRef& a, const PolyRef& b, bool early_out) {
  SatAxis best;
  // Face normals of A: B pushed along +n.
  for (int f = 0; f < a.face_count; ++f) {
    const ConvexHull::Face& face = a.faces[f];
    Consider(&best, AxisKind::kFaceA,
             MinProjection(b, face.normal) - face.offset, face.normal, f, -1);
    if (early_out && best.separation > 0.0f) return best;
  }
  // Face normals of B: A pushed along +n_B, so B moves along -n_B.
  for (int f = 0; f < b.face_count; ++f) {
    const ConvexHull::Face& face = b.faces[f];
    Consider(&best, AxisKind::kFaceB,
             MinProjection(a, face.normal) - face.offset, -face.normal, -1, f);
    if (early_out && best.separation > 0.0f) return best;
  }
  // Edge-edge axes.
  if (HasVolume(a) && HasVolume(b)) {
    for (int i = 0; i < a.edge_count; ++i) {
      const ConvexHull::Edge& ea = a.edges[i];
      const Vec3 pa = a.vertices[ea.a];
      const Vec3 n1 = a.faces[ea.face_left].normal;
      const Vec3 n2 = a.faces[ea.face_right].normal;
      const Vec3 da = EdgePole(a.vertices[ea.b] - pa, n1, n2);
      // A's arc plane n2 x n1, or at a knife edge its pole oriented by the
      // outward direction there (as for the hull SAT's knife edges).
      bool knife_a;
      const Vec3 bxa = ArcPlane(n1, n2, da, pa - a.centroid, &knife_a);
      for (int j = 0; j < b.edge_count; ++j) {
        const ConvexHull::Edge& eb = b.edges[j];
        const Vec3 nl = b.faces[eb.face_left].normal;
        const Vec3 nr = b.faces[eb.face_right].normal;
        // Gregorius GDC 2013: the arcs (a, b) = (n1, n2) and (c, d) =
        // (-nl, -nr) (B's normals negated: the Minkowski difference A - B)
        // cross iff c and d lie on opposite sides of the plane b x a, a and
        // b on opposite sides of the plane d x c, and the arcs are in the
        // same hemisphere. B's plane only for pairs that pass the first.
        const float cba = -Dot(nl, bxa);
        const float dba = -Dot(nr, bxa);
        if (!(cba * dba < 0.0f)) continue;
        const Vec3 pb = b.vertices[eb.a];
        // (-nr) x (-nl) = nr x nl, or at a knife edge B's pole.
        Vec3 dxc = Cross(nr, nl);
        bool knife_b = false;
        if (IsKnifeEdge(dxc, nl, nr)) [[unlikely]] {
          dxc = ArcPlane(nl, nr, EdgePole(b.vertices[eb.b] - pb, nl, nr),
                         pb - b.centroid, &knife_b);
        }
        const float adc = Dot(n1, dxc);
        const float bdc = Dot(n2, dxc);
        if (!(adc * bdc < 0.0f && cba * bdc > 0.0f)) continue;
        Vec3 n;
        bool well_conditioned = false;
        if (!EdgeAxis(da, EdgePole(b.vertices[eb.b] - pb, nl, nr), &n,
                      &well_conditioned)) {
          continue;
        }
        // Orient away from A: A's edge is A's support feature along n.
        if (Dot(n, pa - a.centroid) < 0.0f) n = -n;
        // Read off the edges, and measured by projection where the axis is
        // poorly conditioned or would become the best (kEdgeReadSine): a
        // reported separation is always the one along its normal. Knife
        // edges too: a crossing decided within their arcs' round-off may
        // name an axis along which the edges do not support.
        float separation = Dot(n, pb - pa);
        if (!well_conditioned || knife_a || knife_b ||
            separation > best.separation) {
          separation = MinProjection(b, n) + MinProjection(a, -n);
        }
        Consider(&best, AxisKind::kEdges, separation, n, i, j);
        if (early_out && best.separation > 0.0f) return best;
      }
    }
  } else {
    for (int i = 0; i < a.edge_count; ++i) {
      const Vec3 da = a.vertices[a.edges[i].b] - a.vertices[a.edges[i].a];
      for (int j = 0; j < b.edge_count; ++j) {
        Vec3 n;
        if (!EdgeAxis(da, b.vertices[b.edges[j].b] - b.vertices[b.edges[j].a],
                      &n)) {
          continue;
        }
        ConsiderProjected(a, b, n, AxisKind::kEdges, i, j, &best);
        if (early_out && best.separation > 0.0f) return best;
      }
    }
    // Two triangles (coplanar ones especially) also need the in-plane
    // normals of their edges.
    if (a.kind == CoreKind::kTriangle && b.kind == CoreKind::kTriangle) {
      for (const PolyRef* t : {&a, &b}) {
        const Vec3 n = t->faces[0].normal;
        for (int i = 0; i < 3; ++i) {
          const Vec3 u = NormalizeOrZero(
              Cross(t->vertices[(i + 1) % 3] - t->vertices[i], n));
          if (LengthSquared(u) == 0.0f) continue;
          ConsiderProjected(a, b, u, AxisKind::kOther, -1, -1, &best);
          if (early_out && best.separation > 0.0f) return best;
        }
      }
    }
    // Points and segments against points and segments: the Minkowski
    // difference is at most flat, so add a perpendicular of the segments
    // (and any axis for two points) to give the zero-overlap direction.
    if (a.face_count == 0 && b.face_count == 0) {
      Vec3 dir{0.0f, 0.0f, 1.0f};
      if (a.kind == CoreKind::kSegment) {
        dir = AnyPerpendicular(NormalizeOrZero(a.vertices[1] - a.vertices[0]));
      } else if (b.kind == CoreKind::kSegment) {
        dir = AnyPerpendicular(NormalizeOrZero(b.vertices[1] - b.vertices[0]));
      }
      if (LengthSquared(dir) > 0.0f) {
        ConsiderProjected(a, b, dir, AxisKind::kOther, -1, -1, &best);
      }
    }
  }
  return best;
}

void FillContact(const PolyRef& a, const PolyRef& b, const SatAxis& axis,
                 ContactResult<3>* result) {
  result->normal = axis.normal;
  result->depth = -axis.separation;
  result->overlapping = result->depth >= 0.0f;
  result->point_count = 0;
  if (!result->overlapping) return;
  switch (axis.kind) {
    case AxisKind::kFaceA:
      ClipFaces(a, axis.index_a, b, result);
      return;
    case AxisKind::kFaceB:
      ClipFaces(b, axis.index_b, a, result);
      return;
    case AxisKind::kEdges:
      if (FaceContactForEdgeAxis(a, nullptr, a.face_count, b, nullptr,
                                 b.face_count, axis.normal, result)) {
        return;
      }
      EdgeContact(a, SupportingEdge(a, axis.index_a, axis.normal), b,
                  SupportingEdge(b, axis.index_b, -axis.normal), result);
      return;
    case AxisKind::kNone:
    case AxisKind::kOther: {
      // Two triangles' in-plane axis (nearly coplanar triangles meeting
      // edge to edge or vertex to edge; kNone is never the best axis of
      // valid shapes): the middle of the closest points of A's supporting
      // feature along the normal and B's against it. (This was B's deepest
      // vertex moved half the depth: with B's edge along A's, either end,
      // off A by up to the edge's length.)
      Vec3 fa[3];
      Vec3 fb[3];
      const int na = SupportVertices(a, axis.normal, fa);
      const int nb = SupportVertices(b, -axis.normal, fb);
      result->points[0] = ClosestFeaturesMidpoint(fa, na, fb, nb);
      result->point_count = 1;
      return;
    }
  }
}

void FillContactMinkowskiEdges(const PolyRef& a, const PolyRef& b,
                               const SatAxis& axis, ContactResult<3>* result) {
  if (axis.kind != AxisKind::kEdges || axis.separation > 0.0f) {
    FillContact(a, b, axis, result);
    return;
  }
  result->normal = axis.normal;
  result->depth = -axis.separation;
  result->overlapping = true;
  // The edges support their shapes along the axis, so a face of either
  // shape that is its support face along it contains the edge.
  const ConvexHull::Edge& ea = a.edges[axis.index_a];
  const ConvexHull::Edge& eb = b.edges[axis.index_b];
  const int faces_a[2] = {ea.face_left, ea.face_right};
  const int faces_b[2] = {eb.face_left, eb.face_right};
  if (FaceContactForEdgeAxis(a, faces_a, 2, b, faces_b, 2, axis.normal,
                             result)) {
    return;
  }
  EdgeContact(a, axis.index_a, b, axis.index_b, result);
}

}  // namespace sator::internal
