/**
 * Small CAs made with the openssl CLI for tests of the certificate minter: a root (the stack CA's
 * stand-in) and a conductor CA it signs, shaped as the tls provider issues them: no path length
 * (the program asks for 0, which the provider does not encode; see docs/topologies.md, Conductor certificates).
 */
import * as fs from "fs";
import * as path from "path";

import { run } from "./sys";

/** A self-signed root CA in `dir` (ca.crt, ca.key); returns `dir`. */
export function makeCa(dir: string, days = 30): string {
    fs.mkdirSync(dir, { recursive: true });
    run("openssl", ["req", "-x509", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", path.join(dir, "ca.key"), "-out", path.join(dir, "ca.crt"), "-subj", "/O=test/CN=stack CA", "-days", String(days), "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"]);
    return dir;
}

/**
 * A certificate signed by the root in `rootDir`, written as `out`/tls.crt and tls.key (replacing
 * both through a rename, as the kubelet swaps a mounted Secret): the conductor CA, or with
 * `ca: false` a server certificate in its place.
 */
export function makeIntermediate(rootDir: string, out: string, opts: { ca?: boolean; days?: number } = {}): void {
    fs.mkdirSync(out, { recursive: true });
    const tmp = fs.mkdtempSync(path.join(out, ".new-"));
    const ext = opts.ca === false ? "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n" : "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign,digitalSignature\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n";
    fs.writeFileSync(path.join(tmp, "ext.cnf"), ext);
    run("openssl", ["req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", path.join(tmp, "tls.key"), "-out", path.join(tmp, "csr.pem"), "-subj", "/O=test/CN=conductor CA"]);
    run("openssl", ["x509", "-req", "-in", path.join(tmp, "csr.pem"), "-CA", path.join(rootDir, "ca.crt"), "-CAkey", path.join(rootDir, "ca.key"), "-set_serial", String(Date.now()), "-days", String(opts.days ?? 10), "-extfile", path.join(tmp, "ext.cnf"), "-out", path.join(tmp, "tls.crt")]);
    for (const f of ["tls.crt", "tls.key"]) fs.renameSync(path.join(tmp, f), path.join(out, f));
    fs.rmSync(tmp, { recursive: true, force: true });
}
