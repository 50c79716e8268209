/**
 * An OTLP/HTTP receiver for tests: a node:http server on 127.0.0.1 that takes
 * POST /v1/traces and /v1/metrics in either encoding (application/json or
 * application/x-protobuf) and keeps what arrived as plain objects: each span
 * with its service name, ids (hex), parent, kind, attributes and links; each
 * metric's name with its service. The protobuf is read by a small reader of
 * the few fields asserted (the OTLP .proto files are not in the repository);
 * field numbers are those of opentelemetry-proto's trace, metrics, resource
 * and common messages.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";

export type AttributeValue = string | number | boolean | undefined;

export interface ReceivedSpan {
  readonly service: string | undefined;
  readonly traceId: string;
  readonly spanId: string;
  /** "" for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  readonly links: readonly { traceId: string; spanId: string }[];
}

export interface ReceivedMetric {
  readonly service: string | undefined;
  readonly name: string;
}

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  readonly metrics: ReceivedMetric[];
  /** The Content-Type of every export request, by path. */
  readonly contentTypes: string[];
  /** Resolves when `test` holds of what arrived, polling; rejects after `timeoutMs`. */
  until(test: () => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const metrics: ReceivedMetric[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let body = Buffer.concat(chunks);
      if (req.headers["content-encoding"] === "gzip") body = gunzipSync(body);
      const type = req.headers["content-type"] ?? "";
      contentTypes.push(`${req.url} ${type}`);
      const json = type.startsWith("application/json");
      try {
        if (req.url === "/v1/traces") spans.push(...(json ? spansOfJson(JSON.parse(body.toString())) : spansOfProtobuf(body)));
        else if (req.url === "/v1/metrics") metrics.push(...(json ? metricsOfJson(JSON.parse(body.toString())) : metricsOfProtobuf(body)));
        else {
          res.writeHead(404).end();
          return;
        }
      } catch (e) {
        res.writeHead(400).end(String(e));
        return;
      }
      // An empty Export*ServiceResponse: no partial success.
      if (json) res.writeHead(200, { "content-type": "application/json" }).end("{}");
      else res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    metrics,
    contentTypes,
    async until(test, timeoutMs = 20_000) {
      const end = Date.now() + timeoutMs;
      while (!test()) {
        if (Date.now() > end)
          throw new Error(`OTLP receiver: not there after ${timeoutMs} ms (${spans.length} spans, ${metrics.length} metrics)`);
        await new Promise((ok) => setTimeout(ok, 50));
      }
    },
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
      }),
  };
}

// --- OTLP/JSON: lowerCamelCase names, ids in hex, 64-bit integers as strings.

interface JsonKeyValue {
  key: string;
  value?: { stringValue?: string; boolValue?: boolean; intValue?: string | number; doubleValue?: number };
}

function attributesOfJson(list: JsonKeyValue[] | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const { key, value } of list ?? []) {
    out[key] = value?.stringValue ?? value?.boolValue ?? (value?.intValue !== undefined ? Number(value.intValue) : value?.doubleValue);
  }
  return out;
}

function spansOfJson(body: any): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((rs: any) => {
    const service = attributesOfJson(rs.resource?.attributes)["service.name"] as string | undefined;
    return (rs.scopeSpans ?? []).flatMap((ss: any) =>
      (ss.spans ?? []).map(
        (s: any): ReceivedSpan => ({
          service,
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? "",
          name: s.name,
          kind: s.kind ?? 0,
          attributes: attributesOfJson(s.attributes),
          links: (s.links ?? []).map((l: any) => ({ traceId: l.traceId, spanId: l.spanId })),
        }),
      ),
    );
  });
}

function metricsOfJson(body: any): ReceivedMetric[] {
  return (body.resourceMetrics ?? []).flatMap((rm: any) => {
    const service = attributesOfJson(rm.resource?.attributes)["service.name"] as string | undefined;
    return (rm.scopeMetrics ?? []).flatMap((sm: any) => (sm.metrics ?? []).map((m: any) => ({ service, name: m.name })));
  });
}

// --- OTLP/protobuf: a reader of tags, varints and length-delimited fields.

type Field = { no: number; wire: number; varint?: bigint; bytes?: Uint8Array; fixed?: Uint8Array };

/** The fields of one message, in order; a field repeated appears once per value. */
function fieldsOf(buf: Uint8Array): Field[] {
  const out: Field[] = [];
  let i = 0;
  const varint = (): bigint => {
    let v = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (i >= buf.length) throw new Error("protobuf: truncated varint");
      const b = buf[i++]!;
      v |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return v;
    }
  };
  while (i < buf.length) {
    const tag = Number(varint());
    const no = tag >>> 3;
    const wire = tag & 7;
    if (wire === 0) out.push({ no, wire, varint: varint() });
    else if (wire === 2) {
      const len = Number(varint());
      if (i + len > buf.length) throw new Error("protobuf: truncated field");
      out.push({ no, wire, bytes: buf.subarray(i, i + len) });
      i += len;
    } else if (wire === 1 || wire === 5) {
      const len = wire === 1 ? 8 : 4;
      out.push({ no, wire, fixed: buf.subarray(i, i + len) });
      i += len;
    } else throw new Error(`protobuf: wire type ${wire} unexpected`);
  }
  return out;
}

const text = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString("utf8") : "");
const hex = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString("hex") : "");
const all = (fields: Field[], no: number) => fields.filter((f) => f.no === no && f.bytes).map((f) => f.bytes!);
const one = (fields: Field[], no: number) => fields.find((f) => f.no === no);

/** KeyValue { key = 1; AnyValue value = 2 }; AnyValue { string 1, bool 2, int 3, double 4 }. */
function attributesOfProtobuf(list: Uint8Array[]): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const kv of list) {
    const f = fieldsOf(kv);
    const value = fieldsOf(one(f, 2)?.bytes ?? new Uint8Array());
    const v = value[0];
    out[text(one(f, 1)?.bytes)] =
      v === undefined
        ? undefined
        : v.no === 1
          ? text(v.bytes)
          : v.no === 2
            ? v.varint === 1n
            : v.no === 3
              ? Number(BigInt.asIntN(64, v.varint!))
              : v.no === 4
                ? Buffer.from(v.fixed!).readDoubleLE()
                : undefined;
  }
  return out;
}

/** Resource { repeated KeyValue attributes = 1 }: its service.name. */
function serviceOf(resource: Uint8Array | undefined): string | undefined {
  return attributesOfProtobuf(all(fieldsOf(resource ?? new Uint8Array()), 1))["service.name"] as string | undefined;
}

/**
 * ExportTraceServiceRequest { ResourceSpans 1 }; ResourceSpans { Resource 1, ScopeSpans 2 };
 * ScopeSpans { Span 2 }; Span { trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6,
 * attributes 9, links 13 }; Link { trace_id 1, span_id 2 }.
 */
function spansOfProtobuf(body: Uint8Array): ReceivedSpan[] {
  return all(fieldsOf(body), 1).flatMap((rsBytes) => {
    const rs = fieldsOf(rsBytes);
    const service = serviceOf(one(rs, 1)?.bytes);
    return all(rs, 2).flatMap((ss) =>
      all(fieldsOf(ss), 2).map((spanBytes): ReceivedSpan => {
        const s = fieldsOf(spanBytes);
        return {
          service,
          traceId: hex(one(s, 1)?.bytes),
          spanId: hex(one(s, 2)?.bytes),
          parentSpanId: hex(one(s, 4)?.bytes),
          name: text(one(s, 5)?.bytes),
          kind: Number(one(s, 6)?.varint ?? 0n),
          attributes: attributesOfProtobuf(all(s, 9)),
          links: all(s, 13).map((l) => {
            const lf = fieldsOf(l);
            return { traceId: hex(one(lf, 1)?.bytes), spanId: hex(one(lf, 2)?.bytes) };
          }),
        };
      }),
    );
  });
}

/** ExportMetricsServiceRequest { ResourceMetrics 1 }; ResourceMetrics { Resource 1, ScopeMetrics 2 }; ScopeMetrics { Metric 2 }; Metric { name 1 }. */
function metricsOfProtobuf(body: Uint8Array): ReceivedMetric[] {
  return all(fieldsOf(body), 1).flatMap((rmBytes) => {
    const rm = fieldsOf(rmBytes);
    const service = serviceOf(one(rm, 1)?.bytes);
    return all(rm, 2).flatMap((sm) => all(fieldsOf(sm), 2).map((m) => ({ service, name: text(one(fieldsOf(m), 1)?.bytes) })));
  });
}
