/**
 * The scripts under assets/ against the contract (core/contract.ts): the wrapper reads every
 * WRAPPER_ENV variable and defaults to the CONDUCTOR_PATHS it documents, the pruner reads every
 * PRUNER_ENV variable and nothing else, and both reach the scripts ConfigMap byte for byte under
 * their file names. The names are written literally in the scripts, so a rename on one side only
 * fails here. The checkers are also run on edited texts, so they cannot pass blindly.
 */
import { strict as assert } from "assert";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";

import { COMMANDS, CONDUCTOR_PATHS, DNSMASQ_START_SCRIPT, PRUNER_ENV, PRUNER_SCRIPT, WRAPPER_ENV } from "../../../core/contract";
import { scriptsConfigMapData } from "../../../core/manifests";
import { renderConductorWrapper } from "../../../core/plan/conductor";
import { ASSET_NAMES, ASSETS_DIR, READINESS_SCRIPT, readAsset } from "../../../core/render/assets";
import { READINESS_ENV, readinessPlan } from "../../../core/plan/readiness";
import { renderPrunerScript } from "../../../core/render/pruner";
import { haRaw, planOf } from "../plan/support";

const ROOT = path.join(__dirname, "..", "..", "..");
const raw = (name: string) => fs.readFileSync(path.join(ROOT, "assets", name), "utf8");

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Variables a bash script reads as `${NAME:-default}` or `${NAME}` / `$NAME`. */
function shellReads(script: string): Set<string> {
    return new Set([...script.matchAll(/\$\{?([A-Z_][A-Z0-9_]*)/g)].map((m) => m[1]));
}

/** Variables a Python script reads as `os.environ["NAME"]` or `os.environ.get("NAME"…)`. */
function pythonReads(script: string): Set<string> {
    return new Set([...script.matchAll(/os\.environ(?:\[|\.get\()\s*"([A-Za-z_][A-Za-z0-9_]*)"/g)].map((m) => m[1]));
}

/** Contract names the script does not read (`expected` minus `reads`). */
function missing(expected: readonly string[], reads: Set<string>): string[] {
    return expected.filter((n) => !reads.has(n));
}

/** CONDUCTOR_PATHS values the wrapper must mention: the defaults it falls back to and its own name. */
const WRAPPER_PATHS = [CONDUCTOR_PATHS.nodeData, CONDUCTOR_PATHS.conductorCa, CONDUCTOR_PATHS.scripts, CONDUCTOR_PATHS.wrapper, CONDUCTOR_PATHS.certMinter];

/** Paths the script does not contain as a whole (not as part of a longer path or name). */
function missingPaths(script: string, paths: readonly string[]): string[] {
    return paths.filter((p) => !new RegExp(`(^|[^\\w./])${escape(p)}($|[^\\w.-])`, "m").test(script));
}

describe("assets: the pod scripts as files (core/render/assets.ts)", function () {
    it("reads assets/<name> byte for byte, and the renderers return exactly that", function () {
        assert.equal(ASSETS_DIR, path.join(ROOT, "assets"));
        assert.deepEqual([...ASSET_NAMES].sort(), [CONDUCTOR_PATHS.wrapper, "conductor-cert.py", "conductor-address.py", DNSMASQ_START_SCRIPT, PRUNER_SCRIPT, "dhcp-slot-agent.py"].sort());
        for (const name of ASSET_NAMES) assert.equal(readAsset(name), raw(name), name);
        assert.equal(renderConductorWrapper(), raw("conductor-start.sh"));
        assert.equal(renderPrunerScript(), raw("dhcp-pruner.py"));
    });

    it("conductor-start.sh reads every WRAPPER_ENV variable, and no other upper-case one", function () {
        const script = raw(CONDUCTOR_PATHS.wrapper);
        const names = Object.values(WRAPPER_ENV);
        assert.deepEqual(missing(names, shellReads(script)), [], "WRAPPER_ENV variables that conductor-start.sh does not read");
        const extra = [...shellReads(script)].filter((n) => !(names as string[]).includes(n));
        assert.deepEqual(extra, [], "variables conductor-start.sh reads that WRAPPER_ENV (and so the pod template) does not set");
    });

    it("conductor-start.sh falls back to the CONDUCTOR_PATHS node data, conductor CA and scripts paths and the image's python, and names itself and the minter", function () {
        const script = raw(CONDUCTOR_PATHS.wrapper);
        assert.deepEqual(missingPaths(script, WRAPPER_PATHS), []);
        assert.ok(script.includes(`\${${WRAPPER_ENV.dataDir}:-${CONDUCTOR_PATHS.nodeData}}`), "data dir default");
        assert.ok(script.includes(`\${${WRAPPER_ENV.caDir}:-${CONDUCTOR_PATHS.conductorCa}}`), "conductor CA dir default");
        assert.ok(script.includes(`\${${WRAPPER_ENV.scriptsDir}:-${CONDUCTOR_PATHS.scripts}}`), "scripts dir default");
        assert.ok(script.includes(`\${${WRAPPER_ENV.python}:-${COMMANDS.python}}`), "python default");
    });

    it("dhcp-pruner.py reads every PRUNER_ENV variable, and no other", function () {
        const script = raw(PRUNER_SCRIPT);
        const names = Object.values(PRUNER_ENV);
        assert.deepEqual(missing(names, pythonReads(script)), [], "PRUNER_ENV variables that dhcp-pruner.py does not read");
        const extra = [...pythonReads(script)].filter((n) => !(names as string[]).includes(n));
        assert.deepEqual(extra, [], "variables dhcp-pruner.py reads that PRUNER_ENV (and so the pod template) does not set");
    });

    it("ironic-readiness.py reads every READINESS_ENV variable, and no other; the Command gets it byte for byte", function () {
        const script = raw(READINESS_SCRIPT);
        const names = Object.values(READINESS_ENV);
        assert.deepEqual(missing(names, pythonReads(script)), [], "READINESS_ENV variables that ironic-readiness.py does not read");
        const extra = [...pythonReads(script)].filter((n) => !(names as string[]).includes(n));
        assert.deepEqual(extra, [], "variables ironic-readiness.py reads that READINESS_ENV (and so components/readiness.ts) does not set");
        assert.equal(readAsset(READINESS_SCRIPT), script);
        assert.equal(readinessPlan(planOf(haRaw))!.script, script);
        assert.ok(!(ASSET_NAMES as readonly string[]).includes(READINESS_SCRIPT), "not a pod script: it runs where pulumi up runs");
    });

    it("the pruner and the readiness check read a conductor's name from Ironic 38's `<host>:<JSON-RPC port>` (IPv6 bracketed) as the host it was configured with, and both agree", function () {
        // Ironic 38 registers a conductor whose [json_rpc]port is not 8089 as host:port; the
        // program's port is 6189, so every real conductor is named so (test/integration/readiness.test.ts
        // and ironic-ha.test.ts run the real thing).
        const cases: [string, string][] = [
            ["172.22.0.2:6189", "172.22.0.2"],
            ["172.22.0.2", "172.22.0.2"],
            ["[fd00:1:2:3::2]:6189", "fd00:1:2:3::2"],
            ["[fd00:1:2:3::2]", "fd00:1:2:3::2"],
            ["fd00:1:2:3::2", "fd00:1:2:3::2"],
            ["cp-0.example.com:6189", "cp-0.example.com"],
            ["cp-0", "cp-0"],
            ["[fd00::2]junk", "[fd00::2]junk"],
        ];
        for (const script of ["dhcp-pruner.py", "ironic-readiness.py"]) {
            const probe = [
                "import importlib.util, json, os, sys",
                "os.environ.update(PRUNER_API_URL='https://x', PRUNER_HOSTSDIR='/nonexistent', PRUNER_OPTSDIR='/nonexistent', IRONIC_CONDUCTOR_HOST='[fd00::9]')",
                "spec = importlib.util.spec_from_file_location('m', sys.argv[1]); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)",
                "print(json.dumps([m.conductor_name(x) for x in json.loads(sys.argv[2])] + [getattr(m, 'ME', None)]))",
            ].join("\n");
            const r = spawnSync("python3", ["-c", probe, path.join(ROOT, "assets", script), JSON.stringify(cases.map(([x]) => x))], { encoding: "utf8", env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } });
            assert.equal(r.status, 0, r.stderr);
            const out = JSON.parse(r.stdout);
            assert.deepEqual(out.slice(0, cases.length), cases.map(([, want]) => want), script);
            if (script === "dhcp-pruner.py") assert.equal(out[cases.length], "fd00::9", "the pruner's own name, configured bracketed, compares without brackets");
        }
    });

    it("the scripts ConfigMap (ha stack) holds the wrapper and the pruner byte for byte under their file names", function () {
        const data = scriptsConfigMapData(planOf(haRaw));
        // The dnsmasq start script gets three words filled in (test/unit/render/dnsmasq.test.ts).
        for (const name of ASSET_NAMES.filter((n) => n !== DNSMASQ_START_SCRIPT)) assert.equal(data[name], raw(name), `scripts ConfigMap key ${name}`);
    });

    describe("the checks can fail", function () {
        it("a WRAPPER_ENV name missing from the wrapper, or an unknown one read, is reported", function () {
            const script = raw(CONDUCTOR_PATHS.wrapper);
            const renamed = script.split(WRAPPER_ENV.watchInterval).join("CONDUCTOR_POLL_INTERVAL");
            assert.notEqual(renamed, script);
            assert.deepEqual(missing(Object.values(WRAPPER_ENV), shellReads(renamed)), [WRAPPER_ENV.watchInterval]);
            assert.ok(shellReads(renamed).has("CONDUCTOR_POLL_INTERVAL"));
            // Still in the text (a comment, the FATAL message) but no longer expanded: not read.
            const commented = script.replace(`node="\${${WRAPPER_ENV.node}:-}"`, `node=""  # ${WRAPPER_ENV.node}`);
            assert.notEqual(commented, script);
            assert.ok(commented.includes(WRAPPER_ENV.node));
            assert.deepEqual(missing(Object.values(WRAPPER_ENV), shellReads(commented)), [WRAPPER_ENV.node]);
            const gone = script.split(WRAPPER_ENV.configMap).join("X");
            assert.deepEqual(missing(Object.values(WRAPPER_ENV), shellReads(gone)), [WRAPPER_ENV.configMap]);
        });

        it("a CONDUCTOR_PATHS path missing from the wrapper is reported (a longer path does not count)", function () {
            const script = raw(CONDUCTOR_PATHS.wrapper);
            const longer = script.split(CONDUCTOR_PATHS.conductorCa).join(`${CONDUCTOR_PATHS.conductorCa}-v2`);
            assert.deepEqual(missingPaths(longer, WRAPPER_PATHS), [CONDUCTOR_PATHS.conductorCa]);
            const moved = script.split(CONDUCTOR_PATHS.nodeData).join("/etc/metal3/conductors");
            assert.deepEqual(missingPaths(moved, WRAPPER_PATHS), [CONDUCTOR_PATHS.nodeData]);
        });

        it("a PRUNER_ENV name the pruner does not read is reported, also when it is only in a comment", function () {
            const script = raw(PRUNER_SCRIPT);
            const gone = script.replace(`os.environ.get("${PRUNER_ENV.grace}", "15")`, `"15"  # ${PRUNER_ENV.grace}`);
            assert.notEqual(gone, script);
            assert.ok(gone.includes(PRUNER_ENV.grace), "the name is still in the text");
            assert.deepEqual(missing(Object.values(PRUNER_ENV), pythonReads(gone)), [PRUNER_ENV.grace]);
            const renamed = script.split(`"${PRUNER_ENV.hostsDir}"`).join('"PRUNER_HOSTS_DIR"');
            assert.deepEqual(missing(Object.values(PRUNER_ENV), pythonReads(renamed)), [PRUNER_ENV.hostsDir]);
            assert.ok(pythonReads(renamed).has("PRUNER_HOSTS_DIR"));
        });

        it("a READINESS_ENV name the readiness check does not read is reported", function () {
            const script = raw(READINESS_SCRIPT);
            const renamed = script.split(`"${READINESS_ENV.conductors}"`).join('"READINESS_EXPECTED"');
            assert.notEqual(renamed, script);
            assert.deepEqual(missing(Object.values(READINESS_ENV), pythonReads(renamed)), [READINESS_ENV.conductors]);
            assert.ok(pythonReads(renamed).has("READINESS_EXPECTED"));
        });
    });
});
