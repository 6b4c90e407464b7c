/** core/manifests/meta.ts: annotation keys, namespace placement, content hashes, the pod and container baseline. */
import { strict as assert } from "assert";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

import { COMMANDS, DEFAULT_IMAGES } from "../../../core/contract";
import { ANNOTATIONS, contentHash, inNamespace, podBase, restrictedSecurityContext, sha256, sortedRecord, tlsSecretBody, untraced } from "../../../core/manifests/meta";
import { readRender } from "../../../tools/diff";
import { GOLDEN_DIR } from "../../../tools/golden";
import { dev, ha } from "./support";

describe("manifests/meta", function () {
    it("names the four pod-template annotations", function () {
        assert.deepEqual(ANNOTATIONS, {
            dnsmasqConfig: "metal3-ironic.metal3.io/dnsmasq-config-hash",
            tlsCert: "metal3-ironic.metal3.io/tls-cert-hash",
            credentials: "metal3-ironic.metal3.io/credentials-hash",
            cacheCa: "metal3-ironic.metal3.io/ipa-cache-ca-cert-hash",
        });
    });

    it("inNamespace sets metadata.namespace and keeps the rest, without touching the input", function () {
        const o = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", labels: { a: "b" } } };
        const placed = inNamespace(o, "metal3");
        assert.deepEqual(placed, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", labels: { a: "b" }, namespace: "metal3" } });
        assert.deepEqual(o.metadata, { name: "x", labels: { a: "b" } });
    });

    it("sha256 is the hex digest; contentHash hashes sorted `key\\nvalue` pairs, so key order does not matter", function () {
        assert.equal(sha256(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert.equal(contentHash({ b: "1", a: "2" }), sha256("a\n2\nb\n1"));
        assert.equal(contentHash({ b: "1", a: "2" }), contentHash({ a: "2", b: "1" }));
        assert.notEqual(contentHash({ a: "1" }), contentHash({ a: "2" }));
    });

    it("sortedRecord orders keys (rendered YAML follows insertion order)", function () {
        assert.deepEqual(Object.entries(sortedRecord({ z: "1", a: "2", m: "3" })), [["a", "2"], ["m", "3"], ["z", "1"]]);
    });

    it("tlsSecretBody: the one body of every kubernetes.io/tls Secret (tls.crt, tls.key, then ca.crt for a server's; a CA's own has none), built nowhere else in components/", function () {
        const meta = { name: "ironic-tls", namespace: "metal3", labels: { app: "ironic" } };
        assert.deepEqual(tlsSecretBody(meta, { cert: "C", key: "K", ca: "A" }), { metadata: meta, type: "kubernetes.io/tls", stringData: { "tls.crt": "C", "tls.key": "K", "ca.crt": "A" } });
        assert.deepEqual(Object.keys(tlsSecretBody(meta, { cert: "C", key: "K", ca: "A" }).stringData), ["tls.crt", "tls.key", "ca.crt"], "the rendered order");
        assert.deepEqual(tlsSecretBody(meta, { cert: "C", key: "K" }).stringData, { "tls.crt": "C", "tls.key": "K" });
        const components = path.join(__dirname, "..", "..", "..", "components");
        const spelled = fs.readdirSync(components).filter((f) => /kubernetes\.io\/tls/.test(fs.readFileSync(path.join(components, f), "utf8").replace(/^\s*(\*|\/\/).*$/gm, "")));
        assert.deepEqual(spelled, [], "components build TLS Secrets through tlsSecretBody (or serverTlsSecret)");
    });

    it("restrictedSecurityContext: no escalation, read-only root, non-root, every capability dropped; a fresh object per call", function () {
        assert.deepEqual(restrictedSecurityContext(), { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ["ALL"] } });
        assert.notEqual(restrictedSecurityContext(), restrictedSecurityContext());
    });

    describe("podBase", function () {
        it("runs as the given uid/gid with RuntimeDefault seccomp, no service-account token and no service links", function () {
            const b = podBase(dev, 997, 994);
            assert.deepEqual(Object.keys(b), ["automountServiceAccountToken", "enableServiceLinks", "securityContext", "nodeSelector", "tolerations"]);
            assert.equal(b.automountServiceAccountToken, false);
            assert.equal(b.enableServiceLinks, false);
            assert.deepEqual(b.securityContext, { runAsUser: 997, runAsGroup: 994, fsGroup: 994, runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
        });

        it("the configured placement: node selector (sorted, extra keys merged in) and tolerations", function () {
            assert.deepEqual(podBase(dev, 1, 1).nodeSelector, { "node-role.kubernetes.io/control-plane": "" });
            const merged = podBase(dev, 1, 1, { "a.example/first": "x" }).nodeSelector as Record<string, string>;
            assert.deepEqual(Object.keys(merged), ["a.example/first", "node-role.kubernetes.io/control-plane"]);
            assert.deepEqual(podBase(dev, 1, 1).tolerations, dev.placement.tolerations);
        });

        it("an empty node selector is left out (undefined), not rendered as {}", function () {
            assert.deepEqual(ha.placement.nodeSelector, {});
            assert.equal(podBase(ha, 1, 1).nodeSelector, undefined);
            assert.deepEqual(podBase(ha, 1, 1, { k: "v" }).nodeSelector, { k: "v" });
        });
    });

    describe("untraced: the image's shell trace never reaches a log", function () {
        const SECRET = "s3cr3t-Pa55word";
        /** A script as the image writes them: traced from the start, a credential read while tracing, then another script started. */
        let dir = "";
        before(function () {
            dir = fs.mkdtempSync(path.join(os.tmpdir(), "m3i-untraced-"));
            fs.writeFileSync(path.join(dir, "password"), SECRET);
            fs.writeFileSync(path.join(dir, "child"), "#!/bin/bash\nset -euxo pipefail\nP=$(<\"$1/password\")\necho \"child done ${#P}\"\n", { mode: 0o755 });
            fs.writeFileSync(path.join(dir, "start"), `#!/bin/bash\nset -euxo pipefail\nMARIADB_PASSWORD=$(<"$1/password")\necho "start done"\n"$1/child" "$1"\n`, { mode: 0o755 });
        });
        after(() => fs.rmSync(dir, { recursive: true, force: true }));
        const run = (argv: string[]) => spawnSync(argv[0], argv.slice(1), { encoding: "utf8" });

        it("run plainly, the script traces the password to stderr (what the image's auth-common.sh does)", function () {
            const r = run([path.join(dir, "start"), dir]);
            assert.equal(r.status, 0, r.stderr);
            assert.ok(r.stderr.includes(`MARIADB_PASSWORD=${SECRET}`), r.stderr);
        });

        it("run untraced, its output and its child's are there and no trace line is, the password nowhere", function () {
            const r = run(untraced([path.join(dir, "start"), dir]));
            assert.equal(r.status, 0, r.stderr);
            assert.equal(r.stdout, `start done\nchild done ${SECRET.length}\n`);
            assert.equal(r.stderr, "");
        });

        it("keeps the exit status and the arguments as given (spaces, quotes)", function () {
            assert.equal(run(untraced(["/bin/bash", "-c", "exit 7"])).status, 7);
            assert.equal(run(untraced(["/bin/echo", "a b", "'c'"])).stdout, "a b 'c'\n");
        });

        it("every container of the ironic image that mounts a credential (under /auth) runs untraced, its exec probes too, in every example stack", function () {
            const ironicRepo = DEFAULT_IMAGES.ironic.replace(/:[^:/]+$/, "");
            const prefix = untraced([]);
            const IMAGE_SCRIPTS: string[] = [COMMANDS.ironic, COMMANDS.httpd, COMMANDS.dbUpgrade, COMMANDS.onlineDataMigrations, COMMANDS.ramdiskLogs, "/bin/runironic-exporter"];
            let checked = 0;
            for (const stack of fs.readdirSync(GOLDEN_DIR).sort()) {
                for (const [id, o] of readRender(path.join(GOLDEN_DIR, stack))) {
                    const pod = (o as any).spec?.template?.spec;
                    for (const c of [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])]) {
                        if (!String(c.image).startsWith(ironicRepo)) continue;
                        if (!(c.volumeMounts ?? []).some((m: { mountPath: string }) => m.mountPath.startsWith("/auth"))) continue;
                        // The image's start scripts trace; our own programs (the pruner, in Python) do not.
                        if (!(c.command ?? []).some((a: string) => IMAGE_SCRIPTS.some((s) => a.includes(s)))) continue;
                        const where = `${stack} ${id} ${c.name}`;
                        assert.deepEqual(c.command.slice(0, prefix.length), prefix, `${where}: command`);
                        for (const p of ["readinessProbe", "livenessProbe", "startupProbe"]) {
                            if (c[p]?.exec) assert.deepEqual(c[p].exec.command.slice(0, prefix.length), prefix, `${where}: ${p}`);
                        }
                        checked++;
                    }
                }
            }
            // ironic and httpd of every stack, the two schema Jobs of each stack with MariaDB.
            assert.ok(checked >= 30, `checked ${checked} containers`);
        });
    });
});
