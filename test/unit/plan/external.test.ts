/**
 * issue 18 §3 and §5 in the pure core: BMCs on another network (`external`, `conductors[].external`),
 * keepalived's extra VIPs and VRRP settings, the TLS policy. What each key is validated for (with the
 * key and the fix), and what it becomes: the image's variables, the certificates' SANs, the per-node
 * entries of multi.
 */
import { strict as assert } from "assert";

import { validateConfig } from "../../../core/config";
import type { RawConfig } from "../../../core/config";
import { externalUrlProblem } from "../../../core/config/reach";
import { nodeCertificateSans } from "../../../core/plan";
import { listedConductors } from "../../../core/plan/read";
import { planExternal, urlHost } from "../../../core/plan/external";
import { configOf, devNoDhcpRaw, devRaw, haRaw, planOf, v6VipRaw, vmediaRaw, withKeys } from "./support";

function issuesOf(raw: RawConfig): { key: string; message: string }[] {
    const r = validateConfig(raw);
    return r.ok ? [] : (r as { issues: { key: string; message: string }[] }).issues;
}

function issueAt(raw: RawConfig, key: string): string {
    const hit = issuesOf(raw).find((i) => i.key === key);
    assert.ok(hit, `no issue at ${key}: ${JSON.stringify(issuesOf(raw))}`);
    return hit.message;
}

describe("external: URLs handed to BMCs on another network", function () {
    it("accepts https://host[:port] with a DNS name, an IPv4 or a bracketed IPv6 address", function () {
        for (const ok of ["https://vmedia.oob.example:6183", "https://10.20.0.5:6183", "https://[fd00:20::5]:6183", "https://ironic.oob.example", "https://10.20.0.5:6183/"]) {
            assert.equal(externalUrlProblem(ok), undefined, ok);
        }
    });

    it("refuses, saying why: another scheme, a path, credentials, a bare IPv6 address, unreachable addresses, a bad port", function () {
        const cases: [string, RegExp][] = [
            ["http://10.20.0.5:6180", /scheme must be https/],
            ["https://10.20.0.5:6183/redfish", /drop "\/redfish"/],
            ["https://user:pw@10.20.0.5:6183", /no credentials/],
            ["https://fd00:20::5:6183", /IPv6 address goes in brackets/],
            ["https://127.0.0.1:6183", /loopback/],
            ["https://0.0.0.0:6183", /unspecified/],
            ["https://[fe80::1]:6183", /linkLocal/],
            ["https://10.20.0.5:70000", /port must be 1-65535/],
            ["https://bad_host:6183", /.+/],
            ["10.20.0.5:6183", /must be https:\/\/host/],
        ];
        for (const [url, re] of cases) assert.match(externalUrlProblem(url) ?? "", re, url);
    });

    it("single: ip alone derives both URLs on the stack's ports, bracketed for IPv6; given URLs win", function () {
        const v4 = configOf(withKeys(devRaw, { external: { ip: "10.20.0.5" } }));
        assert.deepEqual(planExternal(v4, v4.external), {
            ip: "10.20.0.5",
            httpUrl: "https://10.20.0.5:6183",
            callbackUrl: "https://10.20.0.5:6385",
            sans: { dnsNames: [], ipAddresses: ["10.20.0.5"] },
        });
        const v6 = configOf(withKeys(devRaw, { external: { ip: "fd00:20::5" }, ports: { vmediaTls: 8443 } }));
        assert.equal(planExternal(v6, v6.external)?.httpUrl, "https://[fd00:20::5]:8443");
        assert.equal(planExternal(v6, v6.external)?.callbackUrl, "https://[fd00:20::5]:6385");
        const named = configOf(withKeys(devRaw, { external: { httpUrl: "https://vmedia.oob.example:443" } }));
        const x = planExternal(named, named.external)!;
        assert.equal(x.callbackUrl, undefined, "no callback URL without ip or callbackUrl: IPA calls back as before");
        assert.deepEqual(x.sans, { dnsNames: ["vmedia.oob.example"], ipAddresses: [] });
        assert.equal(urlHost("https://[fd00:20::5]:6183"), "fd00:20::5");
    });

    it("single: the ironic container gets the image's IRONIC_EXTERNAL_* variables, and the API certificate the hosts", function () {
        const plan = planOf(vmediaRaw);
        assert.equal(plan.ironicEnv.IRONIC_EXTERNAL_IP, "10.20.0.5");
        assert.equal(plan.ironicEnv.IRONIC_EXTERNAL_HTTP_URL, "https://10.20.0.5:6183");
        assert.equal(plan.ironicEnv.IRONIC_EXTERNAL_CALLBACK_URL, "https://10.20.0.5:6385");
        assert.deepEqual(plan.certificate.ipAddresses, ["10.20.0.5", "172.22.0.5"]);
        const v6 = planOf(withKeys(devRaw, { external: { ip: "fd00:20::5", httpUrl: "https://vmedia.oob.example:6183" } }));
        assert.ok(v6.certificate.ipAddresses.includes("fd00:20::5"));
        assert.ok(v6.certificate.dnsNames.includes("vmedia.oob.example"));
        assert.equal(planOf(devRaw).ironicEnv.IRONIC_EXTERNAL_IP, undefined, "unset: nothing");
    });

    it("multi: each node's entry carries its own URLs and SANs (keyed by node, whatever slot it holds); no pod-template value", function () {
        const plan = planOf(haRaw);
        const byNode = Object.fromEntries(listedConductors(plan).map((c) => [c.node, c.entry]));
        assert.equal(byNode["cp-1"].IRONIC_EXTERNAL_HTTP_URL, "https://10.20.0.13:6183");
        assert.equal(byNode["cp-1"].IRONIC_EXTERNAL_CALLBACK_URL, "https://10.20.0.13:6385");
        assert.equal(byNode["cp-1"].CONDUCTOR_NODE_SANS, "IP:10.20.0.13");
        assert.equal(plan.ironicEnv.IRONIC_EXTERNAL_HTTP_URL, undefined);
        assert.ok(!plan.certificate.ipAddresses.includes("10.20.0.13"), "not in the SANs every conductor shares");
        assert.ok(nodeCertificateSans(plan, "cp-1", "172.22.0.3").ipAddresses.includes("10.20.0.13"));
        assert.ok(!nodeCertificateSans(plan, "cp-1", "172.22.0.3").ipAddresses.includes("10.20.0.12"), "no other node's");
        // Reordering the list moves no node's values.
        const reordered = planOf(withKeys(haRaw, { conductors: [...(haRaw.conductors as any[])].reverse() }));
        const again = Object.fromEntries(listedConductors(reordered).map((c) => [c.node, c.entry]));
        assert.deepEqual(again["cp-1"], byNode["cp-1"]);
    });

    it("refuses with the key and the fix: external in multi, mixed families, ironic.config owning the same option", function () {
        assert.match(issueAt(withKeys(haRaw, { external: { ip: "10.20.0.5" } }), "external"), /conductors\[\]\.external/);
        // A node without external is no mistake (a node that joins unlisted has none either): it keeps its provisioning-network URLs.
        const partial = (haRaw.conductors as any[]).map((c, i) => (i === 1 ? { name: c.name, ip: c.ip } : c));
        assert.deepEqual(issuesOf(withKeys(haRaw, { conductors: partial })), []);
        assert.match(issueAt(withKeys(devRaw, { external: { ip: "10.20.0.5", httpUrl: "https://[fd00::5]:6183" } }), "external.httpUrl"), /ipv6 address while external\.ip 10\.20\.0\.5 is ipv4/);
        assert.match(issueAt(withKeys(devRaw, { external: { ip: "10.20.0.5" }, ironic: { config: { "deploy.external_http_url": "https://x:1" } } }), "ironic.config.deploy.external_http_url"), /set by external\.ip/);
        assert.deepEqual(issuesOf(withKeys(devRaw, { external: {}, keepalived: {} })), [], "{} (the CLI's default for an unset key) is unset");
        assert.equal(configOf(withKeys(devRaw, { external: {} })).external, undefined);
        assert.match(issueAt(withKeys(devRaw, { external: { ip: "::1" } }), "external.ip"), /loopback/);
    });
});

describe("keepalived: extra VIPs, VRRP router id and password", function () {
    it("the extra VIPs follow provisioning.ip in KEEPALIVED_VIRTUAL_IPS (interface default provisioning.interface, prefix as given)", function () {
        const plan = planOf(withKeys(vmediaRaw, { keepalived: { extraVips: [{ ip: "10.20.0.5", interface: "eth2", prefix: 24 }, { ip: "172.22.0.6" }] } }));
        assert.equal(plan.topology.kind === "single" && plan.topology.keepalivedVirtualIps, "172.22.0.5,eth1,24 10.20.0.5,eth2,24 172.22.0.6,eth1");
    });

    it("refuses with the key and the fix: without provisioning.keepalived, a VIP twice or equal to provisioning.ip, in the DHCP range, a bad prefix, a bad router id", function () {
        assert.match(issueAt(withKeys(devRaw, { keepalived: { virtualRouterId: 51 } }), "keepalived"), /needs provisioning\.keepalived: true/);
        const ka = (k: object) => withKeys(vmediaRaw, { keepalived: k });
        assert.match(issueAt(ka({ extraVips: [{ ip: "172.22.0.5" }] }), "keepalived.extraVips[0].ip"), /already provisioning\.ip/);
        assert.match(issueAt(ka({ extraVips: [{ ip: "10.0.0.1" }, { ip: "10.0.0.1" }] }), "keepalived.extraVips[1].ip"), /already keepalived\.extraVips\[0\]/);
        assert.match(issueAt(ka({ extraVips: [{ ip: "10.0.0.1", prefix: 33 }] }), "keepalived.extraVips[0].prefix"), /1-32/);
        assert.match(issueAt(ka({ virtualRouterId: 256 }), "keepalived.virtualRouterId"), /1-255/);
        const dhcp = withKeys(devRaw, { provisioning: { ...(devRaw.provisioning as object), keepalived: true, interface: "eth1" }, keepalived: { extraVips: [{ ip: "172.22.0.20" }] } });
        assert.match(issueAt(dhcp, "keepalived.extraVips[0].ip"), /lies in the DHCP range/);
        assert.match(issueAt(ka({ passwordSecret: { name: "Bad_Name" } }), "keepalived.passwordSecret.name"), /Secret name/);
    });

    it("with a router id or password the container starts through keepalived-start.sh, then the image's command; the password only as a file of the user's Secret", function () {
        const plan = planOf(vmediaRaw);
        assert.deepEqual(plan.keepalived, { extraVips: [{ ip: "10.20.0.5", interface: "eth2", prefix: 24 }], virtualRouterId: 51, passwordSecret: { name: "ironic-vrrp", key: "password" } });
        const { ironicPodSpec } = require("../../../core/manifests/ironic");
        const spec = ironicPodSpec(plan);
        const k = spec.containers.find((c: any) => c.name === "keepalived");
        assert.deepEqual(k.command.slice(-2), ["/bin/bash", "/bin/manage-keepalived.sh"]);
        assert.equal(k.command[3], "keepalived-start.sh");
        assert.deepEqual(k.env.map((e: any) => e.name), ["KEEPALIVED_VIRTUAL_IPS", "METAL3_VRRP_ROUTER_ID", "METAL3_VRRP_PASSWORD_FILE"]);
        assert.ok(!JSON.stringify(k.env).includes("secretKeyRef"), "never in the environment");
        const vol = spec.volumes.find((v: any) => v.name === "keepalived-vrrp");
        assert.deepEqual(vol.secret, { secretName: "ironic-vrrp", items: [{ key: "password", path: "password" }], defaultMode: 0o444 });
        const others = spec.containers.filter((c: any) => c.name !== "keepalived");
        assert.ok(others.every((c: any) => !(c.volumeMounts ?? []).some((m: any) => m.name === "keepalived-vrrp")), "mounted into keepalived only");
        // Extra VIPs alone: the image's own command, unchanged.
        const plain = ironicPodSpec(planOf(withKeys(vmediaRaw, { keepalived: { extraVips: [{ ip: "10.20.0.5", interface: "eth2" }] } }))).containers.find((c: any) => c.name === "keepalived");
        assert.equal(plain.command, undefined);
    });
});

describe("keepalived with an IPv6 VIP (issue 19): what Debian's keepalived does with it", function () {
    const v6 = (keys: RawConfig) => withKeys(v6VipRaw, keys);
    const ka = (k: object) => v6({ keepalived: { ...(v6VipRaw.keepalived as object), ...k } });

    it("the IPv6 single stack (test/fixtures/Pulumi.v6-vip.yaml) validates: provisioning.ip with the /64 first, the IPv6 extra VIP, router id 52 through keepalived-start.sh, no password", function () {
        assert.deepEqual(issuesOf(v6VipRaw), []);
        const plan = planOf(v6VipRaw);
        assert.equal(plan.topology.kind === "single" && plan.topology.keepalivedVirtualIps, "fd00:1:2:3::5,eth1,64 fd00:20::5,eth2,64");
        const { ironicPodSpec } = require("../../../core/manifests/ironic");
        const k = ironicPodSpec(plan).containers.find((c: any) => c.name === "keepalived");
        assert.deepEqual(k.env, [
            { name: "KEEPALIVED_VIRTUAL_IPS", value: "fd00:1:2:3::5,eth1,64 fd00:20::5,eth2,64" },
            { name: "METAL3_VRRP_ROUTER_ID", value: "52" },
        ]);
    });

    it("refuses keepalived.passwordSecret with an IPv6 provisioning.ip (VRRPv3 has no authentication: keepalived ignores the password), with the fix; an IPv4 VIP keeps it", function () {
        const msg = issueAt(ka({ passwordSecret: { name: "ironic-vrrp" } }), "keepalived.passwordSecret");
        assert.match(msg, /provisioning\.ip fd00:1:2:3::5 is IPv6/);
        assert.match(msg, /VRRP version 3 does not support authentication/);
        assert.match(msg, /remove keepalived\.passwordSecret/);
        assert.deepEqual(issuesOf(vmediaRaw), [], "the IPv4 vmedia stack with its password");
    });

    it("refuses an extra VIP of the other family than provisioning.ip, both ways (keepalived ignores it: one VRRP instance, one family)", function () {
        const v4OnV6 = issueAt(ka({ extraVips: [{ ip: "10.20.0.5", interface: "eth2", prefix: 24 }] }), "keepalived.extraVips[0].ip");
        assert.match(v4OnV6, /10\.20\.0\.5 is IPv4 but provisioning\.ip fd00:1:2:3::5 is IPv6/);
        assert.match(v4OnV6, /address family must match VRRP instance/);
        assert.match(v4OnV6, /give an IPv6 address, or remove it/);
        const v6OnV4 = issueAt(withKeys(vmediaRaw, { external: { ip: "10.20.0.5" }, keepalived: { extraVips: [{ ip: "fd00:20::5", interface: "eth2" }] } }), "keepalived.extraVips[0].ip");
        assert.match(v6OnV4, /fd00:20::5 is IPv6 but provisioning\.ip 172\.22\.0\.5 is IPv4: .*give an IPv4 address/);
    });

    it("refuses an IPv6 extra VIP inside the DHCPv6 range (as for IPv4), accepts one outside it, and one IPv6 VIP only once in any spelling", function () {
        assert.match(issueAt(ka({ extraVips: [{ ip: "fd00:1:2:3::1800" }] }), "keepalived.extraVips[0].ip"), /lies in the DHCP range fd00:1:2:3::1000-fd00:1:2:3::1fff/);
        assert.deepEqual(issuesOf(ka({ extraVips: [{ ip: "fd00:1:2:3::6" }] })), []);
        assert.match(issueAt(ka({ extraVips: [{ ip: "fd00:1:2:3:0::5" }] }), "keepalived.extraVips[0].ip"), /already provisioning\.ip/);
    });
});

describe("tls policy: httpd's and Ironic's", function () {
    it("every key reaches both httpd vhosts through the image's variables; unset, both take TLS 1.2+; Ironic's JSON-RPC server keeps its own TLS 1.3", function () {
        const tls = { minVersion: "1.3", ciphers: "ECDHE-RSA-AES256-GCM-SHA384", ciphersTls13: "TLS_AES_256_GCM_SHA384", curves: "X25519:P-256" };
        const single = planOf(withKeys(devNoDhcpRaw, { tls }));
        assert.deepEqual(
            Object.fromEntries(Object.entries(single.commonEnv).filter(([k]) => /SSL_PROTOCOL|CIPHERS|CURVES/.test(k))),
            {
                IRONIC_SSL_PROTOCOL: "-ALL +TLSv1.3",
                IRONIC_TLS_12_CIPHERS: "ECDHE-RSA-AES256-GCM-SHA384",
                IRONIC_TLS_13_CIPHERS: "TLS_AES_256_GCM_SHA384",
                IRONIC_TLS_CURVES: "X25519:P-256",
                IRONIC_VMEDIA_SSL_PROTOCOL: "-ALL +TLSv1.3",
                IRONIC_VMEDIA_TLS_12_CIPHERS: "ECDHE-RSA-AES256-GCM-SHA384",
                IRONIC_VMEDIA_TLS_13_CIPHERS: "TLS_AES_256_GCM_SHA384",
                IRONIC_VMEDIA_CURVES: "X25519:P-256",
            },
        );
        assert.equal(planOf(withKeys(devNoDhcpRaw, { tls: { minVersion: "1.2" } })).commonEnv.IRONIC_VMEDIA_SSL_PROTOCOL, "-ALL +TLSv1.2 +TLSv1.3");
        // JSON-RPC's peers are the stack's own conductors: tls.minVersion "1.2" must not lower Ironic 38's 1.3.
        const multi = planOf(withKeys(haRaw, { tls: { ...tls, minVersion: "1.2" } }));
        assert.deepEqual(Object.keys(multi.ironicEnv).filter((k) => k.startsWith("OS_JSON_RPC__TLS")), []);
        // Unset: not the image's virtual-media default (ALL), but TLS 1.2 and 1.3 on both vhosts.
        const unset = planOf(devRaw).commonEnv;
        assert.deepEqual([unset.IRONIC_SSL_PROTOCOL, unset.IRONIC_VMEDIA_SSL_PROTOCOL], ["-ALL +TLSv1.2 +TLSv1.3", "-ALL +TLSv1.2 +TLSv1.3"]);
        assert.equal(unset.IRONIC_TLS_12_CIPHERS, undefined, "unset ciphers: OpenSSL's");
    });

    it("refuses with the key and the fix: an unknown version, blanks in a cipher list, an unknown TLS 1.3 suite, a malformed group list", function () {
        assert.match(issueAt(withKeys(devRaw, { tls: { minVersion: "1.1" } }), "tls.minVersion"), /"1\.2" or "1\.3"/);
        assert.match(issueAt(withKeys(devRaw, { tls: { ciphers: "HIGH !aNULL" } }), "tls.ciphers"), /no spaces/);
        assert.match(issueAt(withKeys(devRaw, { tls: { ciphersTls13: "TLS_AES_256_GCM_SHA384:TLS_FOO" } }), "tls.ciphersTls13"), /unknown: TLS_FOO/);
        assert.match(issueAt(withKeys(devRaw, { tls: { curves: "X25519, P-256" } }), "tls.curves"), /separated by ':'/);
    });
});
