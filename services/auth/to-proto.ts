import { create } from "@bufbuild/protobuf";
import {
  type Credential,
  CredentialSchema,
  CredentialType,
  type Organization,
  OrganizationSchema,
  type Project,
  ProjectSchema,
  type SigningKey,
  SigningKeySchema,
} from "@movement-detection/proto/auth/v1";
import type { KeyState } from "./signing/key-schedule.js";
import type { CredentialRecord } from "./store/credentials-store.js";
import type { OrganizationRecord } from "./store/organizations-store.js";
import type { ProjectRecord } from "./store/projects-store.js";

const iso = (date: Date | number) => new Date(date).toISOString();

export function organizationMessage(record: OrganizationRecord): Organization {
  return create(OrganizationSchema, {
    organizationId: record._id,
    name: record.name,
    createdAt: iso(record.created_at),
  });
}

export function projectMessage(record: ProjectRecord): Project {
  return create(ProjectSchema, {
    projectId: record._id,
    organizationId: record.organization_id,
    name: record.name,
    slug: record.slug,
    createdAt: iso(record.created_at),
    archivedAt: record.archived_at ? iso(record.archived_at) : undefined,
  });
}

export function credentialMessage(record: CredentialRecord): Credential {
  return create(CredentialSchema, {
    credentialId: record._id,
    type: record.type === "api_key" ? CredentialType.API_KEY : CredentialType.SERVICE_ACCOUNT,
    organizationId: record.organization_id,
    projectId: record.project_id,
    name: record.name,
    scopes: record.scopes,
    secretHint: record.secret_hint,
    createdAt: iso(record.created_at),
    revokedAt: record.revoked_at ? iso(record.revoked_at) : undefined,
  });
}

export function signingKeyMessage(
  state: KeyState & { alg: string },
  source: "database" | "directory",
): SigningKey {
  return create(SigningKeySchema, {
    kid: state.kid,
    alg: state.alg,
    createdAt: iso(state.createdAt),
    activatesAt: iso(state.activatesAt),
    retiredAt: state.retiredAt !== undefined ? iso(state.retiredAt) : undefined,
    verifyUntil: state.verifyUntil !== undefined ? iso(state.verifyUntil) : undefined,
    signing: state.signing,
    source,
  });
}
