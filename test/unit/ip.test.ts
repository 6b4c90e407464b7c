/** core/ip.ts: IP arithmetic of both families used by validation and the slice planner, and the one URL helper. */
import { strict as assert } from "assert";

import { bigIntToIp, compareIps, ipFamily, ipToBigInt, ipToNumber, numberToIp, rangeSize, sameIp, urlHost, urlOf } from "../../core/ip";

describe("core/ip", function () {
    it("converts both ways, including the ends of the address space", function () {
        for (const ip of ["0.0.0.0", "10.0.0.1", "172.22.0.255", "192.168.255.254", "255.255.255.255"]) assert.equal(numberToIp(ipToNumber(ip)), ip);
        assert.equal(ipToNumber("0.0.1.0"), 256);
        assert.equal(ipToNumber("255.255.255.255"), 2 ** 32 - 1, "no sign overflow");
        assert.equal(numberToIp(ipToNumber("172.22.0.255") + 1), "172.22.1.0", "carries into the next octet");
    });

    it("IPv6 as a BigInt: 128 bits both ways, carries across groups, canonical spelling", function () {
        for (const ip of ["::", "fd00:1:2:3::1000", "2001:db8::ffff:ffff", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"]) assert.equal(bigIntToIp(ipToBigInt(ip), 6), ip);
        assert.equal(ipToBigInt("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"), 2n ** 128n - 1n);
        assert.equal(bigIntToIp(ipToBigInt("fd00::ffff") + 1n, 6), "fd00::1:0");
        assert.equal(bigIntToIp(ipToBigInt("172.22.0.255") + 1n, 4), "172.22.1.0");
        assert.equal(rangeSize("fd00::1000", "fd00::1fff"), 4096n);
        assert.equal(rangeSize("fd00::", "fd00::ffff:ffff:ffff:ffff"), 2n ** 64n, "a whole /64, beyond 2^53");
        assert.equal(rangeSize("fd00::2", "fd00::1"), 0n);
    });

    it("tells the families apart; no zone, no shorthand IPv4", function () {
        assert.equal(ipFamily("172.22.0.2"), 4);
        assert.equal(ipFamily("fd00:1::2"), 6);
        for (const bad of ["fe80::1%eth0", "172.22.2", "0x0a.0.0.1", "fd00::1::2", "host", ""]) assert.equal(ipFamily(bad), undefined, bad);
        assert.ok(sameIp("fd00:0:0::1", "fd00::1"));
        assert.ok(!sameIp("::ffff:172.22.0.2", "172.22.0.2"), "a mapped address is another family");
        assert.deepEqual(["fd00::2", "172.22.0.10", "fd00::10", "172.22.0.9"].sort(compareIps), ["172.22.0.9", "172.22.0.10", "fd00::2", "fd00::10"]);
    });

    it("URLs: IPv6 hosts in brackets, IPv4 and names as they are, a placeholder bracketed when the family is IPv6", function () {
        assert.equal(urlOf("http", "fd00:1::2", 6180), "http://[fd00:1::2]:6180");
        assert.equal(urlOf("tftp", "fd00:1::2"), "tftp://[fd00:1::2]");
        assert.equal(urlOf("https", "172.22.0.2", 6385), "https://172.22.0.2:6385");
        assert.equal(urlOf("https", "ironic.metal3.svc", 6385), "https://ironic.metal3.svc:6385");
        assert.equal(urlOf("http", "__CONDUCTOR_IP__", 6180, 6), "http://[__CONDUCTOR_IP__]:6180");
        assert.equal(urlOf("http", "__CONDUCTOR_IP__", 6180, 4), "http://__CONDUCTOR_IP__:6180");
        assert.equal(urlHost("172.22.0.2", 6), "172.22.0.2", "an IPv4 address is never bracketed");
    });
});
