#!/usr/bin/env python3
"""The real cuzk-daemon through a Python gRPC client (Debian's python3-grpcio,
stubs generated from proto/cuzk/v1/proving.proto by protoc/grpc_python_plugin
at build time): a 2 KiB SnapDeals proof via Prove, checked by `cuzk-cli snap
verify`; reflection lists cuzk.v1.ProvingEngine and serves its descriptor;
health; GetMetrics parses as Prometheus text exposition (strictly, with
histogram and counter invariants); GET /status parses as JSON;
PreloadSRS/EvictSRS; the cuzk-bench client subcommands; SIGTERM exits 0.

  test_daemon_python.py --daemon BIN --cli CUZK_CLI --bench CUZK_BENCH --stubs DIR --fixture DIR
"""
import argparse
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

ARGS = None


def load_stubs(stubs):
    sys.path.insert(0, stubs)
    global grpc, pb, pb_grpc, refl, refl_grpc, health, health_grpc, descriptor_pb2
    import grpc
    from google.protobuf import descriptor_pb2
    from cuzk.v1 import proving_pb2 as pb
    from cuzk.v1 import proving_pb2_grpc as pb_grpc
    from cuzk_test import reflection_pb2 as refl
    from cuzk_test import reflection_pb2_grpc as refl_grpc
    from cuzk_test import health_pb2 as health
    from cuzk_test import health_pb2_grpc as health_grpc


# ---- Prometheus text exposition (format 0.0.4), parsed strictly ----------------------
NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*"'
SAMPLE = re.compile(r"^(%s)(\{(?:%s(?:,%s)*)?\})? (\S+)(?: (-?\d+))?$" % (NAME, LABEL, LABEL))
TYPES = {"counter", "gauge", "histogram", "summary", "untyped"}


def parse_prometheus(text):
    """{family: {"type", "help", "samples": [(name, {labels}, value)]}}; raises ValueError."""
    if not text.endswith("\n"):
        raise ValueError("exposition must end with a newline")
    families, current = {}, None
    for n, line in enumerate(text.split("\n")[:-1], 1):
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            parts = line.split(" ", 3)
            if len(parts) < 4 or not re.fullmatch(NAME, parts[2]):
                raise ValueError("line %d: bad %s" % (n, line))
            fam = families.setdefault(parts[2], {"type": "untyped", "help": None, "samples": []})
            if parts[1] == "TYPE":
                if parts[3] not in TYPES:
                    raise ValueError("line %d: unknown type %s" % (n, parts[3]))
                if fam["samples"]:
                    raise ValueError("line %d: TYPE after samples of %s" % (n, parts[2]))
                fam["type"] = parts[3]
            else:
                fam["help"] = parts[3]
            current = parts[2]
            continue
        if line.startswith("#") or line == "":
            continue
        m = SAMPLE.match(line)
        if not m:
            raise ValueError("line %d: not a sample: %r" % (n, line))
        name, labels_text, value = m.group(1), m.group(2), m.group(3)
        v = float(value)  # raises on garbage; accepts +Inf/NaN spellings Prometheus allows
        labels = dict(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\.)*)"', labels_text or ""))
        fam_name = name
        if current and name != current:
            for suffix in ("_bucket", "_sum", "_count"):
                if name == current + suffix:
                    fam_name = current
        if fam_name not in families:
            families[fam_name] = {"type": "untyped", "help": None, "samples": []}
        if fam_name != current:
            current = fam_name
        families[fam_name]["samples"].append((name, labels, v))
    for fname, fam in families.items():
        if fam["type"] == "histogram":
            check_histograms(fname, fam["samples"])
        if fam["type"] == "counter":
            for name, labels, v in fam["samples"]:
                if v < 0 or math.isnan(v):
                    raise ValueError("counter %s has value %s" % (name, v))
    return families


def check_histograms(fname, samples):
    series = {}
    for name, labels, v in samples:
        key = tuple(sorted((k, x) for k, x in labels.items() if k != "le"))
        s = series.setdefault(key, {"buckets": [], "sum": None, "count": None})
        if name == fname + "_bucket":
            s["buckets"].append((float(labels["le"]), v))
        elif name == fname + "_sum":
            s["sum"] = v
        elif name == fname + "_count":
            s["count"] = v
        else:
            raise ValueError("histogram %s has sample %s" % (fname, name))
    for key, s in series.items():
        b = s["buckets"]
        if not b or b[-1][0] != math.inf:
            raise ValueError("histogram %s%s has no +Inf bucket" % (fname, key))
        if [le for le, _ in b] != sorted(le for le, _ in b):
            raise ValueError("histogram %s buckets out of order" % fname)
        if any(b[i][1] > b[i + 1][1] for i in range(len(b) - 1)):
            raise ValueError("histogram %s buckets not cumulative" % fname)
        if s["count"] != b[-1][1] or s["sum"] is None:
            raise ValueError("histogram %s: _count %s != +Inf bucket %s" % (fname, s["count"], b[-1][1]))


def value(families, family, name=None, **labels):
    for n, l, v in families[family]["samples"]:
        if n == (name or family) and all(l.get(k) == x for k, x in labels.items()):
            return v
    raise KeyError((family, name, labels))


# ---- the daemon -------------------------------------------------------------------------
class Daemon:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="cuzk-py-")
        self.socket = os.path.join(self.dir, "run", "cuzk.sock")
        config = os.path.join(self.dir, "cuzk.toml")
        with open(config, "w") as f:
            f.write('[daemon]\nlisten = "unix://%s"\nstatus_listen = "127.0.0.1:0"\n'
                    '[srs]\nparam_cache = "%s"\n[logging]\nformat = "json"\n'
                    % (self.socket, os.path.join(ARGS.fixture, "params")))
        self.log = open(os.path.join(self.dir, "daemon.log"), "w+")
        self.proc = subprocess.Popen([ARGS.daemon, "--config", config], stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("READY "):
            raise RuntimeError("daemon not ready: %r\n%s" % (line, self.read_log()))
        self.status_port = int(re.search(r"status=127\.0\.0\.1:(\d+)", line).group(1))
        self.channel = grpc.insecure_channel("unix:" + self.socket, options=[
            ("grpc.max_send_message_length", 256 << 20), ("grpc.max_receive_message_length", 256 << 20)])
        self.stub = pb_grpc.ProvingEngineStub(self.channel)

    def read_log(self):
        self.log.flush()
        with open(self.log.name) as f:
            return f.read()

    def http(self, path):
        with urllib.request.urlopen("http://127.0.0.1:%d%s" % (self.status_port, path), timeout=10) as r:
            return r.status, r.headers.get("Content-Type"), r.read().decode()

    def stop(self, sig=signal.SIGTERM):
        self.channel.close()
        self.proc.send_signal(sig)
        code = self.proc.wait(timeout=60)
        self.proc.stdout.close()
        return code

    def cleanup(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def fixture_request(request_id=""):
    sector = os.path.join(ARGS.fixture, "sector-2k")
    with open(os.path.join(sector, "commitments.json")) as f:
        comms = json.load(f)
    with open(os.path.join(sector, "vanilla_proofs.json")) as f:
        import base64
        proofs = [base64.b64decode(p) for p in json.load(f)]
    return pb.SubmitProofRequest(
        request_id=request_id, proof_kind=pb.SNAP_DEALS_UPDATE, sector_size=2048, vanilla_proofs=proofs,
        comm_r_old=bytes.fromhex(comms["comm_r_old"]), comm_r_new=bytes.fromhex(comms["comm_r_new"]),
        comm_d_new=bytes.fromhex(comms["comm_d_new"]))


class PythonClient(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.d = Daemon()

    @classmethod
    def tearDownClass(cls):
        cls.d.cleanup()

    def test_1_reflection_lists_the_service_and_serves_its_descriptor(self):
        stub = refl_grpc.ServerReflectionStub(self.d.channel)
        reqs = [refl.ServerReflectionRequest(list_services=""),
                refl.ServerReflectionRequest(file_containing_symbol="cuzk.v1.ProvingEngine")]
        answers = list(stub.ServerReflectionInfo(iter(reqs), timeout=10))
        names = [s.name for s in answers[0].list_services_response.service]
        self.assertIn("cuzk.v1.ProvingEngine", names)
        self.assertIn("grpc.health.v1.Health", names)
        fd = descriptor_pb2.FileDescriptorProto.FromString(answers[1].file_descriptor_response.file_descriptor_proto[0])
        self.assertEqual(fd.package, "cuzk.v1")
        service = [s for s in fd.service if s.name == "ProvingEngine"][0]
        self.assertEqual(sorted(m.name for m in service.method),
                         sorted(["SubmitProof", "AwaitProof", "Prove", "CancelProof", "GetStatus", "GetMetrics",
                                 "PreloadSRS", "EvictSRS"]))
        h = health_grpc.HealthStub(self.d.channel)
        self.assertEqual(h.Check(health.HealthCheckRequest(service="cuzk.v1.ProvingEngine"), timeout=5).status,
                         health.HealthCheckResponse.SERVING)

    def test_2_prove_returns_a_proof_that_cuzk_cli_verifies(self):
        before = parse_prometheus(self.d.stub.GetMetrics(pb.GetMetricsRequest(), timeout=5).prometheus_text)
        resp = self.d.stub.Prove(pb.ProveRequest(submit=fixture_request("snap-7-1")), timeout=900)
        r = resp.result
        self.assertEqual(r.status, pb.AwaitProofResponse.COMPLETED, r.error_message + "\n" + self.d.read_log())
        self.assertEqual(r.job_id, "snap-7-1")
        self.assertEqual(len(r.proof), 192)
        self.assertGreater(r.gpu_compute_ms, 0)
        self.assertGreaterEqual(r.total_ms, r.gpu_compute_ms)
        proof = os.path.join(self.d.dir, "proof.bin")
        with open(proof, "wb") as f:
            f.write(r.proof)
        verify = [ARGS.cli, "snap", "verify", "--dir", os.path.join(ARGS.fixture, "sector-2k"),
                  "--param-cache", os.path.join(ARGS.fixture, "params"), "--proof", proof]
        out = subprocess.run(verify, capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        # A changed proof is rejected by the same verifier (the check can fail).
        with open(proof, "wb") as f:
            f.write(r.proof[:100] + bytes([r.proof[100] ^ 1]) + r.proof[101:])
        self.assertNotEqual(subprocess.run(verify, capture_output=True).returncode, 0)

        after = parse_prometheus(self.d.stub.GetMetrics(pb.GetMetricsRequest(), timeout=5).prometheus_text)
        self.assertEqual(value(after, "cuzk_proofs_completed_total"), value(before, "cuzk_proofs_completed_total") + 1)
        self.assertEqual(value(after, "cuzk_total_seconds", "cuzk_total_seconds_count",
                               proof_kind="SNAP_DEALS_UPDATE"), 1)
        for fam in ("cuzk_queue_wait_seconds", "cuzk_synthesis_seconds", "cuzk_gpu_seconds", "cuzk_total_seconds"):
            self.assertEqual(after[fam]["type"], "histogram")

    def test_3_metrics_parse_as_prometheus_and_counters_are_monotonic(self):
        texts = [self.d.stub.GetMetrics(pb.GetMetricsRequest(), timeout=5).prometheus_text]
        code, ctype, body = self.d.http("/metrics")
        self.assertEqual(code, 200)
        self.assertTrue(ctype.startswith("text/plain"), ctype)
        texts.append(body)
        parsed = [parse_prometheus(t) for t in texts]
        for name in ("cuzk_proofs_completed_total", "cuzk_proofs_failed_total", "cuzk_proofs_completed",
                     "cuzk_proofs_failed", "cuzk_uptime_seconds", "cuzk_queue_depth", "cuzk_running_jobs",
                     "cuzk_gpu_workers", "cuzk_proof_duration_seconds"):
            self.assertIn(name, parsed[0], name)
        for fam, p in parsed[0].items():
            if p["type"] != "counter":
                continue
            for (n, l, v0) in p["samples"]:
                self.assertGreaterEqual(value(parsed[1], fam, n, **l), v0, n)
        # Two workers per GPU the daemon proves on (none without CUDA or a GPU).
        gpus = len(self.d.stub.GetStatus(pb.GetStatusRequest(), timeout=5).gpus)
        self.assertEqual(value(parsed[0], "cuzk_gpu_workers"), 2 * gpus)

    def test_4_status_endpoint_is_json(self):
        code, ctype, body = self.d.http("/status")
        self.assertEqual(code, 200)
        self.assertEqual(ctype, "application/json")
        s = json.loads(body)
        for key in ("uptime_seconds", "memory", "synthesis", "pipelines", "gpu_workers", "counters", "srs", "queues"):
            self.assertIn(key, s)
        self.assertEqual(s["counters"]["completed"], 1)
        job = [p for p in s["pipelines"] if p["job_id"] == "snap-7-1"][0]
        self.assertEqual(job["state"], "completed")
        self.assertEqual([p["state"] for p in job["partitions"]], ["done"])
        self.assertGreater(job["partitions"][0]["gpu_ms"], 0)
        self.assertEqual(s["jobs"], s["pipelines"])
        st = self.d.stub.GetStatus(pb.GetStatusRequest(), timeout=5)
        self.assertEqual(st.total_proofs_completed, 1)
        self.assertEqual(st.pinned_memory_limit_bytes, s["memory"]["pinned_limit"])

    def test_5_preload_and_evict(self):
        r = self.d.stub.PreloadSRS(pb.PreloadSrsRequest(circuit_id="snap-2k"), timeout=300)
        self.assertTrue(r.already_loaded)  # the proof loaded it
        e = self.d.stub.EvictSRS(pb.EvictSrsRequest(circuit_id="snap-2k"), timeout=60)
        self.assertTrue(e.was_loaded)
        self.assertGreater(e.freed_bytes, 600 << 20)
        st = self.d.stub.GetStatus(pb.GetStatusRequest(), timeout=5)
        tiers = {s.circuit_id: s.tier for s in st.loaded_srs}
        self.assertEqual(tiers.get("snap-2k"), pb.SRSStatus.COLD)
        self.assertFalse(self.d.stub.EvictSRS(pb.EvictSrsRequest(circuit_id="snap-2k"), timeout=60).was_loaded)
        with self.assertRaises(grpc.RpcError) as bad:
            self.d.stub.PreloadSRS(pb.PreloadSrsRequest(circuit_id="snap-3k"), timeout=10)
        self.assertEqual(bad.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
        with self.assertRaises(grpc.RpcError) as missing:
            self.d.stub.PreloadSRS(pb.PreloadSrsRequest(circuit_id="snap-32g"), timeout=10)
        self.assertEqual(missing.exception.code(), grpc.StatusCode.FAILED_PRECONDITION)
        self.assertIn("not found", missing.exception.details())

    def test_5b_cuzk_bench_client_commands(self):
        addr = "unix://" + self.d.socket
        run = lambda *a: subprocess.run([ARGS.bench, *a, "--addr", addr], capture_output=True, text=True, timeout=120)
        st = run("status", "--json")
        self.assertEqual(st.returncode, 0, st.stderr)
        self.assertEqual(int(json.loads(st.stdout)["totalProofsCompleted"]), 1)
        m = run("metrics")
        self.assertEqual(m.returncode, 0, m.stderr)
        self.assertEqual(value(parse_prometheus(m.stdout), "cuzk_proofs_completed_total"), 1)
        c = run("cancel", "--job-id", "no-such-job")
        self.assertNotEqual(c.returncode, 0)
        self.assertIn("NOT_FOUND", c.stderr)
        p = run("preload", "--circuit-id", "snap-2k")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("loaded in", p.stdout)
        e = run("evict", "--circuit-id", "snap-2k")
        self.assertEqual(e.returncode, 0, e.stderr)
        self.assertIn("evicted", e.stdout)
        # TCP form of --addr is accepted too (nothing listens there: UNAVAILABLE, not a usage error).
        t = subprocess.run([ARGS.bench, "status", "--addr", "127.0.0.1:1"], capture_output=True, text=True, timeout=60)
        self.assertNotEqual(t.returncode, 0)
        self.assertIn("UNAVAILABLE", t.stderr)

    def test_6_sigterm_exits_zero(self):
        self.assertEqual(self.d.stop(signal.SIGTERM), 0, self.d.read_log())
        for line in self.d.read_log().splitlines():  # logging.format = "json": every line is an object
            json.loads(line)


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--daemon", required=True)
    p.add_argument("--cli", required=True)
    p.add_argument("--bench", required=True)
    p.add_argument("--stubs", required=True)
    p.add_argument("--fixture", required=True)
    ARGS, rest = p.parse_known_args()
    load_stubs(ARGS.stubs)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
