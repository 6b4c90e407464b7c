/** tools/plan-summary.ts endpointLines: what `npm run plan` says about where httpd listens and the API Service's endpoints. */
import { strict as assert } from "assert";
import * as path from "path";

import { readStackConfig } from "../../../tools/render";
import { endpointLines } from "../../../tools/plan-summary";
import { devRaw, planOf, tlsExistingRaw } from "./support";

const v6Raw = readStackConfig(path.join(__dirname, "..", "..", "fixtures", "Pulumi.v6.yaml"));
const line = (lines: string[], head: string) => lines.find((l) => l.trimStart().startsWith(head));

describe("plan summary: endpointLines", function () {
    it("unbound: every address, no endpoint line (the Service selects the pods)", function () {
        const lines = endpointLines(planOf(devRaw));
        assert.equal(line(lines, "httpd listens on"), "  httpd listens on           every address of the node (provisioning.bindInterface: false)");
        assert.equal(line(lines, "API Service endpoints"), undefined);
    });

    it("bound single: provisioning.ip alone, the one endpoint", function () {
        const lines = endpointLines(planOf(tlsExistingRaw));
        assert.equal(line(lines, "httpd listens on"), "  httpd listens on           172.22.0.2 alone for the API and images (provisioning.bindInterface), every address for virtual media");
        assert.equal(line(lines, "API Service endpoints"), "  API Service endpoints      172.22.0.2 (EndpointSlice ironic-provisioning)");
    });

    it("bound multi: each node's address, the listed conductors as endpoints", function () {
        const lines = endpointLines(planOf(v6Raw));
        assert.match(line(lines, "httpd listens on")!, /each node's provisioning address alone/);
        assert.equal(line(lines, "API Service endpoints"), "  API Service endpoints      fd00:1:2:3::2, fd00:1:2:3::3, fd00:1:2:3::4 (EndpointSlice ironic-provisioning)");
    });
});
