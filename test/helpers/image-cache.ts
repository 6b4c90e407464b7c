/**
 * The IPA image cache for pod tests of the Ironic pods: the stack's cache pod, run as declared
 * (pod-runner.ts), on a volume that already holds the rendered version of every architecture
 * (as a cache that downloaded it earlier with the stand-in downloader would:
 * versions/<arch>/<key>-<downloader>/ with SHA256SUMS and the "complete" marker, current/<arch>
 * pointing at it; <downloader> named as assets/ipa-cache-sync.sh names it), stand-in files or, for
 * the tests that boot the agent, the real ramdisk of tools/ipa-ramdisk/build.sh for x86_64. Its downloader init containers then find
 * their version current and download nothing; its server serves it over HTTPS. The Ironic pods'
 * cache client reaches it through the Service name, which `hosts` maps to the node's loopback.
 * test/integration/image-cache.test.ts shows the real downloads against a counting server.
 */
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";

import type { Rendered } from "../../tools/render";
import type { IpaRamdisk } from "./ipa";
import { ClusterData, imageOf as imageOfRef, PodRunner, StandinImage } from "./pod-runner";
import { run } from "./sys";

export class ImageCacheLab {
    private readonly served = new Map<string, PodRunner>();
    private readonly spec: any;
    private readonly service: any;

    /** `ipa`: a real ramdisk (test/helpers/ipa.ts) the cache holds for x86_64 instead of the stand-in files. */
    constructor(private readonly o: { rendered: Rendered; cluster: ClusterData; images: Record<string, StandinImage>; work: string; ipa?: IpaRamdisk }) {
        const dep = o.rendered.objects.find((x) => x.kind === "Deployment" && x.metadata.labels?.["app.kubernetes.io/name"] === "ipa-cache");
        if (!dep) throw new Error("the stack renders no IPA image cache (imageCache.mode deploy)");
        this.spec = dep.spec.template.spec;
        this.service = o.rendered.objects.find((x) => x.kind === "Service" && x.metadata.name === dep.metadata.name);
        this.seed();
    }

    /** Cluster DNS stand-in for the cache Service: the cache pod listens in the same namespace. */
    get hosts(): Record<string, string> {
        const n = this.service.metadata;
        return { [`${n.name}.${n.namespace}.svc`]: "127.0.0.1" };
    }

    /** The IPA kernel content of `arch` the seeded cache serves. */
    static kernel(arch: string): string {
        return `stand-in IPA kernel ${arch}\n`;
    }

    /**
     * The version directory the sync script of `c` names for the stand-in downloader: the plan's
     * key, then the sha256 of the downloader's program and the variables that select the tarball
     * (assets/ipa-cache-sync.sh, "identity"). The image's ENV, then the container's, as the runner sets them.
     */
    private version(c: any): string {
        const env: Record<string, string> = { ...(imageOfRef(this.o.images, c.image).env ?? {}), ...Object.fromEntries(c.env.map((e: any) => [e.name, e.value])) };
        const program = "/usr/local/bin/get-resource.sh";
        const sha = (b: string | Buffer) => createHash("sha256").update(b).digest("hex");
        const lines = [`program ${sha(fs.readFileSync(path.join(imageOfRef(this.o.images, c.image).layer, program)))} ${program}`];
        for (const v of ["IPA_BASEURI", "IPA_BRANCH", "IPA_FLAVOR", "IPA_FILENAME"]) lines.push(`${v}=${env[v] ?? ""}`);
        return `${env.IPA_CACHE_KEY}-${sha(lines.join("\n") + "\n")}`;
    }

    private seed() {
        const claim = this.spec.volumes.find((v: any) => v.persistentVolumeClaim).persistentVolumeClaim.claimName;
        const data = path.join(this.o.work, "pv", claim);
        for (const c of this.spec.initContainers) {
            const env = Object.fromEntries(c.env.map((e: any) => [e.name, e.value]));
            const version = this.version(c);
            const dir = path.join(data, "versions", env.IPA_ARCH, version);
            fs.mkdirSync(dir, { recursive: true });
            if (this.o.ipa && env.IPA_ARCH === "x86_64") {
                fs.copyFileSync(this.o.ipa.kernel, path.join(dir, "ironic-python-agent.kernel"));
                fs.copyFileSync(this.o.ipa.initramfs, path.join(dir, "ironic-python-agent.initramfs"));
            } else {
                fs.writeFileSync(path.join(dir, "ironic-python-agent.kernel"), ImageCacheLab.kernel(env.IPA_ARCH));
                fs.writeFileSync(path.join(dir, "ironic-python-agent.initramfs"), `stand-in IPA initramfs ${env.IPA_ARCH}\n`);
            }
            run("bash", ["-c", `cd "$1" && sha256sum ironic-python-agent.kernel ironic-python-agent.initramfs > SHA256SUMS && echo "$2" > complete`, "-", dir, version]);
            fs.mkdirSync(path.join(data, "current"), { recursive: true });
            fs.symlinkSync(`../versions/${env.IPA_ARCH}/${version}`, path.join(data, "current", env.IPA_ARCH));
        }
        run("chown", ["-R", "997:994", data]);
    }

    /** Start the cache pod in `netns` (once per namespace): its init containers, then its server, ready. */
    async serve(netns: string): Promise<PodRunner> {
        const had = this.served.get(netns);
        if (had) return had;
        const p = new PodRunner({ name: `ipa-cache-${this.served.size}`, namespace: "metal3", spec: this.spec, cluster: this.o.cluster, images: this.o.images, work: this.o.work, netns, nodeName: "cp-0", hostIP: "127.0.0.1", podIP: "127.0.0.1" });
        this.served.set(netns, p);
        await p.runInitContainers();
        for (const c of this.spec.initContainers) {
            if (!/nothing to download/.test(p.logs(c.name))) throw new Error(`${c.name} did not find its version current:\n${p.logs(c.name)}`);
        }
        p.startContainers();
        await p.waitReady("server", 60000);
        return p;
    }

    /** Stops every cache pod at once (its server, python as PID 1 without a SIGTERM handler, waits out the grace period). */
    async stop(): Promise<void> {
        await Promise.all([...this.served.values()].map((p) => p.stop()));
    }
}
