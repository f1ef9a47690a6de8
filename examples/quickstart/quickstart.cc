// The five-minute start: connect to satord, check it answers, and ask one
// collision question.
//
//   quickstart [target]      (default 127.0.0.1:50051)
//
// Prints the server's version and the contact between a box and a circle;
// exits 0 when the answer is the expected one (they overlap by 0.2 along +x).
#include <cmath>
#include <iostream>
#include <memory>
#include <string>

#include "sator/client/client.h"

int main(int argc, char** argv) {
  const std::string target = argc > 1 ? argv[1] : "127.0.0.1:50051";

  // Connects on the first call; a bad option would fail that call.
  sator::Client client({.target = target});

  absl::StatusOr<sator::PingResult> pong = client.Ping("hello");
  if (!pong.ok()) {
    std::cerr << "satord at " << target << " does not answer: " << pong.status()
              << "\n";
    return 1;
  }
  std::cout << "satord " << pong->server_version << " at " << target << "\n";

  // A 1 x 1 box at the origin and a circle of radius 0.5 at x = 0.8: they
  // overlap by 0.5 + 0.5 - 0.8 = 0.2, and pushing the circle along +x
  // separates them.
  const sator::Shape2 box = sator::Box2{.half_extents = {0.5f, 0.5f}};
  const sator::Shape2 circle = sator::Circle{.radius = 0.5f};
  const sator::Pose2 box_pose{};
  const sator::Pose2 circle_pose{.position = {0.8f, 0.0f}, .rotation = {}};
  absl::StatusOr<sator::ContactResult<2>> contact =
      client.Contact(box, box_pose, circle, circle_pose);
  if (!contact.ok()) {
    std::cerr << "contact query failed: " << contact.status() << "\n";
    return 1;
  }
  std::cout << "overlapping=" << contact->overlapping << " normal=("
            << contact->normal.x << ", " << contact->normal.y
            << ") depth=" << contact->depth << "\n";
  const bool expected = contact->overlapping &&
                        std::abs(contact->normal.x - 1.0f) < 1e-4f &&
                        std::abs(contact->depth - 0.2f) < 1e-4f;
  return expected ? 0 : 2;
}
