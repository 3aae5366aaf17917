/**
 * The catalogue service's reasons: only shared ones (services/shared/errors/reasons.ts), listed
 * with their public codes in docs/errors.md.
 */
export { CatalogueReason, Reason } from "@movement-detection/shared/errors";
