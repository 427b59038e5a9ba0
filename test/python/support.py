# Helpers shared by the python-gitlab tests (fixtures are in conftest.py).
import base64
import hashlib
import os
import uuid

PASSWORD = "Edgeforge-py-Pass-4821"


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def random_ssh_key(comment: str) -> str:
    """An ed25519 public key made of fresh random bytes: unique per run, as the instance requires."""
    name = b"ssh-ed25519"
    point = os.urandom(32)
    blob = len(name).to_bytes(4, "big") + name + len(point).to_bytes(4, "big") + point
    return f"ssh-ed25519 {base64.b64encode(blob).decode()} {comment}"


def sha256_fingerprint(key: str) -> str:
    """OpenSSH's SHA256 fingerprint of a public key line, as GitLab's /keys?fingerprint= takes it."""
    digest = hashlib.sha256(base64.b64decode(key.split()[1])).digest()
    return "SHA256:" + base64.b64encode(digest).decode().rstrip("=")
