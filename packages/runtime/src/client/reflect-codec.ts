// The request and answer messages of a client whose route table carries
// descriptors (a generated `<Service>Routes`): the request's init shape made
// a message with protobuf-es's create(), written by the route's generated
// codec or toJson; the answer read by the codec or fromJson (always
// fromJson with the caller's registry, for google.protobuf.Any).
import { create, fromJson, type JsonObject, type Message } from "@bufbuild/protobuf";
import { readLenient, routeCodecs, writePlain } from "../transcoding/message-json.js";
import type { RouteBinding } from "../route-binding.js";
import type { ClientOptions } from "./options.js";
import type { ClientCodecs } from "./wire-client.js";

/** The messages of `options`' calls by reflection (with the route's generated codecs unless `jsonCodec` turns them off). */
export function reflectCodecs(options: ClientOptions): ClientCodecs<RouteBinding> {
  const registry = options.registry;
  const readOptions = registry ? { ignoreUnknownFields: true, registry } : { ignoreUnknownFields: true };
  return (route) => {
    const json = routeCodecs(route, options);
    return {
      // With a registry the route's codecs are off (routeCodecs): protobuf-es writes, with it.
      write: (request) => writePlain(route.input, json?.input, create(route.input, request as never) as Message, registry) as JsonObject,
      read: (answer) =>
        registry === undefined ? readLenient(route.output, json?.output, answer) : fromJson(route.output, answer, readOptions),
    };
  };
}
