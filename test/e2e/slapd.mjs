// Starts a throwaway OpenLDAP server (Debian's `slapd`) on a free loopback port with a temporary
// `slapd.conf` (-f) and an mdb database, and loads a tree with `ldapadd`: people and groups of both
// kinds (groupOfNames with `member` DNs, posixGroup with `memberUid`). Used by directory_links.test.mjs.
// Not a test file itself. `available()` is false without slapd and ldap-utils (.ci/run installs them).
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { freePort } from "./server.mjs";

export const SUFFIX = "dc=example,dc=org";
export const ADMIN_DN = `cn=admin,${SUFFIX}`;
export const ADMIN_PASSWORD = "directory-secret";

const SLAPD = ["/usr/sbin/slapd", "slapd"].find((bin) => spawnSync(bin, ["-VV"], { stdio: "ignore" }).error === undefined);

export function available() {
  return SLAPD !== undefined && spawnSync("ldapadd", ["-VV"], { stdio: "ignore" }).error === undefined;
}

export const person = (uid) => `uid=${uid},ou=people,${SUFFIX}`;

/** The tree: `people` (alice, bob, carol, dave) and `groups`: developers (alice, bob), admins (carol), ops (posix: dave). */
function tree() {
  const people = ["alice", "bob", "carol", "dave"].map(
    (uid, i) => `dn: ${person(uid)}\nobjectClass: inetOrgPerson\nuid: ${uid}\ncn: ${uid}\nsn: ${uid}\nmail: ${uid}@example.org\nemployeeType: ${i < 2 ? "staff" : "contractor"}\n`,
  );
  return [
    `dn: ${SUFFIX}\nobjectClass: dcObject\nobjectClass: organization\ndc: example\no: Example\n`,
    `dn: ou=people,${SUFFIX}\nobjectClass: organizationalUnit\nou: people\n`,
    `dn: ou=groups,${SUFFIX}\nobjectClass: organizationalUnit\nou: groups\n`,
    ...people,
    `dn: cn=developers,ou=groups,${SUFFIX}\nobjectClass: groupOfNames\ncn: developers\nmember: ${person("alice")}\nmember: ${person("bob")}\n`,
    `dn: cn=devops,ou=groups,${SUFFIX}\nobjectClass: groupOfNames\ncn: devops\nmember: ${person("bob")}\n`,
    `dn: cn=admins,ou=groups,${SUFFIX}\nobjectClass: groupOfNames\ncn: admins\nmember: ${person("carol")}\n`,
    `dn: cn=ops,ou=groups,${SUFFIX}\nobjectClass: posixGroup\ncn: ops\ngidNumber: 5000\nmemberUid: dave\n`,
  ].join("\n");
}

/** Runs an ldap-utils command against the server (ldapadd, ldapmodify, ldapdelete) with the admin's bind. */
export function ldapTool(url, tool, ldif, extra = []) {
  const r = spawnSync(tool, ["-x", "-H", url, "-D", ADMIN_DN, "-w", ADMIN_PASSWORD, ...extra], { input: ldif, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${tool} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** @returns {Promise<{ url: string, host: string, port: number, stop: () => Promise<void> }>} */
export async function startSlapd(dir) {
  mkdirSync(path.join(dir, "data"), { recursive: true });
  const conf = path.join(dir, "slapd.conf");
  writeFileSync(
    conf,
    [
      ...["core", "cosine", "inetorgperson", "nis"].map((s) => `include /etc/ldap/schema/${s}.schema`),
      `pidfile ${path.join(dir, "slapd.pid")}`,
      "modulepath /usr/lib/ldap",
      "moduleload back_mdb",
      "database mdb",
      `suffix "${SUFFIX}"`,
      `rootdn "${ADMIN_DN}"`,
      `rootpw ${ADMIN_PASSWORD}`,
      `directory ${path.join(dir, "data")}`,
      "maxsize 10485760",
      "",
    ].join("\n"),
  );
  const port = await freePort();
  const url = `ldap://127.0.0.1:${port}`;
  // -d 0: stay in the foreground (the test owns the process) without debug output.
  const child = spawn(SLAPD, ["-f", conf, "-h", `${url}/`, "-d", "0"], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  for (let i = 0; ; i++) {
    const probe = spawnSync("ldapsearch", ["-x", "-H", url, "-b", "", "-s", "base", "(objectClass=*)"], { encoding: "utf8" });
    if (probe.status === 0) break;
    if (child.exitCode !== null || i > 100) throw new Error(`slapd did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  ldapTool(url, "ldapadd", tree());
  return {
    url,
    host: "127.0.0.1",
    port,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}
