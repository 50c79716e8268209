// google.api.field_behavior, read at generation time.
import { getOption, type DescExtension, type DescField, type DescFile } from "@bufbuild/protobuf";

/** google.api.FieldBehavior values the emitters read. */
const REQUIRED = 2;
const OUTPUT_ONLY = 3;
const INPUT_ONLY = 4;

export interface FieldBehaviors {
  readonly required: boolean;
  readonly outputOnly: boolean;
  readonly inputOnly: boolean;
}

const none: FieldBehaviors = { required: false, outputOnly: false, inputOnly: false };

/**
 * What google.api.field_behavior says of a field, read through the request's
 * own copy of google/api/field_behavior.proto (a proto that does not import
 * it has no field that sets it). Cached: getOption decodes the option's
 * bytes on every call.
 */
export function fieldBehaviorReader(files: readonly DescFile[]): (field: DescField) => FieldBehaviors {
  const ext: DescExtension | undefined = files
    .find((f) => f.name === "google/api/field_behavior")
    ?.extensions.find((e) => e.typeName === "google.api.field_behavior");
  if (ext === undefined) return () => none;
  const cache = new Map<DescField, FieldBehaviors>();
  return (field) => {
    let b = cache.get(field);
    if (b === undefined) {
      const list = getOption(field, ext) as number[];
      b =
        list.length === 0
          ? none
          : { required: list.includes(REQUIRED), outputOnly: list.includes(OUTPUT_ONLY), inputOnly: list.includes(INPUT_ONLY) };
      cache.set(field, b);
    }
    return b;
  };
}
