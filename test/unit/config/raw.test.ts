/** The raw config from the engine (core/config/raw.ts). */
import { strict as assert } from "assert";

import { PROJECT, rawConfigFromEntries } from "../../../core/config";
import { decodeConfigValue } from "../../../core/config/raw";

describe("raw config from the engine", function () {
    it("keeps the keys of this project, without the prefix", function () {
        assert.equal(PROJECT, "metal3-ironic");
        assert.deepEqual(rawConfigFromEntries({ "metal3-ironic:namespace": "metal3", "other:namespace": "x", "metal3-ironicx:y": "z" }), { namespace: "metal3" });
        assert.deepEqual(rawConfigFromEntries({ "p:a": "1", "metal3-ironic:b": "2" }, "p"), { a: "1" });
    });

    const cases: [string, unknown][] = [
        ["true", true],
        ["false ", false],
        [' {"ip": "172.22.0.2"} ', { ip: "172.22.0.2" }],
        ["[1, 2]", [1, 2]],
        ["[1,", "[1,"],
        ["{not json", "{not json"],
        ["42", "42"],
        ["eth1", "eth1"],
        ["", ""],
    ];
    for (const [value, expected] of cases) {
        it(`decodes ${JSON.stringify(value)} as ${JSON.stringify(expected)}`, function () {
            assert.deepEqual(decodeConfigValue(value), expected);
        });
    }
});
