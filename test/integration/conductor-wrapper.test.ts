/**
 * The multi-conductor start wrapper, run by real bash: it takes the node's address from its entry
 * or finds it on the node (conductor-address.py, real `ip` in a network namespace), renders the
 * node's files from the templates, mints the container's certificate from the conductor CA with
 * the real conductor-cert.py (Debian's python3-cryptography here; the image's release from PyPI in
 * conductor-cert.test.ts), and restarts its container only when this node's data or the conductor
 * CA changes (also a change after it read them, before it started the command), exits at once on a
 * TERM before the command runs, and refuses a found address that the DHCP range or gateway holds.
 */
import { strict as assert } from "assert";
import { spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";

import { renderConductorWrapper } from "../../core/plan/conductor";
import { renderEnvFile } from "../../core/render/envfile";
import { readAsset } from "../../core/render/assets";
import { fillNodeTemplate, nodeTemplates } from "../../core/plan/conductors";
import { slotConfKey } from "../../core/names";
import { until } from "../helpers/ironic-lab";
import { makeCa, makeIntermediate } from "../helpers/openssl-ca";
import { canUseNetns, NetnsLab, requireOrSkip, run, tmpDir, which } from "../helpers/sys";
import { nodeDataConfigMapData } from "../../core/manifests/configmaps";
import { readStackConfig } from "../../tools/render";
import { configOf, haRaw, planOf } from "../unit/plan/support";
import { multiOf } from "../helpers/plan";

const templates = nodeTemplates(configOf(haRaw));
const dualRaw = readStackConfig(path.join(__dirname, "..", "fixtures", "Pulumi.dualstack.yaml"));

describe("conductor start wrapper (bash)", function () {
    this.timeout(30000);
    let dir = "";
    let wrapper = "";
    let env: NodeJS.ProcessEnv = {};
    let root = "";

    before(function () {
        requireOrSkip(this, ["openssl", "/usr/bin/python3"].every((c) => !!which(c)) && run("/usr/bin/python3", ["-c", "import cryptography"], { allowFail: true }).status === 0, "openssl, python3-cryptography");
    });

    beforeEach(function () {
        dir = tmpDir("wrapper");
        wrapper = path.join(dir, "conductor-start.sh");
        fs.writeFileSync(wrapper, renderConductorWrapper());
        for (const d of ["data", "ca", "scripts", "out-a", "out-b"]) fs.mkdirSync(path.join(dir, d));
        fs.writeFileSync(path.join(dir, "data", "cp-1.env"), renderEnvFile({ CONDUCTOR_NODE_IP: "172.22.0.3", ODD: "it's $HOME" }));
        fs.writeFileSync(path.join(dir, "data", "cp-2.env"), renderEnvFile({ CONDUCTOR_NODE_IP: "172.22.0.4" }));
        for (const f of ["conductor-cert.py", "conductor-address.py"] as const) fs.writeFileSync(path.join(dir, "scripts", f), readAsset(f));
        fs.writeFileSync(path.join(dir, "scripts", "node.env.template"), templates.env);
        fs.writeFileSync(path.join(dir, "scripts", "node.dnsmasq.conf.template"), templates.dnsmasqConf!);
        root = makeCa(path.join(dir, "root"));
        makeIntermediate(root, path.join(dir, "ca"));
        env = {
            PATH: process.env.PATH,
            NODE_NAME: "cp-1",
            CONDUCTOR_NAMESPACE: "metal3",
            CONDUCTOR_CONFIGMAP: "ironic-conductors",
            CONDUCTOR_DATA_DIR: path.join(dir, "data"),
            CONDUCTOR_CA_DIR: path.join(dir, "ca"),
            CONDUCTOR_SCRIPTS_DIR: path.join(dir, "scripts"),
            CONDUCTOR_PYTHON: "/usr/bin/python3",
            CONDUCTOR_CERT_SANS: "DNS:ironic DNS:ironic.metal3.svc",
            CONDUCTOR_RUN_DIR: path.join(dir, "run", "ironic"),
            CONDUCTOR_DEFAULT_INTERFACE: "eth1",
            CONDUCTOR_CIDR: "172.22.0.0/24",
            CONDUCTOR_ADDRESS_WAIT: "0",
            CONDUCTOR_CERT_DIRS: `${path.join(dir, "out-a")} ${path.join(dir, "out-b")}`,
            CONDUCTOR_WATCH_INTERVAL: "0.2",
        };
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    it("exports the node's environment from its entry's address (quoted safely), renders its dnsmasq file, and mints one certificate for that address into every cert dir", function () {
        const r = run("bash", [wrapper, "bash", "-c", 'echo "$PROVISIONING_IP|$IRONIC_CONDUCTOR_HOST|$PROVISIONING_INTERFACE|$ODD"'], { env });
        assert.equal(r.stdout.trim().split("\n").pop(), "172.22.0.3|172.22.0.3|eth1|it's $HOME");
        assert.doesNotMatch(r.stdout, /found on the node/, "the entry's address is taken as it is");
        assert.equal(fs.readFileSync(path.join(dir, "run", "ironic", "dnsmasq.conf"), "utf8"), fillNodeTemplate(templates.dnsmasqConf!, "172.22.0.3", "eth1"));
        const crt = fs.readFileSync(path.join(dir, "out-a", "tls.crt"), "utf8");
        for (const f of ["tls.crt", "tls.key"]) assert.equal(fs.readFileSync(path.join(dir, "out-b", f), "utf8"), fs.readFileSync(path.join(dir, "out-a", f), "utf8"), `out-b/${f}`);
        assert.equal(fs.statSync(path.join(dir, "out-a", "tls.key")).mode & 0o777, 0o600);
        // The chain as served: this certificate, then the conductor CA; the stack CA verifies it for this IP.
        assert.ok(crt.endsWith(fs.readFileSync(path.join(dir, "ca", "tls.crt"), "utf8")));
        const v = run("openssl", ["verify", "-CAfile", path.join(root, "ca.crt"), "-untrusted", path.join(dir, "ca", "tls.crt"), "-verify_ip", "172.22.0.3", "-purpose", "sslserver", path.join(dir, "out-a", "tls.crt")], { allowFail: true });
        assert.equal(v.status, 0, v.stdout + v.stderr);
        const text = run("openssl", ["x509", "-noout", "-subject", "-ext", "subjectAltName", "-in", path.join(dir, "out-a", "tls.crt")]).stdout;
        assert.match(text, /CN\s*=\s*cp-1\b/);
        assert.match(text, /IP Address:172\.22\.0\.3, DNS:cp-1, DNS:ironic, DNS:ironic\.metal3\.svc/);
        assert.ok(!text.includes("172.22.0.4"));
        // The key matches the certificate.
        const pub = (args: string[]) => run("openssl", args).stdout;
        assert.equal(pub(["x509", "-noout", "-pubkey", "-in", path.join(dir, "out-a", "tls.crt")]), pub(["pkey", "-pubout", "-in", path.join(dir, "out-a", "tls.key")]));
    });

    it("conductors[].external: exports the node's own IRONIC_EXTERNAL_* from its rendered entry, and its certificate carries its external address (no other node's)", function () {
        // The entries exactly as the ha stack renders them into the per-node ConfigMap.
        const data = nodeDataConfigMapData(planOf(haRaw));
        for (const n of ["cp-1", "cp-2"]) fs.writeFileSync(path.join(dir, "data", `${n}.env`), data[`${n}.env`]);
        const r = run("bash", [wrapper, "bash", "-c", 'echo "$IRONIC_EXTERNAL_IP|$IRONIC_EXTERNAL_HTTP_URL|$IRONIC_EXTERNAL_CALLBACK_URL"'], { env });
        assert.equal(r.status, 0, r.stderr);
        assert.equal(r.stdout.trim().split("\n").pop(), "10.20.0.13|https://10.20.0.13:6183|https://10.20.0.13:6385");
        const crt = path.join(dir, "out-b", "tls.crt");
        for (const ip of ["172.22.0.3", "10.20.0.13"]) {
            const v = run("openssl", ["verify", "-CAfile", path.join(root, "ca.crt"), "-untrusted", path.join(dir, "ca", "tls.crt"), "-verify_ip", ip, "-purpose", "sslserver", crt], { allowFail: true });
            assert.equal(v.status, 0, `${ip}: ${v.stdout}${v.stderr}`);
        }
        const other = run("openssl", ["verify", "-CAfile", path.join(root, "ca.crt"), "-untrusted", path.join(dir, "ca", "tls.crt"), "-verify_ip", "10.20.0.14", "-purpose", "sslserver", crt], { allowFail: true });
        assert.notEqual(other.status, 0, "cp-2's external address is not in cp-1's certificate");
    });

    it("IPv6 (test/fixtures/Pulumi.v6.yaml): the plain address in the environment, brackets in the node's dnsmasq boot URLs, an IPv6 SAN verified for that address", function () {
        const v6 = nodeTemplates(configOf(readStackConfig(path.join(__dirname, "..", "fixtures", "Pulumi.v6.yaml"))));
        fs.writeFileSync(path.join(dir, "scripts", "node.env.template"), v6.env);
        fs.writeFileSync(path.join(dir, "scripts", "node.dnsmasq.conf.template"), v6.dnsmasqConf!);
        fs.writeFileSync(path.join(dir, "data", "cp-1.env"), renderEnvFile({ CONDUCTOR_NODE_IP: "fd00:1:2:3::3" }));
        const r = run("bash", [wrapper, "bash", "-c", 'echo "$PROVISIONING_IP|$IRONIC_CONDUCTOR_HOST|$PROVISIONING_INTERFACE"'], { env: { ...env, CONDUCTOR_CIDR: "fd00:1:2:3::/64" } });
        assert.equal(r.stdout.trim().split("\n").pop(), "fd00:1:2:3::3|fd00:1:2:3::3|eth1", r.stderr);
        const conf = fs.readFileSync(path.join(dir, "run", "ironic", "dnsmasq.conf"), "utf8");
        assert.match(conf, /^dhcp-option=tag:ipxe6,option6:bootfile-url,http:\/\/\[fd00:1:2:3::3\]:6180\/boot\.ipxe$/m);
        assert.match(conf, /^dhcp-option=tag:efi6,tag:!efi6-arm64,tag:!ipxe6,option6:bootfile-url,tftp:\/\/\[fd00:1:2:3::3\]\/snponly-x86_64\.efi$/m);
        assert.match(conf, /^ra-param=eth1,0,0$/m);
        assert.equal(run("dnsmasq", ["--test", `--conf-file=${path.join(dir, "run", "ironic", "dnsmasq.conf")}`], { allowFail: true }).status, 0, "dnsmasq reads the filled file");
        const v = run("openssl", ["verify", "-CAfile", path.join(root, "ca.crt"), "-untrusted", path.join(dir, "ca", "tls.crt"), "-verify_ip", "fd00:1:2:3::3", "-purpose", "sslserver", path.join(dir, "out-a", "tls.crt")], { allowFail: true });
        assert.equal(v.status, 0, v.stdout + v.stderr);
        assert.match(run("openssl", ["x509", "-noout", "-ext", "subjectAltName", "-in", path.join(dir, "out-a", "tls.crt")]).stdout, /IP Address:FD00:1:2:3:0:0:0:3, DNS:cp-1/i);
    });

    it("dual-stack (test/fixtures/Pulumi.dualstack.yaml): my_ipv6 and the IPv6 boot URLs from the entry's conductors[].ipv6; dnsmasq reads the node's file with its slot's; the certificate is verified for both addresses", function () {
        const plan = planOf(dualRaw);
        const t = multiOf(plan).nodeTemplates;
        fs.writeFileSync(path.join(dir, "scripts", "node.env.template"), t.env);
        fs.writeFileSync(path.join(dir, "scripts", "node.dnsmasq.conf.template"), t.dnsmasqConf!);
        fs.writeFileSync(path.join(dir, "data", "cp-1.env"), nodeDataConfigMapData(plan)["cp-1.env"]);
        const r = run("bash", [wrapper, "bash", "-c", 'echo "$PROVISIONING_IP|$OS_DEFAULT__MY_IPV6"'], { env: { ...env, CONDUCTOR_CIDR6: "fd00:1:2:3::/64" } });
        assert.equal(r.stdout.trim().split("\n").pop(), "172.22.0.3|fd00:1:2:3::3", r.stderr);
        const conf = path.join(dir, "run", "ironic", "dnsmasq.conf");
        assert.equal(fs.readFileSync(conf, "utf8"), fillNodeTemplate(t.dnsmasqConf!, "172.22.0.3", "eth1", "fd00:1:2:3::3"));
        const slot = path.join(dir, "slot.conf");
        fs.writeFileSync(slot, multiOf(plan).slotDnsmasqConfs[slotConfKey(1)]);
        const test = run("dnsmasq", ["--test", `--conf-file=${conf}`, `--conf-file=${slot}`], { allowFail: true });
        assert.equal(test.status, 0, test.stderr);
        for (const ip of ["172.22.0.3", "fd00:1:2:3::3"]) {
            const v = run("openssl", ["verify", "-CAfile", path.join(root, "ca.crt"), "-untrusted", path.join(dir, "ca", "tls.crt"), "-verify_ip", ip, "-purpose", "sslserver", path.join(dir, "out-a", "tls.crt")], { allowFail: true });
            assert.equal(v.status, 0, `${ip}: ${v.stdout}${v.stderr}`);
        }
    });

    it("adds the node's own address to NO_PROXY and no_proxy when a proxy is set, and sets neither otherwise", function () {
        const show = 'echo "${NO_PROXY-unset}|${no_proxy-unset}"';
        const proxied = run("bash", [wrapper, "bash", "-c", show], { env: { ...env, NO_PROXY: "localhost,.svc,172.22.0.0/24", no_proxy: "localhost,.svc,172.22.0.0/24" } });
        assert.equal(proxied.stdout.trim().split("\n").pop(), "localhost,.svc,172.22.0.0/24,172.22.0.3|localhost,.svc,172.22.0.0/24,172.22.0.3");
        const plain = run("bash", [wrapper, "bash", "-c", show], { env });
        assert.equal(plain.stdout.trim().split("\n").pop(), "unset|unset");
    });

    it("fails, naming the file, when the conductor CA is unusable: its key missing, or a certificate that is no CA", function () {
        fs.rmSync(path.join(dir, "ca", "tls.key"));
        let r = run("bash", [wrapper, "true"], { env, allowFail: true });
        assert.equal(r.status, 2);
        assert.match(r.stderr, /conductor-cert: cannot read the conductor CA in .*\/ca: .*tls\.key/);
        // A leaf signed by the stack CA in its place.
        makeIntermediate(root, path.join(dir, "ca"), { ca: false });
        r = run("bash", [wrapper, "true"], { env, allowFail: true });
        assert.equal(r.status, 2);
        assert.match(r.stderr, /tls\.crt is not a CA certificate \(basicConstraints CA:TRUE missing\)/);
        assert.ok(!fs.existsSync(path.join(dir, "out-a", "tls.crt")), "nothing written");
    });

    it("a node without an address in its entry, on a machine without the interface: fails naming the interface and the keys to set", function () {
        const r = run("bash", [wrapper, "true"], { env: { ...env, NODE_NAME: "cp-9", CONDUCTOR_DEFAULT_INTERFACE: "m3inope0" }, allowFail: true });
        assert.equal(r.status, 1);
        assert.match(r.stderr, /conductor-address: interface 'm3inope0' not found .*; set provisioning\.interface, or conductors\[\]\.interface for this node/);
        assert.match(r.stderr, /FATAL: node cp-9: no provisioning address/);
        const none = run("bash", [wrapper, "true"], { env: { ...env, NODE_NAME: "cp-9", CONDUCTOR_DEFAULT_INTERFACE: "" }, allowFail: true });
        assert.equal(none.status, 1);
        assert.match(none.stderr, /FATAL: node cp-9: no usable provisioning interface \(''\); set provisioning\.interface/);
    });

    describe("in a network namespace: the node's address found on its interface", function () {
        const lab = new NetnsLab();
        let ns = "";
        before(function () {
            requireOrSkip(this, canUseNetns(), "root and iproute2 for network namespaces");
            ns = lab.addNamespace("wr");
            const sw = lab.addNamespace("wrs");
            const br = lab.addBridge(sw, "wrb");
            lab.plug(ns, "wr", sw, br, { cidr: "172.22.0.7/24", rename: "eth1" });
            // A VIP on the same interface (a /32 inside the CIDR) and an address of another network.
            run("ip", ["-n", ns, "addr", "add", "172.22.0.250/32", "dev", "eth1"]);
            run("ip", ["-n", ns, "addr", "add", "10.9.0.7/24", "dev", "eth1"]);
        });
        after(() => lab.destroy());
        const inNs = (args: string[], extra: NodeJS.ProcessEnv = {}) => run("ip", ["netns", "exec", ns, "bash", wrapper, ...args], { env: { ...env, NODE_NAME: "cp-9", ...extra }, allowFail: true });

        it("a node with no entry takes the one address of provisioning.interface inside the CIDR (not the /32 VIP), and everything follows from it", function () {
            const r = inNs(["bash", "-c", 'echo "$PROVISIONING_IP|$IRONIC_CONDUCTOR_HOST|$PROVISIONING_INTERFACE"']);
            assert.equal(r.status, 0, r.stderr);
            assert.match(r.stdout, /node cp-9: provisioning address 172\.22\.0\.7 on eth1, found on the node \(no address in its entry of ConfigMap metal3\/ironic-conductors\)/);
            assert.equal(r.stdout.trim().split("\n").pop(), "172.22.0.7|172.22.0.7|eth1");
            assert.equal(fs.readFileSync(path.join(dir, "run", "ironic", "dnsmasq.conf"), "utf8"), fillNodeTemplate(templates.dnsmasqConf!, "172.22.0.7", "eth1"));
            const text = run("openssl", ["x509", "-noout", "-ext", "subjectAltName", "-in", path.join(dir, "out-a", "tls.crt")]).stdout;
            assert.match(text, /IP Address:172\.22\.0\.7, DNS:cp-9,/, "the certificate names the found address");
        });

        it("two addresses of the network on the interface: refused, naming both and conductors[].ip", function () {
            run("ip", ["-n", ns, "addr", "add", "172.22.0.8/24", "dev", "eth1"]);
            try {
                const r = inNs(["true"]);
                assert.equal(r.status, 1);
                assert.match(r.stderr, /eth1 has several addresses inside 172\.22\.0\.0\/24: 172\.22\.0\.7\/24, 172\.22\.0\.8\/24; set conductors\[\]\.ip for this node/);
            } finally {
                run("ip", ["-n", ns, "addr", "del", "172.22.0.8/24", "dev", "eth1"]);
            }
        });

        const finder = (args: string[]) => run("ip", ["netns", "exec", ns, "/usr/bin/python3", path.join(dir, "scripts", "conductor-address.py"), ...args], { allowFail: true });

        it("the finder refuses an address inside provisioning.dhcp's range (either end included), naming the address, the interface, the keys and the fix", function () {
            for (const range of ["172.22.0.5-172.22.0.9", "172.22.0.7-172.22.0.9", "172.22.0.2-172.22.0.7"]) {
                const r = finder(["eth1", "172.22.0.0/24", "--dhcp-range", range, "--gateway", "172.22.0.1"]);
                assert.equal(r.status, 2, range + r.stderr);
                assert.equal(r.stdout, "");
                assert.equal(r.stderr, `conductor-address: the address found on eth1, 172.22.0.7, lies inside the DHCP range ${range} (provisioning.dhcp.rangeStart/rangeEnd): dnsmasq could lease the conductor's own address to a host; give the node a provisioning address outside the range (and, if it keeps this one too, set conductors[].ip for this node to the new one), or move the range off it\n`);
            }
        });

        it("the finder refuses an address equal to provisioning.dhcp.gateway, and takes one outside the range and not the gateway", function () {
            const r = finder(["eth1", "172.22.0.0/24", "--gateway", "172.22.0.7"]);
            assert.equal(r.status, 2, r.stderr);
            assert.match(r.stderr, /the address found on eth1, 172\.22\.0\.7, is the DHCP gateway \(provisioning\.dhcp\.gateway\) that dnsmasq gives hosts as their router; give the node another provisioning address .*set conductors\[\]\.ip for this node.*or set provisioning\.dhcp\.gateway to the network's router/);
            const ok = finder(["eth1", "172.22.0.0/24", "--dhcp-range", "172.22.0.10-172.22.0.209", "--gateway", "172.22.0.1"]);
            assert.equal(ok.status, 0, ok.stderr);
            assert.equal(ok.stdout, "172.22.0.7\n");
            const bad = finder(["eth1", "172.22.0.0/24", "--dhcp-range", "172.22.0.10"]);
            assert.equal(bad.status, 2);
            assert.match(bad.stderr, /DHCP range '172\.22\.0\.10' is not START-END/);
        });

        it("the finder checks IPv6 the same way", function () {
            run("ip", ["-n", ns, "addr", "add", "fd00:22::7/64", "dev", "eth1", "nodad"]);
            try {
                let r = finder(["eth1", "fd00:22::/64", "--dhcp-range", "fd00:22::1-fd00:22::ff"]);
                assert.equal(r.status, 2, r.stderr);
                assert.match(r.stderr, /the address found on eth1, fd00:22::7, lies inside the DHCP range fd00:22::1-fd00:22::ff \(provisioning\.dhcp\.rangeStart\/rangeEnd\)/);
                r = finder(["eth1", "fd00:22::/64", "--gateway", "fd00:22:0::7"]);
                assert.equal(r.status, 2, r.stderr);
                assert.match(r.stderr, /fd00:22::7, is the DHCP gateway \(provisioning\.dhcp\.gateway\)/);
                r = finder(["eth1", "fd00:22::/64", "--dhcp-range", "fd00:22::100-fd00:22::1ff", "--gateway", "fd00:22::1"]);
                assert.equal(r.status, 0, r.stderr);
                assert.equal(r.stdout, "fd00:22::7\n");
                r = finder(["eth1", "fd00:22::/64", "--gateway", "172.22.0.1"]);
                assert.equal(r.status, 2);
                assert.match(r.stderr, /DHCP gateway 172\.22\.0\.1 is not an IPv6 address like provisioning\.cidr fd00:22::\/64/);
            } finally {
                run("ip", ["-n", ns, "addr", "del", "fd00:22::7/64", "dev", "eth1"]);
            }
        });

        it("dual-stack: a node without conductors[].ipv6 finds its IPv6 address in provisioning.ipv6.cidr too (my_ipv6, certificate), and one inside the DHCPv6 range is refused naming the provisioning.ipv6 keys", function () {
            run("ip", ["-n", ns, "addr", "add", "fd00:1:2:3::7/64", "dev", "eth1", "nodad"]);
            try {
                const ds = { CONDUCTOR_CIDR6: "fd00:1:2:3::/64", CONDUCTOR_DHCP_RANGE6: "fd00:1:2:3::1000-fd00:1:2:3::1fff" };
                fs.writeFileSync(path.join(dir, "scripts", "node.env.template"), nodeTemplates(configOf(dualRaw)).env);
                const r = inNs(["bash", "-c", 'echo "$PROVISIONING_IP|$OS_DEFAULT__MY_IPV6"'], ds);
                assert.equal(r.status, 0, r.stderr);
                assert.match(r.stdout, /node cp-9: provisioning address fd00:1:2:3::7 on eth1, found on the node/);
                assert.equal(r.stdout.trim().split("\n").pop(), "172.22.0.7|fd00:1:2:3::7");
                assert.match(run("openssl", ["x509", "-noout", "-ext", "subjectAltName", "-in", path.join(dir, "out-a", "tls.crt")]).stdout, /IP Address:172\.22\.0\.7, DNS:cp-9, IP Address:FD00:1:2:3:0:0:0:7, DNS:ironic/i);
                const bad = inNs(["true"], { ...ds, CONDUCTOR_DHCP_RANGE6: "fd00:1:2:3::1-fd00:1:2:3::ff" });
                assert.equal(bad.status, 1);
                assert.match(bad.stderr, /fd00:1:2:3::7, lies inside the DHCP range fd00:1:2:3::1-fd00:1:2:3::ff \(provisioning\.ipv6\.dhcp\.rangeStart\/rangeEnd\).*set conductors\[\]\.ipv6 for this node/);
            } finally {
                run("ip", ["-n", ns, "addr", "del", "fd00:1:2:3::7/64", "dev", "eth1"]);
            }
        });

        it("the wrapper passes the DHCP range and gateway to the finder: a refused address fails the start at once, without waiting", function () {
            const t0 = Date.now();
            let r = inNs(["bash", "-c", "echo RAN"], { CONDUCTOR_DHCP_RANGE: "172.22.0.5-172.22.0.9", CONDUCTOR_GATEWAY: "172.22.0.1", CONDUCTOR_ADDRESS_WAIT: "30" });
            assert.equal(r.status, 1, r.stdout + r.stderr);
            assert.ok(Date.now() - t0 < 10000, "no retry of a refusal");
            assert.match(r.stderr, /conductor-address: the address found on eth1, 172\.22\.0\.7, lies inside the DHCP range 172\.22\.0\.5-172\.22\.0\.9/);
            assert.match(r.stderr, /FATAL: node cp-9: no provisioning address/);
            assert.doesNotMatch(r.stdout, /RAN/);
            r = inNs(["true"], { CONDUCTOR_GATEWAY: "172.22.0.7" });
            assert.equal(r.status, 1);
            assert.match(r.stderr, /is the DHCP gateway \(provisioning\.dhcp\.gateway\)/);
            r = inNs(["bash", "-c", 'echo "got $PROVISIONING_IP"'], { CONDUCTOR_DHCP_RANGE: "172.22.0.10-172.22.0.209", CONDUCTOR_GATEWAY: "172.22.0.1" });
            assert.equal(r.status, 0, r.stderr);
            assert.match(r.stdout, /got 172\.22\.0\.7/);
        });

        it("no address inside the CIDR yet: waits up to CONDUCTOR_ADDRESS_WAIT for one to appear (a NIC coming up), then goes on", async function () {
            run("ip", ["-n", ns, "addr", "del", "172.22.0.7/24", "dev", "eth1"]);
            const child = spawn("ip", ["netns", "exec", ns, "bash", wrapper, "bash", "-c", 'echo "got $PROVISIONING_IP"'], { env: { ...env, NODE_NAME: "cp-9", CONDUCTOR_ADDRESS_WAIT: "30" } });
            let out = "";
            child.stdout.on("data", (d) => (out += d));
            child.stderr.on("data", (d) => (out += d));
            const done = new Promise<number | null>((res) => child.on("exit", (c) => res(c)));
            // Its first look has found none: it says so, then waits.
            await until(() => /eth1 has no address/.test(out) || child.exitCode !== null, 20000, "the wrapper's first look at eth1", 50).catch(() => undefined);
            assert.match(out, /eth1 has no address inside 172\.22\.0\.0\/24 with a prefix of at most \/24 \(it has: 172\.22\.0\.250\/32, 10\.9\.0\.7\/24\)/);
            run("ip", ["-n", ns, "addr", "add", "172.22.0.7/24", "dev", "eth1"]);
            assert.equal(await done, 0, out);
            assert.match(out, /got 172\.22\.0\.7/);
        });

        it("restarts its container when the address found on the node changes", async function () {
            const marker = path.join(dir, "address-change.running");
            const child = spawn("ip", ["netns", "exec", ns, "bash", wrapper, "bash", "-c", ': > "$0"; exec sleep 60', marker], { env: { ...env, NODE_NAME: "cp-9" } });
            let out = "";
            child.stdout.on("data", (d) => (out += d));
            child.stderr.on("data", (d) => (out += d));
            const done = new Promise<number | null>((res) => child.on("exit", (c) => res(c)));
            // The address it found is its baseline once the command runs.
            await until(() => fs.existsSync(marker) || child.exitCode !== null, 20000, "the wrapped command to start", 50);
            assert.equal(child.exitCode, null, `the wrapper exited before the address changed: ${out}`);
            run("ip", ["-n", ns, "addr", "del", "172.22.0.7/24", "dev", "eth1"]);
            run("ip", ["-n", ns, "addr", "add", "172.22.0.17/24", "dev", "eth1"]);
            try {
                assert.equal(await done, 0, out);
                assert.match(out, /per-node data of cp-9, its address or the conductor CA changed: restarting/);
            } finally {
                run("ip", ["-n", ns, "addr", "del", "172.22.0.17/24", "dev", "eth1"]);
                run("ip", ["-n", ns, "addr", "add", "172.22.0.7/24", "dev", "eth1"]);
            }
        });
    });

    it("an address from the node's entry is not checked against the DHCP range (config validation does that)", function () {
        const r = run("bash", [wrapper, "bash", "-c", 'echo "got $PROVISIONING_IP"'], { env: { ...env, CONDUCTOR_DHCP_RANGE: "172.22.0.2-172.22.0.9", CONDUCTOR_GATEWAY: "172.22.0.3" }, allowFail: true });
        assert.equal(r.status, 0, r.stderr);
        assert.match(r.stdout, /got 172\.22\.0\.3/);
    });

    it("exits at once (143) on SIGTERM while it waits for the address, never running the command", async function () {
        const marker = path.join(dir, "ran");
        const child = spawn("bash", [wrapper, "touch", marker], { env: { ...env, NODE_NAME: "cp-9", CONDUCTOR_DEFAULT_INTERFACE: "m3inope0", CONDUCTOR_ADDRESS_WAIT: "30" } });
        let out = "";
        child.stdout.on("data", (d) => (out += d));
        child.stderr.on("data", (d) => (out += d));
        const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => child.on("exit", (code, signal) => res({ code, signal })));
        // Past the first look: in the 2 s pause or the next look.
        await until(() => /interface 'm3inope0' not found/.test(out) || child.exitCode !== null, 20000, "the wrapper's first look for m3inope0", 50).catch(() => undefined);
        assert.match(out, /interface 'm3inope0' not found/);
        assert.equal(child.exitCode, null, "still waiting for the address");
        const t0 = Date.now();
        child.kill("SIGTERM");
        const { code, signal } = await done;
        assert.ok(Date.now() - t0 < 3000, `stopped promptly (${Date.now() - t0} ms)`);
        assert.deepEqual({ code, signal }, { code: 143, signal: null }, out);
        assert.ok(!fs.existsSync(marker), "the command never ran");
    });

    it("passes the command's exit status through", function () {
        assert.equal(run("bash", [wrapper, "bash", "-c", "exit 7"], { env, allowFail: true }).status, 7);
    });

    function start(command: string[] = ["sleep", "60"], extraEnv: NodeJS.ProcessEnv = {}): { exited: Promise<{ code: number | null; out: string }>; kill: () => void; alive: () => boolean } {
        const child = spawn("bash", [wrapper, ...command], { env: { ...env, ...extraEnv } });
        let out = "";
        let done = false;
        child.stdout.on("data", (d) => (out += d));
        child.stderr.on("data", (d) => (out += d));
        const exited = new Promise<{ code: number | null; out: string }>((res) =>
            child.on("exit", (code) => {
                done = true;
                res({ code, out });
            }),
        );
        return { exited, kill: () => child.kill("SIGTERM"), alive: () => !done };
    }

    /**
     * Until the wrapped command has started (it creates `marker`): the wrapper mints the conductor's
     * key and certificate first, which takes seconds on a loaded machine.
     */
    async function commandRunning(marker: string, w: { alive: () => boolean; exited: Promise<{ out: string }> }): Promise<void> {
        const t0 = Date.now();
        while (!fs.existsSync(marker)) {
            if (!w.alive()) assert.fail(`the wrapper exited before starting the command: ${(await w.exited).out}`);
            if (Date.now() - t0 > 60000) assert.fail("the command did not start within 60 s");
            await new Promise((r) => setTimeout(r, 100));
        }
    }

    /** The wrapper around a command that marks when it runs: minted, its baseline taken, watching. */
    async function watching(name: string): Promise<ReturnType<typeof start>> {
        const marker = path.join(dir, `${name}.running`);
        const w = start(["bash", "-c", ': > "$0"; exec sleep 60', marker]);
        await commandRunning(marker, w);
        return w;
    }
    /** Not a synchronisation but the window under test: five watch intervals (0.2 s) in which a restart would have happened. */
    const fiveWatchIntervals = () => new Promise((r) => setTimeout(r, 1000));

    it("restarts (exits) when this node's entry changes, and not when another node's does", async function () {
        const w = await watching("other-node");
        fs.writeFileSync(path.join(dir, "data", "cp-2.env"), renderEnvFile({ PROVISIONING_IP: "172.22.0.99" }));
        await fiveWatchIntervals();
        assert.ok(w.alive(), "another node's change must not restart this conductor");
        fs.writeFileSync(path.join(dir, "data", "cp-1.env"), renderEnvFile({ PROVISIONING_IP: "172.22.0.33" }));
        const t0 = Date.now();
        const { code, out } = await w.exited;
        assert.equal(code, 0);
        assert.match(out, /per-node data of cp-1, its address or the conductor CA changed: restarting/);
        assert.ok(Date.now() - t0 < 5000);
    });

    it("watches exactly its node's entry: not that of a node whose name it prefixes (cp-1.example)", async function () {
        const w = await watching("prefix");
        fs.writeFileSync(path.join(dir, "data", "cp-1.example.env"), renderEnvFile({ CONDUCTOR_NODE_IP: "172.22.0.5" }));
        await fiveWatchIntervals();
        assert.ok(w.alive(), "cp-1.example's entry must not restart cp-1");
        fs.writeFileSync(path.join(dir, "data", "cp-1.example.env"), renderEnvFile({ CONDUCTOR_NODE_IP: "172.22.0.6" }));
        await fiveWatchIntervals();
        assert.ok(w.alive(), "cp-1.example's entry must not restart cp-1");
        fs.writeFileSync(path.join(dir, "data", "cp-1.env"), renderEnvFile({ CONDUCTOR_NODE_IP: "172.22.0.33" }));
        const { code, out } = await w.exited;
        assert.equal(code, 0);
        assert.match(out, /per-node data of cp-1, its address or the conductor CA changed: restarting/);
    });

    it("restarts when the entry changed after it was read, before the command started (the baseline is what it read)", async function () {
        // The minter's python changes the entry once it has minted: after the wrapper read it.
        const next = path.join(dir, "cp-1.env.next");
        fs.writeFileSync(next, renderEnvFile({ CONDUCTOR_NODE_IP: "172.22.0.33" }));
        const py = path.join(dir, "python");
        fs.writeFileSync(py, `#!/bin/bash\n/usr/bin/python3 "$@" || exit $?\ncase "$1" in */conductor-cert.py) cp ${JSON.stringify(next)} ${JSON.stringify(path.join(dir, "data", "cp-1.env"))} ;; esac\n`, { mode: 0o755 });
        const child = spawn("bash", [wrapper, "bash", "-c", 'echo "serving $PROVISIONING_IP"; exec sleep 60'], { env: { ...env, CONDUCTOR_PYTHON: py } });
        let out = "";
        child.stdout.on("data", (d) => (out += d));
        child.stderr.on("data", (d) => (out += d));
        const done = new Promise<number | null>((res) => child.on("exit", (c) => res(c)));
        const timer = setTimeout(() => child.kill("SIGKILL"), 10000);
        try {
            assert.equal(await done, 0, out);
        } finally {
            clearTimeout(timer);
        }
        assert.match(out, /serving 172\.22\.0\.3\b/, "it started with what it read");
        assert.match(out, /per-node data of cp-1, its address or the conductor CA changed: restarting/);
    });

    it("restarts (exits) when the conductor CA is re-issued, so the next start mints from the new one", async function () {
        const w = await watching("ca-reissue");
        assert.ok(w.alive());
        makeIntermediate(root, path.join(dir, "ca"));
        const { code, out } = await w.exited;
        assert.equal(code, 0);
        assert.match(out, /conductor-cert: minted .*out-a\/tls\.crt for cp-1 \(IP:172\.22\.0\.3, DNS:cp-1, DNS:ironic, DNS:ironic\.metal3\.svc\)/);
        assert.match(out, /per-node data of cp-1, its address or the conductor CA changed: restarting/);
    });

    describe("the node's certificate: minted by conductor-certs alone, copied by ironic and httpd", function () {
        /** ironic's or httpd's wrapper as the pod declares it: no conductor CA, the minted volume to copy from. */
        const copier = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ CONDUCTOR_CA_DIR: undefined, CONDUCTOR_MINTED_DIR: path.join(dir, "minted"), CONDUCTOR_RUN_DIR: path.join(dir, "run", "httpd"), ...extra });
        const mint = () => {
            const minter = { CONDUCTOR_CERT_DIRS: path.join(dir, "minted"), CONDUCTOR_RUN_DIR: path.join(dir, "run", "conductor-certs") };
            const r = run("bash", [wrapper, "true"], { env: { ...env, ...minter }, allowFail: true });
            assert.equal(r.status, 0, r.stdout + r.stderr);
            return r.stdout;
        };
        const read = (...p: string[]) => fs.readFileSync(path.join(dir, ...p), "utf8");
        const sha = (...p: string[]) => run("sha256sum", [path.join(dir, ...p)]).stdout.split(" ")[0];
        beforeEach(() => fs.mkdirSync(path.join(dir, "minted")));

        it("the minter writes a stamp after the pair (its inputs, the CA's and the pair's SHA-256); started again with the same inputs and CA it keeps the pair; a re-issued CA mints a new one", function () {
            assert.match(mint(), /conductor-cert: minted /);
            const key = read("minted", "tls.key");
            assert.equal(read("minted", "minted-for"), `cp-1 IP:172.22.0.3 DNS:ironic DNS:ironic.metal3.svc\n${sha("ca", "tls.crt")}\n${sha("minted", "tls.crt")}\n${sha("minted", "tls.key")}\n`);
            assert.match(mint(), /keeping the certificate minted for cp-1 IP:172\.22\.0\.3 /);
            assert.equal(read("minted", "tls.key"), key, "no new key for the same inputs");
            makeIntermediate(root, path.join(dir, "ca"));
            assert.match(mint(), /conductor-cert: minted /);
            assert.notEqual(read("minted", "tls.key"), key);
            fs.writeFileSync(path.join(dir, "minted", "tls.key"), key);
            assert.match(mint(), /conductor-cert: minted /, "a pair that is not the stamped one is minted again");
        });

        it("ironic and httpd, with no conductor CA, wait for the pair minted for their own address and SANs and copy it into every cert dir", async function () {
            const marker = path.join(dir, "copier.running");
            const w = start(["bash", "-c", ': > "$0"; exec sleep 60', marker], copier());
            await fiveWatchIntervals();
            assert.ok(w.alive() && !fs.existsSync(marker), "it waits: nothing minted yet");
            mint();
            await commandRunning(marker, w);
            for (const d of ["out-a", "out-b"]) for (const f of ["tls.crt", "tls.key"]) assert.equal(read(d, f), read("minted", f), `${d}/${f}`);
            w.kill();
            assert.match((await w.exited).out, /certificate for cp-1 IP:172\.22\.0\.3 DNS:ironic DNS:ironic\.metal3\.svc from the conductor-certs container/);
        });

        it("takes no pair minted for other inputs (another address), and gives up after CONDUCTOR_CERT_WAIT naming conductor-certs", function () {
            mint();
            const r = run("bash", [wrapper, "true"], { env: { ...env, ...copier({ NODE_NAME: "cp-2", CONDUCTOR_CERT_WAIT: "2" }) }, allowFail: true });
            assert.equal(r.status, 1);
            assert.match(r.stderr, /FATAL: node cp-2: no certificate minted for cp-2 IP:172\.22\.0\.4 DNS:ironic DNS:ironic\.metal3\.svc in .*minted after 2 s \(it names: cp-1 IP:172\.22\.0\.3 .*\); see the log of this pod's conductor-certs container/);
            assert.ok(!fs.existsSync(path.join(dir, "out-a", "tls.crt")), "nothing copied");
        });

        it("restarts (exits) when the pair is minted again (a re-issued conductor CA), and not when the minter keeps it", async function () {
            mint();
            const marker = path.join(dir, "copier.running");
            const w = start(["bash", "-c", ': > "$0"; exec sleep 60', marker], copier());
            await commandRunning(marker, w);
            mint();
            await fiveWatchIntervals();
            assert.ok(w.alive(), "the same pair, kept: no restart");
            makeIntermediate(root, path.join(dir, "ca"));
            mint();
            const { code, out } = await w.exited;
            assert.equal(code, 0);
            assert.match(out, /restarting this container/);
        });
    });

    it("after a forwarded SIGTERM, exits with the command, not a watch interval later, passing its status", async function () {
        // A command that takes half a second to stop and exits 7; a watch interval far longer than that.
        const marker = path.join(dir, "term-status.running");
        const w = start(["bash", "-c", "trap 'sleep 0.5; exit 7' TERM; : > \"$0\"; while :; do sleep 0.1; done", marker], { CONDUCTOR_WATCH_INTERVAL: "30" });
        await commandRunning(marker, w);
        const t0 = Date.now();
        w.kill();
        const { code } = await w.exited;
        assert.ok(Date.now() - t0 < 3000, `stopped ${Date.now() - t0} ms after the TERM`);
        assert.equal(code, 7, "the command's own status");
    });

    it("notices at once when its command is killed alone (the OOM killer), and stops what the command left in its process group: TERM, then KILL for one that ignores it", async function () {
        // A stand-in of the slot agent: it starts two children (as the agent starts dnsmasq), one deaf to TERM, and is then SIGKILLed alone.
        const pids = path.join(dir, "pids");
        const script = 'sleep 300 & a=$!; bash -c "trap \\"\\" TERM; exec sleep 300" & b=$!; echo "$$ $a $b" > "$0.tmp"; mv "$0.tmp" "$0"; wait';
        const w = start(["bash", "-c", script, pids], { CONDUCTOR_WATCH_INTERVAL: "15" });
        await commandRunning(pids, w);
        const [agent, a, b] = fs.readFileSync(pids, "utf8").trim().split(" ").map(Number);
        const alive = (pid: number) => fs.existsSync(`/proc/${pid}/stat`) && !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
        try {
            assert.ok(alive(a) && alive(b), "the command's children run");
            const t0 = Date.now();
            process.kill(agent, "SIGKILL");
            const { code, out } = await w.exited;
            const took = Date.now() - t0;
            assert.ok(took < 4000, `the wrapper ended ${took} ms after its command was killed (watch interval 15 s)`);
            assert.equal(code, 137, out);
            assert.ok(!alive(a), "the command's child is stopped");
            assert.ok(!alive(b), "the command's child that ignores TERM is killed");
            assert.match(out, /processes of the command still running 2 s after it ended: killing them/);
        } finally {
            for (const p of [a, b]) {
                try {
                    process.kill(p, "SIGKILL");
                } catch {
                    /* gone */
                }
            }
        }
    });

    it("forwards SIGTERM to the command", async function () {
        const marker = path.join(dir, "term-forward.running");
        const w = start(["bash", "-c", ': > "$0"; exec sleep 60', marker]);
        await commandRunning(marker, w);
        const t0 = Date.now();
        w.kill();
        await w.exited;
        assert.ok(Date.now() - t0 < 3000, "stopped promptly");
    });
});
