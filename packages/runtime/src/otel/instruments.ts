/**
 * The runtime's metrics, made once per meter: their names (OpenTelemetry's
 * semantic conventions where one exists, `a2a.*` otherwise), units and
 * descriptions. docs/observability-signals.md lists them.
 */
import type { Counter, Histogram, Meter, UpDownCounter } from "@opentelemetry/api";

export interface Instruments {
  /** rpc.server.duration (ms): JSON-RPC and gRPC, by rpc.system, rpc.service, rpc.method, status. */
  readonly rpcServer: Histogram;
  /** http.server.request.duration (s): HTTP+JSON, by method, route, status, rpc.method. */
  readonly httpServer: Histogram;
  /** Server streams open now. */
  readonly activeStreams: UpDownCounter;
  /** rpc.client.duration (ms), the generated client, per HTTP attempt. */
  readonly rpcClient: Histogram;
  readonly tasksStarted: Counter;
  readonly tasksEnded: Counter;
  readonly runDuration: Histogram;
  readonly pushAttempts: Counter;
  readonly pushDuration: Histogram;
  /** db.client.operation.duration (s), the SQL store's operations. */
  readonly storeDuration: Histogram;
}

/** Boundaries of a histogram in seconds (the semantic conventions' advice for http.server.request.duration). */
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
const MILLIS = SECONDS.map((s) => s * 1000);

export function instruments(meter: Meter): Instruments {
  const seconds = (name: string, description: string) =>
    meter.createHistogram(name, { unit: "s", description, advice: { explicitBucketBoundaries: SECONDS } });
  const millis = (name: string, description: string) =>
    meter.createHistogram(name, { unit: "ms", description, advice: { explicitBucketBoundaries: MILLIS } });
  return {
    rpcServer: millis("rpc.server.duration", "Duration of inbound JSON-RPC and gRPC calls, to the answer (a stream: to its end)"),
    httpServer: seconds("http.server.request.duration", "Duration of inbound HTTP+JSON requests, to the answer (a stream: to its end)"),
    activeStreams: meter.createUpDownCounter("a2a.server.active_streams", { unit: "{stream}", description: "Server streams open" }),
    rpcClient: millis("rpc.client.duration", "Duration of outbound RPCs (one HTTP attempt, to the answer's headers)"),
    tasksStarted: meter.createCounter("a2a.tasks.started", { unit: "{task}", description: "Tasks created here" }),
    tasksEnded: meter.createCounter("a2a.tasks.ended", { unit: "{task}", description: "Executor runs ended, by the task's state then" }),
    runDuration: seconds("a2a.executor.run.duration", "Duration of executor runs, to their last publication stored"),
    pushAttempts: meter.createCounter("a2a.push.attempts", {
      unit: "{attempt}",
      description: "Push delivery attempts by outcome (ok, retry, failed)",
    }),
    pushDuration: seconds("a2a.push.attempt.duration", "Duration of push delivery attempts"),
    storeDuration: seconds("db.client.operation.duration", "Duration of the SQL store's operations"),
  };
}
