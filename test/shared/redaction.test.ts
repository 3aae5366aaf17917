import { execFile } from "node:child_process";
import { join } from "node:path";
import { Writable } from "node:stream";
import { promisify } from "node:util";
import { REDACTED, redactSecrets, secretRedaction } from "@movement-detection/shared/logging";
import { expect } from "chai";
import { pino } from "pino";

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

  it("masks a request's authorization header logged whole, and never changes the caller's objects", () => {
    const { logger, lines } = capture();
    const req = { method: "GET", headers: { authorization: "Bearer x", accept: "*/*" } };
    const nested = { password: "p", kept: 1 };
    const list = [{ token: "in a list" }];
    logger.info({ req, nested, list, count: 3 }, "request");
    const line = JSON.parse(lines[0]);
    expect(line.req).to.deep.equal({
      method: "GET",
      headers: { authorization: REDACTED, accept: "*/*" },
    });
    expect(line.nested).to.deep.equal({ password: REDACTED, kept: 1 });
    expect(line.count).to.equal(3);
    // Arrays are left as they are (the pattern net below still covers secret-shaped text).
    expect(line.list).to.deep.equal(list);
    expect(req.headers.authorization).to.equal("Bearer x");
    expect(nested.password).to.equal("p");
  });

  it("keeps an error's type, message and stack when it masks a secret-named field of it", () => {
    const { logger, lines } = capture();
    const error = Object.assign(new TypeError("exchange refused"), { token: "t0ken" });
    logger.warn({ err: error }, "failed");
    const line = JSON.parse(lines[0]);
    expect(line.err.type).to.equal("TypeError");
    expect(line.err.message).to.equal("exchange refused");
    expect(line.err.stack).to.contain("exchange refused");
    expect(line.err.token).to.equal(REDACTED);
    expect((error as unknown as { token: string }).token).to.equal("t0ken");
  });

  it("is in every service's logger, which still labels its levels", async () => {
    const root = join(import.meta.dirname, "../..");
    const script = `import { createLogger } from "@movement-detection/shared/logging";
      createLogger({ service: "t", level: "info" }).info({ api_key: "plain", nested: { secret: "s" } }, "hi");`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      { cwd: root },
    );
    const line = JSON.parse(stdout);
    expect(line).to.include({ level: "info", service: "t", api_key: REDACTED, msg: "hi" });
    expect(line.nested).to.deep.equal({ secret: REDACTED });
  });

  it("writes each line before the call returns: a process killed right after logging loses none", async () => {
    const root = join(import.meta.dirname, "../..");
    const script = `import { createLogger } from "@movement-detection/shared/logging";
      const logger = createLogger({ service: "t", level: "info" });
      for (let i = 1; i <= 200; i += 1) logger.info({ i }, "line");
      process.kill(process.pid, "SIGKILL");`;
    const killed = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      { cwd: root },
    ).then(
      () => expect.fail("the script was to be killed"),
      (error: { signal?: string; stdout: string }) => error,
    );
    expect(killed.signal).to.equal("SIGKILL");
    const numbers = killed.stdout
      .trim()
      .split("\n")
      .map((text) => JSON.parse(text).i);
    expect(numbers).to.deep.equal(Array.from({ length: 200 }, (_, index) => index + 1));
  });

  it("Node's own warnings go through the logger: url.parse() quoting a target with a key in it", async () => {
    const root = join(import.meta.dirname, "../..");
    const body = "Zx9-Qw_3".repeat(5) + "AbC";
    const script = `import { parse } from "node:url";
      import { createLogger } from "@movement-detection/shared/logging";
      import { logProcessWarnings } from "@movement-detection/shared/logging";
      logProcessWarnings(createLogger({ service: "t", level: "info" }));
      try { parse("http://[::1/x%6Dsk_${body}"); } catch {}
      setTimeout(() => {}, 50);`;
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      { cwd: root },
    );
    expect(stderr + stdout).to.not.include(body);
    expect(stderr).to.equal("");
    const line = JSON.parse(stdout);
    expect(line).to.include({ level: "warn", msg: "process warning" });
    expect(line.warning).to.include({ name: "DeprecationWarning", code: "DEP0170" });
    expect(line.warning.message).to.include(`http://[::1/xmsk_${REDACTED}`);
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

  describe("keys in disguise: any case, inside a word, percent-encoded (issue 40)", () => {
    const BODY = "Zx9-Qw_3".repeat(5) + "AbC";
    const encodeAll = (text: string) =>
      [...text].map((char) => `%${char.charCodeAt(0).toString(16).padStart(2, "0")}`).join("");
    const line = (path: string) => JSON.stringify({ msg: "request", path });

    const disguises: [string, string][] = [
      ["upper case", `MSK_${BODY}`],
      ["mixed case, a service-account secret", `mSs_${BODY}`],
      ["inside a word", `/api/xmsk_${BODY}`],
      ["the prefix's first letter encoded", `/api/x%6Dsk_${BODY}`],
      ["lower-case hex", `/api/x%6dsk_${BODY}`],
      ["the underscore encoded", `/api/msk%5F${BODY}`],
      ["the body encoded", `/api/msk_${encodeAll(BODY)}`],
      ["every character encoded", `/api/${encodeAll(`msk_${BODY}`)}`],
      ["in a query value", `/api/movespecs?q=%4DSK_${BODY}&limit=5`],
      ["encoded twice", `/api/x%256Dsk_${BODY}`],
      ["encoded four times", `/api/x%2525256Dsk_${BODY}`],
      ["a JWT encoded", `/api/${encodeAll(JWT)}`],
    ];
    for (const [what, path] of disguises) {
      it(`${what}: ${path.slice(0, 40)}…`, () => {
        const masked = redactSecrets(line(path));
        expect(masked).to.not.include(BODY);
        expect(masked).to.not.include("c2lnbmF0dXJl");
        expect(masked.toLowerCase()).to.include(REDACTED);
        // Still one JSON line, its other fields as they were.
        expect(JSON.parse(masked).msg).to.equal("request");
      });
    }

    it("encoded five times is masked whole: a decoder that kept going would find the key", () => {
      const masked = JSON.parse(redactSecrets(line(`/api/x%252525256Dsk_${BODY}`)));
      expect(masked.path).to.equal(REDACTED);
    });

    it("a secret needs 16 characters after its prefix, encoded or not; 15 are a hint", () => {
      const sixteen = "A1b2".repeat(4);
      for (const prefix of ["msk_", "MSK_", "%6Dsk_", "%4d%53%4b%5f"]) {
        expect(JSON.parse(redactSecrets(line(`/api/${prefix}${sixteen}`))).path, prefix).to.match(
          /^\/api\/ms[ks]_\[redacted\]$/i,
        );
        const fifteen = line(`/api/${prefix}${sixteen.slice(1)}`);
        expect(redactSecrets(fifteen), prefix).to.equal(fifteen);
      }
    });

    it("writes a decoded quote, backslash or control character encoded again: the line stays one JSON object", () => {
      const path = `/api/%22,"level":"fatal%5C%0A%00msk_${BODY}`;
      const masked = redactSecrets(line(path));
      expect(masked).to.not.include(BODY);
      expect(masked).to.not.include("\n");
      const parsed = JSON.parse(masked);
      expect(Object.keys(parsed)).to.deep.equal(["msg", "path"]);
      expect(parsed.path).to.include("%22").and.include("%5C%0A%00msk_[redacted]");
    });

    it("leaves every other encoded word exactly as written: UTF-8, a lone %FF, broken escapes", () => {
      for (const path of [
        "/api/movespecs?q=squat%20pro&sort=name",
        "/api/movespecs?q=%E2%9C%93%FF",
        "/api/%G1%2%",
        "/api/x%25",
        "/api/msk%5Fshort",
      ]) {
        expect(redactSecrets(line(path)), path).to.equal(line(path));
      }
    });

    it("is linear in the line: 256 KiB of words with escapes and one long word without", () => {
      const text = `${"%41b ".repeat(40_000)}${"a".repeat(60_000)} %6Dsk_${BODY}`;
      const started = performance.now();
      const masked = redactSecrets(text);
      expect(performance.now() - started).to.be.below(1000);
      expect(masked).to.not.include(BODY);
      expect(masked.startsWith("%41b %41b ")).to.equal(true);
    });

    it("through a logger: an access line with a disguised key in its path and request id", () => {
      const { logger, lines } = capture();
      logger.info({ path: `/api/x%6Dsk_${BODY}`, request_id: `MSK_${BODY}` }, "request");
      expect(lines.join("")).to.not.include(BODY);
      const logged = JSON.parse(lines[0]);
      expect(logged.path).to.equal(`/api/xmsk_${REDACTED}`);
      expect(logged.request_id).to.equal(`MSK_${REDACTED}`);
    });
  });
});
