/**
 * What clients send: the JSON bodies and query parameters of the public HTTP API. The gateway
 * checks shapes, types and the contract's documented limits with these schemas and reports every
 * invalid field at once; the services still decide meaning (credential forms, scopes, projects,
 * YAML size in bytes, releases).
 *
 * Members the API does not know are ignored, and a member that is `null` counts as absent.
 */
import { SEARCH_QUERY_LIMITS } from "../text/search-words.js";
import { SESSION_MODES, VISIBILITIES } from "./resources.js";
import {
  DisplayName,
  FreeText,
  SearchQuery,
  type Static,
  StringEnum,
  Type,
  UUID_PATTERN,
  Uuid,
} from "./schema-kit.js";

const SECRET_MAX = 1024;
/**
 * The longest scope name a request may hold: scope names are short (`movespecs:write`), and an
 * unknown one is named back in the error, which must stay small enough to travel.
 */
export const SCOPE_NAME_MAX = 64;
const Secret = (description: string) =>
  Type.String({ minLength: 1, maxLength: SECRET_MAX, description });

export const AccessTokenRequest = Type.Object(
  {
    api_key: Type.Optional(Secret("the API key's secret alone (`msk_...`): the preferred form")),
    api_key_id: Type.Optional(Uuid("legacy pair: the key's id (with `api_key_secret`)")),
    api_key_secret: Type.Optional(Secret("legacy pair: the key's secret (with `api_key_id`)")),
    service_account_id: Type.Optional(Uuid("a service account's id (with its secret)")),
    service_account_secret: Type.Optional(Secret("the service account's secret (`mss_...`)")),
    project_id: Type.Optional(
      Uuid("the credential's project; when omitted it is inferred, when given it must match"),
    ),
    scopes: Type.Optional(
      Type.Array(Type.String({ maxLength: SCOPE_NAME_MAX }), {
        minItems: 1,
        maxItems: 50,
        description: "a subset of the credential's scopes; omitted: every scope of the credential",
        examples: [["movespecs:read", "sessions:write"]],
      }),
    ),
  },
  {
    title: "AccessTokenRequest",
    description:
      "Exactly one credential form: `api_key`; or `api_key_id` + `api_key_secret`; or `service_account_id` + `service_account_secret`.",
  },
);

export const CREATABLE_VISIBILITIES = VISIBILITIES.filter((v) => v !== "delisted") as [
  "private",
  "public",
];

export const CreateMoveSpecRequest = Type.Object(
  {
    name: DisplayName("display name", 1, 120),
    project_id: Uuid("the access token's project"),
    description: Type.Optional(FreeText(2000, "no control characters but tab and line breaks")),
    visibility: Type.Optional(
      StringEnum(CREATABLE_VISIBILITIES, {
        default: "private",
        description: "`public` lists it in the catalogue",
      }),
    ),
  },
  {
    title: "CreateMoveSpecRequest",
    description: "Creates a MoveSpec and its draft (a minimal valid MoveSpec template).",
  },
);

export const ReplaceDraftRequest = Type.Object(
  {
    yaml_source: Type.String({
      description: "the full YAML, up to 256 KiB of UTF-8 (beyond: 413 YAML_TOO_LARGE)",
    }),
  },
  { title: "ReplaceDraftRequest", description: "Replaces the whole draft." },
);

export const CreateSessionRequest = Type.Object(
  {
    project_id: Uuid("the access token's project"),
    mode: Type.Optional(
      StringEnum(SESSION_MODES, {
        default: "live",
        description: "`live` (paced, at most 120 frames/s) or `replay` (as fast as it goes)",
      }),
    ),
    contract_major: Type.Optional(
      Type.Integer({
        // A 32-bit integer, as on the wire to the detection service.
        minimum: -(2 ** 31),
        maximum: 2 ** 31 - 1,
        description:
          "the realtime contract's major version; default: the newest supported. Supported: [1] (else 400 CONTRACT_UNSUPPORTED with `details.supported`)",
        examples: [1],
      }),
    ),
    movespec_id: Type.Optional(
      Uuid("run this MoveSpec's released version (409 NO_RELEASED_VERSION if none)"),
    ),
    movespec_version_id: Type.Optional(
      Uuid("run this exact version; with `movespec_id` too, it must belong to that MoveSpec"),
    ),
  },
  {
    title: "CreateSessionRequest",
    description:
      "At least one of `movespec_id` and `movespec_version_id`; the MoveSpec must be the project's own or public.",
  },
);

export const PAGE_LIMITS = { limitMin: 1, limitMax: 200, limitDefault: 20 } as const;

const pageQuery = {
  limit: Type.Optional(
    Type.Integer({
      minimum: PAGE_LIMITS.limitMin,
      maximum: PAGE_LIMITS.limitMax,
      default: PAGE_LIMITS.limitDefault,
      description: "page size, 1 to 200 (never clamped: out of range is 400 LIMIT_OUT_OF_RANGE)",
    }),
  ),
  offset: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      default: 0,
      description: "entries to skip",
    }),
  ),
};

export const SORTS = ["recent", "stars", "name"] as const;

export const ListMoveSpecsQuery = Type.Object(
  {
    q: Type.Optional(
      SearchQuery(
        "words that must all appear in the name or description (case and accents ignored; Chinese and Japanese split into words)",
        SEARCH_QUERY_LIMITS.length,
        SEARCH_QUERY_LIMITS.words,
      ),
    ),
    sort: Type.Optional(
      StringEnum(SORTS, {
        default: "recent",
        description:
          "`recent` (updated_at, newest first), `stars` (most first) or `name` (A to Z, case-insensitive); ties by movespec_id",
      }),
    ),
    ...pageQuery,
  },
  { title: "ListMoveSpecsQuery" },
);

export const PROJECT_SORTS = ["recent", "name"] as const;

export const ListProjectMoveSpecsQuery = Type.Object(
  {
    q: Type.Optional(
      SearchQuery(
        "words that must all appear in the name or description, found as in the public catalogue (case and accents ignored)",
        SEARCH_QUERY_LIMITS.length,
        SEARCH_QUERY_LIMITS.words,
      ),
    ),
    sort: Type.Optional(
      StringEnum(PROJECT_SORTS, {
        default: "recent",
        description:
          "`recent` (the draft's last save, newest first) or `name` (A to Z, case-insensitive); ties by movespec_id",
      }),
    ),
    ...pageQuery,
  },
  { title: "ListProjectMoveSpecsQuery" },
);

export const ListVersionsQuery = Type.Object(pageQuery, { title: "ListVersionsQuery" });

/** Ids in paths (an id that is not a UUID answers exactly like an unknown one: 404). */
export const PathId = Type.String({ pattern: UUID_PATTERN });

export type AccessTokenRequestJson = Static<typeof AccessTokenRequest>;
export type CreateMoveSpecRequestJson = Static<typeof CreateMoveSpecRequest>;
export type ReplaceDraftRequestJson = Static<typeof ReplaceDraftRequest>;
export type CreateSessionRequestJson = Static<typeof CreateSessionRequest>;
export type ListMoveSpecsQueryJson = Static<typeof ListMoveSpecsQuery>;
export type ListVersionsQueryJson = Static<typeof ListVersionsQuery>;
export type ListProjectMoveSpecsQueryJson = Static<typeof ListProjectMoveSpecsQuery>;
