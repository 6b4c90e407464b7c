/**
 * The scripts under assets/ against their rows of the one table (core/scripts.ts): each reads
 * exactly the variables its row lists, fails without none it does not list as required, names the
 * paths its row names; every file under assets/ has a row; the pod scripts reach the scripts
 * ConfigMap byte for byte under their file names. The names are written literally in the scripts,
 * so a rename on one side only fails here. The checkers are also run on edited texts, so they
 * cannot pass blindly. (What the pods set for each script: test/components/script-env.test.ts.)
 */
import { strict as assert } from "assert";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";

import { COMMANDS, CONDUCTOR_PATHS, WRAPPER_ENV } from "../../../core/contract";
import { PRUNER_ENV } from "../../../core/pruner";
import { scriptsConfigMapData } from "../../../core/manifests";
import { renderConductorWrapper } from "../../../core/plan/conductor";
import { ASSET_NAMES, ASSETS_DIR, readAsset } from "../../../core/render/assets";
import { readinessPlan } from "../../../core/plan/readiness";
import { renderPrunerScript } from "../../../core/render/pruner";
import { READINESS_ENV, SCRIPT_FILES, SCRIPTS, type ScriptRole } from "../../../core/scripts";
import { contractProblems } from "../../helpers/script-contract";
import { haRaw, planOf } from "../plan/support";

const ROOT = path.join(__dirname, "..", "..", "..");
const raw = (name: string) => fs.readFileSync(path.join(ROOT, "assets", name), "utf8");
const ROLES = Object.keys(SCRIPTS) as ScriptRole[];

describe("assets: the scripts as files, each against its row of core/scripts.ts", function () {
    it("every file under assets/ has a row, and no row names a file that is not there", function () {
        assert.deepEqual(ROLES.map((r) => SCRIPT_FILES[r]).sort(), fs.readdirSync(path.join(ROOT, "assets")).sort());
        assert.deepEqual(Object.keys(SCRIPT_FILES).sort(), [...ROLES].sort());
    });

    it("reads assets/<name> byte for byte, and the renderers return exactly that", function () {
        assert.equal(ASSETS_DIR, path.join(ROOT, "assets"));
        assert.deepEqual([...ASSET_NAMES].sort(), ["conductor-address.py", "conductor-cert.py", "conductor-start.sh", "dhcp-pruner.py", "dhcp-slot-agent.py", "start-dnsmasq.sh"]);
        for (const r of ROLES) assert.equal(readAsset(SCRIPT_FILES[r]), raw(SCRIPT_FILES[r]), r);
        assert.equal(renderConductorWrapper(), raw("conductor-start.sh"));
        assert.equal(renderPrunerScript(), raw("dhcp-pruner.py"));
        assert.equal(readinessPlan(planOf(haRaw))!.script, raw("ironic-readiness.py"), "the readiness Command gets it byte for byte");
    });

    for (const role of ROLES) {
        const row = SCRIPTS[role];
        it(`${SCRIPT_FILES[role]} (${row.language}, ${row.shipped}): reads exactly its ${row.reads.length} variable(s), needs only the required ${JSON.stringify(row.required)}, names its paths`, function () {
            assert.deepEqual(contractProblems(row, raw(SCRIPT_FILES[role])), []);
        });
    }

    it("the wrapper falls back to the CONDUCTOR_PATHS node data, conductor CA and scripts paths and the image's python", function () {
        const script = raw(SCRIPT_FILES.wrapper);
        assert.ok(script.includes(`\${${WRAPPER_ENV.dataDir}:-${CONDUCTOR_PATHS.nodeData}}`), "data dir default");
        assert.ok(script.includes(`\${${WRAPPER_ENV.caDir}:-${CONDUCTOR_PATHS.conductorCa}}`), "conductor CA dir default");
        assert.ok(script.includes(`\${${WRAPPER_ENV.scriptsDir}:-${CONDUCTOR_PATHS.scripts}}`), "scripts dir default");
        assert.ok(script.includes(`\${${WRAPPER_ENV.python}:-${COMMANDS.python}}`), "python default");
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

    it("the scripts ConfigMap (ha stack) holds its scripts byte for byte under their file names (start-dnsmasq.sh filled in)", function () {
        const data = scriptsConfigMapData(planOf(haRaw));
        // The dnsmasq start script gets three words filled in (test/unit/render/dnsmasq.test.ts).
        for (const name of ASSET_NAMES.filter((n) => n !== SCRIPT_FILES.dnsmasqStart)) assert.equal(data[name], raw(name), `scripts ConfigMap key ${name}`);
    });

    describe("the checks can fail", function () {
        const problems = (role: ScriptRole, text: string) => contractProblems(SCRIPTS[role], text);
        const wrapper = raw(SCRIPT_FILES.wrapper);
        const pruner = raw(SCRIPT_FILES.pruner);

        it("a variable renamed in the script: the row's name is not read, the new one is not listed", function () {
            const renamed = wrapper.split(WRAPPER_ENV.watchInterval).join("CONDUCTOR_POLL_INTERVAL");
            assert.notEqual(renamed, wrapper);
            assert.deepEqual(problems("wrapper", renamed).sort(), [`listed but not read: ${WRAPPER_ENV.watchInterval}`, "read but not listed: CONDUCTOR_POLL_INTERVAL"]);
            const py = raw(SCRIPT_FILES.readiness).split(`"${READINESS_ENV.conductors}"`).join('"READINESS_EXPECTED"');
            assert.deepEqual(problems("readiness", py).sort(), [`listed but not read: ${READINESS_ENV.conductors}`, "read but not listed: READINESS_EXPECTED"]);
        });

        it("names read through ${!v} in a `for v in …` loop are read; one dropped from the loop is reported", function () {
            const sync = raw(SCRIPT_FILES.ipaCacheSync);
            const dropped = sync.replace("for v in IPA_BASEURI IPA_BRANCH IPA_FLAVOR IPA_FILENAME; do", "for v in IPA_BASEURI IPA_BRANCH IPA_FLAVOR; do");
            assert.notEqual(dropped, sync);
            assert.deepEqual(problems("ipaCacheSync", dropped), ["listed but not read: IPA_FILENAME"]);
        });

        it("a name left only in a comment or a message is not read", function () {
            const commented = wrapper.replace(`node="\${${WRAPPER_ENV.node}:-}"`, `node=""  # ${WRAPPER_ENV.node}`);
            assert.notEqual(commented, wrapper);
            assert.ok(commented.includes(WRAPPER_ENV.node));
            assert.ok(problems("wrapper", commented).includes(`listed but not read: ${WRAPPER_ENV.node}`));
            const gone = pruner.replace(`os.environ.get("${PRUNER_ENV.grace}", "15")`, `"15"  # ${PRUNER_ENV.grace}`);
            assert.notEqual(gone, pruner);
            assert.deepEqual(problems("pruner", gone), [`listed but not read: ${PRUNER_ENV.grace}`]);
        });

        it("a variable read with no default (bash ${X:?}, or only bare under set -u; Python os.environ[X]) must be required", function () {
            const demanded = wrapper.replace(`\${${WRAPPER_ENV.watchInterval}:-`, `\${${WRAPPER_ENV.watchInterval}:?`);
            assert.notEqual(demanded, wrapper);
            assert.deepEqual(problems("wrapper", demanded), [`read with no default but not required: ${WRAPPER_ENV.watchInterval}`]);
            const subscript = pruner.replace(`os.environ.get("${PRUNER_ENV.grace}", "15")`, `os.environ["${PRUNER_ENV.grace}"]`);
            assert.notEqual(subscript, pruner);
            assert.deepEqual(problems("pruner", subscript), [`read with no default but not required: ${PRUNER_ENV.grace}`]);
            const client = raw(SCRIPT_FILES.ipaCacheClient);
            const bare = client.split("${IPA_CACHE_URL:-}").join("$IPA_CACHE_URL");
            assert.notEqual(bare, client);
            assert.deepEqual(problems("ipaCacheClient", bare), ["read with no default but not required: IPA_CACHE_URL"]);
        });

        it("a path the row names that the script no longer names as a whole is reported (a longer path does not count)", function () {
            const longer = wrapper.split(CONDUCTOR_PATHS.conductorCa).join(`${CONDUCTOR_PATHS.conductorCa}-v2`);
            assert.deepEqual(problems("wrapper", longer), [`path not named: ${CONDUCTOR_PATHS.conductorCa}`]);
            const moved = wrapper.split(CONDUCTOR_PATHS.nodeData).join("/etc/metal3/conductors");
            assert.deepEqual(problems("wrapper", moved), [`path not named: ${CONDUCTOR_PATHS.nodeData}`]);
        });
    });
});
