/** `npm run plan` as a newcomer runs it: offline, deterministic, secrets redacted, clear errors. */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { run, tmpDir } from "../helpers/sys";

const ROOT = path.join(__dirname, "..", "..");

function plan(args: string[]) {
    return run("npx", ["ts-node", "--transpile-only", path.join(ROOT, "tools", "plan.ts"), ...args], { allowFail: true, timeout: 120000 });
}

function readTree(dir: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const f of fs.readdirSync(dir).sort()) out[f] = fs.readFileSync(path.join(dir, f), "utf8");
    return out;
}

describe("npm run plan", function () {
    this.timeout(180000);
    const work = tmpDir("plan");
    after(() => fs.rmSync(work, { recursive: true, force: true }));

    it("renders the dev stack offline, byte-identical on a second run, with a summary", function () {
        const a = plan(["--stack", "dev", "--out", path.join(work, "a")]);
        const b = plan(["--stack", "dev", "--out", path.join(work, "b")]);
        assert.equal(a.status, 0, a.stderr);
        assert.equal(b.status, 0, b.stderr);
        const ta = readTree(path.join(work, "a"));
        const tb = readTree(path.join(work, "b"));
        assert.deepEqual(Object.keys(ta), [
            "01-namespace-metal3.yaml",
            "02-secret-ironic-cacert.yaml",
            "03-secret-ironic-credentials.yaml",
            "04-secret-ironic-tls.yaml",
            "05-configmap-ironic-bmo.yaml",
            "06-configmap-ironic-dnsmasq.yaml",
            "07-service-ironic.yaml",
            "08-deployment-ironic.yaml",
        ]);
        assert.deepEqual(ta, tb, "two runs produce byte-identical files");
        const summary = (out: string) => out.replace(/^wrote (\d+) objects to .*$/m, "wrote $1 objects");
        assert.equal(summary(a.stdout), summary(b.stdout), "same summary apart from the output directory");
        assert.match(a.stdout, /^wrote 8 objects to /m);
        assert.match(a.stdout, /Deployment\s+1/);
        assert.match(a.stdout, /API \(in cluster, for BMO\)\s+https:\/\/ironic\.metal3\.svc:6385/);
        assert.match(a.stdout, /172\.22\.0\.10-172\.22\.0\.100 \(91 addresses\)/);
    });

    it("prints and writes no secret value: Secret values are redacted, keys stay visible", function () {
        const files = readTree(path.join(work, "a"));
        const tls = files["04-secret-ironic-tls.yaml"];
        assert.match(tls, /tls\.key: "<redacted: secret>"/);
        assert.match(tls, /tls\.crt: "<redacted: secret>"/);
        const all = Object.values(files).join("\n");
        assert.ok(!/PRIVATE KEY/.test(all), "no private key material");
        assert.ok(!/\$2[aby]\$/.test(all), "no htpasswd hash");
        assert.ok(!/generated at deploy time\)/.test(files["03-secret-ironic-credentials.yaml"]));
    });

    it("exits non-zero on a broken stack file and lists every problem with its key", function () {
        const r = plan(["--file", path.join(__dirname, "..", "fixtures", "Pulumi.broken.yaml"), "--out", path.join(work, "broken")]);
        assert.equal(r.status, 1);
        for (const pattern of [
            /- topology: must be "single"/,
            /- namepsace: unknown key "namepsace": did you mean "namespace"\?/,
            /- provisioning\.dhcp: range is reversed/,
            /- ports\.api: must be between 1 and 65535/,
            /- images\.ironic: not a valid image reference/,
        ]) {
            assert.match(r.stderr, pattern);
        }
        assert.match(r.stderr, /5 problems/);
        assert.ok(!/\n\s+at /.test(r.stderr), "no stack trace");
        assert.ok(!fs.existsSync(path.join(work, "broken")), "nothing written");
    });

    it("with tls.mode existing says which existing object it reads, and renders it as nothing this program creates", function () {
        const dev = plan(["--stack", "dev", "--out", path.join(work, "dev-reads")]);
        assert.equal(dev.status, 0, dev.stderr);
        assert.ok(!/^reads:/m.test(dev.stdout), "the dev stack reads nothing");
        const r = plan(["--file", path.join(__dirname, "..", "fixtures", "Pulumi.tls-existing.yaml"), "--out", path.join(work, "existing")]);
        assert.equal(r.status, 0, r.stderr);
        assert.match(r.stdout, /^reads: Secret metal3\/my-tls \(existing\)$/m);
        const files = readTree(path.join(work, "existing"));
        assert.ok(!Object.keys(files).some((f) => f.includes("my-tls")), `no file for the user's Secret: ${Object.keys(files).join(", ")}`);
        assert.ok(!Object.values(files).some((t) => /^\s+name: my-tls$/m.test(t) && /^kind: Secret$/m.test(t)), "no Secret object named my-tls");
        const cacert = Object.keys(files).find((f) => /^\d+-secret-ironic-cacert\.yaml$/.test(f));
        assert.ok(cacert, "BMO's CA Secret is created");
        assert.match(files[cacert!], /tls\.crt: "<redacted: secret>"/);
        assert.ok(!Object.keys(files).some((f) => /-secret-ironic-tls\.yaml$/.test(f)), "no API certificate Secret of our own");
        assert.ok(Object.keys(files).some((f) => /secret-ironic-mariadb-tls\.yaml$/.test(f)), "MariaDB's own certificate");
        assert.ok(!/PRIVATE KEY/.test(Object.values(files).join("\n") + r.stdout), "no key material");
    });

    it("explains a missing stack file", function () {
        const r = plan(["--stack", "nosuchstack"]);
        assert.equal(r.status, 2);
        assert.match(r.stderr, /Pulumi\.nosuchstack\.yaml does not exist/);
    });
});
