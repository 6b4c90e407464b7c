/**
 * The resource graph of every example stack (tools/golden.ts resourceGraph): each resource's URN
 * (type path and name) and what it waits for, as test/resource-graph.golden.txt records it. A change
 * of a name or a parent is a replace in a deployed stack's preview; a refactor must leave this file
 * as it is, and a change that means to move a resource shows it here. `npm run golden` rewrites it.
 */
import { strict as assert } from "assert";
import * as fs from "fs";

import { RESOURCE_GRAPH_FILE, resourceGraph } from "../../tools/golden";

describe("resource graph of the example stacks (URNs and dependsOn)", function () {
    this.timeout(300000);

    it("every example stack registers exactly the resources, names, parents and dependencies of test/resource-graph.golden.txt", async function () {
        const golden = fs.readFileSync(RESOURCE_GRAPH_FILE, "utf8").split("\n");
        const now = (await resourceGraph()).split("\n");
        const gone = golden.filter((l) => !now.includes(l));
        const added = now.filter((l) => !golden.includes(l));
        assert.deepEqual({ gone, added }, { gone: [], added: [] }, "a renamed or re-parented resource is a replace in a deployed stack: if intended, npm run golden");
        assert.ok(golden.some((l) => /^dev pulumi:pulumi:Stack\$metal3:index:Metal3Ironic\$kubernetes:core\/v1:Secret::ironic-tls$/.test(l)), "the file names the dev stack's API certificate Secret under the stack");
    });
});
