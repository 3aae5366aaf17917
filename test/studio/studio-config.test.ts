/**
 * The Studio is on by default in development and off in production (whose build leaves its
 * sources out); STUDIO_ENABLED decides either way, and when it is off no /studio route exists.
 */
import { expect } from "chai";
import { loadGatewayConfig } from "../../gateway/config.js";
import { publicRoutes } from "../../gateway/routes/index.js";
import type { RouteDeps } from "../../gateway/routes/route-deps.js";

const PRODUCTION = { ENVIRONMENT: "production", INTERNAL_TLS_DIR: "/etc/mds/tls" };

describe("STUDIO_ENABLED", () => {
  it("defaults to on in development and off in production, and is read as a boolean", () => {
    expect(loadGatewayConfig({}).studioEnabled).to.equal(true);
    expect(loadGatewayConfig(PRODUCTION).studioEnabled).to.equal(false);
    expect(loadGatewayConfig({ ...PRODUCTION, STUDIO_ENABLED: "true" }).studioEnabled).to.equal(
      true,
    );
    expect(loadGatewayConfig({ STUDIO_ENABLED: "off" }).studioEnabled).to.equal(false);
    expect(() => loadGatewayConfig({ STUDIO_ENABLED: "maybe" })).to.throw(/STUDIO_ENABLED/);
  });

  it("adds the /studio routes only when on", () => {
    const routesWith = (env: Record<string, string>) =>
      publicRoutes({ config: loadGatewayConfig(env), clients: {} } as unknown as RouteDeps);
    for (const path of ["/studio", "/studio/app.js", "/studio/recordings/m01_s01.jsonl.gz"]) {
      expect(routesWith({}).match(path, "GET").route, path).to.equal(true);
      expect(routesWith({ STUDIO_ENABLED: "false" }).match(path, "GET").route, path).to.equal(
        false,
      );
    }
  });
});
