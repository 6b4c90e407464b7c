/**
 * A corpus of hostile and broken stack configs (both topologies): each is refused by validation
 * with an issue naming exactly the key that holds the bad value, and nothing is registered or
 * written. Every free string reaches an env var, ironic.conf, a shell script, the iPXE script,
 * dnsmasq config or a Kubernetes field (core/config/strings.ts says what each consumer accepts).
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";

import { formatIssues, RawConfig, validateConfig } from "../../../core/config";
import { runProgram } from "../../../components/program";
import { runOffline } from "../../../tools/offline";
import { buildPlanCliFirst, planCli } from "../../helpers/plan-cli";
import { tmpDir } from "../../helpers/sys";
import { ED25519, devRaw, haRaw, listing } from "./support";

/** `base` with the value at `key` (as `--path` spells it: a.b[0].c) replaced; the base is not changed. */
function set(base: RawConfig, key: string, value: unknown): RawConfig {
    const out = JSON.parse(JSON.stringify(base)) as Record<string, any>;
    const parts = key.match(/[^.[\]]+/g)!.map((p) => (/^\d+$/.test(p) ? Number(p) : p));
    let node = out;
    for (const p of parts.slice(0, -1)) {
        if (node[p] === undefined) node[p] = typeof parts[parts.indexOf(p) + 1] === "number" ? [] : {};
        node = node[p];
    }
    node[parts[parts.length - 1]] = value;
    return out;
}

const single = (key: string, value: unknown, base: RawConfig = devRaw) => set(base, key, value);
const multi = (key: string, value: unknown, base: RawConfig = haRaw) => set(base, key, value);

interface Case {
    what: string;
    raw: RawConfig;
    /** The one key every issue names. */
    key: string;
}

const ED25519_BLOB = ED25519.split(" ")[1];
const RSA_BLOB = "AAAAB3NzaC1yc2EAAAADAQABAAAAgQC7"; // "ssh-rsa", e=65537, the start of n: decodes, and says ssh-rsa
const mariadb = (db: Record<string, unknown>) => single("database", { kind: "mariadb", ...db });
const external = (db: Record<string, unknown>, base = devRaw) => set(base, "database", { kind: "external", host: "db.example.com", credentialsSecret: "db-creds", ...db });
const conductor0 = (name: string) => multi("conductors[0].name", name);

const CASES: Case[] = [
    // ironic.kernelParams: copied into ironic.conf and the iPXE script every inspected host runs
    { what: "kernelParams: a newline starts an ini section", raw: single("ironic.kernelParams", "console=ttyS0\n[DEFAULT]\ndebug=true"), key: "ironic.kernelParams" },
    { what: "kernelParams: a carriage return", raw: multi("ironic.kernelParams", "console=ttyS0\rshell"), key: "ironic.kernelParams" },
    { what: "kernelParams: a tab", raw: single("ironic.kernelParams", "console=ttyS0\tipa-debug=1"), key: "ironic.kernelParams" },
    { what: "kernelParams: NUL", raw: multi("ironic.kernelParams", "ipa-debug=1\u0000x"), key: "ironic.kernelParams" },
    { what: "kernelParams: DEL", raw: single("ironic.kernelParams", "ipa-debug=1\u007f"), key: "ironic.kernelParams" },
    { what: "kernelParams: an ANSI escape", raw: multi("ironic.kernelParams", "\u001b[2Jipa-debug=1"), key: "ironic.kernelParams" },
    { what: "kernelParams: a Unicode line separator", raw: single("ironic.kernelParams", "a=1\u2028b=2"), key: "ironic.kernelParams" },
    { what: "kernelParams: a double quote", raw: single("ironic.kernelParams", 'console="ttyS0'), key: "ironic.kernelParams" },
    { what: "kernelParams: a single quote", raw: multi("ironic.kernelParams", "console='ttyS0'"), key: "ironic.kernelParams" },
    { what: "kernelParams: a backslash", raw: single("ironic.kernelParams", "console=ttyS0\\"), key: "ironic.kernelParams" },
    { what: "kernelParams: oslo.config interpolation ${...}", raw: multi("ironic.kernelParams", "ipa-api-url=${DEFAULT.host}"), key: "ironic.kernelParams" },
    { what: "kernelParams: a command substitution", raw: single("ironic.kernelParams", "x=$(reboot)"), key: "ironic.kernelParams" },
    { what: "kernelParams: a backtick", raw: multi("ironic.kernelParams", "x=`id`"), key: "ironic.kernelParams" },
    { what: "kernelParams: iPXE || chaining", raw: single("ironic.kernelParams", "console=ttyS0 || shell"), key: "ironic.kernelParams" },
    { what: "kernelParams: a ';'", raw: multi("ironic.kernelParams", "a=1;reboot"), key: "ironic.kernelParams" },
    { what: "kernelParams: 64 KiB", raw: single("ironic.kernelParams", `a=${"x".repeat(65536)}`), key: "ironic.kernelParams" },
    { what: "kernelParams: one byte over the budget", raw: multi("ironic.kernelParams", `a=${"x".repeat(1535)}`), key: "ironic.kernelParams" },
    { what: "kernelParams: empty", raw: single("ironic.kernelParams", ""), key: "ironic.kernelParams" },
    { what: "kernelParams: a token without a key", raw: multi("ironic.kernelParams", "=ttyS0"), key: "ironic.kernelParams" },
    { what: "kernelParams: a '--' (init's arguments follow)", raw: single("ironic.kernelParams", "console=ttyS0 -- single"), key: "ironic.kernelParams" },
    {
        what: "kernelParams and ramdiskSshKey together over the budget",
        raw: single("ironic", { kernelParams: `a=${"x".repeat(1450)}`, ramdiskSshKey: ED25519 }),
        key: "ironic.kernelParams",
    },

    // ironic.config: each value reaches an OS_<GROUP>__<OPTION> variable
    { what: "config value: a newline", raw: single("ironic.config", { "conductor.deploy_callback_timeout": "3600\n[database]\nconnection=sqlite://" }), key: "ironic.config.conductor.deploy_callback_timeout" },
    { what: "config value: a carriage return", raw: multi("ironic.config", { "agent.deploy_logs_collect": "always\r" }), key: "ironic.config.agent.deploy_logs_collect" },
    { what: "config value: NUL", raw: multi("ironic.config", { "default.debug": "true\u0000" }), key: "ironic.config.default.debug" },
    { what: "config value: 5000 characters", raw: single("ironic.config", { "pxe.boot_retry_timeout": "9".repeat(5000) }), key: "ironic.config.pxe.boot_retry_timeout" },
    { what: "config value: an object", raw: multi("ironic.config", { "default.debug": { a: 1 } }), key: "ironic.config.default.debug" },
    { what: "config key: a newline", raw: single("ironic.config", { "default.debug\nx": "true" }), key: 'ironic.config["default.debug\\nx"]' },

    // ironic.ramdiskSshKey: inside the image's sshkey="..." on the kernel command line
    { what: "ssh key: a quote in the comment ends sshkey=\"...\"", raw: single("ironic.ramdiskSshKey", `ssh-ed25519 ${ED25519_BLOB} ops" rd.break init=/bin/sh x="`), key: "ironic.ramdiskSshKey" },
    { what: "ssh key: a backtick in the comment", raw: multi("ironic.ramdiskSshKey", `ssh-ed25519 ${ED25519_BLOB} \`reboot\``), key: "ironic.ramdiskSshKey" },
    { what: "ssh key: '$' in the comment", raw: single("ironic.ramdiskSshKey", `ssh-ed25519 ${ED25519_BLOB} $HOME`), key: "ironic.ramdiskSshKey" },
    { what: "ssh key: a backslash in the comment", raw: multi("ironic.ramdiskSshKey", `ssh-ed25519 ${ED25519_BLOB} a\\`), key: "ironic.ramdiskSshKey" },
    { what: "ssh key: iPXE || in the comment", raw: single("ironic.ramdiskSshKey", `ssh-ed25519 ${ED25519_BLOB} a || shell`), key: "ironic.ramdiskSshKey" },
    { what: "ssh key: a newline after the key", raw: multi("ironic.ramdiskSshKey", `${ED25519}\nssh-ed25519 ${ED25519_BLOB} second`), key: "ironic.ramdiskSshKey" },
    { what: "ssh key: a blob that is not base64", raw: single("ironic.ramdiskSshKey", "ssh-ed25519 AAAA!!!! ops@bastion-1"), key: "ironic.ramdiskSshKey" },
    { what: "ssh key: a blob that is not an SSH key", raw: multi("ironic.ramdiskSshKey", "ssh-ed25519 aGVsbG8gd29ybGQh ops@bastion-1"), key: "ironic.ramdiskSshKey" },
    { what: "ssh key: an rsa blob labelled ed25519", raw: single("ironic.ramdiskSshKey", `ssh-ed25519 ${RSA_BLOB} ops`), key: "ironic.ramdiskSshKey" },
    { what: "ssh key: an ed25519 blob labelled rsa", raw: multi("ironic.ramdiskSshKey", `ssh-rsa ${ED25519_BLOB} ops`), key: "ironic.ramdiskSshKey" },
    { what: "ssh key: an unknown type", raw: single("ironic.ramdiskSshKey", `ssh-foo ${ED25519_BLOB}`), key: "ironic.ramdiskSshKey" },
    { what: "ssh key: the blob alone", raw: multi("ironic.ramdiskSshKey", ED25519_BLOB), key: "ironic.ramdiskSshKey" },
    { what: "ssh key: a private key", raw: single("ironic.ramdiskSshKey", "-----BEGIN OPENSSH PRIVATE KEY-----"), key: "ironic.ramdiskSshKey" },
    { what: "ssh key: 4000 characters", raw: multi("ironic.ramdiskSshKey", `ssh-rsa ${"A".repeat(3990)}`), key: "ironic.ramdiskSshKey" },

    // placement.nodeSelector: label keys and values
    { what: "nodeSelector: a key with a space", raw: single("placement.nodeSelector", { "bad key": "x" }), key: 'placement.nodeSelector["bad key"]' },
    { what: "nodeSelector: a key with a newline", raw: multi("placement.nodeSelector", { "a\nb": "x" }), key: 'placement.nodeSelector["a\\nb"]' },
    { what: "nodeSelector: a name of 64 characters", raw: multi("placement.nodeSelector", { ["a".repeat(64)]: "x" }), key: `placement.nodeSelector.${"a".repeat(64)}` },
    { what: "nodeSelector: an upper-case prefix", raw: single("placement.nodeSelector", { "Example.COM/role": "x" }), key: "placement.nodeSelector.Example.COM/role" },
    { what: "nodeSelector: an empty key", raw: multi("placement.nodeSelector", { "": "x" }), key: 'placement.nodeSelector[""]' },
    { what: "nodeSelector: a key starting with '-'", raw: single("placement.nodeSelector", { "-role": "x" }), key: "placement.nodeSelector.-role" },
    { what: "nodeSelector: a value with a newline", raw: multi("placement.nodeSelector", { "kubernetes.io/os": "linux\n" }), key: "placement.nodeSelector.kubernetes.io/os" },
    { what: "nodeSelector: a value of 64 characters", raw: single("placement.nodeSelector", { "kubernetes.io/os": "l".repeat(64) }), key: "placement.nodeSelector.kubernetes.io/os" },
    { what: "nodeSelector: a value with '/'", raw: multi("placement.nodeSelector", { "kubernetes.io/os": "linux/amd64" }), key: "placement.nodeSelector.kubernetes.io/os" },

    // placement.tolerations
    { what: "toleration: a key with a space", raw: single("placement.tolerations", [{ key: "bad key", operator: "Exists" }]), key: "placement.tolerations[0].key" },
    { what: "toleration: a value with a newline", raw: multi("placement.tolerations", [{ key: "dedicated", operator: "Equal", value: "ironic\n", effect: "NoSchedule" }]), key: "placement.tolerations[0].value" },
    { what: "toleration: a prefix of 254 characters", raw: multi("placement.tolerations", [{ key: `${"a".repeat(254)}/x`, operator: "Exists" }]), key: "placement.tolerations[0].key" },
    { what: "toleration: tolerationSeconds with NoSchedule", raw: single("placement.tolerations", [{ key: "k", operator: "Exists", effect: "NoSchedule", tolerationSeconds: 30 }]), key: "placement.tolerations[0].tolerationSeconds" },
    { what: "toleration: no key with operator Equal", raw: multi("placement.tolerations", [{ value: "x", effect: "NoSchedule" }]), key: "placement.tolerations[0].key" },
    { what: "toleration: a value with operator Exists", raw: single("placement.tolerations", [{ key: "k", operator: "Exists", value: "x" }]), key: "placement.tolerations[0].value" },

    // database.storageClass, .host, TLS to an external database
    { what: "storageClass: upper case", raw: multi("database.storageClass", "Fast-SSD"), key: "database.storageClass" },
    { what: "storageClass: a newline", raw: multi("database.storageClass", "fast\n"), key: "database.storageClass" },
    { what: "storageClass: a space", raw: mariadb({ storageClass: "fast ssd" }), key: "database.storageClass" },
    { what: "storageClass: 254 characters", raw: mariadb({ storageClass: "s".repeat(254) }), key: "database.storageClass" },
    { what: "database.host: a newline", raw: external({ caSecret: "db-ca", host: "db.example.com\nx" }), key: "database.host" },
    { what: "database.host: a part of 64 characters", raw: external({ caSecret: "db-ca", host: `${"d".repeat(64)}.example.com` }, haRaw), key: "database.host" },
    { what: "database.host: with a port", raw: external({ caSecret: "db-ca", host: "db.example.com:3306" }, haRaw), key: "database.host" },
    { what: "external database without a CA (single)", raw: external({}), key: "database.caSecret" },
    { what: "external database without a CA (multi)", raw: external({}, haRaw), key: "database.caSecret" },
    { what: "external database: a CA and tls: false", raw: external({ caSecret: "db-ca", tls: false }, haRaw), key: "database.tls" },
    { what: "storageSize: a newline", raw: multi("database.storageSize", "20Gi\n"), key: "database.storageSize" },

    // conductors[].name: node label, certificate, per-node keys and files
    { what: "conductor name: 300 characters (was ENAMETOOLONG in npm run plan)", raw: conductor0("n".repeat(300)), key: "conductors[0].name" },
    { what: "conductor name: 65 characters", raw: conductor0("n".repeat(65)), key: "conductors[0].name" },
    { what: "conductor name: a part of 64 characters", raw: conductor0("n".repeat(64)), key: "conductors[0].name" },
    { what: "conductor name: a newline", raw: conductor0("cp-0\nx"), key: "conductors[0].name" },
    { what: "conductor name: upper case", raw: conductor0("CP-0"), key: "conductors[0].name" },
    { what: "conductor name: a path", raw: conductor0("../etc/passwd"), key: "conductors[0].name" },
    { what: "conductor name: a shell word", raw: conductor0("cp-0$(reboot)"), key: "conductors[0].name" },

    // kubernetes.context, ironic.ipa (IPA downloader env), tls.extraDnsNames, clusterDomain
    { what: "kubernetes.context: a newline", raw: single("kubernetes.context", "kind-kind\nx"), key: "kubernetes.context" },
    { what: "kubernetes.context: a quote", raw: multi("kubernetes.context", 'admin"@cluster'), key: "kubernetes.context" },
    { what: "kubernetes.context: 300 characters", raw: single("kubernetes.context", "c".repeat(300)), key: "kubernetes.context" },
    { what: "ipa.baseUri: a file URL", raw: single("ironic.ipa", { baseUri: "file:///etc" }), key: "ironic.ipa.baseUri" },
    { what: "ipa.baseUri: javascript:", raw: multi("ironic.ipa", { baseUri: "javascript:alert(1)" }), key: "ironic.ipa.baseUri" },
    { what: "ipa.baseUri: a space", raw: single("ironic.ipa", { baseUri: "https://mirror.example/ipa x" }), key: "ironic.ipa.baseUri" },
    { what: "ipa.baseUri: a command substitution", raw: multi("ironic.ipa", { baseUri: "https://mirror.example/$(id)" }), key: "ironic.ipa.baseUri" },
    { what: "ipa.baseUri: a newline", raw: single("ironic.ipa", { baseUri: "https://mirror.example/\nx" }), key: "ironic.ipa.baseUri" },
    { what: "ipa.branch: '..'", raw: multi("ironic.ipa", { branch: "../../etc" }), key: "ironic.ipa.branch" },
    { what: "ipa.branch: a ';'", raw: single("ironic.ipa", { branch: "master; rm -rf /" }), key: "ironic.ipa.branch" },
    { what: "ipa.branch: a newline", raw: multi("ironic.ipa", { branch: "master\n" }), key: "ironic.ipa.branch" },
    { what: "ipa.flavor: a '/'", raw: single("ironic.ipa", { flavor: "centos9/x" }), key: "ironic.ipa.flavor" },
    { what: "extraDnsNames: a part of 64 characters", raw: single("tls.extraDnsNames", [`${"a".repeat(64)}.example.com`]), key: "tls.extraDnsNames[0]" },
    { what: "extraDnsNames: 254 characters", raw: multi("tls.extraDnsNames", [`${"a.".repeat(126)}ab`]), key: "tls.extraDnsNames[0]" },
    { what: "extraDnsNames: a newline", raw: multi("tls.extraDnsNames", ["ironic.example.com", "x\ny"]), key: "tls.extraDnsNames[1]" },
    { what: "clusterDomain: a newline", raw: single("clusterDomain", "cluster.local\n"), key: "clusterDomain" },
    { what: "clusterDomain: a part of 64 characters", raw: multi("clusterDomain", `${"c".repeat(64)}.local`), key: "clusterDomain" },

    // strings that were checked before: still checked, and never echoed raw
    { what: "images.ironic: a newline", raw: single("images.ironic", "quay.io/metal3-io/ironic:release-38.0\nx"), key: "images.ironic" },
    { what: "images.ironic: 64 KiB", raw: multi("images.ironic", `quay.io/${"a".repeat(65536)}`), key: "images.ironic" },
    { what: "provisioning.interface: a newline (dnsmasq interface=)", raw: single("provisioning.interface", "eth1\nx"), key: "provisioning.interface" },
    { what: "ironic.apiUsername: a newline (htpasswd)", raw: multi("ironic.apiUsername", "metal3\nadmin:x"), key: "ironic.apiUsername" },
    { what: "provisioning.dhcp.leaseTime: a newline (dnsmasq)", raw: single("provisioning.dhcp.leaseTime", "1h\ndhcp-script=/bin/sh"), key: "provisioning.dhcp.leaseTime" },
    { what: "namespace: a newline", raw: multi("namespace", "metal3\n"), key: "namespace" },
    { what: "an unknown top-level key with an ANSI escape", raw: { ...devRaw, "\u001b[2Jtopology": "multi" }, key: '["\\u001b[2Jtopology"]' },
    { what: "an unknown nested key with a DEL", raw: multi("ironic.apiUsername\u007f", "x"), key: "ironic" },
];

/** Control characters other than the newlines that separate the issues. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/;

describe("hostile stack configs: refused with the key named, before anything is registered", function () {
    it(`holds at least 60 cases, in both topologies`, function () {
        assert.ok(CASES.length >= 60, `${CASES.length} cases`);
        assert.ok(CASES.filter((c) => c.raw.topology === "single").length >= 25);
        assert.ok(CASES.filter((c) => c.raw.topology === "multi").length >= 25);
        assert.equal(new Set(CASES.map((c) => c.what)).size, CASES.length, "each case says what it is");
    });

    for (const c of CASES) {
        it(`${c.raw.topology}: ${c.what} → ${c.key.length > 70 ? `${c.key.slice(0, 70)}...` : c.key}`, async function () {
            const r = validateConfig(c.raw);
            assert.equal(r.ok, false, "accepted");
            const list = r.ok ? [] : r.issues;
            assert.deepEqual([...new Set(list.map((i) => i.key))], [c.key], `expected issues for ${c.key} only; got:\n${listing(list)}`);
            // The report goes to a terminal: a hostile key or value never reaches it raw.
            const report = formatIssues(list);
            assert.ok(!RAW_CONTROL.test(report), `raw control character in the report:\n${JSON.stringify(report)}`);
            for (const line of report.split("\n").slice(1)) assert.match(line, /^ {2}- /, `a report line that is not an issue: ${JSON.stringify(line)}`);
            assert.ok(report.length < 4000, `report of ${report.length} characters`);

            // The program itself refuses it before registering any resource.
            const registered: string[] = [];
            await assert.rejects(
                runOffline(c.raw, () => runProgram(c.raw), { hook: (type, name) => (registered.push(`${type} ${name}`), undefined), onRegister: (a) => registered.push(`${a.type} ${a.name}`) }),
                (e: Error) => e.message.includes(`- ${c.key}: `),
            );
            assert.deepEqual(registered.filter((x) => !x.startsWith("pulumi:pulumi:Stack ")), [], "registered before refusing");
        });
    }
});

describe("hostile stack configs: npm run plan refuses them and writes nothing", function () {
    this.timeout(300000);
    let work: string;
    before(() => (work = tmpDir("hostile")));
    after(() => fs.rmSync(work, { recursive: true, force: true }));
    buildPlanCliFirst();

    const byWhat = (what: string) => CASES.find((c) => c.what.startsWith(what))!;
    for (const c of [byWhat("conductor name: 300"), byWhat("kernelParams: a newline"), byWhat("ssh key: a quote")]) {
        it(`${c.what}: exit 1, ${c.key} named, no file`, function () {
            const name = c.what.replace(/[^a-z0-9]+/gi, "-").slice(0, 40);
            const file = path.join(work, `Pulumi.${name}.yaml`);
            const config = Object.fromEntries(Object.entries(c.raw).map(([k, v]) => [`metal3-ironic:${k}`, v]));
            fs.writeFileSync(file, YAML.stringify({ config }));
            const out = path.join(work, name);
            const r = planCli(["--file", file, "--out", out]);
            assert.equal(r.status, 1, `${r.stdout}\n${r.stderr}`);
            assert.ok(r.stderr.includes(`- ${c.key}: `), r.stderr);
            assert.ok(!/ENAMETOOLONG|\n\s+at /.test(r.stderr), r.stderr);
            assert.ok(!fs.existsSync(out), "nothing written");
        });
    }
});

describe("realistic values are still accepted", function () {
    const good: [string, RawConfig][] = [
        [
            "single: ed25519 key with a comment, serial console and IPA parameters, control-plane selector and tolerations",
            {
                ...devRaw,
                ironic: {
                    apiUsername: "metal3",
                    kernelParams: "console=ttyS0,115200n8 ipa-insecure=1 systemd.journald.forward_to_console=yes ipa-api-url=http://[fd00::2]:6385 rd.debug",
                    ramdiskSshKey: ED25519,
                    config: { "conductor.deploy_callback_timeout": 3600, "agent.deploy_logs_collect": "on_failure", "default.debug": true, "pxe.pxe_append_params": "nofb vga=normal" },
                    ipa: { baseUri: "https://tarballs.opendev.org/openstack/ironic-python-agent/dib", branch: "stable/2024.1", flavor: "centos9" },
                },
                placement: {
                    nodeSelector: { "node-role.kubernetes.io/control-plane": "", "kubernetes.io/os": "linux", "topology.kubernetes.io/zone": "eu-west-1a" },
                    tolerations: [
                        { key: "node-role.kubernetes.io/control-plane", operator: "Exists", effect: "NoSchedule" },
                        { key: "dedicated", operator: "Equal", value: "metal3", effect: "NoExecute", tolerationSeconds: 300 },
                        { operator: "Exists" },
                    ],
                },
                tls: { extraDnsNames: ["ironic.example.com", "*.apps.example.com"], extraIps: ["10.0.0.10"] },
                kubernetes: { context: "kubernetes-admin@kubernetes" },
            },
        ],
        [
            "multi: 64-character node names, ecdsa key without a comment, external database with its CA",
            {
                ...haRaw,
                conductors: [
                    { name: `${"a".repeat(40)}.example.com`.padEnd(64, "x"), ip: "172.22.0.2", slot: 1 },
                    { name: "cp-1.k8s.example.com", ip: "172.22.0.3" },
                    { name: "cp-2", ip: "172.22.0.4", slot: 0 },
                ],
                ironic: {
                    ramdiskSshKey:
                        "ecdsa-sha2-nistp384 AAAAE2VjZHNhLXNoYTItbmlzdHAzODQAAAAIbmlzdHAzODQAAABhBIzStvnhtiKpXEopYSvJiAwoxCiW6oweYVxa0R7F3VE/8T7NWfQwPcM967ijmb18oJFIgoKD2b7da4kDXMQ173OfCzuEc+PJ4aT/Yc10TPTXmmGW37oJUPKlyhwx7zky3w==",
                    kernelParams: "console=tty0 console=ttyS1,115200 ipa-debug=1",
                },
                database: { kind: "external", host: "DB-1.Example.com", port: 3306, credentialsSecret: "db-creds", caSecret: "db-ca" },
                kubernetes: { context: "arn:aws:eks:eu-west-1:123456789012:cluster/metal3" },
            },
        ],
        [
            "single: external database without TLS, stated",
            { ...devRaw, database: { kind: "external", host: "10.0.0.5", credentialsSecret: "db-creds", tls: false } },
        ],
        ["multi: MariaDB on a named storage class", { ...haRaw, database: { kind: "mariadb", storageSize: "20Gi", storageClass: "local-path.storage.k8s.io" } }],
    ];
    for (const [what, raw] of good) {
        it(what, function () {
            const r = validateConfig(raw);
            assert.ok(r.ok, listing(r.ok ? [] : r.issues));
        });
    }

    it("a key and parameters right at the budget: 1536 bytes of kernel command line pass, 1537 do not", function () {
        const room = 1536 - ` sshkey="${ED25519}"`.length;
        const at = { ...devRaw, ironic: { kernelParams: `a=${"x".repeat(room - 2)}`, ramdiskSshKey: ED25519 } };
        assert.ok(validateConfig(at).ok, listing((validateConfig(at) as any).issues ?? []));
        const over = { ...devRaw, ironic: { kernelParams: `a=${"x".repeat(room - 1)}`, ramdiskSshKey: ED25519 } };
        assert.deepEqual((validateConfig(over) as any).issues.map((i: any) => i.key), ["ironic.kernelParams"]);
    });
});
