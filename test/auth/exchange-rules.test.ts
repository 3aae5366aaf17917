import { expect } from "chai";
import { loadAuthConfig } from "../../services/auth/config.js";
import { presentedCredential } from "../../services/auth/domain/credential-form.js";
import { grantScopes } from "../../services/auth/domain/scope-grant.js";
import { hashesEqual, hashSecret } from "../../services/auth/domain/secrets.js";
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
    it("the hash depends on the pepper and compares in constant time", () => {
      const a = hashSecret("p".repeat(32), "msk_x");
      expect(a).to.have.length(64);
      expect(a).to.not.equal(hashSecret("q".repeat(32), "msk_x"));
      expect(hashesEqual(a, a)).to.equal(true);
      expect(hashesEqual(a, "0".repeat(64))).to.equal(false);
    });
  });

  it("slugify makes stable URL-safe slugs", () => {
    expect(slugify("My Project!")).to.equal("my-project");
    expect(slugify("Élan  vital")).to.equal("elan-vital");
    expect(slugify("!!!")).to.equal("project");
  });

  describe("config", () => {
    it("production refuses DEV_BOOTSTRAP and needs a pepper and a key directory", () => {
      const prod = {
        ENVIRONMENT: "production",
        AUTH_SECRET_PEPPER: "x".repeat(32),
        SIGNING_KEYS_DIR: "/k",
      };
      expect(() => loadAuthConfig({ ...prod, DEV_BOOTSTRAP: "1" })).to.throw(/DEV_BOOTSTRAP/);
      expect(() => loadAuthConfig({ ...prod, AUTH_SECRET_PEPPER: undefined })).to.throw(
        /AUTH_SECRET_PEPPER/,
      );
      expect(() => loadAuthConfig({ ...prod, SIGNING_KEYS_DIR: undefined })).to.throw(
        /SIGNING_KEYS_DIR/,
      );
      expect(loadAuthConfig(prod).tokens.accessTokenTtlSeconds).to.equal(900);
      expect(
        loadAuthConfig({ ACCESS_TOKEN_TTL_SECONDS: "300" }).tokens.accessTokenTtlSeconds,
      ).to.equal(300);
    });
  });
});
