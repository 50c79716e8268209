/**
 * How the SQL store keeps a message (a task, an event, a push config): a
 * format number beside its bytes, and reading one back. Writing is
 * encode.ts's.
 */
import { fromBinary, type DescMessage } from "@bufbuild/protobuf";
import { Code, RpcError } from "../../errors.js";

/** The only encoding so far: protobuf binary of the user's message. */
export const FORMAT_PROTOBUF = 1;

/** Reads one stored message; a row this version cannot read is a clear DATA_LOSS error about that row only. */
export function decodeStored<M>(schema: DescMessage, row: Record<string, unknown>, what: string): M {
  const format = Number(row["format"]);
  if (format !== FORMAT_PROTOBUF) {
    throw new RpcError(
      Code.DATA_LOSS,
      `${what} is stored in format ${format}, which this a2a-http cannot read (written by a newer version?)`,
    );
  }
  try {
    return fromBinary(schema, row["body"] as Uint8Array) as M;
  } catch (e) {
    throw new RpcError(Code.DATA_LOSS, `${what} could not be read: ${(e as Error).message}`);
  }
}
