import { Writable } from "node:stream";
import { expect } from "chai";
import { pino } from "pino";
import {
  REDACTED,
  redactSecrets,
  secretRedaction,
} from "../../services/shared/logging/redaction.js";

/** A pino logger with the system's redaction, writing into an array. */
function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: pino({ ...secretRedaction(), level: "info" }, stream), lines };
}

const KEY = `msk_${"A1b2".repeat(10)}xyz`;
const JWT = "eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLXNpZ25hdHVyZQ";
const PEM = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIG\n-----END PRIVATE KEY-----";

describe("secrets never in logs (redaction of every logger)", () => {
  it("masks fields named like secrets, at the top level and one object down", () => {
    const { logger, lines } = capture();
    logger.info(
      {
        api_key: "anything at all",
        secret: "s",
        token: "t",
        nested: { access_token: "a", password: "p", runtime_token: "r" },
        headers: { authorization: "Bearer x" },
        organization_id: "kept",
      },
      "created",
    );
    const line = JSON.parse(lines[0]);
    expect(line.api_key).to.equal(REDACTED);
    expect(line.secret).to.equal(REDACTED);
    expect(line.token).to.equal(REDACTED);
    expect(line.nested).to.deep.equal({
      access_token: REDACTED,
      password: REDACTED,
      runtime_token: REDACTED,
    });
    expect(line.headers.authorization).to.equal(REDACTED);
    expect(line.organization_id).to.equal("kept");
  });

  it("masks secret-shaped text in any field, the message and error text", () => {
    const { logger, lines } = capture();
    logger.warn({ note: `key ${KEY} and ${JWT}`, err: new Error(`bad ${PEM}`) }, `saw ${KEY}`);
    const text = lines.join("");
    for (const secret of [KEY, KEY.slice(4), JWT, "MC4CAQAwBQYDK2VwBCIEIG"]) {
      expect(text).to.not.include(secret);
    }
    expect(text).to.include(REDACTED);
  });

  it("masks a password in a MongoDB connection string, keeps the rest", () => {
    expect(redactSecrets('{"uri":"mongodb://app:s3cr3t@db:27017/?authSource=admin"}')).to.equal(
      `{"uri":"mongodb://app:${REDACTED}@db:27017/?authSource=admin"}`,
    );
    expect(redactSecrets("mongodb://127.0.0.1:27117/?directConnection=true")).to.equal(
      "mongodb://127.0.0.1:27117/?directConnection=true",
    );
  });

  it("leaves ordinary lines alone: hints, ids, hashes", () => {
    const line =
      '{"msg":"key created","secret_hint":"msk_AbC1","id":"0195a2b4-7c1d-7000-8000-000000000000"}';
    expect(redactSecrets(line)).to.equal(line);
  });
});
