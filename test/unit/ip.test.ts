/** core/ip.ts: IPv4 arithmetic used by validation and the slice planner. */
import { strict as assert } from "assert";

import { ipToNumber, numberToIp } from "../../core/ip";

describe("core/ip", function () {
    it("converts both ways, including the ends of the address space", function () {
        for (const ip of ["0.0.0.0", "10.0.0.1", "172.22.0.255", "192.168.255.254", "255.255.255.255"]) assert.equal(numberToIp(ipToNumber(ip)), ip);
        assert.equal(ipToNumber("0.0.1.0"), 256);
        assert.equal(ipToNumber("255.255.255.255"), 2 ** 32 - 1, "no sign overflow");
        assert.equal(numberToIp(ipToNumber("172.22.0.255") + 1), "172.22.1.0", "carries into the next octet");
    });
});
