/**
 * An attacker who can log into the store (its password sits in its data directory) but holds no
 * key-encryption key writes signing_keys records with the official driver, in every form the
 * review tried: none is published, no token signed with its key is accepted, and each one is
 * alarmed (a line at error in auth's log, auth_signing_keys_refused_total on its /metrics).
 */
import { expect } from "chai";
import { decodeProtectedHeader, type JSONWebKeySet } from "jose";
import { type Collection, MongoClient } from "mongodb";
import { newId } from "../../services/shared/ids/uuid-v7.js";
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
  let attacker: TestKey;
  const database = `mds_auth_planted_${Date.now().toString(36)}`;

  before(async () => {
    system = await startTestSystem({
      // Reload every second (default 10): each plant is seen quickly.
      serviceEnv: { auth: { SIGNING_KEYS_RELOAD_SECONDS: "1", MONGODB_DATABASE: database } },
    });
    project = await createProjectWithKey(system);
    // The attacker's only credential: the store's own URI (user and password).
    mongo = new MongoClient(system.mongodbUri);
    keys = mongo.db(database).collection<Planted>("signing_keys");
    attacker = await generateTestKey();
  });

  after(async () => {
    await mongo?.close();
    await system?.stop();
  });

  const published = async (): Promise<string[]> => {
    const { jwksJson } = await authAdminClient(system).getJwks({});
    return (JSON.parse(jwksJson) as JSONWebKeySet).keys.map((key) => key.kid as string);
  };

  const alarmOf = (kid: string, reason: string) =>
    system
      .logsOf("auth")
      .find((line) => line.level === "error" && line.kid === kid && line.reason === reason);

  /**
   * Waits until auth has read the planted record: it alarmed about it, or (what the fix
   * prevents) published it. Auth reloads its keys when asked for them (at most every
   * SIGNING_KEYS_RELOAD_SECONDS), so the probe asks.
   */
  const seen = async (kid: string, reason: string): Promise<void> => {
    await eventually(async () => {
      return alarmOf(kid, reason) !== undefined || (await published()).includes(kid);
    }, 10_000);
  };

  /** After `seen`: the record is not published and was alarmed; the alarm line. */
  const refusedAndAlarmed = async (kid: string, reason: string) => {
    expect(await published()).to.not.include(kid);
    const alarm = alarmOf(kid, reason);
    expect(alarm, `an error line about ${kid} (${reason})`).to.not.equal(undefined);
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

  const signingKid = async (): Promise<string> =>
    decodeProtectedHeader(await mintAccessToken(system, { apiKey: project.apiKey })).kid as string;

  const pendingKey = async (): Promise<Planted> => {
    const rotated = await authAdminClient(system).rotateSigningKey({ activateAfterSeconds: 3600 });
    const kid = rotated.signingKey?.kid as string;
    return (await keys.findOne({ _id: kid })) as Planted;
  };

  let ownKid: string;

  it("control: the service's own key signs, its tokens are accepted, a foreign key's are not", async () => {
    ownKid = await signingKid();
    const token = await mintAccessToken(system, { apiKey: project.apiKey });
    const ok = await fetch(`${system.gatewayUrl}/api/projects/${project.projectId}`, {
      headers: authHeader(token),
    });
    expect(ok.status).to.equal(200);
    expect(await published()).to.include(ownKid);
    expect(await statusWith(attacker)).to.equal(401);
  });

  it("the reported attack: a plaintext private key activating in 300 days", async () => {
    const key = await generateTestKey();
    await keys.insertOne({
      _id: key.kid,
      alg: "EdDSA",
      private_jwk: key.jwk,
      created_at: new Date(),
      activates_at: new Date(Date.now() + 300 * DAY_MS),
    });
    await seen(key.kid, "plaintext");
    expect(await statusWith(key)).to.equal(401);
    const alarm = await refusedAndAlarmed(key.kid, "plaintext");
    expect(alarm.msg).to.match(/^signing key refused/);
    expect(JSON.stringify(alarm)).to.not.include(key.jwk.d as string);
    expect(await keys.countDocuments({ _id: key.kid })).to.equal(0, "deleted once alarmed");
  });

  it("a plaintext private key active since yesterday (it would sign at once)", async () => {
    const key = await generateTestKey();
    await keys.insertOne({
      _id: key.kid,
      alg: "EdDSA",
      private_jwk: key.jwk,
      created_at: new Date(Date.now() - DAY_MS),
      activates_at: new Date(Date.now() - DAY_MS / 2),
    });
    await seen(key.kid, "plaintext");
    expect(await statusWith(key)).to.equal(401);
    expect(await signingKid()).to.equal(ownKid);
    await refusedAndAlarmed(key.kid, "plaintext");
  });

  it("the service's sealed record copied under a made-up kid, as is and with the attacker's public key", async () => {
    const own = (await keys.findOne({ _id: ownKid })) as Planted;
    const copied = { ...own, _id: newId() };
    const swapped = {
      ...own,
      _id: attacker.kid,
      public_jwk: { kty: "OKP", crv: "Ed25519", x: attacker.publicJwk.x },
    };
    await keys.insertMany([copied, swapped]);
    await seen(copied._id, "not_authentic");
    await seen(swapped._id, "not_authentic");
    expect(await statusWith(attacker)).to.equal(401);
    await refusedAndAlarmed(copied._id, "not_authentic");
    await refusedAndAlarmed(swapped._id, "not_authentic");
  });

  it("a pending key of the service moved to activate in the past: refused, the schedule holds", async () => {
    const pending = await pendingKey();
    expect(await published()).to.include(pending._id, "published before it signs");
    await keys.updateOne(
      { _id: pending._id },
      { $set: { activates_at: new Date(Date.now() - 60_000) } },
    );
    await eventually(
      async () =>
        alarmOf(pending._id, "not_authentic") !== undefined || (await signingKid()) !== ownKid,
      10_000,
    );
    expect(await signingKid()).to.equal(ownKid);
    await refusedAndAlarmed(pending._id, "not_authentic");
  });

  it("a key of the service with its public key replaced by the attacker's", async () => {
    const pending = await pendingKey();
    await keys.updateOne(
      { _id: pending._id },
      { $set: { public_jwk: { kty: "OKP", crv: "Ed25519", x: attacker.publicJwk.x } } },
    );
    await eventually(async () => {
      if (alarmOf(pending._id, "not_authentic")) return true;
      await published();
      return (await statusWith(attacker, pending._id)) !== 401;
    }, 10_000);
    expect(await statusWith(attacker, pending._id)).to.equal(401);
    await refusedAndAlarmed(pending._id, "not_authentic");
  });

  it("a sealed record of the kind an older version wrote (kid-only seal) is refused once keys are current", async () => {
    const own = (await keys.findOne({ _id: ownKid })) as Planted;
    const { v: _v, ...legacy } = own.sealed_private_jwk as Record<string, unknown>;
    const kid = newId();
    await keys.insertOne({ ...own, _id: kid, sealed_private_jwk: legacy });
    await seen(kid, "legacy_sealed");
    await refusedAndAlarmed(kid, "legacy_sealed");
  });

  it("the alarm's metric counts every refusal by reason; the service still signs with its own key", async () => {
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
    expect(await signingKid()).to.equal(ownKid);
    expect(await keys.countDocuments({})).to.equal(1, "every planted record deleted");
  });
});
