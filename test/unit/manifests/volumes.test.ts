/** core/manifests/volumes.ts: the factories, the Ironic pod's volumes and mounts per topology, the database volumes. */
import { strict as assert } from "assert";

import { databaseVolumes, fromConfigMap, fromEmptyDir, fromSecret, mount, podVolumes, PRUNER_AUTH_DIR, readOnlyMount } from "../../../core/manifests/volumes";
import type { Volume } from "../../../core/manifests/volumes";
import { scriptsConfigHash } from "../../../core/manifests/configmaps";
import { ALL, dev, devExternal, devNoDhcp, ha, haExternal, haNoDhcp, m, plain, tlsExisting, vmedia } from "./support";

const names = (vs: Volume[]) => vs.map((v) => v.name);

/** What ironic and httpd mount before their certificates: the same layout in both topologies. */
const IRONIC_OWN = ["shared:/shared", "ironic-conf:/conf", "ironic-data:/data", "ironic-tmp:/tmp"];
const HTTPD_OWN = ["shared:/shared", "httpd-conf:/conf", "httpd-data:/data", "httpd-tmp:/tmp"];
const SINGLE_CERTS = ["tls:/certs/ironic ro", "ca:/certs/ca/ironic ro", "htpasswd:/auth/ironic ro", "tls:/certs/vmedia ro"];
const NODE_DATA = ["node-data:/etc/metal3-ironic/conductors ro", "scripts:/etc/metal3-ironic/scripts ro", "conductor-run:/run/metal3-ironic"];
const MINTED = "minted-certs:/etc/metal3-ironic/minted ro";
const DB = ["db-auth:/auth/mariadb ro", "db-ca:/certs/ca/mariadb ro"];
const BASE_VOLUMES = ["shared", "ironic-conf", "ironic-data", "ironic-tmp", "httpd-conf", "httpd-data", "httpd-tmp", "htpasswd"];
const MULTI_VOLUMES = ["ironic-certs", "ironic-vmedia-certs", "httpd-certs", "httpd-vmedia-certs", "ca", "rpc-auth", "node-data", "conductor-ca", "minted-certs", "scripts", "conductor-run"];

describe("manifests/volumes", function () {
    describe("factories", function () {
        it("emptyDir, Secret and ConfigMap volumes, keys in the rendered order (secretName, items, defaultMode)", function () {
            assert.deepEqual(fromEmptyDir("tmp"), { name: "tmp", emptyDir: {} });
            const s = fromSecret("ca", "stack-ca", { items: ["tls.crt", ["ca.crt", "ca.pem"]], defaultMode: 0o440 });
            assert.equal(JSON.stringify(s), JSON.stringify({ name: "ca", secret: { secretName: "stack-ca", items: [{ key: "tls.crt", path: "tls.crt" }, { key: "ca.crt", path: "ca.pem" }], defaultMode: 288 } }));
            assert.deepEqual(fromSecret("all", "s"), { name: "all", secret: { secretName: "s" } });
            assert.deepEqual(fromConfigMap("c", "cm"), { name: "c", configMap: { name: "cm" } });
            assert.deepEqual(fromConfigMap("c", "cm", { defaultMode: 0o555 }), { name: "c", configMap: { name: "cm", defaultMode: 365 } });
        });

        it("mounts: readOnly only when read-only (no `readOnly: false` in the output)", function () {
            assert.deepEqual(mount("a", "/a"), { name: "a", mountPath: "/a" });
            assert.deepEqual(readOnlyMount("a", "/a"), { name: "a", mountPath: "/a", readOnly: true });
        });
    });

    describe("podVolumes: single", function () {
        it("dev (DHCP, SQLite): the API certificate and CA from the TLS Secret, dnsmasq's config from its ConfigMap", function () {
            const { volumes, mounts } = podVolumes(dev);
            assert.deepEqual(names(volumes), [...BASE_VOLUMES, "tls", "ca", "dnsmasq-data", "dnsmasq-tmp", "dnsmasq-config"]);
            assert.deepEqual(volumes.find((v) => v.name === "tls"), fromSecret("tls", "ironic-tls", { items: ["tls.crt", "tls.key"] }));
            assert.deepEqual(volumes.find((v) => v.name === "ca"), { name: "ca", secret: { secretName: "ironic-tls", items: [{ key: "ca.crt", path: "tls.crt" }] } });
            assert.deepEqual(volumes.find((v) => v.name === "htpasswd"), { name: "htpasswd", secret: { secretName: "ironic-credentials", items: [{ key: "htpasswd", path: "htpasswd" }] } });
            assert.deepEqual(volumes.find((v) => v.name === "dnsmasq-config"), { name: "dnsmasq-config", configMap: { name: "ironic-dnsmasq", defaultMode: 0o555 } });
            assert.deepEqual(m(mounts.ironic), [...IRONIC_OWN, ...SINGLE_CERTS]);
            assert.deepEqual(m(mounts.httpd), [...HTTPD_OWN, ...SINGLE_CERTS]);
            assert.deepEqual(m(mounts.ramdiskLogs), ["shared/log/ironic/deploy:/shared/log/ironic/deploy", "ironic-tmp:/tmp"]);
            assert.deepEqual(m(mounts.dnsmasq?.mounts), ["shared/tftpboot:/shared/tftpboot", "dnsmasq-data:/data", "dnsmasq-tmp:/tmp", "dnsmasq-config:/etc/metal3-ironic/dnsmasq ro"]);
            assert.equal(mounts.dnsmasq?.startScript, "/etc/metal3-ironic/dnsmasq/start-dnsmasq.sh");
            assert.equal(mounts.dhcpDirs, undefined, "no dhcp-dirs init container in single");
            assert.equal(mounts.dhcpPruner, undefined, "no pruner in single");
        });

        it("without DHCP (vmedia, dev without DHCP): no dnsmasq volumes and no dnsmasq", function () {
            for (const plan of [vmedia, devNoDhcp]) {
                const { volumes, mounts } = podVolumes(plan);
                assert.deepEqual(names(volumes), [...BASE_VOLUMES, "tls", "ca"]);
                assert.deepEqual(Object.keys(mounts), ["ironic", "httpd", "ramdiskLogs"]);
            }
        });

        it("tls existing with MariaDB: the user's Secret for the certificate and CA, the database credentials and CA in ironic only", function () {
            const { volumes, mounts } = podVolumes(tlsExisting);
            assert.deepEqual(names(volumes), [...BASE_VOLUMES, "tls", "ca", "db-auth", "db-ca", "dnsmasq-data", "dnsmasq-tmp", "dnsmasq-config"]);
            assert.equal(plain(volumes.find((v) => v.name === "tls")).secret.secretName, "my-tls");
            assert.equal(plain(volumes.find((v) => v.name === "ca")).secret.secretName, "my-tls");
            assert.deepEqual(m(mounts.ironic), [...IRONIC_OWN, ...SINGLE_CERTS, ...DB]);
            assert.deepEqual(m(mounts.httpd), [...HTTPD_OWN, ...SINGLE_CERTS]);
        });
    });

    describe("podVolumes: multi", function () {
        it("ha (DHCP, MariaDB): node certificates in emptyDirs, the stack CA, RPC credentials, node data and scripts; the pruner's credentials", function () {
            const { volumes, mounts } = podVolumes(ha);
            assert.deepEqual(names(volumes), [...BASE_VOLUMES, ...MULTI_VOLUMES, "db-auth", "db-ca", "dnsmasq-data", "dnsmasq-tmp", "dhcp-files", "pruner-auth", "slot-api", "slot-grant", "slot-fence"]);
            const byName = (n: string) => volumes.find((v) => v.name === n);
            assert.deepEqual(byName("ironic-certs"), { name: "ironic-certs", emptyDir: {} });
            assert.deepEqual(byName("ca"), { name: "ca", secret: { secretName: "ironic-cacert", items: [{ key: "tls.crt", path: "tls.crt" }] } });
            assert.deepEqual(plain(byName("rpc-auth")).secret.items, ["htpasswd", "password", "username"].map((k) => ({ key: k, path: k })));
            assert.deepEqual(byName("node-data"), { name: "node-data", configMap: { name: ha.names.nodeDataConfigMap } });
            assert.match(ha.names.nodeDataConfigMap, /^ironic-conductors-[0-9a-f]{10}$/);
            assert.deepEqual(byName("conductor-ca"), { name: "conductor-ca", secret: { secretName: "ironic-conductor-ca", items: [{ key: "tls.crt", path: "tls.crt" }, { key: "tls.key", path: "tls.key" }], defaultMode: 0o440 } });
            assert.deepEqual(byName("scripts"), { name: "scripts", configMap: { name: `ironic-scripts-${scriptsConfigHash(ha).slice(0, 10)}`, defaultMode: 0o555 } });
            // Ironic's DHCP files on the node, one directory per stack: a replaced pod finds them.
            assert.deepEqual(byName("dhcp-files"), { name: "dhcp-files", hostPath: { path: "/var/lib/metal3-ironic/metal3/ironic/dnsmasq", type: "DirectoryOrCreate" } });
            assert.deepEqual(byName("pruner-auth"), { name: "pruner-auth", secret: { secretName: "ironic-credentials", items: [{ key: "password", path: "password" }, { key: "username", path: "username" }] } });

            assert.deepEqual(m(mounts.ironic), [IRONIC_OWN[0], "dhcp-files:/shared/dnsmasq", ...IRONIC_OWN.slice(1), "ironic-certs:/certs/ironic", "ironic-vmedia-certs:/certs/vmedia", "ca:/certs/ca/ironic ro", "htpasswd:/auth/ironic ro", "rpc-auth:/auth/ironic-rpc ro", MINTED, ...NODE_DATA, ...DB]);
            assert.deepEqual(m(mounts.httpd), [...HTTPD_OWN, "httpd-certs:/certs/ironic", "httpd-vmedia-certs:/certs/vmedia", "ca:/certs/ca/ironic ro", "htpasswd:/auth/ironic ro", MINTED, ...NODE_DATA]);
            // The conductor CA and its key: in the minting container only, which writes the minted pair.
            assert.deepEqual(m(mounts.certMinter), ["minted-certs:/etc/metal3-ironic/minted", "conductor-ca:/etc/metal3-ironic/conductor-ca ro", ...NODE_DATA]);
            assert.deepEqual(byName("minted-certs"), { name: "minted-certs", emptyDir: {} });
            // The kubelet's automount files, for the slot agent's container only.
            assert.deepEqual(plain(byName("slot-api")).projected.sources, [
                { serviceAccountToken: { path: "token", expirationSeconds: 3607 } },
                { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
                { downwardAPI: { items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }] } },
            ]);
            assert.deepEqual(m(mounts.dnsmasq?.mounts), ["shared/tftpboot:/shared/tftpboot", "dnsmasq-data:/data", "dnsmasq-tmp:/tmp", "dhcp-files:/shared/dnsmasq", "node-data:/etc/metal3-ironic/conductors ro", "scripts:/etc/metal3-ironic/scripts ro", "conductor-run:/run/metal3-ironic", "slot-grant:/run/dhcp-slot/grant ro", "slot-fence:/run/dhcp-slot/fence"]);
            // The agent writes its grant and reads the fence's state; dnsmasq's fence the other way round.
            assert.deepEqual(m(mounts.slotAgent), ["node-data:/etc/metal3-ironic/conductors ro", "scripts:/etc/metal3-ironic/scripts ro", "slot-grant:/run/dhcp-slot/grant", "slot-fence:/run/dhcp-slot/fence ro", "slot-api:/var/run/secrets/kubernetes.io/serviceaccount ro"]);
            assert.deepEqual(byName("slot-grant"), { name: "slot-grant", emptyDir: {} });
            for (const c of ["ironic", "httpd", "ramdiskLogs", "dhcpPruner", "certMinter"] as const) assert.ok(!(m(mounts[c]) ?? []).some((x) => x.startsWith("slot-api")), `${c} has no API token`);
            assert.ok(!m(mounts.dnsmasq?.mounts)!.some((x) => x.startsWith("slot-api")), "dnsmasq has no API token");
            assert.equal(mounts.dnsmasq?.startScript, "/etc/metal3-ironic/scripts/start-dnsmasq.sh");
            assert.deepEqual(m(mounts.dhcpDirs), ["dhcp-files:/shared/dnsmasq"]);
            assert.deepEqual(m(mounts.dhcpPruner), ["dhcp-files:/shared/dnsmasq", "ca:/certs/ca/ironic ro", `pruner-auth:${PRUNER_AUTH_DIR} ro`, "node-data:/etc/metal3-ironic/conductors ro", "scripts:/etc/metal3-ironic/scripts ro", "conductor-run:/run/metal3-ironic"]);
            assert.equal(PRUNER_AUTH_DIR, "/auth/pruner");
        });

        it("without DHCP: no dnsmasq, dhcp-dirs or pruner, and none of their volumes", function () {
            const { volumes, mounts } = podVolumes(haNoDhcp);
            assert.deepEqual(names(volumes), [...BASE_VOLUMES, ...MULTI_VOLUMES, "db-auth", "db-ca"]);
            assert.deepEqual(Object.keys(mounts), ["ironic", "httpd", "ramdiskLogs", "certMinter"]);
        });
    });

    it("in every example, volume names are unique and every mount names a volume of the pod", function () {
        for (const [name, plan] of Object.entries(ALL)) {
            const { volumes, mounts } = podVolumes(plan);
            const declared = names(volumes);
            assert.equal(new Set(declared).size, declared.length, `${name}: duplicate volume`);
            const all = [mounts.ironic, mounts.httpd, mounts.ramdiskLogs, mounts.dnsmasq?.mounts ?? [], mounts.dhcpDirs ?? [], mounts.dhcpPruner ?? [], mounts.certMinter ?? []].flat();
            for (const vm of all) assert.ok(declared.includes(vm.name), `${name}: mount ${vm.name} has no volume`);
        }
    });

    describe("databaseVolumes", function () {
        it("SQLite: nothing", function () {
            assert.deepEqual(databaseVolumes(dev), { volumes: [], mounts: [] });
        });

        it("MariaDB: the generated credentials and only the CA of the server's TLS Secret", function () {
            const db = databaseVolumes(ha);
            assert.deepEqual(db.volumes, [
                { name: "db-auth", secret: { secretName: "ironic-mariadb-credentials", items: [{ key: "password", path: "password" }, { key: "username", path: "username" }] } },
                { name: "db-ca", secret: { secretName: "ironic-mariadb-tls", items: [{ key: "ca.crt", path: "tls.crt" }] } },
            ]);
            assert.deepEqual(db.mounts, [
                { name: "db-auth", mountPath: "/auth/mariadb", readOnly: true },
                { name: "db-ca", mountPath: "/certs/ca/mariadb", readOnly: true },
            ]);
        });

        it("external: the user's credentials Secret, and the CA only when one is given", function () {
            const withCa = databaseVolumes(haExternal);
            assert.deepEqual(withCa.volumes.map((v) => [v.name, plain(v).secret.secretName]), [["db-auth", "db-creds"], ["db-ca", "db-ca-secret"]]);
            assert.deepEqual(m(withCa.mounts), DB);
            const noCa = databaseVolumes(devExternal);
            assert.deepEqual(noCa.volumes.map((v) => [v.name, plain(v).secret.secretName]), [["db-auth", "db-creds"]]);
            assert.deepEqual(m(noCa.mounts), ["db-auth:/auth/mariadb ro"]);
        });
    });
});
