// Scene sharding: which satord endpoint owns a scene, and where the list of
// endpoints comes from.
//
// A scene lives on exactly one satord. Every client maps a scene id to its
// owner with rendezvous (highest random weight) hashing (D. G. Thaler and
// C. V. Ravishankar, "Using name-based mappings to increase hit rates",
// IEEE/ACM Transactions on Networking 6(1), 1998): each endpoint gets the
// weight W(endpoint, scene id), a pseudo-random 64-bit number, and the
// endpoint with the highest weight owns the scene. Two properties follow,
// and the tests check both:
//   - adding an endpoint to N moves only the scenes whose new highest weight
//     is the new endpoint's: about 1/(N+1) of them, all onto the new one;
//   - removing an endpoint moves only the scenes it owned, spread over the
//     others; every other scene keeps its owner.
// The weight is SipHash-2-4 (J.-P. Aumasson and D. J. Bernstein, "SipHash: a
// fast short-input PRF", INDOCRYPT 2012) of the endpoint name and the scene id
// under a fixed key. It is the same in every process, build and machine (so
// every game server agrees on the owners), which std::hash and absl::Hash do
// not promise (absl::Hash is seeded per process). Any good 64-bit hash would
// do; SipHash is a small, fully specified function with published test
// vectors, so it needs no extra dependency and its output can be checked
// against an independent source.
//
// Endpoints are gRPC targets ("host:port"). The recommended source in
// Kubernetes is the StatefulSet's pod DNS names (StatefulSetEndpoints): they
// are stable across pod restarts and rescheduling, so a restarted pod keeps
// its scenes. A headless Service's addresses (ResolveHeadlessService) change
// whenever a pod is rescheduled, which would remap scenes; use them only where
// pod names are not available.
#ifndef SATOR_CLIENT_SHARDING_H_
#define SATOR_CLIENT_SHARDING_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace sator {

// The rendezvous weight of `endpoint` for `scene_id`: SipHash-2-4 under
// kShardingKey of the bytes of `endpoint`, one zero byte, then the bytes of
// `scene_id` (the zero byte keeps ("ab", "c") and ("a", "bc") apart; neither
// a gRPC target nor a scene id contains one).
uint64_t RendezvousWeight(absl::string_view endpoint,
                          absl::string_view scene_id);

// SipHash-2-4 of `message` under the 128-bit key (k0, k1), the 64-bit output
// of the reference implementation (key bytes little-endian). Exposed for its
// test vectors.
uint64_t SipHash24(uint64_t k0, uint64_t k1, absl::string_view message);

// The fixed SipHash key of RendezvousWeight. Changing it remaps every scene:
// never change it.
inline constexpr uint64_t kShardingKey0 = 0x7361746f722d7368;  // "sator-sh"
inline constexpr uint64_t kShardingKey1 = 0x617264696e672d31;  // "arding-1"

// Maps scene ids to the endpoint that owns them. Immutable; cheap to copy.
class RendezvousRouter {
 public:
  // INVALID_ARGUMENT for an empty list, an empty endpoint or a duplicate
  // (naming `endpoints[i]`). The order of `endpoints` does not matter for the
  // mapping.
  static absl::StatusOr<RendezvousRouter> Create(
      std::vector<std::string> endpoints);

  // The index in endpoints() of the owner of `scene_id`. Ties (equal 64-bit
  // weights; about one scene in 2^64 / N) go to the smaller endpoint name, so
  // the answer never depends on the list's order.
  size_t OwnerIndex(absl::string_view scene_id) const;
  const std::string& Owner(absl::string_view scene_id) const {
    return endpoints_[OwnerIndex(scene_id)];
  }

  const std::vector<std::string>& endpoints() const { return endpoints_; }

 private:
  explicit RendezvousRouter(std::vector<std::string> endpoints)
      : endpoints_(std::move(endpoints)) {}
  std::vector<std::string> endpoints_;
};

// The pods of a Kubernetes StatefulSet behind a headless Service. Pod i is
// reachable at "<statefulset>-<i>.<service>.<namespace>.svc.<cluster_domain>
// :<port>" for 0 <= i < replicas; the name stays the same when the pod is
// restarted or moved to another node.
struct StatefulSetEndpoints {
  std::string statefulset = "satord";
  std::string headless_service = "satord";
  // Empty: the short form "<pod>.<service>:<port>", which resolves only from
  // a pod in the same namespace (through its DNS search path).
  std::string kubernetes_namespace = "sator";
  std::string cluster_domain = "cluster.local";
  int replicas = 1;
  int port = 50051;
};

// The pod DNS names of `statefulset` as gRPC targets, in ordinal order.
// INVALID_ARGUMENT (naming the field) for names that are not DNS labels
// (RFC 1123: 1 to 63 characters of [a-z0-9-], starting and ending with a
// letter or digit; the cluster domain may have several), replicas < 1 or a
// port outside 1..65535.
absl::StatusOr<std::vector<std::string>> StatefulSetPodEndpoints(
    const StatefulSetEndpoints& statefulset);

// Resolves `host` (e.g. a headless Service's name, "satord.sator.svc.
// cluster.local") to all its addresses, as sorted, distinct gRPC targets
// "a.b.c.d:port" and "[v6]:port". NOT_FOUND when the name has no address,
// UNAVAILABLE when the resolver fails. Addresses change when pods are
// rescheduled: prefer StatefulSetPodEndpoints.
absl::StatusOr<std::vector<std::string>> ResolveHeadlessService(
    const std::string& host, int port);

}  // namespace sator

#endif  // SATOR_CLIENT_SHARDING_H_
