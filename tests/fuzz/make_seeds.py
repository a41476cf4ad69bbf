#!/usr/bin/env python3
"""Writes the seed corpora of tests/fuzz/corpus/ from the test fixtures (run
once; the seeds are committed). Arguments: the daemon fixture dir (2 KiB
sector, tests/daemon/make_fixture.sh), the r1cs fixture dir
(make_r1cs_fixture.sh), a dir with a tiny synthetic .params/.vk
(cuzk-cli synthetic setup --log-size 4 --num-public 1 --params s.params --vk s.vk)
and the Python stubs dir (build/tests/daemon/py).

  make_seeds.py FIXTURE R1CS_FIXTURE SYNTH_DIR STUBS_DIR
"""
import base64
import glob
import json
import os
import shutil
import sys

fixture, r1cs_fixture, synth, stubs = sys.argv[1:5]
sys.path.insert(0, stubs)
from cuzk.v1 import proving_pb2  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
corpus = os.path.join(here, "corpus")


def put(target, name, data):
    d = os.path.join(corpus, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


proofs = [base64.b64decode(p) for p in json.load(open(os.path.join(fixture, "sector-2k", "vanilla_proofs.json")))]
comms = {k: bytes.fromhex(v) for k, v in json.load(open(os.path.join(fixture, "sector-2k", "commitments.json"))).items()}
vk_2k = read(glob.glob(os.path.join(fixture, "params", "*.vk"))[0])

# fuzz_vanilla_proof: shape selector 0 (2 KiB), then the partition proof.
put("fuzz_vanilla_proof", "snap-2k-partition0", b"\x00" + proofs[0])
# fuzz_params / fuzz_vk: the synthetic 2^4 key; the 2 KiB SnapDeals .vk (6 IC points: selector 6).
put("fuzz_params", "synthetic-log4", read(os.path.join(synth, "s.params")))
put("fuzz_vk", "synthetic-log4", b"\x00" + read(os.path.join(synth, "s.vk")))
put("fuzz_vk", "snap-2k", b"\x00" + vk_2k)
# snarkjs files of the circom multi_public circuit.
put("fuzz_r1cs", "multi_public", read(os.path.join(r1cs_fixture, "multi_public.r1cs")))
put("fuzz_zkey", "multi_public", read(os.path.join(r1cs_fixture, "multi_public.zkey")))
put("fuzz_wtns", "multi_public", read(os.path.join(r1cs_fixture, "multi_public.wtns")))
# The config: the example file, and a short one with every value form.
put("fuzz_config", "cuzk.example.toml", read(os.path.join(here, "..", "..", "daemon", "cuzk.example.toml")))
put("fuzz_config", "forms.toml", b"""[daemon]
listen = "127.0.0.1:9820"
shutdown_grace = "1500ms"
job_retention = "1h"
max_message_size = 268435456
[memory]
total_budget = "auto"
safety_margin = "5GiB"
[gpus]
devices = [0, 1]
[srs]
preload = ["snap-2k"]
[logging]
format = "json"
""")

# fuzz_submit_request: a valid 2 KiB SnapDeals request (raw commitments), the
# same with CID commitments' registered_proof form, and a GENERIC_R1CS request.
r = proving_pb2.SubmitProofRequest(
    request_id="seed-snap-2k", proof_kind=proving_pb2.SNAP_DEALS_UPDATE, sector_size=2048,
    vanilla_proofs=proofs, comm_r_old=comms["comm_r_old"], comm_r_new=comms["comm_r_new"],
    comm_d_new=comms["comm_d_new"])
put("fuzz_submit_request", "snap-2k", r.SerializeToString())
r2 = proving_pb2.SubmitProofRequest()
r2.CopyFrom(r)
r2.sector_size = 0
r2.registered_proof = 0
r2.priority = proving_pb2.CRITICAL
put("fuzz_submit_request", "snap-2k-registered-proof", r2.SerializeToString())
wtns = read(os.path.join(r1cs_fixture, "multi_public.wtns"))
# The witness: the .wtns values (section 2 after a 32-byte-prime header
# section: canonical little-endian, n8 = 32 bytes each, ONE first), the form
# the daemon takes.
assert wtns[:4] == b"wtns" and int.from_bytes(wtns[24:28], "little") == 32
n_values = int.from_bytes(wtns[60:64], "little")
values = wtns[76:76 + 32 * n_values]
assert len(values) == 32 * n_values
g = proving_pb2.SubmitProofRequest(request_id="seed-generic", proof_kind=proving_pb2.GENERIC_R1CS,
                                   circuit_id="multi_public", witness=values)
put("fuzz_submit_request", "generic-multi_public", g.SerializeToString())
