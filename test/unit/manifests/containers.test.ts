/** core/manifests/containers.ts: each container builder, for single and multi. */
import { strict as assert } from "assert";

import {
    dhcpPrunerContainer,
    dnsmasqContainer,
    httpdContainer,
    ironicContainer,
    keepalivedContainer,
    ramdiskLogsContainer,
} from "../../../core/manifests/containers";
import { dhcpDirsContainer } from "../../../core/manifests/init-dirs";
import { restrictedSecurityContext, untraced } from "../../../core/manifests/meta";
import { slotAgentContainer } from "../../../core/manifests/slots";
import { multiTopology, SINGLE } from "../../../core/manifests/topology";
import { mount } from "../../../core/manifests/volumes";
import type { EnvVar } from "../../../core/manifests/meta";
import { dev, ha, plain } from "./support";
import { planOf, vmediaRaw, withKeys } from "../plan/support";

const IRONIC_IMAGE = "quay.io/metal3-io/ironic:v38.0.0";
const WRAPPER = ["/bin/bash", "/etc/metal3-ironic/scripts/conductor-start.sh"];
const MOUNTS = [mount("shared", "/shared")];
const envNames = (env: unknown): string[] => (env as EnvVar[]).map((e) => plain(e.name));
const envValue = (env: unknown, name: string) => (env as EnvVar[]).find((e) => e.name === name)?.value;
const WRAPPER_NAMES = ["NODE_NAME", "CONDUCTOR_NAMESPACE", "CONDUCTOR_CONFIGMAP", "CONDUCTOR_DATA_DIR", "CONDUCTOR_SCRIPTS_DIR", "CONDUCTOR_RUN_DIR", "CONDUCTOR_PYTHON", "CONDUCTOR_DEFAULT_INTERFACE", "CONDUCTOR_CIDR", "CONDUCTOR_DHCP_RANGE", "CONDUCTOR_GATEWAY"];
/** ironic and httpd: where the node's certificate is copied to and from (minted by conductor-certs), and the SANs it must name. */
const MINTING = ["CONDUCTOR_CERT_DIRS", "CONDUCTOR_CERT_SANS", "CONDUCTOR_MINTED_DIR"];
const W = WRAPPER_NAMES.length + MINTING.length;
const isSorted = (xs: string[]) => xs.every((x, i) => i === 0 || xs[i - 1] < x);

describe("manifests/containers", function () {
    describe("ironic", function () {
        it("single: /bin/runironic with the common and ironic env, sorted; restricted; lenient exec probes", function () {
            const c = ironicContainer(dev, MOUNTS, SINGLE);
            assert.deepEqual(Object.keys(c), ["name", "image", "command", "env", "securityContext", "volumeMounts", "readinessProbe", "livenessProbe", "resources"]);
            assert.equal(c.name, "ironic");
            assert.equal(c.image, IRONIC_IMAGE);
            assert.deepEqual(c.command, untraced(["/bin/runironic"]));
            const names = envNames(c.env);
            assert.ok(isSorted(names), `env sorted: ${names}`);
            assert.deepEqual(names, Object.keys({ ...dev.commonEnv, ...dev.ironicEnv }).sort());
            assert.equal(envValue(c.env, "PROVISIONING_IP"), "172.22.0.2");
            assert.deepEqual(c.securityContext, restrictedSecurityContext());
            assert.equal(c.volumeMounts, MOUNTS);
            assert.deepEqual(c.readinessProbe, { exec: { command: untraced(["/bin/ironic-readiness"]) }, initialDelaySeconds: 10, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 12 });
            assert.deepEqual(c.livenessProbe, { exec: { command: untraced(["/bin/ironic-liveness"]) }, initialDelaySeconds: 30, periodSeconds: 30, timeoutSeconds: 10, failureThreshold: 10 });
            assert.deepEqual(c.resources, { requests: { cpu: "250m", memory: "512Mi" }, limits: { memory: "1Gi" } });
        });

        it("multi: through the wrapper, the wrapper env first (the node's certificate copied into /certs/ironic and /certs/vmedia), then the sorted env", function () {
            const c = ironicContainer(ha, MOUNTS, multiTopology(ha));
            assert.deepEqual(c.command, untraced([...WRAPPER, "/bin/runironic"]));
            const names = envNames(c.env);
            assert.deepEqual(names.slice(0, W), [...WRAPPER_NAMES, ...MINTING]);
            assert.equal(envValue(c.env, "CONDUCTOR_RUN_DIR"), "/run/metal3-ironic/ironic");
            assert.equal(envValue(c.env, "CONDUCTOR_CERT_DIRS"), "/certs/ironic /certs/vmedia");
            assert.ok(isSorted(names.slice(W)));
            assert.equal(envValue(c.env, "OS_DHCP__DHCP_PROVIDER"), "dnsmasq");
            assert.equal(envValue(c.env, "PROVISIONING_IP"), undefined, "each node's env file carries it");
        });
    });

    describe("httpd", function () {
        it("single: host ports for the API, the image server and virtual-media TLS; probes on the plain port", function () {
            const c = httpdContainer(dev, MOUNTS, SINGLE);
            assert.deepEqual(Object.keys(c), ["name", "image", "command", "env", "securityContext", "ports", "volumeMounts", "readinessProbe", "livenessProbe", "resources"]);
            assert.deepEqual(c.command, untraced(["/bin/runhttpd"]));
            assert.deepEqual(envNames(c.env), Object.keys(dev.commonEnv).sort());
            assert.deepEqual(c.ports, [
                { name: "ironic-api", containerPort: 6385, hostPort: 6385, protocol: "TCP" },
                { name: "image-svc", containerPort: 6180, hostPort: 6180, protocol: "TCP" },
                { name: "image-svc-tls", containerPort: 6183, hostPort: 6183, protocol: "TCP" },
            ]);
            assert.deepEqual(c.securityContext, restrictedSecurityContext());
            assert.deepEqual(c.readinessProbe, { httpGet: { path: "/images/ironic-python-agent.kernel", port: 6180, scheme: "HTTP" }, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 12 });
            assert.deepEqual(c.livenessProbe, { tcpSocket: { port: 6180 }, initialDelaySeconds: 30, periodSeconds: 30, timeoutSeconds: 10, failureThreshold: 10 });
            assert.deepEqual(c.resources, { requests: { cpu: "50m", memory: "64Mi" }, limits: { memory: "256Mi" } });
        });

        it("multi: through the wrapper, copying the node's certificate", function () {
            const c = httpdContainer(ha, MOUNTS, multiTopology(ha));
            assert.deepEqual(c.command, untraced([...WRAPPER, "/bin/runhttpd"]));
            assert.deepEqual(envNames(c.env).slice(0, W), [...WRAPPER_NAMES, ...MINTING]);
            assert.deepEqual(envNames(c.env).slice(W), Object.keys(ha.commonEnv).sort());
        });
    });

    it("ramdisk-logs: the log watcher, no env, the same in both topologies", function () {
        for (const plan of [dev, ha]) {
            assert.deepEqual(ramdiskLogsContainer(plan, MOUNTS), {
                name: "ramdisk-logs",
                image: IRONIC_IMAGE,
                command: ["/bin/runlogwatch.sh"],
                securityContext: restrictedSecurityContext(),
                volumeMounts: MOUNTS,
                livenessProbe: {
                    exec: { command: ["/bin/bash", "-c", "test -d /shared/log/ironic/deploy && test -w /shared/log/ironic/deploy"] },
                    initialDelaySeconds: 120,
                    periodSeconds: 60,
                    timeoutSeconds: 10,
                    failureThreshold: 3,
                },
                resources: { requests: { cpu: "10m", memory: "32Mi" }, limits: { memory: "128Mi" } },
            });
        }
    });

    it("dhcp-dirs: creates the DHCP provider's hosts and opts directories on the node's directory and gives them to the ironic user, as root with CHOWN alone", function () {
        const c = dhcpDirsContainer(ha, MOUNTS);
        assert.equal(c.name, "dhcp-dirs");
        assert.deepEqual(c.command, ["/bin/sh", "-c", "mkdir -p /shared/dnsmasq/hostsdir.d /shared/dnsmasq/optsdir.d && chown 997:994 /shared/dnsmasq /shared/dnsmasq/hostsdir.d /shared/dnsmasq/optsdir.d"]);
        // The kubelet makes a missing hostPath directory root's (0755): only root can take it over, with CHOWN and nothing else (no DAC_OVERRIDE, no escalation).
        assert.deepEqual(c.securityContext, { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: false, runAsUser: 0, capabilities: { drop: ["ALL"], add: ["CHOWN"] } });
        assert.deepEqual(c.resources, { requests: { cpu: "10m", memory: "16Mi" }, limits: { memory: "32Mi" } });
    });

    describe("dnsmasq", function () {
        const DNSMASQ_SECURITY = { allowPrivilegeEscalation: true, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ["ALL"], add: ["NET_ADMIN", "NET_BIND_SERVICE", "NET_RAW"] } };

        it("single: runs the start script from its ConfigMap, no env key at all, only its file capabilities", function () {
            const c = dnsmasqContainer(dev, MOUNTS, "/etc/metal3-ironic/dnsmasq/start-dnsmasq.sh", SINGLE);
            assert.deepEqual(Object.keys(c), ["name", "image", "command", "securityContext", "volumeMounts", "livenessProbe", "resources"]);
            assert.deepEqual(c.command, ["/bin/bash", "/etc/metal3-ironic/dnsmasq/start-dnsmasq.sh"]);
            assert.deepEqual(c.securityContext, DNSMASQ_SECURITY);
            assert.deepEqual(c.livenessProbe, {
                exec: { command: ["/bin/bash", "-c", "ss -lun | grep -q ':67 ' && ss -lun | grep -q ':69 '"] },
                initialDelaySeconds: 30,
                periodSeconds: 30,
                timeoutSeconds: 10,
                failureThreshold: 10,
            });
        });

        it("multi: the start script under the slot agent's fence, through the wrapper, with the wrapper and fence env, no API settings and no certificate dirs", function () {
            const c = dnsmasqContainer(ha, MOUNTS, "/etc/metal3-ironic/scripts/start-dnsmasq.sh", multiTopology(ha));
            assert.deepEqual(Object.keys(c), ["name", "image", "command", "env", "securityContext", "volumeMounts", "livenessProbe", "resources"]);
            assert.deepEqual(c.command, [...WRAPPER, "python3.12", "/etc/metal3-ironic/scripts/dhcp-slot-agent.py", "--fence", "/bin/bash", "/etc/metal3-ironic/scripts/start-dnsmasq.sh"]);
            const env = c.env as EnvVar[];
            assert.deepEqual(envNames(env.slice(0, WRAPPER_NAMES.length)), WRAPPER_NAMES);
            assert.deepEqual(env.slice(WRAPPER_NAMES.length), [
                { name: "SLOT_IDENTITY", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
                { name: "SLOT_FENCE_DIR", value: "/run/dhcp-slot/fence" },
                { name: "SLOT_GRANT_DIR", value: "/run/dhcp-slot/grant" },
                { name: "SLOT_RENEW_DEADLINE", value: "10" },
                { name: "SLOT_STOP_GRACE", value: "2" },
            ]);
            // No slot to serve (the agent waits for a free one: more conductors than slots) is alive: no restart loop.
            assert.deepEqual((c.livenessProbe as any).exec.command, ["/bin/bash", "-c", "ss -lun | grep -q ':67 ' && ss -lun | grep -q ':69 ' || grep -q '^idle ' /run/dhcp-slot/fence/state"]);
            assert.deepEqual(c.securityContext, DNSMASQ_SECURITY);
        });

        it("multi: the slot agent in a container of its own, the Lease settings and timings, no capability, no probe", function () {
            const c = slotAgentContainer(ha, MOUNTS);
            assert.deepEqual(Object.keys(c), ["name", "image", "command", "env", "securityContext", "volumeMounts", "resources"]);
            assert.equal(c.name, "dhcp-slot-agent");
            assert.deepEqual(c.command, ["python3.12", "/etc/metal3-ironic/scripts/dhcp-slot-agent.py"]);
            assert.deepEqual(c.securityContext, restrictedSecurityContext());
            assert.deepEqual(c.env as EnvVar[], [
                { name: "SLOT_IDENTITY", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
                { name: "SLOT_NODE", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
                { name: "SLOT_CLAIM_MARGIN", value: "2" },
                { name: "SLOT_COUNT", value: "4" },
                { name: "SLOT_FENCE_DIR", value: "/run/dhcp-slot/fence" },
                { name: "SLOT_GRANT_DIR", value: "/run/dhcp-slot/grant" },
                { name: "SLOT_LEASE_DURATION", value: "15" },
                { name: "SLOT_LEASE_LABELS", value: "app.kubernetes.io/component=dhcp-slot,app.kubernetes.io/instance=ironic,app.kubernetes.io/managed-by=dhcp-slot-agent,app.kubernetes.io/part-of=metal3" },
                { name: "SLOT_LEASE_PREFIX", value: "ironic-dhcp-slot-" },
                { name: "SLOT_NAMESPACE", value: "metal3" },
                { name: "SLOT_PREFERENCES_FILE", value: "/etc/metal3-ironic/conductors/slot-preferences.json" },
                { name: "SLOT_RENEW_DEADLINE", value: "10" },
                { name: "SLOT_RETRY_PERIOD", value: "2" },
                { name: "SLOT_STATUS_FILE", value: "/run/dhcp-slot/grant/status" },
                { name: "SLOT_STOP_GRACE", value: "2" },
            ]);
        });
    });

    it("dhcp-pruner: the Python script through the wrapper, the API, CA, credentials, directories and timings", function () {
        const c = dhcpPrunerContainer(ha, MOUNTS, multiTopology(ha));
        assert.deepEqual(c.command, [...WRAPPER, "python3.12", "/etc/metal3-ironic/scripts/dhcp-pruner.py"]);
        assert.deepEqual((c.env as EnvVar[]).slice(WRAPPER_NAMES.length), [
            { name: "PRUNER_API_URL", value: "https://ironic.metal3.svc:6385" },
            { name: "PRUNER_AUTH_DIR", value: "/auth/pruner" },
            { name: "PRUNER_CA_FILE", value: "/certs/ca/ironic/tls.crt" },
            { name: "PRUNER_FULL_INTERVAL", value: "60" },
            { name: "PRUNER_GRACE", value: "15" },
            { name: "PRUNER_HEARTBEAT_FILE", value: "/run/metal3-ironic/dhcp-pruner.heartbeat" },
            { name: "PRUNER_HOSTSDIR", value: "/shared/dnsmasq/hostsdir.d" },
            { name: "PRUNER_INTERVAL", value: "2" },
            { name: "PRUNER_OPTSDIR", value: "/shared/dnsmasq/optsdir.d" },
            { name: "PRUNER_PAUSE_PER_PASS", value: "3" },
            { name: "PRUNER_REBALANCE_DELAY", value: "20" },
        ]);
        assert.deepEqual(envNames(c.env).slice(0, WRAPPER_NAMES.length), WRAPPER_NAMES);
        assert.deepEqual(c.securityContext, restrictedSecurityContext());
        assert.deepEqual(c.resources, { requests: { cpu: "10m", memory: "48Mi" }, limits: { memory: "128Mi" } });
        // Liveness: the heartbeat the script touches on every poll is younger than 120 s.
        const probe = plain(c.livenessProbe).exec.command as string[];
        assert.deepEqual([probe[0], probe[1], ...probe.slice(3)], ["python3.12", "-c", "/run/metal3-ironic/dhcp-pruner.heartbeat", "120"]);
        assert.deepEqual({ ...c.livenessProbe, exec: undefined }, { exec: undefined, initialDelaySeconds: 60, periodSeconds: 30, timeoutSeconds: 10, failureThreshold: 3 });
    });

    it("every container takes its resources from resources.<role>", function () {
        const custom = { ...ha, resources: { ...ha.resources, dhcpPruner: { requests: { cpu: "1m", memory: "1Mi" }, limits: { cpu: "2", memory: "3Gi" } } } };
        assert.deepEqual(dhcpPrunerContainer(custom, MOUNTS, multiTopology(custom)).resources, { requests: { cpu: "1m", memory: "1Mi" }, limits: { cpu: "2", memory: "3Gi" } });
    });

    it("keepalived: its own image and user, the VIP, and only the capabilities VRRP needs", function () {
        // The vmedia stack without its keepalived section (extra VIPs, VRRP: test/unit/plan/external.test.ts).
        const vmedia = planOf(withKeys(vmediaRaw, { keepalived: {} }));
        assert.deepEqual(keepalivedContainer(vmedia, vmedia.topology.kind === "single" ? vmedia.topology.keepalivedVirtualIps! : ""), {
            name: "keepalived",
            image: "quay.io/metal3-io/keepalived:latest",
            env: [{ name: "KEEPALIVED_VIRTUAL_IPS", value: "172.22.0.5,eth1,24" }],
            securityContext: { allowPrivilegeEscalation: true, runAsUser: 65532, runAsGroup: 65532, runAsNonRoot: true, capabilities: { drop: ["ALL"], add: ["NET_ADMIN", "NET_BROADCAST", "NET_RAW"] } },
            resources: { requests: { cpu: "10m", memory: "16Mi" }, limits: { memory: "64Mi" } },
        });
    });
});
