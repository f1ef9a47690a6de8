// A game room served by satord (content in game_room.h): its scene (the
// level mesh and 64 players of 3 hitbox parts) created through the client
// library, and one Session stream on it that carries the room's ticks.
//
// Transports of a tick:
//   session  three messages on the room's Session stream, in order: the pose
//            update of the 64 groups, one `batch` message with the 64
//            contacts and 64 sweeps, and one `shots` message with the 20
//            shots. The stream's order puts the queries after the tick's
//            poses, so nothing waits for a reply before it is sent.
//   batch    the pose update and the shots on the Session, and the 128
//            queries as one QueryBatch RPC, sent once the pose update's reply
//            says the tick is applied (a separate RPC is not ordered after
//            the stream's messages).
// A tick is answered when its last reply has arrived; every reply is checked
// (status, and that queries ran at the tick's own tick).
#ifndef SATOR_TOOLS_SATOR_BENCH_GAME_SERVED_ROOM_H_
#define SATOR_TOOLS_SATOR_BENCH_GAME_SERVED_ROOM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sator/client/client.h"
#include "sator/client/session.h"
#include "tools/sator-bench/game_room.h"

namespace sator::bench {

enum class GameTransport { kSession, kBatch };

class ServedRoom {
 public:
  // Creates the scene `scene_id` (deleting one of that name first), uploads
  // the level and the players, sets the players' tick-0 poses and opens the
  // room's Session.
  static absl::StatusOr<std::unique_ptr<ServedRoom>> Create(
      Client& client, std::string scene_id, std::uint64_t seed,
      GameTransport transport);
  ~ServedRoom();
  ServedRoom(const ServedRoom&) = delete;
  ServedRoom& operator=(const ServedRoom&) = delete;

  // The next tick's content (generated, not yet sent).
  const GameTick& Generate() { return room_.Next(); }
  // Sends `tick` (the last one Generate gave) and waits for every answer:
  // OK, or the first error.
  absl::Status Send(const GameTick& tick);

  // Closes the session and deletes the scene.
  void Close();

 private:
  ServedRoom(Client& client, std::string scene_id, std::uint64_t seed,
             GameTransport transport);
  absl::Status Setup();
  PoseBatch Poses(const GameTick& tick) const;
  std::vector<Query> Queries(const GameTick& tick) const;
  std::vector<Shot> Shots(const GameTick& tick) const;
  absl::Status SendOnSession(const GameTick& tick);
  absl::Status SendWithBatch(const GameTick& tick);

  Client& client_;
  std::string scene_id_;
  GameTransport transport_;
  GameRoom room_;
  Shape3 capsule_;
  std::unique_ptr<Session> session_;
  bool closed_ = false;
};

}  // namespace sator::bench

#endif  // SATOR_TOOLS_SATOR_BENCH_GAME_SERVED_ROOM_H_
