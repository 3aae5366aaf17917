/**
 * The store's raw files, read as an attacker with a copy of the data directory would: nothing in
 * them signs a token or verifies a credential secret. The pepper and the key-encryption key live
 * in 0600 files outside the store (as npm start keeps them), signing keys are sealed.
 */
import { createPrivateKey, createPublicKey, sign, verify } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "chai";
import type { JSONWebKeySet } from "jose";
import { hashSecret } from "../../services/auth/domain/secrets.js";
import { authAdminClient, createProjectWithKey, mintAccessToken } from "../support/auth.js";
import { startTestSystem, type TestSystem } from "../support/system.js";

async function filesUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await filesUnder(path)));
    else found.push(path);
  }
  return found;
}

/** Every run of base64url/hex-ish characters, as an attacker would try them as keys. */
function tokensOf(raw: Buffer, minLength: number): Set<string> {
  const tokens = new Set<string>();
  for (const match of raw.toString("latin1").matchAll(/[A-Za-z0-9_-]+/g)) {
    if (match[0].length >= minLength) tokens.add(match[0]);
  }
  return tokens;
}

describe("secrets at rest: the store's raw files hold nothing usable", function () {
  this.timeout(60_000);
  let system: TestSystem;
  let raw: Buffer;
  let apiKey: string;
  let pepper: string;
  let kek: string;
  let jwks: JSONWebKeySet;
  let accessToken: string;

  before(async function () {
    if (process.env.MONGODB_URI) this.skip(); // the raw files are the embedded store's
    system = await startTestSystem();
    const project = await createProjectWithKey(system);
    apiKey = project.apiKey;
    accessToken = await mintAccessToken(system, { apiKey });
    // A second signing key, so that more than one sealed record is on disk.
    await authAdminClient(system).rotateSigningKey({ activateAfterSeconds: 0 });
    await mintAccessToken(system, { apiKey });
    jwks = JSON.parse((await authAdminClient(system).getJwks({})).jwksJson) as JSONWebKeySet;
    pepper = (await readFile(join(system.root, "secrets/auth-secret-pepper"), "utf8")).trim();
    kek = (await readFile(join(system.root, "secrets/key-encryption-keys"), "utf8")).trim();
    // Writes reach the store's log at once; give a periodic fsync its moment anyway.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const files = await filesUnder(join(system.root, "mongo"));
    raw = Buffer.concat(await Promise.all(files.map((file) => readFile(file))));
  });

  after(async () => {
    await system?.stop();
  });

  it("holds the data itself (the test reads what it should)", () => {
    const text = raw.toString("latin1");
    expect(text).to.include(apiKey.slice(0, 8), "the key's hint");
    expect(text).to.include(hashSecret(pepper, apiKey), "the key's hash");
    expect(text).to.include("A256GCM", "sealed signing keys");
  });

  it("holds no credential secret, no pepper and no key-encryption key, in any encoding", () => {
    const text = raw.toString("latin1");
    expect(text).to.not.include(apiKey);
    expect(text).to.not.match(/ms[ks]_[A-Za-z0-9_-]{40,}/);
    expect(text).to.not.include(pepper);
    expect(raw.includes(Buffer.from(pepper, "base64url"))).to.equal(false);
    for (const entry of kek.split(",")) {
      const [, key] = entry.split(":");
      expect(text).to.not.include(key);
      expect(raw.includes(Buffer.from(key, "base64url"))).to.equal(false);
    }
    expect(text).to.not.include("secret_pepper");
  });

  it("holds nothing that verifies a secret: no string in it keys the hashes it stores", () => {
    const stored = hashSecret(pepper, apiKey);
    let tried = 0;
    for (const candidate of tokensOf(raw, 16)) {
      tried += 1;
      expect(hashSecret(candidate, apiKey)).to.not.equal(stored);
    }
    expect(tried).to.be.greaterThan(10);
  });

  it("holds nothing that signs a token: no string in it is the private half of a published key", () => {
    const message = Buffer.from("header.payload");
    let tried = 0;
    for (const candidate of tokensOf(raw, 43)) {
      for (let start = 0; start + 43 <= candidate.length; start += 1) {
        const d = candidate.slice(start, start + 43);
        for (const published of jwks.keys) {
          let key: ReturnType<typeof createPrivateKey>;
          try {
            key = createPrivateKey({
              key: { kty: "OKP", crv: "Ed25519", x: published.x as string, d },
              format: "jwk",
            });
          } catch {
            continue;
          }
          tried += 1;
          const publicKey = createPublicKey({ key: published as never, format: "jwk" });
          expect(verify(null, message, publicKey, sign(null, message, key))).to.equal(false);
        }
      }
    }
    expect(tried).to.be.greaterThan(0);
  });

  it("and no process logged a secret: not the key, the token, the pepper or a private key", () => {
    const everything = JSON.stringify(system.logs);
    for (const secret of [apiKey, apiKey.slice(4), accessToken, pepper, kek]) {
      expect(everything).to.not.include(secret);
    }
    expect(everything).to.not.match(/ms[ks]_[A-Za-z0-9_-]{40,}|PRIVATE KEY/);
  });

  it("keeps the pepper and the key-encryption key in 0600 files, in 0700 directories, outside the store", async () => {
    for (const file of ["secrets/auth-secret-pepper", "secrets/key-encryption-keys"]) {
      expect((await stat(join(system.root, file))).mode & 0o777, file).to.equal(0o600);
    }
    expect((await stat(join(system.root, "secrets"))).mode & 0o777).to.equal(0o700);
    expect((await stat(join(system.root, "pki"))).mode & 0o777).to.equal(0o700);
    for (const workload of ["gateway", "auth", "operator"]) {
      expect((await stat(join(system.root, "pki", workload, "tls.key"))).mode & 0o777).to.equal(
        0o600,
      );
    }
    expect((await stat(join(system.root, "pki/ca/ca.key"))).mode & 0o777).to.equal(0o600);
  });
});
