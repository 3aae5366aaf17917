/**
 * What a process loads before it serves is paid at every start: by npm start, by each test system
 * and by every restarted pod. TypeBox alone is some 370 ES modules (about 0.3 s of CPU). The
 * gateway and detection check requests and `hello` against the public schemas it builds;
 * catalogue and authoring have no use for them, so they must not load it through a broad import
 * (a helper taken from `@movement-detection/shared/api`'s index, or the engine's index
 * re-exporting the schema helpers).
 */
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "../..");

/** Registers a resolve hook that reports, at exit, every package directory the process loaded. */
const PROBE = `data:text/javascript,${encodeURIComponent(`
import { register } from "node:module";
import { MessageChannel } from "node:worker_threads";
const { port1, port2 } = new MessageChannel();
const loaded = new Set();
port1.on("message", (url) => loaded.add(url));
port1.unref();
process.on("exit", () => process.stderr.write("LOADED " + JSON.stringify([...loaded]) + "\\n"));
const hook = \`let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  const match = /\\\\/node_modules\\\\/((?:@[^/]+\\\\/)?[^/]+)\\\\//.exec(result.url);
  if (match) port.postMessage(match[1]);
  return result;
}\`;
register("data:text/javascript," + encodeURIComponent(hook), { data: { port: port2 }, transferList: [port2] });
`)}`;

/**
 * The packages `entry` loads on its way to serving. Its internal TLS directory does not exist, so
 * it stops with a fatal line once every module is loaded, before it listens on anything.
 */
function packagesLoadedBy(entry: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--import", PROBE, entry], {
      cwd: REPO,
      env: {
        ...process.env,
        INTERNAL_TRANSPORT: "mtls",
        INTERNAL_TLS_DIR: join(REPO, "no-such-dir-for-the-module-load-test"),
        MONGODB_URI: "mongodb://127.0.0.1:9/",
        GRPC_PORT: "0",
        ADMIN_PORT: "0",
        PORT: "0",
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.once("error", reject);
    child.once("exit", (code) => {
      const line = /^LOADED (.*)$/m.exec(stderr);
      if (!line)
        return reject(new Error(`${entry} exited ${code} without the probe's line:\n${stderr}`));
      // Thrown here it would escape the promise: an uncaught exception, not this test's failure.
      if (!stderr.includes("internal TLS"))
        return reject(new Error(`${entry} did not stop at the missing TLS directory:\n${stderr}`));
      resolve(JSON.parse(line[1]) as string[]);
    });
  });
}

describe("what a process loads before it serves", function () {
  this.timeout(60_000);

  it("the gateway loads TypeBox: it checks requests against the schemas (the probe sees it)", async () => {
    expect(await packagesLoadedBy("gateway/main.ts")).to.include.members(["typebox", "ajv"]);
  });

  for (const service of ["catalogue", "authoring"]) {
    it(`${service} does not load TypeBox or Ajv: it has no use for the public schemas`, async () => {
      const loaded = await packagesLoadedBy(`services/${service}/main.ts`);
      expect(loaded, "the probe saw the service's own dependencies").to.include("mongodb");
      expect(loaded).to.not.include("typebox");
      expect(loaded).to.not.include("ajv");
    });
  }
});
