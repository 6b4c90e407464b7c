/**
 * `ironic`: Ironic's own settings: the API user, any ironic.conf option, the ramdisk's kernel
 * parameters and SSH key, automated cleaning, and the IPA defaults of the image cache. Its schema,
 * defaults, resolved type and documentation in one place (core/config/section.ts).
 */
import { z } from "zod";

import type { SectionBlocks, SectionDocs } from "./section";
import { httpUrl, kernelParams, osloValue, pathWord, sshPublicKey } from "./strings";

/** oslo.config group/option names: what the OS_<GROUP>__<OPTION> variables address. */
export const osloKey = z
    .string()
    .regex(/^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/, "must be <group>.<option> in lower case, e.g. conductor.deploy_callback_timeout");

/** The `ironic` section. */
export function ironicSection({ strict }: SectionBlocks) {
    return strict({
        apiUsername: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be 1-64 characters of letters, digits, '_', '.', '-'").optional(),
        config: z.record(osloKey, osloValue).optional(),
        kernelParams: kernelParams.optional(),
        ramdiskSshKey: sshPublicKey.optional(),
        automatedClean: z.boolean().optional(),
        ipa: strict({
            baseUri: httpUrl.optional(),
            branch: pathWord("an IPA branch such as master or stable/2024.1", 100, true).optional(),
            flavor: pathWord("an IPA flavor such as centos9", 64, false).optional(),
        }).optional(),
    });
}

type Parsed = z.infer<ReturnType<typeof ironicSection>> | undefined;

/** Defaults: API user `metal3` (its password generated), no extra options, automated cleaning on. */
export function resolveIronic(i: Parsed) {
    return {
        apiUsername: i?.apiUsername ?? "metal3",
        config: i?.config ?? {},
        kernelParams: i?.kernelParams,
        ramdiskSshKey: i?.ramdiskSshKey,
        automatedClean: i?.automatedClean ?? true,
        /** The defaults of every imageCache.ipa entry (image-cache.ts). */
        ipa: i?.ipa ?? {},
    };
}

/** What StackConfig holds for `ironic`. */
export type IronicConfig = ReturnType<typeof resolveIronic>;

export const IRONIC_DOCS: SectionDocs = {
    description: "Ironic settings: API user, ironic.conf options, ramdisk.",
    reference: [
        { keys: ["ironic.apiUsername"], type: "string", default: "`metal3`", notes: "the password is generated" },
        { keys: ["ironic.config"], type: "map `group.option` → value", default: "`{}`", notes: "any ironic.conf option, set as `OS_<GROUP>__<OPTION>`; e.g. `conductor.deploy_callback_timeout: 3600`; string values ≤ 4096 characters, no control characters (newline, tab, …)" },
        { keys: ["ironic.kernelParams"], type: "string", default: "—", notes: "appended to the ramdisk kernel command line (ironic.conf and the iPXE script): space-separated `key` or `key=value`, e.g. `console=ttyS0,115200n8 ipa-insecure=1`; values of letters, digits and `_ . , : / = + @ - [ ]` (no quotes, `\\`, `$`, `` ` ``, `|`, `&`, `;`). Together with the key's ` sshkey=\"…\"` at most 1536 bytes: the kernel keeps 2048 (x86_64, arm64) and Ironic adds its own" },
        { keys: ["ironic.ramdiskSshKey"], type: "SSH public key", default: "—", notes: "for debugging IPA; one OpenSSH public key line (`ssh-ed25519 AAAA… ops@bastion-1`), the key must decode and match its type; the comment may hold only letters, digits, spaces and `@ . _ + : , = / -` (it lands inside `sshkey=\"…\"`)" },
        { keys: ["ironic.automatedClean"], type: "bool", default: "`true`" },
        { keys: ["ironic.ipa.baseUri","ironic.ipa.branch","ironic.ipa.flavor"], type: "strings", default: "image defaults", notes: "the defaults of every `imageCache.ipa` entry: where the cache's downloader fetches IPA; `baseUri` an `http(s)://` URL without spaces or quotes, `branch` like `stable/2024.1`, `flavor` like `centos9`" },
    ],
};
