"""KEMs from Python: round trips, KAT records, bad input."""

import hashlib
import os
from pathlib import Path

import pytest

from latpoly import kem

KAT = Path(__file__).resolve().parents[2] / ".." / "shared" / "kat"


@pytest.mark.parametrize("name", kem.names())
def test_round_trip_and_sizes(name):
    k = kem.new(name)
    pk, sk = k.keypair()
    assert (len(pk), len(sk)) == (k.public_key_bytes, k.secret_key_bytes)
    ct, ss = k.encapsulate(pk)
    assert (len(ct), len(ss)) == (k.ciphertext_bytes, k.shared_secret_bytes)
    assert k.decapsulate(sk, ct) == ss
    for bad in (pk[:-1], pk + b"\0", b""):
        with pytest.raises(ValueError):
            k.encapsulate(bad)
    with pytest.raises(ValueError):
        k.decapsulate(sk[:-1], ct)
    with pytest.raises(ValueError):
        k.decapsulate(sk, ct[:-1])
    with pytest.raises(ValueError):
        k.encapsulate("not bytes")
    tampered = bytes([ct[0] ^ 1]) + ct[1:]
    assert k.decapsulate(sk, tampered) != ss  # rejection (implicit or explicit)


def test_unknown_names():
    for bad in ("nope", "ntru+kem576", 7):
        with pytest.raises(ValueError):
            kem.new(bad)
    with pytest.raises(ValueError):
        kem.kat_entry("NTRU+KEM576", b"\0" * 47)


def parse_rsp(text):
    recs, cur = [], None
    for line in text.splitlines():
        if " = " not in line:
            continue
        k, v = line.split(" = ", 1)
        if k == "count":
            cur = {}
            recs.append(cur)
        else:
            cur[k] = v.strip()
    return recs


def test_kat_entries_match_files():
    names = [n for n in kem.names() if n.startswith("NTRU+KEM")]
    if not KAT.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{KAT} missing under CI")
        pytest.skip(f"{KAT} not present")
    checked = 0
    for name in names:
        rsps = list((KAT / "ntruplus" / "round2-final_spec-v2.2.1" / name).glob("*.rsp"))
        assert len(rsps) == 1, name
        recs = parse_rsp(rsps[0].read_text())
        for r in recs[:3]:
            got = kem.kat_entry(name, bytes.fromhex(r["seed"]))
            for field in ("pk", "sk", "ct", "ss"):
                assert got[field].hex().upper() == r[field], (name, field)
            checked += 1
    assert checked == 3 * len(names)


@pytest.mark.parametrize("name", ["sntrup761", "ntrulpr761"])
def test_ntruprime_kat_entries_match_files(name):
    if not KAT.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{KAT} missing under CI")
        pytest.skip(f"{KAT} not present")
    text = (KAT / "ntruprime" / name / f"{name}.rsp").read_text()
    assert text.startswith(f"# kem/{name}\n")
    for r in parse_rsp(text)[:3]:
        got = kem.kat_entry(name, bytes.fromhex(r["seed"]))
        for field in ("pk", "sk", "ct", "ss"):
            assert got[field].hex().upper() == r[field], (name, field)


@pytest.mark.parametrize(
    "name,file",
    [
        ("ntruhps2048509", "PQCkemKAT_935.rsp"),
        ("ntruhps2048677", "PQCkemKAT_1234.rsp"),
        ("ntruhps4096821", "PQCkemKAT_1590.rsp"),
        ("ntruhrss701", "PQCkemKAT_1450.rsp"),
    ],
)
def test_ntru_kat_entries_match_files(name, file):
    if not KAT.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{KAT} missing under CI")
        pytest.skip(f"{KAT} not present")
    text = (KAT / "ntru" / name / file).read_text()
    assert text.startswith(f"# {name}\n")
    for r in parse_rsp(text)[:3]:
        got = kem.kat_entry(name, bytes.fromhex(r["seed"]))
        for field in ("pk", "sk", "ct", "ss"):
            assert got[field].hex().upper() == r[field], (name, field)


def test_ntru_names_and_sizes():
    want = {
        "ntruhps2048509": (699, 935, 699),
        "ntruhps2048677": (930, 1234, 930),
        "ntruhps4096821": (1230, 1590, 1230),
        "ntruhrss701": (1138, 1450, 1138),
    }
    for name, sizes in want.items():
        k = kem.new(name)
        assert (k.public_key_bytes, k.secret_key_bytes, k.ciphertext_bytes) == sizes


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork() on this platform")
def test_forked_processes_draw_different_keys():
    # the operating system's bytes go through a per-thread buffer; a forked child must not
    # reuse what it inherited (same buffer -> same seeds -> the parent's next key pair)
    k = kem.new("NTRU+KEM576")
    k.keypair()  # fill this thread's buffer before forking
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.write(w, k.keypair()[0][:32])
        finally:
            os._exit(0)
    os.close(w)
    mine = k.keypair()[0][:32]
    theirs = os.read(r, 32)
    os.waitpid(pid, 0)
    os.close(r)
    assert len(theirs) == 32
    assert mine != theirs
