#!/usr/bin/python3
"""The sator.v1 API from a client nobody here wrote: Debian's python3-grpcio.

Generates Python code from proto/sator/v1 at test time (Debian's protoc and
grpc_python_plugin: the protoc inside Debian's python3-grpc-tools 1.14 is too
old for proto3 `optional`),
starts the real satord on a free loopback port, and creates a scene, upserts
a body, casts a ray and checks the answer worked out by hand; then checks a
bad request comes back as INVALID_ARGUMENT naming the field, and that satord
exits 0 on SIGTERM.

Usage: python_client_test.py SATORD PROTO_DIR
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


def run(satord, proto_dir, work):
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
    sys.path.insert(0, generated)
    # pylint: disable=import-outside-toplevel,import-error
    from sator.v1 import body_pb2
    from sator.v1 import body_service_pb2
    from sator.v1 import body_service_pb2_grpc
    from sator.v1 import geometry_pb2
    from sator.v1 import query_pb2
    from sator.v1 import query_service_pb2
    from sator.v1 import query_service_pb2_grpc
    from sator.v1 import scene_service_pb2
    from sator.v1 import scene_service_pb2_grpc

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

        try:
            queries.Raycast(query_service_pb2.RaycastRequest(
                scene_id="py",
                query=query_pb2.RaycastQuery(max_distance=10.0)), timeout=10)
            raise AssertionError("a zero direction was accepted")
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error
            assert error.details() == "query.direction: zero length", error
        channel.close()

        process.send_signal(signal.SIGTERM)
        exit_code = process.wait(timeout=20)
        assert exit_code == 0, f"satord exited with {exit_code}"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        log.close()
    print("python client: CreateScene, UpsertBodies, Raycast OK")


def main():
    if len(sys.argv) != 3:
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
            run(sys.argv[1], sys.argv[2], work)
        except Exception:
            log_path = os.path.join(work, "satord.log")
            if os.path.exists(log_path):
                with open(log_path, encoding="utf-8") as log:
                    print("satord log:\n" + log.read(), file=sys.stderr)
            raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
