// A real OpenLDAP server (Debian's slapd) for the LDAP authentication-source tests: its own
// configuration, test CA, certificate and database in a temporary directory, on free ports of
// 127.0.0.1, driven by the harness as the database's root DN.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdir, open, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort, tempDir, waitFor } from "@anvil/core/testing";
import { Attribute, Change, Client } from "ldapts";

const run = promisify(execFile);

const SLAPD = "/usr/sbin/slapd";
const SCHEMAS = "/etc/ldap/schema";
// Debian builds the mdb backend and the overlays as loadable modules.
const MODULES = "/usr/lib/ldap";

/**
 * A private arc for the test schema: 2.25 is the UUID arc (ITU-T X.667), whose numbers anyone may
 * take without registering; this one was made from a random UUID for this file alone.
 */
const TEST_ARC = "2.25.252822610857320716384103230496331117486";

// What openssh-lpk defines, under the test arc: keys as octet strings, one key a value. The keys
// are optional so that removing a user's last key leaves the objectClass valid.
const SSH_SCHEMA = `attributetype ( ${TEST_ARC}.1.1 NAME 'sshPublicKey'
  DESC 'An OpenSSH public key, one a value'
  EQUALITY octetStringMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.40 )

objectclass ( ${TEST_ARC}.2.1 NAME 'ldapPublicKey'
  DESC 'An entry that may hold OpenSSH public keys'
  SUP top AUXILIARY
  MAY ( sshPublicKey $ uid ) )
`;

export interface DirectoryUser {
  uid: string;
  password: string;
  givenName?: string;
  /** inetOrgPerson requires a surname: the uid when none is given. */
  sn?: string;
  mail?: string;
  sshPublicKey?: string[];
  /** The organizational unit under the base DN, created when missing: "people" (usersDn) unless said. */
  ou?: string;
}

/** What modifyUser changes; null removes an optional attribute (password: no way to bind). */
export interface UserChanges {
  password?: string | null;
  givenName?: string | null;
  sn?: string;
  mail?: string | null;
  sshPublicKey?: string[] | null;
  /** Moves the entry to another organizational unit (its DN changes, its groups follow). */
  ou?: string;
}

export interface Directory {
  readonly host: "127.0.0.1";
  /** Plain LDAP, StartTLS offered. */
  readonly port: number;
  /** LDAP over TLS. */
  readonly tlsPort: number;
  readonly url: string;
  readonly tlsUrl: string;
  /** The test CA that signed slapd's certificate (subject 127.0.0.1, SAN IP:127.0.0.1 and DNS:localhost). */
  readonly caPem: string;
  readonly caFile: string;
  /** dc=anvil,dc=test */
  readonly baseDn: string;
  /** ou=people under the base DN: where users go unless told otherwise. */
  readonly usersDn: string;
  /** ou=groups under the base DN: a groupOfNames a group, see addToGroup. */
  readonly groupsDn: string;
  /** A service account that may read (and so search) every entry but no password. */
  readonly bindDn: string;
  readonly bindPassword: string;
  /** The database's root DN, which the harness writes as; ACLs do not apply to it. */
  readonly rootDn: string;
  readonly rootPassword: string;
  /** The DN of a user added here. */
  userDn(uid: string): string;
  /** The DN of a group's groupOfNames. */
  groupDn(group: string): string;
  addUser(user: DirectoryUser): Promise<void>;
  modifyUser(uid: string, changes: UserChanges): Promise<void>;
  /** Removes the user's entry, and the user from every group. */
  deleteUser(uid: string): Promise<void>;
  /**
   * Membership is written twice, so filters of either kind can be tested: the group's name as a
   * value of the user's `employeeType` (filter `(employeeType=admins)`), and the user's DN as a
   * `member` of `cn=<group>,ou=groups,<base>`, a groupOfNames created on its first member; the
   * memberof overlay then shows it as the user's `memberOf` (filter
   * `(memberOf=cn=admins,ou=groups,dc=anvil,dc=test)`).
   */
  addToGroup(group: string, uid: string): Promise<void>;
  /** Undoes addToGroup; a group left without members is deleted (groupOfNames needs one). */
  removeFromGroup(group: string, uid: string): Promise<void>;
  /** Ends slapd (the directory is down); its data stays. */
  stop(): Promise<void>;
  /** Starts slapd again on the same ports with the same data. */
  start(): Promise<void>;
  /**
   * Freezes slapd (SIGSTOP): connections are accepted by the kernel but nothing is answered.
   * Resolves once the process is stopped: the signal is delivered asynchronously, and on a busy
   * machine a request sent right after kill() returned was seen answered.
   */
  pause(): Promise<void>;
  /** Lets a paused slapd go on (SIGCONT); what it was sent meanwhile is answered then. */
  resume(): void;
  /** Ends slapd and removes everything. */
  close(): Promise<void>;
}

const BASE_DN = "dc=anvil,dc=test";

// slapd processes of this test process that are running: killed when it exits, so a test that
// fails before its clean-up leaves none holding ports.
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function track(child: ChildProcess): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once("exit", () => {
      for (const slapd of running) slapd.kill("SIGKILL");
    });
  }
  running.add(child);
  child.once("exit", () => running.delete(child));
}

function change(operation: "add" | "delete" | "replace", type: string, values: string[]): Change {
  return new Change({ operation, modification: new Attribute({ type, values }) });
}

function secret(): string {
  return randomBytes(18).toString("base64url");
}

/** The {SSHA} scheme slapd checks: SHA-1 of the password and a salt, then the salt, in base64. */
function ssha(password: string): string {
  const salt = randomBytes(8);
  const digest = createHash("sha1").update(password).update(salt).digest();
  return `{SSHA}${Buffer.concat([digest, salt]).toString("base64")}`;
}

/** A test CA and a certificate it signed for 127.0.0.1 and localhost, valid for a day. */
async function makeCertificates(dir: string) {
  const caKey = join(dir, "ca.key");
  const caFile = join(dir, "ca.pem");
  const key = join(dir, "server.key");
  const cert = join(dir, "server.pem");
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-noenc"];
  // biome-ignore format: options and their values read best in pairs
  await run("openssl", [
    "req", "-x509", ...ec, "-keyout", caKey, "-out", caFile, "-days", "1",
    "-subj", "/CN=anvil test directory CA",
    "-addext", "basicConstraints=critical,CA:TRUE",
    "-addext", "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  // biome-ignore format: options and their values read best in pairs
  await run("openssl", [
    "req", "-x509", ...ec, "-keyout", key, "-out", cert, "-days", "1",
    "-CA", caFile, "-CAkey", caKey,
    "-subj", "/CN=127.0.0.1",
    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
    "-addext", "basicConstraints=critical,CA:FALSE",
    "-addext", "keyUsage=critical,digitalSignature",
    "-addext", "extendedKeyUsage=serverAuth",
  ]);
  return { caFile, key, cert };
}

function slapdConf(paths: {
  schema: string;
  data: string;
  pid: string;
  caFile: string;
  key: string;
  cert: string;
  rootDn: string;
  rootHash: string;
  bindDn: string;
}): string {
  const schemas = ["core", "cosine", "inetorgperson", "nis"].map((name) => `${SCHEMAS}/${name}.schema`);
  return `${[...schemas, paths.schema].map((file) => `include ${file}`).join("\n")}

modulepath ${MODULES}
moduleload back_mdb
moduleload memberof

pidfile ${paths.pid}
loglevel none

TLSCACertificateFile ${paths.caFile}
TLSCertificateFile ${paths.cert}
TLSCertificateKeyFile ${paths.key}

database mdb
suffix "${BASE_DN}"
rootdn "${paths.rootDn}"
rootpw ${paths.rootHash}
directory ${paths.data}
index objectClass,uid,employeeType eq

overlay memberof
memberof-refint TRUE

# A password is only ever compared by a bind; the service account reads the rest, users their own.
access to attrs=userPassword
  by anonymous auth
  by * none
access to *
  by dn.exact="${paths.bindDn}" read
  by self read
  by * none
`;
}

interface Started {
  child: ChildProcess;
  exited: Promise<unknown>;
}

/**
 * Starts a directory holding the base entry, ou=people, ou=groups and ou=services with the bind
 * account in it, and no users; answers once slapd accepts binds.
 */
export async function startDirectory(): Promise<Directory> {
  const dir = await tempDir("anvil-directory-");
  try {
    return await prepare(dir.path, dir.remove);
  } catch (error) {
    await dir.remove();
    throw error;
  }
}

async function prepare(root: string, remove: () => Promise<void>): Promise<Directory> {
  const data = join(root, "data");
  await mkdir(data);
  const schema = join(root, "ssh-public-key.schema");
  await writeFile(schema, SSH_SCHEMA);
  const { caFile, key, cert } = await makeCertificates(root);
  const caPem = await readFile(caFile, "utf8");

  const rootDn = `cn=admin,${BASE_DN}`;
  const rootPassword = secret();
  const usersDn = `ou=people,${BASE_DN}`;
  const groupsDn = `ou=groups,${BASE_DN}`;
  const bindDn = `cn=reader,ou=services,${BASE_DN}`;
  const bindPassword = secret();
  const conf = join(root, "slapd.conf");
  await writeFile(
    conf,
    slapdConf({
      schema,
      data,
      pid: join(root, "slapd.pid"),
      caFile,
      key,
      cert,
      rootDn,
      rootHash: ssha(rootPassword),
      bindDn,
    }),
  );

  const port = await freePort();
  const tlsPort = await freePort();
  const url = `ldap://127.0.0.1:${port}`;
  const tlsUrl = `ldaps://127.0.0.1:${tlsPort}`;

  let slapd: Started | undefined;
  let closed = false;

  const launch = async (): Promise<void> => {
    if (closed) throw new Error("the directory is closed");
    if (slapd) return;
    // -d keeps slapd in the foreground, a child that ends with this process; "none" logs only what is
    // always logged, such as why it could not start.
    // Its errors go to a file, not a pipe, and the child is unref'd: a test file that forgets close()
    // still ends, and the exit hook kills slapd, instead of the test runner waiting for it.
    const log = join(root, "slapd.log");
    const logFile = await open(log, "w");
    const child = spawn(SLAPD, ["-f", conf, "-h", `${url}/ ${tlsUrl}/`, "-d", "none"], {
      stdio: ["ignore", "ignore", logFile.fd],
    });
    await logFile.close();
    child.unref();
    track(child);
    const exited = once(child, "exit");
    const started = { child, exited };
    slapd = started;
    try {
      const state = await waitFor("slapd to accept a bind", async () => {
        if (child.exitCode !== null || child.signalCode !== null) return "exited";
        const client = new Client({ url, connectTimeout: 1000, timeout: 1000 });
        try {
          await client.bind(rootDn, rootPassword);
          return "ready";
        } finally {
          await client.unbind().catch(() => {});
        }
      });
      if (state === "exited")
        throw new Error(`slapd exited before accepting a bind:\n${await readFile(log, "utf8")}`);
    } catch (error) {
      await halt();
      throw error;
    }
  };

  const halt = async (): Promise<void> => {
    const started = slapd;
    if (!started) return;
    slapd = undefined;
    const { child, exited } = started;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      // A paused slapd would only see the SIGTERM once let go on.
      child.kill("SIGCONT");
      const late = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(late);
    }
  };

  const signal = (name: NodeJS.Signals) => {
    if (!slapd) throw new Error("slapd is not running");
    slapd.child.kill(name);
  };

  /** Runs `work` as the root DN on a connection of its own. */
  const asRoot = async <T>(work: (client: Client) => Promise<T>): Promise<T> => {
    const client = new Client({ url, connectTimeout: 5000, timeout: 5000 });
    try {
      await client.bind(rootDn, rootPassword);
      return await work(client);
    } finally {
      await client.unbind().catch(() => {});
    }
  };

  const dns = new Map<string, string>();
  const ous = new Set<string>();
  const groupMembers = new Map<string, Set<string>>();

  const ouDn = (ou: string) => `ou=${ou},${BASE_DN}`;
  const userDn = (uid: string) => {
    const dn = dns.get(uid);
    if (!dn) throw new Error(`no user ${uid} in the directory`);
    return dn;
  };
  const groupDn = (group: string) => `cn=${group},${groupsDn}`;
  const ensureOu = async (client: Client, ou: string) => {
    if (ous.has(ou)) return;
    await client.add(ouDn(ou), { objectClass: ["organizationalUnit"], ou });
    ous.add(ou);
  };

  const leave = async (client: Client, group: string, uid: string) => {
    const dn = userDn(uid);
    const members = groupMembers.get(group);
    if (!members?.has(uid)) return;
    await client.modify(dn, change("delete", "employeeType", [group]));
    if (members.size === 1) {
      await client.del(groupDn(group));
      groupMembers.delete(group);
    } else {
      await client.modify(groupDn(group), change("delete", "member", [dn]));
      members.delete(uid);
    }
  };

  await launch();
  try {
    await asRoot(async (client) => {
      await client.add(BASE_DN, { objectClass: ["dcObject", "organization"], dc: "anvil", o: "anvil" });
      for (const ou of ["people", "groups", "services"]) await ensureOu(client, ou);
      await client.add(bindDn, {
        objectClass: ["applicationProcess", "simpleSecurityObject"],
        cn: "reader",
        userPassword: ssha(bindPassword),
      });
    });
  } catch (error) {
    await halt();
    throw error;
  }

  return {
    host: "127.0.0.1",
    port,
    tlsPort,
    url,
    tlsUrl,
    caPem,
    caFile,
    baseDn: BASE_DN,
    usersDn,
    groupsDn,
    bindDn,
    bindPassword,
    rootDn,
    rootPassword,
    userDn,
    groupDn,
    addUser: (user) =>
      asRoot(async (client) => {
        if (dns.has(user.uid)) throw new Error(`user ${user.uid} is in the directory already`);
        const ou = user.ou ?? "people";
        await ensureOu(client, ou);
        const dn = `uid=${user.uid},${ouDn(ou)}`;
        const attributes: Record<string, string[] | string> = {
          objectClass: ["inetOrgPerson", "ldapPublicKey"],
          uid: user.uid,
          cn: user.uid,
          sn: user.sn ?? user.uid,
          userPassword: ssha(user.password),
        };
        if (user.givenName !== undefined) attributes.givenName = user.givenName;
        if (user.mail !== undefined) attributes.mail = user.mail;
        if (user.sshPublicKey?.length) attributes.sshPublicKey = user.sshPublicKey;
        await client.add(dn, attributes);
        dns.set(user.uid, dn);
      }),
    modifyUser: (uid, changes) =>
      asRoot(async (client) => {
        const dn = userDn(uid);
        // "replace" with no values removes an attribute and, unlike "delete", also one the entry lacks.
        const set = (type: string, values: string | string[] | null | undefined): Change[] =>
          values === undefined ? [] : [change("replace", type, values === null ? [] : [values].flat())];
        const password = typeof changes.password === "string" ? ssha(changes.password) : changes.password;
        const modifications = [
          ...set("userPassword", password),
          ...set("givenName", changes.givenName),
          ...set("sn", changes.sn),
          ...set("mail", changes.mail),
          ...set("sshPublicKey", changes.sshPublicKey),
        ];
        if (modifications.length > 0) await client.modify(dn, modifications);
        const moved = changes.ou === undefined ? dn : `uid=${uid},${ouDn(changes.ou)}`;
        if (changes.ou !== undefined && moved !== dn) {
          await ensureOu(client, changes.ou);
          // memberof-refint rewrites the member values of the user's groups.
          await client.modifyDN(dn, moved);
          dns.set(uid, moved);
        }
      }),
    deleteUser: (uid) =>
      asRoot(async (client) => {
        const dn = userDn(uid);
        for (const [group, members] of groupMembers) if (members.has(uid)) await leave(client, group, uid);
        await client.del(dn);
        dns.delete(uid);
      }),
    addToGroup: (group, uid) =>
      asRoot(async (client) => {
        const dn = userDn(uid);
        const members = groupMembers.get(group) ?? new Set<string>();
        if (members.has(uid)) return;
        await client.modify(dn, change("add", "employeeType", [group]));
        if (members.size === 0)
          await client.add(groupDn(group), { objectClass: ["groupOfNames"], cn: group, member: dn });
        else await client.modify(groupDn(group), change("add", "member", [dn]));
        members.add(uid);
        groupMembers.set(group, members);
      }),
    removeFromGroup: (group, uid) => asRoot((client) => leave(client, group, uid)),
    stop: halt,
    start: launch,
    pause: async () => {
      signal("SIGSTOP");
      const stat = `/proc/${slapd?.child.pid}/stat`;
      // The state is the field after the command's closing parenthesis: T when stopped.
      await waitFor("slapd to stop", async () =>
        /\) [Tt] /.test(await readFile(stat, "utf8")) ? true : undefined,
      );
    },
    resume: () => signal("SIGCONT"),
    close: async () => {
      closed = true;
      await halt();
      await remove();
    },
  };
}

/**
 * The settings of an LDAP (via bind DN) source for `directory`, as POST /admin/auths takes them:
 * users are inetOrgPersons under the users' unit, `admins` members are site admins, and the
 * usual attributes name, mail and key them.
 */
export function bindDnSource(
  directory: Directory,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    type: "ldap",
    name: "corp",
    host: directory.host,
    port: directory.port,
    security_protocol: "Unencrypted",
    bind_dn: directory.bindDn,
    bind_password: directory.bindPassword,
    user_search_base: directory.usersDn,
    user_filter: "(&(objectClass=inetOrgPerson)(uid=%s))",
    admin_filter: "(employeeType=admins)",
    username_attribute: "uid",
    firstname_attribute: "givenName",
    surname_attribute: "sn",
    email_attribute: "mail",
    public_ssh_key_attribute: "sshPublicKey",
    ...extra,
  };
}
