import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { loadAuthConfig } from "../../services/auth/config.js";
import { presentedCredential } from "../../services/auth/domain/credential-form.js";
import { grantScopes } from "../../services/auth/domain/scope-grant.js";
import { hashSecret } from "../../services/auth/domain/secrets.js";
import { slugify } from "../../services/auth/domain/slug.js";

describe("services/auth: exchange rules", () => {
  describe("presentedCredential", () => {
    it("recognises each of the three forms", () => {
      expect(presentedCredential({ api_key: "k" })).to.deep.equal({ form: "api_key", secret: "k" });
      expect(presentedCredential({ api_key_id: "i", api_key_secret: "s" })).to.include({
        kind: "api_key",
      });
      expect(
        presentedCredential({ service_account_id: "i", service_account_secret: "s" }),
      ).to.include({
        kind: "service_account",
      });
    });
    it("refuses none, two, or half of one", () => {
      expect(presentedCredential({})).to.deep.equal({ problem: "missing" });
      expect(presentedCredential({ api_key: "k", service_account_id: "i" })).to.include({
        problem: "conflict",
      });
      expect(presentedCredential({ service_account_id: "i" })).to.deep.equal({
        problem: "incomplete",
        missing: "service_account_secret",
      });
    });
  });

  describe("grantScopes", () => {
    const credential = ["movespecs:read", "sessions:write"];
    it("inherits the credential's scopes when none are requested", () => {
      expect(grantScopes(credential, undefined)).to.deep.equal({ ok: true, scopes: credential });
    });
    it("grants a subset, canonically ordered and deduplicated", () => {
      expect(
        grantScopes(credential, ["sessions:write", "movespecs:read", "sessions:write"]),
      ).to.deep.equal({
        ok: true,
        scopes: ["movespecs:read", "sessions:write"],
      });
    });
    it("refuses a superset, unknown names, and an empty list", () => {
      expect(grantScopes(credential, ["movespecs:write"])).to.include({ problem: "not_granted" });
      expect(grantScopes(credential, ["everything"])).to.include({ problem: "unknown" });
      expect(grantScopes(credential, [])).to.include({ problem: "empty" });
    });
  });

  describe("secrets", () => {
    it("the hash depends on the pepper", () => {
      const a = hashSecret("p".repeat(32), "msk_x");
      expect(a).to.have.length(64);
      expect(a).to.not.equal(hashSecret("q".repeat(32), "msk_x"));
    });
  });

  it("slugify makes stable URL-safe slugs", () => {
    expect(slugify("My Project!")).to.equal("my-project");
    expect(slugify("Élan  vital")).to.equal("elan-vital");
    expect(slugify("!!!")).to.equal("project");
  });

  describe("config", () => {
    const KEK = `k1:${Buffer.alloc(32, 7).toString("base64url")}`;
    it("production refuses DEV_BOOTSTRAP and needs a pepper, a key directory, a KEK and certificates", () => {
      const prod = {
        ENVIRONMENT: "production",
        AUTH_SECRET_PEPPER: "x".repeat(32),
        SIGNING_KEYS_DIR: "/k",
        KEY_ENCRYPTION_KEYS: KEK,
        INTERNAL_TLS_DIR: "/tls",
        MONGODB_URI: "mongodb://mongodb-0.mongodb:27017/?replicaSet=rs0&tls=true",
      };
      expect(() => loadAuthConfig({ ...prod, DEV_BOOTSTRAP: "1" })).to.throw(/DEV_BOOTSTRAP/);
      // Not the development store's address, silently.
      expect(() => loadAuthConfig({ ...prod, MONGODB_URI: undefined })).to.throw(
        /MONGODB_URI is required when ENVIRONMENT=production/,
      );
      expect(() => loadAuthConfig({ ...prod, MONGODB_URI: "" })).to.throw(/MONGODB_URI/);
      expect(() => loadAuthConfig({ ...prod, AUTH_SECRET_PEPPER: undefined })).to.throw(
        /AUTH_SECRET_PEPPER/,
      );
      expect(() => loadAuthConfig({ ...prod, SIGNING_KEYS_DIR: undefined })).to.throw(
        /SIGNING_KEYS_DIR/,
      );
      expect(() => loadAuthConfig({ ...prod, KEY_ENCRYPTION_KEYS: undefined })).to.throw(
        /KEY_ENCRYPTION_KEYS/,
      );
      expect(() => loadAuthConfig({ ...prod, INTERNAL_TLS_DIR: undefined })).to.throw(
        /INTERNAL_TLS_DIR/,
      );
      expect(loadAuthConfig(prod).tokens.accessTokenTtlSeconds).to.equal(900);
      const dev = { AUTH_SECRET_PEPPER: "x".repeat(32), KEY_ENCRYPTION_KEYS: KEK };
      expect(
        loadAuthConfig({ ...dev, ACCESS_TOKEN_TTL_SECONDS: "300" }).tokens.accessTokenTtlSeconds,
      ).to.equal(300);
    });

    it("AUTH_CREDENTIAL_CACHE_MS: 1000 by default, 0 to 60,000, refused just past either edge", () => {
      const dev = { AUTH_SECRET_PEPPER: "x".repeat(32), KEY_ENCRYPTION_KEYS: KEK };
      const cacheMs = (value?: string) =>
        loadAuthConfig({ ...dev, AUTH_CREDENTIAL_CACHE_MS: value }).credentialCacheMs;
      expect(cacheMs()).to.equal(1000);
      expect(cacheMs("0")).to.equal(0);
      expect(cacheMs("60000")).to.equal(60_000);
      expect(() => cacheMs("-1")).to.throw(/AUTH_CREDENTIAL_CACHE_MS/);
      expect(() => cacheMs("60001")).to.throw(/AUTH_CREDENTIAL_CACHE_MS/);
      expect(() => cacheMs("1.5")).to.throw(/AUTH_CREDENTIAL_CACHE_MS/);
    });

    it("takes the pepper from configuration only, in development too (never from the database)", () => {
      expect(() => loadAuthConfig({ KEY_ENCRYPTION_KEYS: KEK })).to.throw(/AUTH_SECRET_PEPPER/);
      expect(() =>
        loadAuthConfig({ AUTH_SECRET_PEPPER: "short", KEY_ENCRYPTION_KEYS: KEK }),
      ).to.throw(/at least 32/);
    });

    it("reads secrets from NAME or NAME_FILE (a mounted Secret), never both", async () => {
      const dir = await mkdtemp(join(tmpdir(), "mds-secret-"));
      try {
        await writeFile(join(dir, "pepper"), `${"p".repeat(40)}\n`, { mode: 0o600 });
        await writeFile(join(dir, "kek"), `${KEK}\n`, { mode: 0o600 });
        const config = loadAuthConfig({
          AUTH_SECRET_PEPPER_FILE: join(dir, "pepper"),
          KEY_ENCRYPTION_KEYS_FILE: join(dir, "kek"),
        });
        expect(config.secretPepper).to.equal("p".repeat(40));
        expect(config.keyEncryption?.currentId).to.equal("k1");
        expect(() =>
          loadAuthConfig({
            AUTH_SECRET_PEPPER: "q".repeat(40),
            AUTH_SECRET_PEPPER_FILE: join(dir, "pepper"),
            KEY_ENCRYPTION_KEYS: KEK,
          }),
        ).to.throw(/both set/);
        expect(() =>
          loadAuthConfig({
            AUTH_SECRET_PEPPER_FILE: join(dir, "missing"),
            KEY_ENCRYPTION_KEYS: KEK,
          }),
        ).to.throw(/AUTH_SECRET_PEPPER_FILE cannot be read/);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it("needs a KEK to keep signing keys in the database, and checks its shape without echoing it", () => {
      const pepper = { AUTH_SECRET_PEPPER: "x".repeat(32) };
      expect(() => loadAuthConfig(pepper)).to.throw(/KEY_ENCRYPTION_KEYS/);
      // Keys from a directory need none outside production.
      expect(loadAuthConfig({ ...pepper, SIGNING_KEYS_DIR: "/k" }).keyEncryption).to.equal(
        undefined,
      );
      const secretish = "k1:tooShortToBeAKey";
      let message = "";
      try {
        loadAuthConfig({ ...pepper, KEY_ENCRYPTION_KEYS: secretish });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).to.match(/32 random bytes/);
      expect(message).to.not.include("tooShortToBeAKey");
      const two = `${KEK},old:${Buffer.alloc(32, 9).toString("base64url")}`;
      const keys = loadAuthConfig({ ...pepper, KEY_ENCRYPTION_KEYS: two }).keyEncryption;
      expect(keys?.currentId).to.equal("k1");
      expect([...(keys?.byId.keys() ?? [])]).to.deep.equal(["k1", "old"]);
    });
  });
});
