/**
 * Serves the camera kit example (page.ts, index.html) on http://127.0.0.1:8090: the page, its
 * bundle (esbuild), the pose model's files from the npm packages, and `POST /session`, which
 * creates a `live` session of a released MoveSpec with this server's key and answers its
 * stream_url and runtime_token (a browser never sees the key).
 *
 *   node --import tsx examples/camera-kit/serve.ts --api-key msk_... --movespec-id ID
 *     [--gateway http://127.0.0.1:8080] [--port 8090]
 *
 * MDS_API_KEY and MDS_GATEWAY_URL may stand for --api-key and --gateway.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { MdsClient } from "@movement-detection/sdk";
import { poseAssets } from "@movement-detection/sdk/pose-assets";

const HERE = dirname(fileURLToPath(import.meta.url));

export interface ExampleOptions {
  readonly gateway: string;
  readonly apiKey: string;
  readonly movespecId: string;
}

async function bundle(): Promise<string> {
  const name = "esbuild"; // a development dependency
  const esbuild = (await import(name)) as typeof import("esbuild");
  const result = await esbuild.build({
    entryPoints: [join(HERE, "page.ts")],
    bundle: true,
    format: "esm",
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0].text;
}

/** The example's server (not listening yet). */
export function exampleServer(options: ExampleOptions): Server {
  const client = new MdsClient({ baseUrl: options.gateway, credentials: options.apiKey });
  const assets = poseAssets();
  let script: Promise<string> | undefined;
  return createServer(async (req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const send = (type: string, body: string | Buffer, status = 200) =>
      res.writeHead(status, { "content-type": type }).end(body);
    try {
      if (path === "/") return send("text/html", readFileSync(join(HERE, "index.html")));
      if (path === "/page.js") {
        script ??= bundle();
        return send("text/javascript", await script);
      }
      const asset = path.startsWith("/vendor/") ? assets[path.slice(8)] : undefined;
      if (asset) return send(asset.type, readFileSync(asset.path));
      if (path === "/session" && req.method === "POST") {
        const session = await client.createSession({
          body: {
            project_id: await client.projectId(),
            movespec_id: options.movespecId,
            mode: "live",
          },
        });
        const { stream_url, runtime_token } = session;
        return send("application/json", JSON.stringify({ stream_url, runtime_token }));
      }
      send("text/plain", "not found", 404);
    } catch (error) {
      send("text/plain", (error as Error).message, 502);
    }
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      "api-key": { type: "string" },
      "movespec-id": { type: "string" },
      gateway: { type: "string" },
      port: { type: "string", default: "8090" },
    },
  });
  const apiKey = values["api-key"] ?? process.env.MDS_API_KEY;
  const movespecId = values["movespec-id"];
  if (!apiKey || !movespecId) {
    console.error("usage: serve.ts --api-key msk_... --movespec-id ID [--gateway URL] [--port N]");
    process.exit(2);
  }
  const gateway = values.gateway ?? process.env.MDS_GATEWAY_URL ?? "http://127.0.0.1:8080";
  exampleServer({ gateway, apiKey, movespecId }).listen(Number(values.port), "127.0.0.1", () =>
    console.log(`camera kit example: http://127.0.0.1:${values.port}/`),
  );
}
