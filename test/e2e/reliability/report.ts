import { appendFileSync } from "node:fs";

/**
 * Records a figure of the reliability suite. With RELIABILITY_REPORT set
 * (scripts/reliability.mjs sets it), each figure is appended to that file as
 * one JSON line, from which the README's reliability block is rewritten.
 */
export function reportFigure(name: string, value: Record<string, unknown>): void {
  const file = process.env["RELIABILITY_REPORT"];
  if (file) appendFileSync(file, JSON.stringify({ name, ...value }) + "\n");
}
