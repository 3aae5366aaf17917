/**
 * The token exchange's auth side with the libraries only (exchange-floor.bench.ts starts it):
 * the services' gRPC server (connect-node, HTTP/2, mutual TLS), one `findOne` by id through the
 * mongodb driver, a constant-time secret check and an Ed25519 JWT signed by jose. No rate
 * limiting, project check, scopes, audit, logging or metrics: what any exchange must cost here.
 */
import { timingSafeEqual } from "node:crypto";
import { setMaxListeners } from "node:events";
import { create } from "@bufbuild/protobuf";
import { AuthService, MintAccessTokenResponseSchema } from "@movement-detection/proto/auth/v1";
import { Health } from "@movement-detection/proto/grpc/health/v1";
import {
  createGrpcServer,
  createHealthService,
  HealthState,
} from "@movement-detection/shared/runtime";
import { generateKeyPair, SignJWT } from "jose";
import { MongoClient } from "mongodb";
import { floorIdentity } from "../../support/floor-identity.js";

interface FloorCredential {
  _id: string;
  secret: string;
}

const uri = process.env.FLOOR_MONGODB_URI;
if (!uri) throw new Error("FLOOR_MONGODB_URI is required");
const mongo = await new MongoClient(uri).connect();
const credentials = mongo.db("exchange_floor").collection<FloorCredential>("credentials");
const { privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519" });

// Every call links its signal to this one, as in the services (service-runner.ts).
const shutdown = new AbortController();
setMaxListeners(0, shutdown.signal);
const server = createGrpcServer({
  interceptors: [],
  shutdownSignal: shutdown.signal,
  identity: floorIdentity("auth"),
  alwaysOn: (router) => router.service(Health, createHealthService(new HealthState([]))),
  services: [AuthService],
});
server.serve((router) =>
  router.service(AuthService, {
    async mintAccessToken(request) {
      const [id, secret] = (request.apiKey ?? "").split(".");
      const found = await credentials.findOne({ _id: id });
      const given = Buffer.from(secret ?? "");
      const stored = Buffer.from(found?.secret ?? "");
      if (!found || given.length !== stored.length || !timingSafeEqual(given, stored)) {
        throw new Error("unknown credential");
      }
      const now = Math.floor(Date.now() / 1000);
      const accessToken = await new SignJWT({ scope: "movespecs:read", client_id: id })
        .setProtectedHeader({ alg: "EdDSA", kid: "floor" })
        .setIssuer("floor")
        .setAudience("floor")
        .setSubject(id)
        .setIssuedAt(now)
        .setExpirationTime(now + 900)
        .sign(privateKey);
      return create(MintAccessTokenResponseSchema, {
        accessToken,
        tokenType: "Bearer",
        expiresInSeconds: 900,
      });
    },
  }),
);
const port = await server.listen(0, "127.0.0.1");
process.stdout.write(`listening ${port}\n`);
