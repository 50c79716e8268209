import { create, fromBinary } from "@bufbuild/protobuf";
import {
  CodeGeneratorRequestSchema,
  SourceCodeInfo_LocationSchema,
  SourceCodeInfoSchema,
  type CodeGeneratorRequest,
  type FileDescriptorProto,
  type SourceCodeInfo,
  type SourceCodeInfo_Location,
} from "@bufbuild/protobuf/wkt";

/**
 * Source locations (spans and comments) left encoded until something reads them.
 *
 * A CodeGeneratorRequest carries the SourceCodeInfo of every file: 3.2 of
 * compute.proto's 4 MB, 58,832 locations, whose decoding was a tenth of the
 * whole run, where the generated code needs the comments of services and rpcs
 * only. readRequest decodes the request without them and gives each file a
 * `sourceCodeInfo` decoded from its own bytes when first read, so any reader
 * sees what fromBinary would have given; sourceLocations picks locations by
 * path out of the bytes, decoding those alone.
 */

// CodeGeneratorRequest.proto_file and .source_file_descriptors (both FileDescriptorProto),
// FileDescriptorProto.source_code_info, SourceCodeInfo.location, SourceCodeInfo.Location.path.
const REQUEST_PROTO_FILE = 15;
const REQUEST_SOURCE_FILE = 17;
const FILE_SOURCE_CODE_INFO = 9;
const INFO_LOCATION = 1;
const LOCATION_PATH = 1;
const VARINT = 0;
const LEN = 2;

/** The encoded SourceCodeInfo of each file that readRequest left undecoded. */
const encoded = new WeakMap<FileDescriptorProto, Uint8Array>();

/**
 * The CodeGeneratorRequest in `bytes`, as fromBinary decodes it, but with each
 * file's source locations decoded only when read. Input that is not what this
 * walk expects (malformed, or groups) is left to fromBinary whole, errors and all.
 */
export function readRequest(bytes: Uint8Array): CodeGeneratorRequest {
  let split: Split;
  try {
    split = splitSourceInfo(bytes);
  } catch (e) {
    if (!(e instanceof WireError)) throw e;
    return fromBinary(CodeGeneratorRequestSchema, bytes);
  }
  const request = fromBinary(CodeGeneratorRequestSchema, split.bytes);
  const lazy = (files: FileDescriptorProto[], infos: (Uint8Array | undefined)[]) =>
    files.forEach((file, i) => {
      const info = infos[i];
      if (info !== undefined) decodeOnRead(file, info);
    });
  lazy(request.protoFile, split.protoFile);
  lazy(request.sourceFileDescriptors, split.sourceFile);
  return request;
}

/**
 * The file's source locations whose path starts with one of `roots` (field
 * numbers of FileDescriptorProto) and that `keep` accepts, in their order.
 * While readRequest's bytes are still undecoded only those are decoded, and
 * the others are passed over by the first number of their path.
 */
export function sourceLocations(
  file: FileDescriptorProto,
  roots: readonly number[],
  keep: (path: readonly number[]) => boolean,
): SourceCodeInfo_Location[] {
  const info = encoded.get(file);
  if (info !== undefined) {
    try {
      return pickLocations(info, roots, keep);
    } catch (e) {
      if (!(e instanceof WireError)) throw e;
      // Malformed: the full decode below says how, as fromBinary would have.
    }
  }
  return (file.sourceCodeInfo?.location ?? []).filter((loc) => roots.includes(loc.path[0]!) && keep(loc.path));
}

/** Whether the file's source locations are still undecoded (readRequest's, not read yet). */
export function sourceInfoEncoded(file: FileDescriptorProto): boolean {
  return encoded.has(file);
}

/** A SourceCodeInfo of the locations given, for readers that scan `location` themselves. */
export function sourceInfoOf(locations: SourceCodeInfo_Location[]): SourceCodeInfo {
  return create(SourceCodeInfoSchema, { location: locations });
}

function decodeOnRead(file: FileDescriptorProto, info: Uint8Array): void {
  encoded.set(file, info);
  const settle = (value: SourceCodeInfo | undefined) => {
    encoded.delete(file);
    Object.defineProperty(file, "sourceCodeInfo", { value, writable: true, enumerable: true, configurable: true });
    return value;
  };
  Object.defineProperty(file, "sourceCodeInfo", {
    enumerable: true,
    configurable: true,
    get: () => settle(fromBinary(SourceCodeInfoSchema, info)),
    set: settle,
  });
}

interface Split {
  /** The request without any file's source_code_info. */
  readonly bytes: Uint8Array;
  /** The source_code_info of each proto_file, in order (undefined: it had none). */
  readonly protoFile: (Uint8Array | undefined)[];
  /** The same for each source_file_descriptors entry. */
  readonly sourceFile: (Uint8Array | undefined)[];
}

function splitSourceInfo(bytes: Uint8Array): Split {
  const chunks: Uint8Array[] = [];
  const protoFile: (Uint8Array | undefined)[] = [];
  const sourceFile: (Uint8Array | undefined)[] = [];
  let copied = 0;
  const w = new Wire(bytes, 0, bytes.length);
  while (w.more()) {
    const tag = w.tag();
    const field = fieldOf(tag);
    const type = typeOf(tag);
    if ((field !== REQUEST_PROTO_FILE && field !== REQUEST_SOURCE_FILE) || type !== LEN) {
      w.skip(type);
      continue;
    }
    const lengthAt = w.pos;
    const end = w.lengthDelimited();
    const { rest, info } = splitFile(bytes, w.pos, end);
    (field === REQUEST_PROTO_FILE ? protoFile : sourceFile).push(info);
    if (info !== undefined) {
      chunks.push(bytes.subarray(copied, lengthAt), encodeVarint(rest.reduce((n, c) => n + c.length, 0)), ...rest);
      copied = end;
    }
    w.pos = end;
  }
  if (copied === 0) return { bytes, protoFile, sourceFile };
  chunks.push(bytes.subarray(copied));
  return { bytes: Buffer.concat(chunks), protoFile, sourceFile };
}

/** A FileDescriptorProto's records without source_code_info, and that field's payloads joined (a message given twice is merged, as joined bytes are). */
function splitFile(bytes: Uint8Array, start: number, end: number): { rest: Uint8Array[]; info: Uint8Array | undefined } {
  const rest: Uint8Array[] = [];
  const infos: Uint8Array[] = [];
  let kept = start;
  const w = new Wire(bytes, start, end);
  while (w.more()) {
    const at = w.pos;
    const tag = w.tag();
    const field = fieldOf(tag);
    const type = typeOf(tag);
    if (field !== FILE_SOURCE_CODE_INFO || type !== LEN) {
      w.skip(type);
      continue;
    }
    const recordEnd = w.lengthDelimited();
    infos.push(bytes.subarray(w.pos, recordEnd));
    rest.push(bytes.subarray(kept, at));
    kept = w.pos = recordEnd;
  }
  if (infos.length === 0) return { rest: [bytes.subarray(start, end)], info: undefined };
  rest.push(bytes.subarray(kept, end));
  return { rest, info: infos.length === 1 ? infos[0] : Buffer.concat(infos) };
}

function pickLocations(info: Uint8Array, roots: readonly number[], keep: (path: readonly number[]) => boolean): SourceCodeInfo_Location[] {
  const out: SourceCodeInfo_Location[] = [];
  const index = locationIndex(info);
  for (let i = 0; i < index.length; i += 3) {
    const first = index[i + 2]!;
    if (first !== UNKNOWN_FIRST && !roots.includes(first)) continue;
    const start = index[i]!;
    const end = index[i + 1]!;
    const path = pathOf(info, start, end);
    if (roots.includes(path[0]!) && keep(path)) out.push(fromBinary(SourceCodeInfo_LocationSchema, info.subarray(start, end)));
  }
  return out;
}

/** In a location index, a location whose first path number firstOf cannot read. */
const UNKNOWN_FIRST = -1;
const indexes = new WeakMap<Uint8Array, Int32Array>();

/**
 * Where each location of an encoded SourceCodeInfo is, with the first number
 * of its path: three numbers a location (start, end, first), made on the
 * first call and kept, so that the several picks of a file walk it once.
 */
function locationIndex(info: Uint8Array): Int32Array {
  let index = indexes.get(info);
  if (index !== undefined) return index;
  const found: number[] = [];
  const w = new Wire(info, 0, info.length);
  while (w.more()) {
    const tag = w.tag();
    if (fieldOf(tag) !== INFO_LOCATION || typeOf(tag) !== LEN) {
      w.skip(typeOf(tag));
      continue;
    }
    const end = w.lengthDelimited();
    found.push(w.pos, end, firstOf(info, w.pos, end) ?? UNKNOWN_FIRST);
    w.pos = end;
  }
  index = Int32Array.from(found);
  indexes.set(info, index);
  return index;
}

// A location's path as its first record, packed (as protoc writes it) or not.
const PACKED_PATH = (LOCATION_PATH << 3) | LEN;
const UNPACKED_PATH = (LOCATION_PATH << 3) | VARINT;

/**
 * The first number of a location's path, read without a cursor when the
 * location starts with it and it is one byte (a field number under 128, as
 * every root is); undefined otherwise, for pathOf to read.
 */
function firstOf(bytes: Uint8Array, start: number, end: number): number | undefined {
  let at = start;
  const tag = bytes[at++];
  if (tag === PACKED_PATH) {
    const length = bytes[at++];
    if (length === undefined || length === 0 || length >= 0x80) return undefined;
  } else if (tag !== UNPACKED_PATH) return undefined;
  const first = bytes[at];
  return at < end && first !== undefined && first < 0x80 ? first : undefined;
}

/** A location's path: packed, or one value a record (parsers accept both), or both. */
function pathOf(bytes: Uint8Array, start: number, end: number): number[] {
  const path: number[] = [];
  const w = new Wire(bytes, start, end);
  while (w.more()) {
    const tag = w.tag();
    const field = fieldOf(tag);
    const type = typeOf(tag);
    if (field !== LOCATION_PATH || (type !== LEN && type !== VARINT)) {
      w.skip(type);
      continue;
    }
    if (type === VARINT) {
      path.push(w.int32());
      continue;
    }
    const packedEnd = w.lengthDelimited();
    const values = new Wire(bytes, w.pos, packedEnd);
    while (values.more()) path.push(values.int32());
    w.pos = packedEnd;
  }
  return path;
}

/** Input the walk does not take; readRequest and sourceLocations then leave it to fromBinary. */
class WireError extends Error {}

/** A cursor over protobuf's wire format, enough to find records by field number. */
class Wire {
  constructor(
    private readonly bytes: Uint8Array,
    public pos: number,
    private readonly end: number,
  ) {}

  more(): boolean {
    return this.pos < this.end;
  }

  /** A record's tag: its field number times 8 plus its wire type (see fieldOf, typeOf). */
  tag(): number {
    return this.varint();
  }

  /** A length prefix; returns where its payload ends (the payload starts at pos). */
  lengthDelimited(): number {
    const length = this.varint();
    const end = this.pos + length;
    if (end > this.end) throw new WireError("length past the end");
    return end;
  }

  /** An int32 as paths hold them; a negative one (ten bytes) is left to fromBinary. */
  int32(): number {
    const v = this.varint();
    if (v > 0x7fffffff) throw new WireError("negative int32");
    return v;
  }

  varint(): number {
    let value = 0;
    for (let shift = 0; shift < 53; shift += 7) {
      if (this.pos >= this.end) throw new WireError("varint past the end");
      const b = this.bytes[this.pos++]!;
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return value;
    }
    throw new WireError("varint too long");
  }

  skip(type: number): void {
    switch (type) {
      case VARINT:
        this.varint();
        break;
      case 1:
        this.pos += 8;
        break;
      case LEN:
        this.pos = this.lengthDelimited();
        break;
      case 5:
        this.pos += 4;
        break;
      default:
        // Groups (3, 4) and invalid types.
        throw new WireError(`wire type ${type}`);
    }
    if (this.pos > this.end) throw new WireError("record past the end");
  }
}

const fieldOf = (tag: number) => Math.floor(tag / 8);
const typeOf = (tag: number) => tag % 8;

function encodeVarint(n: number): Uint8Array {
  const out: number[] = [];
  for (; n >= 0x80; n = Math.floor(n / 128)) out.push((n % 128) | 0x80);
  out.push(n);
  return Uint8Array.from(out);
}
