import type { CredentialKind } from "@movement-detection/shared/tokens";

/** The credential a token request presents, once its form is known to be exactly one. */
export type PresentedCredential =
  | { readonly form: "api_key"; readonly secret: string }
  | {
      readonly form: "pair";
      readonly kind: CredentialKind;
      readonly id: string;
      readonly secret: string;
    };

export interface CredentialFields {
  readonly api_key?: string;
  readonly api_key_id?: string;
  readonly api_key_secret?: string;
  readonly service_account_id?: string;
  readonly service_account_secret?: string;
}

export type FormProblem =
  | { readonly problem: "missing" }
  | { readonly problem: "conflict"; readonly forms: readonly string[] }
  | { readonly problem: "incomplete"; readonly missing: string };

/**
 * Exactly one of the spec's three forms: `api_key`; `api_key_id` + `api_key_secret`;
 * `service_account_id` + `service_account_secret`. Two forms, or half of one, is a client error.
 */
export function presentedCredential(fields: CredentialFields): PresentedCredential | FormProblem {
  const named: string[] = [];
  if (fields.api_key !== undefined) named.push("api_key");
  if (fields.api_key_id !== undefined || fields.api_key_secret !== undefined) {
    named.push("api_key_id+api_key_secret");
  }
  if (fields.service_account_id !== undefined || fields.service_account_secret !== undefined) {
    named.push("service_account_id+service_account_secret");
  }
  if (named.length === 0) return { problem: "missing" };
  if (named.length > 1) return { problem: "conflict", forms: named };
  if (fields.api_key !== undefined) return { form: "api_key", secret: fields.api_key };
  if (named[0] === "api_key_id+api_key_secret") {
    if (fields.api_key_id === undefined) return { problem: "incomplete", missing: "api_key_id" };
    if (fields.api_key_secret === undefined) {
      return { problem: "incomplete", missing: "api_key_secret" };
    }
    return { form: "pair", kind: "api_key", id: fields.api_key_id, secret: fields.api_key_secret };
  }
  if (fields.service_account_id === undefined) {
    return { problem: "incomplete", missing: "service_account_id" };
  }
  if (fields.service_account_secret === undefined) {
    return { problem: "incomplete", missing: "service_account_secret" };
  }
  return {
    form: "pair",
    kind: "service_account",
    id: fields.service_account_id,
    secret: fields.service_account_secret,
  };
}

export function isFormProblem(value: PresentedCredential | FormProblem): value is FormProblem {
  return "problem" in value;
}
