// google.protobuf.Timestamp, which is on every A2A task: RFC 3339, written with
// 0, 3, 6 or 9 fractional digits and read with 0 to 9 and an offset, as
// protobuf-es does.
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { giveUp, messageOf } from "./give-up.js";

const MIN_SECONDS = Date.parse("0001-01-01T00:00:00Z") / 1000;
const MAX_SECONDS = Date.parse("9999-12-31T23:59:59Z") / 1000;

const rfc3339 = /^([0-9]{4}-[0-9]{2}-[0-9]{2})T([0-9]{2}:[0-9]{2}:[0-9]{2})(?:\.([0-9]{1,9}))?(?:Z|([+-][0-9]{2}:[0-9]{2}))$/;

export function readTimestamp(json: unknown): Timestamp {
  if (typeof json !== "string") giveUp();
  const m = rfc3339.exec(json as string);
  if (m === null) giveUp();
  // The same reading as protobuf-es: the date and time (with its offset) to
  // Date.parse, the fraction to nanos.
  const ms = Date.parse(`${m![1]}T${m![2]}${m![4] ?? "Z"}`);
  if (Number.isNaN(ms) || ms < MIN_SECONDS * 1000 || ms > MAX_SECONDS * 1000) giveUp();
  const frac = m![3];
  return {
    $typeName: "google.protobuf.Timestamp",
    seconds: BigInt(ms / 1000),
    nanos: frac === undefined ? 0 : Number(frac.padEnd(9, "0")),
  };
}

export function writeTimestamp(value: unknown): string {
  // An init shape too: it has to give both fields, as a Timestamp does.
  const { seconds, nanos } = messageOf<Timestamp>(value, "google.protobuf.Timestamp") as { seconds: unknown; nanos: unknown };
  if (typeof seconds !== "bigint" || typeof nanos !== "number" || !Number.isInteger(nanos)) giveUp();
  const s = Number(seconds);
  if (s === last.seconds && nanos === last.nanos) return last.text;
  if (s < MIN_SECONDS || s > MAX_SECONDS || (nanos as number) < 0 || (nanos as number) > 999_999_999) giveUp();
  let frac = "";
  if ((nanos as number) > 0) {
    const digits = String((nanos as number) + 1_000_000_000).slice(1);
    frac = digits.endsWith("000000") ? "." + digits.slice(0, 3) : digits.endsWith("000") ? "." + digits.slice(0, 6) : "." + digits;
  }
  const text = utc(s) + frac + "Z";
  last = { seconds: s, nanos: nanos as number, text };
  return text;
}

/**
 * The last Timestamp written and its text (a pure function of the two
 * numbers): a stored task's status time is written again on every GetTask
 * and every event of its stream, and the calendar arithmetic below was a
 * third of a Task's writer on a busy server. One entry, set only by values
 * that passed the bounds, so a hit needs no check.
 */
let last: { readonly seconds: number; readonly nanos: number; readonly text: string } = { seconds: Number.NaN, nanos: -1, text: "" };

const pad2 = (n: number) => (n < 10 ? "0" + n : String(n));

/**
 * `new Date(seconds * 1000).toISOString()` up to the seconds, for years 1 to
 * 9999, without a Date (which costs more than the rest of a Task's JSON):
 * days to a civil date by the proleptic Gregorian calendar's 400-year cycle.
 */
function utc(seconds: number): string {
  const days = Math.floor(seconds / 86400);
  const rest = seconds - days * 86400;
  // Shift the epoch to 0000-03-01, so that leap days end a year.
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const h = Math.floor(rest / 3600);
  const m = Math.floor((rest - h * 3600) / 60);
  const sec = rest - h * 3600 - m * 60;
  return `${String(year).padStart(4, "0")}-${pad2(month)}-${pad2(day)}T${pad2(h)}:${pad2(m)}:${pad2(sec)}`;
}
