#!/usr/bin/python3
"""The sator.v1 API from a client nobody here wrote: Debian's python3-grpcio.

Generates Python code from proto/sator/v1 at test time (Debian's protoc and
grpc_python_plugin: the protoc inside Debian's python3-grpc-tools 1.14 is too
old for proto3 `optional`),
starts the real satord on a free loopback port, and creates a scene, upserts
a body, casts a ray and checks the answer worked out by hand, alone and in a
Session's batch; judges a shot
at a hitbox group (ValidateShots: the verdict's enum values as numbers and
its hit's group and part; RaycastBatch: the packed group and part arrays)
and sends shots on a Session naming another scene; follows a zone's events
through WatchProximity and through a Session's watch_proximity;
lists the audit trail of those verdicts (pages, a filter) and watches it from
its first sequence; then checks a bad request comes back as INVALID_ARGUMENT naming the field,
in its message and in a google.rpc.BadRequest (the call's grpc-status-details-bin
trailer; a batch entry's status read as a google.rpc.Status, generated here from
GOOGLEAPIS_DIR's google/rpc protos), and that satord exits 0 on SIGTERM.

Usage: python_client_test.py SATORD PROTO_DIR GOOGLEAPIS_DIR
Exit 77 (skipped) only when the grpc modules cannot be imported.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time


def wait_for_port_file(path, process, timeout_s=20.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"satord exited early with {process.returncode}")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as port_file:
                return json.load(port_file)["grpc_port"]
        time.sleep(0.02)
    raise RuntimeError("satord did not write its port file in time")


def check_shots(queries, geometry_pb2, body_pb2, body_service_pb2,
                query_service_pb2, scene_service_pb2, shot_pb2, bodies,
                scenes, grpc):
    """A shooter (group 1) at the origin and a head (group 2, part 2, radius
    0.25) moved to (0, 0, 5) at tick 1: a shot up the z axis hits it at 4.75.
    """
    # pylint: disable=too-many-arguments,too-many-locals
    scenes.CreateScene(scene_service_pb2.CreateSceneRequest(
        scene_id="shots", settings=scene_service_pb2.SceneSettings(
            dimension=geometry_pb2.DIMENSION_3D)), timeout=10)
    bodies.UpsertBodies(body_service_pb2.UpsertBodiesRequest(
        scene_id="shots", bodies=[
            body_pb2.Body(body_id=1, group_id=1, part=1,
                          shape=geometry_pb2.Shape(
                              sphere=geometry_pb2.Sphere(radius=0.5)),
                          motion_type=body_pb2.MOTION_TYPE_DYNAMIC),
            body_pb2.Body(body_id=2, group_id=2, part=2,
                          shape=geometry_pb2.Shape(
                              sphere=geometry_pb2.Sphere(radius=0.25)),
                          motion_type=body_pb2.MOTION_TYPE_DYNAMIC)]),
                         timeout=10)
    bodies.UpdatePoses(body_service_pb2.UpdatePosesRequest(
        scene_id="shots", tick=1, poses=body_service_pb2.PoseBatch(
            group_ids=[2], group_positions=[0.0, 0.0, 5.0],
            group_rotations=[0.0, 0.0, 0.0, 1.0])), timeout=10)
    shot = shot_pb2.Shot(
        shot_id=77, shooter_group_id=1,
        direction=geometry_pb2.Vector(z=1.0), range=10.0,
        target=shot_pb2.ShotTarget(group_id=2))
    answer = queries.ValidateShots(shot_pb2.ValidateShotsRequest(
        scene_id="shots", shots=[shot]), timeout=10)
    assert answer.current_tick == 1, answer
    assert len(answer.verdicts) == 1, answer
    verdict = answer.verdicts[0]
    # The wire numbers of shot.proto: SHOT_OUTCOME_HIT = 1, SHOT_REASON_HIT
    # = 1.
    assert verdict.shot_id == 77, verdict
    assert verdict.outcome == 1 and verdict.reason == 1, verdict
    assert verdict.HasField("hit"), verdict
    assert verdict.hit.body_id == 2, verdict
    assert verdict.hit.group_id == 2 and verdict.hit.part == 2, verdict
    assert abs(verdict.hit.distance - 4.75) < 1e-4, verdict
    assert abs(verdict.hit.point.z - 4.75) < 1e-4, verdict
    assert verdict.tick == 1 and verdict.rewind_ticks == 0.0, verdict
    assert not verdict.HasField("target_miss_distance"), verdict

    # The same ray in a packed RaycastBatch, and one that meets nothing: the
    # hit's group and part in the parallel group_ids and parts arrays.
    batch = queries.RaycastBatch(query_service_pb2.RaycastBatchRequest(
        scene_id="shots", dimension=geometry_pb2.DIMENSION_3D,
        origins=[0.0, 0.0, 1.0, 0.0, 0.0, 1.0],
        directions=[0.0, 0.0, 1.0, 1.0, 0.0, 0.0], max_distances=[10.0]),
                                 timeout=10)
    assert list(batch.hit_counts) == [1, 0], batch
    assert list(batch.body_ids) == [2], batch
    assert list(batch.group_ids) == [2] and list(batch.parts) == [2], batch
    assert abs(batch.distances[0] - 3.75) < 1e-4, batch

    # A claimed target 0.5 to the side of the shot: missed (reason 6,
    # SHOT_REASON_TARGET_MISSED) by 0.25.
    aside = shot_pb2.Shot(
        shot_id=78, shooter_group_id=1,
        origin=geometry_pb2.Vector(x=0.5), direction=geometry_pb2.Vector(z=1.0),
        range=10.0, target=shot_pb2.ShotTarget(group_id=2))
    answer = queries.ValidateShots(shot_pb2.ValidateShotsRequest(
        scene_id="shots", shots=[aside]), timeout=10)
    verdict = answer.verdicts[0]
    assert verdict.outcome == 2 and verdict.reason == 6, verdict
    assert abs(verdict.target_miss_distance - 0.25) < 1e-3, verdict

    try:
        queries.ValidateShots(shot_pb2.ValidateShotsRequest(
            scene_id="shots", shots=[shot, shot_pb2.Shot(
                shooter_group_id=1, range=1.0)]), timeout=10)
        raise AssertionError("a zero shot direction was accepted")
    except grpc.RpcError as error:
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error
        assert error.details() == "shots[1].direction: zero length", error

    # On a Session: shots naming the session's scene are judged; shots
    # naming another scene are refused, and the stream goes on.
    messages = [
        query_service_pb2.SessionRequest(
            sequence=1,
            open=query_service_pb2.SessionOpen(scene_id="shots")),
        query_service_pb2.SessionRequest(
            sequence=2, shots=shot_pb2.ValidateShotsRequest(
                scene_id="shots", shots=[shot])),
        query_service_pb2.SessionRequest(
            sequence=3, shots=shot_pb2.ValidateShotsRequest(
                scene_id="py", shots=[shot])),
    ]
    replies = list(queries.Session(iter(messages), timeout=10))
    assert [reply.sequence for reply in replies] == [1, 2, 3], replies
    assert replies[1].status.code == 0, replies[1]
    assert replies[1].shots.verdicts[0].reason == 1, replies[1]
    assert replies[2].status.code == 3, replies[2]
    assert replies[2].status.message.startswith("shots.scene_id: "), \
        replies[2]
    assert not replies[2].HasField("shots"), replies[2]


def check_shot_audit(queries, shot_audit_pb2, shot_pb2):
    """The audit trail of check_shots' verdicts on scene "shots": shot 77
    (hit), 78 (missed its target), 77 again from the Session; the refused
    batch and the shots naming another scene left no record."""
    listed = queries.ListShotVerdicts(shot_audit_pb2.ListShotVerdictsRequest(
        scene_id="shots"), timeout=10)
    assert [r.sequence for r in listed.records] == [1, 2, 3], listed
    assert [r.shot.shot_id for r in listed.records] == [77, 78, 77], listed
    # SHOT_OUTCOME_HIT = 1, SHOT_OUTCOME_MISS = 2; DIMENSION_3D = 3.
    assert [r.verdict.outcome for r in listed.records] == [1, 2, 1], listed
    assert all(r.scene_id == "shots" and r.dimension == 3 and
               r.current_tick == 1 for r in listed.records), listed
    assert listed.next_page_token == "" and listed.oldest_sequence == 1, \
        listed
    assert listed.skipped == 0, listed

    # Two a page: the token leads to the third record.
    first = queries.ListShotVerdicts(shot_audit_pb2.ListShotVerdictsRequest(
        scene_id="shots", page_size=2), timeout=10)
    assert [r.sequence for r in first.records] == [1, 2], first
    assert first.next_page_token != "", first
    rest = queries.ListShotVerdicts(shot_audit_pb2.ListShotVerdictsRequest(
        scene_id="shots", page_size=2, page_token=first.next_page_token),
        timeout=10)
    assert [r.sequence for r in rest.records] == [3], rest

    misses = queries.ListShotVerdicts(shot_audit_pb2.ListShotVerdictsRequest(
        scene_id="shots", filter=shot_audit_pb2.ShotVerdictFilter(
            outcome=shot_pb2.SHOT_OUTCOME_MISS)), timeout=10)
    assert [r.shot.shot_id for r in misses.records] == [78], misses

    # From sequence 1, the same three records in order; the stream stays
    # open for later verdicts until cancelled.
    stream = queries.WatchShotVerdicts(
        shot_audit_pb2.WatchShotVerdictsRequest(
            scene_id="shots", from_sequence=1), timeout=10)
    watched = []
    for event in stream:
        assert event.HasField("record"), event
        watched.append((event.record.sequence, event.record.shot.shot_id))
        if len(watched) == 3:
            break
    stream.cancel()
    assert watched == [(1, 77), (2, 78), (3, 77)], watched


def check_proximity(channel, geometry_pb2, body_pb2, body_service_pb2,
                    scene_service_pb2, proximity_pb2, proximity_pb2_grpc,
                    query_service_pb2, queries, bodies, scenes):
    """A 2D zone (the box of half extents 2 at the origin) and a circle that
    walks into it at tick 2 and out at tick 3: a watch from tick 1 gets
    ENTER at 2 and EXIT at 3, GetProximity the zone and its last (empty)
    set, and a Session's watch_proximity from tick 2 the same two
    evaluations as `proximity` messages after its reply."""
    proximity = proximity_pb2_grpc.ProximityServiceStub(channel)
    scenes.CreateScene(scene_service_pb2.CreateSceneRequest(
        scene_id="zones", settings=scene_service_pb2.SceneSettings(
            dimension=geometry_pb2.DIMENSION_2D)), timeout=10)
    bodies.UpsertBodies(body_service_pb2.UpsertBodiesRequest(
        scene_id="zones", bodies=[body_pb2.Body(
            body_id=1, shape=geometry_pb2.Shape(
                circle=geometry_pb2.Circle(radius=0.5)),
            pose=geometry_pb2.Pose(position=geometry_pb2.Vector(x=-10.0)),
            motion_type=body_pb2.MOTION_TYPE_DYNAMIC)]), timeout=10)
    added = proximity.AddZone(proximity_pb2.AddZoneRequest(
        scene_id="zones", zone=proximity_pb2.Zone(
            id=7, shape=geometry_pb2.Shape(
                box2d=geometry_pb2.Box2D(
                    half_extents=geometry_pb2.Vector(x=2.0, y=2.0))))),
        timeout=10)
    assert added.tick == 0, added
    stream = proximity.WatchProximity(proximity_pb2.WatchProximityRequest(
        scene_id="zones", from_tick=1), timeout=10)
    for tick, x in ((1, -10.0), (2, 0.0), (3, 5.0)):
        bodies.UpdatePoses(body_service_pb2.UpdatePosesRequest(
            scene_id="zones", tick=tick, poses=body_service_pb2.PoseBatch(
                body_ids=[1], positions=[x, 0.0], rotations=[0.0])),
            timeout=10)
    watched = []
    for message in stream:
        assert message.HasField("events"), message
        for event in message.events.events:
            watched.append((message.events.tick, event.kind, event.source,
                            event.source_id, event.object.body_id))
        if len(watched) == 2:
            break
    stream.cancel()
    enter = proximity_pb2.PROXIMITY_EVENT_KIND_ENTER
    leave = proximity_pb2.PROXIMITY_EVENT_KIND_EXIT
    zone = proximity_pb2.PROXIMITY_SOURCE_ZONE
    assert watched == [(2, enter, zone, 7, 1), (3, leave, zone, 7, 1)], \
        watched
    state = proximity.GetProximity(proximity_pb2.GetProximityRequest(
        scene_id="zones"), timeout=10)
    assert [z.id for z in state.zones] == [7], state
    assert state.tick == 3 and len(state.sets) == 1, state
    assert len(state.sets[0].objects) == 0, state

    messages = [
        query_service_pb2.SessionRequest(
            sequence=1,
            open=query_service_pb2.SessionOpen(scene_id="zones")),
        query_service_pb2.SessionRequest(
            sequence=2,
            watch_proximity=proximity_pb2.WatchProximityRequest(from_tick=2)),
    ]
    replies = list(queries.Session(iter(messages), timeout=10))
    assert [reply.sequence for reply in replies] == [1, 2, 2, 2], replies
    assert replies[1].proximity_watching.from_sequence == 1, replies[1]
    pushed = [(reply.proximity.events.tick,
               [event.kind for event in reply.proximity.events.events])
              for reply in replies[2:]]
    assert pushed == [(2, [enter]), (3, [leave])], pushed


def check_level(geometry_pb2, body_pb2, body_service_pb2, scene_service_pb2,
                query_pb2, query_service_pb2, queries, bodies, scenes, grpc):
    """A static 2D level, an L-shaped polygon, written field by field: a ray
    down onto the ground names outline edge 4 (outline[4] to outline[5]);
    an outline that crosses itself is refused naming the vertex."""
    scenes.CreateScene(scene_service_pb2.CreateSceneRequest(
        scene_id="level", settings=scene_service_pb2.SceneSettings(
            dimension=geometry_pb2.DIMENSION_2D)), timeout=10)

    def level_of(points):
        return geometry_pb2.Shape(level2d=geometry_pb2.Level2D(polygons=[
            geometry_pb2.LevelPolygon(outline=[
                geometry_pb2.Vector(x=x, y=y) for x, y in points])]))

    ell = [(0, -2), (10, -2), (10, 5), (8, 5), (8, 0), (0, 0)]
    bodies.UpsertBodies(body_service_pb2.UpsertBodiesRequest(
        scene_id="level", bodies=[body_pb2.Body(
            body_id=1, shape=level_of(ell),
            motion_type=body_pb2.MOTION_TYPE_STATIC)]), timeout=10)
    result = queries.Raycast(query_service_pb2.RaycastRequest(
        scene_id="level", query=query_pb2.RaycastQuery(
            origin=geometry_pb2.Vector(x=4.0, y=3.0),
            direction=geometry_pb2.Vector(y=-1.0), max_distance=10.0)),
        timeout=10)
    assert len(result.hits) == 1, result
    hit = result.hits[0]
    assert hit.body_id == 1 and hit.feature == 4, hit
    assert abs(hit.distance - 3.0) < 1e-5, hit
    assert abs(hit.normal.y - 1.0) < 1e-5, hit
    try:
        bodies.UpsertBodies(body_service_pb2.UpsertBodiesRequest(
            scene_id="level", bodies=[body_pb2.Body(
                body_id=2, shape=level_of([(0, 0), (4, 0), (0, 4), (4, 4)]),
                motion_type=body_pb2.MOTION_TYPE_STATIC)]), timeout=10)
        raise AssertionError("a self-crossing outline was accepted")
    except grpc.RpcError as error:
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error
        assert error.details().startswith(
            "bodies[0].shape.level2d.polygons[0].outline["), error.details()


def bad_request_of(rpc_status, error_details_pb2):
    """The (field, description) pairs of a google.rpc.Status's BadRequest."""
    assert len(rpc_status.details) == 1, rpc_status
    assert rpc_status.details[0].Is(error_details_pb2.BadRequest.DESCRIPTOR)
    bad_request = error_details_pb2.BadRequest()
    rpc_status.details[0].Unpack(bad_request)
    return [(violation.field, violation.description)
            for violation in bad_request.field_violations]


def run(satord, proto_dir, googleapis_dir, work):
    import grpc  # pylint: disable=import-outside-toplevel

    protoc = shutil.which("protoc")
    plugin = shutil.which("grpc_python_plugin")
    if protoc is None or plugin is None:
        raise RuntimeError("protoc and grpc_python_plugin (Debian's "
                           "protobuf-compiler, protobuf-compiler-grpc) are "
                           "needed to generate the client")
    generated = os.path.join(work, "gen")
    os.mkdir(generated)
    protos = sorted(
        os.path.join("sator", "v1", name)
        for name in os.listdir(os.path.join(proto_dir, "sator", "v1"))
        if name.endswith(".proto"))
    subprocess.run([protoc, f"-I{proto_dir}", f"--python_out={generated}",
                    f"--grpc_python_out={generated}",
                    f"--plugin=protoc-gen-grpc_python={plugin}", *protos],
                   check=True)
    subprocess.run([protoc, f"-I{googleapis_dir}", f"--python_out={generated}",
                    "google/rpc/status.proto", "google/rpc/error_details.proto"],
                   check=True)
    sys.path.insert(0, generated)
    # pylint: disable=import-outside-toplevel,import-error
    from sator.v1 import body_pb2
    from sator.v1 import body_service_pb2
    from sator.v1 import body_service_pb2_grpc
    from sator.v1 import geometry_pb2
    from sator.v1 import proximity_pb2
    from sator.v1 import proximity_pb2_grpc
    from sator.v1 import query_pb2
    from sator.v1 import query_service_pb2
    from sator.v1 import query_service_pb2_grpc
    from sator.v1 import scene_service_pb2
    from sator.v1 import scene_service_pb2_grpc
    from sator.v1 import shot_audit_pb2
    from sator.v1 import shot_pb2
    from google.rpc import error_details_pb2
    from google.rpc import status_pb2

    port_file = os.path.join(work, "ports.json")
    log = open(os.path.join(work, "satord.log"), "w", encoding="utf-8")
    process = subprocess.Popen(
        [satord, "--grpc_address=127.0.0.1:0", "--metrics_address=",
         f"--port_file={port_file}"], stdout=log, stderr=subprocess.STDOUT)
    try:
        port = wait_for_port_file(port_file, process)
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        scenes = scene_service_pb2_grpc.SceneServiceStub(channel)
        bodies = body_service_pb2_grpc.BodyServiceStub(channel)
        queries = query_service_pb2_grpc.QueryServiceStub(channel)

        scenes.CreateScene(scene_service_pb2.CreateSceneRequest(
            scene_id="py", settings=scene_service_pb2.SceneSettings(
                dimension=geometry_pb2.DIMENSION_3D)), timeout=10)
        # A sphere of radius 1 centred at (0, 0, 5).
        bodies.UpsertBodies(body_service_pb2.UpsertBodiesRequest(
            scene_id="py", bodies=[body_pb2.Body(
                body_id=42, user_data=7,
                shape=geometry_pb2.Shape(
                    sphere=geometry_pb2.Sphere(radius=1.0)),
                pose=geometry_pb2.Pose(
                    position=geometry_pb2.Vector(z=5.0)),
                motion_type=body_pb2.MOTION_TYPE_DYNAMIC)]), timeout=10)

        # Up the z axis from the origin: the sphere's surface at z = 4.
        result = queries.Raycast(query_service_pb2.RaycastRequest(
            scene_id="py", query=query_pb2.RaycastQuery(
                direction=geometry_pb2.Vector(z=1.0), max_distance=10.0)),
            timeout=10)
        assert len(result.hits) == 1, result
        hit = result.hits[0]
        assert hit.body_id == 42 and hit.user_data == 7, hit
        assert abs(hit.distance - 4.0) < 1e-5, hit
        assert abs(hit.point.z - 4.0) < 1e-5, hit
        assert abs(hit.normal.z + 1.0) < 1e-5, hit
        assert result.tick == 0, result

        # The same ray and one without a direction as a Session's batch:
        # one reply, an entry per query with its own status.
        ray = query_pb2.Query(raycast=query_pb2.RaycastQuery(
            direction=geometry_pb2.Vector(z=1.0), max_distance=10.0))
        no_direction = query_pb2.Query(raycast=query_pb2.RaycastQuery(
            max_distance=10.0))
        replies = list(queries.Session(iter([
            query_service_pb2.SessionRequest(
                sequence=1, open=query_service_pb2.SessionOpen(scene_id="py")),
            query_service_pb2.SessionRequest(
                sequence=2, batch=query_service_pb2.QueryBatchRequest(
                    queries=[ray, no_direction])),
        ]), timeout=10))
        assert [reply.sequence for reply in replies] == [1, 2], replies
        batch = replies[1].batch
        assert replies[1].status.code == 0, replies[1]
        assert len(batch.entries) == 2, batch
        assert batch.entries[0].result.hits[0].body_id == 42, batch
        assert abs(batch.entries[0].result.hits[0].distance - 4.0) < 1e-5
        assert batch.entries[1].status.code == 3, batch
        assert batch.entries[1].status.message == \
            "queries[1].raycast.direction: zero length", batch
        # sator.v1.Status has google.rpc.Status's fields and numbers.
        entry_status = status_pb2.Status.FromString(
            batch.entries[1].status.SerializeToString())
        assert entry_status.code == 3, entry_status
        assert bad_request_of(entry_status, error_details_pb2) == \
            [("queries[1].raycast.direction", "zero length")], entry_status

        check_shots(queries, geometry_pb2, body_pb2, body_service_pb2,
                    query_service_pb2, scene_service_pb2, shot_pb2, bodies,
                    scenes, grpc)
        check_shot_audit(queries, shot_audit_pb2, shot_pb2)
        check_proximity(channel, geometry_pb2, body_pb2, body_service_pb2,
                        scene_service_pb2, proximity_pb2, proximity_pb2_grpc,
                        query_service_pb2, queries, bodies, scenes)
        check_level(geometry_pb2, body_pb2, body_service_pb2,
                    scene_service_pb2, query_pb2, query_service_pb2, queries,
                    bodies, scenes, grpc)

        try:
            queries.Raycast(query_service_pb2.RaycastRequest(
                scene_id="py",
                query=query_pb2.RaycastQuery(max_distance=10.0)), timeout=10)
            raise AssertionError("a zero direction was accepted")
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error
            assert error.details() == "query.direction: zero length", error
            trailers = dict(error.trailing_metadata())
            rpc_status = status_pb2.Status.FromString(
                trailers["grpc-status-details-bin"])
            assert rpc_status.code == 3, rpc_status
            assert rpc_status.message == "query.direction: zero length"
            assert bad_request_of(rpc_status, error_details_pb2) == \
                [("query.direction", "zero length")], rpc_status
        channel.close()

        process.send_signal(signal.SIGTERM)
        exit_code = process.wait(timeout=20)
        assert exit_code == 0, f"satord exited with {exit_code}"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        log.close()
    print("python client: CreateScene, UpsertBodies, Raycast, Session batch, "
          "ValidateShots, "
          "ListShotVerdicts, WatchShotVerdicts, AddZone, WatchProximity, "
          "GetProximity, a 2D level OK")


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        import grpc  # pylint: disable=import-outside-toplevel,unused-import
        import google.protobuf  # pylint: disable=import-outside-toplevel,unused-import
    except ImportError as error:
        print(f"SKIP: {error}; install python3-grpcio and python3-protobuf "
              "(scripts/bootstrap) for /usr/bin/python3")
        return 77
    with tempfile.TemporaryDirectory(prefix="sator-python-") as work:
        try:
            run(sys.argv[1], sys.argv[2], sys.argv[3], work)
        except Exception:
            log_path = os.path.join(work, "satord.log")
            if os.path.exists(log_path):
                with open(log_path, encoding="utf-8") as log:
                    print("satord log:\n" + log.read(), file=sys.stderr)
            raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
