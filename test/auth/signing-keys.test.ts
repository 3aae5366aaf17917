import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createLogger } from "@movement-detection/shared/logging";
import { expect } from "chai";
import {
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  jwtVerify,
  SignJWT,
} from "jose";
import { jwsKeyOf, signCompactJws } from "../../services/auth/signing/compact-jws.js";
import {
  createDirectoryKeySource,
  SIGNING_KID_FILE,
} from "../../services/auth/signing/directory-key-source.js";
import { createKeyRing } from "../../services/auth/signing/key-ring.js";
import { nextChange, scheduleKeys } from "../../services/auth/signing/key-schedule.js";
import { generateTestKey, writeKeyDirectory } from "./token-forge.js";

const logger = createLogger({ service: "test", level: "silent" });

describe("services/auth/signing", () => {
  describe("scheduleKeys", () => {
    const retention = 1000;
    const keys = [
      { kid: "a", createdAt: 0, activatesAt: 0 },
      { kid: "b", createdAt: 100, activatesAt: 100 },
      { kid: "c", createdAt: 150, activatesAt: 5000 },
    ];

    it("the newest active key signs; the one before retired when it took over", () => {
      const states = scheduleKeys(keys, 200, retention);
      expect(states.map((s) => [s.kid, s.signing, s.published])).to.deep.equal([
        ["a", false, true],
        ["b", true, true],
        ["c", false, true], // published before it signs
      ]);
      expect(states[0]).to.include({ retiredAt: 100, verifyUntil: 1100 });
    });

    it("a retired key is unpublished once every token it signed has expired", () => {
      const states = scheduleKeys(keys, 1100, retention);
      expect(states.find((s) => s.kid === "a")?.published).to.equal(false);
    });

    it("a pending key signs once its time comes", () => {
      const states = scheduleKeys(keys, 5000, retention);
      expect(states.find((s) => s.signing)?.kid).to.equal("c");
      expect(nextChange(scheduleKeys(keys, 200, retention), 200)).to.equal(1100);
    });
  });

  describe("compact JWS (the signer's, without WebCrypto)", () => {
    const keyPair = async (alg: "EdDSA" | "ES256") => {
      const pair = await generateKeyPair(alg, { extractable: true });
      const jwk = { ...(await exportJWK(pair.privateKey)), kid: `k-${alg}`, alg };
      return { jwk, publicKey: pair.publicKey };
    };
    const payload = {
      iss: "i",
      aud: "a",
      sub: "s",
      iat: 1_800_000_000,
      exp: 1_800_000_900,
      x: "é",
    };

    for (const alg of ["EdDSA", "ES256"] as const) {
      it(`${alg}: jose verifies it, and reads back the header and claims it was given`, async () => {
        const { jwk, publicKey } = await keyPair(alg);
        const token = signCompactJws({ kid: jwk.kid, typ: "at+jwt" }, payload, jwsKeyOf(jwk));
        const verified = await jwtVerify(token, publicKey, {
          algorithms: [alg],
          currentDate: new Date(1_800_000_100_000),
        });
        expect(verified.protectedHeader).to.deep.equal({ alg, kid: jwk.kid, typ: "at+jwt" });
        expect(verified.payload).to.deep.equal(payload);
      });
    }

    it("EdDSA: the very bytes jose's SignJWT writes (Ed25519 signatures are deterministic)", async () => {
      const { jwk } = await keyPair("EdDSA");
      const { iss, aud, sub, iat, exp, ...claims } = payload;
      const byJose = await new SignJWT(claims)
        .setProtectedHeader({ alg: "EdDSA", kid: jwk.kid, typ: "at+jwt" })
        .setIssuer(iss)
        .setAudience(aud)
        .setSubject(sub)
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .sign(await importJWK(jwk, "EdDSA"));
      const ours = signCompactJws(
        { kid: jwk.kid, typ: "at+jwt" },
        { ...claims, iss, aud, sub, iat, exp },
        jwsKeyOf(jwk),
      );
      expect(ours).to.equal(byJose);
    });

    it("refuses, when loading, a key labelled with another algorithm than its own", async () => {
      const { jwk: ed25519 } = await keyPair("EdDSA");
      const { jwk: p256 } = await keyPair("ES256");
      expect(() => jwsKeyOf({ ...ed25519, alg: "ES256" })).to.throw(/not an ES256 key/);
      expect(() => jwsKeyOf({ ...p256, alg: "EdDSA" })).to.throw(/not an EdDSA key/);
      const p384 = await exportJWK(
        (await generateKeyPair("ES384", { extractable: true })).privateKey,
      );
      expect(() =>
        jwsKeyOf({ ...p384, kid: "k", alg: "ES256" } as JWK & { kid: string; alg: "ES256" }),
      ).to.throw(/not an ES256 key/);
      expect(
        decodeProtectedHeader(signCompactJws({ kid: "k", typ: "t" }, {}, jwsKeyOf(p256))).alg,
      ).to.equal("ES256");
    });
  });

  describe("directory key source (production SIGNING_KEYS_DIR)", () => {
    it("publishes every key, signs with signing-kid, and follows changes without a restart", async () => {
      const first = await generateTestKey("2026-01-a");
      const second = await generateTestKey("2026-02-b");
      const dir = await writeKeyDirectory([first]);
      try {
        const ring = createKeyRing({
          source: createDirectoryKeySource(dir.dir),
          reloadMs: 0,
          logger,
        });
        await ring.load();
        expect((await ring.signer()).kid).to.equal(first.kid);
        await writeFile(join(dir.dir, `${second.kid}.json`), JSON.stringify(second.jwk));
        await writeFile(join(dir.dir, SIGNING_KID_FILE), first.kid);
        const published = JSON.parse(await ring.jwksJson()).keys.map((k: { kid: string }) => k.kid);
        expect(published).to.have.members([first.kid, second.kid]);
        expect((await ring.signer()).kid).to.equal(first.kid);
        await writeFile(join(dir.dir, SIGNING_KID_FILE), second.kid);
        expect((await ring.signer()).kid).to.equal(second.kid);
        expect(await ring.rotate(0)).to.equal(undefined); // the operator rotates, not the service
      } finally {
        await dir.remove();
      }
    });

    it("says once when several keys and no signing-kid leave the choice to the greatest kid", async () => {
      const first = await generateTestKey("2026-01-a");
      const second = await generateTestKey("2026-02-b");
      const dir = await writeKeyDirectory([first]);
      const told: [string, number][] = [];
      try {
        const source = createDirectoryKeySource(dir.dir, {
          onUnnamedChoice: (kid, count) => told.push([kid, count]),
        });
        await source.load(0);
        expect(told, "one key: nothing to choose").to.deep.equal([]);
        await writeFile(join(dir.dir, `${second.kid}.json`), JSON.stringify(second.jwk));
        await source.load(0);
        await source.load(0);
        expect(told, "once, not at every reload").to.deep.equal([[second.kid, 2]]);
        await writeFile(join(dir.dir, SIGNING_KID_FILE), first.kid);
        await source.load(0);
        expect(told, "named: nothing more to say").to.have.length(1);
      } finally {
        await dir.remove();
      }
    });

    it("refuses a public key, or a key without kid", async () => {
      const key = await generateTestKey();
      const dir = await writeKeyDirectory([]);
      try {
        await writeFile(join(dir.dir, "k.json"), JSON.stringify(key.publicJwk));
        await createDirectoryKeySource(dir.dir)
          .load(0)
          .then(
            () => expect.fail("loaded a public key as a signing key"),
            (error: Error) => expect(error.message).to.match(/not a private key/),
          );
      } finally {
        await dir.remove();
      }
    });
  });
});
