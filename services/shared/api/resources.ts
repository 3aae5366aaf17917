/**
 * The resources the public HTTP API answers with (spec "Resources and their fields"): snake_case,
 * timestamps in ISO 8601 UTC with milliseconds, optional fields omitted (never null), internal
 * fields (creators, organization of a MoveSpec, revisions) never shown.
 */
import type { Scope } from "../tokens/scopes.js";
import { Resource, type Static, StringEnum, Timestamp, Type, Uuid } from "./schema-kit.js";

export const VISIBILITIES = ["private", "public", "delisted"] as const;
export const SESSION_MODES = ["live", "replay"] as const;
export const SESSION_STATUSES = [
  "created",
  "streaming",
  "finalizing",
  "completed",
  "failed",
  "cancelled",
] as const;

export const Health = Resource(
  "Health",
  {
    status: Type.Literal("ok", { description: "always `ok`" }),
    environment: Type.String({
      description: "the runtime environment's name",
      examples: ["development"],
    }),
    role: Type.String({ description: "the responding service", examples: ["gateway"] }),
  },
  "Health of the gateway itself (it does not call the services).",
);

export const AccessToken = Resource(
  "AccessToken",
  {
    access_token: Type.String({
      description: "a short-lived JWT: send it as `Authorization: Bearer <access_token>`",
    }),
    token_type: Type.Literal("Bearer"),
    expires_in_seconds: Type.Integer({
      minimum: 1,
      description: "lifetime in seconds (900 by default)",
      examples: [900],
    }),
    organization_id: Uuid("the organization the token is bound to"),
    project_id: Uuid("the project the token is bound to"),
  },
  "A minted access token. Refresh it (mint another) before it expires.",
);

export const Project = Resource(
  "Project",
  {
    project_id: Uuid("identifier"),
    organization_id: Uuid("owning organization"),
    name: Type.String({ description: "display name", examples: ["Squat coach"] }),
    slug: Type.String({ description: "stable slug", examples: ["squat-coach"] }),
    created_at: Timestamp("creation time"),
    archived_at: Type.Optional(Timestamp("present when the project is no longer writable")),
  },
  "A project: owns MoveSpecs, credentials and sessions.",
);

export const MoveSpec = Resource(
  "MoveSpec",
  {
    movespec_id: Uuid("identifier"),
    project_id: Uuid("owning project"),
    name: Type.String({
      description: "display name, 1 to 120 characters",
      examples: ["Deep squat"],
    }),
    created_at: Timestamp("creation time"),
    updated_at: Timestamp("last metadata or release-pointer update"),
    visibility: StringEnum(VISIBILITIES, {
      description: "`delisted` is set only by moderation and cannot be set through the API",
    }),
    archived_at: Type.Optional(Timestamp("present when the MoveSpec is no longer writable")),
    current_released_version_id: Type.Optional(Uuid("the released version, when one was released")),
    description: Type.Optional(Type.String({ description: "up to 2,000 characters" })),
    star_count: Type.Optional(
      Type.Integer({ minimum: 0, description: "organization-level stars" }),
    ),
  },
  "A MoveSpec: a YAML document, owned by a project, that defines a movement to detect.",
);

export const Draft = Resource(
  "Draft",
  {
    draft_id: Uuid("identifier"),
    movespec_id: Uuid("owning MoveSpec"),
    updated_at: Timestamp("last replacement"),
    yaml_source: Type.String({ description: "the full mutable YAML (up to 256 KiB of UTF-8)" }),
  },
  "The single mutable draft of a MoveSpec. Its `ETag` goes back in `If-Match` when replacing it.",
);

export const Version = Resource(
  "Version",
  {
    movespec_version_id: Uuid("identifier"),
    movespec_id: Uuid("owning MoveSpec"),
    version_number: Type.Integer({ minimum: 1, description: "1, 2, 3, ... per MoveSpec, no gaps" }),
    content_hash: Type.String({
      pattern: "^[0-9a-f]{64}$",
      description: "SHA-256 (hex) of the immutable YAML",
    }),
    created_at: Timestamp("creation time"),
    yaml_source: Type.String({ description: "the immutable YAML snapshot" }),
  },
  "An immutable, numbered version of a MoveSpec.",
);

export const ReleasedSource = Resource(
  "ReleasedSource",
  {
    movespec_id: Uuid("the MoveSpec"),
    movespec_version_id: Uuid("its released version"),
    version_number: Type.Integer({ minimum: 1 }),
    yaml_source: Type.String({ description: "the released YAML" }),
  },
  "The YAML of a MoveSpec's released version, for loading into an editor.",
);

export const ValidationIssue = Resource(
  "ValidationIssue",
  {
    code: Type.String({ description: "stable issue code", examples: ["FIELD_REQUIRED"] }),
    message: Type.String(),
    severity: Type.String({ description: "`error` or `warning`", examples: ["error"] }),
    line: Type.Optional(Type.Integer({ minimum: 0, description: "1-based line in the YAML" })),
    column: Type.Optional(Type.Integer({ minimum: 0, description: "1-based column" })),
    path: Type.Optional(
      Type.String({ description: "where in the document", examples: ["phases.down"] }),
    ),
  },
  "One problem found in a MoveSpec's YAML.",
);

export const ValidationResult = Resource(
  "ValidationResult",
  {
    ok: Type.Boolean({ description: "true when the YAML is valid for runtime use" }),
    target_id: Type.String({ description: "identifier of the validated target" }),
    target_type: StringEnum(["draft", "movespec_version", "scratch"] as const),
    validated_at: Timestamp("when the validation ran"),
    errors: Type.Array(ValidationIssue, { description: "blocking issues" }),
    warnings: Type.Array(ValidationIssue, { description: "non-blocking issues" }),
  },
  "The result of validating YAML with the runtime's own loader. Invalid YAML is a 200 with `ok: false`.",
);

export const Session = Resource(
  "Session",
  {
    session_id: Uuid("identifier"),
    organization_id: Uuid("owning organization"),
    project_id: Uuid("owning project"),
    resolved_movespec_version_id: Uuid("the immutable MoveSpec version the session runs"),
    mode: StringEnum(SESSION_MODES),
    status: StringEnum(SESSION_STATUSES, {
      description:
        "created → streaming (first accepted frame) → finalizing → completed; or failed, cancelled",
    }),
    accepted_frames_total: Type.Integer({ minimum: 0 }),
    started_at: Type.Optional(Timestamp("when streaming began")),
    ended_at: Type.Optional(Timestamp("when the session became terminal")),
    error_code: Type.Optional(
      Type.String({
        description: "why a session failed or was cancelled",
        examples: ["IDLE_TIMEOUT"],
      }),
    ),
    error_message: Type.Optional(Type.String()),
    terminal_outcome: Type.Optional(
      Type.String({
        description:
          "the final `session.summary` event as JSON text (parse it: `JSON.parse(terminal_outcome).count`)",
      }),
    ),
  },
  "A detection session.",
);

export const SessionCreated = Resource(
  "SessionCreated",
  {
    session_id: Uuid("identifier"),
    project_id: Uuid("bound project"),
    resolved_movespec_version_id: Uuid("the immutable MoveSpec version selected"),
    mode: StringEnum(SESSION_MODES),
    status: StringEnum(SESSION_STATUSES, { description: "the initial lifecycle state, `created`" }),
    input_schema_version: Type.String({ examples: ["pose-frame.v1"] }),
    output_schema_version: Type.String({ examples: ["detection-event.v1"] }),
    runtime_token: Type.String({
      description: "session-scoped JWT: send it in the stream's `hello` (never in the URL)",
    }),
    stream_url: Type.String({
      format: "uri",
      description: "the session's websocket: `{public base}/api/detection/sessions/{id}/stream`",
      examples: [
        "wss://api.example.com/api/detection/sessions/0192f0c4-3b7e-7a51-9d3c-6f1e2a4b5c6d/stream",
      ],
    }),
  },
  "A session just admitted, with what a client needs to attach to its stream.",
);

/** The page envelope of every list response. */
export function Page<T extends Type.TSchema>(title: string, items: T, description: string) {
  return Resource(
    title,
    {
      items: Type.Array(items, { description: "this page's entries" }),
      has_more: Type.Boolean({ description: "more entries exist beyond this page" }),
      limit: Type.Integer({ minimum: 1, maximum: 200, description: "page size used" }),
      offset: Type.Integer({ minimum: 0, description: "offset from the start of the result set" }),
      total: Type.Integer({ minimum: 0, description: "number of matching entries" }),
    },
    description,
  );
}

export const MoveSpecPage = Page("MoveSpecPage", MoveSpec, "A page of public MoveSpecs.");

/** A MoveSpec in its project's listing: the resource, and what a list shows beside it. */
export const ProjectMoveSpec = Resource(
  "ProjectMoveSpec",
  {
    ...MoveSpec.properties,
    released_version_number: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: "the released version's number, when one is released",
      }),
    ),
    draft_updated_at: Timestamp("the draft's last save"),
  },
  "One of a project's own MoveSpecs (any visibility, archived ones too), as its listing shows it.",
);
export const ProjectMoveSpecPage = Page(
  "ProjectMoveSpecPage",
  ProjectMoveSpec,
  "A page of a project's own MoveSpecs.",
);
export const VersionPage = Page("VersionPage", Version, "A page of versions, newest first.");

export type HealthJson = Static<typeof Health>;
export type AccessTokenJson = Static<typeof AccessToken>;
export type ProjectJson = Static<typeof Project>;
export type MoveSpecJson = Static<typeof MoveSpec>;
export type DraftJson = Static<typeof Draft>;
export type VersionJson = Static<typeof Version>;
export type ReleasedSourceJson = Static<typeof ReleasedSource>;
export type ValidationIssueJson = Static<typeof ValidationIssue>;
export type ValidationResultJson = Static<typeof ValidationResult>;
export type SessionJson = Static<typeof Session>;
export type SessionCreatedJson = Static<typeof SessionCreated>;
export type MoveSpecPageJson = Static<typeof MoveSpecPage>;
export type ProjectMoveSpecJson = Static<typeof ProjectMoveSpec>;
export type ProjectMoveSpecPageJson = Static<typeof ProjectMoveSpecPage>;
export type VersionPageJson = Static<typeof VersionPage>;

/** What each scope grants (spec "Authentication"). */
export const SCOPE_DESCRIPTIONS: Readonly<Record<Scope, string>> = {
  "movespecs:read": "read MoveSpecs, drafts, versions, validation results",
  "movespecs:write": "create, update, validate, version and release MoveSpecs",
  "sessions:read": "read detection sessions",
  "sessions:write": "create and finalize detection sessions, and stream",
  "tokens:read": "list and inspect access tokens",
  "tokens:write": "create and revoke access tokens",
};
