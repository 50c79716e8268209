import {
  isFieldSet,
  type DescEnum,
  type DescExtension,
  type DescFile,
  type DescMessage,
  type DescMethod,
  type DescService,
} from "@bufbuild/protobuf";
import { nestedTypes } from "@bufbuild/protobuf/reflect";
import { SourceCodeInfo_LocationSchema, type SourceCodeInfo_Location } from "@bufbuild/protobuf/wkt";
import { protoplugin } from "../protoplugin.js";
import { sourceInfoEncoded, sourceInfoOf, sourceLocations } from "../source-info.js";

/**
 * What protoplugin recomputes on every call, computed once per proto file.
 *
 * protoplugin's importSchema/importShape work out every name of the
 * descriptor's file to resolve one (clashes are settled file-wide), and
 * jsDoc(desc) scans all of the file's source locations for one comment. On
 * compute.proto (795 rpcs, 1,567 messages, 58,832 source locations) that is
 * quadratic: 37 of a 38 s run. These tables give the same names and the same
 * comment text in linear time; test/plugin/corpus/corpus.test.ts holds them equal to
 * protoplugin's own on real protos.
 */

type Named = DescFile | DescMessage | DescEnum | DescExtension | DescService;

interface FileNames {
  /** The exported descriptor's name (`FooSchema`, `FooService`, `file_foo`). */
  readonly schema: ReadonlyMap<Named, string>;
  /** The message or enum type's name (`Foo`). */
  readonly shape: ReadonlyMap<Named, string>;
}

const namesByFile = new WeakMap<DescFile, FileNames>();

/**
 * protobuf-es's names for the file's top-level symbols. Its convention: the
 * type name without the package, nested names joined by "_", "Schema" after
 * messages and enums, reserved words escaped with "$"; shapes claim their
 * names first, then descriptors (the file first), in declaration order, and a
 * name already taken gets "$", then "$1", "$2" ...
 */
export function fileNames(file: DescFile): FileNames {
  let names = namesByFile.get(file);
  if (names) return names;
  const types = [...nestedTypes(file)];
  const taken = new Set<string>();
  const claim = (base: string, suffix: string): string => {
    for (let i = 0; ; i++) {
      const name = protoplugin.safeIdentifier(base + suffix + (i === 0 ? "" : i === 1 ? "$" : `$${i - 1}`));
      if (!taken.has(name)) {
        taken.add(name);
        return name;
      }
    }
  };
  const pkg = file.proto.package;
  const local = (d: Exclude<Named, DescFile>) => d.typeName.substring(pkg.length > 0 ? pkg.length + 1 : 0).replace(/\./g, "_");
  const shape = new Map<Named, string>();
  for (const d of types) if (d.kind === "message" || d.kind === "enum") shape.set(d, claim(local(d), ""));
  const schema = new Map<Named, string>();
  schema.set(file, claim("file_" + file.name.replace(/[^a-zA-Z0-9_]+/g, "_"), ""));
  for (const d of types) schema.set(d, claim(local(d), d.kind === "message" || d.kind === "enum" ? "Schema" : ""));
  names = { schema, shape };
  namesByFile.set(file, names);
  return names;
}

const docsByFile = new WeakMap<DescFile, Map<DescService | DescMethod, SourceCodeInfo_Location>>();

// FileDescriptorProto.service is field 6, ServiceDescriptorProto.method field 2.
const serviceField = 6;
const methodField = 2;

/** The source location of each service and rpc of the file; the first location of a path wins, as in protoplugin. */
function docLocations(file: DescFile): Map<DescService | DescMethod, SourceCodeInfo_Location> {
  let byDesc = docsByFile.get(file);
  if (byDesc) return byDesc;
  const byPath = new Map<string, SourceCodeInfo_Location>();
  const ofServiceOrRpc = (p: readonly number[]) => p.length === 2 || (p.length === 4 && p[2] === methodField);
  for (const loc of sourceLocations(file.proto, [serviceField], ofServiceOrRpc)) {
    const key = loc.path.join(".");
    if (!byPath.has(key)) byPath.set(key, loc);
  }
  byDesc = new Map();
  file.services.forEach((service, i) => {
    const at = byPath.get(`${serviceField}.${i}`);
    if (at) byDesc.set(service, at);
    service.methods.forEach((rpc, j) => {
      const at = byPath.get(`${serviceField}.${i}.${methodField}.${j}`);
      if (at) byDesc.set(rpc, at);
    });
  });
  docsByFile.set(file, byDesc);
  return byDesc;
}

// FileDescriptorProto.package and .syntax: the comments of these two a file's preamble prints.
const packageField = 2;
const syntaxField = 12;
const preambleFiles = new WeakMap<DescFile, DescFile>();

/**
 * The file to hand protoplugin's `f.preamble()`: the file itself, or, while
 * its source locations are still encoded (source-info.ts), a view of it whose
 * source locations are only those of `syntax` and `package`, the comments the
 * preamble prints (it reads the first location of each path), so that
 * printing a preamble does not decode the file's every location.
 */
export function preambleFile(file: DescFile): DescFile {
  let view = preambleFiles.get(file);
  if (view) return view;
  view = file;
  if (sourceInfoEncoded(file.proto)) {
    const locations = sourceLocations(file.proto, [packageField, syntaxField], (p) => p.length === 1);
    const proto = Object.create(file.proto, {
      sourceCodeInfo: { value: sourceInfoOf(locations), enumerable: true },
    }) as DescFile["proto"];
    view = Object.create(file, { proto: { value: proto, enumerable: true } }) as DescFile;
  }
  preambleFiles.set(file, view);
  return view;
}

/**
 * The JSDoc text protoplugin writes for a service or an rpc (`f.jsDoc(desc)`):
 * the leading and trailing comments, one leading space off each line, then
 * `@generated from ...`, and `@deprecated` when the element (or, for a
 * service, its file) is.
 */
export function docText(desc: DescService | DescMethod): string {
  const file = desc.kind === "service" ? desc.file : desc.parent.file;
  const loc = docLocations(file).get(desc);
  let text = "";
  if (loc && isFieldSet(loc, SourceCodeInfo_LocationSchema.field.leadingComments)) {
    text += withoutFinalNewline(loc.leadingComments);
  }
  if (loc && isFieldSet(loc, SourceCodeInfo_LocationSchema.field.trailingComments)) {
    if (text.length > 0) text += "\n\n";
    text += withoutFinalNewline(loc.trailingComments);
  }
  if (text.length > 0) text += "\n\n";
  text = text
    .split("\n")
    .map((line) => (line.startsWith(" ") ? line.substring(1) : line))
    .join("\n");
  text += `@generated from ${desc.toString()}`;
  if (desc.deprecated || (desc.kind === "service" && desc.file.deprecated)) text += "\n@deprecated";
  return text;
}

const withoutFinalNewline = (s: string) => (s.endsWith("\n") ? s.slice(0, -1) : s);

/** A declaration that can carry a comment, as protoplugin's getComments takes it. */
export type Commented = Parameters<typeof protoplugin.getComments>[0];

const locationsByFile = new WeakMap<DescFile, Map<string, SourceCodeInfo_Location>>();
const paths = new WeakMap<Commented, readonly number[]>();

/**
 * protoplugin's `getComments(desc)`, leading and trailing: the same source
 * location (the first one of the declaration's path), found in a table of the
 * file's locations made once, instead of a scan of all of them per call.
 */
export function commentsOf(desc: Commented): { leading?: string; trailing?: string } {
  const file = "file" in desc ? desc.file : desc.parent.file;
  let byPath = locationsByFile.get(file);
  if (!byPath) {
    byPath = new Map();
    for (const loc of file.proto.sourceCodeInfo?.location ?? []) {
      const key = loc.path.join(".");
      if (!byPath.has(key)) byPath.set(key, loc);
    }
    locationsByFile.set(file, byPath);
  }
  const loc = byPath.get(sourcePath(desc).join("."));
  const out: { leading?: string; trailing?: string } = {};
  if (loc && isFieldSet(loc, SourceCodeInfo_LocationSchema.field.leadingComments)) out.leading = loc.leadingComments;
  if (loc && isFieldSet(loc, SourceCodeInfo_LocationSchema.field.trailingComments)) out.trailing = loc.trailingComments;
  return out;
}

// Field numbers of descriptor.proto that source paths are made of.
const FILE_MESSAGE = 4;
const FILE_ENUM = 5;
const FILE_SERVICE = 6;
const FILE_EXTENSION = 7;
const MESSAGE_FIELD = 2;
const MESSAGE_NESTED = 3;
const MESSAGE_ENUM = 4;
const MESSAGE_EXTENSION = 6;
const MESSAGE_ONEOF = 8;
const ENUM_VALUE = 2;
const SERVICE_METHOD = 2;

/** The declaration's path in SourceCodeInfo, as protoplugin works it out. */
function sourcePath(desc: Commented): readonly number[] {
  let p = paths.get(desc);
  if (p !== undefined) return p;
  switch (desc.kind) {
    case "message":
      p = desc.parent
        ? [...sourcePath(desc.parent), MESSAGE_NESTED, desc.parent.proto.nestedType.indexOf(desc.proto)]
        : [FILE_MESSAGE, desc.file.proto.messageType.indexOf(desc.proto)];
      break;
    case "enum":
      p = desc.parent
        ? [...sourcePath(desc.parent), MESSAGE_ENUM, desc.parent.proto.enumType.indexOf(desc.proto)]
        : [FILE_ENUM, desc.file.proto.enumType.indexOf(desc.proto)];
      break;
    case "extension":
      p = desc.parent
        ? [...sourcePath(desc.parent), MESSAGE_EXTENSION, desc.parent.proto.extension.indexOf(desc.proto)]
        : [FILE_EXTENSION, desc.file.proto.extension.indexOf(desc.proto)];
      break;
    case "field":
      p = [...sourcePath(desc.parent), MESSAGE_FIELD, desc.parent.proto.field.indexOf(desc.proto)];
      break;
    case "oneof":
      p = [...sourcePath(desc.parent), MESSAGE_ONEOF, desc.parent.proto.oneofDecl.indexOf(desc.proto)];
      break;
    case "enum_value":
      p = [...sourcePath(desc.parent), ENUM_VALUE, desc.parent.proto.value.indexOf(desc.proto)];
      break;
    case "service":
      p = [FILE_SERVICE, desc.file.proto.service.indexOf(desc.proto)];
      break;
    case "rpc":
      p = [...sourcePath(desc.parent), SERVICE_METHOD, desc.parent.proto.method.indexOf(desc.proto)];
      break;
  }
  paths.set(desc, p);
  return p;
}
