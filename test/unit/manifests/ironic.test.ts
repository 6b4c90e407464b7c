/** core/manifests/ironic.ts: the pod assembled from volumes, topology and containers; Deployment, DaemonSet, Service. */
import { strict as assert } from "assert";
import { listedConductors } from "../../../core/plan/read";
import type { TopologyPlan } from "../../../core/plan/types";

import { IMAGE_CACHE_ANNOTATIONS, imageCacheClient, imageCacheClientData } from "../../../core/manifests/image-cache";
import { contentHash } from "../../../core/manifests/meta";
import { dnsmasqConfigHash } from "../../../core/manifests/configmaps";
import { conductorDaemonSet, ironicDeployment, ironicEndpointSlice, ironicPodSpec, ironicService } from "../../../core/manifests/ironic";
import { podVolumes } from "../../../core/manifests/volumes";
import type { IronicPlan } from "../../../core/plan";
import { haRaw, planOf, tlsExistingRaw, withKeys } from "../plan/support";
import { ALL, dev, devNoDhcp, ha, haNoDhcp, plain, tlsExisting, vmedia } from "./support";

const containerNames = (plan: IronicPlan) => {
    const spec = plain(ironicPodSpec(plan));
    return { init: spec.initContainers.map((c: { name: string }) => c.name), main: spec.containers.map((c: { name: string }) => c.name) };
};

describe("manifests/ironic", function () {
    describe("ironicPodSpec", function () {
        it("the containers of each topology, in their rendered order", function () {
            // Single without keepalived: the node must hold provisioning.ip, checked first.
            assert.deepEqual(containerNames(dev), { init: ["provisioning-ip", "shared-dirs", "ipa-cache-client"], main: ["ironic", "httpd", "dnsmasq", "ramdisk-logs"] });
            assert.deepEqual(containerNames(devNoDhcp), { init: ["provisioning-ip", "shared-dirs", "ipa-cache-client"], main: ["ironic", "httpd", "ramdisk-logs"] });
            assert.deepEqual(containerNames(vmedia), { init: ["shared-dirs", "ipa-cache-client", "ca-bundles"], main: ["ironic", "httpd", "ramdisk-logs", "keepalived", "ca-bundles-watch"] });
            assert.deepEqual(containerNames(ha), { init: ["shared-dirs", "ipa-cache-client", "dhcp-dirs"], main: ["ironic", "httpd", "conductor-certs", "dnsmasq", "dhcp-slot-agent", "dhcp-pruner", "ramdisk-logs", "ironic-prometheus-exporter"] });
            assert.deepEqual(containerNames(haNoDhcp), { init: ["shared-dirs", "ipa-cache-client"], main: ["ironic", "httpd", "conductor-certs", "ramdisk-logs", "ironic-prometheus-exporter"] });
        });

        it("only conductor-certs mounts the conductor CA (its key) and writes the minted pair; ironic and httpd read the pair, and nothing else sees it", function () {
            for (const [name, plan] of Object.entries(ALL)) {
                const spec = plain(ironicPodSpec(plan));
                const all = [...(spec.initContainers ?? []), ...spec.containers];
                const mounting = (volume: string, readOnly?: boolean) => all.filter((c: any) => (c.volumeMounts ?? []).some((x: any) => x.name === volume && (readOnly === undefined || !!x.readOnly === readOnly))).map((c: any) => c.name);
                const multi = plan.topology.kind === "multi";
                assert.deepEqual(mounting("conductor-ca"), multi ? ["conductor-certs"] : [], name);
                assert.deepEqual(mounting("minted-certs", false), multi ? ["conductor-certs"] : [], name);
                const readers = multi ? (plan.tls.source === "stack" ? ["ironic", "httpd"] : ["ironic"]) : [];
                assert.deepEqual(mounting("minted-certs", true), readers, name);
                const minter = spec.containers.find((c: any) => c.name === "conductor-certs");
                if (minter) assert.ok(minter.env.some((e: any) => e.name === "CONDUCTOR_CA_DIR") && !all.some((c: any) => c !== minter && (c.env ?? []).some((e: any) => e.name === "CONDUCTOR_CA_DIR")), `${name}: the CA dir is the minter's only`);
            }
        });

        it("only dhcp-slot-agent mounts an API token (none is automounted), with no capability and no privilege escalation; dnsmasq runs its fence and reads only the agent's grant", function () {
            for (const [name, plan] of Object.entries(ALL)) {
                const spec = plain(ironicPodSpec(plan));
                const all = [...(spec.initContainers ?? []), ...spec.containers];
                const slots = spec.containers.some((c: any) => c.name === "dhcp-slot-agent");
                assert.equal(slots, plan.topology.kind === "multi" && !!plan.provisioning.dhcp, `${name}: an agent exactly where slots are`);
                const tokenVolumes = (spec.volumes ?? []).filter((v: any) => (v.projected?.sources ?? []).some((s: any) => s.serviceAccountToken)).map((v: any) => v.name);
                const mounting = all.filter((c: any) => (c.volumeMounts ?? []).some((x: any) => tokenVolumes.includes(x.name) || x.mountPath.startsWith("/var/run/secrets/kubernetes.io"))).map((c: any) => c.name);
                assert.deepEqual(mounting, slots ? ["dhcp-slot-agent"] : [], name);
                assert.notEqual(spec.automountServiceAccountToken, true, name);
                if (!slots) continue;
                const agent = spec.containers.find((c: any) => c.name === "dhcp-slot-agent");
                assert.deepEqual(agent.securityContext.capabilities, { drop: ["ALL"] }, name);
                assert.equal(agent.securityContext.allowPrivilegeEscalation, false, name);
                const dnsmasq = spec.containers.find((c: any) => c.name === "dnsmasq");
                assert.deepEqual(dnsmasq.command.slice(-4, -2), ["/etc/metal3-ironic/scripts/dhcp-slot-agent.py", "--fence"], name);
                assert.ok(!dnsmasq.env.some((e: any) => /^SLOT_(API_URL|TOKEN_FILE|NAMESPACE|LEASE_PREFIX)$/.test(e.name)), `${name}: dnsmasq's env names no API`);
                assert.deepEqual(dnsmasq.volumeMounts.filter((x: any) => x.name.startsWith("slot-")).map((x: any) => `${x.name}${x.readOnly ? " ro" : ""}`), ["slot-grant ro", "slot-fence"], name);
            }
        });

        it("only ironic and httpd (and shared-dirs, before them) mount all of /shared, where Ironic's unauthenticated socket is; the others mount the parts they use, which shared-dirs makes", function () {
            for (const [name, plan] of Object.entries(ALL)) {
                const spec = plain(ironicPodSpec(plan));
                const all = [...(spec.initContainers ?? []), ...spec.containers];
                const whole = all.filter((c: any) => (c.volumeMounts ?? []).some((x: any) => x.name === "shared" && !x.subPath)).map((c: any) => c.name);
                assert.deepEqual(whole, ["shared-dirs", "ironic", "httpd"], name);
                const parts = all.flatMap((c: any) => (c.volumeMounts ?? []).filter((x: any) => x.name === "shared" && x.subPath).map((x: any) => `${c.name}:${x.mountPath}`));
                for (const p of parts) assert.match(p.split(":")[1], /^\/shared\/(tftpboot|log\/ironic\/deploy|ironic_prometheus_exporter|html\/images)$/, `${name}: ${p}`);
                const dirs = spec.initContainers.find((c: any) => c.name === "shared-dirs");
                const made = dirs.command.at(-1);
                assert.equal(made, `mkdir -p ${[...new Set(parts.map((p: string) => p.split(":")[1]))].sort().join(" ")}`, `${name}: shared-dirs makes exactly the mounted parts`);
                assert.equal(dirs.securityContext.runAsUser, undefined, "as the pod's user (the ironic user), no capability");
                assert.deepEqual(dirs.securityContext.capabilities, { drop: ["ALL"] });
            }
        });

        it("host network, the pod baseline, then containers and the volumes of podVolumes", function () {
            const spec = ironicPodSpec(dev);
            assert.deepEqual(Object.keys(spec), ["hostNetwork", "dnsPolicy", "automountServiceAccountToken", "enableServiceLinks", "securityContext", "nodeSelector", "tolerations", "initContainers", "containers", "volumes"]);
            assert.equal(spec.hostNetwork, true);
            assert.equal(spec.dnsPolicy, "ClusterFirstWithHostNet");
            assert.deepEqual(spec.securityContext, { runAsUser: 997, runAsGroup: 994, fsGroup: 994, runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
            // The image cache client's volumes come after the pod's own.
            assert.deepEqual(spec.volumes, [...podVolumes(dev).volumes, ...imageCacheClient(dev)!.volumes]);
        });

        it("each container gets its mounts from podVolumes", function () {
            for (const plan of [dev, ha]) {
                const { mounts } = podVolumes(plan);
                const spec = plain(ironicPodSpec(plan));
                const byName = (n: string) => [...spec.initContainers, ...spec.containers].find((c) => c.name === n);
                assert.deepEqual(byName("ironic").volumeMounts, [...mounts.ironic, ...imageCacheClient(plan)!.ironicMounts]);
                assert.deepEqual(byName("httpd").volumeMounts, mounts.httpd);
                assert.deepEqual(byName("dnsmasq").volumeMounts, mounts.dnsmasq!.mounts);
                assert.deepEqual(byName("ramdisk-logs").volumeMounts, mounts.ramdiskLogs);
                assert.equal(byName("ipa-downloader"), undefined, "no IPA download in the Ironic pods");
            }
        });

        it("node selector: single keeps the configured one; multi runs on the control-plane role unless placement picks nodes", function () {
            assert.deepEqual(ironicPodSpec(dev).nodeSelector, { "node-role.kubernetes.io/control-plane": "" });
            assert.equal(ironicPodSpec(vmedia).nodeSelector, undefined);
            assert.deepEqual(ironicPodSpec(ha).nodeSelector, { "node-role.kubernetes.io/control-plane": "" });
        });

        it("only dnsmasq and keepalived may escalate, and no container runs as root but multi's dhcp-dirs step (CHOWN alone, for the node's directory)", function () {
            for (const [name, plan] of Object.entries(ALL)) {
                const spec = plain(ironicPodSpec(plan));
                for (const c of [...spec.initContainers, ...spec.containers] as { name: string; securityContext: { allowPrivilegeEscalation: boolean; runAsNonRoot: boolean; capabilities: unknown } }[]) {
                    const rootStep = c.name === "dhcp-dirs" && plan.topology.kind === "multi";
                    assert.equal(c.securityContext.runAsNonRoot, !rootStep, `${name}/${c.name}`);
                    if (rootStep) assert.deepEqual(c.securityContext.capabilities, { drop: ["ALL"], add: ["CHOWN"] });
                    assert.equal(c.securityContext.allowPrivilegeEscalation, ["dnsmasq", "keepalived"].includes(c.name), `${name}/${c.name}`);
                }
            }
        });
    });

    describe("ironicDeployment", function () {
        it("one replica, Recreate, the plan's labels and selector, the pod spec", function () {
            const d = ironicDeployment(dev);
            assert.deepEqual(d.metadata, { name: "ironic", namespace: "metal3", labels: dev.labels });
            const spec = d.spec as { replicas: number; strategy: unknown; selector: unknown; template: { spec: unknown } };
            assert.equal(spec.replicas, 1);
            assert.deepEqual(spec.strategy, { type: "Recreate" });
            assert.deepEqual(spec.selector, { matchLabels: { "app.kubernetes.io/name": "ironic", "app.kubernetes.io/instance": "ironic" } });
            assert.deepEqual(spec.template.spec, ironicPodSpec(dev));
        });

        it("pod annotations: the dnsmasq config hash first (with DHCP), the cache client's script hash, then the given ones sorted", function () {
            const client: [string, string] = [IMAGE_CACHE_ANNOTATIONS.client, contentHash(imageCacheClientData())];
            const annotations = (plan: IronicPlan, extra?: Record<string, string>) => (ironicDeployment(plan, extra).spec as { template: { metadata: { annotations: Record<string, string> } } }).template.metadata.annotations;
            const withDhcp = annotations(dev, { "z.example/b": "2", "a.example/a": "1" });
            assert.deepEqual(Object.entries(withDhcp), [
                ["metal3-ironic.metal3.io/dnsmasq-config-hash", dnsmasqConfigHash(dev)],
                client,
                ["a.example/a", "1"],
                ["z.example/b", "2"],
            ]);
            assert.deepEqual(Object.entries(annotations(vmedia)), [client]);
        });
    });

    describe("conductorDaemonSet", function () {
        it("one pod per selected node, rolling one at a time with no surge (host ports); the scripts' hash is in their ConfigMap's name, not an annotation", function () {
            const ds = conductorDaemonSet(ha);
            const spec = ds.spec as { updateStrategy: unknown; selector: unknown; template: { metadata: { annotations: unknown }; spec: unknown } };
            assert.equal(ds.kind, "DaemonSet");
            assert.deepEqual(spec.updateStrategy, { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
            assert.deepEqual(spec.template.metadata.annotations, { [IMAGE_CACHE_ANNOTATIONS.client]: contentHash(imageCacheClientData()) });
            assert.deepEqual(spec.template.spec, ironicPodSpec(ha));
        });

        it("the template lists no node: it is the same with other conductors", function () {
            const fewer: IronicPlan = { ...ha, topology: { ...(ha.topology as Extract<TopologyPlan, { kind: "multi" }>), conductors: listedConductors(ha).slice(1) } };
            assert.deepEqual(conductorDaemonSet(fewer), conductorDaemonSet(ha));
        });
    });

    it("ironicService: ClusterIP on the API port, selecting the Ironic pods", function () {
        assert.deepEqual(ironicService(ha), {
            apiVersion: "v1",
            kind: "Service",
            metadata: { name: "ironic", namespace: "metal3", labels: ha.labels },
            spec: { type: "ClusterIP", selector: ha.selector, ports: [{ name: "ironic-api", port: 6385, targetPort: 6385, protocol: "TCP" }] },
        });
        assert.equal(ironicEndpointSlice(ha), undefined);
        assert.equal(ironicEndpointSlice(dev), undefined);
    });

    it("bound (provisioning.bindInterface): the Service selects nothing, its one endpoint provisioning.ip in an EndpointSlice the EndpointSlice controller leaves alone; httpd is probed there", function () {
        assert.deepEqual(plain(ironicService(tlsExisting)).spec, { type: "ClusterIP", ports: [{ name: "ironic-api", port: 6385, targetPort: 6385, protocol: "TCP" }] });
        assert.deepEqual(ironicEndpointSlice(tlsExisting), {
            apiVersion: "discovery.k8s.io/v1",
            kind: "EndpointSlice",
            metadata: {
                name: "ironic-provisioning",
                namespace: "metal3",
                labels: { ...tlsExisting.labels, "kubernetes.io/service-name": "ironic", "endpointslice.kubernetes.io/managed-by": "metal3-ironic.metal3.io" },
            },
            addressType: "IPv4",
            endpoints: [{ addresses: ["172.22.0.2"], conditions: { ready: true } }],
            ports: [{ name: "ironic-api", port: 6385, protocol: "TCP" }],
        });
        const httpd = (plan: IronicPlan) => plain(ironicPodSpec(plan)).containers.find((c: any) => c.name === "httpd");
        assert.equal(httpd(tlsExisting).readinessProbe.httpGet.host, "172.22.0.2");
        assert.equal(httpd(tlsExisting).livenessProbe.tcpSocket.host, "172.22.0.2");
        // Not bound: the kubelet's own choice, the pod's (node's) address.
        assert.equal(httpd(dev).readinessProbe.httpGet.host, undefined);
        assert.equal(httpd(dev).livenessProbe.tcpSocket.host, undefined);
        // An IPv6 provisioning network: an IPv6 slice.
        const v6 = planOf(withKeys(tlsExistingRaw, { provisioning: { interface: "eth1", ip: "fd00:1:2:3::2", cidr: "fd00:1:2:3::/64", bindInterface: true } }));
        assert.deepEqual(plain(ironicEndpointSlice(v6)).endpoints, [{ addresses: ["fd00:1:2:3::2"], conditions: { ready: true } }]);
        assert.equal(plain(ironicEndpointSlice(v6)).addressType, "IPv6");
    });

    it("bound multi: the EndpointSlice lists each conductors[] address (not the nodes found at start); httpd is checked at the address its node's wrapper rendered", function () {
        const conductors = (haRaw.conductors as Record<string, unknown>[]).map(({ external: _, ...c }, i) => (i === 2 ? { name: c.name } : c));
        const boundHa = planOf(withKeys(haRaw, { provisioning: { ...(haRaw.provisioning as object), bindInterface: true }, readiness: { mode: "in-cluster" }, conductors }));
        assert.deepEqual(plain(ironicService(boundHa)).spec.selector, undefined);
        assert.deepEqual(plain(ironicEndpointSlice(boundHa)).endpoints, [
            { addresses: ["172.22.0.2"], conditions: { ready: true } },
            { addresses: ["172.22.0.3"], conditions: { ready: true } },
        ]);
        const httpd = plain(conductorDaemonSet(boundHa)).spec.template.spec.containers.find((c: any) => c.name === "httpd");
        assert.deepEqual(httpd.readinessProbe.exec.command.slice(7), ["httpd-check", "/run/metal3-ironic/httpd/node.env", "6180", "/images/ironic-python-agent.kernel"]);
        assert.deepEqual(httpd.livenessProbe.exec.command.slice(7), ["httpd-check", "/run/metal3-ironic/httpd/node.env", "6180", ""]);
        assert.equal(httpd.env.find((e: any) => e.name === "LISTEN_ALL_INTERFACES").value, "false");
        // The wrapper's own run directory for httpd: where it writes node.env.
        assert.equal(httpd.env.find((e: any) => e.name === "CONDUCTOR_RUN_DIR").value, "/run/metal3-ironic/httpd");
    });
});
