/** A problem with the request to scaffold: reported as a message, never a stack. */
export class ScaffoldError extends Error {
  override name = "ScaffoldError";
}
