/**
 * tls.minVersion, tls.ciphers, tls.ciphersTls13, tls.curves with their real consumers:
 *  - Debian's Apache (mod_ssl on OpenSSL 3): the SSL directives the image's vhost templates write
 *    from the httpd container's variables (`SSLProtocol $IRONIC[_VMEDIA]_SSL_PROTOCOL`,
 *    `SSLCipherSuite $…_TLS_12_CIPHERS`, `SSLCipherSuite TLSv1.3 $…_TLS_13_CIPHERS`,
 *    `SSLOpenSSLConfCmd Curves $…_CURVES`; facts of ironic-image's apache2-vmedia.conf.j2 and
 *    httpd-ironic-api.conf.j2), filled from the rendered pod's httpd env, load in `apache2 -t` and
 *    are enforced by a live server in a network namespace of this test: `openssl s_client`
 *    with an older protocol, another TLS 1.3 suite, a TLS 1.2 cipher outside the list or a
 *    group outside the curves is refused; what the policy allows connects.
 *  - PyPI's Ironic 38 (the image's release): the multi stack's OS_JSON_RPC__* variables, as its
 *    configuration loader reads them (its JSON-RPC server keeps TLS 1.3 whatever tls.* says).
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import type { RawConfig } from "../../core/config";
import { HTTPD_TLS_ENV } from "../../core/contract";
import { ironicPodSpec } from "../../core/manifests/ironic";
import { devNoDhcpRaw, haRaw, planOf, withKeys } from "../unit/plan/support";
import { canUseNetns, Daemon, NetnsLab, requireOrSkip, run, tmpDir, which } from "../helpers/sys";

const VENV_PYTHON = "/var/cache/metal3-ironic-pypi/ironic-38/bin/python";
const MODULES = "/usr/lib/apache2/modules";
const PORTS = { api: 6385, vmedia: 6183 };

/** The httpd container's env of `raw`, as rendered into the pod. */
function httpdEnv(raw: RawConfig): Record<string, string> {
    const httpd = (ironicPodSpec(planOf(raw)).containers as any[]).find((c: any) => c.name === "httpd");
    return Object.fromEntries((httpd.env ?? []).filter((e: any) => e.value !== undefined).map((e: any) => [e.name, e.value]));
}

/** One vhost's SSL lines as the image's template writes them from `vars`; SSLProtocol falls back to the image's default. */
function sslLines(env: Record<string, string>, vars: { protocol: string; ciphers12: string; ciphers13: string; curves: string }, defaultProtocol: string): string[] {
    return [
        `SSLProtocol ${env[vars.protocol] ?? defaultProtocol}`,
        ...(env[vars.ciphers12] ? [`SSLCipherSuite ${env[vars.ciphers12]}`] : []),
        ...(env[vars.ciphers13] ? [`SSLCipherSuite TLSv1.3 ${env[vars.ciphers13]}`] : []),
        ...(env[vars.curves] ? [`SSLOpenSSLConfCmd Curves ${env[vars.curves]}`] : []),
    ];
}

function apacheConf(dir: string, env: Record<string, string>): string {
    const vhost = (port: number, lines: string[]) => [
        `Listen 127.0.0.1:${port}`,
        `<VirtualHost 127.0.0.1:${port}>`,
        "    SSLEngine on",
        ...lines.map((l) => `    ${l}`),
        `    SSLCertificateFile ${dir}/tls.crt`,
        `    SSLCertificateKeyFile ${dir}/tls.key`,
        "</VirtualHost>",
    ];
    return [
        `ServerRoot ${dir}`,
        "ServerName localhost",
        `PidFile ${dir}/httpd.pid`,
        `ErrorLog ${dir}/error.log`,
        "LogLevel info",
        `Mutex file:${dir}`,
        `DefaultRuntimeDir ${dir}`,
        `LoadModule mpm_event_module ${MODULES}/mod_mpm_event.so`,
        `LoadModule authz_core_module ${MODULES}/mod_authz_core.so`,
        `LoadModule ssl_module ${MODULES}/mod_ssl.so`,
        "User nobody",
        "Group nogroup",
        `DocumentRoot ${dir}/html`,
        ...vhost(PORTS.api, sslLines(env, HTTPD_TLS_ENV.api, "-ALL +TLSv1.2 +TLSv1.3")),
        ...vhost(PORTS.vmedia, sslLines(env, HTTPD_TLS_ENV.vmedia, "ALL")),
        "",
    ].join("\n");
}

describe("tls policy with its real consumers: Debian's Apache (apache2 -t, openssl s_client) and Ironic 38", function () {
    this.timeout(120000);
    const lab = new NetnsLab();
    let work = "";
    let ns = "";
    const daemons: Daemon[] = [];

    before(function () {
        requireOrSkip(this, canUseNetns(), "root and iproute2 for network namespaces");
        requireOrSkip(this, !!which("apache2") && fs.existsSync(`${MODULES}/mod_ssl.so`) && !!which("openssl"), "Debian's apache2 and openssl (apt-get install apache2 openssl)");
        work = tmpDir("tls-policy");
        fs.chmodSync(work, 0o755);
        ns = lab.addNamespace("tls");
        run("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=ironic", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", path.join(work, "tls.key"), "-out", path.join(work, "tls.crt")]);
    });

    after(async function () {
        for (const d of daemons) await d.stop();
        lab.destroy();
        if (work && process.env.KEEP_WORK !== "1") fs.rmSync(work, { recursive: true, force: true });
    });

    /** Apache on the config of `raw`'s httpd env, in its own dir and this test's namespace. */
    async function serve(name: string, raw: RawConfig, override: Record<string, string> = {}): Promise<Daemon> {
        for (const d of daemons.splice(0)) await d.stop();
        const dir = path.join(work, name);
        fs.mkdirSync(path.join(dir, "html"), { recursive: true });
        fs.copyFileSync(path.join(work, "tls.crt"), path.join(dir, "tls.crt"));
        fs.copyFileSync(path.join(work, "tls.key"), path.join(dir, "tls.key"));
        fs.writeFileSync(path.join(dir, "httpd.conf"), apacheConf(dir, { ...httpdEnv(raw), ...override }));
        const t = run("apache2", ["-t", "-f", path.join(dir, "httpd.conf")], { allowFail: true });
        assert.equal(t.status, 0, `apache2 -t: ${t.stdout}${t.stderr}`);
        assert.match(t.stderr + t.stdout, /Syntax OK/);
        const d = new Daemon("ip", ["netns", "exec", ns, "apache2", "-DFOREGROUND", "-f", path.join(dir, "httpd.conf")], path.join(dir, "daemon.log"));
        daemons.push(d);
        for (let i = 0; i < 50; i++) {
            if (run("ip", ["netns", "exec", ns, "ss", "-ltn"], { allowFail: true }).stdout.includes(`127.0.0.1:${PORTS.vmedia}`)) return d;
            await new Promise((r) => setTimeout(r, 200));
        }
        throw new Error(`apache2 did not listen: ${fs.readFileSync(path.join(dir, "daemon.log"), "utf8")}${fs.existsSync(path.join(dir, "error.log")) ? fs.readFileSync(path.join(dir, "error.log"), "utf8") : ""}`);
    }

    /** Whether a TLS handshake with these client options completes on `port`, and what it negotiated. */
    function handshake(port: number, opts: string[]): { ok: boolean; text: string } {
        const r = run("ip", ["netns", "exec", ns, "openssl", "s_client", "-connect", `127.0.0.1:${port}`, "-brief", ...opts], { input: "", allowFail: true, timeout: 20000 });
        return { ok: r.status === 0 && /Protocol version/.test(r.stdout + r.stderr), text: r.stdout + r.stderr };
    }

    it("minVersion 1.3, one TLS 1.3 suite, two groups: both vhosts refuse TLS 1.2, another suite and another group, and accept what the policy allows", async function () {
        await serve("v13", withKeys(devNoDhcpRaw, { tls: { minVersion: "1.3", ciphersTls13: "TLS_AES_256_GCM_SHA384", curves: "X25519:P-256" } }));
        for (const port of [PORTS.api, PORTS.vmedia]) {
            const ok = handshake(port, ["-tls1_3", "-groups", "P-256"]);
            assert.ok(ok.ok, `${port}: TLS 1.3 with P-256: ${ok.text}`);
            assert.match(ok.text, /Protocol version: TLSv1\.3/);
            assert.match(ok.text, /Ciphersuite: TLS_AES_256_GCM_SHA384/);
            assert.equal(handshake(port, ["-tls1_2"]).ok, false, `${port}: TLS 1.2 refused`);
            assert.equal(handshake(port, ["-tls1_3", "-ciphersuites", "TLS_AES_128_GCM_SHA256"]).ok, false, `${port}: another TLS 1.3 suite refused`);
            assert.equal(handshake(port, ["-tls1_3", "-groups", "P-384"]).ok, false, `${port}: a group outside tls.curves refused`);
        }
    });

    it("minVersion 1.2 with a TLS 1.2 cipher list: TLS 1.1 refused, a cipher outside the list refused, the listed one accepted", async function () {
        await serve("v12", withKeys(devNoDhcpRaw, { tls: { minVersion: "1.2", ciphers: "ECDHE-RSA-AES256-GCM-SHA384" } }));
        for (const port of [PORTS.api, PORTS.vmedia]) {
            const ok = handshake(port, ["-tls1_2"]);
            assert.ok(ok.ok, `${port}: ${ok.text}`);
            assert.match(ok.text, /Ciphersuite: ECDHE-RSA-AES256-GCM-SHA384/);
            assert.equal(handshake(port, ["-tls1_2", "-cipher", "ECDHE-RSA-AES128-GCM-SHA256"]).ok, false, `${port}: a cipher outside tls.ciphers refused`);
            assert.equal(handshake(port, ["-tls1_1", "-cipher", "ALL:@SECLEVEL=0"]).ok, false, `${port}: TLS 1.1 refused`);
        }
    });

    it("unset: both vhosts take TLS 1.2 and 1.3 only (not the image's virtual-media default, SSLProtocol ALL); ciphers and curves stay the image's", async function () {
        await serve("default", devNoDhcpRaw);
        for (const port of [PORTS.api, PORTS.vmedia]) assert.ok(handshake(port, ["-tls1_2"]).ok, `${port}: TLS 1.2 accepted by default`);
        // OpenSSL 3 at its default security level refuses TLS 1.1 whatever SSLProtocol says; with a
        // cipher list at level 0 the image's virtual-media default (ALL) takes it (the control),
        // and the protocol the program renders when tls.minVersion is unset refuses it.
        const level0 = withKeys(devNoDhcpRaw, { tls: { ciphers: "DEFAULT:@SECLEVEL=0" } });
        const tls11 = () => handshake(PORTS.vmedia, ["-tls1_1", "-cipher", "ALL:@SECLEVEL=0"]);
        await serve("image-default", level0, { [HTTPD_TLS_ENV.vmedia.protocol]: "ALL" });
        const control = tls11();
        assert.ok(control.ok, `the control: SSLProtocol ALL takes TLS 1.1 at security level 0: ${control.text}`);
        await serve("rendered-default", level0);
        assert.equal(tls11().ok, false, "TLS 1.1 refused with tls.minVersion unset");
        const env = httpdEnv(devNoDhcpRaw);
        for (const vhost of [HTTPD_TLS_ENV.api, HTTPD_TLS_ENV.vmedia]) {
            assert.equal(env[vhost.protocol], "-ALL +TLSv1.2 +TLSv1.3", vhost.protocol);
            for (const v of [vhost.ciphers12, vhost.ciphers13, vhost.curves]) assert.equal(env[v], undefined, v);
        }
    });

    it("Ironic 38 (PyPI), configured from the multi stack's rendered ironic env with tls.minVersion 1.2 and a TLS 1.2 cipher list, keeps its JSON-RPC server at TLS 1.3", function () {
        requireOrSkip(this, fs.existsSync(VENV_PYTHON), `PyPI's Ironic 38 venv at ${VENV_PYTHON} (bash .ci/run creates it)`);
        const plan = planOf(withKeys(haRaw, { tls: { minVersion: "1.2", ciphers: "ECDHE-RSA-AES256-GCM-SHA384" } }));
        const env = Object.fromEntries(Object.entries(plan.ironicEnv).filter(([k]) => k.startsWith("OS_JSON_RPC__")));
        const probe = "from ironic.conf import CONF; CONF([], project='ironic'); print(CONF.json_rpc.tls_minimum_version, CONF.json_rpc.tls_ciphers)";
        const r = run(VENV_PYTHON, ["-c", probe], { env: { PATH: "/usr/bin:/bin", ...env }, allowFail: true });
        assert.equal(r.status, 0, r.stderr);
        assert.equal(r.stdout.trim().split("\n").pop(), "1.3 None", `what Ironic reads from ${JSON.stringify(env)}`);
    });
});
