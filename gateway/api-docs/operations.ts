/**
 * The 19 operations of the public HTTP API as data: path, schemas, headers and the error reasons
 * each status can carry. The OpenAPI document is generated from this table and the schemas in
 * services/shared/api; a test checks that the router serves exactly these routes.
 */
import {
  AccessToken,
  AccessTokenRequest,
  CreateMoveSpecRequest,
  CreateSessionRequest,
  Draft,
  Health,
  ListMoveSpecsQuery,
  ListProjectMoveSpecsQuery,
  ListVersionsQuery,
  MoveSpec,
  MoveSpecPage,
  Project,
  ProjectMoveSpecPage,
  ReleasedSource,
  ReplaceDraftRequest,
  Session,
  SessionCreated,
  type TSchema,
  ValidationResult,
  Version,
  VersionPage,
} from "@movement-detection/shared/api";
import type { ErrorReason } from "@movement-detection/shared/errors";

export type Tag = "Health" | "Authentication" | "Projects" | "MoveSpecs" | "Detection sessions";

export interface Operation {
  readonly operationId: string;
  readonly method: "get" | "post" | "put";
  /** OpenAPI style: /api/movespecs/{movespec_id} */
  readonly path: string;
  readonly tag: Tag;
  readonly summary: string;
  readonly description: string;
  readonly pathParams?: readonly { name: string; description: string }[];
  readonly query?: TSchema;
  readonly body?: TSchema;
  /** The success status and its body. */
  readonly status: 200 | 201;
  readonly response: TSchema;
  readonly etag?: boolean;
  readonly location?: boolean;
  readonly idempotent?: boolean;
  readonly ifMatch?: boolean;
  readonly noStore?: boolean;
  /** Error reasons this operation can answer, beyond the shared ones added by access and body. */
  readonly reasons: readonly ErrorReason[];
  /** How the caller is authenticated (see ../auth/scopes.ts for the enforcement). */
  readonly access: "public" | "credential" | "token" | "scope" | "scope-or-anonymous";
}

const movespecId = { name: "movespec_id", description: "the MoveSpec" };
const versionId = { name: "version_id", description: "the version (a movespec_version_id)" };
const sessionId = { name: "session_id", description: "the session" };
const projectId = { name: "project_id", description: "the project (the token's own)" };

/** Every route that calls a service can fail these ways. */
const SERVICE = [
  "DEPENDENCY_UNAVAILABLE",
  "SERVICE_NOT_READY",
  "DEADLINE_EXCEEDED",
  "INTERNAL",
] as const;
const WRITE = ["CONCURRENT_MODIFICATION", "WRITE_CONFLICT"] as const;

export const OPERATIONS: readonly Operation[] = [
  {
    operationId: "getHealth",
    method: "get",
    path: "/api/health",
    tag: "Health",
    summary: "Public health check",
    description: "For client pre-flight. Anonymous; answers about the gateway itself.",
    status: 200,
    response: Health,
    reasons: [],
    access: "public",
  },
  {
    operationId: "getHealthz",
    method: "get",
    path: "/healthz",
    tag: "Health",
    summary: "API health for bootstrap validation",
    description: "The same answer as /api/health, for deployment checks.",
    status: 200,
    response: Health,
    reasons: [],
    access: "public",
  },
  {
    operationId: "mintAccessToken",
    method: "post",
    path: "/api/auth/access-tokens",
    tag: "Authentication",
    summary: "Mint an access token",
    description:
      "Exchanges a long-lived machine credential (an API key, or a service account's id and secret) for a short-lived bearer token bound to the credential's project. Anonymous: the credential is in the body; an `Authorization` header is ignored. An unknown key and a wrong secret get the same 401 `CREDENTIAL_INVALID`; repeated failures from one address are rate limited (429 with `Retry-After`). Never cached (`Cache-Control: no-store`).",
    body: AccessTokenRequest,
    status: 200,
    response: AccessToken,
    noStore: true,
    reasons: [
      "CREDENTIAL_INVALID",
      "SCOPE_NOT_GRANTED",
      "PROJECT_MISMATCH",
      "PROJECT_ARCHIVED",
      "RATE_LIMITED",
      ...SERVICE,
    ],
    access: "credential",
  },
  {
    operationId: "getProject",
    method: "get",
    path: "/api/projects/{project_id}",
    tag: "Projects",
    summary: "Load a project",
    description:
      "Any valid token bound to that project; every other project, existing or not, is 404.",
    pathParams: [projectId],
    status: 200,
    response: Project,
    reasons: ["PROJECT_NOT_FOUND", ...SERVICE],
    access: "token",
  },
  {
    operationId: "listProjectMoveSpecs",
    method: "get",
    path: "/api/projects/{project_id}/movespecs",
    tag: "MoveSpecs",
    summary: "List the project's own MoveSpecs",
    description:
      "Every MoveSpec of the token's project, private, public or delisted, archived ones too, with the released version's number and the draft's last save; searched (`q`, the words of the public catalogue's search) and sorted like the catalogue. Needs `movespecs:read`; any other project, existing or not, is 404 `PROJECT_NOT_FOUND`. Pages never repeat or skip entries: ties are broken by movespec_id.",
    pathParams: [projectId],
    query: ListProjectMoveSpecsQuery,
    status: 200,
    response: ProjectMoveSpecPage,
    reasons: ["FIELD_INVALID", "LIMIT_OUT_OF_RANGE", "PROJECT_NOT_FOUND", ...SERVICE],
    access: "scope",
  },
  {
    operationId: "listMoveSpecs",
    method: "get",
    path: "/api/movespecs",
    tag: "MoveSpecs",
    summary: "List and search the public catalogue",
    description:
      "Public, non-archived MoveSpecs only, for everyone (a token is verified if sent, but changes nothing). Pages never repeat or skip entries: ties are broken by movespec_id.",
    query: ListMoveSpecsQuery,
    status: 200,
    response: MoveSpecPage,
    reasons: ["FIELD_INVALID", "LIMIT_OUT_OF_RANGE", ...SERVICE],
    access: "public",
  },
  {
    operationId: "createMoveSpec",
    method: "post",
    path: "/api/movespecs",
    tag: "MoveSpecs",
    summary: "Create a MoveSpec",
    description:
      "Creates a MoveSpec in the token's project, and its draft (a minimal valid MoveSpec template).",
    body: CreateMoveSpecRequest,
    status: 201,
    response: MoveSpec,
    etag: true,
    location: true,
    idempotent: true,
    reasons: [
      "PROJECT_MISMATCH",
      "PROJECT_NOT_FOUND",
      "PROJECT_ARCHIVED",
      "IDEMPOTENCY_KEY_REUSED",
      "NAME_CONFUSABLE",
      ...WRITE,
      ...SERVICE,
    ],
    access: "scope",
  },
  {
    operationId: "getMoveSpec",
    method: "get",
    path: "/api/movespecs/{movespec_id}",
    tag: "MoveSpecs",
    summary: "Load a MoveSpec",
    description:
      "Anonymous for a public MoveSpec; a private one needs `movespecs:read` in its project. A MoveSpec the caller may not see is 404, exactly like one that does not exist.",
    pathParams: [movespecId],
    status: 200,
    response: MoveSpec,
    etag: true,
    reasons: ["MOVESPEC_NOT_FOUND", ...SERVICE],
    access: "scope-or-anonymous",
  },
  {
    operationId: "getDraft",
    method: "get",
    path: "/api/movespecs/{movespec_id}/draft",
    tag: "MoveSpecs",
    summary: "Load the draft",
    description: "The mutable draft, with its `ETag` for a conditional replacement.",
    pathParams: [movespecId],
    status: 200,
    response: Draft,
    etag: true,
    reasons: ["PROJECT_MISMATCH", "MOVESPEC_NOT_FOUND", ...SERVICE],
    access: "scope",
  },
  {
    operationId: "replaceDraft",
    method: "put",
    path: "/api/movespecs/{movespec_id}/draft",
    tag: "MoveSpecs",
    summary: "Replace the draft",
    description:
      "Replaces the whole YAML. With `If-Match` (the draft's `ETag`) the replacement happens only if nobody changed the draft since (else 412 `ETAG_MISMATCH`). The YAML is not validated here: see validate.",
    pathParams: [movespecId],
    body: ReplaceDraftRequest,
    status: 200,
    response: Draft,
    etag: true,
    ifMatch: true,
    reasons: [
      "PROJECT_MISMATCH",
      "MOVESPEC_NOT_FOUND",
      "MOVESPEC_ARCHIVED",
      "PROJECT_ARCHIVED",
      "ETAG_MISMATCH",
      "YAML_TOO_LARGE",
      ...WRITE,
      ...SERVICE,
    ],
    access: "scope",
  },
  {
    operationId: "validateDraft",
    method: "post",
    path: "/api/movespecs/{movespec_id}/draft/validate",
    tag: "MoveSpecs",
    summary: "Validate the draft",
    description:
      "Loads the draft with the runtime's own loader. Invalid YAML is not an error: it is a 200 with `ok: false` and the issues.",
    pathParams: [movespecId],
    status: 200,
    response: ValidationResult,
    reasons: [
      "PROJECT_MISMATCH",
      "MOVESPEC_NOT_FOUND",
      "MOVESPEC_ARCHIVED",
      "PROJECT_ARCHIVED",
      ...SERVICE,
    ],
    access: "scope",
  },
  {
    operationId: "listVersions",
    method: "get",
    path: "/api/movespecs/{movespec_id}/versions",
    tag: "MoveSpecs",
    summary: "List versions",
    description: "Newest first. Anonymous for a public MoveSpec.",
    pathParams: [movespecId],
    query: ListVersionsQuery,
    status: 200,
    response: VersionPage,
    reasons: ["FIELD_INVALID", "LIMIT_OUT_OF_RANGE", "MOVESPEC_NOT_FOUND", ...SERVICE],
    access: "scope-or-anonymous",
  },
  {
    operationId: "createVersion",
    method: "post",
    path: "/api/movespecs/{movespec_id}/versions",
    tag: "MoveSpecs",
    summary: "Create a version from the draft",
    description:
      "Freezes the draft as the next immutable version (numbers start at 1, no gaps, even under concurrent calls). An invalid draft is 409 `DRAFT_INVALID` with its issues in `details.errors`. No body.",
    pathParams: [movespecId],
    status: 201,
    response: Version,
    location: true,
    idempotent: true,
    reasons: [
      "PROJECT_MISMATCH",
      "MOVESPEC_NOT_FOUND",
      "MOVESPEC_ARCHIVED",
      "PROJECT_ARCHIVED",
      "DRAFT_INVALID",
      "IDEMPOTENCY_KEY_REUSED",
      ...WRITE,
      ...SERVICE,
    ],
    access: "scope",
  },
  {
    operationId: "getVersion",
    method: "get",
    path: "/api/movespecs/{movespec_id}/versions/{version_id}",
    tag: "MoveSpecs",
    summary: "Load a version",
    description: "Anonymous for a public MoveSpec.",
    pathParams: [movespecId, versionId],
    status: 200,
    response: Version,
    reasons: ["MOVESPEC_NOT_FOUND", "VERSION_NOT_FOUND", ...SERVICE],
    access: "scope-or-anonymous",
  },
  {
    operationId: "releaseVersion",
    method: "post",
    path: "/api/movespecs/{movespec_id}/versions/{version_id}/release",
    tag: "MoveSpecs",
    summary: "Release a version",
    description:
      "Makes the version the runtime default: sessions created with `movespec_id` run it. Answers the MoveSpec. No body.",
    pathParams: [movespecId, versionId],
    status: 200,
    response: MoveSpec,
    etag: true,
    reasons: [
      "PROJECT_MISMATCH",
      "MOVESPEC_NOT_FOUND",
      "VERSION_NOT_FOUND",
      "MOVESPEC_ARCHIVED",
      "PROJECT_ARCHIVED",
      ...WRITE,
      ...SERVICE,
    ],
    access: "scope",
  },
  {
    operationId: "getReleasedSource",
    method: "get",
    path: "/api/movespecs/{movespec_id}/released-source",
    tag: "MoveSpecs",
    summary: "Load the released YAML",
    description: "For loading into an editor. Anonymous for a public MoveSpec.",
    pathParams: [movespecId],
    status: 200,
    response: ReleasedSource,
    reasons: ["MOVESPEC_NOT_FOUND", "NO_RELEASED_VERSION", ...SERVICE],
    access: "scope-or-anonymous",
  },
  {
    operationId: "createSession",
    method: "post",
    path: "/api/detection/sessions",
    tag: "Detection sessions",
    summary: "Create a detection session",
    description:
      "Admits a session on a MoveSpec's released version (`movespec_id`) or an exact version (`movespec_version_id`; with both, the version wins and must belong to the MoveSpec). Answers the `stream_url` to attach to and the session's `runtime_token`: see the realtime stream (/asyncapi.json). Each gateway runs creations a few at a time (one by default) so that a burst leaves the cores to live frames; the others wait their turn, and past the gateway's queue (or its wait limit) the answer is 503 `SESSION_CREATIONS_BUSY` with `Retry-After`.",
    body: CreateSessionRequest,
    status: 201,
    response: SessionCreated,
    idempotent: true,
    reasons: [
      "CONTRACT_UNSUPPORTED",
      "VERSION_NOT_IN_MOVESPEC",
      "PROJECT_MISMATCH",
      "PROJECT_ARCHIVED",
      "MOVESPEC_NOT_FOUND",
      "VERSION_NOT_FOUND",
      "NO_RELEASED_VERSION",
      "MOVESPEC_UNLOADABLE",
      "IDEMPOTENCY_KEY_REUSED",
      "SESSION_QUOTA_EXCEEDED",
      "SESSION_CREATIONS_BUSY",
      ...WRITE,
      ...SERVICE,
    ],
    access: "scope",
  },
  {
    operationId: "getSession",
    method: "get",
    path: "/api/detection/sessions/{session_id}",
    tag: "Detection sessions",
    summary: "Load a session",
    description: "Its status and counts; `terminal_outcome` once it completed.",
    pathParams: [sessionId],
    status: 200,
    response: Session,
    reasons: ["SESSION_NOT_FOUND", "SESSION_EXPIRED", ...SERVICE],
    access: "scope",
  },
  {
    operationId: "finalizeSession",
    method: "post",
    path: "/api/detection/sessions/{session_id}/finalize",
    tag: "Detection sessions",
    summary: "Finalize a session",
    description:
      "Moves the session to `finalizing` (from `created` or `streaming`; idempotent in `finalizing`; 409 `SESSION_TERMINAL` once ended). Frames not yet received are not part of it: wait for the `ack` of the last frame first, or use the stream's own `finalize`. No body.",
    pathParams: [sessionId],
    status: 200,
    response: Session,
    reasons: ["SESSION_NOT_FOUND", "SESSION_EXPIRED", "SESSION_TERMINAL", ...WRITE, ...SERVICE],
    access: "scope",
  },
];
