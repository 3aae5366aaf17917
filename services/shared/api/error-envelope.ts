/**
 * The error envelope every non-2xx response carries (contract "Errors"), and the entries of
 * `details.errors` that list every invalid field of a request.
 */
import { ValidationIssue } from "./resources.js";
import { type Static, StringEnum, Type } from "./schema-kit.js";

export const API_ERROR_CODE_NAMES = [
  "invalid_argument",
  "unauthenticated",
  "permission_denied",
  "not_found",
  "method_not_allowed",
  "already_exists",
  "failed_precondition",
  "precondition_failed",
  "aborted",
  "payload_too_large",
  "unsupported_media_type",
  "resource_exhausted",
  "internal",
  "unavailable",
  "deadline_exceeded",
] as const;

export const FieldError = Type.Object(
  {
    field: Type.String({
      description: "the member, query parameter or header, e.g. `name`, `scopes[2]`, `limit`",
    }),
    reason: Type.String({ examples: ["FIELD_INVALID"] }),
    message: Type.String(),
  },
  {
    title: "FieldError",
    description: "One invalid field (plus `allowed`, `min`, `max`, `problem` where they help).",
    additionalProperties: true,
  },
);

export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object(
      {
        code: StringEnum(API_ERROR_CODE_NAMES, {
          description: "the canonical code (docs/errors.md)",
        }),
        message: Type.String({ description: "for people; do not parse it" }),
        retryable: Type.Boolean({ description: "whether the same request may succeed later" }),
        details: Type.Object(
          {
            reason: Type.String({
              pattern: "^[A-Z][A-Z0-9_]*$",
              description: "the stable UPPER_SNAKE reason: branch on this",
            }),
            request_id: Type.String({ description: "the response's X-Request-Id" }),
            field: Type.Optional(Type.String({ description: "the (first) invalid field" })),
            errors: Type.Optional(
              Type.Array(Type.Union([FieldError, ValidationIssue]), {
                description:
                  "every invalid field of the request (FieldError), or the YAML's validation issues with DRAFT_INVALID",
              }),
            ),
            errors_omitted: Type.Optional(
              Type.Integer({
                minimum: 1,
                description:
                  "issues left out of `errors`, which keeps the first ones within 16 KiB (DRAFT_INVALID; `.../draft/validate` lists them all)",
              }),
            ),
          },
          { additionalProperties: true },
        ),
      },
      { additionalProperties: false },
    ),
  },
  { title: "ErrorEnvelope", additionalProperties: false },
);

export type FieldErrorJson = Static<typeof FieldError>;
export type ErrorEnvelopeJson = Static<typeof ErrorEnvelope>;
