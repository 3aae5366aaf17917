import { MOVESPEC_TEMPLATE } from "@movement-detection/movespec";
import { Visibility } from "@movement-detection/proto/authoring/v1";
import { expect } from "chai";
import { STAR_COUNT_TIMEOUT_MS } from "../../gateway/routes/movespecs.js";
import {
  authAdminClient,
  createProjectWithKey,
  createProjectWithToken,
  mintAccessToken,
} from "../support/auth.js";
import { startTestSystem, type TestSystem } from "../support/system.js";
import { apiOf, authoringClient, BROKEN_YAML, type JsonBody } from "./support/api.js";

const UNKNOWN_ID = "01a20000-0000-7000-8000-000000000000";
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe("MoveSpec routes (black box through the gateway)", function () {
  this.timeout(60_000);
  let system: TestSystem;
  let call: ReturnType<typeof apiOf>;
  let owner: { token: string; projectId: string; organizationId: string };
  let other: { token: string; projectId: string };

  before(async () => {
    system = await startTestSystem({
      serviceEnv: { authoring: { CATALOGUE_SYNC_INTERVAL_MS: "200" } },
    });
    call = apiOf(system.gatewayUrl);
    owner = await createProjectWithToken(system);
    other = await createProjectWithToken(system);
  });
  after(async () => {
    await system?.stop();
  });

  async function createMoveSpec(
    body: JsonBody = {},
    token = owner.token,
    projectId = owner.projectId,
  ) {
    const response = await call("POST", "/api/movespecs", {
      token,
      body: { name: "Squat", project_id: projectId, ...body },
    });
    expect(response.status, JSON.stringify(response.body)).to.equal(201);
    return response.body;
  }

  function expectError(
    response: { status: number; body: JsonBody },
    status: number,
    code: string,
    reason: string,
  ) {
    expect(response.status, JSON.stringify(response.body)).to.equal(status);
    expect(response.body.error.code).to.equal(code);
    expect(response.body.error.details.reason).to.equal(reason);
  }

  describe("the authoring flow", () => {
    it("creates, edits, validates, versions, releases and reads back", async () => {
      const created = await createMoveSpec({ description: "Bodyweight squats" });
      expect(created).to.include({
        project_id: owner.projectId,
        name: "Squat",
        visibility: "private",
        description: "Bodyweight squats",
        star_count: 0,
      });
      expect(created.created_at).to.match(ISO_MS);
      expect(created).not.to.have.property("archived_at");
      expect(created).not.to.have.property("current_released_version_id");
      expect(created).not.to.have.property("organization_id");
      const id = created.movespec_id;

      const draft = await call("GET", `/api/movespecs/${id}/draft`, { token: owner.token });
      expect(draft.status).to.equal(200);
      expect(draft.body.yaml_source).to.equal(MOVESPEC_TEMPLATE);
      expect(draft.body.movespec_id).to.equal(id);
      expect(Object.keys(draft.body).sort()).to.deep.equal([
        "draft_id",
        "movespec_id",
        "updated_at",
        "yaml_source",
      ]);
      expect(draft.headers.get("etag")).to.match(/^"r\d+"$/);

      // A draft with an unknown key after the template: the error points at it.
      const broken = `${MOVESPEC_TEMPLATE.trimEnd()}\nbogus_key: 1\n`;
      const line = broken.split("\n").length - 1;
      const put = await call("PUT", `/api/movespecs/${id}/draft`, {
        token: owner.token,
        body: { yaml_source: broken },
      });
      expect(put.status).to.equal(200);
      expect(put.body.yaml_source).to.equal(broken);
      expect(put.headers.get("etag")).to.not.equal(draft.headers.get("etag"));

      const invalid = await call("POST", `/api/movespecs/${id}/draft/validate`, {
        token: owner.token,
      });
      expect(invalid.status).to.equal(200);
      expect(invalid.body).to.include({
        ok: false,
        target_id: draft.body.draft_id,
        target_type: "draft",
      });
      expect(invalid.body.validated_at).to.match(ISO_MS);
      const unknownKey = invalid.body.errors.find(
        (issue: JsonBody) => issue.code === "UNKNOWN_KEY",
      );
      expect(unknownKey).to.include({ severity: "error", line, column: 1, path: "bogus_key" });

      // And one nested in the first phase: line, column and path point into the mapping.
      const lines = MOVESPEC_TEMPLATE.split("\n");
      const phaseLine = lines.indexOf("phases:") + 1;
      const phase = lines[phaseLine].trim().replace(/:$/, "");
      lines.splice(phaseLine + 1, 0, "    bogus_key: 1");
      await call("PUT", `/api/movespecs/${id}/draft`, {
        token: owner.token,
        body: { yaml_source: lines.join("\n") },
      });
      const nested = await call("POST", `/api/movespecs/${id}/draft/validate`, {
        token: owner.token,
      });
      expect(nested.body.errors.find((issue: JsonBody) => issue.code === "UNKNOWN_KEY")).to.include(
        {
          line: phaseLine + 2,
          column: 5,
          path: `phases.${phase}.bogus_key`,
        },
      );

      const refused = await call("POST", `/api/movespecs/${id}/versions`, { token: owner.token });
      expectError(refused, 409, "failed_precondition", "DRAFT_INVALID");
      expect(refused.body.error.details.errors).to.be.an("array").that.is.not.empty;
      expect(refused.body.error.details.errors[0]).to.have.property("code");

      await call("PUT", `/api/movespecs/${id}/draft`, {
        token: owner.token,
        body: { yaml_source: MOVESPEC_TEMPLATE },
      });
      const clean = await call("POST", `/api/movespecs/${id}/draft/validate`, {
        token: owner.token,
      });
      expect(clean.body).to.include({ ok: true });
      expect(clean.body.errors).to.deep.equal([]);
      expect(clean.body.warnings).to.be.an("array");

      const v1 = await call("POST", `/api/movespecs/${id}/versions`, { token: owner.token });
      expect(v1.status).to.equal(201);
      expect(v1.body).to.include({
        movespec_id: id,
        version_number: 1,
        yaml_source: MOVESPEC_TEMPLATE,
      });
      const { createHash } = await import("node:crypto");
      expect(v1.body.content_hash).to.equal(
        createHash("sha256").update(MOVESPEC_TEMPLATE).digest("hex"),
      );
      // Same draft again: still a new version.
      const v2 = await call("POST", `/api/movespecs/${id}/versions`, { token: owner.token });
      expect(v2.body).to.include({ version_number: 2, content_hash: v1.body.content_hash });

      const noRelease = await call("GET", `/api/movespecs/${id}/released-source`, {
        token: owner.token,
      });
      expectError(noRelease, 409, "failed_precondition", "NO_RELEASED_VERSION");

      const released = await call(
        "POST",
        `/api/movespecs/${id}/versions/${v1.body.movespec_version_id}/release`,
        {
          token: owner.token,
        },
      );
      expect(released.status).to.equal(200);
      expect(released.body.current_released_version_id).to.equal(v1.body.movespec_version_id);
      expect(Date.parse(released.body.updated_at)).to.be.greaterThan(
        Date.parse(created.updated_at) - 1,
      );
      expect(released.headers.get("etag")).to.be.a("string");

      const source = await call("GET", `/api/movespecs/${id}/released-source`, {
        token: owner.token,
      });
      expect(source.body).to.deep.equal({
        movespec_id: id,
        movespec_version_id: v1.body.movespec_version_id,
        version_number: 1,
        yaml_source: MOVESPEC_TEMPLATE,
      });

      const list = await call("GET", `/api/movespecs/${id}/versions`, { token: owner.token });
      expect(list.body).to.include({ total: 2, has_more: false, limit: 20, offset: 0 });
      expect(list.body.items.map((v: JsonBody) => v.version_number)).to.deep.equal([2, 1]);
      const page = await call("GET", `/api/movespecs/${id}/versions?limit=1&offset=1`, {
        token: owner.token,
      });
      expect(page.body).to.include({ total: 2, has_more: false, limit: 1, offset: 1 });
      expect(page.body.items[0].version_number).to.equal(1);

      const one = await call(
        "GET",
        `/api/movespecs/${id}/versions/${v2.body.movespec_version_id}`,
        { token: owner.token },
      );
      expect(one.body).to.deep.equal(v2.body);
      const got = await call("GET", `/api/movespecs/${id}`, { token: owner.token });
      expect(got.status).to.equal(200);
      expect(got.body.current_released_version_id).to.equal(v1.body.movespec_version_id);
      expect(got.headers.get("etag")).to.be.a("string");
    });

    it("gives 50 concurrent version creations the numbers 1..50 exactly once", async () => {
      const { movespec_id: id } = await createMoveSpec();
      const responses = await Promise.all(
        Array.from({ length: 50 }, () =>
          call("POST", `/api/movespecs/${id}/versions`, { token: owner.token }),
        ),
      );
      expect(responses.map((r) => r.status)).to.deep.equal(Array(50).fill(201));
      const numbers = responses.map((r) => r.body.version_number).sort((a, b) => a - b);
      expect(numbers).to.deep.equal(Array.from({ length: 50 }, (_, i) => i + 1));
      const listed = await call("GET", `/api/movespecs/${id}/versions?limit=200`, {
        token: owner.token,
      });
      expect(listed.body.total).to.equal(50);
      expect(listed.body.items.map((v: JsonBody) => v.version_number)).to.deep.equal(
        Array.from({ length: 50 }, (_, i) => 50 - i),
      );
    });

    it("refuses the second of two editors holding the same ETag, and loses nothing", async () => {
      const { movespec_id: id } = await createMoveSpec();
      const [a, b] = await Promise.all([
        call("GET", `/api/movespecs/${id}/draft`, { token: owner.token }),
        call("GET", `/api/movespecs/${id}/draft`, { token: owner.token }),
      ]);
      const etag = a.headers.get("etag") as string;
      expect(b.headers.get("etag")).to.equal(etag);
      const first = await call("PUT", `/api/movespecs/${id}/draft`, {
        token: owner.token,
        headers: { "if-match": etag },
        body: { yaml_source: `${MOVESPEC_TEMPLATE}# editor A\n` },
      });
      expect(first.status).to.equal(200);
      const second = await call("PUT", `/api/movespecs/${id}/draft`, {
        token: owner.token,
        headers: { "if-match": etag },
        body: { yaml_source: `${MOVESPEC_TEMPLATE}# editor B\n` },
      });
      expectError(second, 412, "precondition_failed", "ETAG_MISMATCH");
      const now = await call("GET", `/api/movespecs/${id}/draft`, { token: owner.token });
      expect(now.body.yaml_source).to.equal(`${MOVESPEC_TEMPLATE}# editor A\n`);
      expect(now.headers.get("etag")).to.equal(first.headers.get("etag"));
      // With the fresh ETag, B succeeds; `*` and a foreign ETag behave as RFC 9110 says.
      const retried = await call("PUT", `/api/movespecs/${id}/draft`, {
        token: owner.token,
        headers: { "if-match": now.headers.get("etag") as string },
        body: { yaml_source: `${MOVESPEC_TEMPLATE}# editor B\n` },
      });
      expect(retried.status).to.equal(200);
      const star = await call("PUT", `/api/movespecs/${id}/draft`, {
        token: owner.token,
        headers: { "if-match": "*" },
        body: { yaml_source: MOVESPEC_TEMPLATE },
      });
      expect(star.status).to.equal(200);
      const weak = await call("PUT", `/api/movespecs/${id}/draft`, {
        token: owner.token,
        headers: { "if-match": `W/${star.headers.get("etag")}` },
        body: { yaml_source: MOVESPEC_TEMPLATE },
      });
      expectError(weak, 412, "precondition_failed", "ETAG_MISMATCH");
    });

    it("matches If-Match as a list of strong ETags: any one current one, compared exactly", async () => {
      const { movespec_id: id } = await createMoveSpec();
      const put = (ifMatch: string, comment: string) =>
        call("PUT", `/api/movespecs/${id}/draft`, {
          token: owner.token,
          headers: { "if-match": ifMatch },
          body: { yaml_source: `${MOVESPEC_TEMPLATE}# ${comment}\n` },
        });
      const first = await put("*", "one");
      const stale = first.headers.get("etag") as string;
      const second = await put(stale, "two");
      const current = second.headers.get("etag") as string;
      const revision = Number(/^"r(\d+)"$/.exec(current)?.[1]);
      expect(revision).to.be.greaterThan(1);
      // The current ETag anywhere in the list (after a stale one, a weak one, a foreign one).
      const listed = await put(`${stale}, W/${current}, "elsewhere", ${current}`, "three");
      expect(listed.status).to.equal(200);
      const now = listed.headers.get("etag") as string;
      // Stale ones only, and a number that only equals the current one as a number.
      expectError(
        await put(`${stale}, ${current}`, "x"),
        412,
        "precondition_failed",
        "ETAG_MISMATCH",
      );
      const padded = now.replace('"r', '"r0');
      expectError(await put(padded, "x"), 412, "precondition_failed", "ETAG_MISMATCH");
      const draft = await call("GET", `/api/movespecs/${id}/draft`, { token: owner.token });
      expect(draft.body.yaml_source).to.equal(`${MOVESPEC_TEMPLATE}# three\n`);
      expect(draft.headers.get("etag")).to.equal(now);
    });
  });

  describe("the catalogue not answering", () => {
    it("a MoveSpec is answered without its star count after a second, not the call deadline", async () => {
      const { movespec_id: id } = await createMoveSpec();
      const catalogue = system.services.catalogue.process.child.pid as number;
      process.kill(catalogue, "SIGSTOP");
      try {
        const started = performance.now();
        const read = await call("GET", `/api/movespecs/${id}`, { token: owner.token });
        const elapsedMs = performance.now() - started;
        expect(read.status).to.equal(200);
        expect(read.body.movespec_id).to.equal(id);
        expect(read.body).not.to.have.property("star_count");
        expect(elapsedMs).to.be.within(STAR_COUNT_TIMEOUT_MS, STAR_COUNT_TIMEOUT_MS + 4000);
      } finally {
        process.kill(catalogue, "SIGCONT");
      }
      const again = await call("GET", `/api/movespecs/${id}`, { token: owner.token });
      expect(again.body.star_count).to.equal(0);
    });
  });

  describe("Idempotency-Key", () => {
    it("replays POST /api/movespecs with the same key and body, refuses another body", async () => {
      const key = `create-${Date.now()}`;
      const body = { name: "Idempotent", project_id: owner.projectId };
      const first = await call("POST", "/api/movespecs", {
        token: owner.token,
        body,
        headers: { "idempotency-key": key },
      });
      const again = await call("POST", "/api/movespecs", {
        token: owner.token,
        body,
        headers: { "idempotency-key": key },
      });
      expect(first.status).to.equal(201);
      expect(again.status).to.equal(201);
      expect(again.body.movespec_id).to.equal(first.body.movespec_id);
      expect(again.body.created_at).to.equal(first.body.created_at);
      const other = await call("POST", "/api/movespecs", {
        token: owner.token,
        body: { ...body, name: "Something else" },
        headers: { "idempotency-key": key },
      });
      expectError(other, 409, "failed_precondition", "IDEMPOTENCY_KEY_REUSED");
      // Concurrent repeats still create one MoveSpec.
      const key2 = `create-concurrent-${Date.now()}`;
      const burst = await Promise.all(
        Array.from({ length: 5 }, () =>
          call("POST", "/api/movespecs", {
            token: owner.token,
            body,
            headers: { "idempotency-key": key2 },
          }),
        ),
      );
      expect(new Set(burst.map((r) => r.body.movespec_id)).size).to.equal(1);
    });

    it("replays POST .../versions and checks the key's length", async () => {
      const { movespec_id: id } = await createMoveSpec();
      const headers = { "idempotency-key": "v".repeat(255) };
      const first = await call("POST", `/api/movespecs/${id}/versions`, {
        token: owner.token,
        headers,
      });
      const again = await call("POST", `/api/movespecs/${id}/versions`, {
        token: owner.token,
        headers,
      });
      expect(first.status).to.equal(201);
      expect(again.body).to.deep.equal(first.body);
      const next = await call("POST", `/api/movespecs/${id}/versions`, { token: owner.token });
      expect(next.body.version_number).to.equal(2);
      const tooLong = await call("POST", `/api/movespecs/${id}/versions`, {
        token: owner.token,
        headers: { "idempotency-key": "v".repeat(256) },
      });
      expectError(tooLong, 400, "invalid_argument", "FIELD_INVALID");
      expect(tooLong.body.error.details.field).to.equal("Idempotency-Key");
      // The same key on another MoveSpec is another request.
      const { movespec_id: otherId } = await createMoveSpec();
      const reused = await call("POST", `/api/movespecs/${otherId}/versions`, {
        token: owner.token,
        headers,
      });
      expectError(reused, 409, "failed_precondition", "IDEMPOTENCY_KEY_REUSED");
    });
  });

  describe("limits, at and just past each edge", () => {
    it("name is 1..120 characters", async () => {
      expect((await createMoveSpec({ name: "x".repeat(120) })).name).to.have.length(120);
      expect((await createMoveSpec({ name: "é".repeat(120) })).name).to.have.length(120);
      expect((await createMoveSpec({ name: "x" })).name).to.equal("x");
      for (const name of ["x".repeat(121), "", "   "]) {
        const r = await call("POST", "/api/movespecs", {
          token: owner.token,
          body: { name, project_id: owner.projectId },
        });
        expectError(r, 400, "invalid_argument", "FIELD_INVALID");
        expect(r.body.error.details.field).to.equal("name");
      }
      const missing = await call("POST", "/api/movespecs", {
        token: owner.token,
        body: { project_id: owner.projectId },
      });
      expectError(missing, 400, "invalid_argument", "FIELD_REQUIRED");
      const wrongType = await call("POST", "/api/movespecs", {
        token: owner.token,
        body: { name: 7, project_id: owner.projectId },
      });
      expectError(wrongType, 400, "invalid_argument", "FIELD_INVALID");
    });

    it("name is counted once trimmed and in normal form C, at the edge and past it", async () => {
      // 120 decomposed "é" (240 code points as sent) are 120 characters; 121 are one too many.
      const decomposed = await createMoveSpec({ name: "e\u0301".repeat(120) });
      expect(decomposed.name).to.equal("é".repeat(120));
      const padded = await createMoveSpec({ name: ` ${"x".repeat(120)} ` });
      expect(padded.name).to.equal("x".repeat(120));
      for (const name of ["e\u0301".repeat(121), ` ${"x".repeat(121)} `]) {
        const r = await call("POST", "/api/movespecs", {
          token: owner.token,
          body: { name, project_id: owner.projectId },
        });
        expectError(r, 400, "invalid_argument", "FIELD_INVALID");
        expect(r.body.error.details.errors).to.deep.equal([
          {
            field: "name",
            reason: "FIELD_INVALID",
            message: "name must be 1 to 120 characters without control characters",
          },
        ]);
      }
    });

    it("every invalid field is listed at once, name and description's characters included", async () => {
      const r = await call("POST", "/api/movespecs", {
        token: owner.token,
        body: {
          name: "a\u0007b",
          project_id: owner.projectId,
          description: `bad\u0000${"d".repeat(10)}`,
          visibility: "x",
        },
      });
      expectError(r, 400, "invalid_argument", "FIELD_INVALID");
      const errors = r.body.error.details.errors as { field: string; message: string }[];
      expect(errors.map((e) => e.field)).to.deep.equal(["name", "description", "visibility"]);
      expect(errors[0].message).to.equal("name holds a control character");
      expect(errors[1].message).to.equal(
        "description holds a control character (only tab and line breaks are allowed)",
      );
      const blank = await call("POST", "/api/movespecs", {
        token: owner.token,
        body: { name: "   ", project_id: owner.projectId, description: "d".repeat(2001) },
      });
      expect(
        (blank.body.error.details.errors as { field: string }[]).map((e) => e.field),
      ).to.deep.equal(["name", "description"]);
      // Tab and line breaks are text layout, not control.
      const layout = "Squats.\r\n\tKnees over toes.\n";
      expect((await createMoveSpec({ description: layout })).description).to.equal(layout);
    });

    it("description is up to 2,000 characters", async () => {
      expect((await createMoveSpec({ description: "d".repeat(2000) })).description).to.have.length(
        2000,
      );
      // Characters are code points: 2,000 astral ones (4,000 UTF-16 units) pass both the
      // gateway's schema and authoring's own check.
      const astral = "\u{1F3CB}".repeat(2000);
      expect((await createMoveSpec({ description: astral })).description).to.equal(astral);
      for (const description of ["d".repeat(2001), "\u{1F3CB}".repeat(2001)]) {
        const r = await call("POST", "/api/movespecs", {
          token: owner.token,
          body: { name: "x", project_id: owner.projectId, description },
        });
        expectError(r, 400, "invalid_argument", "FIELD_INVALID");
        expect(r.body.error.details.field).to.equal("description");
      }
    });

    it("yaml_source is up to 256 KiB", async () => {
      const { movespec_id: id } = await createMoveSpec();
      const padding = (bytes: number) =>
        `${MOVESPEC_TEMPLATE}#${"p".repeat(bytes - MOVESPEC_TEMPLATE.length - 2)}\n`;
      const atLimit = padding(256 * 1024);
      expect(Buffer.byteLength(atLimit)).to.equal(256 * 1024);
      const ok = await call("PUT", `/api/movespecs/${id}/draft`, {
        token: owner.token,
        body: { yaml_source: atLimit },
      });
      expect(ok.status).to.equal(200);
      const over = await call("PUT", `/api/movespecs/${id}/draft`, {
        token: owner.token,
        body: { yaml_source: padding(256 * 1024 + 1) },
      });
      expectError(over, 413, "payload_too_large", "YAML_TOO_LARGE");
      // Bytes of UTF-8, not characters: "é" is 2 bytes, so these are far fewer characters than
      // 256 Ki and still one byte over.
      const wide = (bytes: number) => {
        const room = bytes - MOVESPEC_TEMPLATE.length - 2;
        return `${MOVESPEC_TEMPLATE}#${"é".repeat(Math.floor(room / 2))}${"p".repeat(room % 2)}\n`;
      };
      expect(Buffer.byteLength(wide(256 * 1024))).to.equal(256 * 1024);
      expect(Buffer.byteLength(wide(256 * 1024 + 1))).to.equal(256 * 1024 + 1);
      const wideAt = await call("PUT", `/api/movespecs/${id}/draft`, {
        token: owner.token,
        body: { yaml_source: wide(256 * 1024) },
      });
      expect(wideAt.status, JSON.stringify(wideAt.body)).to.equal(200);
      const wideOver = await call("PUT", `/api/movespecs/${id}/draft`, {
        token: owner.token,
        body: { yaml_source: wide(256 * 1024 + 1) },
      });
      expectError(wideOver, 413, "payload_too_large", "YAML_TOO_LARGE");
      expect(wideOver.body.error.details).to.include({
        limit_bytes: 256 * 1024,
        size_bytes: 256 * 1024 + 1,
      });
      const missing = await call("PUT", `/api/movespecs/${id}/draft`, {
        token: owner.token,
        body: {},
      });
      expectError(missing, 400, "invalid_argument", "FIELD_REQUIRED");
    });

    // A service's error travels in the gRPC answer's trailers, which HTTP/2 bounds: a draft with
    // thousands of issues made that answer fail, and the client got a 500 instead of the 409.
    it("a draft with more issues than an error carries: 409 DRAFT_INVALID with the first ones, never a 500", async () => {
      const { movespec_id: id } = await createMoveSpec();
      const unknownKeys = Array.from(
        { length: 1900 },
        (_, i) => `unknown_key_${i}_${"z".repeat(80)}: 1`,
      ).join("\n");
      const draft = await call("PUT", `/api/movespecs/${id}/draft`, {
        token: owner.token,
        body: { yaml_source: `${MOVESPEC_TEMPLATE}${unknownKeys}\n` },
      });
      expect(draft.status).to.equal(200);
      const validated = await call("POST", `/api/movespecs/${id}/draft/validate`, {
        token: owner.token,
      });
      const issues = validated.body.errors as JsonBody[];
      expect(issues.length).to.be.greaterThan(1000);
      const refused = await call("POST", `/api/movespecs/${id}/versions`, { token: owner.token });
      expectError(refused, 409, "failed_precondition", "DRAFT_INVALID");
      const { errors, errors_omitted: omitted } = refused.body.error.details;
      expect(errors).to.deep.equal(issues.slice(0, errors.length));
      expect(omitted).to.be.a("number").greaterThan(0);
      expect(errors.length + omitted).to.equal(issues.length);
    });

    it("limit is 1..200 and offset >= 0, integers only, never clamped", async () => {
      const { movespec_id: id } = await createMoveSpec({ visibility: "public" });
      for (const base of ["/api/movespecs", `/api/movespecs/${id}/versions`]) {
        for (const query of ["limit=1", "limit=200", "offset=0", "limit=20&offset=5"]) {
          const r = await call("GET", `${base}?${query}`, { token: owner.token });
          expect(r.status, `${base}?${query}`).to.equal(200);
        }
        // The largest offset is 2^53 - 1 (the largest integer JSON carries exactly): past the
        // end, an empty page, whatever the store does with so large a skip.
        const farthest = await call("GET", `${base}?offset=9007199254740991&limit=200`, {
          token: owner.token,
        });
        expect(farthest.status, JSON.stringify(farthest.body)).to.equal(200);
        expect(farthest.body).to.deep.include({
          items: [],
          has_more: false,
          limit: 200,
          offset: 9007199254740991,
        });
        const defaults = await call("GET", base, { token: owner.token });
        expect(defaults.body).to.include({ limit: 20, offset: 0 });
        for (const query of [
          "limit=0",
          "limit=201",
          "limit=-1",
          "offset=-1",
          "offset=9007199254740992",
        ]) {
          const r = await call("GET", `${base}?${query}`);
          expectError(r, 400, "invalid_argument", "LIMIT_OUT_OF_RANGE");
        }
        for (const query of ["limit=1.5", "limit=abc", "limit=", "offset=1e3", "limit=1&limit=2"]) {
          const r = await call("GET", `${base}?${query}`);
          expectError(r, 400, "invalid_argument", "FIELD_INVALID");
        }
      }
      expectError(
        await call("GET", "/api/movespecs?sort=popular"),
        400,
        "invalid_argument",
        "FIELD_INVALID",
      );
      expectError(
        await call("GET", `/api/movespecs?q=${"a".repeat(257)}`),
        400,
        "invalid_argument",
        "FIELD_INVALID",
      );
      expect((await call("GET", `/api/movespecs?q=${"a".repeat(256)}`)).status).to.equal(200);
    });
  });

  describe("visibility, scopes and anonymous access", () => {
    it("lets anyone read a public MoveSpec, and only its project write it", async () => {
      const created = await createMoveSpec({ visibility: "public" });
      const id = created.movespec_id;
      const v = await call("POST", `/api/movespecs/${id}/versions`, { token: owner.token });
      await call("POST", `/api/movespecs/${id}/versions/${v.body.movespec_version_id}/release`, {
        token: owner.token,
      });
      for (const token of [undefined, other.token]) {
        expect((await call("GET", `/api/movespecs/${id}`, { token })).status).to.equal(200);
        expect((await call("GET", `/api/movespecs/${id}/versions`, { token })).body.total).to.equal(
          1,
        );
        expect(
          (
            await call("GET", `/api/movespecs/${id}/versions/${v.body.movespec_version_id}`, {
              token,
            })
          ).status,
        ).to.equal(200);
        expect(
          (await call("GET", `/api/movespecs/${id}/released-source`, { token })).body
            .version_number,
        ).to.equal(1);
      }
      // The draft and every write are not anonymous, and not for other projects.
      expectError(
        await call("GET", `/api/movespecs/${id}/draft`),
        401,
        "unauthenticated",
        "TOKEN_MISSING",
      );
      expectError(
        await call("PUT", `/api/movespecs/${id}/draft`, { body: { yaml_source: "x" } }),
        401,
        "unauthenticated",
        "TOKEN_MISSING",
      );
      expectError(
        await call("POST", `/api/movespecs/${id}/versions`),
        401,
        "unauthenticated",
        "TOKEN_MISSING",
      );
      expectError(
        await call("POST", `/api/movespecs/${id}/draft/validate`),
        401,
        "unauthenticated",
        "TOKEN_MISSING",
      );
      expectError(
        await call("POST", "/api/movespecs", { body: { name: "x", project_id: owner.projectId } }),
        401,
        "unauthenticated",
        "TOKEN_MISSING",
      );
      expectError(
        await call("GET", `/api/movespecs/${id}/draft`, { token: other.token }),
        403,
        "permission_denied",
        "PROJECT_MISMATCH",
      );
      expectError(
        await call("PUT", `/api/movespecs/${id}/draft`, {
          token: other.token,
          body: { yaml_source: "x" },
        }),
        403,
        "permission_denied",
        "PROJECT_MISMATCH",
      );
      expectError(
        await call("POST", `/api/movespecs/${id}/versions`, { token: other.token }),
        403,
        "permission_denied",
        "PROJECT_MISMATCH",
      );
      expectError(
        await call("POST", `/api/movespecs/${id}/versions/${v.body.movespec_version_id}/release`, {
          token: other.token,
        }),
        403,
        "permission_denied",
        "PROJECT_MISMATCH",
      );
    });

    it("answers a private MoveSpec of another project exactly like a missing one", async () => {
      const { movespec_id: id } = await createMoveSpec();
      const v = await call("POST", `/api/movespecs/${id}/versions`, { token: owner.token });
      const vid = v.body.movespec_version_id;
      const paths = [
        ["GET", `/api/movespecs/${id}`],
        ["GET", `/api/movespecs/${id}/versions`],
        ["GET", `/api/movespecs/${id}/versions/${vid}`],
        ["GET", `/api/movespecs/${id}/released-source`],
        ["GET", `/api/movespecs/${id}/draft`],
        ["PUT", `/api/movespecs/${id}/draft`],
        ["POST", `/api/movespecs/${id}/draft/validate`],
        ["POST", `/api/movespecs/${id}/versions`],
        ["POST", `/api/movespecs/${id}/versions/${vid}/release`],
      ] as const;
      for (const [method, path] of paths) {
        const body = method === "PUT" ? { yaml_source: "x" } : undefined;
        const hidden = await call(method, path, { token: other.token, body });
        const missing = await call(method, path.replace(id, UNKNOWN_ID), {
          token: other.token,
          body,
        });
        expectError(hidden, 404, "not_found", "MOVESPEC_NOT_FOUND");
        expect(missing.status).to.equal(404);
        const strip = (r: JsonBody) => {
          const { request_id: _ignored, ...details } = r.error.details;
          return { ...r.error, details };
        };
        expect(strip(hidden.body)).to.deep.equal(
          JSON.parse(JSON.stringify(strip(missing.body)).replaceAll(UNKNOWN_ID, id)),
          `${method} ${path}`,
        );
        if (method === "GET" && !path.endsWith("/draft")) {
          expectError(await call(method, path), 404, "not_found", "MOVESPEC_NOT_FOUND");
        }
      }
      // Ids that are not UUIDs answer like unknown ones.
      expectError(
        await call("GET", "/api/movespecs/not-a-uuid", { token: owner.token }),
        404,
        "not_found",
        "MOVESPEC_NOT_FOUND",
      );
      expectError(
        await call("GET", `/api/movespecs/${id}/versions/nope`, { token: owner.token }),
        404,
        "not_found",
        "VERSION_NOT_FOUND",
      );
      expectError(
        await call("GET", `/api/movespecs/${id}/versions/${UNKNOWN_ID}`, { token: owner.token }),
        404,
        "not_found",
        "VERSION_NOT_FOUND",
      );
    });

    it("needs movespecs:read for a private read and movespecs:write for writes", async () => {
      const writeOnly = await createProjectWithKey(system, { scopes: ["movespecs:write"] });
      const writeToken = await mintAccessToken(system, { apiKey: writeOnly.apiKey });
      const created = await call("POST", "/api/movespecs", {
        token: writeToken,
        body: { name: "scoped", project_id: writeOnly.projectId },
      });
      expect(created.status).to.equal(201);
      const id = created.body.movespec_id;
      expectError(
        await call("GET", `/api/movespecs/${id}`, { token: writeToken }),
        403,
        "permission_denied",
        "SCOPE_MISSING",
      );
      expectError(
        await call("GET", `/api/movespecs/${id}/draft`, { token: writeToken }),
        403,
        "permission_denied",
        "SCOPE_MISSING",
      );
      // Nothing released yet: the token's own MoveSpec all the same, not a 404.
      expectError(
        await call("GET", `/api/movespecs/${id}/released-source`, { token: writeToken }),
        403,
        "permission_denied",
        "SCOPE_MISSING",
      );
      // Another project's private MoveSpec, nothing released either: 404, as for anyone.
      const { movespec_id: privateId } = await createMoveSpec();
      expectError(
        await call("GET", `/api/movespecs/${privateId}/released-source`, { token: writeToken }),
        404,
        "not_found",
        "MOVESPEC_NOT_FOUND",
      );
      const reader = await createProjectWithKey(system, { scopes: ["movespecs:read"] });
      const readToken = await mintAccessToken(system, { apiKey: reader.apiKey });
      expectError(
        await call("POST", "/api/movespecs", {
          token: readToken,
          body: { name: "x", project_id: reader.projectId },
        }),
        403,
        "permission_denied",
        "SCOPE_MISSING",
      );
      // Creating in another project than the token's.
      expectError(
        await call("POST", "/api/movespecs", {
          token: owner.token,
          body: { name: "x", project_id: other.projectId },
        }),
        403,
        "permission_denied",
        "PROJECT_MISMATCH",
      );
      expectError(
        await call("POST", "/api/movespecs", {
          token: owner.token,
          body: { name: "x", project_id: "nope" },
        }),
        400,
        "invalid_argument",
        "FIELD_INVALID",
      );
    });

    it("accepts visibility private or public at creation, never delisted", async () => {
      expect((await createMoveSpec({ visibility: "public" })).visibility).to.equal("public");
      expect((await createMoveSpec({ visibility: "private" })).visibility).to.equal("private");
      for (const visibility of ["delisted", "secret", 3]) {
        const r = await call("POST", "/api/movespecs", {
          token: owner.token,
          body: { name: "x", project_id: owner.projectId, visibility },
        });
        expectError(r, 400, "invalid_argument", "FIELD_INVALID");
        expect(r.body.error.details.field).to.equal("visibility");
      }
    });

    it("hides a delisted MoveSpec from everyone but its project", async () => {
      const { movespec_id: id } = await createMoveSpec({ visibility: "public" });
      expect((await call("GET", `/api/movespecs/${id}`)).status).to.equal(200);
      const admin = authoringClient(system);
      await admin.delistMoveSpec({ movespecId: id, actor: "test", reason: "spam" });
      expectError(
        await call("GET", `/api/movespecs/${id}`),
        404,
        "not_found",
        "MOVESPEC_NOT_FOUND",
      );
      expectError(
        await call("GET", `/api/movespecs/${id}`, { token: other.token }),
        404,
        "not_found",
        "MOVESPEC_NOT_FOUND",
      );
      const mine = await call("GET", `/api/movespecs/${id}`, { token: owner.token });
      expect(mine.body.visibility).to.equal("delisted");
      const back = await admin.setVisibility({
        movespecId: id,
        visibility: Visibility.PUBLIC,
        actor: "test",
      });
      expect(back.movespec?.visibility).to.equal(Visibility.PUBLIC);
      expect((await call("GET", `/api/movespecs/${id}`)).status).to.equal(200);
    });
  });

  describe("a project's own MoveSpecs (GET /api/projects/{id}/movespecs)", () => {
    it("lists every one of the project's, searched, sorted and paged, and nothing of another project's", async () => {
      const mine = await createProjectWithToken(system);
      const list = async (query = "", token = mine.token) => {
        const r = await call("GET", `/api/projects/${mine.projectId}/movespecs${query}`, { token });
        expect(r.status, JSON.stringify(r.body)).to.equal(200);
        return r.body;
      };
      expect(await list()).to.deep.equal({
        items: [],
        has_more: false,
        limit: 20,
        offset: 0,
        total: 0,
      });
      const make = (name: string, body: JsonBody = {}) =>
        createMoveSpec({ name, ...body }, mine.token, mine.projectId);
      const lunge = await make("lunge", { description: "Forward LUNGES, élan" });
      const squat = await make("Squat", { visibility: "public" });
      const archived = await make("archived one");
      const delisted = await make("Delisted", { visibility: "public" });
      await createMoveSpec({ name: "Not mine" }, other.token, other.projectId);
      const admin = authoringClient(system);
      await admin.archiveMoveSpec({ movespecId: archived.movespec_id, actor: "test" });
      await admin.delistMoveSpec({ movespecId: delisted.movespec_id, actor: "test", reason: "x" });
      // A release gives the squat its version's number; a draft save makes the lunge the latest.
      const v = await call("POST", `/api/movespecs/${squat.movespec_id}/versions`, {
        token: mine.token,
      });
      await call(
        "POST",
        `/api/movespecs/${squat.movespec_id}/versions/${v.body.movespec_version_id}/release`,
        { token: mine.token },
      );
      await call("PUT", `/api/movespecs/${lunge.movespec_id}/draft`, {
        token: mine.token,
        body: { yaml_source: MOVESPEC_TEMPLATE },
      });

      const recent = await list();
      expect(recent.items.map((i: JsonBody) => i.name)).to.deep.equal([
        "lunge",
        "Delisted",
        "archived one",
        "Squat",
      ]);
      expect(recent).to.include({ total: 4, has_more: false });
      const byName = (name: string) => recent.items.find((i: JsonBody) => i.name === name);
      expect(byName("Squat")).to.include({
        visibility: "public",
        released_version_number: 1,
        current_released_version_id: v.body.movespec_version_id,
      });
      expect(byName("lunge")).to.not.have.property("released_version_number");
      expect(byName("lunge").draft_updated_at).to.match(ISO_MS);
      expect(byName("lunge").draft_updated_at > byName("lunge").updated_at).to.equal(true);
      expect(byName("Delisted").visibility).to.equal("delisted");
      expect(byName("archived one").archived_at).to.match(ISO_MS);

      // By name, case-insensitive; paged with no repeat and no gap.
      const names = ["archived one", "Delisted", "lunge", "Squat"];
      expect((await list("?sort=name")).items.map((i: JsonBody) => i.name)).to.deep.equal(names);
      const pages = [];
      for (let offset = 0; offset < 4; offset += 3) {
        const page = await list(`?sort=name&limit=3&offset=${offset}`);
        expect(page).to.include({ limit: 3, offset, total: 4, has_more: offset === 0 });
        pages.push(...page.items.map((i: JsonBody) => i.name));
      }
      expect(pages).to.deep.equal(names);

      // The catalogue's words: case and accents ignored, every word must be found.
      expect((await list("?q=Elan%20lunges")).items.map((i: JsonBody) => i.name)).to.deep.equal([
        "lunge",
      ]);
      expect(await list("?q=lunges%20squat")).to.include({ total: 0 });
      expect((await list("?q=SQUAT")).items.map((i: JsonBody) => i.movespec_id)).to.deep.equal([
        squat.movespec_id,
      ]);
    });

    it("needs movespecs:read, answers any other project as not found, and checks its query", async () => {
      const base = `/api/projects/${owner.projectId}/movespecs`;
      expectError(await call("GET", base), 401, "unauthenticated", "TOKEN_MISSING");
      const writeOnly = await createProjectWithToken(system, { scopes: ["movespecs:write"] });
      expectError(
        await call("GET", `/api/projects/${writeOnly.projectId}/movespecs`, {
          token: writeOnly.token,
        }),
        403,
        "permission_denied",
        "SCOPE_MISSING",
      );
      const readOnly = await createProjectWithToken(system, { scopes: ["movespecs:read"] });
      expect(
        (
          await call("GET", `/api/projects/${readOnly.projectId}/movespecs`, {
            token: readOnly.token,
          })
        ).status,
      ).to.equal(200);
      for (const project of [other.projectId, UNKNOWN_ID, "not-a-uuid"]) {
        expectError(
          await call("GET", `/api/projects/${project}/movespecs`, { token: owner.token }),
          404,
          "not_found",
          "PROJECT_NOT_FOUND",
        );
      }
      for (const query of ["limit=1", "limit=200", "offset=9007199254740991", "sort=name"]) {
        const r = await call("GET", `${base}?${query}`, { token: owner.token });
        expect(r.status, query).to.equal(200);
      }
      for (const query of ["limit=0", "limit=201", "offset=-1", "offset=9007199254740992"]) {
        const r = await call("GET", `${base}?${query}`, { token: owner.token });
        expectError(r, 400, "invalid_argument", "LIMIT_OUT_OF_RANGE");
      }
      // Stars are the public catalogue's order: a project's own list has none to sort by.
      for (const query of ["sort=stars", "limit=1.5", `q=${"a".repeat(257)}`]) {
        const r = await call("GET", `${base}?${query}`, { token: owner.token });
        expectError(r, 400, "invalid_argument", "FIELD_INVALID");
      }
      const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join("%20");
      expect((await call("GET", `${base}?q=${words(16)}`, { token: owner.token })).status).to.equal(
        200,
      );
      expectError(
        await call("GET", `${base}?q=${words(17)}`, { token: owner.token }),
        400,
        "invalid_argument",
        "FIELD_INVALID",
      );
      expect(
        (await call("GET", `${base}?q=${"a".repeat(256)}`, { token: owner.token })).status,
      ).to.equal(200);
    });
  });

  describe("archives", () => {
    it("refuses writes to an archived MoveSpec, still serves reads", async () => {
      const { movespec_id: id } = await createMoveSpec({ visibility: "public" });
      const v = await call("POST", `/api/movespecs/${id}/versions`, { token: owner.token });
      const admin = authoringClient(system);
      const archived = await admin.archiveMoveSpec({ movespecId: id, actor: "test" });
      expect(archived.movespec?.archivedAt).to.not.equal(undefined);
      const got = await call("GET", `/api/movespecs/${id}`);
      expect(got.body.archived_at).to.match(ISO_MS);
      expectError(
        await call("PUT", `/api/movespecs/${id}/draft`, {
          token: owner.token,
          body: { yaml_source: MOVESPEC_TEMPLATE },
        }),
        409,
        "failed_precondition",
        "MOVESPEC_ARCHIVED",
      );
      expectError(
        await call("POST", `/api/movespecs/${id}/versions`, { token: owner.token }),
        409,
        "failed_precondition",
        "MOVESPEC_ARCHIVED",
      );
      expectError(
        await call("POST", `/api/movespecs/${id}/versions/${v.body.movespec_version_id}/release`, {
          token: owner.token,
        }),
        409,
        "failed_precondition",
        "MOVESPEC_ARCHIVED",
      );
      expect(
        (await call("GET", `/api/movespecs/${id}/draft`, { token: owner.token })).status,
      ).to.equal(200);
      expect((await call("GET", `/api/movespecs/${id}/versions`)).status).to.equal(200);
    });

    it("refuses writes to any MoveSpec of an archived project", async () => {
      const project = await createProjectWithToken(system);
      const created = await call("POST", "/api/movespecs", {
        token: project.token,
        body: { name: "soon archived", project_id: project.projectId },
      });
      const id = created.body.movespec_id;
      await authAdminClient(system).archiveProject({ projectId: project.projectId });
      expectError(
        await call("POST", "/api/movespecs", {
          token: project.token,
          body: { name: "x", project_id: project.projectId },
        }),
        409,
        "failed_precondition",
        "PROJECT_ARCHIVED",
      );
      expectError(
        await call("PUT", `/api/movespecs/${id}/draft`, {
          token: project.token,
          body: { yaml_source: MOVESPEC_TEMPLATE },
        }),
        409,
        "failed_precondition",
        "PROJECT_ARCHIVED",
      );
      expectError(
        await call("POST", `/api/movespecs/${id}/versions`, { token: project.token }),
        409,
        "failed_precondition",
        "PROJECT_ARCHIVED",
      );
    });
  });

  describe("versions of another MoveSpec", () => {
    it("are not found under the wrong MoveSpec, for reading or releasing", async () => {
      const a = await createMoveSpec();
      const b = await createMoveSpec();
      const va = await call("POST", `/api/movespecs/${a.movespec_id}/versions`, {
        token: owner.token,
      });
      const vid = va.body.movespec_version_id;
      expectError(
        await call("GET", `/api/movespecs/${b.movespec_id}/versions/${vid}`, {
          token: owner.token,
        }),
        404,
        "not_found",
        "VERSION_NOT_FOUND",
      );
      expectError(
        await call("POST", `/api/movespecs/${b.movespec_id}/versions/${vid}/release`, {
          token: owner.token,
        }),
        404,
        "not_found",
        "VERSION_NOT_FOUND",
      );
      const unchanged = await call("GET", `/api/movespecs/${b.movespec_id}`, {
        token: owner.token,
      });
      expect(unchanged.body).not.to.have.property("current_released_version_id");
    });
  });

  describe("request shape", () => {
    it("answers unknown methods, bad JSON and bad media types with the envelope", async () => {
      const wrongMethod = await call("DELETE", `/api/movespecs/${UNKNOWN_ID}`, {
        token: owner.token,
      });
      expect(wrongMethod.status).to.equal(405);
      expect(wrongMethod.headers.get("allow")).to.include("GET");
      const badJson = await call("POST", "/api/movespecs", { token: owner.token, body: "{nope" });
      expectError(badJson, 400, "invalid_argument", "MALFORMED_JSON");
      const notJson = await fetch(`${system.gatewayUrl}/api/movespecs`, {
        method: "POST",
        headers: { authorization: `Bearer ${owner.token}`, "content-type": "text/yaml" },
        body: "name: x",
      });
      expect(notJson.status).to.equal(415);
      const noBody = await call("PUT", `/api/movespecs/${UNKNOWN_ID}/draft`, {
        token: owner.token,
      });
      expectError(noBody, 400, "invalid_argument", "FIELD_REQUIRED");
      const broken = await call("PUT", `/api/movespecs/${UNKNOWN_ID}/draft`, {
        token: owner.token,
        body: { yaml_source: BROKEN_YAML },
      });
      expectError(broken, 404, "not_found", "MOVESPEC_NOT_FOUND");
    });
  });
});
