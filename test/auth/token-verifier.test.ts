import {
  createSettingsVerifier,
  createTokenVerifier,
  DEFAULT_TOKEN_ISSUER,
  DEFAULT_TOKEN_SETTINGS,
  KeySetUnavailableError,
  RUNTIME_TOKEN_AUDIENCE,
  RUNTIME_TOKEN_TYPE,
  TokenError,
  type TokenVerifier,
} from "@movement-detection/shared/tokens";
import { expect } from "chai";
import { generateKeyPair, SignJWT } from "jose";
import {
  forgeAccessToken,
  generateTestKey,
  type TestKey,
  tamperSignature,
  unsecured,
} from "./token-forge.js";

const claims = {
  projectId: "01a20151-0000-7000-8000-000000000001",
  organizationId: "01a20151-0000-7000-8000-000000000002",
};

/** A fake clock the verifier reads instead of Date.now (tokens are signed at real "now"). */
function fakeClock(start = Date.now()) {
  let at = start;
  return { now: () => at, advance: (seconds: number) => (at += seconds * 1000) };
}

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/**
 * The same token with the lowest bit of its signature's last character flipped: an Ed25519
 * signature is 64 bytes in 86 characters, so that bit encodes nothing and the bytes are the same.
 */
function setUnusedBit(token: string): string {
  const last = token.at(-1) ?? "";
  const changed = `${token.slice(0, -1)}${BASE64URL[BASE64URL.indexOf(last) ^ 1]}`;
  const signature = (t: string) => Buffer.from(t.split(".")[2], "base64url");
  if (!signature(changed).equals(signature(token))) throw new Error("the bit is not unused");
  return changed;
}

async function reason(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TokenError) return error.reason;
    throw error;
  }
  return "ACCEPTED";
}

describe("services/shared/tokens: createTokenVerifier", () => {
  let key: TestKey;
  let fetches: number;
  let published: TestKey[];

  const verifier = (
    clock = fakeClock(),
    extra: { tolerance?: number; maxLifetime?: number } = {},
  ): TokenVerifier =>
    createTokenVerifier({
      issuer: DEFAULT_TOKEN_ISSUER,
      now: clock.now,
      clockToleranceSeconds: extra.tolerance ?? 5,
      maxLifetimeSeconds: extra.maxLifetime,
      jwksMinRefreshIntervalMs: 50,
      fetchJwks: async () => {
        fetches += 1;
        return { keys: published.map((k) => k.publicJwk) };
      },
    });

  beforeEach(async () => {
    key = await generateTestKey();
    published = [key];
    fetches = 0;
  });

  describe("#verifyAccessToken", () => {
    it("accepts a well-formed token and returns its claims", async () => {
      const token = await forgeAccessToken(key, { ...claims, scopes: ["movespecs:read"] });
      const result = await verifier().verifyAccessToken(token);
      expect(result).to.include({
        projectId: claims.projectId,
        organizationId: claims.organizationId,
      });
      expect(result.scopes).to.deep.equal(["movespecs:read"]);
    });

    const refused: [string, () => Promise<string>][] = [
      ["a tampered signature", async () => tamperSignature(await forgeAccessToken(key, claims))],
      ["alg none", async () => unsecured(await forgeAccessToken(key, claims))],
      [
        "a wrong aud",
        () => forgeAccessToken(key, claims, { payload: { aud: RUNTIME_TOKEN_AUDIENCE } }),
      ],
      ["a wrong iss", () => forgeAccessToken(key, claims, { payload: { iss: "urn:else" } })],
      ["no typ", () => forgeAccessToken(key, claims, { header: { typ: undefined } })],
      [
        "the runtime typ",
        () => forgeAccessToken(key, claims, { header: { typ: RUNTIME_TOKEN_TYPE } }),
      ],
      ["no jti", () => forgeAccessToken(key, claims, { payload: { jti: undefined } })],
      ["no exp", () => forgeAccessToken(key, claims, { payload: { exp: undefined } })],
      ["no iat", () => forgeAccessToken(key, claims, { payload: { iat: undefined } })],
      ["an unknown scope", () => forgeAccessToken(key, { ...claims, scopes: ["root"] })],
      ["no project", () => forgeAccessToken(key, claims, { payload: { project_id: undefined } })],
      ["a kid naming no key", () => forgeAccessToken(key, claims, { header: { kid: "nope" } })],
      ["no kid", () => forgeAccessToken(key, claims, { header: { kid: undefined } })],
      ["a foreign key", async () => forgeAccessToken(await generateTestKey(key.kid), claims)],
      ["garbage", async () => "a.b.c"],
      // The base64url decoder ignores padding and the unused low bits of a segment's last
      // character: without the canonical-form check both of these verified.
      ["padding after the signature", async () => `${await forgeAccessToken(key, claims)}==`],
      [
        "the signature's unused bits set",
        async () => setUnusedBit(await forgeAccessToken(key, claims)),
      ],
    ];
    for (const [name, make] of refused) {
      it(`refuses ${name} (TOKEN_INVALID)`, async () => {
        expect(await reason(verifier().verifyAccessToken(await make()))).to.equal("TOKEN_INVALID");
      });
    }

    it("refuses an HMAC token keyed with the public key (algorithm confusion)", async () => {
      const secret = new TextEncoder().encode(String(key.publicJwk.x));
      const token = await new SignJWT({
        scope: "movespecs:read",
        org_id: "o",
        project_id: "p",
        cred_type: "api_key",
      })
        .setProtectedHeader({ alg: "HS256", kid: key.kid, typ: "at+jwt" })
        .setIssuer(DEFAULT_TOKEN_ISSUER)
        .setAudience("urn:movement-detection:api")
        .setSubject("s")
        .setJti("j")
        .setIssuedAt()
        .setExpirationTime("5m")
        .sign(secret);
      expect(await reason(verifier().verifyAccessToken(token))).to.equal("TOKEN_INVALID");
    });

    it("refuses an ES256 token signed by a key published as EdDSA (alg must match the key)", async () => {
      const { privateKey } = await generateKeyPair("ES256");
      const token = await new SignJWT({})
        .setProtectedHeader({ alg: "ES256", kid: key.kid, typ: "at+jwt" })
        .sign(privateKey);
      expect(await reason(verifier().verifyAccessToken(token))).to.equal("TOKEN_INVALID");
    });
  });

  describe("clock skew (fake clock)", () => {
    it("an expired token is TOKEN_EXPIRED, once past the tolerance only", async () => {
      const clock = fakeClock();
      const v = verifier(clock, { tolerance: 5 });
      const token = await forgeAccessToken(key, claims); // exp = now + 600
      clock.advance(600 + 4);
      expect(await reason(v.verifyAccessToken(token))).to.equal("ACCEPTED");
      clock.advance(2);
      expect(await reason(v.verifyAccessToken(token))).to.equal("TOKEN_EXPIRED");
    });

    it("a token issued slightly in the future (signer's clock ahead) passes within the tolerance", async () => {
      const clock = fakeClock();
      const v = verifier(clock, { tolerance: 5 });
      const now = Math.floor(clock.now() / 1000);
      const ahead = await forgeAccessToken(key, claims, {
        payload: { iat: now + 4, exp: now + 904 },
      });
      const farAhead = await forgeAccessToken(key, claims, {
        payload: { iat: now + 60, exp: now + 960 },
      });
      expect(await reason(v.verifyAccessToken(ahead))).to.equal("ACCEPTED");
      expect(await reason(v.verifyAccessToken(farAhead))).to.equal("TOKEN_INVALID");
    });

    it("an expired token with a bad signature is TOKEN_INVALID, not TOKEN_EXPIRED", async () => {
      const clock = fakeClock();
      const token = tamperSignature(await forgeAccessToken(key, claims));
      clock.advance(3600);
      expect(await reason(verifier(clock).verifyAccessToken(token))).to.equal("TOKEN_INVALID");
    });
  });

  describe("lifetime cap: no token lives longer than this system's (fake clock)", () => {
    /** Whole seconds, so that `exp - now` is exact at the edge. */
    const wholeSecondClock = () => fakeClock(Math.floor(Date.now() / 1000) * 1000);
    const lifetime = (iat: number, exp: number) => ({ payload: { iat, exp } });

    it("exp - now: at the maximum plus the tolerance accepted, one second more TOKEN_INVALID", async () => {
      const clock = wholeSecondClock();
      const v = verifier(clock, { tolerance: 5, maxLifetime: 3600 });
      const now = clock.now() / 1000;
      const atEdge = await forgeAccessToken(key, claims, lifetime(now, now + 3605));
      const past = await forgeAccessToken(key, claims, lifetime(now, now + 3606));
      expect(await reason(v.verifyAccessToken(atEdge))).to.equal("ACCEPTED");
      expect(await reason(v.verifyAccessToken(past))).to.equal("TOKEN_INVALID");
      // iat within the tolerance ahead: exp - iat is within the maximum, exp - now is not.
      const ahead = await forgeAccessToken(key, claims, lifetime(now + 5, now + 3606));
      expect(await reason(v.verifyAccessToken(ahead))).to.equal("TOKEN_INVALID");
    });

    it("exp - iat: a token issued earlier is measured from its iat (edge and one second past)", async () => {
      const clock = wholeSecondClock();
      const v = verifier(clock, { tolerance: 5, maxLifetime: 3600 });
      const iat = clock.now() / 1000 - 600;
      const atEdge = await forgeAccessToken(key, claims, lifetime(iat, iat + 3605));
      const past = await forgeAccessToken(key, claims, lifetime(iat, iat + 3606));
      expect(await reason(v.verifyAccessToken(atEdge))).to.equal("ACCEPTED");
      expect(await reason(v.verifyAccessToken(past))).to.equal("TOKEN_INVALID");
    });

    it("default: 24 h (RUNTIME_TOKEN_MAX_TTL_SECONDS) plus the tolerance; a year is refused, for runtime tokens too", async () => {
      const clock = wholeSecondClock();
      const v = createTokenVerifier({
        issuer: DEFAULT_TOKEN_ISSUER,
        now: clock.now,
        fetchJwks: async () => ({ keys: [key.publicJwk] }),
      });
      const now = clock.now() / 1000;
      const day = DEFAULT_TOKEN_SETTINGS.runtimeTokenMaxTtlSeconds;
      expect(day).to.equal(24 * 3600);
      const atEdge = await forgeAccessToken(key, claims, lifetime(now, now + day + 5));
      const past = await forgeAccessToken(key, claims, lifetime(now, now + day + 6));
      const year = await forgeAccessToken(key, claims, lifetime(now, now + 365 * 86400));
      expect(await reason(v.verifyAccessToken(atEdge))).to.equal("ACCEPTED");
      expect(await reason(v.verifyAccessToken(past))).to.equal("TOKEN_INVALID");
      expect(await reason(v.verifyAccessToken(year))).to.equal("TOKEN_INVALID");
      const runtimeYear = await forgeAccessToken(key, claims, {
        header: { typ: RUNTIME_TOKEN_TYPE },
        payload: { aud: RUNTIME_TOKEN_AUDIENCE, iat: now, exp: now + 365 * 86400 },
      });
      expect(await reason(v.verifyRuntimeToken(runtimeYear))).to.equal("TOKEN_INVALID");
    });

    it("the services' verifiers follow RUNTIME_TOKEN_MAX_TTL_SECONDS", async () => {
      const now = Math.floor(Date.now() / 1000);
      const settings = { ...DEFAULT_TOKEN_SETTINGS, runtimeTokenMaxTtlSeconds: 3 * 86400 };
      const v = createSettingsVerifier(settings, async () => ({ keys: [key.publicJwk] }));
      const twoDays = await forgeAccessToken(key, claims, lifetime(now, now + 2 * 86400));
      const fourDays = await forgeAccessToken(key, claims, lifetime(now, now + 4 * 86400));
      expect(await reason(v.verifyAccessToken(twoDays))).to.equal("ACCEPTED");
      expect(await reason(v.verifyAccessToken(fourDays))).to.equal("TOKEN_INVALID");
    });
  });

  describe("key set cache", () => {
    it("fetches once, then again only for an unknown kid (a rotation)", async () => {
      const v = verifier();
      await v.verifyAccessToken(await forgeAccessToken(key, claims));
      await v.verifyAccessToken(await forgeAccessToken(key, claims));
      expect(fetches).to.equal(1);
      const next = await generateTestKey();
      published = [key, next];
      await v.verifyAccessToken(await forgeAccessToken(next, claims));
      expect(fetches).to.equal(2);
    });

    it("made-up kids share one fetch per interval", async () => {
      const v = verifier();
      await v.warmUp();
      const tokens = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          forgeAccessToken(key, claims, { header: { kid: `x${i}` } }),
        ),
      );
      const reasons = await Promise.all(tokens.map((t) => reason(v.verifyAccessToken(t))));
      expect(new Set(reasons)).to.deep.equal(new Set(["TOKEN_INVALID"]));
      expect(fetches).to.be.at.most(2);
    });

    it("keeps verifying with known keys when the auth service is down; fails 'unavailable' with none", async () => {
      const clock = fakeClock();
      let up = true;
      const v = createTokenVerifier({
        issuer: DEFAULT_TOKEN_ISSUER,
        now: clock.now,
        jwksMaxAgeMs: 1000,
        fetchJwks: async () => {
          if (!up) throw new Error("down");
          return { keys: [key.publicJwk] };
        },
      });
      await v.verifyAccessToken(await forgeAccessToken(key, claims));
      up = false;
      clock.advance(5);
      expect(await reason(v.verifyAccessToken(await forgeAccessToken(key, claims)))).to.equal(
        "ACCEPTED",
      );
      const cold = createTokenVerifier({
        issuer: DEFAULT_TOKEN_ISSUER,
        fetchJwks: async () => {
          throw new Error("down");
        },
      });
      await cold.verifyAccessToken(await forgeAccessToken(key, claims)).then(
        () => expect.fail("verified without keys"),
        (error) => expect(error).to.be.instanceOf(KeySetUnavailableError),
      );
    });
  });
});
