#include "core2d/bayazit_decomposition.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <optional>
#include <utility>

namespace sator::bench {
namespace {

// > 0 when c is left of the directed line a b.
double Turn(PointD a, PointD b, PointD c) {
  return (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
}

double Dist2(PointD a, PointD b) {
  return (a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y);
}

bool OnSegment(PointD p, PointD a, PointD b) {
  return std::min(a.x, b.x) <= p.x && p.x <= std::max(a.x, b.x) &&
         std::min(a.y, b.y) <= p.y && p.y <= std::max(a.y, b.y);
}

// The closed segments ab and cd share a point.
bool Meet(PointD a, PointD b, PointD c, PointD d) {
  const double t1 = Turn(a, b, c);
  const double t2 = Turn(a, b, d);
  const double t3 = Turn(c, d, a);
  const double t4 = Turn(c, d, b);
  if (((t1 > 0 && t2 < 0) || (t1 < 0 && t2 > 0)) &&
      ((t3 > 0 && t4 < 0) || (t3 < 0 && t4 > 0))) {
    return true;
  }
  return (t1 == 0 && OnSegment(c, a, b)) || (t2 == 0 && OnSegment(d, a, b)) ||
         (t3 == 0 && OnSegment(a, c, d)) || (t4 == 0 && OnSegment(b, c, d));
}

class Polygon {
 public:
  explicit Polygon(const std::vector<PointD>& points) : p_(points) {}
  long size() const { return static_cast<long>(p_.size()); }
  long Wrap(long i) const { return ((i % size()) + size()) % size(); }
  PointD At(long i) const { return p_[static_cast<std::size_t>(Wrap(i))]; }
  bool Reflex(long i) const { return Turn(At(i - 1), At(i), At(i + 1)) < 0; }

  // The points from i to j, counter-clockwise, both included.
  std::vector<PointD> Run(long i, long j) const {
    std::vector<PointD> out;
    for (long k = Wrap(i);; k = Wrap(k + 1)) {
      out.push_back(At(k));
      if (k == Wrap(j)) break;
    }
    return out;
  }

  // Direction p from vertex i lies strictly inside the polygon's angle
  // there.
  bool InAngle(long i, PointD p) const {
    const bool left_of_in = Turn(At(i - 1), At(i), p) > 0;
    const bool left_of_out = Turn(At(i), At(i + 1), p) > 0;
    return Reflex(i) ? left_of_in || left_of_out : left_of_in && left_of_out;
  }

  // The segment from vertex i to vertex j is a diagonal: inside both
  // angles and meeting no edge that does not end at i or j.
  bool Diagonal(long i, long j) const {
    if (!InAngle(i, At(j)) || !InAngle(j, At(i))) return false;
    for (long k = 0; k < size(); ++k) {
      const long k1 = Wrap(k + 1);
      if (k == i || k == j || k1 == i || k1 == j) continue;
      if (Meet(At(i), At(j), At(k), At(k1))) return false;
    }
    return true;
  }

  // Where the ray from vertex i along `direction` first meets an edge not
  // at i: that edge's index (from vertex e to e + 1) and the point.
  struct Hit {
    long edge;
    PointD point;
  };
  std::optional<Hit> Cast(long i, PointD direction) const {
    const PointD o = At(i);
    const PointD far{o.x + direction.x, o.y + direction.y};
    std::optional<Hit> best;
    double best_t = std::numeric_limits<double>::infinity();
    for (long e = 0; e < size(); ++e) {
      if (e == i || Wrap(e + 1) == i) continue;
      const PointD a = At(e);
      const PointD b = At(e + 1);
      const double sa = Turn(o, far, a);
      const double sb = Turn(o, far, b);
      if ((sa > 0 && sb > 0) || (sa < 0 && sb < 0) || sa == sb) continue;
      const double f = sa / (sa - sb);
      const PointD p{a.x + f * (b.x - a.x), a.y + f * (b.y - a.y)};
      const double t = (p.x - o.x) * direction.x + (p.y - o.y) * direction.y;
      if (t > 0 && t < best_t) {
        best_t = t;
        best = Hit{e, p};
      }
    }
    return best;
  }

 private:
  const std::vector<PointD>& p_;
};

// Splits `points` at its first reflex vertex that can be cut; false when
// it has none (it is convex) or none can be cut.
bool Split(const std::vector<PointD>& points, std::vector<PointD>& first,
           std::vector<PointD>& second) {
  const Polygon poly(points);
  for (long i = 0; i < poly.size(); ++i) {
    if (!poly.Reflex(i)) continue;
    const PointD v = poly.At(i);
    const PointD in = poly.At(i - 1);
    const PointD out = poly.At(i + 1);
    // The extensions of the edge arriving at i and of the edge leaving it.
    const std::optional<Polygon::Hit> lower =
        poly.Cast(i, {v.x - in.x, v.y - in.y});
    const std::optional<Polygon::Hit> upper =
        poly.Cast(i, {v.x - out.x, v.y - out.y});
    if (!lower.has_value() || !upper.has_value()) continue;
    if (lower->edge == upper->edge) {
      // No vertex between the two hits: cut to the point midway.
      const PointD steiner{0.5 * (lower->point.x + upper->point.x),
                           0.5 * (lower->point.y + upper->point.y)};
      first = poly.Run(i, lower->edge);
      first.push_back(steiner);
      second = {steiner};
      for (const PointD& p : poly.Run(lower->edge + 1, i)) second.push_back(p);
      return true;
    }
    // The vertices on the boundary between the hits: the best visible one.
    long best = -1;
    double best_score = -1.0;
    for (long k = lower->edge + 1;; ++k) {
      const long j = poly.Wrap(k);
      if (j != i && j != poly.Wrap(i - 1) && j != poly.Wrap(i + 1) &&
          poly.Diagonal(i, j)) {
        double score = 1.0 / (Dist2(v, poly.At(j)) + 1.0);
        if (poly.Reflex(j)) {
          // A reflex vertex whose own wedge holds i is resolved by the
          // same cut.
          const bool resolves = Turn(poly.At(j - 1), poly.At(j), v) >= 0 &&
                                Turn(poly.At(j + 1), poly.At(j), v) <= 0;
          score += resolves ? 3.0 : 2.0;
        } else {
          score += 1.0;
        }
        if (score > best_score) {
          best_score = score;
          best = j;
        }
      }
      if (j == poly.Wrap(upper->edge)) break;
    }
    if (best < 0) continue;
    first = poly.Run(i, best);
    second = poly.Run(best, i);
    return true;
  }
  return false;
}

}  // namespace

std::vector<std::vector<PointD>> BayazitDecompose(
    const std::vector<PointD>& polygon) {
  std::vector<std::vector<PointD>> pieces;
  // Depth first over the halves still to split, bounded by count: each
  // split resolves a reflex vertex, and there are fewer than n of them plus
  // the ones a new point adds.
  std::vector<std::vector<PointD>> pending{polygon};
  const std::size_t max_splits = 8 * polygon.size() + 8;
  for (std::size_t splits = 0; !pending.empty();) {
    std::vector<PointD> current = std::move(pending.back());
    pending.pop_back();
    std::vector<PointD> first;
    std::vector<PointD> second;
    if (splits < max_splits && Split(current, first, second)) {
      ++splits;
      pending.push_back(std::move(first));
      pending.push_back(std::move(second));
    } else {
      pieces.push_back(std::move(current));
    }
  }
  return pieces;
}

}  // namespace sator::bench
