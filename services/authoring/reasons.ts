/**
 * The authoring service's reasons: its own group of the shared vocabulary (services/shared/errors/
 * reasons.ts), listed with their public codes in docs/errors.md.
 */
export { AuthoringReason, Reason } from "@movement-detection/shared/errors";
