/**
 * baremetal-operator's release manifests from the Go module proxy (core/bmo-release.ts and its
 * I/O shell components/bmo-release.ts), on small module zips made here: the hash against values
 * computed by hand and by Go, the loading, caching and refusals. The real v0.13.2 zip (its go.sum
 * line, its objects against the real kustomize) is test/integration/bmo-release.test.ts's. Network
 * traffic stays on 127.0.0.1: a local HTTP server stands in for proxy.golang.org.
 */
import { strict as assert } from "assert";
import { createHash } from "crypto";
import { strToU8, zipSync } from "fflate";
import * as fs from "fs";
import * as http from "http";
import type { AddressInfo } from "net";
import * as path from "path";
import { pathToFileURL } from "url";

import { bmoCacheDir, loadBmoRelease, MAX_ZIP_BYTES } from "../../components/bmo-release";
import { BMO_MODULE, BMO_PINNED, type ZipFile, goProxyZipUrl, hash1, releaseConfig, unzipFiles } from "../../core/bmo-release";
import { tmpDir } from "../helpers/sys";

const ZIP_PATH = "github.com/metal3-io/baremetal-operator/@v/v0.13.2.zip";
/** A module zip shaped like the release's: its files under `<module>@<version>/`, a config/ tree. */
const MODULE_ZIP = Buffer.from(
    zipSync({
        "github.com/metal3-io/baremetal-operator@v0.13.2/config/README.md": strToU8("config\n"),
        "github.com/metal3-io/baremetal-operator@v0.13.2/config/base/manager.yaml": strToU8("kind: Deployment\n"),
        "github.com/metal3-io/baremetal-operator@v0.13.2/config/base/crds/bases/metal3.io_baremetalhosts.yaml": strToU8("kind: CustomResourceDefinition\n"),
        "github.com/metal3-io/baremetal-operator@v0.13.2/main.go": strToU8("package main\n"),
    }),
);
const MODULE_H1 = hash1(unzipFiles(MODULE_ZIP));

/** Every file below `dir`, relative to it. */
const filesUnder = (dir: string): string[] =>
    fs.existsSync(dir) ? (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[]).filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name))).sort() : [];

describe("bmo release: module zip, hash and config tree (core)", function () {
    it("escapes module paths and versions per the GOPROXY protocol", function () {
        assert.equal(goProxyZipUrl("https://proxy.golang.org", BMO_MODULE, "v0.13.2"), "https://proxy.golang.org/github.com/metal3-io/baremetal-operator/@v/v0.13.2.zip");
        assert.equal(goProxyZipUrl("https://p.example/go/", "github.com/BurntSushi/toml", "v1.0.0-RC1"), "https://p.example/go/github.com/!burnt!sushi/toml/@v/v1.0.0-!r!c1.zip");
        assert.throws(() => goProxyZipUrl("https://p", "example.com/!x", "v1.0.0"), /"!" is not allowed/);
    });

    it("hash1 of a hand-made zip equals the h1 worked out from its explicit lines", function () {
        // Names are out of order in the zip, and "～" (U+FF5E) sorts before "😀" as UTF-8 bytes (Go's order) but after it as UTF-16.
        const zip = zipSync({ "m@v1/b.txt": strToU8("hello\n"), "m@v1/😀": strToU8(""), "m@v1/～": strToU8("hello\n"), "m@v1/a/x": strToU8("") });
        const lines =
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  m@v1/a/x\n" +
            "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03  m@v1/b.txt\n" +
            "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03  m@v1/～\n" +
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  m@v1/😀\n";
        const files = unzipFiles(zip);
        assert.deepEqual(files.map((f) => f.name).sort(), ["m@v1/a/x", "m@v1/b.txt", "m@v1/～", "m@v1/😀"].sort());
        assert.equal(hash1(files), `h1:${createHash("sha256").update(lines).digest("base64")}`);
        // What Go's golang.org/x/mod/sumdb/dirhash.HashZip(zip, Hash1) returns for this zip (v0.29.0).
        assert.equal(hash1(files), "h1:tDDAtoEdiib5O0z1O4xjxOpMLV8AWyqgr33VzZm0zak=");
        assert.equal(hash1(files), hash1([...files].reverse()), "input order does not matter");
        assert.throws(() => hash1([{ name: "m@v1/a\nb", data: new Uint8Array() }]), /newline/);
    });

    it("unzipFiles refuses a zip with two entries of the same name (fflate would keep only one)", function () {
        const zip = Buffer.from(zipSync({ "m@v1/dupA": strToU8("one"), "m@v1/dupB": strToU8("two") }));
        const renamed = Buffer.from(zip.toString("latin1").split("m@v1/dupB").join("m@v1/dupA"), "latin1");
        assert.throws(() => unzipFiles(renamed), /two entries named "m@v1\/dupA"/);
        assert.throws(() => unzipFiles(strToU8("not a zip at all, not even close to one")), /invalid zip/);
    });

    it("releaseConfig keeps config/ only, relative and sorted, and refuses a zip without config/base/manager.yaml", function () {
        const f = (name: string, text = name): ZipFile => ({ name, data: strToU8(text) });
        const files = [f("m@v1/config/z.yaml"), f("m@v1/config/"), f("m@v1/config/base/manager.yaml", "kind: Deployment\n"), f("m@v1/main.go"), f("other@v1/config/x.yaml")];
        const config = releaseConfig(files, "m", "v1");
        assert.deepEqual([...config.keys()], ["base/manager.yaml", "z.yaml"]);
        assert.equal(config.get("base/manager.yaml"), "kind: Deployment\n");
        assert.throws(() => releaseConfig([f("m@v1/config/z.yaml")], "m", "v1"), /no config\/base\/manager\.yaml.*bmo\.version/);
    });
});

describe("bmo release: loading through a Go module proxy, with a cache (components)", function () {
    this.timeout(30000);
    let work: string;
    beforeEach(() => (work = tmpDir("bmo-release")));
    afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

    const pinned = (goproxy: string, cacheDir: string) => ({ version: "v0.13.2", h1: MODULE_H1, goproxy, cacheDir });
    const cachedZip = (cacheDir: string) => path.join(cacheDir, "bmo", "github.com/metal3-io/baremetal-operator@v0.13.2.zip");
    /** A file:// proxy in `work` serving `zip` as the release. */
    const fileProxy = (zip: Uint8Array) => {
        const root = path.join(work, "proxy");
        fs.mkdirSync(path.dirname(path.join(root, ZIP_PATH)), { recursive: true });
        fs.writeFileSync(path.join(root, ZIP_PATH), zip);
        return pathToFileURL(root).href;
    };

    it("takes the cache root from METAL3_IRONIC_CACHE, else XDG_CACHE_HOME, else ~/.cache", function () {
        assert.equal(bmoCacheDir({ METAL3_IRONIC_CACHE: "/c", XDG_CACHE_HOME: "/x" }), "/c");
        assert.equal(bmoCacheDir({ XDG_CACHE_HOME: "/x" }), "/x/metal3-ironic");
        assert.match(bmoCacheDir({}), /\/\.cache\/metal3-ironic$/);
    });

    it("fills the cache from a file:// proxy, then reads the cache with the proxy gone", async function () {
        const cache = path.join(work, "cache");
        const proxy = fileProxy(MODULE_ZIP);
        const first = await loadBmoRelease(pinned(proxy, cache));
        assert.equal(first.source, `${proxy}/${ZIP_PATH}`);
        assert.deepEqual([...first.config.keys()], ["README.md", "base/crds/bases/metal3.io_baremetalhosts.yaml", "base/manager.yaml"]);
        assert.deepEqual(filesUnder(cache), ["bmo/github.com/metal3-io/baremetal-operator@v0.13.2.zip"], "one file, no temporary left");
        assert.ok(fs.readFileSync(cachedZip(cache)).equals(MODULE_ZIP));

        const second = await loadBmoRelease(pinned(pathToFileURL(path.join(work, "no-such-proxy")).href, cache));
        assert.equal(second.source, cachedZip(cache));
        assert.deepEqual([...second.config], [...first.config]);
    });

    it("replaces a cached zip that no longer has its hash", async function () {
        const cache = path.join(work, "cache");
        fs.mkdirSync(path.dirname(cachedZip(cache)), { recursive: true });
        fs.writeFileSync(cachedZip(cache), "rotten");
        const r = await loadBmoRelease(pinned(fileProxy(MODULE_ZIP), cache));
        assert.notEqual(r.source, cachedZip(cache));
        assert.ok(fs.readFileSync(cachedZip(cache)).equals(MODULE_ZIP));
    });

    it("refuses a zip with one byte changed, saying expected and got, and caches nothing", async function () {
        const zip = Buffer.from(MODULE_ZIP);
        // One byte of a name in the central directory (the copy fflate reads): config/README.md becomes config/rEADME.md.
        const at = zip.lastIndexOf("baremetal-operator@v0.13.2/config/README.md") + "baremetal-operator@v0.13.2/config/".length;
        assert.equal(String.fromCharCode(zip[at]), "R");
        zip[at] = "r".charCodeAt(0);
        const cache = path.join(work, "cache");
        await assert.rejects(loadBmoRelease(pinned(fileProxy(zip), cache)), (e: Error) => {
            assert.ok(e.message.startsWith(`checksum mismatch for github.com/metal3-io/baremetal-operator@v0.13.2 from file://`), e.message);
            assert.match(e.message, new RegExp(`: expected ${MODULE_H1.replace(/[+/]/g, "\\$&")} \\(bmo\\.checksum\\), got h1:\\S+; nothing was cached`));
            assert.ok(!e.message.includes("\n"), "one line");
            return true;
        });
        assert.deepEqual(filesUnder(cache), []);
    });

    it("refuses what is not a zip, naming bmo.goproxy, and caches nothing", async function () {
        const cache = path.join(work, "cache");
        await assert.rejects(loadBmoRelease(pinned(fileProxy(strToU8("<html>captive portal</html>".padEnd(200))), cache)), /is not a usable module zip \(invalid zip data\); point bmo\.goproxy at/);
        assert.deepEqual(filesUnder(cache), []);
    });

    it("says which URL, why and which key when the proxy is unreachable", async function () {
        const port = await new Promise<number>((resolve) => {
            const s = http.createServer().listen(0, "127.0.0.1", () => {
                const p = (s.address() as AddressInfo).port;
                s.close(() => resolve(p));
            });
        });
        const cache = path.join(work, "cache");
        await assert.rejects(loadBmoRelease(pinned(`http://127.0.0.1:${port}`, cache)), (e: Error) => {
            assert.match(e.message, new RegExp(`^cannot download github\\.com/metal3-io/baremetal-operator from http://127\\.0\\.0\\.1:${port}/${ZIP_PATH}: .*ECONNREFUSED.*; set bmo\\.goproxy to a reachable Go module proxy`));
            assert.ok(!e.message.includes("\n"), "one line");
            return true;
        });
        assert.deepEqual(filesUnder(cache), []);
    });

    describe("over HTTP (a local server standing in for the proxy)", function () {
        let server: http.Server;
        let base: string;
        const requests: string[] = [];
        before(async function () {
            server = http.createServer((req, res) => {
                requests.push(req.url!);
                if (req.url!.startsWith("/declared-proxy/")) {
                    res.writeHead(302, { location: "/huge/declared.zip" }).end();
                } else if (req.url!.startsWith("/endless-proxy/")) {
                    res.writeHead(302, { location: "/huge/endless.zip" }).end();
                } else if (req.url!.startsWith("/moved/")) {
                    res.writeHead(302, { location: `/goproxy/${req.url!.slice("/moved/".length)}` }).end();
                } else if (req.url === "/huge/declared.zip") {
                    // Announces more than a module zip may weigh: refused before the body is read.
                    res.writeHead(200, { "content-length": String(MAX_ZIP_BYTES + 1) });
                    res.write("PK");
                } else if (req.url === "/huge/endless.zip") {
                    // No length, 1 MiB after 1 MiB: cut off once past the limit.
                    res.writeHead(200, { "content-type": "application/zip" });
                    const mib = Buffer.alloc(1024 * 1024, 0x50);
                    const more = () => {
                        while (!res.destroyed && res.write(mib));
                        if (!res.destroyed) res.once("drain", more);
                    };
                    res.on("close", () => res.removeAllListeners("drain"));
                    more();
                } else if (req.url === `/goproxy/${ZIP_PATH}`) {
                    res.writeHead(200, { "content-type": "application/zip" }).end(MODULE_ZIP);
                } else {
                    res.writeHead(404).end("not found");
                }
            });
            await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
            base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        });
        after(() => new Promise<void>((resolve) => server.close(() => resolve())));
        beforeEach(() => (requests.length = 0));

        it("follows a redirect to the zip, verifies and caches it", async function () {
            const cache = path.join(work, "cache");
            const r = await loadBmoRelease(pinned(`${base}/moved/`, cache));
            assert.deepEqual(requests, [`/moved/${ZIP_PATH}`, `/goproxy/${ZIP_PATH}`]);
            assert.equal(r.source, `${base}/moved/${ZIP_PATH}`);
            assert.equal(r.config.get("base/manager.yaml"), "kind: Deployment\n");
            assert.ok(fs.readFileSync(cachedZip(cache)).equals(MODULE_ZIP));
        });

        it("a zip heavier than a module zip may be is refused, announced or not, and nothing is cached", async function () {
            const cache = path.join(work, "cache");
            // The proxy path is fixed by the protocol: each answer is behind a redirect.
            const declared = await loadBmoRelease({ version: "v0.13.2", h1: MODULE_H1, goproxy: `${base}/declared-proxy`, cacheDir: cache }).then(
                () => "loaded",
                (e: Error) => e.message,
            );
            assert.match(declared, new RegExp(`it announces ${MAX_ZIP_BYTES + 1} bytes, more than a module zip of ${MAX_ZIP_BYTES} bytes at most`));
            const endless = await loadBmoRelease({ version: "v0.13.2", h1: MODULE_H1, goproxy: `${base}/endless-proxy`, cacheDir: cache }).then(
                () => "loaded",
                (e: Error) => e.message,
            );
            assert.match(endless, new RegExp(`more than ${MAX_ZIP_BYTES} bytes, more than a module zip weighs`));
            assert.deepEqual(filesUnder(cache), []);
        });

        it("a version the proxy does not have is an HTTP 404 that points at bmo.version", async function () {
            const cache = path.join(work, "cache");
            await assert.rejects(loadBmoRelease({ version: "v0.0.0-nope", h1: BMO_PINNED.h1, goproxy: `${base}/goproxy`, cacheDir: cache }), /from http:\/\/127\.0\.0\.1:\d+\/goproxy\/github\.com\/metal3-io\/baremetal-operator\/@v\/v0\.0\.0-nope\.zip: HTTP 404 Not Found \(the proxy does not have this version: check bmo\.version\); set bmo\.goproxy/);
            assert.deepEqual(filesUnder(cache), []);
        });
    });
});
