/** Env files the start wrapper sources (core/render/envfile.ts): sorted, every value single-quoted. */
import { strict as assert } from "assert";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

import { renderEnvFile, shellQuote } from "../../../core/render/envfile";
import * as conductor from "../../../core/plan/conductor";

describe("render/envfile", function () {
    it("shellQuote: single quotes, with an embedded quote closed, escaped and reopened", function () {
        assert.equal(shellQuote("plain"), "'plain'");
        assert.equal(shellQuote(""), "''");
        assert.equal(shellQuote("it's"), `'it'\\''s'`);
        assert.equal(shellQuote("$HOME `id` \\n"), "'$HOME `id` \\n'");
    });

    it("renderEnvFile: one KEY='value' line per variable, sorted by name, ending in a newline", function () {
        assert.equal(
            renderEnvFile({ PROVISIONING_IP: "172.22.0.3", IRONIC_CONDUCTOR_HOST: "172.22.0.3", PROVISIONING_INTERFACE: "eth1" }),
            "IRONIC_CONDUCTOR_HOST='172.22.0.3'\nPROVISIONING_INTERFACE='eth1'\nPROVISIONING_IP='172.22.0.3'\n",
        );
        assert.equal(renderEnvFile({}), "\n");
    });

    it("bash reads back exactly the values, none expanded", function () {
        const env = { ODD: "it's $HOME and `id`", SPACES: "a  b", NEWLINE: "x\ny" };
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "envfile-"));
        const file = path.join(dir, "node.env");
        fs.writeFileSync(file, renderEnvFile(env));
        const script = `set -a; . "$1"; set +a; printf '%s\\0' "$ODD" "$SPACES" "$NEWLINE"`;
        const r = spawnSync("bash", ["-c", script, "bash", file], { encoding: "utf8" });
        fs.rmSync(dir, { recursive: true, force: true });
        assert.equal(r.status, 0, r.stderr);
        assert.deepEqual(r.stdout.split("\0").slice(0, 3), [env.ODD, env.SPACES, env.NEWLINE]);
    });

    it("core/plan/conductor still exports both (for its importers)", function () {
        assert.equal(conductor.shellQuote, shellQuote);
        assert.equal(conductor.renderEnvFile, renderEnvFile);
    });
});
