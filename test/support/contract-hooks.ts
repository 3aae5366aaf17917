/**
 * Mocha root hook plugin (.mocharc.json "require"): installs the contract checks for the whole
 * run, so every test that calls a test system's gateway checks its responses against the OpenAPI
 * document (test/support/contract.ts), and every message a test receives on a session's stream
 * against the AsyncAPI document, made strict (test/support/stream-contract.ts).
 */
import { contractCheckedFetch } from "./contract.js";
import {
  checkStreamMessages,
  stopCheckingStreamMessages,
  takeStreamViolations,
} from "./stream-contract.js";

const original = globalThis.fetch;

export const mochaHooks = {
  beforeAll(): void {
    globalThis.fetch = contractCheckedFetch(original);
    checkStreamMessages();
  },
  afterEach(): void {
    const violations = takeStreamViolations();
    if (violations.length > 0)
      throw new Error(
        `stream contract violation(s) (AsyncAPI, strict):\n  ${violations.slice(0, 5).join("\n  ")}`,
      );
  },
  afterAll(): void {
    globalThis.fetch = original;
    stopCheckingStreamMessages();
  },
};
