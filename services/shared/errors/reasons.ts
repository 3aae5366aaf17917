/**
 * The closed vocabulary of error reasons: the `details.reason` of every public error envelope,
 * carried from the service that raised it to the HTTP body. Each group is a const object (so code
 * reads `AuthReason.slugTaken`) and `ErrorReason` is the union of all their values: `serviceError`,
 * the gateway's `ApiError` and its reason-to-code table accept nothing else, so a typo fails the
 * type check. Every reason is listed, with its code, HTTP status and meaning, in docs/errors.md
 * (test/shared/errors-doc.test.ts keeps the two in step).
 *
 * The groups live here, not in each service, because the gateway must type them without
 * importing any service; each service's reasons.ts re-exports its own group.
 */

/** Raised by more than one service, or by the shared runtime. */
export const Reason = {
  dependencyUnavailable: "DEPENDENCY_UNAVAILABLE",
  notReady: "SERVICE_NOT_READY",
  deadlineExceeded: "DEADLINE_EXCEEDED",
  internal: "INTERNAL",
  fieldRequired: "FIELD_REQUIRED",
  fieldInvalid: "FIELD_INVALID",
  limitOutOfRange: "LIMIT_OUT_OF_RANGE",
  tokenMissing: "TOKEN_MISSING",
  tokenInvalid: "TOKEN_INVALID",
  tokenExpired: "TOKEN_EXPIRED",
  projectMismatch: "PROJECT_MISMATCH",
  projectNotFound: "PROJECT_NOT_FOUND",
  projectArchived: "PROJECT_ARCHIVED",
  movespecNotFound: "MOVESPEC_NOT_FOUND",
  concurrentModification: "CONCURRENT_MODIFICATION",
  idempotencyKeyReused: "IDEMPOTENCY_KEY_REUSED",
  writeConflict: "WRITE_CONFLICT",
  alreadyExists: "ALREADY_EXISTS",
} as const;

/**
 * What the gateway answers for a service error that carries no reason (a transport or protocol
 * error from connect itself): one generic reason per public code.
 */
export const GenericReason = {
  invalidArgument: "INVALID_ARGUMENT",
  notFound: "NOT_FOUND",
  permissionDenied: "PERMISSION_DENIED",
  unauthenticated: "UNAUTHENTICATED",
  failedPrecondition: "FAILED_PRECONDITION",
  aborted: "ABORTED",
  resourceExhausted: "RESOURCE_EXHAUSTED",
} as const;

/** The auth service's own reasons (services/auth). */
export const AuthReason = {
  credentialInvalid: "CREDENTIAL_INVALID",
  projectMismatch: Reason.projectMismatch,
  scopeNotGranted: "SCOPE_NOT_GRANTED",
  projectNotFound: Reason.projectNotFound,
  projectArchived: Reason.projectArchived,
  organizationNotFound: "ORGANIZATION_NOT_FOUND",
  credentialNotFound: "CREDENTIAL_NOT_FOUND",
  slugTaken: "SLUG_TAKEN",
  rateLimited: "RATE_LIMITED",
  keysManagedExternally: "SIGNING_KEYS_MANAGED_EXTERNALLY",
} as const;

/** The authoring service's own reasons (services/authoring). */
export const AuthoringReason = {
  movespecNotFound: Reason.movespecNotFound,
  movespecArchived: "MOVESPEC_ARCHIVED",
  versionNotFound: "VERSION_NOT_FOUND",
  versionNotInMovespec: "VERSION_NOT_IN_MOVESPEC",
  draftInvalid: "DRAFT_INVALID",
  noReleasedVersion: "NO_RELEASED_VERSION",
  etagMismatch: "ETAG_MISMATCH",
  yamlTooLarge: "YAML_TOO_LARGE",
  nameConfusable: "NAME_CONFUSABLE",
} as const;

/** The catalogue service raises only shared reasons; the group exists so every service has one. */
export const CatalogueReason = {
  movespecNotFound: Reason.movespecNotFound,
} as const;

/** The detection service's reasons in gRPC errors (services/detection). */
export const SessionReason = {
  notFound: "SESSION_NOT_FOUND",
  expired: "SESSION_EXPIRED",
  terminal: "SESSION_TERMINAL",
  quotaExceeded: "SESSION_QUOTA_EXCEEDED",
  contractUnsupported: "CONTRACT_UNSUPPORTED",
  projectMismatch: Reason.projectMismatch,
  movespecUnloadable: "MOVESPEC_UNLOADABLE",
} as const;

/**
 * Raised by the shared authorization interceptor of every service (services/shared/security) when
 * an internal caller is not who it must be. The public API never causes them: reaching the gateway
 * they mean a misconfigured deployment, and the client sees 500.
 */
export const InternalCallReason = {
  workloadUnauthenticated: "WORKLOAD_UNAUTHENTICATED",
  workloadNotAllowed: "WORKLOAD_NOT_ALLOWED",
  userTokenNotAccepted: "USER_TOKEN_NOT_ACCEPTED",
  clientAddressNotAllowed: "CLIENT_ADDRESS_NOT_ALLOWED",
} as const;

/** Raised by the gateway itself, before any service is asked (gateway/). */
export const GatewayReason = {
  routeNotFound: "ROUTE_NOT_FOUND",
  methodNotAllowed: "METHOD_NOT_ALLOWED",
  scopeMissing: "SCOPE_MISSING",
  malformedJson: "MALFORMED_JSON",
  bodyNotObject: "BODY_NOT_OBJECT",
  bodyUnreadable: "BODY_UNREADABLE",
  bodyTooLarge: "BODY_TOO_LARGE",
  contentTypeNotJson: "CONTENT_TYPE_NOT_JSON",
  upgradeNotWebsocket: "UPGRADE_NOT_WEBSOCKET",
  malformedRequest: "MALFORMED_REQUEST",
  headersTooLarge: "HEADERS_TOO_LARGE",
  sessionCreationsBusy: "SESSION_CREATIONS_BUSY",
} as const;

type ValuesOf<T> = T[keyof T];

/** Every reason a public error can carry. */
export type ErrorReason =
  | ValuesOf<typeof Reason>
  | ValuesOf<typeof GenericReason>
  | ValuesOf<typeof AuthReason>
  | ValuesOf<typeof AuthoringReason>
  | ValuesOf<typeof CatalogueReason>
  | ValuesOf<typeof SessionReason>
  | ValuesOf<typeof InternalCallReason>
  | ValuesOf<typeof GatewayReason>;

/** Every reason, each once (for tables, docs and tests). */
export const ERROR_REASONS: readonly ErrorReason[] = [
  ...new Set<ErrorReason>(
    [
      Reason,
      GenericReason,
      AuthReason,
      AuthoringReason,
      CatalogueReason,
      SessionReason,
      InternalCallReason,
      GatewayReason,
    ].flatMap((group) => Object.values(group)),
  ),
];

const KNOWN: ReadonlySet<string> = new Set(ERROR_REASONS);

/** Narrows a reason read off the wire: a string outside the vocabulary is not a reason. */
export function isErrorReason(value: unknown): value is ErrorReason {
  return typeof value === "string" && KNOWN.has(value);
}
