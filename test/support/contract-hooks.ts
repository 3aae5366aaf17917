/**
 * Mocha root hook plugin (.mocharc.json "require"): installs the contract-checking fetch for the
 * whole run, so every test that calls a test system's gateway checks its responses against the
 * OpenAPI document (test/support/contract.ts).
 */
import { contractCheckedFetch } from "./contract.js";

const original = globalThis.fetch;

export const mochaHooks = {
  beforeAll(): void {
    globalThis.fetch = contractCheckedFetch(original);
  },
  afterAll(): void {
    globalThis.fetch = original;
  },
};
