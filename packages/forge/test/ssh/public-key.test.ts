// Public keys as users paste them into POST /user/keys: fingerprints and sizes must be what
// ssh-keygen says, and everything that is not one allowed public key is a clear 422.
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Invalid } from "@anvil/core";
import { type TempDir, tempDir } from "@anvil/core/testing";
import { GITEA_MINIMUM_KEY_SIZES, parsePublicKey } from "../../src/ssh/index.ts";
import { generateKey, type KeyPair, keygenFingerprint, runOk } from "./tools.ts";

const KEY_TYPES: Record<string, string[]> = {
  ed25519: ["-t", "ed25519"],
  "rsa-2048": ["-t", "rsa", "-b", "2048"],
  "rsa-3072": ["-t", "rsa", "-b", "3072"],
  "ecdsa-256": ["-t", "ecdsa", "-b", "256"],
  "ecdsa-384": ["-t", "ecdsa", "-b", "384"],
  "ecdsa-521": ["-t", "ecdsa", "-b", "521"],
  "rsa-1024": ["-t", "rsa", "-b", "1024"],
};

function sshString(value: Buffer | string): Buffer {
  const bytes = Buffer.from(value);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

function blobOf(line: string): Buffer {
  return Buffer.from(line.split(" ")[1], "base64");
}

function refusal(text: string, minimumKeySizes = GITEA_MINIMUM_KEY_SIZES): string {
  try {
    parsePublicKey(text, minimumKeySizes);
  } catch (error) {
    assert.ok(error instanceof Invalid, `not Invalid: ${error}`);
    assert.match(error.message, /^Invalid key content: /);
    return error.message;
  }
  assert.fail(`accepted: ${text.slice(0, 80)}`);
}

describe("parsePublicKey", () => {
  let dir: TempDir;
  const keys: Record<string, KeyPair> = {};

  before(async () => {
    dir = await tempDir("anvil-ssh-keys-");
    await Promise.all(
      Object.entries(KEY_TYPES).map(async ([name, args]) => {
        keys[name] = await generateKey(dir.path, name, args);
      }),
    );
  });
  after(() => dir?.remove());

  test("keys of every allowed type: fingerprint and bits as ssh-keygen -lf prints them", async () => {
    for (const name of ["ed25519", "rsa-2048", "rsa-3072", "ecdsa-256", "ecdsa-384", "ecdsa-521"]) {
      const key = keys[name];
      const [type, base64] = key.publicText.split(" ");
      const parsed = parsePublicKey(key.publicText);
      const expected = await keygenFingerprint(`${key.privatePath}.pub`);
      assert.deepEqual(
        parsed,
        {
          type,
          content: `${type} ${base64}`,
          comment: `${name}@example.com`,
          fingerprint: expected.fingerprint,
          bits: expected.bits,
        },
        name,
      );
    }
  });

  test("the RFC 4716 form (PuTTYgen, ssh-keygen -e), PEM and a bare base64 blob give the same key", async () => {
    for (const name of ["ed25519", "rsa-2048", "ecdsa-384"]) {
      const key = keys[name];
      const expected = parsePublicKey(key.publicText);
      const rfc4716 = await runOk("ssh-keygen", ["-e", "-f", `${key.privatePath}.pub`]);
      assert.equal(parsePublicKey(rfc4716).content, expected.content, `${name} RFC 4716`);
      assert.equal(
        parsePublicKey(key.publicText.split(" ")[1]).fingerprint,
        expected.fingerprint,
        `${name} bare`,
      );
      if (name !== "ed25519") {
        const pem = await runOk("ssh-keygen", ["-e", "-m", "PKCS8", "-f", `${key.privatePath}.pub`]);
        assert.equal(parsePublicKey(pem).content, expected.content, `${name} PEM`);
      }
    }
  });

  test("security keys (ed25519-sk, ecdsa-sk) are understood as ssh-keygen understands them", async () => {
    const ed = generateKeyPairSync("ed25519").publicKey.export({ format: "jwk" });
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey.export({ format: "jwk" });
    const bytes = (value: string | undefined) => Buffer.from(value ?? "", "base64url");
    const lines = {
      "sk-ssh-ed25519@openssh.com": Buffer.concat([
        sshString("sk-ssh-ed25519@openssh.com"),
        sshString(bytes(ed.x)),
        sshString("ssh:"),
      ]),
      "sk-ecdsa-sha2-nistp256@openssh.com": Buffer.concat([
        sshString("sk-ecdsa-sha2-nistp256@openssh.com"),
        sshString("nistp256"),
        sshString(Buffer.concat([Buffer.from([4]), bytes(ec.x), bytes(ec.y)])),
        sshString("ssh:"),
      ]),
    };
    for (const [type, blob] of Object.entries(lines)) {
      const line = `${type} ${blob.toString("base64")} yubikey`;
      const path = join(dir.path, `${type}.pub`);
      await writeFile(path, `${line}\n`);
      const expected = await keygenFingerprint(path);
      const parsed = parsePublicKey(line);
      assert.equal(parsed.fingerprint, expected.fingerprint, type);
      assert.equal(parsed.bits, expected.bits, type);
      assert.equal(parsed.type, type);
    }
  });

  test("not a key: empty, garbage, a private key, several lines, options", async () => {
    const ed25519 = keys.ed25519.publicText.trim();
    assert.match(refusal("  \n"), /the key is empty/);
    assert.match(refusal("hello world"), /unsupported key type: hello/);
    assert.match(refusal(await readFile(keys.ed25519.privatePath, "utf8")), /private key/);
    assert.match(refusal(`${ed25519}\n${keys["rsa-2048"].publicText}`), /only a single line/);
    assert.match(refusal(`no-pty,command="echo hi" ${ed25519}`), /options .* are not accepted/);
    assert.match(refusal(`ssh-ed25519`), /has no key data/);
    const certificate = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n";
    assert.match(refusal(certificate), /PEM block is not a public key/);
    const brokenPem = "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n";
    assert.match(refusal(brokenPem), /PEM block is not a public key/);
  });

  test("comments: kept as written, quotes of an RFC 4716 Comment header dropped, line separators refused", async () => {
    const [type, data] = keys.ed25519.publicText.trim().split(" ");
    assert.equal(parsePublicKey(`${type}   ${data}   my  laptop  `).comment, "my  laptop");
    assert.equal(parsePublicKey(`${type} ${data}`).comment, "");
    const rfc4716 = (header: string) =>
      `---- BEGIN SSH2 PUBLIC KEY ----\n${header}\n${data}\n---- END SSH2 PUBLIC KEY ----`;
    assert.equal(parsePublicKey(rfc4716('Comment:   "a \\\nb"')).comment, "a b");
    assert.equal(parsePublicKey(rfc4716("x-comment: other")).comment, "");
    assert.match(refusal(`${type} ${data} ${" ".repeat(10_000)}x\u2028y`), /only a single line/);
    assert.match(refusal(`${type} ${data} ${"x".repeat(16 * 1024)}`), /longer than 16384 characters/);
  });

  test("broken key data: bad or truncated base64, a short blob, trailing bytes, a type mismatch", () => {
    const line = keys.ed25519.publicText.trim();
    const [type, base64, comment] = line.split(" ");
    const blob = blobOf(line);
    assert.match(refusal(`${type} ${base64.slice(0, -5)} ${comment}`), /not valid base64/);
    assert.match(refusal(`${type} ${base64}!! ${comment}`), /not valid base64/);
    assert.match(refusal(`${type} ${blob.subarray(0, -3).toString("base64")}`), /truncated key data/);
    const trailing = Buffer.concat([blob, sshString("junk")]);
    assert.match(refusal(`${type} ${trailing.toString("base64")}`), /unexpected data after the key/);
    assert.match(refusal(`ssh-rsa ${base64}`), /key type and content does not match: ssh-rsa - ssh-ed25519/);
    const short = Buffer.concat([sshString("ssh-ed25519"), sshString(Buffer.alloc(31, 7))]);
    assert.match(refusal(`ssh-ed25519 ${short.toString("base64")}`), /must be 32 bytes/);
    assert.match(refusal(`${line} bell\u0007`), /control characters/);
  });

  test("broken key material: wrong curve, a point off the curve, a negative RSA modulus", () => {
    const ecdsa = blobOf(keys["ecdsa-256"].publicText);
    const reader = (offset: number) => ecdsa.readUInt32BE(offset);
    const typeEnd = 4 + reader(0);
    const curveEnd = typeEnd + 4 + reader(typeEnd);
    const point = ecdsa.subarray(curveEnd + 4);
    const wrongCurve = Buffer.concat([
      sshString("ecdsa-sha2-nistp256"),
      sshString("nistp384"),
      sshString(point),
    ]);
    assert.match(
      refusal(`ecdsa-sha2-nistp256 ${wrongCurve.toString("base64")}`),
      /curve nistp384 does not match/,
    );
    const offCurve = Buffer.from(ecdsa);
    offCurve[offCurve.length - 1] ^= 1;
    assert.match(refusal(`ecdsa-sha2-nistp256 ${offCurve.toString("base64")}`), /not a valid public key/);

    const modulus = Buffer.alloc(256, 0xff);
    const negative = Buffer.concat([
      sshString("ssh-rsa"),
      sshString(Buffer.from([1, 0, 1])),
      sshString(modulus),
    ]);
    assert.match(refusal(`ssh-rsa ${negative.toString("base64")}`), /not positive/);
  });

  test("Gitea's size and type policy: RSA from 2047 bits, no DSA, no certificates; sizes are settable", async () => {
    assert.match(refusal(keys["rsa-1024"].publicText), /key length is not enough: got 1024, needs 2047/);
    const dsa = Buffer.concat(["ssh-dss", "p", "q", "g", "y"].map((part) => sshString(part)));
    assert.match(refusal(`ssh-dss ${dsa.toString("base64")}`), /key type is not allowed: dsa/);
    assert.match(refusal(dsa.toString("base64")), /key type is not allowed: dsa/);

    await runOk("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir.path, "ca")]);
    await runOk("ssh-keygen", [
      "-q",
      "-s",
      join(dir.path, "ca"),
      "-I",
      "alice",
      `${keys.ed25519.privatePath}.pub`,
    ]);
    const certificate = await readFile(`${keys.ed25519.privatePath}-cert.pub`, "utf8");
    assert.match(refusal(certificate), /certificates are not supported/);

    const strict = { ...GITEA_MINIMUM_KEY_SIZES, rsa: 3072 };
    assert.match(refusal(keys["rsa-2048"].publicText, strict), /got 2048, needs 3072/);
    assert.equal(parsePublicKey(keys["rsa-3072"].publicText, strict).bits, 3072);
    const { ecdsa: _ecdsa, ...noEcdsa } = GITEA_MINIMUM_KEY_SIZES;
    assert.match(refusal(keys["ecdsa-256"].publicText, noEcdsa), /key type is not allowed: ecdsa/);
  });
});
