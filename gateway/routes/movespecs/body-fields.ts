import { Reason } from "../../../services/shared/errors/reasons.js";
import { ApiError } from "../../errors/api-error.js";

/** Shape checks of JSON bodies (types and presence; the services check sizes and meaning). */
export function requiredString(body: Record<string, unknown> | undefined, field: string): string {
  const value = body?.[field];
  if (value === undefined || value === null) {
    throw new ApiError("invalid_argument", Reason.fieldRequired, `${field} is required`, { field });
  }
  if (typeof value !== "string") {
    throw new ApiError("invalid_argument", Reason.fieldInvalid, `${field} must be a string`, {
      field,
    });
  }
  return value;
}

export function optionalString(
  body: Record<string, unknown> | undefined,
  field: string,
): string | undefined {
  const value = body?.[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") {
    throw new ApiError("invalid_argument", Reason.fieldInvalid, `${field} must be a string`, {
      field,
    });
  }
  return value;
}
