/** htpasswd lines (core/render/htpasswd.ts), checked against bcrypt. */
import { strict as assert } from "assert";
import * as bcrypt from "bcryptjs";

import { htpasswdLine } from "../../../core/render/htpasswd";

describe("render/htpasswd: htpasswdLine", function () {
    it("user:hash and a newline", function () {
        assert.equal(htpasswdLine("metal3", "$2y$05$abcdefghijklmnopqrstuu0123456789012345678901234567890"), "metal3:$2y$05$abcdefghijklmnopqrstuu0123456789012345678901234567890\n");
    });

    it("the hash after the first colon verifies the password", function () {
        const line = htpasswdLine("ironic-rpc", bcrypt.hashSync("s3cret", 4));
        assert.match(line, /^ironic-rpc:\$2[aby]\$04\$[./A-Za-z0-9]{53}\n$/);
        const hash = line.slice(line.indexOf(":") + 1).trimEnd();
        assert.ok(bcrypt.compareSync("s3cret", hash));
        assert.ok(!bcrypt.compareSync("wrong", hash));
    });
});
