#!/usr/bin/env python3
# Rendered by metal3-ironic. Mints this conductor's TLS certificate at container start.
#
# usage: conductor-cert.py [--trust FILE] CA_DIR OUT_DIR NODE IP [SAN ...]
#   --trust  the CA bundle the JSON-RPC peers verify with (tls.mode "existing"): the conductor CA
#            must chain to one of its certificates (through the certificates after it in tls.crt),
#            else this refuses to mint a certificate no peer would accept
#   CA_DIR   the conductor CA (tls.crt, tls.key): an intermediate the stack CA signed (no
#            path-length limit, see the README), or with tls.mode "existing" the CA of the user's
#            tls.conductorCaSecret; mounted only in the containers that serve TLS
#   OUT_DIR  where tls.crt (this certificate, then the conductor CA) and tls.key are written
#   NODE     the Kubernetes node name: the subject's common name and a DNS name
#   IP       the conductor's address: what JSON-RPC peers ([DEFAULT]host), IPA and BMCs dial
#   SAN      more names every conductor shares, as DNS:<name> or IP:<address> (the API Service)
#
# Why here and not in Pulumi: a control-plane node that joins the cluster gets a conductor with no
# configuration change, so no certificate can be issued for it in advance. The certificate lives as
# long as the conductor CA; when the program re-issues that CA, the start wrapper sees the mounted
# files change, restarts the container and this mints again.
#
# Exit codes: 0 written, 2 bad arguments or an unusable CA (the message names the file and why).
import datetime
import ipaddress
import os
import re
import sys

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

# As the stack's own keys (components/pki.ts): RSA for BMCs that speak nothing else.
KEY_BITS = 3072
# Tolerated clock skew between this node and whoever verifies the certificate.
BACKDATE = datetime.timedelta(minutes=5)


def fail(message):
    print(f"conductor-cert: {message}", file=sys.stderr)
    sys.exit(2)


def utc(dt):
    """A certificate time as naive UTC (cryptography before 42 has no *_utc accessors)."""
    return dt.replace(tzinfo=None) if dt.tzinfo is None else dt.astimezone(datetime.timezone.utc).replace(tzinfo=None)


def not_after(cert):
    return utc(cert.not_valid_after_utc) if hasattr(cert, "not_valid_after_utc") else utc(cert.not_valid_after)


def load_ca(ca_dir):
    crt, key = os.path.join(ca_dir, "tls.crt"), os.path.join(ca_dir, "tls.key")
    try:
        with open(crt, "rb") as f:
            pem = f.read()
        with open(key, "rb") as f:
            ca_key = serialization.load_pem_private_key(f.read(), password=None)
    except (OSError, ValueError) as e:
        fail(f"cannot read the conductor CA in {ca_dir}: {e}")
    try:
        ca = x509.load_pem_x509_certificate(pem)
    except ValueError as e:
        fail(f"{crt} is not a PEM certificate: {e}")
    try:
        bc = ca.extensions.get_extension_for_class(x509.BasicConstraints).value
    except x509.ExtensionNotFound:
        bc = None
    if bc is None or not bc.ca:
        fail(f"{crt} is not a CA certificate (basicConstraints CA:TRUE missing); it must be the conductor CA the program issues, or with tls.mode \"existing\" a CA certificate in tls.conductorCaSecret")
    pub = lambda k: k.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    if pub(ca.public_key()) != pub(ca_key.public_key()):
        fail(f"{key} is not the key of {crt}")
    if not_after(ca) <= utc(datetime.datetime.now(datetime.timezone.utc)):
        fail(f"the conductor CA {crt} expired on {not_after(ca).isoformat()}Z; run pulumi up --refresh to re-issue it")
    return ca, ca_key, pem


def load_pems(data):
    """Every certificate of a PEM bundle (cryptography before 39 has no load_pem_x509_certificates)."""
    blocks = re.findall(rb"-----BEGIN CERTIFICATE-----.+?-----END CERTIFICATE-----", data, re.S)
    if not blocks:
        raise ValueError("no PEM certificate in it")
    return [x509.load_pem_x509_certificate(b + b"\n") for b in blocks]


def issued_by(cert, issuer):
    """cert's issuer is issuer's subject and issuer's key signed it (verify_directly_issued_by needs cryptography 40)."""
    if cert.issuer != issuer.subject:
        return False
    pub = issuer.public_key()
    try:
        if isinstance(pub, rsa.RSAPublicKey):
            pub.verify(cert.signature, cert.tbs_certificate_bytes, padding.PKCS1v15(), cert.signature_hash_algorithm)
        elif isinstance(pub, ec.EllipticCurvePublicKey):
            pub.verify(cert.signature, cert.tbs_certificate_bytes, ec.ECDSA(cert.signature_hash_algorithm))
        else:
            pub.verify(cert.signature, cert.tbs_certificate_bytes)
        return True
    except (InvalidSignature, TypeError, ValueError):
        return False


def check_trust(ca_dir, ca_pem, trust_file):
    """The conductor CA (first certificate of tls.crt) chains to a certificate of trust_file."""
    crt = os.path.join(ca_dir, "tls.crt")
    try:
        with open(trust_file, "rb") as f:
            trusted = load_pems(f.read())
    except (OSError, ValueError) as e:
        fail(f"cannot read the trusted CA bundle {trust_file}: {e}")
    der = lambda c: c.public_bytes(serialization.Encoding.DER)
    roots = {der(c) for c in trusted}
    chain = load_pems(ca_pem)

    current, rest = chain[0], chain[1:]
    for _ in range(len(chain) + 1):
        if der(current) in roots or any(issued_by(current, t) for t in trusted):
            return
        parent = next((c for c in rest if issued_by(current, c)), None)
        if parent is None:
            break
        rest = [c for c in rest if c is not parent]
        current = parent
    fail(
        f"the conductor CA {crt} ({chain[0].subject.rfc4514_string()}) does not chain to the CA the JSON-RPC peers trust "
        f"({trust_file}, the ca.crt of tls.existingSecret): they would refuse this conductor's certificate. Issue the Secret of "
        "tls.conductorCaSecret from that CA, or put its issuing chain after it in tls.crt"
    )


def san_entries(node, ip, extra):
    names, seen = [], set()

    def add(entry, key):
        if key not in seen:
            seen.add(key)
            names.append(entry)

    try:
        add(x509.IPAddress(ipaddress.ip_address(ip)), ("IP", str(ipaddress.ip_address(ip))))
    except ValueError:
        fail(f"IP {ip!r} is not an IP address")
    add(x509.DNSName(node), ("DNS", node))
    for word in extra:
        kind, _, value = word.partition(":")
        if kind == "DNS" and value:
            add(x509.DNSName(value), ("DNS", value))
        elif kind == "IP" and value:
            try:
                add(x509.IPAddress(ipaddress.ip_address(value)), ("IP", str(ipaddress.ip_address(value))))
            except ValueError:
                fail(f"SAN {word!r}: {value!r} is not an IP address")
        else:
            fail(f"SAN {word!r} must be DNS:<name> or IP:<address>")
    return names


def write(path, data, mode):
    tmp = f"{path}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.chmod(tmp, mode)
    os.replace(tmp, path)


def main(argv):
    trust = None
    if argv[:1] == ["--trust"]:
        if len(argv) < 2 or not argv[1]:
            fail("--trust needs a file")
        trust, argv = argv[1], argv[2:]
    if len(argv) < 4:
        fail("usage: conductor-cert.py [--trust FILE] CA_DIR OUT_DIR NODE IP [DNS:<name>|IP:<address> ...]")
    ca_dir, out_dir, node, ip, *extra = argv
    if not node:
        fail("NODE is empty")
    ca, ca_key, ca_pem = load_ca(ca_dir)
    if trust is not None:
        check_trust(ca_dir, ca_pem, trust)
    sans = san_entries(node, ip, extra)
    key = rsa.generate_private_key(public_exponent=65537, key_size=KEY_BITS)
    now = utc(datetime.datetime.now(datetime.timezone.utc))
    try:
        aki = x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(
            ca.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
        )
    except x509.ExtensionNotFound:
        aki = x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "metal3-ironic"),
            x509.NameAttribute(NameOID.COMMON_NAME, node[:64]),
        ]))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - BACKDATE)
        .not_valid_after(not_after(ca))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True, key_encipherment=True, content_commitment=False, data_encipherment=False,
                key_agreement=False, key_cert_sign=False, crl_sign=False, encipher_only=False, decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
        .add_extension(x509.SubjectAlternativeName(sans), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(aki, critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    os.makedirs(out_dir, exist_ok=True)
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption())
    write(os.path.join(out_dir, "tls.key"), key_pem, 0o600)
    chain = cert.public_bytes(serialization.Encoding.PEM) + (ca_pem if ca_pem.endswith(b"\n") else ca_pem + b"\n")
    write(os.path.join(out_dir, "tls.crt"), chain, 0o644)
    listed = ", ".join(f"{'IP' if isinstance(n, x509.IPAddress) else 'DNS'}:{n.value}" for n in sans)
    print(f"conductor-cert: minted {out_dir}/tls.crt for {node} ({listed}), valid until {not_after(ca).isoformat()}Z (the conductor CA's end)")


if __name__ == "__main__":
    main(sys.argv[1:])
