/**
 * An attacker who can log into the store (its password sits in its data directory) but holds no
 * key-encryption key writes signing_keys records with the official driver, in every form the
 * review tried: none is published, no token signed with its key is accepted, and each one is
 * alarmed (a line at error in auth's log, auth_signing_keys_refused_total on its /metrics).
 *
 * The records are planted in two rounds, each read by auth in one reload (at most every
 * SIGNING_KEYS_RELOAD_SECONDS, here 1): first the forms an older auth service used (plaintext
 * published, a moved activation obeyed), then copies of a sealed record, which made every load of
 * an older service fail and would hide the first round.
 */

import { newId } from "@movement-detection/shared/ids";
import { expect } from "chai";
import { decodeProtectedHeader, type JSONWebKeySet } from "jose";
import { type Collection, MongoClient } from "mongodb";
import { forgeAccessToken, generateTestKey, type TestKey } from "../auth/token-forge.js";
import {
  authAdminClient,
  authHeader,
  createProjectWithKey,
  mintAccessToken,
  type TestProject,
} from "../support/auth.js";
import { eventually } from "../support/eventually.js";
import { startTestSystem, type TestSystem } from "../support/system.js";

type Planted = Record<string, unknown> & { _id: string };

const DAY_MS = 24 * 3600 * 1000;

describe("signing keys planted through the store with its credentials only: never trusted, alarmed", function () {
  this.timeout(60_000);
  let system: TestSystem;
  let mongo: MongoClient;
  let keys: Collection<Planted>;
  let project: TestProject;
  /** The key that signs before anything is planted. */
  let ownKid: string;
  const database = `mds_auth_planted_${Date.now().toString(36)}`;

  before(async () => {
    system = await startTestSystem({
      serviceEnv: {
        auth: { SIGNING_KEYS_RELOAD_SECONDS: "1", MONGODB_DATABASE: database },
        // A token naming a key the gateway does not know waits for its next fetch (default 1 s).
        gateway: { TOKEN_KEYS_REFETCH_INTERVAL_MS: "50" },
      },
    });
    project = await createProjectWithKey(system);
    // The attacker's only credential: the store's own URI (user and password).
    mongo = new MongoClient(system.mongodbUri);
    keys = mongo.db(database).collection<Planted>("signing_keys");
    ownKid = await signingKid();
  });

  after(async () => {
    await mongo?.close();
    await system?.stop();
  });

  const published = async (): Promise<string[]> => {
    const { jwksJson } = await authAdminClient(system).getJwks({});
    return (JSON.parse(jwksJson) as JSONWebKeySet).keys.map((key) => key.kid as string);
  };

  const signingKid = async (): Promise<string> =>
    decodeProtectedHeader(await mintAccessToken(system, { apiKey: project.apiKey })).kid as string;

  const alarmOf = (kid: string, reason: string) =>
    system
      .logsOf("auth")
      .find((line) => line.level === "error" && line.kid === kid && line.reason === reason);

  /**
   * Waits until auth has read the planted records: it alarmed about each, or (what the fix
   * prevents) published one of `planted` or signs with another key. Auth reloads its keys when asked for them,
   * so the probe asks.
   */
  const seen = async (
    expected: readonly [kid: string, reason: string][],
    planted: readonly string[],
  ): Promise<void> => {
    await eventually(async () => {
      if (expected.every(([kid, reason]) => alarmOf(kid, reason))) return true;
      const kids = await published();
      return planted.some((kid) => kids.includes(kid)) || (await signingKid()) !== ownKid;
    }, 10_000);
  };

  /** The record is not published, was alarmed at error, and is no longer in the store. */
  const refusedAndAlarmed = async (kid: string, reason: string) => {
    expect(await published()).to.not.include(kid);
    const alarm = alarmOf(kid, reason);
    expect(alarm, `an error line about ${kid} (${reason})`).to.not.equal(undefined);
    expect(await keys.countDocuments({ _id: kid })).to.equal(0, "deleted once alarmed");
    return alarm as Record<string, unknown>;
  };

  /** GET /api/projects/{id} with a token for the project signed by `key` as `kid`. */
  const statusWith = async (key: TestKey, kid = key.kid): Promise<number> => {
    const token = await forgeAccessToken(
      key,
      { projectId: project.projectId, organizationId: project.organizationId },
      { header: { kid } },
    );
    const response = await fetch(`${system.gatewayUrl}/api/projects/${project.projectId}`, {
      headers: authHeader(token),
    });
    const body = (await response.json()) as { error?: { details?: { reason?: string } } };
    if (response.status === 401) expect(body.error?.details?.reason).to.equal("TOKEN_INVALID");
    return response.status;
  };

  /** A key of the service's own, published now, signing in an hour: its record as stored. */
  const pendingKey = async (): Promise<Planted> => {
    const rotated = await authAdminClient(system).rotateSigningKey({ activateAfterSeconds: 3600 });
    return (await keys.findOne({ _id: rotated.signingKey?.kid as string })) as Planted;
  };

  const attackerPublicJwk = (key: TestKey) => ({ kty: "OKP", crv: "Ed25519", x: key.publicJwk.x });

  describe("round 1: plaintext keys, a moved activation, a swapped public key", () => {
    let future: TestKey;
    let past: TestKey;
    let moved: Planted;
    let swapped: Planted;
    let swapper: TestKey;

    before(async () => {
      [future, past, swapper] = await Promise.all([
        generateTestKey(),
        generateTestKey(),
        generateTestKey(),
      ]);
      moved = await pendingKey();
      swapped = await pendingKey();
      expect(await published()).to.include.members([moved._id, swapped._id]);
      await keys.insertMany([
        // The reported attack: a plaintext private key activating in 300 days.
        {
          _id: future.kid,
          alg: "EdDSA",
          private_jwk: future.jwk,
          created_at: new Date(),
          activates_at: new Date(Date.now() + 300 * DAY_MS),
        },
        // The same, active since yesterday: it would sign at once.
        {
          _id: past.kid,
          alg: "EdDSA",
          private_jwk: past.jwk,
          created_at: new Date(Date.now() - DAY_MS),
          activates_at: new Date(Date.now() - DAY_MS / 2),
        },
      ]);
      // Activating at the moment of the write (past by the next load), after the service's own
      // key: it would be the newest active key, the one that signs.
      await keys.updateOne({ _id: moved._id }, { $set: { activates_at: new Date() } });
      await keys.updateOne(
        { _id: swapped._id },
        { $set: { public_jwk: attackerPublicJwk(swapper) } },
      );
      await seen(
        [
          [future.kid, "plaintext"],
          [past.kid, "plaintext"],
          [moved._id, "not_authentic"],
          [swapped._id, "not_authentic"],
        ],
        [future.kid, past.kid],
      );
    });

    it("the reported attack: a plaintext private key activating in 300 days", async () => {
      expect(await statusWith(future)).to.equal(401);
      const alarm = await refusedAndAlarmed(future.kid, "plaintext");
      expect(alarm.msg).to.match(/^signing key refused/);
      expect(JSON.stringify(system.logs)).to.not.include(future.jwk.d as string);
    });

    it("a plaintext private key active since yesterday: not used, the service signs with its own", async () => {
      expect(await statusWith(past)).to.equal(401);
      expect(await signingKid()).to.equal(ownKid);
      await refusedAndAlarmed(past.kid, "plaintext");
    });

    it("a pending key of the service moved to activate at once: refused, the schedule holds", async () => {
      expect(await signingKid()).to.equal(ownKid);
      await refusedAndAlarmed(moved._id, "not_authentic");
    });

    it("a key of the service with its public key replaced by the attacker's", async () => {
      expect(await statusWith(swapper, swapped._id)).to.equal(401);
      await refusedAndAlarmed(swapped._id, "not_authentic");
    });

    it("control: the service's own tokens are still accepted", async () => {
      const token = await mintAccessToken(system, { apiKey: project.apiKey });
      const response = await fetch(`${system.gatewayUrl}/api/projects/${project.projectId}`, {
        headers: authHeader(token),
      });
      expect(response.status).to.equal(200);
      expect(await published()).to.include(ownKid);
    });
  });

  describe("round 2: copies of the service's sealed record", () => {
    let attacker: TestKey;
    const copied = newId();
    const legacy = newId();

    before(async () => {
      attacker = await generateTestKey();
      const own = (await keys.findOne({ _id: ownKid })) as Planted;
      const { v: _version, ...kidOnly } = own.sealed_private_jwk as Record<string, unknown>;
      await keys.insertMany([
        { ...own, _id: copied },
        { ...own, _id: attacker.kid, public_jwk: attackerPublicJwk(attacker) },
        // The kid-only seal of the version before, once this version's keys exist.
        { ...own, _id: legacy, sealed_private_jwk: kidOnly },
      ]);
      await seen(
        [
          [copied, "not_authentic"],
          [attacker.kid, "not_authentic"],
          [legacy, "legacy_sealed"],
        ],
        [copied, attacker.kid, legacy],
      );
    });

    it("copied as is under a made-up kid", async () => {
      await refusedAndAlarmed(copied, "not_authentic");
    });

    it("copied under the attacker's kid with the attacker's public key", async () => {
      expect(await statusWith(attacker)).to.equal(401);
      await refusedAndAlarmed(attacker.kid, "not_authentic");
    });

    it("in the kid-only form of the version before", async () => {
      await refusedAndAlarmed(legacy, "legacy_sealed");
    });
  });

  describe("the alarm's metric", () => {
    it("counts every refusal by reason; the store holds the service's own key only", async () => {
      const text = await (await fetch(`${system.services.auth.adminUrl}/metrics`)).text();
      const count = (reason: string) =>
        Number(
          new RegExp(
            `^auth_signing_keys_refused_total\\{[^}]*reason="${reason}"[^}]*\\} (\\d+)`,
            "m",
          ).exec(text)?.[1],
        );
      expect(count("plaintext")).to.equal(2);
      expect(count("not_authentic")).to.equal(4);
      expect(count("legacy_sealed")).to.equal(1);
      expect(count("unknown_kek")).to.equal(0);
      expect(
        await keys
          .find({})
          .map((record) => record._id)
          .toArray(),
      ).to.deep.equal([ownKid]);
    });
  });
});
