/**
 * Two edges the hostile probe found, black box through the gateway and the admin gRPC: names that
 * could pass for other names (lone surrogates, bidi controls, combining marks only; NFC), and an
 * archived project opening detection sessions.
 */
import { Code } from "@connectrpc/connect";
import { expect } from "chai";
import { errorInfo } from "../../services/shared/errors/service-error.js";
import { nameProblem, normalizeName } from "../../services/shared/text/display-name.js";
import {
  createSession,
  createTenant,
  exampleYaml,
  publishMoveSpec,
  type TestTenant,
} from "../detection/support/session-api.js";
import type { JsonBody } from "../movespecs/support/api.js";
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
    ] as const) {
      it(`refuses a MoveSpec name made with ${what}: 400 FIELD_INVALID`, async () => {
        const { status, body } = await createRaw(json);
        expect(status, JSON.stringify(body)).to.equal(400);
        expect(body.error.details).to.include({ reason: "FIELD_INVALID", field: "name", problem });
      });
    }

    it("stores names in normal form C, and takes real characters beyond the BMP", async () => {
      const decomposed = await createRaw('"Cafe\\u0301 squat"');
      expect(decomposed.status).to.equal(201);
      expect(decomposed.body.name).to.equal("Caf\u00e9 squat");
      const emoji = await createRaw('"squat \\ud83c\\udfcb"');
      expect(emoji.status).to.equal(201);
      expect(emoji.body.name).to.equal("squat \u{1F3CB}");
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
