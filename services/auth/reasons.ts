/**
 * The auth service's reasons: its own group of the shared vocabulary (services/shared/errors/
 * reasons.ts), listed with their public codes in docs/errors.md.
 */
export { AuthReason, Reason } from "@movement-detection/shared/errors";
