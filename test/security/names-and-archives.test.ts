/**
 * Two edges the hostile probe found, black box through the gateway and the admin gRPC: names that
 * could pass for other names (lone surrogates, bidi controls, combining marks only, invisible
 * characters, mixed scripts, stacked marks; NFKC; a look-alike of another project's public name),
 * and an archived project opening detection sessions. The rules one by one:
 * test/shared/display-name.test.ts.
 */
import { Code } from "@connectrpc/connect";
import { Visibility } from "@movement-detection/proto/authoring/v1";
import { errorInfo } from "@movement-detection/shared/errors";
import { nameProblem, normalizeName } from "@movement-detection/shared/text";
import { expect } from "chai";
import {
  createSession,
  createTenant,
  exampleYaml,
  publishMoveSpec,
  type TestTenant,
} from "../detection/support/session-api.js";
import { authoringClient, type JsonBody } from "../movespecs/support/api.js";
import { authAdminClient } from "../support/auth.js";
import { startTestSystem, type TestSystem } from "../support/system.js";

describe("display names and archived projects", function () {
  this.timeout(60_000);
  let system: TestSystem;
  let tenant: TestTenant;

  before(async () => {
    system = await startTestSystem();
    tenant = await createTenant(system);
  });
  after(async () => system?.stop());

  /** POST /api/movespecs with the JSON text as given (escapes reach the gateway unparsed). */
  const createRaw = (nameJson: string) =>
    fetch(`${system.gatewayUrl}/api/movespecs`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${tenant.token}` },
      body: `{"name":${nameJson},"project_id":"${tenant.projectId}"}`,
    }).then(async (response) => ({
      status: response.status,
      body: (await response.json()) as JsonBody,
    }));

  describe("names", () => {
    it("the rules themselves", () => {
      expect(nameProblem("Squat")).to.equal(undefined);
      expect(nameProblem("Sentadilla 🏋️")).to.equal(undefined);
      expect(nameProblem("\ud800")).to.equal("lone_surrogate");
      expect(nameProblem("x\udc00")).to.equal("lone_surrogate");
      expect(nameProblem("squat\u202Egpj")).to.equal("bidi_control");
      expect(nameProblem("a\u2067b")).to.equal("bidi_control");
      expect(nameProblem("\u0301\u0301")).to.equal("no_base_character");
      expect(nameProblem("e\u0301")).to.equal(undefined);
      expect(normalizeName("  Cafe\u0301 ")).to.equal("Caf\u00e9");
    });

    for (const [what, json, problem] of [
      ["a lone surrogate", '"\\ud800"', "lone_surrogate"],
      ["a lone surrogate among letters", '"squat \\udfff"', "lone_surrogate"],
      ["a right-to-left override", '"squat\\u202egpj.exe"', "bidi_control"],
      ["an isolate", '"\\u2066squat\\u2069"', "bidi_control"],
      ["combining marks only", '"\\u0301\\u0308\\u0301"', "no_base_character"],
      ["a zero width space", '"Squat\\u200bPro"', "invisible_character"],
      [
        "tag characters (hidden text)",
        '"Squat\\udb40\\udc65\\udb40\\udc76"',
        "invisible_character",
      ],
      ["a Cyrillic S", '"\\u0405quat Pro"', "mixed_scripts"],
      ["100 stacked accents", `"Squat${"\\u0301".repeat(100)}"`, "stacked_marks"],
    ] as const) {
      it(`refuses a MoveSpec name made with ${what}: 400 FIELD_INVALID`, async () => {
        const { status, body } = await createRaw(json);
        expect(status, JSON.stringify(body)).to.equal(400);
        expect(body.error.details).to.include({ reason: "FIELD_INVALID", field: "name", problem });
      });
    }

    it("stores names in normal form KC, and takes real characters beyond the BMP", async () => {
      const decomposed = await createRaw('"Cafe\\u0301 squat"');
      expect(decomposed.status).to.equal(201);
      expect(decomposed.body.name).to.equal("Caf\u00e9 squat");
      const emoji = await createRaw('"squat \\ud83c\\udfcb"');
      expect(emoji.status).to.equal(201);
      expect(emoji.body.name).to.equal("squat \u{1F3CB}");
      const fullwidth = await createRaw('"\\uff33\\uff51\\uff55\\uff41\\uff54"');
      expect(fullwidth.status).to.equal(201);
      expect(fullwidth.body.name).to.equal("Squat");
    });

    it("refuses the same names for organizations and projects (admin gRPC)", async () => {
      const admin = authAdminClient(system);
      for (const name of ["\u202Eevil", "\u0301"]) {
        const refused = await admin.createOrganization({ name }).then(
          () => undefined,
          (error: unknown) => errorInfo(error),
        );
        expect(refused).to.include({ code: Code.InvalidArgument, reason: "FIELD_INVALID" });
      }
      const { organization } = await admin.createOrganization({ name: "Cafe\u0301" });
      expect(organization?.name).to.equal("Caf\u00e9");
    });
  });

  describe("a public name that looks like another project's", () => {
    const create = (who: TestTenant, name: string, visibility: "public" | "private") =>
      who.call("POST", "/api/movespecs", { name, project_id: who.projectId, visibility });

    it("is refused (409 NAME_CONFUSABLE); the same characters, a private name, the project's own are not", async () => {
      const [first, second] = await Promise.all([createTenant(system), createTenant(system)]);
      const original = await create(first, "COMBO", "public");
      expect(original.status).to.equal(201);
      // All Cyrillic, so no mixed scripts: only its skeleton gives it away.
      const cyrillic = "\u0421\u041E\u041C\u0412\u041E";
      const lookalike = await create(second, cyrillic, "public");
      expect(lookalike.status, JSON.stringify(lookalike.body)).to.equal(409);
      expect(lookalike.body.error.code).to.equal("already_exists");
      expect(lookalike.body.error.details).to.deep.include({
        reason: "NAME_CONFUSABLE",
        field: "name",
        confusable_with: { movespec_id: original.body.movespec_id, name: "COMBO" },
      });
      expect((await create(second, cyrillic, "private")).status).to.equal(201);
      expect((await create(first, cyrillic, "public")).status).to.equal(201);
      const copy = await create(second, "COMBO", "public");
      expect(copy.status, JSON.stringify(copy.body)).to.equal(201);
      const fullwidth = await create(second, "\uFF23\uFF2F\uFF2D\uFF22\uFF2F", "public");
      expect(fullwidth.status).to.equal(201);
      expect(fullwidth.body.name).to.equal("COMBO");
    });

    it("is refused when an operator makes it public or renames a public one to it (admin gRPC)", async () => {
      const [first, second] = await Promise.all([createTenant(system), createTenant(system)]);
      const original = await create(first, "TACO", "public");
      const hidden = await create(second, "\u0422\u0410\u0421\u041E", "private");
      const other = await create(second, "Burrito", "public");
      const admin = authoringClient(system);
      const refusals = await Promise.all(
        [
          admin.setVisibility({
            movespecId: hidden.body.movespec_id,
            visibility: Visibility.PUBLIC,
            actor: "test",
          }),
          admin.updateMoveSpec({
            movespecId: other.body.movespec_id,
            name: "\u0422\u0410\u0421\u041E",
            actor: "test",
          }),
        ].map((call) =>
          call.then(
            () => undefined,
            (error: unknown) => errorInfo(error),
          ),
        ),
      );
      for (const refused of refusals) {
        expect(refused).to.deep.include({ code: Code.AlreadyExists, reason: "NAME_CONFUSABLE" });
        expect(refused?.metadata.confusable_with).to.deep.equal({
          movespec_id: original.body.movespec_id,
          name: "TACO",
        });
      }
      const still = await second.call("GET", `/api/movespecs/${hidden.body.movespec_id}`);
      expect(still.body.visibility).to.equal("private");
    });
  });

  describe("an archived project", () => {
    it("opens no detection session (409 PROJECT_ARCHIVED), though its token has not expired", async () => {
      const owner = await createTenant(system);
      const spec = await publishMoveSpec(owner, exampleYaml("squat"), { name: "squat" });
      const before = await createSession(owner, { movespec_id: spec.movespecId });
      expect(before.session_id).to.be.a("string");
      await authAdminClient(system).archiveProject({ projectId: owner.projectId });
      const refused = await owner.call("POST", "/api/detection/sessions", {
        project_id: owner.projectId,
        movespec_id: spec.movespecId,
      });
      expect(refused.status).to.equal(409);
      expect(refused.body.error.details.reason).to.equal("PROJECT_ARCHIVED");
      // The same as every MoveSpec write of that project.
      const write = await owner.call("POST", `/api/movespecs/${spec.movespecId}/versions`);
      expect(write.body.error?.details.reason).to.equal("PROJECT_ARCHIVED");
    });

    it("refuses a session under an Idempotency-Key too, a new key and the repeat of one used before", async () => {
      const owner = await createTenant(system);
      const spec = await publishMoveSpec(owner, exampleYaml("squat"), { name: "squat" });
      const body = { project_id: owner.projectId, movespec_id: spec.movespecId };
      const usedKey = { "idempotency-key": `used-${Date.now()}` };
      const first = await owner.call("POST", "/api/detection/sessions", body, usedKey);
      expect(first.status, JSON.stringify(first.body)).to.equal(201);
      await authAdminClient(system).archiveProject({ projectId: owner.projectId });
      for (const headers of [usedKey, { "idempotency-key": `new-${Date.now()}` }]) {
        const refused = await owner.call("POST", "/api/detection/sessions", body, headers);
        expect(refused.status, JSON.stringify(refused.body)).to.equal(409);
        expect(refused.body.error.details.reason).to.equal("PROJECT_ARCHIVED");
        expect(refused.body).to.not.have.property("runtime_token");
      }
    });
  });
});
