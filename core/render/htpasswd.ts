/** htpasswd files (Apache basic auth), as Ironic's API and JSON-RPC read them. */

/** htpasswd file content for one user: `user:<bcrypt hash>` and a newline. */
export function htpasswdLine(username: string, bcryptHash: string): string {
    return `${username}:${bcryptHash}\n`;
}
