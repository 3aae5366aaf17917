/**
 * gRPC server reflection on every service, through clients that know nothing of this project's
 * .proto files: `buf curl` without --schema, and a grpcurl-style client on @grpc/grpc-js that asks
 * grpc.reflection.v1 and v1alpha for the services and their descriptors, builds a registry from
 * them, and makes a call with nothing else. Both over mutual TLS with the operator credential, as
 * an operator's tools would (reflection is an operator's method in the access table).
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  create,
  createFileRegistry,
  type DescMessage,
  fromBinary,
  toBinary,
} from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import * as grpc from "@grpc/grpc-js";
import * as v1 from "@movement-detection/proto/grpc/reflection/v1";
import * as v1alpha from "@movement-detection/proto/grpc/reflection/v1alpha";
import { expect } from "chai";
import { skipUnderFakedClock } from "../support/faked-clock.js";
import { startTestSystem, type TestSystem } from "../support/system.js";
import { grpcJsCredentials, tlsFilesOf } from "../support/workloads.js";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "../..");
const BUF = join(ROOT, "node_modules/.bin/buf");

const SERVICES = {
  auth: "auth.v1.AuthService",
  catalogue: "catalogue.v1.CatalogueService",
  authoring: "authoring.v1.AuthoringService",
  detection: "detection.v1.DetectionService",
} as const;

type Api = typeof v1 | typeof v1alpha;

/** `host:port` of a service URL such as http://127.0.0.1:50051. */
const grpcAddress = (url: string): string => new URL(url).host;
type Response = v1.ServerReflectionResponse;

/** One reflection stream with grpc-js: sends the requests in order, collects the answers. */
async function reflect(
  url: string,
  credentials: grpc.ChannelCredentials,
  api: Api,
  requests: v1.ServerReflectionRequest["messageRequest"][],
): Promise<Response[]> {
  const client = new grpc.Client(grpcAddress(url), credentials);
  const method = `/${api.ServerReflection.typeName}/ServerReflectionInfo`;
  const requestSchema = api.ServerReflectionRequestSchema as unknown as DescMessage;
  const responseSchema = api.ServerReflectionResponseSchema as unknown as DescMessage;
  const call = client.makeBidiStreamRequest(
    method,
    (message: unknown) => Buffer.from(toBinary(requestSchema, message as never)),
    (bytes: Buffer) => fromBinary(responseSchema, bytes) as unknown as Response,
  );
  const answers: Response[] = [];
  const done = new Promise<Response[]>((resolve, reject) => {
    call.on("data", (answer: Response) => answers.push(answer));
    call.on("error", reject);
    call.on("end", () => resolve(answers));
  });
  for (const messageRequest of requests) {
    call.write(create(requestSchema, { messageRequest } as never));
  }
  call.end();
  try {
    return await done;
  } finally {
    client.close();
  }
}

describe("gRPC server reflection (grpc.reflection.v1 and v1alpha) on every service", function () {
  this.timeout(120_000);
  let system: TestSystem;

  before(async () => {
    system = await startTestSystem();
  });
  after(async () => system?.stop());

  /** buf curl's transport flags: the operator's certificate over TLS (h2c when the system is). */
  const transport = (url: string) => {
    if (!url.startsWith("https:")) return ["--http2-prior-knowledge"];
    const files = tlsFilesOf(system, "operator");
    return ["--cacert", files.caPath, "--cert", files.certPath, "--key", files.keyPath];
  };
  const operator = () =>
    system.pki ? grpcJsCredentials(grpc, system, "operator") : grpc.credentials.createInsecure();

  for (const [name, service] of Object.entries(SERVICES) as [keyof typeof SERVICES, string][]) {
    it(`${name}: buf curl --list-methods and a call, without --schema`, async function () {
      skipUnderFakedClock(this, "buf");
      const url = system.services[name].grpcUrl;
      const { stdout } = await run(BUF, ["curl", ...transport(url), "--list-methods", url], {
        cwd: ROOT,
      });
      const methods = stdout.trim().split("\n");
      expect(methods).to.include("grpc.health.v1.Health/Check");
      expect(
        methods.some((m) => m.startsWith(`${service}/`)),
        stdout,
      ).to.equal(true);
      const check = await run(
        BUF,
        [
          "curl",
          ...transport(url),
          "--protocol",
          "grpc",
          "-d",
          "{}",
          `${url}/grpc.health.v1.Health/Check`,
        ],
        { cwd: ROOT },
      );
      expect(JSON.parse(check.stdout)).to.deep.equal({ status: "SERVING" });
    });
  }

  for (const api of [v1, v1alpha]) {
    const version = api === v1 ? "v1" : "v1alpha";
    it(`${version}: a grpc-js client lists the services, fetches their descriptors and calls one`, async () => {
      const url = system.services.authoring.grpcUrl;
      const [listed, file, missing] = await reflect(url, operator(), api, [
        { case: "listServices", value: "*" },
        { case: "fileContainingSymbol", value: `${SERVICES.authoring}.CreateMoveSpec` },
        { case: "fileContainingSymbol", value: "no.such.Service" },
      ]);
      expect(listed.messageResponse.case).to.equal("listServicesResponse");
      const names =
        listed.messageResponse.case === "listServicesResponse"
          ? listed.messageResponse.value.service.map((s) => s.name)
          : [];
      expect(names).to.include.members([
        SERVICES.authoring,
        "grpc.health.v1.Health",
        "grpc.reflection.v1.ServerReflection",
        "grpc.reflection.v1alpha.ServerReflection",
      ]);
      expect(file.messageResponse.case).to.equal("fileDescriptorResponse");
      const protos =
        file.messageResponse.case === "fileDescriptorResponse"
          ? file.messageResponse.value.fileDescriptorProto.map((bytes) =>
              fromBinary(FileDescriptorProtoSchema, bytes),
            )
          : [];
      // The file and everything it imports: enough to build a registry with nothing else.
      expect(protos.map((p) => p.name)).to.include.members([
        "authoring/v1/authoring.proto",
        "google/protobuf/timestamp.proto",
      ]);
      const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: protos }));
      const described = registry.getService(SERVICES.authoring);
      expect(described?.methods.map((m) => m.name)).to.include("CreateMoveSpec");
      expect(missing.messageResponse.case).to.equal("errorResponse");
      if (missing.messageResponse.case === "errorResponse") {
        expect(missing.messageResponse.value.errorCode).to.equal(grpc.status.NOT_FOUND);
      }

      // A call made only from reflected descriptors (what grpcurl does).
      const [health] = await reflect(url, operator(), api, [
        { case: "fileContainingSymbol", value: "grpc.health.v1.Health" },
      ]);
      const healthProtos =
        health.messageResponse.case === "fileDescriptorResponse"
          ? health.messageResponse.value.fileDescriptorProto.map((b) =>
              fromBinary(FileDescriptorProtoSchema, b),
            )
          : [];
      const healthRegistry = createFileRegistry(
        create(FileDescriptorSetSchema, { file: healthProtos }),
      );
      const check = healthRegistry
        .getService("grpc.health.v1.Health")
        ?.methods.find((m) => m.name === "Check");
      if (!check) throw new Error("Check not described");
      const client = new grpc.Client(grpcAddress(url), operator());
      const status = await new Promise<unknown>((resolve, reject) =>
        client.makeUnaryRequest(
          "/grpc.health.v1.Health/Check",
          (m: unknown) => Buffer.from(toBinary(check.input, m as never)),
          (b: Buffer) => fromBinary(check.output, b),
          create(check.input, {}),
          (error, response) => (error ? reject(error) : resolve(response)),
        ),
      );
      client.close();
      expect((status as { status: number }).status).to.equal(1); // SERVING
    });
  }

  it("only the operator may reflect: another workload is refused (the access table applies)", async function () {
    if (!system.pki) this.skip();
    const url = system.services.auth.grpcUrl;
    const gateway = grpcJsCredentials(grpc, system, "gateway");
    const refused = await reflect(url, gateway, v1, [{ case: "listServices", value: "*" }]).catch(
      (error: grpc.ServiceError) => error,
    );
    expect((refused as grpc.ServiceError).code).to.equal(grpc.status.PERMISSION_DENIED);
  });
});
