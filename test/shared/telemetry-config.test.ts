import { ConfigError } from "@movement-detection/shared/config";
import { readTelemetryConfig } from "@movement-detection/shared/telemetry";
import { expect } from "chai";

describe("tracing configuration (OTEL_* variables)", () => {
  it("is off by default, exports with an endpoint, carries context only when asked to", () => {
    expect(readTelemetryConfig({}, "auth").mode).to.equal("off");
    const exporting = readTelemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }, "auth");
    expect(exporting).to.deep.include({ mode: "export", serviceName: "auth" });
    expect(exporting.propagators).to.deep.equal(["tracecontext", "baggage"]);
    expect(
      readTelemetryConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:4318/v1/traces" }, "a")
        .mode,
    ).to.equal("export");
    expect(readTelemetryConfig({ OTEL_PROPAGATORS: "tracecontext" }, "a")).to.deep.include({
      mode: "propagate",
    });
    for (const off of [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" },
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" },
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_PROPAGATORS: "none" },
    ]) {
      expect(readTelemetryConfig(off, "a").mode, JSON.stringify(off)).to.not.equal("export");
    }
  });

  it("samplers: the six standard ones, a ratio from 0 to 1 and nothing past it", () => {
    expect(readTelemetryConfig({}, "a").sampler).to.deep.equal({
      name: "parentbased_always_on",
      ratio: 1,
    });
    for (const arg of ["0", "0.25", "1"]) {
      const config = readTelemetryConfig(
        { OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: arg },
        "a",
      );
      expect(config.sampler.ratio).to.equal(Number(arg));
    }
    for (const arg of ["1.01", "-0.1", "half", ""]) {
      const read = () =>
        readTelemetryConfig(
          { OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: arg },
          "a",
        );
      if (arg === "") expect(read().sampler.ratio).to.equal(1);
      else expect(read, arg).to.throw(ConfigError, /OTEL_TRACES_SAMPLER_ARG/);
    }
    expect(() => readTelemetryConfig({ OTEL_TRACES_SAMPLER: "sometimes" }, "a")).to.throw(
      ConfigError,
      /OTEL_TRACES_SAMPLER/,
    );
  });

  it("refuses what it cannot honour: another protocol or exporter, an unknown propagator", () => {
    for (const [name, value] of [
      ["OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"],
      ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/json"],
      ["OTEL_TRACES_EXPORTER", "zipkin"],
      ["OTEL_PROPAGATORS", "b3"],
    ]) {
      expect(() => readTelemetryConfig({ [name]: value }, "a"), name).to.throw(ConfigError, name);
    }
    expect(
      readTelemetryConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" }, "a").mode,
    ).to.equal("off");
  });

  it("resource attributes: key=value pairs, percent-decoded; a malformed pair is refused", () => {
    const config = readTelemetryConfig(
      { OTEL_RESOURCE_ATTRIBUTES: "service.version=1.2.3, team=r%26d", OTEL_SERVICE_NAME: "x" },
      "auth",
    );
    expect(config.resourceAttributes).to.deep.equal({ "service.version": "1.2.3", team: "r&d" });
    expect(config.serviceName).to.equal("x");
    expect(() => readTelemetryConfig({ OTEL_RESOURCE_ATTRIBUTES: "novalue" }, "a")).to.throw(
      ConfigError,
      /OTEL_RESOURCE_ATTRIBUTES/,
    );
  });
});
