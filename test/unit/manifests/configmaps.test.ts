/** core/manifests/configmaps.ts: ConfigMap data of the stack and the hashes that roll the pods. */
import { strict as assert } from "assert";
import { listedConductors } from "../../../core/plan/read";
import type { IronicPlan, TopologyPlan } from "../../../core/plan/types";

import {
    bmoConfigMapData,
    dnsmasqConfigHash,
    dnsmasqConfigMapData,
    nodeDataConfigMapData,
    scriptsConfigHash,
    scriptsConfigMapData,
    scriptsConfigMapName,
} from "../../../core/manifests/configmaps";
import { nodeDataReadersHash } from "../../../core/plan/conductor";
import { contentHash } from "../../../core/manifests/meta";
import { readAsset } from "../../../core/render/assets";
import { dev, devNoDhcp, ha, haNoDhcp, vmedia } from "./support";
import { fillNodeTemplate } from "../../../core/plan/conductors";
import { renderEnvFile } from "../../../core/render/envfile";
import { haRaw, planOf } from "../plan/support";

describe("manifests/configmaps", function () {
    describe("dnsmasq (single)", function () {
        it("the rendered config and the start script; its hash is the content hash of that data", function () {
            const data = dnsmasqConfigMapData(dev)!;
            assert.deepEqual(Object.keys(data), ["dnsmasq.conf", "start-dnsmasq.sh"]);
            assert.equal(data["dnsmasq.conf"], dev.topology.kind === "single" && dev.topology.conductor.dhcp!.dnsmasqConf);
            assert.equal(data["start-dnsmasq.sh"], dev.dnsmasqStartScript);
            assert.match(data["dnsmasq.conf"], /dhcp-range=172\.22\.0\.10,172\.22\.0\.100/);
            assert.equal(dnsmasqConfigHash(dev), contentHash(data));
        });

        it("none without DHCP, and none in multi (per-node configs live in the conductors ConfigMap)", function () {
            for (const plan of [devNoDhcp, vmedia, ha, haNoDhcp]) {
                assert.equal(dnsmasqConfigMapData(plan), undefined);
                assert.equal(dnsmasqConfigHash(plan), undefined);
            }
        });

        it("the hash follows the config", function () {
            const t = dev.topology as Extract<TopologyPlan, { kind: "single" }>;
            const changed: IronicPlan = { ...dev, topology: { ...t, conductor: { ...t.conductor, dhcp: { ...t.conductor.dhcp!, dnsmasqConf: t.conductor.dhcp!.dnsmasqConf + "log-dhcp\n" } } } };
            assert.notEqual(dnsmasqConfigHash(changed), dnsmasqConfigHash(dev));
        });
    });

    describe("nodeDataConfigMapData (multi)", function () {
        it("per listed node, sorted by node: its entry (address, interface override) only; the slot agents' preferences", function () {
            const data = nodeDataConfigMapData(ha);
            assert.deepEqual(Object.keys(data), ["cp-0.env", "cp-1.env", "cp-2.env", "slot-preferences.json"]);
            // A first run: every node's slot from first-fit, remembered so Leases keep them; no pins.
            assert.deepEqual(JSON.parse(data["slot-preferences.json"]), { pinned: {}, remembered: { "cp-0": 0, "cp-1": 1, "cp-2": 2 } });
            assert.equal(
                data["cp-0.env"],
                "CONDUCTOR_NODE_IP='172.22.0.2'\nCONDUCTOR_NODE_SANS='IP:10.20.0.12'\nIRONIC_EXTERNAL_CALLBACK_URL='https://10.20.0.12:6385'\nIRONIC_EXTERNAL_HTTP_URL='https://10.20.0.12:6183'\nIRONIC_EXTERNAL_IP='10.20.0.12'\n",
                "the address and the node's external URLs (conductors[].external); the other image variables come from the template in every pod",
            );
            // An entry with nothing to override (a pin only) has no file: the node finds its address.
            const pinOnly = planOf({ ...haRaw, conductors: [{ name: "cp-0", slot: 2 }, { name: "cp-1", ip: "172.22.0.3", interface: "eno2" }] });
            const d2 = nodeDataConfigMapData(pinOnly);
            assert.deepEqual(Object.keys(d2), ["cp-1.env", "slot-preferences.json"]);
            assert.equal(d2["cp-1.env"], "CONDUCTOR_INTERFACE='eno2'\nCONDUCTOR_NODE_IP='172.22.0.3'\n");
            assert.deepEqual(JSON.parse(d2["slot-preferences.json"]).pinned, { "cp-0": 2 });
            const reversed: IronicPlan = { ...ha, topology: { ...(ha.topology as Extract<TopologyPlan, { kind: "multi" }>), conductors: [...listedConductors(ha)].reverse() } };
            assert.deepEqual(nodeDataConfigMapData(reversed), data, "independent of the conductor order");
        });

        it("without DHCP: env files only", function () {
            assert.deepEqual(Object.keys(nodeDataConfigMapData(haNoDhcp)), ["cp-0.env", "cp-1.env"]);
        });
    });

    describe("scripts (multi)", function () {
        it("the start wrapper and the certificate minter always; with DHCP also the dnsmasq start script, the pruner and the slot agent, byte for byte", function () {
            const data = scriptsConfigMapData(ha);
            assert.deepEqual(Object.keys(data), ["conductor-start.sh", "conductor-cert.py", "conductor-address.py", "node.env.template", "node.dnsmasq.conf.template", "start-dnsmasq.sh", "dhcp-pruner.py", "dhcp-slot-agent.py", "slot-0.dnsmasq.conf", "slot-1.dnsmasq.conf", "slot-2.dnsmasq.conf", "slot-3.dnsmasq.conf"]);
            assert.equal(data["conductor-start.sh"], readAsset("conductor-start.sh"));
            assert.equal(data["conductor-cert.py"], readAsset("conductor-cert.py"));
            assert.equal(data["dhcp-pruner.py"], readAsset("dhcp-pruner.py"));
            assert.equal(data["dhcp-slot-agent.py"], readAsset("dhcp-slot-agent.py"));
            // 172.22.0.10-209 in 4 slots of 50: each slot file holds only its slice.
            assert.match(data["slot-2.dnsmasq.conf"], /^dhcp-range=172\.22\.0\.110,172\.22\.0\.159,255\.255\.255\.0,1h$/m);
            // ... and slot 2 of the relayed rack's range, nothing else.
            assert.deepEqual(
                data["slot-2.dnsmasq.conf"].split("\n").filter((l) => l && !l.startsWith("#")),
                ["dhcp-range=172.22.0.110,172.22.0.159,255.255.255.0,1h", "dhcp-range=set:relayed-0,172.23.0.110,172.23.0.159,255.255.255.0,1h"],
            );
            assert.equal(data["start-dnsmasq.sh"], ha.dnsmasqStartScript);
            assert.deepEqual(Object.keys(scriptsConfigMapData(haNoDhcp)), ["conductor-start.sh", "conductor-cert.py", "conductor-address.py", "node.env.template"]);
            // The templates: filled in with a listed node's address and interface, they are the plan's files of that node.
            assert.equal(data["node.env.template"], "IRONIC_CONDUCTOR_HOST='__CONDUCTOR_IP__'\nPROVISIONING_INTERFACE='__CONDUCTOR_INTERFACE__'\nPROVISIONING_IP='__CONDUCTOR_IP__'\n");
            const cp2 = listedConductors(ha).find((c) => c.node === "cp-2")!;
            assert.equal(fillNodeTemplate(data["node.dnsmasq.conf.template"], cp2.ip!, cp2.interface), cp2.resolved!.dnsmasq!.dnsmasqConf);
            assert.equal(fillNodeTemplate(data["node.env.template"], cp2.ip!, cp2.interface), renderEnvFile(cp2.resolved!.env));
            assert.doesNotMatch(data["node.dnsmasq.conf.template"], /^dhcp-range=/m, "the range is the held slot's, not the node's");
        });

        it("scriptsConfigHash is the content hash of the data, and changes with a script", function () {
            assert.equal(scriptsConfigHash(ha), contentHash(scriptsConfigMapData(ha)));
            assert.notEqual(scriptsConfigHash({ ...ha, dnsmasqStartScript: ha.dnsmasqStartScript + "\n" }), scriptsConfigHash(ha));
            assert.notEqual(scriptsConfigHash(haNoDhcp), scriptsConfigHash(ha));
        });

        it("upgrades never rewrite what running pods mount: the scripts ConfigMap is named for its content, the entries for the scripts that read them", function () {
            // A pod the rolling update has not reached keeps the objects it mounts; a restart of
            // one of its containers runs its own wrapper on data that wrapper understands.
            assert.equal(scriptsConfigMapName(ha), `ironic-scripts-${scriptsConfigHash(ha).slice(0, 10)}`);
            assert.notEqual(scriptsConfigMapName({ ...ha, dnsmasqStartScript: ha.dnsmasqStartScript + "\n" }), scriptsConfigMapName(ha), "new scripts, new object");
            const readers = { wrapper: readAsset("conductor-start.sh"), slotAgent: readAsset("dhcp-slot-agent.py") };
            assert.equal(ha.names.nodeDataConfigMap, `ironic-conductors-${nodeDataReadersHash(readers)}`);
            assert.notEqual(nodeDataReadersHash({ ...readers, wrapper: readers.wrapper + "# v2\n" }), nodeDataReadersHash(readers), "a new wrapper reads from a new object");
            assert.notEqual(nodeDataReadersHash({ ...readers, slotAgent: readers.slotAgent + "# v2\n" }), nodeDataReadersHash(readers), "so does a new slot agent");
            // Config changes edit the entries in place (only the node whose entry changed restarts).
            const moved = planOf({ ...haRaw, conductors: [{ name: "cp-0", ip: "172.22.0.9" }] });
            assert.equal(moved.names.nodeDataConfigMap, ha.names.nodeDataConfigMap);
            assert.notDeepEqual(nodeDataConfigMapData(moved), nodeDataConfigMapData(ha));
        });
    });

    it("bmo: the in-cluster endpoint, where BMO mounts the CA and credentials, and the deploy images from the IPA cache", function () {
        const cache = "https://ironic-ipa-cache.metal3.svc:6186/images/ironic-python-agent_x86_64";
        assert.deepEqual(bmoConfigMapData(dev), {
            IRONIC_ENDPOINT: "https://ironic.metal3.svc:6385/v1/",
            IRONIC_CACERT_FILE: "/opt/metal3/certs/ca/tls.crt",
            METAL3_AUTH_ROOT_DIR: "/opt/metal3/auth",
            DEPLOY_KERNEL_URL: `${cache}.kernel`,
            DEPLOY_RAMDISK_URL: `${cache}.initramfs`,
            DEPLOY_KERNEL_URL_X86_64: `${cache}.kernel`,
            DEPLOY_RAMDISK_URL_X86_64: `${cache}.initramfs`,
        });
    });
});
