/**
 * Every rendered Kubernetes object validated against the Kubernetes OpenAPI schema
 * (kubernetes-models, generated from the upstream OpenAPI spec).
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import { parse } from "yaml";

import { RawConfig } from "../../core/config";
import { EXAMPLE_STACKS, GOLDEN_DIR } from "../../tools/golden";
import { renderOffline, readStackConfig } from "../../tools/render";
import { schemaError } from "../helpers/k8s-schema";

const devRaw = readStackConfig(path.join(__dirname, "..", "..", "Pulumi.dev.yaml"));
const haRaw = readStackConfig(path.join(__dirname, "..", "..", "Pulumi.ha.yaml"));

const variants: [string, RawConfig][] = [
    ["dev stack", devRaw],
    ["ha stack (multi, DaemonSet, node label patches)", haRaw],
    ["virtual media only, keepalived, existing TLS", (() => {
        const prov: Record<string, unknown> = { ...(devRaw.provisioning as object), keepalived: true };
        delete prov.dhcp;
        return { ...devRaw, provisioning: prov, tls: { mode: "existing", existingSecret: "my-tls" }, createNamespace: false };
    })()],
];

describe("Kubernetes schema validation of every rendered object", function () {
    this.timeout(30000);
    for (const [label, raw] of variants) {
        it(`${label}: every object is valid`, async function () {
            const r = await renderOffline(raw);
            assert.ok(r.objects.length >= 4);
            const errors: string[] = [];
            for (const o of r.objects) {
                const e = await schemaError(o);
                if (e) errors.push(`${o.kind}/${o.metadata?.name}: ${e}`);
            }
            assert.deepEqual(errors, []);
        });
    }

    /**
     * Objects of custom resources have no built-in schema: each is validated against its own CRD
     * elsewhere (cert-manager: test/helpers/cert-manager.ts; the MariaDB operator:
     * test/helpers/operator-crds.ts; prometheus-operator: test/integration/service-monitor-crd.test.ts).
     */
    const CRD_GROUPS = ["cert-manager.io", "k8s.mariadb.com", "monitoring.coreos.com"];
    // The golden render of each example stack is what `npm run plan` renders (test/components/golden.test.ts).
    for (const ex of EXAMPLE_STACKS) {
        it(`example stack ${ex.stack} (${ex.file}): every object of its golden render with a built-in kind is valid`, async function () {
            const files = (fs.readdirSync(path.join(GOLDEN_DIR, ex.stack), { recursive: true }) as string[]).filter((f) => f.endsWith(".yaml")).sort();
            const errors: string[] = [];
            let checked = 0;
            for (const f of files) {
                const o = parse(fs.readFileSync(path.join(GOLDEN_DIR, ex.stack, f), "utf8"));
                if (CRD_GROUPS.includes(String(o.apiVersion).split("/")[0])) continue;
                checked++;
                const e = await schemaError(o);
                if (e) errors.push(`${f}: ${e}`);
            }
            assert.ok(checked >= 10, `${checked} objects checked`);
            assert.deepEqual(errors, []);
        });
    }

    it("an invalid object is rejected (the check can fail)", async function () {
        const r = await renderOffline(devRaw);
        const d = JSON.parse(JSON.stringify(r.objects.find((o) => o.kind === "Deployment")));
        d.spec.template.spec.containers[0].ports = [{ containerPort: "http" }];
        assert.match(String(await schemaError(d)), /containerPort/);
        const s = JSON.parse(JSON.stringify(r.objects.find((o) => o.kind === "Service")));
        delete s.spec.ports[0].port;
        assert.match(String(await schemaError(s)), /port/);
    });
});
