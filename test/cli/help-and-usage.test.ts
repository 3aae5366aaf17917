/**
 * The command-line tools as a user meets them, each as its own process: `--help` everywhere,
 * listing every environment variable the tool reads, and a bad command line answered with one
 * line and exit code 2, never a stack trace. (The commands themselves are tested against the real
 * stack in test/auth/admin-cli.test.ts and test/sdk/sdk-real-stack.test.ts.)
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect } from "chai";
import { loadLauncherConfig } from "../../deploy/local/config.js";
import { ADMIN_ENVIRONMENT } from "../../services/admin/config.js";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "../..");

function tool(script: string, ...args: string[]) {
  return toolWithEnv(script, {}, ...args);
}

async function toolWithEnv(script: string, env: Record<string, string>, ...args: string[]) {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ["--import", "tsx", join(ROOT, script), ...args],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? "", ...env },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/**
 * Runs every case's command at once (each is a process that mostly waits on its start-up: the
 * suite then waits for the slowest, not for the sum), then checks each result in order.
 */
async function eachAtOnce<C>(
  cases: readonly C[],
  start: (testCase: C) => Promise<ToolResult>,
  check: (testCase: C, result: ToolResult) => void,
): Promise<void> {
  const results = await Promise.all(cases.map(start));
  for (const [i, testCase] of cases.entries()) check(testCase, results[i]);
}

type ToolResult = Awaited<ReturnType<typeof toolWithEnv>>;

function expectNoStackTrace(text: string): void {
  expect(text).to.not.match(/^\s+at /m);
  expect(text).to.not.contain("ERR_");
}

/** Refused before doing anything: exit `code`, stderr `prefix` then `reason`, nothing on stdout. */
function expectRefused(
  result: { code: number; stdout: string; stderr: string },
  what: string,
  expected: { code: number; prefix: RegExp; reason: RegExp },
): void {
  expect(result.code, what).to.equal(expected.code);
  expect(result.stderr, what).to.match(expected.prefix);
  expect(result.stderr, what).to.match(expected.reason);
  expect(result.stdout, what).to.equal("");
  expectNoStackTrace(result.stderr);
}

describe("command-line tools: --help and bad arguments", function () {
  this.timeout(120_000);

  describe("admin (services/admin)", () => {
    it("--help at every level lists every environment variable it reads", async () => {
      await eachAtOnce(
        [["--help"], ["auth", "--help"], ["movespecs", "set-visibility", "--help"], []],
        (args) => tool("services/admin/main.ts", ...args),
        (args, result) => {
          expect(result.code, args.join(" ")).to.equal(0);
          for (const variable of ADMIN_ENVIRONMENT) expect(result.stdout).to.contain(variable.name);
        },
      );
      expect(ADMIN_ENVIRONMENT.map((v) => v.name)).to.include.members([
        "AUTH_SERVICE_URL",
        "AUTHORING_SERVICE_URL",
        "CATALOGUE_SERVICE_URL",
      ]);
      const command = await tool("services/admin/main.ts", "auth", "create-key", "--help");
      expect(command.stdout).to.contain("--project <project_id>").and.contain("--scope <scope>");
    });

    it("answers a bad command line with one line and exit 2", async () => {
      await eachAtOnce(
        [
          ["nope"],
          ["auth", "bogus"],
          ["auth", "create-org", "--bogus"],
          ["auth", "create-project", "--name", "x"],
          ["auth", "create-org", "--name"],
        ],
        (args) => tool("services/admin/main.ts", ...args),
        (args, result) => {
          expect(result.code, args.join(" ")).to.equal(2);
          expect(result.stderr, args.join(" ")).to.match(/^error: /);
          expectNoStackTrace(result.stderr);
        },
      );
    });
  });

  describe("soak benchmark (bench/detection/soak.bench.ts)", () => {
    it("--help lists every option", async () => {
      const result = await tool("bench/detection/soak.bench.ts", "--help");
      expect(result.code).to.equal(0);
      for (const option of ["--sessions", "--minutes", "--churn", "--churn-every", "--window"]) {
        expect(result.stdout).to.contain(option);
      }
      for (const option of [
        "--warm-up",
        "--replicas",
        "--compact-bytes",
        "--churn-spread",
        "--control-plane-nice",
        "--trace",
        "--json",
      ]) {
        expect(result.stdout).to.contain(option);
      }
    });

    it("answers an unknown option or a bad number with its reason and exit 2, starting nothing", async () => {
      await eachAtOnce(
        [
          [["--bogus"], /Unknown option '--bogus'/],
          [["--minutes", "x"], /--minutes must be a positive number/],
          [["--sessions", "0"], /--sessions must be a positive number/],
          [["--churn=-1"], /--churn must be 0 or more/],
          [["--churn-spread=-1"], /--churn-spread must be 0 or more/],
          [["--churn-spread", "120", "--churn-every", "2"], /--churn-spread must be shorter/],
          [["--churn-spread", "121", "--churn-every", "2"], /--churn-spread must be shorter/],
          [
            ["--control-plane-nice", "20"],
            /--control-plane-nice must be a whole number from 0 to 19/,
          ],
          [["--control-plane-nice=-1"], /--control-plane-nice must be a whole number from 0 to 19/],
          [
            ["--control-plane-nice", "2.5"],
            /--control-plane-nice must be a whole number from 0 to 19/,
          ],
        ] as const,
        ([args]) => tool("bench/detection/soak.bench.ts", ...args),
        ([args, reason], result) => {
          expectRefused(result, args.join(" "), { code: 2, prefix: /^soak\.bench: /, reason });
        },
      );
    });
  });

  describe("npm start (deploy/local/start.ts): its configuration", () => {
    it("LAUNCHER_CONTROL_PLANE_NICE: 10 by default, 0 to 19 accepted", () => {
      expect(loadLauncherConfig({}).controlPlaneNiceness).to.equal(10);
      for (const value of [0, 19]) {
        const env = { LAUNCHER_CONTROL_PLANE_NICE: String(value) };
        expect(loadLauncherConfig(env).controlPlaneNiceness).to.equal(value);
      }
    });

    it("a bad LAUNCHER_CONTROL_PLANE_NICE is one line and exit 1, starting nothing", async () => {
      await eachAtOnce(
        [
          ["20", /must be <= 19, got 20/],
          ["-1", /must be >= 0, got -1/],
          ["ten", /must be an integer, got "ten"/],
        ] as const,
        ([value]) =>
          toolWithEnv("deploy/local/start.ts", {
            LAUNCHER_CONTROL_PLANE_NICE: value,
          }),
        ([value, reason], result) => {
          expectRefused(result, value, {
            code: 1,
            prefix: /^start failed: invalid configuration: LAUNCHER_CONTROL_PLANE_NICE /,
            reason,
          });
        },
      );
    });
  });

  describe("the services and the gateway: a bad variable", () => {
    for (const [name, entry] of [
      ["auth", "services/auth/main.ts"],
      ["catalogue", "services/catalogue/main.ts"],
      ["authoring", "services/authoring/main.ts"],
      ["detection", "services/detection/main.ts"],
      ["gateway", "gateway/main.ts"],
    ] as const) {
      it(`${name}: one JSON fatal line naming it, exit 1, no stack trace`, async () => {
        const result = await toolWithEnv(entry, { LOG_LEVEL: "verbose" });
        expect(result.code).to.equal(1);
        expect(result.stderr).to.equal("");
        const lines = result.stdout.trim().split("\n");
        expect(lines).to.have.length(1);
        const line = JSON.parse(lines[0]);
        expect(line).to.include({ level: 60, service: name });
        expect(line.msg).to.match(
          /^invalid configuration: LOG_LEVEL must be one of .*, got "verbose"$/,
        );
      });
    }
  });

  describe("npm start (deploy/local/start.ts): a port already taken", () => {
    it("says which port and the cause, and how to run beside it: exit 1", async () => {
      // The store's port, held here (or already held by a running copy: the same situation).
      const holder = createServer();
      await new Promise<void>((resolve) => {
        holder.once("error", () => resolve());
        holder.listen(27117, "127.0.0.1", () => resolve());
      });
      const root = await mkdtemp(join(tmpdir(), "mds-port-taken-"));
      try {
        const result = await toolWithEnv("deploy/local/start.ts", {
          LAUNCHER_STATE_DIR: root,
          EMBEDDED_MONGO_DATA_DIR: join(root, "mongo"),
        });
        expect(result.code).to.equal(1);
        expect(result.stderr).to.match(
          /^start failed: embedded-mongo exited \(1\) before logging ready: .*EADDRINUSE.*127\.0\.0\.1:27117\n/m,
        );
        expect(result.stderr).to.contain("LAUNCHER_PORTS=ephemeral npm start");
        // Under the default restart policy: the exit is reported once, and no recovery that is
        // not coming is announced.
        expect(result.stdout).to.contain("process exited during start-up");
        expect(result.stdout).to.not.match(/restarting process|process exited unexpectedly/);
      } finally {
        holder.close();
        await rm(root, { recursive: true, force: true });
      }
    });
  });

  describe("session lifecycle benchmark (bench/detection/lifecycle.bench.ts)", () => {
    it("--help lists every option", async () => {
      const result = await tool("bench/detection/lifecycle.bench.ts", "--help");
      expect(result.code).to.equal(0);
      for (const option of [
        "--sessions",
        "--concurrency",
        "--frames",
        "--warm-up",
        "--profile-dir",
        "--json",
      ]) {
        expect(result.stdout).to.contain(option);
      }
    });

    it("answers an unknown option or a bad number with its reason and exit 2, starting nothing", async () => {
      await eachAtOnce(
        [
          [["--bogus"], /Unknown option '--bogus'/],
          [["--sessions", "0"], /--sessions must be a whole number, 1 or more/],
          [["--concurrency", "x"], /--concurrency must be a whole number, 1 or more/],
          [["--frames=-1"], /--frames must be a whole number, 0 or more/],
          [["--frames", "1001"], /--frames must be 1000 or fewer/],
          [["--warm-up=-1"], /--warm-up must be a whole number, 0 or more/],
        ] as const,
        ([args]) => tool("bench/detection/lifecycle.bench.ts", ...args),
        ([args, reason], result) => {
          expectRefused(result, args.join(" "), { code: 2, prefix: /^lifecycle\.bench: /, reason });
        },
      );
    });
  });

  describe("session-end burst benchmark (bench/detection/end-burst.bench.ts)", () => {
    it("--help lists every option", async () => {
      const result = await tool("bench/detection/end-burst.bench.ts", "--help");
      expect(result.code).to.equal(0);
      for (const option of ["--sessions", "--minutes", "--rounds", "--profile-dir"]) {
        expect(result.stdout).to.contain(option);
      }
    });

    it("answers a bad value with its reason and exit 2, just past each edge, starting nothing", async () => {
      const sessions = /--sessions must be a whole number from 1 to 200/;
      const minutes = /--minutes must be ages from above 0 to 240 minutes/;
      await eachAtOnce(
        [
          [["--bogus"], /Unknown option '--bogus'/],
          [["--sessions", "0"], sessions],
          [["--sessions", "201"], sessions],
          [["--sessions", "2.5"], sessions],
          [["--minutes", "0"], minutes],
          [["--minutes", "240.5"], minutes],
          [["--minutes", "1,x"], minutes],
          [["--rounds", "0"], /--rounds must be 1 or more/],
        ] as const,
        ([args]) => tool("bench/detection/end-burst.bench.ts", ...args),
        ([args, reason], result) => {
          expectRefused(result, args.join(" "), { code: 2, prefix: /^end-burst\.bench: /, reason });
        },
      );
    });
  });

  describe("store checkpoint benchmark (bench/embedded-mongo/checkpoint.bench.ts)", () => {
    const script = "bench/embedded-mongo/checkpoint.bench.ts";

    it("--help lists every option", async () => {
      const result = await tool(script, "--help");
      expect(result.code).to.equal(0);
      for (const option of ["--sessions", "--batch", "--writes", "--trials", "--profile-dir"]) {
        expect(result.stdout).to.contain(option);
      }
    });

    it("answers a bad value with its reason and exit 2, just past each edge, starting nothing", async () => {
      await eachAtOnce(
        [
          [["--bogus"], /Unknown option '--bogus'/],
          [["--sessions", "0"], /--sessions must be a whole number from 1 to 100000/],
          [["--sessions", "100001"], /--sessions must be a whole number from 1 to 100000/],
          [["--batch", "1.5"], /--batch must be a whole number from 1 to 1000/],
          [["--batch", "1001"], /--batch must be a whole number from 1 to 1000/],
          [["--sessions", "10", "--batch", "11"], /--batch must not exceed --sessions/],
          [["--writes", "0"], /--writes must be a whole number from 1 to 1000000/],
          [["--trials", "101"], /--trials must be a whole number from 1 to 100/],
        ] as const,
        ([args]) => tool(script, ...args),
        ([args, reason], result) => {
          expectRefused(result, args.join(" "), {
            code: 2,
            prefix: /^checkpoint\.bench: /,
            reason,
          });
        },
      );
    });
  });

  describe("memory per session benchmark (bench/detection/session-memory.bench.ts)", () => {
    it("--help lists every option", async () => {
      const result = await tool("bench/detection/session-memory.bench.ts", "--help");
      expect(result.code).to.equal(0);
      for (const option of ["--levels", "--chain", "--encoding", "--settle"]) {
        expect(result.stdout).to.contain(option);
      }
    });

    it("answers an unknown option, levels that do not rise or a bad value with its reason and exit 2, starting nothing", async () => {
      const levels = /--levels must be whole numbers of sessions, 1 or more, rising/;
      await eachAtOnce(
        [
          [["--bogus"], /Unknown option '--bogus'/],
          [["--levels", "0,100"], levels],
          [["--levels", "100,100"], levels],
          [["--levels", "300,100"], levels],
          [["--levels", "100,2.5"], levels],
          [["--levels", "many"], levels],
          [["--encoding", "xml"], /--encoding must be json or binary/],
          [["--chain", "both"], /--chain must be system or floor/],
          [["--chain", "floor", "--encoding", "json"], /--chain floor streams binary frames only/],
          [["--settle", "0.99"], /--settle must be 1 second or more/],
          [["--settle", "soon"], /--settle must be 1 second or more/],
        ] as const,
        ([args]) => tool("bench/detection/session-memory.bench.ts", ...args),
        ([args, reason], result) => {
          expectRefused(result, args.join(" "), {
            code: 2,
            prefix: /^session-memory\.bench: /,
            reason,
          });
        },
      );
    });
  });

  describe("heap snapshot diff (bench/support/heap-snapshot-diff.ts)", () => {
    const script = "bench/support/heap-snapshot-diff.ts";

    it("--help lists every option", async () => {
      const result = await tool(script, "--help");
      expect(result.code).to.equal(0);
      for (const option of ["--per", "--top"]) expect(result.stdout).to.contain(option);
    });

    it("answers a missing snapshot, an unreadable one or a bad number with its reason and exit 2", async () => {
      const dir = await mkdtemp(join(tmpdir(), "mds-heap-diff-"));
      try {
        const notJson = join(dir, "broken.heapsnapshot");
        await writeFile(notJson, "{not json");
        const absent = join(dir, "absent.heapsnapshot");
        const per = /--per must be a whole number, 1 or more/;
        await eachAtOnce(
          [
            [[notJson], /give two heap snapshots: BEFORE and AFTER/],
            [[notJson, notJson, notJson], /give two heap snapshots: BEFORE and AFTER/],
            [[absent, absent], /cannot read .*absent\.heapsnapshot as a heap snapshot/],
            [[notJson, notJson], /cannot read .*broken\.heapsnapshot as a heap snapshot/],
            [[notJson, notJson, "--per", "0"], per],
            [[notJson, notJson, "--per", "2.5"], per],
            [[notJson, notJson, "--per", "many"], per],
            [[notJson, notJson, "--top", "0"], /--top must be a whole number, 1 or more/],
            [["--bogus"], /Unknown option '--bogus'/],
          ] as const,
          ([args]) => tool(script, ...args),
          ([args, reason], result) => {
            expectRefused(result, args.join(" "), {
              code: 2,
              prefix: /^heap-snapshot-diff: /,
              reason,
            });
          },
        );
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it("counts per unit what was made between two snapshots of one process", async () => {
      const dir = await mkdtemp(join(tmpdir(), "mds-heap-diff-"));
      try {
        // 1,000 objects of a class no other code has, kept alive between the two snapshots.
        const program = `
          const { writeHeapSnapshot } = require("node:v8");
          class HeapDiffMarker { constructor(i) { this.i = i; this.j = i + 1; } }
          writeHeapSnapshot(process.argv[1]);
          globalThis.kept = Array.from({ length: 1000 }, (_, i) => new HeapDiffMarker(i));
          writeHeapSnapshot(process.argv[2]);`;
        const before = join(dir, "before.heapsnapshot");
        const after = join(dir, "after.heapsnapshot");
        await run(process.execPath, ["-e", program, before, after]);
        const result = await tool(script, before, after, "--per", "1000", "--top", "100000");
        expect(result.code, result.stderr).to.equal(0);
        expect(result.stdout).to.match(/^growth, divided by 1000: -?\d+\.\d\d KB\n/);
        const marker = result.stdout
          .split("\n")
          .find((line) => line.endsWith("\tobject: HeapDiffMarker"));
        expect(marker, result.stdout.slice(0, 2000)).to.not.equal(undefined);
        const [bytes, count] = (marker ?? "").split("\t");
        expect(Number(count)).to.equal(1);
        // Each has a map pointer, properties and elements, and two fields: at least 20 bytes.
        expect(Number(bytes)).to.be.at.least(20);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });

  describe("stream client (examples/stream-client)", () => {
    it("--help lists the options and every environment variable it reads", async () => {
      const result = await tool("examples/stream-client/main.ts", "--help");
      expect(result.code).to.equal(0);
      for (const text of [
        "--api-key",
        "--spec",
        "--movespec-id",
        "--recording",
        "--mode",
        "--batch",
        "--speed",
        "--gateway",
        "MDS_API_KEY",
        "MDS_GATEWAY_URL",
      ]) {
        expect(result.stdout).to.contain(text);
      }
    });

    it("answers a bad command line with one line and exit 2", async () => {
      const recording = "test/fixtures/posedata/uiprmd/m01_s01.jsonl.gz";
      await eachAtOnce(
        [
          ["--bogus"],
          ["--api-key", "msk_x", "--spec", "examples/movespecs/squat.yaml"],
          ["--spec", "examples/movespecs/squat.yaml", "--recording", recording],
          ["--api-key", "msk_x", "--recording", recording],
          ["--api-key", "msk_x", "--spec", "x.yaml", "--recording", recording, "--batch", "0"],
          ["--api-key", "msk_x", "--spec", "x.yaml", "--recording", recording, "--mode", "fast"],
        ],
        (args) => tool("examples/stream-client/main.ts", ...args),
        (args, result) => {
          expect(result.code, args.join(" ")).to.equal(2);
          expect(result.stderr, args.join(" ")).to.match(/^error: /m);
          expectNoStackTrace(result.stderr);
        },
      );
    });

    it("reports a recording it cannot read in one line naming the file and the line, exit 1", async () => {
      const dir = await mkdtemp(join(tmpdir(), "mds-recording-"));
      try {
        const file = join(dir, "broken.jsonl");
        await writeFile(file, '{"seq":0,"t":0,"keypoints":null}\n{broken\n');
        const result = await tool(
          "examples/stream-client/main.ts",
          "--api-key",
          "msk_x",
          "--movespec-id",
          "01a20000-0000-7000-8000-000000000000",
          "--recording",
          file,
        );
        expect(result.code).to.equal(1);
        expect(result.stderr).to.match(/^error: .*broken\.jsonl, line 2: not JSON/);
        expectNoStackTrace(result.stderr);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it("reports a gateway it cannot reach in one line, exit 1", async () => {
      const result = await tool(
        "examples/stream-client/main.ts",
        "--gateway",
        "http://127.0.0.1:9",
        "--api-key",
        "msk_x",
        "--spec",
        "examples/movespecs/squat.yaml",
        "--recording",
        "test/fixtures/posedata/uiprmd/m01_s01.jsonl.gz",
      );
      expect(result.code).to.equal(1);
      expect(result.stderr).to.match(/^error: /);
      expectNoStackTrace(result.stderr);
    });
  });
});
