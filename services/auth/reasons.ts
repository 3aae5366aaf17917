/** Reasons the auth service raises (listed in docs/auth.md with their public codes). */
export const AuthReason = {
  credentialInvalid: "CREDENTIAL_INVALID",
  projectMismatch: "PROJECT_MISMATCH",
  scopeNotGranted: "SCOPE_NOT_GRANTED",
  projectNotFound: "PROJECT_NOT_FOUND",
  projectArchived: "PROJECT_ARCHIVED",
  organizationNotFound: "ORGANIZATION_NOT_FOUND",
  credentialNotFound: "CREDENTIAL_NOT_FOUND",
  slugTaken: "SLUG_TAKEN",
  rateLimited: "RATE_LIMITED",
  keysManagedExternally: "SIGNING_KEYS_MANAGED_EXTERNALLY",
} as const;
