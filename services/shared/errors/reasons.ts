/**
 * Reasons shared across services and the gateway. Service-specific reasons live next to the
 * service that raises them; every reason is listed in docs/errors.md.
 */
export const Reason = {
  dependencyUnavailable: "DEPENDENCY_UNAVAILABLE",
  notReady: "SERVICE_NOT_READY",
  fieldRequired: "FIELD_REQUIRED",
  fieldInvalid: "FIELD_INVALID",
  internal: "INTERNAL",
} as const;
