// A field's proto name from its JSON name: protoc's default json_name
// (lower_snake_case to lowerCamelCase) taken back, "contextId" to
// "context_id". ProtoJSON readers take either name; a lean client table
// writes a field's proto name only when it is not this one (the plugin asks
// this same function).

/** The proto name whose default JSON name is `jsonName`. */
export const protoNameOf = (jsonName: string): string => jsonName.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
