/**
 * keepalived: the image's contract (quay.io/metal3-io/keepalived, metal3-io/utility-images
 * `keepalived/`, read 2026-04) and our own start script's (assets/keepalived-start.sh).
 *
 * The image's CMD is `/bin/bash /bin/manage-keepalived.sh`: it copies /etc/keepalived/keepalived.conf
 * (group-writable by the image's user 65532, "allow editing the keepalived.conf during startup") to
 * /conf/keepalived/, replaces `INTERFACE` with the first VIP's interface and `CHANGEIP` with the VIPs
 * of KEEPALIVED_VIRTUAL_IPS (space-separated `ip,interface[,prefix]`, each `<ip>/<prefix> dev <if>`,
 * /32 or /128 without a prefix), and runs keepalived on the copy (--dont-fork --log-console, pid files
 * in /data/keepalived). Its own template fixes `virtual_router_id 1` and has no authentication, and
 * no variable changes that: with keepalived.virtualRouterId or keepalived.passwordSecret our start
 * script writes the template (our own, with the same two placeholders) first, then runs the image's script.
 */
export const KEEPALIVED_IMAGE = {
    command: ["/bin/bash", "/bin/manage-keepalived.sh"],
    confTemplate: "/etc/keepalived/keepalived.conf",
    placeholders: { interface: "INTERFACE", ips: "CHANGEIP" },
    uid: 65532,
    gid: 65532,
} as const;

/** Our start script (its file name: core/scripts.ts): where the password Secret is mounted, the variables it reads. */
export const KEEPALIVED_START = {
    passwordDir: "/etc/metal3-ironic/vrrp",
    passwordFile: "password",
    env: { routerId: "METAL3_VRRP_ROUTER_ID", passwordFile: "METAL3_VRRP_PASSWORD_FILE" },
} as const;
