import { Sort } from "../../../proto/gen/catalogue/v1/catalogue_pb.js";
import { Reason } from "../../../services/shared/errors/reasons.js";
import { ApiError } from "../../errors/api-error.js";

/**
 * Listing parameters, strictly (contract: "Out-of-range or non-integer values are 400, never
 * silently clamped"): a non-integer is FIELD_INVALID, an integer out of range LIMIT_OUT_OF_RANGE,
 * a repeated parameter FIELD_INVALID.
 */
export const PAGE_RULES = { limitMin: 1, limitMax: 200, limitDefault: 20 } as const;

/** A Map, not an object: `?sort=constructor` must not find Object.prototype's members. */
const SORT_VALUES: ReadonlyMap<string, Sort> = new Map([
  ["recent", Sort.RECENT],
  ["stars", Sort.STARS],
  ["name", Sort.NAME],
]);

function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) {
    throw new ApiError("invalid_argument", Reason.fieldInvalid, `${name} may be given once`, {
      field: name,
    });
  }
  return values[0];
}

function integer(params: URLSearchParams, name: string): bigint | undefined {
  const raw = single(params, name);
  if (raw === undefined) return undefined;
  if (!/^-?\d{1,30}$/.test(raw)) {
    throw new ApiError("invalid_argument", Reason.fieldInvalid, `${name} must be an integer`, {
      field: name,
    });
  }
  return BigInt(raw);
}

function outOfRange(field: string, min: number, max: number): ApiError {
  return new ApiError(
    "invalid_argument",
    Reason.limitOutOfRange,
    `${field} must be between ${min} and ${max}`,
    { field, min, max },
  );
}

export interface Page {
  readonly limit: number;
  readonly offset: bigint;
}

export function pageParams(params: URLSearchParams): Page {
  const limit = integer(params, "limit") ?? BigInt(PAGE_RULES.limitDefault);
  const offset = integer(params, "offset") ?? 0n;
  if (limit < PAGE_RULES.limitMin || limit > PAGE_RULES.limitMax) {
    throw outOfRange("limit", PAGE_RULES.limitMin, PAGE_RULES.limitMax);
  }
  if (offset < 0n || offset > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw outOfRange("offset", 0, Number.MAX_SAFE_INTEGER);
  }
  return { limit: Number(limit), offset };
}

export function sortParam(params: URLSearchParams): Sort {
  const raw = single(params, "sort");
  if (raw === undefined) return Sort.RECENT;
  const sort = SORT_VALUES.get(raw);
  if (sort === undefined) {
    throw new ApiError(
      "invalid_argument",
      Reason.fieldInvalid,
      "sort must be recent, stars or name",
      {
        field: "sort",
        allowed: [...SORT_VALUES.keys()],
      },
    );
  }
  return sort;
}

export function searchParam(params: URLSearchParams): string {
  return single(params, "q") ?? "";
}
