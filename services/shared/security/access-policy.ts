import type { Scope } from "../tokens/scopes.js";
import { WORKLOADS, type Workload } from "./workloads.js";

/**
 * Who may call which internal method: THE table, enforced for every call by
 * authorization-interceptor.ts. Default deny: a method not listed here, or a workload not named
 * in its row, is refused (PERMISSION_DENIED WORKLOAD_NOT_ALLOWED). test/security checks that
 * every method of every service has a row and exercises each row with real clients.
 *
 * `user` says what the call must prove about the end user, with the access token the caller
 * forwards in `authorization` (verified by the called service; never a field of the message):
 * - `none`: the method acts for no user; a token sent anyway is refused (USER_TOKEN_NOT_ACCEPTED);
 * - `optional`: anonymous when absent (public MoveSpecs), verified when present;
 * - `required`: a valid token (TOKEN_MISSING without one);
 * - a scope: a valid token holding that scope (SCOPE_MISSING otherwise).
 */
export type UserRequirement = "none" | "optional" | "required" | { readonly scope: Scope };

export interface MethodRule {
  readonly callers: readonly Workload[];
  readonly user: UserRequirement;
}

const everyone = WORKLOADS;
const gateway = ["gateway"] as const;
const operator = ["operator"] as const;
const detection = ["detection"] as const;
const scope = (name: Scope) => ({ scope: name }) as const;

export const ACCESS_POLICY: Readonly<Record<string, Readonly<Record<string, MethodRule>>>> = {
  "grpc.health.v1.Health": {
    Check: { callers: everyone, user: "none" },
    Watch: { callers: everyone, user: "none" },
  },
  // Schema discovery for tools (grpcurl, buf curl --reflect), where a service serves it.
  "grpc.reflection.v1.ServerReflection": {
    ServerReflectionInfo: { callers: operator, user: "none" },
  },
  "grpc.reflection.v1alpha.ServerReflection": {
    ServerReflectionInfo: { callers: operator, user: "none" },
  },

  "auth.v1.AuthService": {
    // The public token exchange; tools may mint too (client_address: the gateway's only).
    MintAccessToken: { callers: ["gateway", "operator"], user: "none" },
    // Public keys: every verifier of user tokens.
    GetJwks: { callers: ["gateway", "authoring", "detection", "operator"], user: "none" },
    MintRuntimeToken: { callers: detection, user: "none" },
    // The token's own project: the public route, authoring's and detection's archive checks.
    GetProject: { callers: ["gateway", "authoring", "detection"], user: "required" },
    CreateOrganization: { callers: operator, user: "none" },
    ListOrganizations: { callers: operator, user: "none" },
    CreateProject: { callers: operator, user: "none" },
    ListProjects: { callers: operator, user: "none" },
    ArchiveProject: { callers: operator, user: "none" },
    CreateApiKey: { callers: operator, user: "none" },
    ListApiKeys: { callers: operator, user: "none" },
    CreateServiceAccount: { callers: operator, user: "none" },
    ListServiceAccounts: { callers: operator, user: "none" },
    RevokeCredential: { callers: operator, user: "none" },
    RotateSigningKey: { callers: operator, user: "none" },
    ListSigningKeys: { callers: operator, user: "none" },
  },

  "catalogue.v1.CatalogueService": {
    ListMoveSpecs: { callers: ["gateway", "operator"], user: "none" },
    GetStarCounts: { callers: ["gateway", "operator"], user: "none" },
    // No public route stars yet: the admin tool stars on behalf of an organization.
    StarMoveSpec: { callers: operator, user: "none" },
    UnstarMoveSpec: { callers: operator, user: "none" },
    SyncEntries: { callers: ["authoring"], user: "none" },
  },

  "authoring.v1.AuthoringService": {
    CreateMoveSpec: { callers: gateway, user: scope("movespecs:write") },
    GetMoveSpec: { callers: gateway, user: "optional" },
    ListProjectMoveSpecs: { callers: gateway, user: scope("movespecs:read") },
    GetDraft: { callers: gateway, user: scope("movespecs:read") },
    ReplaceDraft: { callers: gateway, user: scope("movespecs:write") },
    ValidateDraft: { callers: gateway, user: scope("movespecs:write") },
    CreateVersion: { callers: gateway, user: scope("movespecs:write") },
    ListVersions: { callers: gateway, user: "optional" },
    GetVersion: { callers: gateway, user: "optional" },
    ReleaseVersion: { callers: gateway, user: scope("movespecs:write") },
    GetReleasedSource: { callers: gateway, user: "optional" },
    // Session admission, for the user who creates the session.
    ResolveVersion: { callers: detection, user: scope("sessions:write") },
    SetVisibility: { callers: operator, user: "none" },
    DelistMoveSpec: { callers: operator, user: "none" },
    UpdateMoveSpec: { callers: operator, user: "none" },
    ArchiveMoveSpec: { callers: operator, user: "none" },
    ArchiveProjectMoveSpecs: { callers: operator, user: "none" },
    ResyncCatalogue: { callers: operator, user: "none" },
  },

  "detection.v1.DetectionService": {
    CreateSession: { callers: gateway, user: scope("sessions:write") },
    GetSession: { callers: gateway, user: scope("sessions:read") },
    FinalizeSession: { callers: gateway, user: scope("sessions:write") },
    GetStreamEndpoint: { callers: gateway, user: "none" },
    // Replica to replica (attachment leases).
    ReleaseAttachment: { callers: detection, user: "none" },
    GetLiveProgress: { callers: detection, user: "none" },
    NotifyFinalize: { callers: detection, user: "none" },
  },
};

/** The rule of one method, or undefined: not listed, so nobody may call it. */
export function ruleFor(serviceTypeName: string, methodName: string): MethodRule | undefined {
  const rules = Object.hasOwn(ACCESS_POLICY, serviceTypeName)
    ? ACCESS_POLICY[serviceTypeName]
    : undefined;
  return rules && Object.hasOwn(rules, methodName) ? rules[methodName] : undefined;
}
