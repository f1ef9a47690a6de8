// Rendezvous hashing of scene ids onto endpoints, SipHash-2-4, and the
// endpoint sources (StatefulSet pod names, a headless Service's addresses).
#include "sator/client/sharding.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <set>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "sator/core/field_status.h"

namespace sator {
namespace {

// SipHash-2-4 as specified by Aumasson and Bernstein (2012), section 2:
// the state is four 64-bit words initialised from the key and four constants;
// each 8-byte little-endian message word m is absorbed as v3 ^= m, two
// SipRounds, v0 ^= m; the last word carries the message length (mod 256) in
// its top byte; finalisation is v2 ^= 0xff, four SipRounds, and the output
// v0 ^ v1 ^ v2 ^ v3. This version absorbs its input in pieces, so that the
// weight of (endpoint, scene id) needs no concatenated copy.
class SipHasher {
 public:
  SipHasher(uint64_t k0, uint64_t k1)
      : v0_(k0 ^ 0x736f6d6570736575),
        v1_(k1 ^ 0x646f72616e646f6d),
        v2_(k0 ^ 0x6c7967656e657261),
        v3_(k1 ^ 0x7465646279746573) {}

  void Update(absl::string_view bytes) {
    for (const char c : bytes) {
      pending_ |= static_cast<uint64_t>(static_cast<unsigned char>(c))
                  << (8 * pending_bytes_);
      ++pending_bytes_;
      ++length_;
      if (pending_bytes_ == 8) {
        Absorb(pending_);
        pending_ = 0;
        pending_bytes_ = 0;
      }
    }
  }

  uint64_t Finish() {
    Absorb(pending_ | (static_cast<uint64_t>(length_ & 0xff) << 56));
    v2_ ^= 0xff;
    for (int i = 0; i < 4; ++i) Round();
    return v0_ ^ v1_ ^ v2_ ^ v3_;
  }

 private:
  static uint64_t RotateLeft(uint64_t x, int bits) {
    return (x << bits) | (x >> (64 - bits));
  }

  void Round() {
    v0_ += v1_;
    v1_ = RotateLeft(v1_, 13);
    v1_ ^= v0_;
    v0_ = RotateLeft(v0_, 32);
    v2_ += v3_;
    v3_ = RotateLeft(v3_, 16);
    v3_ ^= v2_;
    v0_ += v3_;
    v3_ = RotateLeft(v3_, 21);
    v3_ ^= v0_;
    v2_ += v1_;
    v1_ = RotateLeft(v1_, 17);
    v1_ ^= v2_;
    v2_ = RotateLeft(v2_, 32);
  }

  void Absorb(uint64_t word) {
    v3_ ^= word;
    Round();
    Round();
    v0_ ^= word;
  }

  uint64_t v0_, v1_, v2_, v3_;
  uint64_t pending_ = 0;
  int pending_bytes_ = 0;
  uint64_t length_ = 0;
};

// RFC 1123 label: 1 to 63 of [a-z0-9-], not starting or ending with '-'.
bool IsDnsLabel(absl::string_view label) {
  if (label.empty() || label.size() > 63) return false;
  if (label.front() == '-' || label.back() == '-') return false;
  return std::all_of(label.begin(), label.end(), [](char c) {
    return absl::ascii_islower(c) || absl::ascii_isdigit(c) || c == '-';
  });
}

bool IsDnsName(absl::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  for (absl::string_view label : absl::StrSplit(name, '.')) {
    if (!IsDnsLabel(label)) return false;
  }
  return true;
}

absl::Status CheckPort(int port, absl::string_view field) {
  if (port < 1 || port > 65535) {
    return FieldError(field, absl::StrCat(port, " is not a port (1..65535)"));
  }
  return absl::OkStatus();
}

}  // namespace

uint64_t SipHash24(uint64_t k0, uint64_t k1, absl::string_view message) {
  SipHasher hasher(k0, k1);
  hasher.Update(message);
  return hasher.Finish();
}

uint64_t RendezvousWeight(absl::string_view endpoint,
                          absl::string_view scene_id) {
  SipHasher hasher(kShardingKey0, kShardingKey1);
  hasher.Update(endpoint);
  hasher.Update(absl::string_view("\0", 1));
  hasher.Update(scene_id);
  return hasher.Finish();
}

absl::StatusOr<RendezvousRouter> RendezvousRouter::Create(
    std::vector<std::string> endpoints) {
  if (endpoints.empty()) {
    return FieldError("endpoints", "empty");
  }
  absl::flat_hash_set<absl::string_view> seen;
  for (size_t i = 0; i < endpoints.size(); ++i) {
    if (endpoints[i].empty()) {
      return FieldError(absl::StrCat("endpoints[", i, "]"), "empty");
    }
    if (!seen.insert(endpoints[i]).second) {
      return FieldError(absl::StrCat("endpoints[", i, "]"),
                        absl::StrCat("duplicate of \"", endpoints[i], "\""));
    }
  }
  return RendezvousRouter(std::move(endpoints));
}

size_t RendezvousRouter::OwnerIndex(absl::string_view scene_id) const {
  size_t best = 0;
  uint64_t best_weight = RendezvousWeight(endpoints_[0], scene_id);
  for (size_t i = 1; i < endpoints_.size(); ++i) {
    const uint64_t weight = RendezvousWeight(endpoints_[i], scene_id);
    if (weight > best_weight ||
        (weight == best_weight && endpoints_[i] < endpoints_[best])) {
      best = i;
      best_weight = weight;
    }
  }
  return best;
}

absl::StatusOr<std::vector<std::string>> StatefulSetPodEndpoints(
    const StatefulSetEndpoints& statefulset) {
  if (!IsDnsLabel(statefulset.statefulset)) {
    return FieldError(
        "statefulset",
        absl::StrCat("\"", statefulset.statefulset,
                     "\" is not a DNS label ([a-z0-9-], 1 to 63)"));
  }
  if (!IsDnsLabel(statefulset.headless_service)) {
    return FieldError(
        "headless_service",
        absl::StrCat("\"", statefulset.headless_service,
                     "\" is not a DNS label ([a-z0-9-], 1 to 63)"));
  }
  if (!statefulset.kubernetes_namespace.empty() &&
      !IsDnsLabel(statefulset.kubernetes_namespace)) {
    return FieldError(
        "kubernetes_namespace",
        absl::StrCat("\"", statefulset.kubernetes_namespace,
                     "\" is not a DNS label ([a-z0-9-], 1 to 63)"));
  }
  if (!statefulset.kubernetes_namespace.empty() &&
      !IsDnsName(statefulset.cluster_domain)) {
    return FieldError(
        "cluster_domain",
        absl::StrCat("\"", statefulset.cluster_domain, "\" is not a DNS name"));
  }
  if (statefulset.replicas < 1) {
    return FieldError("replicas", absl::StrCat(statefulset.replicas,
                                               " (must be at least 1)"));
  }
  if (absl::Status port = CheckPort(statefulset.port, "port"); !port.ok()) {
    return port;
  }
  std::string suffix = absl::StrCat(".", statefulset.headless_service);
  if (!statefulset.kubernetes_namespace.empty()) {
    absl::StrAppend(&suffix, ".", statefulset.kubernetes_namespace, ".svc.",
                    statefulset.cluster_domain);
  }
  absl::StrAppend(&suffix, ":", statefulset.port);
  std::vector<std::string> endpoints;
  endpoints.reserve(static_cast<size_t>(statefulset.replicas));
  for (int i = 0; i < statefulset.replicas; ++i) {
    endpoints.push_back(absl::StrCat(statefulset.statefulset, "-", i, suffix));
  }
  return endpoints;
}

absl::StatusOr<std::vector<std::string>> ResolveHeadlessService(
    const std::string& host, int port) {
  if (host.empty()) return FieldError("host", "empty");
  if (absl::Status status = CheckPort(port, "port"); !status.ok()) {
    return status;
  }
  addrinfo hints;
  std::memset(&hints, 0, sizeof(hints));
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* results = nullptr;
  const int error = getaddrinfo(host.c_str(), nullptr, &hints, &results);
  if (error == EAI_NONAME || error == EAI_NODATA) {
    return absl::NotFoundError(absl::StrCat("host \"", host, "\": no address (",
                                            gai_strerror(error), ")"));
  }
  if (error != 0) {
    return absl::UnavailableError(absl::StrCat(
        "host \"", host, "\": resolver failed: ", gai_strerror(error)));
  }
  std::set<std::string> targets;
  for (const addrinfo* entry = results; entry != nullptr;
       entry = entry->ai_next) {
    std::array<char, INET6_ADDRSTRLEN> text{};
    if (entry->ai_family == AF_INET) {
      const auto* address =
          reinterpret_cast<const sockaddr_in*>(entry->ai_addr);
      if (inet_ntop(AF_INET, &address->sin_addr, text.data(), text.size())) {
        targets.insert(absl::StrCat(text.data(), ":", port));
      }
    } else if (entry->ai_family == AF_INET6) {
      const auto* address =
          reinterpret_cast<const sockaddr_in6*>(entry->ai_addr);
      if (inet_ntop(AF_INET6, &address->sin6_addr, text.data(), text.size())) {
        targets.insert(absl::StrCat("[", text.data(), "]:", port));
      }
    }
  }
  freeaddrinfo(results);
  if (targets.empty()) {
    return absl::NotFoundError(
        absl::StrCat("host \"", host, "\": no IPv4 or IPv6 address"));
  }
  return std::vector<std::string>(targets.begin(), targets.end());
}

}  // namespace sator
