// character: a kinematic character controller whose collision runs in satord.
//
//   character [target]      (default 127.0.0.1:50051)
//
// A top-down 2D level (a crate and a long wall) and a round character. Each
// tick the controller
//  1. depenetrates: a Contacts query at the character's pose gives, in
//     QueryResult::depenetration, the one translation that leaves every body
//     it overlaps; the character moves by it (it spawns half inside the
//     crate, so the first tick pushes it out);
//  2. moves: a Sweep query along the wanted displacement gives the time of
//     impact and the normal of the first body in the way; the character
//     moves up to it (less a small skin), the rest of the displacement is
//     projected onto the surface (it slides along the wall instead of
//     stopping dead), and the sweep is repeated for what is left, at most
//     three times ("collide and slide");
//  3. publishes its new pose (UpdatePoses), so other queries see it; its own
//     queries exclude its body.
// Exits 0 when the character ends outside every body, on the near side of
// the wall, having slid along it.
#include <cmath>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "sator/client/client.h"

namespace {

using sator::Pose2;
using sator::Vec2;

constexpr std::uint64_t kCrateId = 1;
constexpr std::uint64_t kWallId = 2;
constexpr std::uint64_t kCharacterId = 10;
constexpr float kRadius = 0.5f;
// The gap kept between the character and what it touches, so that the next
// sweep does not start in contact.
constexpr float kSkin = 0.01f;
constexpr int kTicks = 30;
constexpr float kTickSeconds = 0.1f;
// The wanted velocity: diagonally into the wall.
constexpr Vec2 kVelocity{4.0f, 2.0f};
// The wall's near face.
constexpr float kWallFaceX = 4.5f;

Pose2 At(Vec2 position) { return {.position = position, .rotation = {}}; }

class Controller {
 public:
  Controller(sator::Client& client, std::string scene, Vec2 position)
      : client_(client), scene_(std::move(scene)), position_(position) {}

  Vec2 position() const { return position_; }

  // Step 1: leave whatever the character overlaps.
  absl::Status Depenetrate() {
    for (int round = 0; round < 3; ++round) {
      absl::StatusOr<sator::QueryResult> contacts = client_.Contacts(
          scene_, {.shape = Shape(), .pose = At(position_)}, Options());
      if (!contacts.ok()) return contacts.status();
      if (contacts->hits.empty()) return absl::OkStatus();
      const Vec2 push = sator::Xy(contacts->depenetration);
      position_ += push + kSkin * sator::NormalizeOrZero(push);
      std::cout << "  depenetrated by (" << push.x << ", " << push.y << ")\n";
    }
    return absl::OkStatus();
  }

  // Step 2: collide and slide along `displacement`.
  absl::Status Move(Vec2 displacement) {
    Vec2 remaining = displacement;
    for (int round = 0; round < 3 && sator::Length(remaining) > 1e-5f;
         ++round) {
      absl::StatusOr<sator::QueryResult> sweep = client_.Sweep(
          scene_,
          {.shape = Shape(), .pose = At(position_), .displacement = remaining},
          Options());
      if (!sweep.ok()) return sweep.status();
      if (sweep->hits.empty()) {
        position_ += remaining;
        return absl::OkStatus();
      }
      const sator::Hit& hit = sweep->hits.front();
      const Vec2 normal = sator::Xy(hit.normal);  // From the body to us.
      if (hit.started_inside) {
        position_ += (hit.distance + kSkin) * normal;
        continue;
      }
      const float length = sator::Length(remaining);
      const float travel = std::max(0.0f, hit.distance * length - kSkin);
      position_ += (travel / length) * remaining;
      // What is left of the displacement, less its part into the surface:
      // the character slides along what it touched.
      remaining = (1.0f - travel / length) * remaining;
      const float into_surface = sator::Dot(remaining, normal);
      if (into_surface < 0.0f) remaining -= into_surface * normal;
    }
    return absl::OkStatus();
  }

  // Step 3: the character's body follows.
  absl::Status Publish(std::int64_t tick) {
    sator::PoseBatch poses;
    poses.Add(kCharacterId, At(position_));
    return client_.UpdatePoses(scene_, tick, poses).status();
  }

  // Whether the character overlaps anything (deeper than the tolerance).
  absl::StatusOr<bool> Overlapping() {
    absl::StatusOr<sator::QueryResult> contacts = client_.Contacts(
        scene_, {.shape = Shape(), .pose = At(position_)}, Options());
    if (!contacts.ok()) return contacts.status();
    for (const sator::Hit& hit : contacts->hits) {
      if (hit.distance > 1e-3f) return true;
    }
    return false;
  }

 private:
  static sator::Shape2 Shape() { return sator::Circle{.radius = kRadius}; }
  // The level only: never the character's own body.
  static sator::QueryOptions Options() {
    return {.filter = {.exclude_body_ids = {kCharacterId}},
            .mode = sator::ResultMode::kClosest};
  }

  sator::Client& client_;
  std::string scene_;
  Vec2 position_;
};

int Fail(const std::string& what, const absl::Status& status) {
  std::cerr << what << ": " << status << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  absl::StatusOr<sator::Client> client =
      sator::Client::Make({.target = argc > 1 ? argv[1] : "127.0.0.1:50051"});
  if (!client.ok()) return Fail("connect", client.status());

  const std::string scene = "character-demo";
  (void)client->DeleteScene(scene);  // Left over from an earlier run?
  absl::StatusOr<sator::SceneInfo> created =
      client->CreateScene(scene, {.dimension = sator::Dimension::k2D});
  if (!created.ok()) return Fail("CreateScene", created.status());

  // A 2 x 2 crate at the origin, a wall 1 wide and 40 long from x = 4.5, and
  // the character, spawned half inside the crate.
  const Vec2 spawn{0.8f, 0.3f};
  absl::StatusOr<sator::UpsertBodiesResult> upserted = client->UpsertBodies(
      scene, {{.id = kCrateId,
               .shape = sator::Shape2(sator::Box2{.half_extents = {1, 1}}),
               .pose = At({0, 0}),
               .motion = sator::MotionType::kStatic},
              {.id = kWallId,
               .shape = sator::Shape2(sator::Box2{.half_extents = {0.5f, 20}}),
               .pose = At({kWallFaceX + 0.5f, 0}),
               .motion = sator::MotionType::kStatic},
              {.id = kCharacterId,
               .shape = sator::Shape2(sator::Circle{.radius = kRadius}),
               .pose = At(spawn),
               .motion = sator::MotionType::kDynamic}});
  if (!upserted.ok()) return Fail("UpsertBodies", upserted.status());

  Controller character(*client, scene, spawn);
  for (std::int64_t tick = 1; tick <= kTicks; ++tick) {
    if (absl::Status s = character.Depenetrate(); !s.ok()) {
      return Fail("Depenetrate", s);
    }
    if (absl::Status s = character.Move(kTickSeconds * kVelocity); !s.ok()) {
      return Fail("Move", s);
    }
    if (absl::Status s = character.Publish(tick); !s.ok()) {
      return Fail("Publish", s);
    }
    if (tick % 5 == 0) {
      std::cout << "tick " << tick << ": (" << character.position().x << ", "
                << character.position().y << ")\n";
    }
  }

  absl::StatusOr<bool> overlapping = character.Overlapping();
  if (!overlapping.ok()) return Fail("final Contacts", overlapping.status());
  (void)client->DeleteScene(scene);

  // Unobstructed, the character would end at spawn + 3 s * velocity =
  // (12.8, 6.3). The wall stops it at x = 4.5 - radius = 4.0; sliding keeps
  // the whole of its y motion.
  const Vec2 end = character.position();
  const bool outside = !*overlapping;
  const bool stopped_by_wall = end.x <= kWallFaceX - kRadius + 1e-3f &&
                               end.x > kWallFaceX - kRadius - 0.1f;
  const bool slid = std::abs(end.y - (spawn.y + 3.0f * kVelocity.y)) < 0.1f;
  std::cout << "final position (" << end.x << ", " << end.y
            << "): " << (outside ? "outside every body" : "OVERLAPPING") << ", "
            << (stopped_by_wall ? "stopped by the wall" : "NOT at the wall")
            << ", " << (slid ? "slid along it" : "DID NOT SLIDE") << "\n";
  return outside && stopped_by_wall && slid ? 0 : 2;
}
