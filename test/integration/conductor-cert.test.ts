/**
 * The certificate minter (assets/conductor-cert.py) run by real Python with the cryptography
 * releases it meets: Debian's (what the pod runner's stand-in image runs) and, from PyPI, the
 * releases OpenStack's upper constraints pinned around the image's Ironic (43.0.3, 44.0.0).
 * Each mints a certificate that openssl verifies against the stack CA for the node's address, and
 * refuses unusable input with a message naming it.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { readAsset } from "../../core/render/assets";
import { makeCa, makeIntermediate } from "../helpers/openssl-ca";
import { requireOrSkip, run, tmpDir, which } from "../helpers/sys";

const PYPI_RELEASES = ["43.0.3", "44.0.0"];

describe("conductor-cert.py (real python and cryptography, verified with openssl)", function () {
    this.timeout(300000);
    let dir = "";
    let script = "";
    let root = "";
    const pythons: [string, string][] = [];

    before(function () {
        requireOrSkip(this, !!which("openssl") && run("/usr/bin/python3", ["-c", "import cryptography"], { allowFail: true }).status === 0, "openssl, python3-cryptography");
        dir = tmpDir("mint");
        script = path.join(dir, "conductor-cert.py");
        fs.writeFileSync(script, readAsset("conductor-cert.py"));
        root = makeCa(path.join(dir, "root"));
        makeIntermediate(root, path.join(dir, "ca"));
        const debian = run("/usr/bin/python3", ["-c", "import cryptography; print(cryptography.__version__)"]).stdout.trim();
        pythons.push([`Debian's cryptography ${debian}`, "/usr/bin/python3"]);
        for (const v of PYPI_RELEASES) {
            const venv = path.join(dir, `venv-${v}`);
            const made = run("python3", ["-m", "venv", venv], { allowFail: true, timeout: 120000 });
            const pip = made.status === 0 ? run(path.join(venv, "bin", "pip"), ["install", "--quiet", "--disable-pip-version-check", `cryptography==${v}`], { allowFail: true, timeout: 240000 }) : made;
            if (pip.status !== 0) throw new Error(`cannot install cryptography ${v} from PyPI into a venv (python3 -m venv, pip): ${pip.stderr.slice(-800)}`);
            pythons.push([`cryptography ${v} from PyPI`, path.join(venv, "bin", "python")]);
        }
    });
    after(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

    const mint = (python: string, out: string, args: string[]) => run(python, [script, path.join(dir, "ca"), out, ...args], { allowFail: true });

    it("mints a server and client certificate for the node's address and name plus the shared names, ending with the conductor CA", function () {
        const caEnd = run("openssl", ["x509", "-noout", "-enddate", "-in", path.join(dir, "ca", "tls.crt")]).stdout.trim();
        for (const [i, [what, python]] of pythons.entries()) {
            const out = path.join(dir, `out-${i}`);
            const r = mint(python, out, ["cp-0", "172.22.0.2", "DNS:ironic", "DNS:cp-0", "IP:172.22.0.2", "IP:10.0.0.9", "DNS:ironic.metal3.svc"]);
            assert.equal(r.status, 0, `${what}: ${r.stderr}`);
            const crt = path.join(out, "tls.crt");
            for (const purpose of ["sslserver", "sslclient"]) {
                const v = run("openssl", ["verify", "-CAfile", path.join(root, "ca.crt"), "-untrusted", path.join(dir, "ca", "tls.crt"), "-verify_ip", "172.22.0.2", "-purpose", purpose, crt], { allowFail: true });
                assert.equal(v.status, 0, `${what} ${purpose}: ${v.stdout}${v.stderr}`);
            }
            const text = run("openssl", ["x509", "-noout", "-subject", "-enddate", "-ext", "subjectAltName,basicConstraints,keyUsage", "-in", crt]).stdout;
            // Its own address first, each name once.
            assert.match(text, /IP Address:172\.22\.0\.2, DNS:cp-0, DNS:ironic, IP Address:10\.0\.0\.9, DNS:ironic\.metal3\.svc\s*$/m, what);
            assert.match(text, /CA:FALSE/);
            assert.match(text, /Digital Signature, Key Encipherment/);
            assert.ok(text.includes(caEnd), `${what}: valid until the conductor CA's end (${caEnd})`);
            assert.ok(fs.readFileSync(crt, "utf8").endsWith(fs.readFileSync(path.join(dir, "ca", "tls.crt"), "utf8")), "the chain ends with the conductor CA");
            assert.equal(fs.statSync(path.join(out, "tls.key")).mode & 0o777, 0o600);
            // Valid from a few minutes back (clock skew), not from the future.
            const start = new Date(run("openssl", ["x509", "-noout", "-startdate", "-in", crt]).stdout.trim().replace("notBefore=", "")).getTime();
            assert.ok(Date.now() - start >= 4 * 60 * 1000 && Date.now() - start < 10 * 60 * 1000, `${what}: notBefore ${new Date(start).toISOString()}`);
        }
    });

    it("refuses what it cannot use, naming it: a CA key that is not the certificate's, an address that is none, a SAN word of another kind, missing arguments", function () {
        const other = makeCa(path.join(dir, "other"));
        const mixed = path.join(dir, "mixed");
        fs.mkdirSync(mixed);
        fs.copyFileSync(path.join(dir, "ca", "tls.crt"), path.join(mixed, "tls.crt"));
        fs.copyFileSync(path.join(other, "ca.key"), path.join(mixed, "tls.key"));
        for (const [what, python] of pythons) {
            const out = path.join(dir, "refused");
            let r = run(python, [script, mixed, out, "cp-0", "172.22.0.2"], { allowFail: true });
            assert.equal(r.status, 2, what);
            assert.match(r.stderr, /conductor-cert: .*mixed\/tls\.key is not the key of .*mixed\/tls\.crt/, what);
            r = mint(python, out, ["cp-0", "172.22.0.300"]);
            assert.equal(r.status, 2);
            assert.match(r.stderr, /IP '172\.22\.0\.300' is not an IP address/);
            r = mint(python, out, ["cp-0", "172.22.0.2", "URI:https://x"]);
            assert.equal(r.status, 2);
            assert.match(r.stderr, /SAN 'URI:https:\/\/x' must be DNS:<name> or IP:<address>/);
            r = run(python, [script, path.join(dir, "ca"), out], { allowFail: true });
            assert.equal(r.status, 2);
            assert.match(r.stderr, /usage: conductor-cert\.py \[--trust FILE\] CA_DIR OUT_DIR NODE IP/);
            assert.ok(!fs.existsSync(out), `${what}: nothing written`);
        }
    });

    it("--trust (tls.mode existing): mints from a corporate conductor CA that chains to the trusted bundle, directly or through the chain after it in tls.crt; refuses one of another PKI, naming both files", function () {
        // The corporate PKI: a root, an issuing intermediate, and the conductor CA that one signs;
        // the Secret's tls.crt holds the conductor CA followed by the intermediate.
        const corp = makeCa(path.join(dir, "corp-root"));
        makeIntermediate(corp, path.join(dir, "corp-issuing"));
        const issuing = path.join(dir, "corp-issuing-as-root");
        fs.mkdirSync(issuing);
        fs.copyFileSync(path.join(dir, "corp-issuing", "tls.crt"), path.join(issuing, "ca.crt"));
        fs.copyFileSync(path.join(dir, "corp-issuing", "tls.key"), path.join(issuing, "ca.key"));
        const ca = path.join(dir, "corp-conductor-ca");
        makeIntermediate(issuing, ca);
        fs.appendFileSync(path.join(ca, "tls.crt"), fs.readFileSync(path.join(dir, "corp-issuing", "tls.crt")));
        const trust = path.join(corp, "ca.crt");
        for (const [what, python] of pythons) {
            const out = path.join(dir, `corp-${what.replace(/\W+/g, "-")}`);
            let r = run(python, [script, "--trust", trust, ca, out, "cp-1", "172.22.0.3"], { allowFail: true });
            assert.equal(r.status, 0, `${what}: ${r.stderr}`);
            // What a JSON-RPC peer does: the served chain (leaf, conductor CA, issuing CA) against the corporate root only.
            const chain = path.join(out, "tls.crt");
            const v = run("openssl", ["verify", "-CAfile", trust, "-untrusted", chain, "-verify_ip", "172.22.0.3", "-purpose", "sslserver", chain], { allowFail: true });
            assert.equal(v.status, 0, `${what}: ${v.stdout}${v.stderr}`);
            assert.equal((fs.readFileSync(chain, "utf8").match(/BEGIN CERTIFICATE/g) ?? []).length, 3, "leaf, conductor CA, issuing CA");
            // The issuing CA itself in the bundle is enough too.
            r = run(python, [script, "--trust", path.join(dir, "corp-issuing", "tls.crt"), ca, out, "cp-1", "172.22.0.3"], { allowFail: true });
            assert.equal(r.status, 0, `${what}: ${r.stderr}`);
            // The stack's own conductor CA (another root) against the corporate bundle: refused, nothing written.
            const refused = path.join(dir, `refused-corp-${what.replace(/\W+/g, "-")}`);
            r = run(python, [script, "--trust", trust, path.join(dir, "ca"), refused, "cp-1", "172.22.0.3"], { allowFail: true });
            assert.equal(r.status, 2, what);
            assert.match(r.stderr, /conductor-cert: the conductor CA .*\/ca\/tls\.crt \(.*CN=conductor CA.*\) does not chain to the CA the JSON-RPC peers trust \(.*corp-root\/ca\.crt, the ca\.crt of tls\.existingSecret\).*tls\.conductorCaSecret/, what);
            assert.ok(!fs.existsSync(refused), `${what}: nothing written`);
            r = run(python, [script, "--trust", path.join(dir, "nowhere.crt"), ca, refused, "cp-1", "172.22.0.3"], { allowFail: true });
            assert.equal(r.status, 2);
            assert.match(r.stderr, /cannot read the trusted CA bundle .*nowhere\.crt/);
        }
    });
});
