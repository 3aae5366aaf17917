/**
 * The baseline of the catalogue benchmark: a bare Koa app answering one JSON route with the
 * body read from BARE_BODY_FILE (a real listing page, so serialisation costs the same). Run as a
 * child process so that it gets an event loop of its own, like the gateway does.
 */
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import Koa from "koa";

const body: unknown = JSON.parse(readFileSync(process.env.BARE_BODY_FILE ?? "", "utf8"));
const app = new Koa();
app.use((ctx) => {
  ctx.body = body;
});
const server = app.listen(0, "127.0.0.1", () => {
  process.stdout.write(
    `${JSON.stringify({ msg: "serving", port: (server.address() as AddressInfo).port })}\n`,
  );
});
process.once("SIGTERM", () => server.close(() => process.exit(0)));
