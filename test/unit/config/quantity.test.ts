/** core/config/quantity.ts: quantities as numbers, so that requests and limits compare correctly. */
import { strict as assert } from "assert";

import { parseQuantity } from "../../../core/config/quantity";

describe("config: parseQuantity", function () {
    it("reads binary, decimal, milli and exponent forms", function () {
        assert.equal(parseQuantity("512Mi"), 512 * 1024 * 1024);
        assert.equal(parseQuantity("1Gi"), 1073741824);
        assert.equal(parseQuantity("1G"), 1e9);
        assert.equal(parseQuantity("250m"), 0.25);
        assert.equal(parseQuantity("2"), 2);
        assert.equal(parseQuantity("0.5"), 0.5);
        assert.equal(parseQuantity(".5Ki"), 512);
        assert.equal(parseQuantity("1e3"), 1000);
        assert.equal(parseQuantity("+1.5k"), 1500);
        assert.equal(parseQuantity("100n"), 100e-9);
    });

    it("orders mixed units correctly (the cases a string comparison gets wrong)", function () {
        const lt = (a: string, b: string) => assert.ok(parseQuantity(a)! < parseQuantity(b)!, `${a} < ${b}`);
        lt("1000Mi", "1Gi");
        lt("1G", "1Gi");
        lt("999m", "1");
        lt("512Mi", "1G");
        lt("900Mi", "1e9");
        assert.equal(parseQuantity("1024Mi"), parseQuantity("1Gi"));
        assert.equal(parseQuantity("1000m"), parseQuantity("1"));
    });

    it("returns undefined for what is not a quantity", function () {
        for (const bad of ["", "Gi", "10GB", "-1", "1 Gi", "1.2.3", "10gi"]) assert.equal(parseQuantity(bad), undefined, bad);
    });
});
