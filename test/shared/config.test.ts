import {
  ConfigError,
  envBool,
  envEnum,
  envInt,
  envList,
  envPort,
  envString,
  readServiceConfig,
} from "@movement-detection/shared/config";
import { readTokenSettings } from "@movement-detection/shared/tokens";
import { expect } from "chai";
import { loadGatewayConfig } from "../../gateway/config.js";

describe("configuration from the environment", () => {
  describe("envInt", () => {
    it("uses the default when unset or blank", () => {
      expect(envInt({}, "N", 7)).to.equal(7);
      expect(envInt({ N: "  " }, "N", 7)).to.equal(7);
    });

    it("accepts the range's edges and refuses one past them, naming the variable", () => {
      expect(envInt({ N: "1" }, "N", 5, { min: 1, max: 10 })).to.equal(1);
      expect(envInt({ N: "10" }, "N", 5, { min: 1, max: 10 })).to.equal(10);
      expect(() => envInt({ N: "0" }, "N", 5, { min: 1, max: 10 })).to.throw(
        ConfigError,
        /N must be >= 1/,
      );
      expect(() => envInt({ N: "11" }, "N", 5, { min: 1, max: 10 })).to.throw(
        ConfigError,
        /N must be <= 10/,
      );
    });

    it("refuses non-integers", () => {
      for (const value of ["1.5", "ten", "0x10", "1e3"]) {
        expect(() => envInt({ N: value }, "N", 5), value).to.throw(
          ConfigError,
          /N must be an integer/,
        );
      }
    });
  });

  it("envPort bounds ports to 0..65535", () => {
    expect(envPort({ P: "65535" }, "P", 1)).to.equal(65535);
    expect(() => envPort({ P: "65536" }, "P", 1)).to.throw(ConfigError, /P/);
  });

  it("envBool knows the usual spellings and refuses others", () => {
    expect(envBool({ B: "true" }, "B", false)).to.equal(true);
    expect(envBool({ B: "0" }, "B", true)).to.equal(false);
    expect(() => envBool({ B: "maybe" }, "B", true)).to.throw(ConfigError, /B must be a boolean/);
  });

  it("envEnum allows only the listed values", () => {
    expect(envEnum({ E: "b" }, "E", ["a", "b"] as const, "a")).to.equal("b");
    expect(() => envEnum({ E: "c" }, "E", ["a", "b"] as const, "a")).to.throw(/one of a, b/);
  });

  it("envList splits on commas and drops blanks", () => {
    expect(envList({ L: " a, b ,,c " }, "L", [])).to.deep.equal(["a", "b", "c"]);
    expect(envString({}, "S", "fallback")).to.equal("fallback");
  });

  it("service configuration is frozen and documented defaults apply", () => {
    const config = readServiceConfig({}, { name: "auth", grpcPort: 50051, adminPort: 9101 });
    expect(config).to.include({
      environment: "development",
      logLevel: "info",
      grpcPort: 50051,
      adminPort: 9101,
      mongodbDatabase: "mds_auth",
      supervised: false,
    });
    expect(Object.isFrozen(config)).to.equal(true);
  });

  it("MONGODB_MAX_TIME_MS: 5000 by default, 0 (no limit) to 600000; past either end refused", () => {
    const read = (value?: string) =>
      readServiceConfig(value === undefined ? {} : { MONGODB_MAX_TIME_MS: value }, {
        name: "auth",
        grpcPort: 50051,
        adminPort: 9101,
      }).mongodbMaxTimeMs;
    expect(read()).to.equal(5000);
    expect(read("0")).to.equal(0);
    expect(read("600000")).to.equal(600_000);
    expect(() => read("600001")).to.throw(ConfigError, /MONGODB_MAX_TIME_MS must be <= 600000/);
    expect(() => read("-1")).to.throw(ConfigError, /MONGODB_MAX_TIME_MS must be >= 0/);
  });

  it("token settings: the key refetch interval defaults to 1 s and is bounded to 10 ms..60 s", () => {
    expect(readTokenSettings({}).keysRefetchIntervalMs).to.equal(1000);
    const interval = (value: string) =>
      readTokenSettings({ TOKEN_KEYS_REFETCH_INTERVAL_MS: value }).keysRefetchIntervalMs;
    expect(interval("10")).to.equal(10);
    expect(interval("60000")).to.equal(60_000);
    expect(() => interval("9")).to.throw(
      ConfigError,
      /TOKEN_KEYS_REFETCH_INTERVAL_MS must be >= 10/,
    );
    expect(() => interval("60001")).to.throw(ConfigError, /must be <= 60000/);
    // The gateway reads the same setting.
    expect(
      loadGatewayConfig({ TOKEN_KEYS_REFETCH_INTERVAL_MS: "250" }).tokens.keysRefetchIntervalMs,
    ).to.equal(250);
  });

  it("gateway configuration rejects a bad value with the variable's name", () => {
    expect(() => loadGatewayConfig({ BODY_LIMIT_BYTES: "12" })).to.throw(/BODY_LIMIT_BYTES/);
    expect(
      loadGatewayConfig({ DETECTION_SERVICE_URLS: "https://a:1,https://b:2" }).detectionServiceUrls,
    ).to.deep.equal(["https://a:1", "https://b:2"]);
  });

  it("internal service URLs say the transport: https:// under mtls (default), http:// under h2c", () => {
    expect(() => loadGatewayConfig({ DETECTION_SERVICE_URLS: "http://a:1" })).to.throw(
      /DETECTION_SERVICE_URLS must start with https:/,
    );
    expect(() => loadGatewayConfig({ AUTH_SERVICE_URL: "http://auth:50051" })).to.throw(
      /AUTH_SERVICE_URL must start with https:/,
    );
    const plain = loadGatewayConfig({
      INTERNAL_TRANSPORT: "h2c",
      AUTH_SERVICE_URL: "http://auth:1",
    });
    expect(plain.authServiceUrl).to.equal("http://auth:1");
    expect(plain.catalogueServiceUrl).to.equal("http://127.0.0.1:50052");
    expect(() =>
      loadGatewayConfig({ INTERNAL_TRANSPORT: "h2c", AUTH_SERVICE_URL: "https://auth:1" }),
    ).to.throw(/must start with http:/);
    expect(loadGatewayConfig({}).authServiceUrl).to.equal("https://127.0.0.1:50051");
    expect(() => loadGatewayConfig({ ENVIRONMENT: "production" })).to.throw(/INTERNAL_TLS_DIR/);
    expect(() => loadGatewayConfig({ TRUST_DOMAIN: "Not A Domain" })).to.throw(/TRUST_DOMAIN/);
  });
});
