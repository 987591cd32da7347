import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";

// Spawning the real OpenSSH and git clients for the SSH tests: no shell, bounded time, a clean
// git configuration so the machine's own settings cannot change what the tests see.

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

const RUN_TIMEOUT_MS = 60_000;

export const GIT_CLIENT_ENV: NodeJS.ProcessEnv = {
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_TERMINAL_PROMPT: "0",
  GIT_AUTHOR_NAME: "Alice",
  GIT_AUTHOR_EMAIL: "alice@example.com",
  GIT_COMMITTER_NAME: "Alice",
  GIT_COMMITTER_EMAIL: "alice@example.com",
};

export function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...GIT_CLIENT_ENV, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
      timeout: RUN_TIMEOUT_MS,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Like run, but a non-zero exit is a failure that shows the command's stderr. */
export async function runOk(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  const result = await run(command, args, options);
  if (result.code !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited ${result.code}: ${result.stderr}`);
  }
  return result.stdout;
}

export interface KeyPair {
  privatePath: string;
  publicText: string;
}

/** A key pair made by ssh-keygen, e.g. `generateKey(dir, "alice", ["-t", "ed25519"])`. */
export async function generateKey(dir: string, name: string, typeArgs: string[]): Promise<KeyPair> {
  const privatePath = join(dir, name);
  await runOk("ssh-keygen", ["-q", ...typeArgs, "-N", "", "-C", `${name}@example.com`, "-f", privatePath]);
  return { privatePath, publicText: await readFile(`${privatePath}.pub`, "utf8") };
}

/** `ssh-keygen -lf`'s bits and fingerprint for a key file. */
export async function keygenFingerprint(path: string): Promise<{ bits: number; fingerprint: string }> {
  const [bits, fingerprint] = (await runOk("ssh-keygen", ["-lf", path])).split(" ");
  return { bits: Number(bits), fingerprint };
}

/** The OpenSSH client command line for a key, a port and a throwaway known_hosts. */
export function sshArgs(key: string, port: number, extra: string[] = []): string[] {
  return [
    "-F",
    "/dev/null",
    "-i",
    key,
    "-o",
    "IdentitiesOnly=yes",
    "-o",
    "StrictHostKeyChecking=no",
    "-o",
    "UserKnownHostsFile=/dev/null",
    "-o",
    "BatchMode=yes",
    "-o",
    "LogLevel=ERROR",
    "-p",
    String(port),
    ...extra,
  ];
}

/** GIT_SSH_COMMAND for sshArgs (the port comes from the URL). */
export function gitSshCommand(key: string): string {
  return [
    "ssh -F /dev/null",
    `-i ${key}`,
    "-o IdentitiesOnly=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null",
    "-o BatchMode=yes -o LogLevel=ERROR",
  ].join(" ");
}
